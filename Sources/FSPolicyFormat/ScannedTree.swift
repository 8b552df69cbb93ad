import FSPolicy
import Foundation
import FSPolicyYAML

/// A real tree as read from disk (or from a `getfacl -R` dump): plain values, so the policy
/// loader can use it without touching the file system.
public struct ScannedTree: Sendable {
    public struct Entry: Sendable {
        /// Path below the scanned root, components joined by `/` ("" for the root itself);
        /// names that are not UTF-8 text are escaped (`NameEscaping`).
        public var relativePath: String
        public var type: NodeType
        public var uid: UID
        public var gid: GID
        public var mode: FileMode
        public var flags: FileFlags
        public var access: POSIXACL?
        public var defaultACL: POSIXACL?
        public var target: String?
        /// The node was not read but assumed (a folder a tar archive implies without an entry
        /// of its own): written with `assumed: true`, marked in `explain`'s trace.
        public var assumed: Bool = false
        /// A folder whose entries were not all read, or a symlink whose target was not, and
        /// why (written `unread: REASON`; docs/semantics.md P6).
        public var unread: UnreadReason? = nil
        /// For a file with more than one name (hard links): its device and inode, the same for
        /// every name (written `link: FIRST-NAME` on the names after the first).
        public var inode: Inode? = nil
        /// For a file whose name marks it as possibly secret: what its first bytes hold
        /// (written `content: KIND`), when it could be read.
        public var content: ContentKind? = nil
        /// A regular file's `security.capability` (written `caps: "cap_…=ep"`).
        public var caps: FileCapabilities? = nil
        public init(
            relativePath: String, type: NodeType, uid: UID, gid: GID, mode: FileMode, flags: FileFlags = [],
            access: POSIXACL? = nil, defaultACL: POSIXACL? = nil, target: String? = nil
        ) {
            self.relativePath = relativePath
            self.type = type
            self.uid = uid
            self.gid = gid
            self.mode = mode
            self.flags = flags
            self.access = access
            self.defaultACL = defaultACL
            self.target = target
        }
    }

    /// A file's identity on the host: device and inode number.
    public struct Inode: Sendable, Hashable {
        public var dev: UInt64
        public var ino: UInt64
        public init(dev: UInt64, ino: UInt64) { self.dev = dev; self.ino = ino }
    }

    public struct Problem: Sendable, Hashable {
        /// The path as the user would write it (escaped like names).
        public var path: String
        public var message: String
        /// The entry vanished between its folder's listing and its reading: nothing to act on
        /// (a warning; `scan` still exits 0).
        public var vanished = false
        public init(path: String, message: String) { self.path = path; self.message = message }
    }

    /// A host account seen in the tree.
    public struct HostUser: Sendable, Hashable {
        public var name: String
        public var uid: UID
        public var gid: GID
        public var groups: [GID]
        public init(name: String, uid: UID, gid: GID, groups: [GID]) { self.name = name; self.uid = uid; self.gid = gid; self.groups = groups }
    }

    /// A mount met on the way to the root or below it (from `/proc/self/mountinfo`).
    public struct Mount: Sendable, Hashable {
        /// The mount point's real absolute path (escaped like names).
        public var path: String
        /// The mount point below the scanned root ("" for the root itself), or nil when it lies
        /// above the root (on the ancestor path).
        public var relativePath: String?
        /// The file-system type (`ext4`, `tmpfs`, …), escaped like names.
        public var fsType: String
        /// The file system itself is read-only (the superblock's `ro`).
        public var readOnly: Bool
        /// Only this mount is read-only (the mount's `ro`, the superblock `rw`): a read-only bind mount.
        public var readOnlyMount: Bool
        public var noexec: Bool
        public var nosuid: Bool
        public var nodev: Bool
        public init(
            path: String, relativePath: String?, fsType: String, readOnly: Bool = false, readOnlyMount: Bool = false,
            noexec: Bool = false, nosuid: Bool = false, nodev: Bool = false
        ) {
            self.path = path; self.relativePath = relativePath; self.fsType = fsType; self.readOnly = readOnly
            self.readOnlyMount = readOnlyMount; self.noexec = noexec; self.nosuid = nosuid; self.nodev = nodev
        }
    }

