/// The `op` words of format v1. Each decomposes into rights on one or more nodes (see
/// `Authorizer`), always after `search` on every directory walked.
public enum Operation: Hashable, Sendable {
    case read, write, readwrite, append, truncate, execute, list, search, stat
    case create, mkdir, delete, rename, link
    /// `unlink(2)` and `rmdir(2)`: removing a name that must not be, or must be, a directory
    /// (`delete` removes whatever it is). Rules O14, O15.
    case unlink, rmdir
    /// `lstat(2)` and `lchown(2)`: `stat` and `chown` of a trailing symlink itself (rule O16).
    case lstat, lchown
    /// Making a node of another kind: `symlink(2)` (the link at `path`, its target `to:`),
    /// `mkfifo(3)`, `mknod(2)` of a device node, and `bind(2)` of a unix socket at `path`. Each
    /// creates a name in the parent as `create` does; `mknod` also needs privilege (O17–O19).
    case symlink, mkfifo, mknod, socket
    /// `lchmod(3)`, `fchmodat(AT_SYMLINK_NOFOLLOW)`: `chmod` of a trailing symlink itself. Linux
    /// refuses a symlink (`EOPNOTSUPP`) and changes anything else as `chmod` does (rule O25).
    case lchmod
    /// `open(O_WRONLY|O_CREAT)` without `O_EXCL` (and without `O_TRUNC`): creates the name if it
    /// does not exist (as `create`), else opens the existing file for writing (as `write`),
    /// where Linux adds `fs.protected_regular`/`fs.protected_fifos` (docs/semantics.md O, L12).
    case creat
    /// `open(2)` with the flags the request gives (`flags: [O_RDONLY, O_TRUNC]`; none is
    /// `O_RDONLY`): the rights, the lookup and the errno each flag brings (rule O21).
    case open
    case readattr, writeattr, settimes, touch, readextattr, writeextattr, readsecurity
    case chmod, chown, chgrp, chflags, setacl
    /// Administrator operations (steps only), as the guide lists them: push inheritable ACEs down
    /// the tree (Figure B-1), copy the directory's owner, group and mode to everything below,
    /// re-apply inheritance to one item, make inherited ACEs explicit, remove all ACEs.
    case propagate, copyPermissions, inheritACL, makeExplicit, removeACLs
    /// Any change to the node's contents (docs/semantics.md O40): on a file, `write`, `append`
    /// or `truncate`; on a directory, adding an entry (`add_file`, `add_subdirectory`) or
    /// removing or renaming one away (`delete_child`), all judged on the directory itself.
    case modify
    /// A raw ACL right word (`delete_child`, `add_file`, …): exactly that right on the node.
    case rights(AccessRights, word: String)

    public static let words: [(String, Operation)] = [
        ("read", .read), ("write", .write), ("readwrite", .readwrite), ("append", .append), ("truncate", .truncate),
        ("execute", .execute), ("list", .list), ("search", .search), ("stat", .stat),
        ("create", .create), ("creat", .creat), ("mkdir", .mkdir), ("delete", .delete), ("rename", .rename), ("link", .link),
        ("readattr", .readattr), ("writeattr", .writeattr), ("settimes", .settimes), ("touch", .touch),
        ("readextattr", .readextattr), ("writeextattr", .writeextattr), ("readsecurity", .readsecurity),
        ("chmod", .chmod), ("chown", .chown), ("chgrp", .chgrp), ("chflags", .chflags), ("setacl", .setacl),
        ("propagate", .propagate), ("copypermissions", .copyPermissions), ("inheritacl", .inheritACL),
        ("makeexplicit", .makeExplicit), ("removeacls", .removeACLs), ("modify", .modify),
        ("unlink", .unlink), ("rmdir", .rmdir), ("lstat", .lstat), ("lchown", .lchown),
        ("symlink", .symlink), ("mkfifo", .mkfifo), ("mknod", .mknod), ("socket", .socket), ("open", .open),
        ("lchmod", .lchmod)
    ]