    /// The real absolute path that was read (`/` for several roots merged: `roots`).
    public var root: String
    /// Every root that was read: `[root]`, or the roots of a merged scan.
    public var roots: [String] = []
    /// The directories from `/` down to the root's parent, `/` first, when they were read (the
    /// entry's `relativePath` holds its absolute path). Empty for a scan placed elsewhere (`--at`).
    public var ancestors: [Entry] = []
    /// The real ancestors were read (false: the path above the root is assumed).
    public var ancestorsRead: Bool = false
    /// Every mount met: on the ancestor path (when read), the root's own, and every one below.
    public var mounts: [Mount] = []
    /// `users` and `groups` hold every account of the host, not only the owners seen.
    public var allAccounts: Bool = false
    /// Remarks about the scan for its header (duplicate accounts dropped, …), already escaped.
    public var notes: [String] = []
    public var entries: [Entry] = []
    public var problems: [Problem] = []
    /// The host's `fs.protected_*` sysctls, as read from `/proc/sys/fs` (per host, not per
    /// mount); those that could not be read are missing, and `tunablesUnread` says why.
    public var linuxTunables: [LinuxTunable: UInt8] = [:]
    /// Why some sysctls are missing from `linuxTunables` (already escaped), nil when all were read.
    public var tunablesUnread: String? = nil

    /// The mounts as volumes, each with its mount path: at their real paths, or, with the tree
    /// placed at `at`, the mount holding the root at `at` and the mounts below it relative to it.
    public func volumes(at: String?) -> [(String, Mount)] {
        guard let at else { return mounts.map { ($0.path, $0) } }
        var out: [(String, Mount)] = []
        if let holding = mounts.last(where: { $0.relativePath == nil || $0.relativePath == "" }) { out.append((at, holding)) }
        for m in mounts {
            guard let rel = m.relativePath, !rel.isEmpty else { continue }
            out.append(((at == "/" ? "" : at) + "/" + rel, m))
        }
        return out
    }
    public var users: [HostUser] = []
    public var groups: [(name: String, gid: GID)] = []
    /// What the tree was read from, when it is not a directory (e.g. "the tar archive
    /// `image.tar`"); nil for a scanned directory.
    public var origin: String? = nil
    public init(root: String) { self.root = root; self.roots = [root] }

    /// Several scans of real roots (each with its ancestors read) as one tree rooted at `/`:
    /// every entry at its absolute path, once; a folder one scan read whole keeps no `unread`
    /// mark another gives it (an ancestor of its root, say). Mounts, accounts, notes and
    /// problems are merged; the sysctls are the first scan's (they are the host's).
    public static func merged(_ trees: [ScannedTree]) -> ScannedTree {
        guard trees.count > 1 else { return trees.first ?? ScannedTree(root: "/") }
        var out = ScannedTree(root: "/")
        out.roots = trees.flatMap(\.roots)
        out.ancestorsRead = true
        out.allAccounts = trees.allSatisfy(\.allAccounts)
        out.linuxTunables = trees[0].linuxTunables
        out.tunablesUnread = trees[0].tunablesUnread
        var index: [String: Int] = [:]
        func add(_ e: Entry, at rel: String) {
            var e = e
            e.relativePath = rel
            if let i = index[rel] {
                // Read whole beats read on the way down; otherwise the first stays.
                if out.entries[i].unread == .outside && e.unread != .outside { out.entries[i] = e }
                return
            }
            index[rel] = out.entries.count
            out.entries.append(e)
        }
        var mountPaths: Set<String> = []
        var userIDs: Set<UID> = []
        var groupIDs: Set<GID> = []
        for t in trees {
            for a in t.ancestors {
                var a = a
                if a.unread == nil { a.unread = .outside }
                add(a, at: String(a.relativePath.drop { $0 == "/" }))
            }
            let base = t.root == "/" ? "" : String(t.root.dropFirst())
            for e in t.entries {
                add(e, at: e.relativePath.isEmpty ? base : (base.isEmpty ? "" : base + "/") + e.relativePath)
            }
            for m in t.mounts where mountPaths.insert(m.path).inserted {
                var m = m
                m.relativePath = String(m.path.drop { $0 == "/" })
                out.mounts.append(m)
            }
            for u in t.users where userIDs.insert(u.uid).inserted { out.users.append(u) }
            for g in t.groups where groupIDs.insert(g.gid).inserted { out.groups.append(g) }
            for n in t.notes where !out.notes.contains(n) { out.notes.append(n) }
            out.problems += t.problems
        }
        return out
    }
}

/// What a scan reads besides the tree itself.
public struct ScanOptions: Sendable, Hashable {
    /// Read the real directories from `/` down to the root (off when the tree is placed elsewhere).
    public var readAncestors: Bool
    /// Every user and group of the host (false: only the owners and groups seen, and the users' groups).
    public var allAccounts: Bool
    /// Threads that read a directory's entries (nil: one per processor, at most 4; 1: none
    /// but the caller's). The result is the same whatever the number.
    public var threads: Int?
    /// Folders deeper than this below the root are recorded, their entries not read (nil: no limit).
    public var maxDepth: Int?
    /// Shell-style patterns (`PathGlob`) of absolute paths: a matching folder is recorded, not entered.
    public var exclude: [String]
    /// Do not enter a folder on another file system than the root's.
    public var oneFileSystem: Bool
    /// Enter pseudo file systems (/proc, /sys, cgroups, …) met below the root.
    public var pseudo: Bool
    public init(
        readAncestors: Bool = true, allAccounts: Bool = true, threads: Int? = nil, maxDepth: Int? = nil,
        exclude: [String] = [], oneFileSystem: Bool = false, pseudo: Bool = false
    ) {
        self.readAncestors = readAncestors
        self.allAccounts = allAccounts
        self.threads = threads
        self.maxDepth = maxDepth
        self.exclude = exclude
        self.oneFileSystem = oneFileSystem
        self.pseudo = pseudo
    }

    /// Whether the absolute path `bytes` matches an `exclude` pattern.
    public func excludes(_ bytes: [UInt8]) -> Bool {
        let path = NameEscaping.escape(bytes)
        return exclude.contains { ScanOptions.matches($0, path) }
    }

    /// Shell-style matching of a whole path: `*` and `?` within a component, `**` across
    /// components, `[...]` classes as fnmatch has them.
    public static func matches(_ pattern: String, _ path: String) -> Bool {
        func m(_ p: Substring, _ s: Substring) -> Bool {
            if p.isEmpty { return s.isEmpty }
            if p.hasPrefix("**") {
                var rest = p.dropFirst(2)
                if rest.hasPrefix("/") { rest = rest.dropFirst(); if m(rest, s) { return true } }
                var t = s
                while true {
                    if m(rest, t) { return true }
                    if t.isEmpty { return false }
                    t = t.dropFirst()
                }
            }
            let c = p.first!
            if c == "*" {
                var t = s
                while true {
                    if m(p.dropFirst(), t) { return true }
                    guard let f = t.first, f != "/" else { return false }
                    t = t.dropFirst()
                }
            }
            guard let f = s.first else { return false }
            if c == "?" { return f != "/" && m(p.dropFirst(), s.dropFirst()) }
            return c == f && m(p.dropFirst(), s.dropFirst())
        }
        return m(Substring(pattern), Substring(path))
    }

    /// File systems that hold no files of their own (kernel state, cgroups): a scan records
    /// their mount points and does not enter them unless asked (`pseudo`).
    public static let pseudoTypes: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore",
        "bpf", "configfs", "fusectl", "binfmt_misc", "efivarfs", "autofs", "mqueue",
        "hugetlbfs", "rpc_pipefs", "nsfs", "devpts"
    ]

    public static func isPseudo(_ fsType: [UInt8]) -> Bool { pseudoTypes.contains(String(decoding: fsType, as: UTF8.self)) }
}

/// The one escaping rule for everything fspolicy prints or writes. A code point is *unsafe*
/// when it is a control character (C0, DEL, C1, including U+0085 NEL), a bidirectional
/// control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), a line or paragraph
/// separator (U+2028, U+2029), a byte-order mark (U+FEFF) or a noncharacter (U+FDD0–U+FDEF,
/// U+xFFFE, U+xFFFF): terminals act on them, YAML and XML 1.0 reject some of them. Unsafe code
/// points are written as `\ooo`, one escape per UTF-8 byte, like bytes that are not UTF-8.
public enum Escaping {
    /// True when `v` must never be written raw.
    @inline(__always)
    public static func isUnsafe(_ v: UInt32) -> Bool {
        if v < 0x20 || (0x7f...0x9f).contains(v) { return true }
        if v < 0x61c { return false }
        switch v {
        case 0x61c, 0x200e, 0x200f, 0x202a...0x202e, 0x2066...0x2069, 0x2028, 0x2029, 0xfeff, 0xfdd0...0xfdef: return true
        default: return v & 0xfffe == 0xfffe
        }
    }