    /// Operations a step can perform (they change the world).
    public var changesTheWorld: Bool {
        switch self {
        case .create, .creat, .open, .mkdir, .symlink, .mkfifo, .mknod, .socket, .delete, .unlink, .rmdir, .rename, .link, .chmod, .lchmod, .lchown, .chown,
            .chgrp,
            .chflags,
            .setacl, .settimes, .touch,
            .propagate, .copyPermissions, .inheritACL, .makeExplicit, .removeACLs:
            true
        // A write to a file's data, which may clear its setuid and setgid bits (O20).
        case .write, .append, .truncate: true
        default: false
        }
    }

    /// Operations only steps may use.
    public var isAdministrative: Bool {
        switch self {
        case .propagate, .copyPermissions, .inheritACL, .makeExplicit, .removeACLs: true
        default: false
        }
    }

    /// The op words a request (an expectation, `can`, `explain`, `who`) may use: every op word
    /// but the administrators' step-only ones, in table order. Help texts list these.
    public static var requestWords: [String] {
        words.filter { !$0.1.isAdministrative }.map(\.0)
    }

    /// Words people reach for that are not op words (shell commands, system calls, other
    /// tools' names), with the op word that does the same.
    public static let synonyms: [(String, String)] = [
        ("remove", "delete"), ("rm", "unlink"), ("del", "delete"), ("erase", "delete"),
        ("openat", "open"), ("cat", "read"), ("view", "read"),
        ("change", "modify"), ("edit", "modify"), ("save", "write"),
        ("rw", "readwrite"), ("read-write", "readwrite"), ("read_write", "readwrite"),
        ("exec", "execute"), ("run", "execute"),
        ("ls", "list"), ("readdir", "list"), ("cd", "search"), ("lookup", "search"), ("traverse", "search"),
        ("new", "create"), ("o_creat", "creat"), ("make", "create"), ("md", "mkdir"),
        ("bind", "socket"), ("softlink", "symlink"), ("mksock", "socket"),
        ("mv", "rename"), ("move", "rename"), ("ln", "link"), ("hardlink", "link"),
        ("getattr", "stat"), ("utimes", "settimes"), ("utime", "settimes"),
        ("chattr", "chflags"), ("setfacl", "setacl"), ("acl", "setacl")
    ]

    /// The op word to suggest for an unknown word: its synonym, else the nearest accepted word
    /// by edit distance; nil when nothing is close.
    public static func suggestion(for word: String) -> String? {
        let w = word.lowercased()
        if let s = synonyms.first(where: { $0.0 == w }) { return s.1 }
        return nearest(word, in: allWords)
    }

    /// Every accepted word, op words first, then the raw right words not already taken.
    public static var allWords: [String] {
        var w = words.map(\.0)
        for r in AccessRights.words where !w.contains(r.word) { w.append(r.word) }
        return w
    }

    public init?(word: String) {
        if let op = Operation.words.first(where: { $0.0 == word }) { self = op.1; return }
        if let r = AccessRights.named(word) { self = .rights(r, word: word); return }
        return nil
    }

    public var word: String {
        switch self {
        case .rights(_, let w): return w
        default: return Operation.words[wordIndex].0
        }
    }

    /// Where the operation is in `words` (-1 for `.rights`): every report writes an op's word,
    /// and a search of the table compares it with the cases before it.
    public var wordIndex: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .readwrite: 2
        case .append: 3
        case .truncate: 4
        case .execute: 5
        case .list: 6
        case .search: 7
        case .stat: 8
        case .create: 9
        case .creat: 10
        case .mkdir: 11
        case .delete: 12
        case .rename: 13
        case .link: 14
        case .readattr: 15
        case .writeattr: 16
        case .settimes: 17
        case .touch: 18
        case .readextattr: 19
        case .writeextattr: 20
        case .readsecurity: 21
        case .chmod: 22
        case .chown: 23
        case .chgrp: 24
        case .chflags: 25
        case .setacl: 26
        case .propagate: 27
        case .copyPermissions: 28
        case .inheritACL: 29
        case .makeExplicit: 30
        case .removeACLs: 31
        case .modify: 32
        case .unlink: 33
        case .rmdir: 34
        case .lstat: 35
        case .lchown: 36
        case .symlink: 37
        case .mkfifo: 38
        case .mknod: 39
        case .socket: 40
        case .open: 41
        case .lchmod: 42
        case .rights: -1
        }
    }

    /// Operations that open the node the path names (`open(2)` without `O_CREAT` making it, or
    /// `creat` of an existing name): a socket cannot be opened (docs/semantics.md O9).
    public var opensNode: Bool {
        switch self {
        case .read, .write, .truncate, .append, .readwrite, .creat, .open: true
        default: false
        }
    }

    /// Operations that need `to:` (for `symlink`, the link's target text, not a path walked).
    public var needsTarget: Bool { self == .rename || self == .link || self == .symlink }

    /// The operations that make a new name of a node that is neither a file nor a directory,
    /// and the type of the node each makes.
    public var newNodeType: NodeType? {
        switch self {
        case .symlink: .symlink
        case .mkfifo: .fifo
        // The request's `type:` says block or character (`deviceType`); without it, a device
        // node of an unsaid kind.
        case .mknod: .device
        case .socket: .socket
        default: nil
        }
    }

    /// `delete`, `unlink` and `rmdir`: the operations that remove a name.
    public var removesName: Bool { self == .delete || self == .unlink || self == .rmdir }

    /// Whether a trailing symlink in `path` is followed (`stat`, `open`, `chmod` follow;
    /// `unlink`, `rename`, `link`, and creating a new name do not).
    public var followsTrailingSymlink: Bool {
        switch self {
        case .delete, .unlink, .rmdir, .rename, .link, .create, .mkdir, .lstat, .lchown, .lchmod, .symlink, .mkfifo, .mknod, .socket: false
        default: true
        }
    }
}

/// One question: may `subject` do `op` to `path`?
///
/// The arguments only some operations take live in one shared box, allocated only when one is
/// set: a request is copied wherever it goes, and most requests (read, write, stat…) carry
/// none of them, so a copy moves a few words instead of every optional.
public struct Request: Sendable {
    public var subject: Subject
    public var op: Operation
    public var path: String
    /// The app asking (an index into `World.apps`), nil for a plain process of `subject`.
    /// Its sandbox and its privacy (TCC) consents then apply in front of the file system.
    public var app: Int?
    private var extras: ExtrasBox?

    /// What only some operations take: the new name (`rename`, `link`), mode (`create`,
    /// `mkdir`: before the umask; `chmod`), owner (`chown`), group (`chgrp`), flag set
    /// (`chflags`), ACL (`setacl`; `posixACL` under linux). A policy file's request keeps the
    /// same values (`RequestSpec`), handed over whole (`extras`).
    public struct Extras: Sendable {
        public var to: String?
        public var mode: FileMode?
        public var owner: UID?
        public var group: GID?
        public var flags: FileFlags?
        public var acl: ACL?
        public var posixACL: POSIXACL?
        /// `open`: its flags.
        public var openFlags: OpenFlags?
        /// `settimes`: how each time is set (nil: to a given time, `.set`).
        public var atime: TimeChange?
        public var mtime: TimeChange?
        /// `mknod`: the kind of device node made (`.blockDevice`, `.charDevice`; nil: `.device`).
        public var deviceType: NodeType?
        public init(
            to: String? = nil, mode: FileMode? = nil, owner: UID? = nil, group: GID? = nil, flags: FileFlags? = nil,
            acl: ACL? = nil, posixACL: POSIXACL? = nil
        ) {
            self.to = to
            self.mode = mode
            self.owner = owner
            self.group = group
            self.flags = flags
            self.acl = acl
            self.posixACL = posixACL
        }
        public var isEmpty: Bool {
            to == nil && mode == nil && owner == nil && group == nil && flags == nil && acl == nil && posixACL == nil && openFlags == nil
                && atime == nil && mtime == nil && deviceType == nil
        }
    }

    /// All of the operation's extra arguments at once.
    public var allExtras: Extras {
        get { extras?.value ?? Extras() }
        set { extras = newValue.isEmpty ? nil : ExtrasBox(newValue) }
    }

    /// Immutable: a setter on a copy makes a new box, so copies never share a change.
    final class ExtrasBox: Sendable {
        let value: Extras
        init(_ value: Extras) { self.value = value }
    }