    /// True when `s` needs no escaping for a terminal (the fast path).
    /// For UTF-8 text: true when it is ASCII and safe, false when it is ASCII and holds an
    /// unsafe byte, nil at the first byte that is not ASCII (the code points must be judged).
    public static func asciiSafe(_ u: UnsafeBufferPointer<UInt8>, keepNewlines: Bool) -> Bool? {
        guard let base = u.baseAddress else { return true }
        let n = u.count
        var i = 0
        // Eight bytes at a time: a word with no byte at or above 0x80, below 0x20 or equal
        // to 0x7f is safe whole; any other word is judged byte by byte.
        while i + 8 <= n {
            let w = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if keepNewlines ? SWAR.notTextASCII(w) : SWAR.notPrintableASCII(w) {
                for k in i..<(i + 8) {
                    let b = base[k]
                    if b >= 0x80 { return nil }
                    if b < 0x20 || b == 0x7f, !(keepNewlines && (b == 0x0a || b == 0x09)) { return false }
                }
            }
            i += 8
        }
        while i < n {
            let b = base[i]
            if b >= 0x80 { return nil }
            if b < 0x20 || b == 0x7f, !(keepNewlines && (b == 0x0a || b == 0x09)) { return false }
            i += 1
        }
        return true
    }

    public static func isSafe(_ s: Substring, keepNewlines: Bool) -> Bool {
        // ASCII text, the usual case, is judged byte by byte; the first non-ASCII byte sends the
        // text to the code point loop.
        let ascii: Bool? = s.utf8.withContiguousStorageIfAvailable { asciiSafe($0, keepNewlines: keepNewlines) } ?? nil
        if let a = ascii { return a }
        for u in s.unicodeScalars where isUnsafe(u.value) {
            if keepNewlines && (u.value == 0x0a || u.value == 0x09) { continue }
            return false
        }
        return true
    }

    /// Text for a terminal or a text report: every unsafe code point as `\ooo` (newlines and
    /// tabs kept when `keepNewlines`, so multi-line text keeps its lines and getfacl text its
    /// tab before `#effective:`). With `color`, the markers the
    /// `Style` puts around colored text become the terminal's color sequences (and only they).
    public static func terminal(_ s: String, keepNewlines: Bool = true, color: Bool = false) -> String {
        if isSafe(Substring(s), keepNewlines: keepNewlines) { return s }
        var out = String.UnicodeScalarView()
        var it = s.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = it.next()
        while let u = pending {
            pending = it.next()
            if !isUnsafe(u.value) || (keepNewlines && (u.value == 0x0a || u.value == 0x09)) { out.append(u); continue }
            if color && u == Style.open {
                // \u{FDD0} CODE \u{FDD1}: a color the renderer asked for.
                var code = String.UnicodeScalarView()
                var ok = false
                while let c = pending {
                    pending = it.next()
                    if c == Style.close { ok = true; break }
                    if !(("0"..."9").contains(c) || c == ";") || code.count > 8 { break }
                    code.append(c)
                }
                if ok { out.append(contentsOf: "\u{1B}[".unicodeScalars); out.append(contentsOf: code); out.append("m"); continue }
                out.append(contentsOf: octalBytes(u).unicodeScalars); out.append(contentsOf: code)
                continue
            }
            out.append(contentsOf: octalBytes(u).unicodeScalars)
        }
        return String(out)
    }

    /// One line of text: newlines and tabs escaped too.
    public static func line(_ s: String) -> String { terminal(s, keepNewlines: false) }

    static func octalBytes(_ u: Unicode.Scalar) -> String {
        var r = ""
        for b in String(u).utf8 { r += NameEscaping.octal(b) }
        return r
    }
}

/// How names are written in policy files and everywhere fspolicy prints them: every byte that
/// is not part of valid UTF-8, every unsafe code point (`Escaping.isUnsafe`: controls, bidi
/// controls, separators, noncharacters) and the backslash itself become `\ooo` (three octal
/// digits per byte), as getfacl writes them. Decoding gives back the exact bytes.
public enum NameEscaping {
    public static func escape(_ bytes: [UInt8]) -> String {
        // Printable ASCII other than the backslash (nearly every name) is written as it is.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != 0x5c }) { return String(decoding: bytes, as: UTF8.self) }
        let out = escapeUnsafe(bytes)
        // Two names that differ only in Unicode normalization ("café" composed and decomposed)
        // are two files to Linux but one key to YAML, which compares text by canonical
        // equivalence: a name that is not in NFC is written with every non-ASCII byte escaped,
        // so it can never be taken for another name.
        if out.utf8.contains(where: { $0 >= 0x80 }) && (!isNFC(out) || joinsSlash(out)) {
            var ascii = ""
            for b in Array(out.utf8) { if b >= 0x80 { ascii += octal(b) } else { ascii.unicodeScalars.append(Unicode.Scalar(b)) } }
            return ascii
        }
        return out
    }