    private mutating func setExtra(_ body: (inout Extras) -> Void) {
        var e = allExtras
        body(&e)
        allExtras = e
    }

    /// The new name for `rename` and `link`; the target text of `symlink`.
    public var to: String? {
        get { extras?.value.to }
        set { setExtra { $0.to = newValue } }
    }
    /// `create`/`mkdir`: the requested mode before the umask. `chmod`: the new mode.
    public var mode: FileMode? {
        get { extras?.value.mode }
        set { setExtra { $0.mode = newValue } }
    }
    /// `chown`, `lchown`: the new owner (nil: no change, `-1`).
    public var owner: UID? {
        get { extras?.value.owner }
        set { setExtra { $0.owner = newValue } }
    }
    /// `chgrp`: the new group; `chown`, `lchown`: the new group, nil for no change (`-1`).
    public var group: GID? {
        get { extras?.value.group }
        set { setExtra { $0.group = newValue } }
    }
    /// `chflags`: the complete new flag set.
    public var flags: FileFlags? {
        get { extras?.value.flags }
        set { setExtra { $0.flags = newValue } }
    }
    /// `setacl`: the complete new ACL (nil = remove it).
    public var acl: ACL? {
        get { extras?.value.acl }
        set { setExtra { $0.acl = newValue } }
    }
    /// `setacl` under linux: the complete new access ACL.
    public var posixACL: POSIXACL? {
        get { extras?.value.posixACL }
        set { setExtra { $0.posixACL = newValue } }
    }

    /// `open`: the flags of the call (nil: `O_RDONLY`).
    public var openFlags: OpenFlags? {
        get { extras?.value.openFlags }
        set { setExtra { $0.openFlags = newValue } }
    }

    /// `settimes`: how the access and the modification time are set (`UTIME_NOW`, `UTIME_OMIT`,
    /// or a given time when nil).
    public var atime: TimeChange {
        get { extras?.value.atime ?? .set }
        set { setExtra { $0.atime = newValue == .set ? nil : newValue } }
    }
    public var mtime: TimeChange {
        get { extras?.value.mtime ?? .set }
        set { setExtra { $0.mtime = newValue == .set ? nil : newValue } }
    }
    /// `mknod`: the kind of device node made.
    public var deviceType: NodeType {
        get { extras?.value.deviceType ?? .device }
        set { setExtra { $0.deviceType = newValue == .device ? nil : newValue } }
    }

    /// A request of an operation that takes nothing but its path (no extra arguments to look at).
    public init(subject: Subject, op: Operation, path: String) {
        self.subject = subject
        self.op = op
        self.path = path
    }

    public init(
        subject: Subject, op: Operation, path: String, to: String? = nil, mode: FileMode? = nil,
        owner: UID? = nil, group: GID? = nil, flags: FileFlags? = nil, acl: ACL? = nil
    ) {
        self.init(subject: subject, op: op, path: path)
        let e = Extras(to: to, mode: mode, owner: owner, group: group, flags: flags, acl: acl, posixACL: nil)
        if !e.isEmpty { extras = ExtrasBox(e) }
    }
}

/// How `settimes` sets one of a file's times: `utimensat(2)`'s `tv_nsec` of that time.
public enum TimeChange: UInt8, Sendable, CaseIterable {
    /// A given time.
    case set
    /// `UTIME_NOW`: the current time.
    case now
    /// `UTIME_OMIT`: left as it is.
    case omit

    public var word: String {
        switch self {
        case .set: "set"
        case .now: "now"
        case .omit: "omit"
        }
    }

    public init?(word: String) {
        guard let t = TimeChange.allCases.first(where: { $0.word == word }) else { return nil }
        self = t
    }
}

/// The rule set that decides.
public enum Semantics: String, Sendable, CaseIterable {
    /// What XNU does (`vnode_authorize` and the syscalls around it).
    case macos
    /// Apple's File System Programming Guide, security appendix, literally.
    case guide
    /// What the Linux kernel does (POSIX.1e ACLs, capabilities, inode flags).
    case linux
}