    /// Whether a `/` before or after a name of `s` would be part of a larger character: a name
    /// that starts with a combining mark (U+0323) or ends with a prepended one (U+0600). Swift
    /// compares and splits text by characters, so such a `/` would not separate two names; the
    /// name is then written with its non-ASCII bytes escaped, like a name that is not in NFC.
    static func joinsSlash(_ s: String) -> Bool {
        for ch in "/" + s + "/" where ch.unicodeScalars.count > 1 && ch.unicodeScalars.contains("/") { return true }
        return false
    }

    /// Whether `s` is already in Unicode Normalization Form C.
    static func isNFC(_ s: String) -> Bool {
        s.precomposedStringWithCanonicalMapping.utf8.elementsEqual(s.utf8)
    }

    static func escapeUnsafe(_ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let len = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            if len == 1 {
                if b < 0x20 || b == 0x7f || b == 0x5c { out += octal(b) } else { out.unicodeScalars.append(Unicode.Scalar(b)) }
                i += 1
                continue
            }
            if len > 1 && i + len <= bytes.count && bytes[(i + 1)..<(i + len)].allSatisfy({ $0 >> 6 == 0b10 }),
                let s = String(validating: bytes[i..<(i + len)], as: UTF8.self)
            {
                if let u = s.unicodeScalars.first, Escaping.isUnsafe(u.value) {
                    for x in bytes[i..<(i + len)] { out += octal(x) }
                } else {
                    out += s
                }
                i += len
                continue
            }
            out += octal(b)
            i += 1
        }
        return out
    }

    /// Text of bytes that are mostly UTF-8: valid sequences as they are, every other byte as
    /// `\ooo` (backslashes are left alone, so existing escapes keep their meaning).
    public static func decodeLenient(_ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let len = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            if len == 1 { out.unicodeScalars.append(Unicode.Scalar(b)); i += 1; continue }
            if len > 1 && i + len <= bytes.count, let s = String(validating: bytes[i..<(i + len)], as: UTF8.self) {
                out += s
                i += len
                continue
            }
            out += octal(b)
            i += 1
        }
        return out
    }

    static func octal(_ b: UInt8) -> String {
        "\\" + String(b >> 6) + String((b >> 3) & 7) + String(b & 7)
    }

    /// The bytes an escaped name stands for (`\ooo` → one byte; anything else as UTF-8).
    public static func unescape(_ s: String) -> [UInt8] {
        let u = Array(s.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < u.count {
            if u[i] == 0x5c, i + 3 < u.count + 0, i + 3 <= u.count - 1 || i + 3 == u.count - 0,
                i + 3 < u.count + 1, (1...3).allSatisfy({ i + $0 < u.count && (0x30...0x37).contains(u[i + $0]) })
            {
                out.append((u[i + 1] - 0x30) << 6 | (u[i + 2] - 0x30) << 3 | (u[i + 3] - 0x30))
                i += 4
                continue
            }
            out.append(u[i])
            i += 1
        }
        return out
    }

    /// Canonical form of a name written by hand or by getfacl: unescape, then escape again.
    /// A name with nothing to escape or unescape is returned as it is (the common case).
    public static func canonical(_ s: String) -> String {
        var plain = true
        var ascii = true
        for u in s.unicodeScalars {
            if u.value == 0x5c || Escaping.isUnsafe(u.value) { plain = false; break }
            if u.value >= 0x80 { ascii = false }
        }
        if plain && !ascii && (!isNFC(s) || joinsSlash(s)) { plain = false }
        return plain ? s : escape(unescape(s))
    }
}

/// Why an archive could not be read at all (a missing or corrupt file, a `..` member).
public struct ArchiveFailure: Error, Sendable {
    public var message: String
    public var help: String
    public init(message: String, help: String) { self.message = message; self.help = help }
}
