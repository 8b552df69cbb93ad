import FSPolicy
import Foundation
import Synchronization

/// Reads format-v1 policy files. Every problem is collected with its position; nothing the
/// file says is silently ignored.
public enum PolicyLoader {
    public static let formatVersion = 1

    /// Reads a real tree for `import: - scan:`. Installed by the command-line tool on Linux
    /// (FSPolicyLinux); nil elsewhere, where such imports are reported as unavailable.
    nonisolated(unsafe) public static var scanner: (@Sendable (String, ScanOptions) -> ScannedTree)? = nil
    /// The host's account database, for names in getfacl dumps (installed with the scanner).
    nonisolated(unsafe) public static var hostUser: (@Sendable (String) -> ScannedTree.HostUser?)? = nil
    nonisolated(unsafe) public static var hostGroup: (@Sendable (String) -> GID?)? = nil

    public static func load(path: String, semanticsOverride: Semantics? = nil) -> Policy {
        switch readText(path) {
        case .text(let text): return load(text: text, file: path, semanticsOverride: semanticsOverride)
        case .failed(let policy, _): return policy
        }
    }

    /// A file's text, or a policy holding why it cannot be read; `unreadable` is the reason
    /// when the file could not be read at all (not when its bytes are not UTF-8), for a
    /// caller that words the error itself (an import).
    enum TextOrFailure { case text(String), failed(Policy, unreadable: String?) }

    /// A policy file's text, as `load(path:)` reads it, or why it cannot be read (the same
    /// diagnostics: a FIFO, a directory or a device, a byte that is not UTF-8 at its line and
    /// column; `unreadable` as `TextOrFailure` has it), for the commands and imports that read
    /// the text themselves.
    public static func text(ofFile path: String) -> (text: String?, unreadable: String?, diagnostics: [Diagnostic]) {
        switch readText(path) {
        case .text(let t): return (t, nil, [])
        case .failed(let p, let why): return (nil, why, p.diagnostics.items)
        }
    }

    /// The file's text, or a policy holding why it cannot be read. (The bytes read are freed
    /// before the text is compiled: for a big file they are as large as the text.)
    /// `direct: false` reads every file through `Data` (for the test of `readASCIIText`).
    static func readText(_ path: String, direct: Bool = true) -> TextOrFailure {
        var policy = Policy(file: path)
        func failed(_ why: String, _ help: String = "check that the file exists and is readable") -> TextOrFailure {
            policy.diagnostics.error(SourceLocation(file: path, line: 1, column: 1), code: "unreadable", "cannot read `\(path)`: \(why)", help: help)
            return .failed(policy, unreadable: why)
        }
        func failedByErrno() -> TextOrFailure { failed(String(cString: strerror(errno))) }
        if let why = RawArguments.fileProblem(path) {
            return failed(why, "rename the file, or give it on standard input: `/dev/stdin < FILE`")
        }
        // What the path is, asked of the file opened without waiting: opening a FIFO for
        // reading waits for a writer, and a stray one (a `*.yaml` glob in CI) held the command
        // forever. A regular file is read through the same descriptor; a pipe or FIFO is read
        // to its end (`<(…)`; a FIFO nobody writes to is empty at once); a device (`/dev/zero`
        // never ends) or a directory is refused.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { return failedByErrno() }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return failedByErrno() }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            if direct, let text = readASCIIText(fd: fd) { return .text(text) }
        case S_IFIFO, S_IFSOCK:
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        case S_IFDIR:
            return failed("it is a directory", "give the path of a policy file (YAML) in it")
        default:
            return failed("it is a device, not a file", "give the path of a policy file (YAML)")
        }
        guard let data = readToEnd(fd) else { return failedByErrno() }
        if data.isEmpty && st.st_mode & S_IFMT == S_IFIFO {
            return failed("it is a FIFO, and nothing was written to it",
                          "fspolicy reads a FIFO while another process writes a policy into it; give the policy file itself")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            policy.diagnostics.error(firstInvalidUTF8(data, file: path), code: "not-utf8",
                                     "the file is not UTF-8 text: this byte is not valid UTF-8",
                                     help: "save the file as UTF-8 (policy files are UTF-8 YAML)")
            return .failed(policy, unreadable: nil)
        }
        return .text(text)
    }

    public static func load(text: String, file: String, semanticsOverride: Semantics? = nil) -> Policy {
        load(text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: true)
    }

    /// `fastExpect: false` reads every expectation with the full reading (for the differential
    /// test of `Compiler.readExpectationsQuickly`).
    static func load(text: String, file: String, semanticsOverride: Semantics?, fastExpect: Bool) -> Policy {
        loadCounting(text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: fastExpect).policy
    }

    /// The policy, and how many expectations of the file (not of its imports) the quick reading read.
    /// `earlyCount`: the shortest `expect:` list read quickly while the tree is built
    /// (`Compiler.startQuickRead`; the tests read every list so).
    static func loadCounting(text: String, file: String, semanticsOverride: Semantics?,
                             fastExpect: Bool, quickWorkers: Int? = nil, generalTree: Bool = false,
                             earlyCount: Int = Compiler.QuickRead.earlyCount) -> (policy: Policy, quick: Int) {
        let r = loadCompiled(text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: fastExpect,
                             quickWorkers: quickWorkers, generalTree: generalTree, earlyCount: earlyCount)
        return (r.policy, r.compiler.quickExpectations)
    }

    /// The policy and the compiler that made it (what its readings did, for the tests).
    static func loadCompiled(text: String, file: String, semanticsOverride: Semantics?,
                             fastExpect: Bool, quickWorkers: Int? = nil, generalTree: Bool = false,
                             earlyCount: Int = Compiler.QuickRead.earlyCount) -> (policy: Policy, compiler: Compiler) {
        var c = Compiler(file: file, override: semanticsOverride, importStack: [canonical(file)])
        c.fastExpect = fastExpect
        c.quickWorkers = quickWorkers
        c.generalTree = generalTree
        c.earlyCount = earlyCount
        c.compile(text)
        let policy = c.finish()
        c.fastDocument?.freeLater()
        return (policy, c)
    }

    /// A regular file of ASCII text (the common case: scan files, generated expectations), read
    /// straight into the string's storage: no copy of the bytes, which for a big file are as
    /// large as the text. Anything else (another kind of file, other bytes, a file that changes
    /// size while it is read): nil, and `readText` reads it as before (ASCII is valid UTF-8, so
    /// the text is the same either way).
    /// `parts`: how many parts to read it in (by default one, or up to four for a big file).
    static func readASCIIText(_ path: String, parts asked: Int? = nil) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readASCIIText(fd: fd, parts: asked)
    }

    /// The same, of an open file (read with `pread`: its offset stays where it was).
    static func readASCIIText(fd: Int32, parts asked: Int? = nil) -> String? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size < Int(Int32.max) else { return nil }
        let size = Int(st.st_size)
        // A big file in parts, each read (`pread`) and checked on a thread of its own: the
        // copy into the string, the page faults of its storage and the check are a tenth of a
        // second for 76 MB, which one thread would spend while the other waits.
        let parts = SWAR.parts(ofBytes: size, asked: asked)
        var whole = false
        let text = String(unsafeUninitializedCapacity: size) { buf -> Int in
            guard let base = buf.baseAddress else { return 0 }
            let job = ReadJob(fd: fd, base: base, size: size, parts: parts)
            if parts == 1 { job.run(0) } else { DispatchQueue.concurrentPerform(iterations: parts) { job.run($0) } }
            guard job.allRead else { return 0 }
            // At the end of the file (it did not grow while it was read).
            var extra: UInt8 = 0
            guard pread(fd, &extra, 1, off_t(size)) == 0 else { return 0 }
            whole = true
            return size
        }
        return whole ? text : nil
    }

    /// Everything a file gives from its offset on (a pipe or FIFO: until its writers close
    /// it); nil on a read error. At most `Int32.max` bytes (the limit of `readASCIIText`).
    static func readToEnd(_ fd: Int32) -> Data? {
        var out = Data()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            out.append(contentsOf: buf[0..<n])
            if out.count >= Int(Int32.max) { errno = EFBIG; return nil }
        }
    }

    /// The parts of `readASCIIText`: `run(k)` reads the `k`-th into its place in `base`.
    final class ReadJob: @unchecked Sendable {
        let fd: Int32, base: UnsafeMutablePointer<UInt8>, size: Int, parts: Int
        /// Set by a part that failed (short read, a byte not ASCII).
        let failed = Atomic<Bool>(false)
        init(fd: Int32, base: UnsafeMutablePointer<UInt8>, size: Int, parts: Int) {
            self.fd = fd; self.base = base; self.size = size; self.parts = parts
        }
        func run(_ k: Int) {
            if !PolicyLoader.readASCIIPart(fd, into: base, from: size * k / parts, to: size * (k + 1) / parts) {
                failed.store(true, ordering: .relaxed)
            }
        }
        var allRead: Bool { !failed.load(ordering: .relaxed) }
    }

    /// Bytes `from..<to` of the file read into `base + from`, and whether all came and every
    /// one is ASCII (eight at a time).
    static func readASCIIPart(_ fd: Int32, into base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Bool {
        var got = from
        while got < to {
            let n = pread(fd, base + got, to - got, off_t(got))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            got += n
        }
        var i = from
        let raw = UnsafeRawPointer(base)
        while i + 8 <= to {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < to { if base[i] >= 0x80 { return false }; i += 1 }
        return true
    }

    /// The line and column (in bytes) of the first byte that is not valid UTF-8.
    static func firstInvalidUTF8(_ data: Data, file: String) -> SourceLocation {
        var line = 1
        var start = data.startIndex
        for i in data.indices where data[i] == 0x0A || i == data.index(before: data.endIndex) {
            let end = data[i] == 0x0A ? i : data.endIndex
            let chunk = data[start..<end]
            if String(data: chunk, encoding: .utf8) == nil {
                var col = 1
                var j = chunk.startIndex
                while j < chunk.endIndex {
                    if String(data: chunk[chunk.startIndex...j], encoding: .utf8) == nil {
                        // A multi-byte character may still complete; check a few bytes ahead.
                        let ahead = chunk.index(j, offsetBy: 3, limitedBy: chunk.endIndex) ?? chunk.endIndex
                        if !(j..<ahead).contains(where: { String(data: chunk[chunk.startIndex...$0], encoding: .utf8) != nil }) {
                            return SourceLocation(file: file, line: line, column: col)
                        }
                    }
                    col += 1
                    j = chunk.index(after: j)
                }
                return SourceLocation(file: file, line: line, column: 1)
            }
            line += 1
            start = data.index(after: i)
        }
        return SourceLocation(file: file, line: 1, column: 1)
    }

    /// `base/relative`, normalized, keeping relative paths relative (so messages name files
    /// the way the user does).
    static func join(_ base: String, _ rel: String) -> String {
        if rel.hasPrefix("/") { return rel }
        var parts: [Substring] = base == "." || base.isEmpty ? [] : base.split(separator: "/", omittingEmptySubsequences: false)
        if parts.last == "" { parts.removeLast() }
        for c in rel.split(separator: "/") {
            if c == "." { continue }
            if c == "..", let last = parts.last, last != "..", last != "" { parts.removeLast(); continue }
            parts.append(c)
        }
        let joined = parts.joined(separator: "/")
        return base.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }

    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

let topKeys = ["fspolicy", "semantics", "description", "securelevel", "linux", "groups", "users", "volumes", "defaults",
               "tree", "import", "apps", "services", "device", "steps", "expect", "findings", "keychain"]
/// The `linux:` section: Linux's `fs.protected_*` sysctls (LinuxTunable's raw values).
let linuxKeys = LinuxTunable.allCases.map(\.rawValue)
let groupKeys = ["gid", "members", "groups"]
let userKeys = ["uid", "group", "groups", "umask", "home"]
let volumeKeys = ["readOnly", "readOnlyMount", "noexec", "nodev", "nosuid", "fsType", "ignoreOwnership", "acls", "owner", "group",
                  "caseSensitive", "kind"]
let defaultsKeys = ["owner", "group", "fileMode", "dirMode"]
let nodeKeys = ["type", "owner", "group", "mode", "flags", "acl", "defaultAcl", "target", "protection", "open", "assumed", "unread", "link", "content", "caps"]
let importKeys = ["scan", "getfacl", "lsle", "tar", "oci", "policy", "at", "accounts", "platform"]
let appKeys = ["user", "entitlements", "info", "selected", "bookmarks", "tcc", "umask", "platform", "container", "bundle",
               "groupContainers", "systemReadable", "team", "provisioned"]
let bookmarkKeys = ["path", "scope", "readOnly", "stale", "started", "stopped"]
let tccKeys = ["documents", "desktop", "downloads", "removableVolumes", "networkVolumes", "appData", "fullDiskAccess",
               "pictures", "music", "movies"]
let deviceKeys = ["state", "passcode", "biometry", "iCloudKeychain"]
let expectKeys = ["as", "users", "except", "op", "path", "type", "to", "mode", "owner", "group", "flags", "acl", "result", "errno", "layer", "state",
                  "allowed", "after", "name", "quiz", "topic", "hint", "groups", "umask"]
let stepKeys = ["as", "op", "path", "to", "mode", "owner", "group", "flags", "acl", "result", "errno", "layer", "name", "groups", "umask"]
let stateKeys = ["exists", "type", "owner", "group", "mode", "flags", "acl", "defaultAcl"]

/// What one load has already read: compiled imported policies (by canonical path and rule
/// set) and scanned trees (by path).
final class ImportCache {
    var policies: [String: Policy] = [:]
    var scans: [String: ScannedTree] = [:]
}

/// Host accounts met while reading a getfacl dump.
final class HostNames {
    var users: [ScannedTree.HostUser] = []
    var groups: [(String, GID)] = []
    /// Names already asked about, with the answer (each name is looked up once).
    var userAnswers: [String: UInt32?] = [:]
    var groupAnswers: [String: UInt32?] = [:]
}

/// The UTF-8 bytes of `s` (native strings are contiguous: no copy).
@inline(__always) func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    var c = s
    return c.withUTF8(body)
}

struct NodeDecl {
    var path: String
    var loc: SourceLocation
    /// The node's mapping (nil when its value is null); its keys are checked.
    var value: YNode?
    /// For a mapping of the fast reader whose keys are all known, at most sixteen: each pair's
    /// key as its index in `nodeKeys` plus one, four bits a pair from the lowest (found while
    /// the keys are checked, so that `fields` need not compare them again); 0 otherwise.
    var keyCode: UInt64 = 0

    /// A stand-in left in the list where a declaration was moved out.
    static var vacated: NodeDecl { NodeDecl(path: "", loc: SourceLocation(file: "", line: 0, column: 0), value: nil) }

    /// The node's known keys and their values.
    var fields: NodeFields {
        var f = NodeFields()
        if let value {
            let d = value.doc, i = value.index
            // Keys compared as bytes, without a string or an array per node.
            let n = d.nodes[Int(i)]
            guard n.kind == 1 else { return f }
            var c = Int(n.a)
            if keyCode != 0 {
                var code = keyCode
                for _ in 0..<Int(n.b) {
                    f.set(index: Int(code & 15) - 1, YNode(fast: d, d.children[c + 1]))
                    code >>= 4
                    c += 2
                }
                return f
            }
            for _ in 0..<Int(n.b) {
                if let w = d.wordIndex(d.children[c], in: NodeFields.keyBytes) { f.set(index: w, YNode(fast: d, d.children[c + 1])) }
                c += 2
            }
            return f
        }
        guard let m = value?.mapping else { return f }
        for (k, v) in m { if let key = k.scalar { f.set(key, v) } }
        return f
    }
}

/// A tree node's settings by key (the keys of `nodeKeys`), without a dictionary per node.
struct NodeFields {
    static let keyBytes: [[UInt8]] = nodeKeys.map { Array($0.utf8) }
    var type, owner, group, mode, flags, acl, defaultAcl, target, protection, open, assumed, unread, link, content, caps: YNode?

    /// Sets the field `nodeKeys[index]` (the cases follow nodeKeys' order; FastYAMLTests would see a slip).
    mutating func set(index: Int, _ v: YNode) {
        switch index {
        case 0: type = v
        case 1: owner = v
        case 2: group = v
        case 3: mode = v
        case 4: flags = v
        case 5: acl = v
        case 6: defaultAcl = v
        case 7: target = v
        case 8: protection = v
        case 9: open = v
        case 10: assumed = v
        case 11: unread = v
        case 12: link = v
        case 13: content = v
        case 14: caps = v
        default: break
        }
    }

    mutating func set(_ key: String, _ v: YNode) {
        switch key {
        case "type": type = v
        case "owner": owner = v
        case "group": group = v
        case "mode": mode = v
        case "flags": flags = v
        case "acl": acl = v
        case "defaultAcl": defaultAcl = v
        case "target": target = v
        case "protection": protection = v
        case "open": open = v
        case "assumed": assumed = v
        case "unread": unread = v
        case "link": link = v
        case "content": content = v
        case "caps": caps = v
        default: break
        }
    }

    subscript(_ key: String) -> YNode? {
        switch key {
        case "type": type
        case "owner": owner
        case "group": group
        case "mode": mode
        case "flags": flags
        case "acl": acl
        case "defaultAcl": defaultAcl
        case "target": target
        case "protection": protection
        case "open": open
        case "assumed": assumed
        case "unread": unread
        case "link": link
        case "content": content
        case "caps": caps
        default: nil
        }
    }
}

struct Compiler {
    let file: String
    let override: Semantics?
    let importStack: [String]
    /// Imported files already compiled during this load, shared by every file of it.
    let cache: ImportCache
    var r = Reader()
    var p: Policy
    var baseDir: String
    /// Whether expectations of the common shape may be read by the quick reading
    /// (`readExpectationsQuickly`), and how many it read.
    var fastExpect = true
    var quickExpectations = 0
    /// The document of the file (freed early: `loadCompiled`).
    var fastDocument: FastYAMLDocument? = nil
    /// The shortest `expect:` list read quickly while the tree is built (`startQuickRead`).
    var earlyCount = QuickRead.earlyCount
    /// What became of that reading: nil when there was none, true when it was taken, false
    /// when the names had changed since and the list was read again.
    var earlyReadTaken: Bool? = nil
    /// Threads of the quick reading of a list (nil: one for every 65,536 entries, as many as
    /// `check` uses at most; tests ask for several on short lists).
    var quickWorkers: Int? = nil
    /// Builds every tree the general way, never from its listing (for the differential test of
    /// `DepthFirstListing` and `World.appendNewNode`).
    var generalTree = false
    /// ACLs read in this tree, by their text (`aclCacheKey`): (macOS ACL, POSIX ACL). Only
    /// results that reported nothing are kept.
    var aclCache: [[UInt8]: (ACL?, POSIXACL?)] = [:]
    /// Folders a scan imported into this world read whole: another import's `unread` mark
    /// (an ancestor of its root, say) does not make them unknown again.
    var fullyRead: Set<NodeID> = []

    init(file: String, override: Semantics?, importStack: [String], cache: ImportCache = ImportCache()) {
        self.file = file
        self.cache = cache
        self.override = override
        self.importStack = importStack
        self.p = Policy(file: file)
        if let slash = file.lastIndex(of: "/") { self.baseDir = file == "/" ? "/" : String(file[..<slash]) } else { self.baseDir = "." }
        if baseDir.isEmpty { baseDir = "/" }
    }

    func finish() -> Policy {
        var out = p
        out.diagnostics.append(contentsOf: r.diags)
        return out
    }

    var macLike: Bool { p.semantics != .linux }

    mutating func compile(_ text: String) {
        guard let root = parseYAML(text, file: file, diags: &r.diags) else { return }
        fastDocument = root.doc
        guard let top = root.mapping else {
            r.diags.error(root.loc, code: "wrong-type", "a policy file is a mapping of keys, found \(root.kindWord)",
                          help: "start the file with `fspolicy: 1`")
            return
        }
        let k = r.keyed(top, known: topKeys, context: "the policy file")
        // fspolicy: version
        if let v = k["fspolicy"] {
            if let n = Int(v.scalar ?? ""), !v.isNull {
                if n > PolicyLoader.formatVersion {
                    r.diags.error(v.loc, code: "version-too-new", "format version \(n) is too new for this fspolicy, which reads version \(PolicyLoader.formatVersion)",
                                  help: "upgrade fspolicy, or write `fspolicy: 1`")
                } else if n < 1 {
                    r.diags.error(v.loc, code: "bad-version", "format version \(n) does not exist", help: "write `fspolicy: 1`")
                }
            } else {
                r.diags.error(v.loc, code: "bad-version", "`fspolicy` must be the format version number, found `\(v.scalar ?? v.kindWord)`",
                              help: "write `fspolicy: 1`")
            }
        } else {
            r.diags.error(root.loc, code: "missing-version", "the policy file has no `fspolicy` version key",
                          help: "add `fspolicy: 1` as the first line")
        }
        if let s = k["semantics"], let w = r.string(s, what: "`semantics`") {
            if let sem = Semantics(rawValue: w) { p.semantics = sem; p.semanticsLocation = s.loc; p.world.fromLinux = sem == .linux }
            else {
                r.diags.error(s.loc, code: "bad-value", "unknown semantics `\(w)`",
                              help: "use `macos`, `guide` or `linux`" + (nearest(w, in: Semantics.allCases.map(\.rawValue)).map { " (did you mean `\($0)`?)" } ?? ""))
            }
        }
        if let o = override { p.semantics = o }
        if let d = k["description"] { p.description = r.string(d, what: "`description`") }
        if let s = k["securelevel"], let v = r.int(s, what: "`securelevel`", min: -1, max: 2) { p.world.securelevel = v }

        // Imports of other policies come first: this file's entries win over them.
        var treeDecls: [NodeDecl] = []
        installBuiltins()
        if let imp = k["import"] { readImports(imp, tree: &treeDecls) }
        installBuiltins()
        if let g = k["groups"] { readGroups(g) }
        if let u = k["users"] { readUsers(u) }
        if let g = k["groups"] { resolveGroupRefs(g) }
        if let v = k["volumes"] { readVolumes(v) }
        if let d = k["defaults"] { readDefaults(d) }
        // A long `expect:` list is read quickly on other threads while this one builds the tree.
        let early = k["expect"].flatMap { startQuickRead($0) }
        if let t = k["tree"] { collectTree(t, into: &treeDecls) }
        buildTree(consume treeDecls)
        if let l = k["linux"] { readLinux(l) }
        if let a = k["apps"] { readApps(a) }
        if let s = k["services"] { readServices(s) }
        if let d = k["device"] { readDevice(d) }
        if let s = k["steps"] { readSteps(s) }
        if let e = k["expect"] { readExpectations(e, early: early) }
        if let f = k["findings"] { readFindings(f) }
        if let kc = k["keychain"] { readKeychain(kc) }
    }

    // MARK: Principals

    var userNames: [String: UID] = [:]
    var groupNames: [String: GID] = [:]
    /// Each declared group's name and its entry's keys (read once, used again once every
    /// group and user is known, for `members` and `groups`).
    var groupDecls: [(String, [String: YNode])] = []
    /// Tree paths written with a trailing `/`: directories only.
    var slashed: Set<String> = []
    var groupLocs: [String: SourceLocation] = [:]

    mutating func installBuiltins() {
        // gid 0 is `wheel` on macOS and `root` on Linux.
        let zero = macLike ? "wheel" : "root"
        if groupNames[zero] == nil && p.world.group(named: zero) == nil && p.world.group(gid: 0) == nil {
            p.world.addGroup(Group(name: zero, gid: 0))
            groupNames[zero] = 0
        }
        // The default primary group exists unless the file declares it (or its gid) otherwise.
        let (dname, dgid): (String, GID) = macLike ? ("staff", 20) : ("users", 100)
        if groupNames[dname] == nil && p.world.group(named: dname) == nil && p.world.group(gid: dgid) == nil {
            p.world.addGroup(Group(name: dname, gid: dgid))
            groupNames[dname] = dgid
        }
        if userNames["root"] == nil && p.world.user(named: "root") == nil {
            p.world.addUser(User(name: "root", uid: 0, gid: 0, home: "/var/root"))
            userNames["root"] = 0
            p.userOrder.append("root")
        }
    }

    func lookupUser(_ name: String) -> UID? { userNames[name] }
    func lookupGroup(_ name: String) -> GID? {
        if let g = groupNames[name] { return g }
        if name == "everyone" { return WellKnown.everyoneGID }
        return nil
    }

    mutating func readGroups(_ n: YNode) {
        guard let m = r.mapping(n, what: "`groups`") else { return }
        var declared: [String: SourceLocation] = [:]
        var declaredGIDs: [GID: String] = [:]
        var added: [Group] = []
        declared.reserveCapacity(m.count)
        declaredGIDs.reserveCapacity(m.count)
        added.reserveCapacity(m.count)
        groupDecls.reserveCapacity(groupDecls.count + m.count)
        for (kn, v) in m {
            guard let name = r.string(kn, what: "a group name") else { continue }
            if let why = PrincipalName.problem(name) {
                r.diags.error(kn.loc, code: "bad-name", "the group name `\(name)` cannot be used: \(why)",
                              help: "give the group a name without spaces, `:` or `,`")
                continue
            }
            guard let f = r.mapping(v, what: "group `\(name)`") else { continue }
            let k = r.keyed(f, known: groupKeys, context: "group `\(name)`")
            if let first = declared[name] {
                r.diags.error(kn.loc, code: "duplicate-name", "group `\(name)` is declared twice (first at line \(first.line))", help: "merge the two entries")
                continue
            }
            guard let gv = k["gid"] else {
                r.diags.error(kn.loc, code: "missing-key", "group `\(name)` has no `gid`", help: "add `gid: <number>`, e.g. `{gid: 701}`")
                continue
            }
            guard let gid = r.int(gv, what: "`gid` of group `\(name)`", min: 0, max: Int(UInt32.max) - 1) else { continue }
            if let other = declaredGIDs[GID(gid)] {
                r.diags.error(gv.loc, code: "duplicate-id", "gid \(gid) of group `\(name)` is already used by group `\(other)`",
                              help: "every group needs its own gid")
                continue
            }
            declared[name] = kn.loc
            declaredGIDs[GID(gid)] = name
            added.append(Group(name: name, gid: GID(gid)))
            groupDecls.append((name, k))
        }
        // A declared group replaces a builtin or imported one with the same name or gid.
        let groups = p.world.groups.filter { declared[$0.name] == nil && declaredGIDs[$0.gid] == nil } + added
        rebuildPrincipals(groups: groups)
        groupNames = [:]
        groupNames.reserveCapacity(p.world.groups.count)
        for g in p.world.groups { groupNames[g.name] = g.gid }
    }

    mutating func rebuildPrincipals(groups: [Group]? = nil, users: [User]? = nil) {
        // One list replaced: the other's indexes stay (rebuilding a million groups to replace
        // the users was a third of reading them).
        if let us = users, groups == nil, p.world.nodeCount == 1 { p.world.setUsers(us); return }
        if let gs = groups, users == nil, p.world.nodeCount == 1 { p.world.setGroups(gs); return }
        var w = World()
        w.securelevel = p.world.securelevel
        w.linux = p.world.linux
        w.fromLinux = p.world.fromLinux
        w.defaultOwner = p.world.defaultOwner
        w.defaultGroup = p.world.defaultGroup
        w.defaultDirMode = p.world.defaultDirMode
        w.defaultFileMode = p.world.defaultFileMode
        let gs = groups ?? p.world.groups, us = users ?? p.world.users
        w.reservePrincipals(users: us.count, groups: gs.count)
        for g in gs { w.addGroup(g) }
        for u in us { w.addUser(u) }
        for v in p.world.volumes where v.mountPath != "/" { w.setVolume(v) }
        if let rootVol = p.world.volumes.first(where: { $0.mountPath == "/" }) { w.setVolume(rootVol) }
        p.world = w
    }

    mutating func resolveGroupRefs(_ n: YNode) {
        // Group indexes come from the world's own table (first of a name wins), not from a
        // second table of a million names.
        var links = p.world.groups.map { (members: $0.members, nested: $0.nested) }
        var changed = false
        // The cycle check's graph: each declared group → the groups it nests, by index.
        var edges = [[(to: Int, loc: SourceLocation)]](repeating: [], count: links.count)
        var order: [Int] = []
        for (name, k) in groupDecls {
            guard let gi = p.world.groupIndex(named: name) else { continue }
            order.append(gi)
            if let mv = k["members"], let members = r.stringList(mv, what: "`members` of group `\(name)`") {
                for (m, node) in members {
                    if let uid = lookupUser(m) { links[gi].members.append(uid); changed = true }
                    else {
                        r.diags.error(node.loc, code: "unknown-user", "unknown user `\(m)` in `members` of group `\(name)`",
                                      help: nearest(m, in: userNames.keys.sorted()).map { "did you mean `\($0)`?" } ?? "declare the user under `users`")
                    }
                }
            }
            if let nv = k["groups"], let nested = r.stringList(nv, what: "`groups` of group `\(name)`") {
                for (g, node) in nested {
                    if let gid = lookupGroup(g) {
                        if g == name {
                            r.diags.error(node.loc, code: "group-cycle", "group `\(name)` cannot contain itself")
                        } else {
                            links[gi].nested.append(gid)
                            changed = true
                            if let to = p.world.groupIndex(named: g) { edges[gi].append((to, node.loc)) }
                        }
                    } else {
                        r.diags.error(node.loc, code: "unknown-group", "unknown group `\(g)` in `groups` of group `\(name)`",
                                      help: hintName(g, in: Array(groupNames.keys), kind: "group"))
                    }
                }
            }
        }
        checkGroupCycles(order: order, edges: edges)
        if changed { p.world.setGroupLinks(links) }
    }

    /// Groups that contain each other through other groups (a → b → c → a) are an error, at
    /// the entry that closes the cycle. One depth-first walk over group indexes: linear in
    /// groups and entries.
    mutating func checkGroupCycles(order: [Int], edges: [[(to: Int, loc: SourceLocation)]]) {
        var state = [UInt8](repeating: 0, count: edges.count)   // 1: on the current path, 2: done
        for start in order where state[start] == 0 {
            var stack: [(Int, Int)] = [(start, 0)]
            var path: [Int] = [start]
            state[start] = 1
            while let (node, i) = stack.last {
                let out = edges[node]
                if i >= out.count {
                    state[node] = 2
                    stack.removeLast(); path.removeLast()
                    continue
                }
                stack[stack.count - 1].1 = i + 1
                let (next, loc) = out[i]
                switch state[next] {
                case 1:
                    let from = path.lastIndex(of: next) ?? 0
                    let cycle = (path[from...] + [next]).map { "`\(p.world.groups[$0].name)`" }.joined(separator: " → ")
                    r.diags.error(loc, code: "group-cycle", "groups contain each other in a cycle: \(cycle)",
                                  help: "a group cannot contain itself, directly or through other groups: remove one of these entries")
                case 0:
                    state[next] = 1
                    stack.append((next, 0)); path.append(next)
                default: break
                }
            }
        }
    }

    func hintName(_ name: String, in names: [String], kind: String) -> String {
        if let n = nearest(name, in: names.sorted()) { return "did you mean `\(n)`?" }
        return "declare it under `\(kind == "user" ? "users" : "groups")`, or use a number"
    }

    mutating func readUsers(_ n: YNode) {
        guard let m = r.mapping(n, what: "`users`") else { return }
        var declared: [String: SourceLocation] = [:]
        var declaredUIDs: [UID: String] = [:]
        var added: [User] = []
        declared.reserveCapacity(m.count)
        declaredUIDs.reserveCapacity(m.count)
        added.reserveCapacity(m.count)
        for (kn, v) in m {
            guard let name = r.string(kn, what: "a user name") else { continue }
            if let why = PrincipalName.problem(name) {
                r.diags.error(kn.loc, code: "bad-name", "the user name `\(name)` cannot be used: \(why)",
                              help: "give the user a name without spaces, `:` or `,`")
                continue
            }
            guard let f = r.mapping(v, what: "user `\(name)`") else { continue }
            let k = r.keyed(f, known: userKeys, context: "user `\(name)`")
            if let first = declared[name] {
                r.diags.error(kn.loc, code: "duplicate-name", "user `\(name)` is declared twice (first at line \(first.line))", help: "merge the two entries")
                continue
            }
            guard let uv = k["uid"] else {
                r.diags.error(kn.loc, code: "missing-key", "user `\(name)` has no `uid`", help: "add `uid: <number>`, e.g. `{uid: 501, group: staff}`")
                continue
            }
            guard let uid = r.int(uv, what: "`uid` of user `\(name)`", min: 0, max: Int(UInt32.max) - 1) else { continue }
            if let other = declaredUIDs[UID(uid)] {
                r.diags.error(uv.loc, code: "duplicate-id", "uid \(uid) of user `\(name)` is already used by user `\(other)`",
                              help: "every user needs its own uid")
                continue
            }
            declared[name] = kn.loc
            declaredUIDs[UID(uid)] = name
            var gid: GID = uid == 0 ? 0 : (macLike ? 20 : 100)
            if let gv = k["group"], let gname = r.string(gv, what: "`group` of user `\(name)`") {
                if let g = lookupGroup(gname) { gid = g }
                else if let num = numericID(gname) { gid = num }
                else {
                    r.diags.error(gv.loc, code: "unknown-group", "unknown group `\(gname)` for user `\(name)`",
                                  help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
                }
            }
            var supp: [GID] = []
            if let sv = k["groups"], let list = r.stringList(sv, what: "`groups` of user `\(name)`") {
                for (gname, node) in list {
                    if let g = lookupGroup(gname) { supp.append(g) }
                    else if let num = numericID(gname) { supp.append(num) }
                    else {
                        r.diags.error(node.loc, code: "unknown-group", "unknown group `\(gname)` in `groups` of user `\(name)`",
                                      help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
                    }
                }
            }
            var umask: UInt16 = 0o022
            if let mv = k["umask"] { umask = readUmask(mv, what: "`umask` of user `\(name)`") ?? umask }
            var home: String? = macLike ? "/Users/" + name : "/home/" + name
            if uid == 0 { home = macLike ? "/var/root" : "/root" }
            if let hv = k["home"], let h = r.string(hv, what: "`home` of user `\(name)`") {
                if h.hasPrefix("/") { home = h } else {
                    r.diags.error(hv.loc, code: "bad-path", "`home` must be an absolute path, found `\(h)`", help: "e.g. `/Users/\(name)`")
                }
            }
            added.append(User(name: name, uid: UID(uid), gid: gid, supplementary: supp, umask: umask, home: home))
        }
        // A declared user replaces a builtin or imported one with the same name or uid.
        let replaced = Set(p.world.users.filter { declared[$0.name] != nil || declaredUIDs[$0.uid] != nil }.map(\.name))
        let users = p.world.users.filter { declared[$0.name] == nil && declaredUIDs[$0.uid] == nil } + added
        p.userOrder = p.userOrder.filter { !replaced.contains($0) } + added.map(\.name)
        rebuildPrincipals(users: users)
        userNames = [:]
        userNames.reserveCapacity(p.world.users.count)
        for u in p.world.users { userNames[u.name] = u.uid }
    }

    mutating func readUmask(_ n: YNode, what: String) -> UInt16? {
        guard let s = n.scalar, !s.isEmpty, s.count <= 4, s.allSatisfy({ $0 >= "0" && $0 <= "7" }) else {
            r.diags.error(n.loc, code: "bad-mode", "\(what) must be octal digits like \"022\", found `\(n.scalar ?? n.kindWord)`",
                          help: "quote it: `umask: \"022\"`")
            return nil
        }
        var v: UInt16 = 0
        for ch in s { v = v * 8 + UInt16(ch.asciiValue! - 48) }
        return v & 0o777
    }

    // MARK: Volumes and defaults

    mutating func readVolumes(_ n: YNode) {
        guard let m = r.mapping(n, what: "`volumes`") else { return }
        var seen: Set<String> = []
        for (kn, v) in m {
            guard let path = r.string(kn, what: "a volume mount path") else { continue }
            guard path.hasPrefix("/") else {
                r.diags.error(kn.loc, code: "bad-path", "volume mount path `\(path)` is not absolute", help: "write it as `/Volumes/\(path)`")
                continue
            }
            let mp = normalize(path)
            if seen.contains(mp) { r.diags.error(kn.loc, code: "duplicate-name", "volume `\(mp)` is declared twice"); continue }
            seen.insert(mp)
            guard let f = r.mapping(v, what: "volume `\(mp)`") else { continue }
            let k = r.keyed(f, known: volumeKeys, context: "volume `\(mp)`")
            var vol = Volume(mountPath: mp)
            if let x = k["readOnly"], let b = r.bool(x, what: "`readOnly`") { vol.readOnly = b }
            if let x = k["readOnlyMount"], let b = r.bool(x, what: "`readOnlyMount`") { vol.readOnlyMount = b }
            if let x = k["noexec"], let b = r.bool(x, what: "`noexec`") { vol.noexec = b }
            if let x = k["nodev"], let b = r.bool(x, what: "`nodev`") { vol.nodev = b }
            if let x = k["nosuid"], let b = r.bool(x, what: "`nosuid`") { vol.nosuid = b }
            if let x = k["fsType"], let t = r.string(x, what: "`fsType`") { vol.fsType = t }
            if let x = k["ignoreOwnership"], let b = r.bool(x, what: "`ignoreOwnership`") { vol.ignoreOwnership = b }
            if let x = k["acls"], let b = r.bool(x, what: "`acls`") { vol.acls = b }
            if let x = k["caseSensitive"], let b = r.bool(x, what: "`caseSensitive`") { vol.caseSensitive = b }
            if let x = k["owner"] { vol.fsOwner = readOwner(x, what: "`owner` of volume `\(mp)`") }
            if let x = k["group"] { vol.fsGroup = readGroup(x, what: "`group` of volume `\(mp)`") }
            if let x = k["kind"], let s = r.string(x, what: "`kind`") {
                if let kind = VolumeKind(rawValue: s) { vol.kind = kind }
                else { r.diags.error(x.loc, code: "bad-value", "unknown volume kind `\(s)`", help: "use `internal`, `removable` or `network`") }
            }
            if (vol.fsOwner != nil || vol.fsGroup != nil) && !vol.ignoreOwnership, let x = k["owner"] ?? k["group"] {
                r.diags.warning(x.loc, code: "unused-fsowner", "`owner`/`group` of volume `\(mp)` only matter with `ignoreOwnership: true`",
                                help: "add `ignoreOwnership: true`, or remove them")
            }
            p.world.setVolume(vol)
        }
    }

    mutating func readOwner(_ n: YNode, what: @autoclosure () -> String) -> UID? {
        guard let s = r.string(n, what: what()) else { return nil }
        if let u = lookupUser(s) { return u }
        if let num = numericID(s) { return num }
        if s == noIDText {
            r.diags.error(n.loc, code: "out-of-range", "\(what()) cannot be 4294967295: that is (uid_t)-1, which means \"no change\" to chown and is no one's id",
                          help: "ids go from 0 to 4294967294")
            return nil
        }
        r.diags.error(n.loc, code: "unknown-user", "unknown user `\(s)` in \(what())", help: hintName(s, in: Array(userNames.keys), kind: "user"))
        return nil
    }

    mutating func readGroup(_ n: YNode, what: @autoclosure () -> String) -> GID? {
        guard let s = r.string(n, what: what()) else { return nil }
        if let g = lookupGroup(s) { return g }
        if let num = numericID(s) { return num }
        if s == noIDText {
            r.diags.error(n.loc, code: "out-of-range", "\(what()) cannot be 4294967295: that is (gid_t)-1, which means \"no change\" to chown and is no one's id",
                          help: "ids go from 0 to 4294967294")
            return nil
        }
        r.diags.error(n.loc, code: "unknown-group", "unknown group `\(s)` in \(what())", help: hintName(s, in: Array(groupNames.keys), kind: "group"))
        return nil
    }

    mutating func readMode(_ n: YNode, what: @autoclosure () -> String) -> (FileMode, NodeType?)? {
        guard let s = n.scalar, !n.isNull else {
            r.diags.error(n.loc, code: "bad-mode", "\(what()) must be a mode like \"0755\" or \"drwxr-xr-x\", found \(n.kindWord)")
            return nil
        }
        if let parsed = FileMode.parse(s) { return parsed }
        let chars = Array(s)
        if !chars.isEmpty, chars.allSatisfy(\.isNumber) {
            if let bad = chars.firstIndex(where: { $0 == "8" || $0 == "9" }) {
                r.diags.error(n.location(atOffset: bad), code: "bad-mode", "\(what()) `\(s)`: `\(chars[bad])` is not an octal digit",
                              help: "mode digits go from 0 to 7, e.g. \"0755\"")
            } else {
                r.diags.error(n.loc, code: "bad-mode", "\(what()) `\(s)` has too many digits",
                              help: "at most four octal digits: special bits, owner, group, other (e.g. \"1777\")")
            }
            return nil
        }
        if chars.count != 9 && chars.count != 10 {
            r.diags.error(n.loc, code: "bad-mode", "\(what()) `\(s)` has \(chars.count) characters; a symbolic mode has 9 (\"rwxr-xr-x\") or 10 with the type first (\"drwxr-xr-x\")",
                          help: "or write it in octal, e.g. \"0755\"")
            return nil
        }
        let body = chars.count == 10 ? Array(chars[1...]) : chars
        let off = chars.count == 10 ? 1 : 0
        if chars.count == 10 && !"-dlpscb".contains(chars[0]) {
            r.diags.error(n.location(atOffset: 0), code: "bad-mode", "\(what()) `\(s)`: `\(chars[0])` is not a file type character",
                          help: "the first of ten characters is the type: `-` file, `d` directory, `l` symlink, `p` fifo, `s` socket, `c` device")
            return nil
        }
        let letters: [Character] = ["r", "w", "x"]
        for (i, ch) in body.enumerated() where ch != "-" && ch != letters[i % 3] && !(i % 3 == 2 && "sStT".contains(ch)) {
            r.diags.error(n.location(atOffset: off + i), code: "bad-mode", "\(what()) `\(s)`: `\(ch)` cannot stand at position \(off + i + 1)",
                          help: "each triple is `r` or `-`, `w` or `-`, then `x`, `-`, or `s`/`S`/`t`/`T` for the special bits")
            return nil
        }
        r.diags.error(n.loc, code: "bad-mode", "\(what()) `\(s)` is not a valid mode", help: "e.g. \"0755\" or \"drwxr-xr-x\"")
        return nil
    }

    mutating func readDefaults(_ n: YNode) {
        guard let m = r.mapping(n, what: "`defaults`") else { return }
        let k = r.keyed(m, known: defaultsKeys, context: "`defaults`")
        if let x = k["owner"], let u = readOwner(x, what: "`defaults.owner`") { p.world.defaultOwner = u }
        if let x = k["group"], let g = readGroup(x, what: "`defaults.group`") { p.world.defaultGroup = g }
        if let x = k["fileMode"], let (m, _) = readMode(x, what: "`defaults.fileMode`") { p.world.defaultFileMode = m }
        if let x = k["dirMode"], let (m, _) = readMode(x, what: "`defaults.dirMode`") { p.world.defaultDirMode = m }
    }

    // MARK: Tree

    func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/") where c != "." { parts.append(c) }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether a request's path, as written, ends in a slash (`/srv/f/`): what it names must be
    /// a directory.
    static func namesDirectory(_ raw: String) -> Bool { raw.utf8.last == 0x2f }

    /// Whether its last component, trailing slashes aside, is `.` (`/srv/d/.`, `/srv/d/./`).
    static func endsInDotComponent(_ raw: String) -> Bool {
        var u = Array(raw.utf8)
        while u.count > 1 && u.last == 0x2f { u.removeLast() }
        return u.count >= 2 && u[u.count - 1] == 0x2e && u[u.count - 2] == 0x2f
    }

    /// An absolute path with one spelling per name, `.` and empty components dropped. `..` is
    /// refused unless `dotDot` (a request's path, walked as the kernel walks it: rule O12).
    mutating func checkPath(_ n: YNode, _ path: String, what: String, dotDot: Bool = false) -> String? {
        if Compiler.isPlainPath(path) { return path }
        guard path.hasPrefix("/") else {
            r.diags.error(n.loc, code: "bad-path", "\(what) `\(path)` is not an absolute path", help: "paths start with `/`, e.g. `/\(path)`")
            return nil
        }
        // One spelling per name: `\ooo` escapes and raw characters that need them (a tab, a
        // control character) are the same bytes, so `"/x\tb"` and `'/x\011b'` are one node.
        let path = NameEscaping.canonical(path)
        var tooLong: Substring? = nil
        for c in path.split(separator: "/") {
            if c == ".." && !dotDot {
                r.diags.error(n.loc, code: "bad-path", "\(what) `\(path)` contains `..`", help: "write the path without `..`")
                return nil
            }
            if tooLong == nil, c.utf8.count > Limits.nameBytes,
               (c.utf8.contains(0x5c) ? NameEscaping.unescape(String(c)).count : c.utf8.count) > Limits.nameBytes { tooLong = c }
        }
        if let c = tooLong {
            r.diags.error(n.loc, code: "limit", "\(what): the name `\(c.prefix(40))…` is longer than \(Limits.nameBytes) bytes (NAME_MAX)",
                          help: "no file system fspolicy models allows a longer name")
            return nil
        }
        return normalize(path)
    }

    /// The common case of `checkPath`: `/`, or an absolute path of printable ASCII other than
    /// `\\`, without empty, `.` or `..` components or a trailing `/`, and names of at most 255
    /// bytes. `checkPath` returns such a path as it is.
    static func isPlainPath(_ path: String) -> Bool {
        withBytes(path) { isPlainPath(bytes: $0) }
    }

    /// `isPlainPath` on the path's UTF-8 bytes (`PlainPath`).
    static func isPlainPath(bytes u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = u.baseAddress else { return false }
        return PlainPath.isPlain(base, count: u.count)
    }

    mutating func collectTree(_ n: YNode, into decls: inout [NodeDecl]) {
        guard let m = r.mapping(n, what: "`tree`") else { return }
        // Where each path is in `decls`; those from `first` on are this file's.
        let first = decls.count
        decls.reserveCapacity(decls.count + m.count)
        // The index is needed only once a path could name an earlier entry: an imported one,
        // or a path written in another spelling (`/a/./b`, `'/x\011'`). Paths already in
        // canonical form that differ as text are different paths (the YAML reader refuses a key
        // written twice), so a file of canonical paths alone, like a scan, needs no index.
        var index: [String: Int]? = nil
        func buildIndex() -> [String: Int] {
            var x: [String: Int] = [:]
            x.reserveCapacity(decls.count + m.count)
            for (i, d) in decls.enumerated() { x[d.path] = i }
            return x
        }
        if first > 0 { index = buildIndex() }
        let known = Set(nodeKeys)
        for (kn, v) in m {
            guard let raw = r.string(kn, what: "a tree path") else { continue }
            // A plain path is its own canonical form (what `checkPath` would return).
            let plain = Compiler.isPlainPath(raw)
            guard let path = plain ? raw : checkPath(kn, raw, what: "tree path") else { continue }
            if raw.utf8.last == 0x2F && raw.count > 1 && raw.hasSuffix("/") { slashed.insert(path) }
            if index == nil && !plain { index = buildIndex() }
            let at = index?[path]
            if let i = at, i >= first {
                r.diags.error(kn.loc, code: "duplicate-path", "`\(path)` is declared twice in `tree` (first at line \(decls[i].loc.line))",
                              help: "merge the two entries")
                continue
            }
            var value: YNode? = nil
            var keyCode: UInt64 = 0
            if v.doc.nodes[Int(v.index)].kind == 1 {
                // A mapping: its keys checked as bytes.
                let d = v.doc, i = v.index
                let n = d.nodes[Int(i)]
                var c = Int(n.a), allKnown = true
                for k in 0..<Int(n.b) where allKnown {
                    if let w = d.wordIndex(d.children[c], in: NodeFields.keyBytes) {
                        if k < 16 { keyCode |= UInt64(w + 1) << (4 * UInt64(k)) }
                    } else { allKnown = false }
                    c += 2
                }
                if !allKnown || n.b > 16 { keyCode = 0 }
                if allKnown { r.suggested = [] } else { _ = r.keyed(v.mapping ?? [], known: nodeKeys, context: "node `\(path)`") }
                value = v
            } else if !v.isNull {
                guard let f = r.mapping(v, what: "node `\(path)`") else { continue }
                // Unknown keys are reported (and left out when the fields are read).
                if !f.allSatisfy({ $0.key.scalar.map(known.contains) ?? false }) {
                    _ = r.keyed(f, known: nodeKeys, context: "node `\(path)`")
                } else { r.suggested = [] }
                value = v
            }
            let decl = NodeDecl(path: path, loc: kn.loc, value: value, keyCode: keyCode)
            if let i = at { decls[i] = decl } else { index?[path] = decls.count; decls.append(decl) }
        }
    }

    mutating func buildTree(_ decls: consuming [NodeDecl]) {
        for inner in importedWorlds { mergeTree(inner) }
        for (tree, at, loc) in scanned { mergeScanned(tree, at: at, loc: loc) }
        mergeListings(declared: listings.isEmpty ? [] : Set(decls.map(\.path)))
        // A tree listed depth or breadth first (a scan file, a generated one), going into a
        // world that has only its root so far and folds no names: each entry's parent and
        // whether it has children come from the listing, and each node is new, appended with
        // no lookup (`DepthFirstListing`, `World.appendNewNode`).
        let listing = generalTree || p.world.nodeCount != 1 || p.world.foldsNames ? nil : DepthFirstListing(copy decls)
        // Otherwise: every ancestor of a declared path, each inserted once (the walk up stops
        // at the first ancestor already known). Each ancestor's hash comes from one pass over
        // the path (hashing every ancestor from scratch would make one deep path quadratic).
        var hasChildren = PathSet()
        let rootHash = PathSet.hash("/")
        var slashes: [(offset: Int, hash: UInt64)] = []
        var cuts: [Int] = []
        for di in decls.indices where listing == nil {
            let path = decls[di].path
            if path == "/" { continue }
            slashes.removeAll(keepingCapacity: true)
            withBytes(path) { u in
                // One pass finds the `/` bytes and whether the text is ASCII. On ASCII text a
                // `/` byte is a `/` character (elsewhere a combining mark may follow it, and the
                // two are one character that is not a separator).
                var any: UInt8 = 0
                cuts.removeAll(keepingCapacity: true)
                for i in 0..<u.count {
                    let b = u[i]
                    any |= b
                    if b == 0x2F { cuts.append(i) }
                }
                if any >= 0x80 {
                    var separators: Set<Int> = []
                    var offset = 0
                    for ch in path {
                        if ch == "/" { separators.insert(offset) }
                        offset += ch.utf8.count
                    }
                    cuts.removeAll { !separators.contains($0) }
                }
                // The hash of the text before each separator, all in one pass.
                PathHasher.prefixHashes(u, cuts: cuts, into: &slashes)
            }
            let utf8 = path.utf8
            for (offset, hash) in slashes.reversed() {
                let parent = offset == 0 ? Substring("/") : path[..<utf8.index(utf8.startIndex, offsetBy: offset)]
                if !hasChildren.insert(parent, hash: offset == 0 ? rootHash : hash) || offset == 0 { break }
            }
        }
        let resolver = ACENameResolver(
            user: { [userNames] in userNames[$0] },
            group: { [groupNames] in groupNames[$0] ?? ($0 == "everyone" ? WellKnown.everyoneGID : nil) },
            suggestions: { [userNames, groupNames] name in
                nearest(name, in: (Array(userNames.keys) + Array(groupNames.keys)).sorted()).map { "did you mean `\($0)`?" }
                    ?? "declare it under `users` or `groups`" })
        p.nodeLocations.reserveCapacity(p.world.nodeCount + decls.count)
        // Parents before children: by depth, then by path. The entries of each depth are taken
        // in the file's order and sorted only when that order is not already the path order (a
        // scan file's or fmt's tree is sorted: no comparison sort at all).
        var byDepth: [[Int]] = []
        for i in decls.indices {
            let k = depth(decls[i].path)
            while byDepth.count <= k { byDepth.append([]) }
            byDepth[k].append(i)
        }
        var order: [Int] = []
        order.reserveCapacity(decls.count)
        for var bucket in byDepth {
            var sorted = true
            for j in bucket.indices.dropFirst() where !(decls[bucket[j - 1]].path < decls[bucket[j]].path) { sorted = false; break }
            if !sorted { bucket.sort { decls[$0].path < decls[$1].path } }
            order.append(contentsOf: bucket)
        }
        p.world.reserveCapacity(nodes: p.world.nodeCount + decls.count)
        var hint = World.AddNodeHint()
        // Owners, groups and modes written the same way read the same (the names do not
        // change while the tree is built): each short text is read once.
        var owners = ScalarMemo<UID>(), groups = ScalarMemo<GID>(), modes = ScalarMemo<(FileMode, NodeType?)>()
        func memo<T>(_ n: YNode, _ table: inout ScalarMemo<T>, _ read: () -> T?) -> T? {
            guard let key = n.shortScalarKey else { return read() }
            if let known = table[key] { return known }
            let v = read()
            if let v { table[key] = v }
            return v
        }
        // With a listing: each entry's node (for its children), and the index entries of the
        // nodes appended, put in the indexes after the loop. (The listing's arrays are taken
        // out of it: a struct of arrays used in the loop was copied, its arrays retained, at
        // every turn.)
        let listed = listing != nil
        let parents = listing?.parent ?? [], nameStarts = listing?.nameStart ?? [], withChildren = listing?.hasChildren ?? []
        var nodeOf = [NodeID](repeating: World.root, count: listed ? decls.count : 0)
        var links: [(NodeID, YNode, String)] = []
        var pending = World.PendingIndex(capacity: listed ? decls.count : 0)
        for di in order {
            // Each declaration is used once: moved out of the list, not copied.
            var d = NodeDecl.vacated
            swap(&d, &decls[di])
            let f = d.fields
            let isParent = listed ? withChildren[di] : hasChildren.contains(Substring(d.path))
            var type: NodeType = isParent ? .dir : .file
            var typeGiven = false
            if let t = f.type, let w = r.string(t, what: "`type`") {
                if let nt = NodeType(word: w) { type = nt; typeGiven = true }
                else {
                    r.diags.error(t.loc, code: "bad-value", "unknown node type `\(w)`",
                                  help: (nearest(w, in: NodeType.allCases.map(\.word)).map { "did you mean `\($0)`? " } ?? "") + "types: file, dir, symlink, fifo, socket, device")
                }
            }
            var mode: FileMode? = nil
            if let mv = f.mode, let (m, symType) = memo(mv, &modes, { readMode(mv, what: "`mode` of `\(d.path)`") }) {
                mode = m
                if let st = symType {
                    if typeGiven && st != type {
                        r.diags.error(mv.loc, code: "type-mismatch", "the mode `\(mv.scalar!)` says \(st.word) but `type` says \(type.word)",
                                      help: "make them agree, or drop the type character from the mode")
                    } else if !typeGiven { type = st }
                }
            }
            if slashed.contains(d.path) && type != .dir {
                if typeGiven || type != .file {
                    r.diags.error(d.loc, code: "not-a-directory", "`\(d.path)/` ends with `/` but is a \(type.word) (the kernel says ENOTDIR)",
                                  help: "drop the trailing `/`, or make it `type: dir`")
                } else {
                    type = .dir
                }
            }
            if isParent && type != .dir {
                r.diags.error(d.loc, code: "not-a-directory", "`\(d.path)` is a \(type.word) but other tree paths lie below it",
                              help: "make it `type: dir`, or move the paths below it")
                type = .dir
            }
            let uid = f.owner.flatMap { o in memo(o, &owners) { readOwner(o, what: "`owner` of `\(d.path)`") } } ?? p.world.defaultOwner
            let gid = f.group.flatMap { g in memo(g, &groups) { readGroup(g, what: "`group` of `\(d.path)`") } } ?? p.world.defaultGroup
            if type == .symlink && mode == nil { mode = FileMode(0o755) }
            let m = mode ?? (type == .dir ? p.world.defaultDirMode : p.world.defaultFileMode)
            var flags: FileFlags = []
            if let fv = f.flags, let list = r.stringList(fv, what: "`flags` of `\(d.path)`", allowSingle: true) {
                for (w, node) in list {
                    var offset = 0
                    for part in w.split(separator: ",", omittingEmptySubsequences: false) {
                        let word = part.trimmingCharacters(in: .whitespaces)
                        let at = offset + (part.count - part.drop { $0 == " " }.count)
                        offset += part.count + 1
                        if word.isEmpty { continue }
                        if let fl = FileFlags.named(word) { flags.formUnion(fl) }
                        else {
                            let known = FileFlags.aliases.map(\.0)
                            r.diags.error(node.location(atOffset: at), code: "bad-flag", "unknown file flag `\(word)`",
                                          help: nearest(word, in: known).map { "did you mean `\($0)`?" } ?? "flags: uchg schg uappnd sappnd nodump hidden opaque arch (Linux: immutable append nodump)")
                        }
                    }
                }
            }
            var macACL: ACL? = nil
            var posix: POSIXACL? = nil
            var aceLocs: [SourceLocation] = []
            if let av = f.acl {
                let key = aclCacheKey(av, [0x61, m.group.rawValue, m.owner.rawValue, m.other.rawValue])
                if let k = key, let known = aclCache[k] { (macACL, posix) = known } else {
                    let before = r.diags.attempts
                    readACL(av, path: d.path, resolver: resolver, mac: &macACL, posix: &posix, aceLocs: &aceLocs, isDefault: false, modeGroup: m.group, modeOwnerOther: (m.owner, m.other))
                    if let k = key, r.diags.attempts == before, aceLocs.isEmpty, macACL == nil { aclCache[k] = (macACL, posix) }
                }
            }
            var defaultPosix: POSIXACL? = nil
            if let dv = f.defaultAcl {
                var dummy: ACL? = nil
                var locs: [SourceLocation] = []
                let key = aclCacheKey(dv, [0x64])
                if let k = key, let known = aclCache[k] { defaultPosix = known.1 } else {
                    let before = r.diags.attempts
                    readACL(dv, path: d.path, resolver: resolver, mac: &dummy, posix: &defaultPosix, aceLocs: &locs, isDefault: true, modeGroup: nil)
                    if let k = key, r.diags.attempts == before, locs.isEmpty, dummy == nil { aclCache[k] = (nil, defaultPosix) }
                }
                if type != .dir {
                    // Linux refuses a default ACL on anything but a directory (set_posix_acl in
                    // fs/posix_acl.c: EACCES), so no real tree has one: a sign of a bad import.
                    // Kept (lint reports it, FSL021) and never applied: nothing is created in a file.
                    r.diags.warning(dv.loc, code: "default-acl-on-file", "only directories can have a default ACL, and `\(d.path)` is a \(type.word): Linux refuses it, so it is ignored (lint reports it as FSL021)",
                                    help: "remove `defaultAcl`, or make the node `type: dir`")
                }
            }
            // A POSIX ACL also gets its (lossy) ACE mapping, for the macos and guide rule sets.
            let mapped = macACL == nil && posix != nil ? posix!.mappedACEs() : nil
            let id: NodeID
            if listed && nameStarts[di] > 0 {
                let up = Int(parents[di])
                id = p.world.appendNewNode(under: up < 0 ? World.root : nodeOf[up], path: d.path, nameAt: Int(nameStarts[di]),
                                           type: type, uid: uid, gid: gid, mode: m, flags: flags, acl: macACL ?? mapped,
                                           declared: true, pending: &pending)
                nodeOf[di] = id
            } else {
                id = p.world.addNode(path: d.path, type: type, uid: uid, gid: gid, mode: m, flags: flags, acl: macACL ?? mapped,
                                     declared: true, hint: &hint)
                if listed { nodeOf[di] = id }
            }
            if mapped != nil { p.world.mappedACLNodes.insert(id) }
            var assumed = false
            if let av = f.assumed, let b = r.bool(av, what: "`assumed`") { assumed = b }
            if assumed { p.world.assumedNodes.insert(id) } else { p.world.assumedNodes.remove(id) }
            if posix != nil { p.world.setPOSIXACL(posix, on: id) }
            if defaultPosix != nil { p.world.setDefaultPOSIXACL(defaultPosix, on: id) }
            p.nodeLocations[id] = d.loc
            if !aceLocs.isEmpty { p.aceLocations[d.path] = aceLocs }
            var unread: UnreadReason? = nil
            if let uv = f.unread, let w = r.string(uv, what: "`unread`") {
                if let why = UnreadReason(rawValue: w), type == .dir || type == .symlink { unread = why }
                else if UnreadReason(rawValue: w) == nil {
                    r.diags.error(uv.loc, code: "bad-value", "unknown `unread` reason `\(w)`",
                                  help: (nearest(w, in: UnreadReason.allCases.map(\.rawValue)).map { "did you mean `\($0)`? " } ?? "") + "reasons: " + UnreadReason.allCases.map(\.rawValue).joined(separator: ", "))
                } else {
                    r.diags.error(uv.loc, code: "bad-value", "`unread` goes with a folder or a symlink, and `\(d.path)` is a \(type.word)",
                                  help: "remove `unread`, or make the node `type: dir`")
                }
            }
            if let why = unread { p.world.unread[id] = why }
            if let cv = f.content, let w = r.string(cv, what: "`content`") {
                if let kind = ContentKind(rawValue: w), type == .file { p.world.contentKinds[id] = kind }
                else if ContentKind(rawValue: w) == nil {
                    r.diags.error(cv.loc, code: "bad-value", "unknown `content` kind `\(w)`",
                                  help: (nearest(w, in: ContentKind.allCases.map(\.rawValue)).map { "did you mean `\($0)`? " } ?? "") + "kinds: " + ContentKind.allCases.map(\.rawValue).joined(separator: ", "))
                } else {
                    r.diags.error(cv.loc, code: "bad-value", "`content` goes with a regular file, and `\(d.path)` is a \(type.word)",
                                  help: "remove `content`")
                }
            }
            if let cv = f.caps, let t = r.string(cv, what: "`caps`") {
                if type != .file {
                    r.diags.error(cv.loc, code: "bad-value", "`caps` (file capabilities) goes with a regular file, and `\(d.path)` is a \(type.word)",
                                  help: "remove `caps`")
                } else if let fc = FileCapabilities.parse(t) {
                    p.world.fileCaps[id] = fc
                } else {
                    r.diags.error(cv.loc, code: "bad-value", "`\(t)` is not a file capability text",
                                  help: "write it as getcap does: `cap_dac_read_search=ep`, `cap_chown,cap_fowner=eip`, with `[rootid=N]` for a namespaced one")
                }
            }
            if let tv = f.target {
                if type != .symlink {
                    r.diags.error(tv.loc, code: "target-on-non-symlink", "`target` only goes with `type: symlink`, and `\(d.path)` is a \(type.word)",
                                  help: "add `type: symlink`, or remove `target`")
                } else if let t = r.string(tv, what: "`target`") {
                    if t.isEmpty { r.diags.error(tv.loc, code: "bad-path", "a symlink `target` cannot be empty") }
                    else { p.world.setSymlinkTarget(NameEscaping.canonical(t), on: id) }
                }
            } else if type == .symlink && unread == nil {
                r.diags.error(d.loc, code: "missing-key", "symlink `\(d.path)` has no `target`", help: "add `target: <path>`, or `unread: denied` for a link whose target could not be read")
            }
            var protection = ProtectionClass.unspecified
            if let pv = f.protection, let w = r.string(pv, what: "`protection`") {
                if let pc = ProtectionClass.allCases.first(where: { $0.word == w && $0 != .unspecified }) { protection = pc }
                else {
                    r.diags.error(pv.loc, code: "bad-value", "unknown protection class `\(w)`",
                                  help: "use `complete`, `completeUnlessOpen`, `completeUntilFirstUserAuthentication` or `none`")
                }
            }
            var open = false
            if let ov = f.open, let b = r.bool(ov, what: "`open`") {
                open = b
                if b && protection != .completeUnlessOpen {
                    r.diags.warning(ov.loc, code: "unused-open", "`open: true` on `\(d.path)` has no effect without `protection: completeUnlessOpen`",
                                    help: "only a Complete Unless Open file stays usable through a handle opened before the lock")
                }
            }
            if protection != .unspecified || open { p.world.setProtection(protection, open: open, on: id) }
            if let lv = f.link { links.append((id, lv, d.path)) }
        }
        if listed { p.world.index(pending) }
        // Hard links: each name made another name of the file its `link` names, once every
        // node exists (the other keys of such an entry are not used: the file has them).
        for (id, lv, path) in links {
            guard let raw = r.string(lv, what: "`link`") else { continue }
            guard let target = checkPath(lv, raw, what: "`link`"), let t = p.world.lookup(target) else {
                r.diags.error(lv.loc, code: "bad-link", "`link` of `\(path)` names `\(raw)`, which is not in the tree",
                              help: "a hard link names another tree entry: the file's first name")
                continue
            }
            if p.world[t].isDir || p.world[id].isDir || t == id {
                r.diags.error(lv.loc, code: "bad-link", "`\(path)` cannot be a hard link to `\(target)`: \(t == id ? "it names itself" : "a folder has one name (the kernel refuses a hard link to a folder)")",
                              help: "give the path of a file")
                continue
            }
            p.world.addHardLink(id, to: t)
        }
    }

    /// The text of an ACL given as a list of strings, with `extra` (what else the result
    /// depends on: the mode's bits, access or default), as a key for `aclCache`; nil for any
    /// other shape. Within one tree the users, groups and rule set do not change.
    func aclCacheKey(_ n: YNode, _ extra: [UInt8]) -> [UInt8]? {
        // Each entry's length (four bytes) and bytes: no two lists of entries share a key.
        func add(_ key: inout [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: bytes)
        }
        do {
            let d = n.doc, i = n.index
            // The entries' bytes straight from the text, without a node list or strings.
            let seq = d.nodes[Int(i)]
            guard seq.kind == 2, seq.b > 0 else { return nil }
            var key = extra
            for c in Int(seq.a)..<Int(seq.a + seq.b) {
                // (Not a scalar: no bytes, nil.)
                guard !YNode(fast: d, d.children[c]).isNull, d.withScalarBytes(d.children[c], { add(&key, $0) }) != nil else { return nil }
            }
            return key
        }
        guard let items = n.sequence, !items.isEmpty else { return nil }
        var key = extra
        for it in items {
            guard var s = it.scalar, !it.isNull else { return nil }
            s.withUTF8 { add(&key, $0) }
        }
        return key
    }

    func depth(_ p: String) -> Int {
        withBytes(p) { u in
            var n = 0
            for b in u where b == 0x2F { n += 1 }
            return n - (u.count == 1 && n == 1 ? 1 : 0)
        }
    }

    mutating func readACL(_ n: YNode, path: String, resolver: ACENameResolver, mac: inout ACL?, posix: inout POSIXACL?,
                          aceLocs: inout [SourceLocation], isDefault: Bool, modeGroup: RWX?, modeOwnerOther: (RWX, RWX)? = nil) {
        // A list of entries, or one multi-line string (getfacl output).
        var items: [(String, SourceLocation, YNode, Int)] = []
        if let s = n.scalar, !n.isNull {
            var line = 0
            for l in s.split(separator: "\n", omittingEmptySubsequences: false) {
                var loc = n.loc
                if n.isQuoted || s.contains("\n") { loc.line += line + (n.isQuoted ? 0 : 1); loc.column = n.isQuoted ? loc.column + 1 : loc.column + 2 }
                let t = String(l)
                if !t.trimmingCharacters(in: .whitespaces).isEmpty && !t.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                    items.append((t, loc, n, -1))
                }
                line += 1
            }
        } else if let list = r.list(n, what: "`acl` of `\(path)`") {
            for it in list {
                if let s = r.string(it, what: "an ACL entry") { items.append((s, it.loc, it, 0)) }
            }
        } else { return }
        if items.isEmpty {
            if isDefault { return }
            if p.semantics == .linux {
                r.diags.error(n.loc, code: "bad-acl", "an empty POSIX ACL is not valid", help: "give at least `user::`, `group::` and `other::`, or remove `acl`")
            } else { mac = ACL([]) }
            return
        }
        if p.semantics == .linux, let mac = items.first(where: { !POSIXACLLine.looksLikeGetfacl($0.0) && ($0.0.contains(" allow ") || $0.0.contains(" deny ")) }) {
            r.diags.error(mac.1, code: "mac-ace-under-linux", "`\(mac.0)` is a macOS ACE; Linux has POSIX ACLs only",
                          help: "write getfacl entries such as `user:bob:r--` (with `mask::` and the base entries), or use `semantics: macos`")
            return
        }
        let getfacl = isDefault || p.semantics == .linux || items.allSatisfy { POSIXACLLine.looksLikeGetfacl($0.0) }
        if !getfacl {
            var entries: [ACE] = []
            for (text, loc, node, _) in items {
                if POSIXACLLine.looksLikeGetfacl(text) {
                    r.diags.error(loc, code: "mixed-acl", "a getfacl entry `\(text)` in a list of macOS ACEs",
                                  help: "write all entries in one style: `user:bob allow read` (macOS) or `user:bob:r--` (POSIX)")
                    continue
                }
                switch ACE.parse(text, resolver: resolver) {
                case .success(let ace): entries.append(ace); aceLocs.append(loc)
                case .failure(let e):
                    var l = loc
                    if node.scalar == text { l = node.location(atOffset: e.offset) }
                    r.diags.error(l, code: "bad-ace", e.message + " in ACE `\(text)`", help: e.help)
                }
            }
            mac = ACL(entries)
            return
        }
        var access: [POSIXACLLine] = []
        var defaults: [POSIXACLLine] = []
        var ok = true
        for (text, loc, node, _) in items {
            switch POSIXACLLine.parse(text, user: { [userNames] in userNames[$0] }, group: { [groupNames] in groupNames[$0] }) {
            case .success(let line?):
                if line.isDefault && !isDefault {
                    defaults.append(line)
                } else { (isDefault ? { defaults.append(line) } : { access.append(line) })() }
            case .success(nil): break
            case .failure(let e):
                ok = false
                var l = loc
                if node.scalar == text { l = node.location(atOffset: e.offset) }
                let hint = e.message.hasPrefix("unknown user") || e.message.hasPrefix("unknown group") ? "declare it under `users`/`groups`, or use a number" : e.help
                r.diags.error(l, code: "bad-acl", e.message + " in `\(text)`", help: hint)
            }
        }
        guard ok else { return }
        if !access.isEmpty {
            switch POSIXACL.build(access) {
            case .success(let a):
                posix = a.isMinimal ? nil : a
                if let m = modeOwnerOther {
                    for (entry, acl, bits) in [("user::", a.userObj, m.0), ("other::", a.other, m.1)] where acl != bits {
                        let at = items.first { $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry) || $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry.prefix(1) + "::") }?.1 ?? n.loc
                        r.diags.error(at, code: "mask-mismatch",
                                      "`\(entry)\(acl.text)` disagrees with the \(entry == "user::" ? "owner" : "other") bits `\(bits.text)` of the mode of `\(path)`",
                                      help: "the mode and the ACL's `\(entry)` entry are the same bits: make them agree")
                    }
                }
                if let g = modeGroup, a.groupClass != g {
                    let entry = a.mask != nil ? "mask::" : "group::"
                    let at = items.first { $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry) || $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry.prefix(1) + "::") }?.1 ?? n.loc
                    let digit = String(a.groupClass.rawValue)
                    r.diags.error(at, code: "mask-mismatch",
                                  "`\(entry)\(a.groupClass.text)` disagrees with the group bits `\(g.text)` of the mode of `\(path)`",
                                  help: "with an ACL the mode's group digit is the \(a.mask != nil ? "mask" : "group entry"): make it \(digit) (`\(a.groupClass.text)`), or change `\(entry)` to `\(g.text)`")
                }
                for l in access where l.effective != nil {
                    let base: RWX
                    switch l.tag { case .user(let id): base = a.users.first { $0.id == id }!.perms
                    case .group(let id): base = a.groups.first { $0.id == id }!.perms
                    case .groupObj: base = a.groupObj
                    default: base = l.perms }
                    let want = a.mask.map { base.intersection($0) } ?? base
                    if want != l.effective! {
                        r.diags.error(n.loc, code: "effective-mismatch",
                                      "`#effective:\(l.effective!.text)` on `\(path)` does not match the entries (they give `\(want.text)`)",
                                      help: "the comment is only checked, never used; fix or remove it")
                    }
                }
            case .failure(let e):
                r.diags.error(n.loc, code: "bad-acl", "invalid POSIX ACL on `\(path)`: \(e.message)",
                              help: "a POSIX ACL needs `user::`, `group::`, `other::`, and `mask::` once it has named entries")
            }
        }
        if !defaults.isEmpty {
            switch POSIXACL.build(defaults) {
            case .success(let a): if isDefault { posix = a } else {
                r.diags.error(n.loc, code: "default-in-acl", "`default:` entries belong under `defaultAcl` of `\(path)`",
                              help: "move them to `defaultAcl:`")
            }
            case .failure(let e):
                r.diags.error(n.loc, code: "bad-acl", "invalid default ACL on `\(path)`: \(e.message)",
                              help: "a POSIX ACL needs `user::`, `group::`, `other::`, and `mask::` once it has named entries")
            }
        }
    }

    // MARK: Imports

    mutating func readImports(_ n: YNode, tree: inout [NodeDecl]) {
        guard let list = r.list(n, what: "`import`") else { return }
        for item in list {
            guard let m = r.mapping(item, what: "an `import` entry") else { continue }
            let k = r.keyed(m, known: importKeys, context: "an `import` entry")
            let sources = ["scan", "getfacl", "lsle", "tar", "oci", "policy"].filter { k[$0] != nil }
            if sources.count != 1 {
                r.diags.error(item.loc, code: "bad-import", sources.isEmpty ? "an `import` entry needs one of `scan`, `getfacl`, `lsle`, `tar`, `oci` or `policy`"
                                                                         : "an `import` entry takes one of `scan`, `getfacl`, `lsle`, `tar`, `oci` or `policy`, not several",
                              help: "e.g. `- policy: ./base.yaml`")
                continue
            }
            let kind = sources[0]
            guard let pathText = r.string(k[kind]!, what: "`\(kind)`") else { continue }
            if let at = k["at"] {
                if kind == "policy" {
                    r.diags.error(at.loc, code: "bad-import", "`at` goes with `scan`, `getfacl`, `lsle`, `tar` and `oci` imports, not `policy`")
                } else { _ = r.string(at, what: "`at`") }
            }
            var platform: String? = nil
            if let pl = k["platform"] {
                if kind != "oci" {
                    r.diags.error(pl.loc, code: "bad-import", "`platform` goes with `oci` imports only",
                                  help: "it chooses one image of a multi-platform OCI layout, e.g. `platform: linux/arm64`")
                } else { platform = r.string(pl, what: "`platform`") }
            }
            let full = PolicyLoader.join(baseDir, pathText)
            var at: String? = nil
            if let a = k["at"], let t = a.scalar { at = checkPath(a, t, what: "`at`") }
            if kind == "scan" {
                guard let scanner = PolicyLoader.scanner else {
                    r.diags.error(k[kind]!.loc, code: "scan-unavailable", "reading real trees is only available in the Linux build of fspolicy",
                                  help: "run `fspolicy scan DIR -o FILE` on the Linux machine and import the file it writes with `policy:`")
                    continue
                }
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else {
                    r.diags.error(k[kind]!.loc, code: "unreadable", "cannot read `\(pathText)`: no such file or directory",
                                  help: "relative paths are relative to this file's folder")
                    continue
                }
                var accountsAll = true
                if let a = k["accounts"], let w = r.string(a, what: "`accounts`") {
                    if w == "owners" { accountsAll = false }
                    else if w != "all" { r.diags.error(a.loc, code: "bad-value", "unknown `accounts` value `\(w)`", help: "use `all` (every host account, the default) or `owners` (only the owners and groups seen)") }
                }
                let options = ScanOptions(readAncestors: at == nil, allAccounts: accountsAll)
                let scanKey = full + "\u{0}\(options.readAncestors)\u{0}\(options.allAccounts)"
                let tree: ScannedTree
                if let known = cache.scans[scanKey] { tree = known } else { tree = scanner(full, options); cache.scans[scanKey] = tree }
                for prob in tree.problems {
                    r.diags.warning(k[kind]!.loc, code: "scan-problem", "while scanning `\(pathText)`: \(prob.path): \(prob.message)",
                                    help: "decisions about that part of the tree may be incomplete")
                }
                scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                addHostAccounts(tree)
                addMounts(tree, at: at)
                // The host's fs.protected_* values, read with the tree.
                for (t, v) in tree.linuxTunables.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    p.world.linux[t] = v
                    p.linuxLocations[t.rawValue] = k[kind]!.loc
                }
                continue
            }
            if let a = k["accounts"] {
                r.diags.error(a.loc, code: "bad-import", "`accounts` goes with `scan` imports only")
            }
            // The command's output file may not be read as an input: it is about to be replaced.
            if let why = PolicyLoader.importGuard?(full) {
                r.diags.error(k[kind]!.loc, code: "output-is-input", "the imported file `\(pathText)` \(why)",
                              help: "write the output to another file")
                continue
            }
            if kind == "lsle" {
                readListingImport(k[kind]!, pathText: pathText, full: full, at: at)
                continue
            }
            if kind == "tar" || kind == "oci" {
                guard kind == "tar" ? PolicyLoader.tarReader != nil : PolicyLoader.ociReader != nil else {
                    r.diags.error(k[kind]!.loc, code: "scan-unavailable", "reading \(kind == "tar" ? "tar archives" : "OCI image layouts") is only available in the Linux build of fspolicy",
                                  help: "run `fspolicy scan --\(kind) \(pathText) -o FILE` on a Linux machine and import the file it writes with `policy:`")
                    continue
                }
                switch kind == "tar" ? PolicyLoader.tarReader!(full) : PolicyLoader.ociReader!(full, platform) {
                case .failure(let f):
                    r.diags.error(k[kind]!.loc, code: f.message.hasPrefix("cannot read `") ? "unreadable" : "bad-archive", f.message, help: f.help)
                case .success(let tree):
                    for prob in tree.problems {
                        r.diags.warning(k[kind]!.loc, code: "scan-problem", "while reading `\(pathText)`: \(prob.path): \(prob.message)",
                                        help: "decisions about that part of the tree may be incomplete")
                    }
                    scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                    addHostAccounts(tree)
                }
                continue
            }
            if kind == "getfacl" {
                guard let data = FileManager.default.contents(atPath: full) else {
                    r.diags.error(k[kind]!.loc, code: "unreadable", "cannot read the getfacl dump `\(pathText)`",
                                  help: "relative paths are relative to this file's folder")
                    continue
                }
                // getfacl writes some bytes of names raw: keep them as \ooo escapes.
                let text = NameEscaping.decodeLenient(Array(data))
                let un = userNames, gn = groupNames
                let seen = HostNames()
                let userOf: (String) -> UInt32? = { name in
                    if let u = un[name] { return u }
                    guard UInt32(name) == nil else { return nil }
                    if let known = seen.userAnswers[name] { return known }
                    let h = PolicyLoader.hostUser?(name)
                    if let h { seen.users.append(h) }
                    seen.userAnswers[name] = h?.uid
                    return h?.uid
                }
                let groupOf: (String) -> UInt32? = { name in
                    if let g = gn[name] { return g }
                    guard UInt32(name) == nil else { return nil }
                    if let known = seen.groupAnswers[name] { return known }
                    let h = PolicyLoader.hostGroup?(name)
                    if let h { seen.groups.append((name, h)) }
                    seen.groupAnswers[name] = h
                    return h
                }
                switch GetfaclDump.parse(text, user: userOf, group: groupOf) {
                case .failure(let e):
                    r.diags.error(SourceLocation(file: full, line: e.line, column: e.column), code: "bad-getfacl", e.message,
                                  help: e.help ?? "the file should be exactly what `getfacl -R` prints")
                case .success(let blocks):
                    if var tree = treeFromDump(blocks, file: full) {
                        for u in seen.users where !tree.users.contains(u) { tree.users.append(u) }
                        for g in seen.groups where !tree.groups.contains(where: { $0.gid == g.1 }) { tree.groups.append((g.0, g.1)) }
                        scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                        addHostAccounts(tree)
                    }
                }
                continue
            }
            let canon = PolicyLoader.canonical(full)
            if importStack.contains(canon) {
                let cwd = PolicyLoader.canonical(".") + "/"
                let chain = (importStack + [canon]).map { $0.hasPrefix(cwd) ? String($0.dropFirst(cwd.count)) : $0 }
                r.diags.error(k[kind]!.loc, code: "import-cycle", "import cycle: " + chain.joined(separator: " → "),
                              help: "remove one of these imports")
                continue
            }
            if importStack.count >= Limits.importDepth {
                r.diags.error(k[kind]!.loc, code: "limit", "imports nest more than \(Limits.importDepth) files deep here (`\(pathText)` would be file \(importStack.count + 1) of the chain)",
                              help: "import the files side by side from one file instead of each from the one before")
                continue
            }
            let key = canon + "\u{0}" + p.semantics.rawValue
            let inner: Policy
            if let known = cache.policies[key] {
                inner = known
            } else {
                // Read as a policy file given on the command line is (a FIFO, a directory or a
                // device refused at once, the reason said); a byte that is not UTF-8 is reported
                // where it is, in the imported file.
                let read = PolicyLoader.text(ofFile: full)
                guard let text = read.text else {
                    if let why = read.unreadable {
                        r.diags.error(k[kind]!.loc, code: "unreadable", "cannot read imported policy `\(pathText)`: \(why)",
                                      help: pathText.hasPrefix("/") ? "check that the file exists and is readable"
                                                                    : "relative paths are relative to this file's folder (`\(full)` here)")
                    } else {
                        for d in read.diagnostics { r.diags.add(d) }
                    }
                    continue
                }
                var sub = Compiler(file: full, override: p.semantics, importStack: importStack + [canon], cache: cache)
                sub.fastExpect = fastExpect
                sub.quickWorkers = quickWorkers
                sub.generalTree = generalTree
                sub.earlyCount = earlyCount
                sub.compile(text)
                inner = sub.finish()
                sub.fastDocument?.freeLater()
                // A file is compiled once per load, whatever the import graph's shape. (A result
                // with an import cycle depends on the path it was reached by, so it is not kept.)
                if !inner.diagnostics.items.contains(where: { $0.code == "import-cycle" }) { cache.policies[key] = inner }
            }
            r.diags.append(contentsOf: inner.diagnostics)
            let innerErrors = inner.diagnostics.items.filter { $0.severity == .error && $0.code != "import-cycle" }.count
            if innerErrors > 0 {
                r.diags.error(k[kind]!.loc, code: "import-invalid", "the imported policy `\(pathText)` has \(innerErrors) error(s), reported above",
                              help: "fix the imported file; its errors name its own lines")
            }
            // Principals and volumes come over as they are; the tree is re-declared here. The
            // principals of consecutive imports are merged in one pass (`mergeImportedPrincipals`):
            // merging each in turn rebuilt every principal so far, quadratic in the imports.
            pendingPrincipals.append(inner.world)
            if orderedUsers.count != p.userOrder.count { orderedUsers = Set(p.userOrder) }
            for u in inner.world.users {
                userNames[u.name] = u.uid
                if orderedUsers.insert(u.name).inserted { p.userOrder.append(u.name) }
            }
            for g in inner.world.groups { groupNames[g.name] = g.gid }
            for v in inner.world.volumes { p.world.setVolume(v) }
            p.world.defaultOwner = inner.world.defaultOwner
            p.world.defaultGroup = inner.world.defaultGroup
            p.world.defaultDirMode = inner.world.defaultDirMode
            p.world.defaultFileMode = inner.world.defaultFileMode
            // The sysctls the imported file sets (this file's own `linux:` is read later and wins).
            for (key, loc) in inner.linuxLocations {
                guard let t = LinuxTunable(rawValue: key) else { continue }
                p.world.linux[t] = inner.world.linux[t]
                p.linuxLocations[key] = loc
            }
            importedWorlds.append(inner)
        }
        mergeImportedPrincipals()
    }

    /// Imported policies' worlds whose users and groups are not in `p.world` yet.
    var pendingPrincipals: [World] = []
    /// The names in `p.userOrder`, kept across imports.
    var orderedUsers: Set<String> = []

    /// Merges the pending imported principals into `p.world` with the result of merging them one
    /// at a time: each import's users and groups replace ours of the same name and go to the
    /// end, in its order. So a name ends where its last import put it, and what no import names
    /// stays first, in its place.
    mutating func mergeImportedPrincipals() {
        guard !pendingPrincipals.isEmpty else { return }
        var lastUser: [String: Int] = [:], lastGroup: [String: Int] = [:]
        for (i, w) in pendingPrincipals.enumerated() {
            for u in w.users { lastUser[u.name] = i }
            for g in w.groups { lastGroup[g.name] = i }
        }
        var users = p.world.users.filter { lastUser[$0.name] == nil }
        var groups = p.world.groups.filter { lastGroup[$0.name] == nil }
        for (i, w) in pendingPrincipals.enumerated() {
            users += w.users.filter { lastUser[$0.name] == i }
            groups += w.groups.filter { lastGroup[$0.name] == i }
        }
        pendingPrincipals = []
        rebuildPrincipals(groups: groups, users: users)
    }

    var importedWorlds: [Policy] = []
    /// Trees read by `scan` and `getfacl` imports, with where they appear and the import line.
    var scanned: [(ScannedTree, String, SourceLocation)] = []
    /// Listings read by `lsle` imports (PolicyLoader+Listing.swift).
    var listings: [ListingImport] = []

    /// The host's names for the ids a scan saw, unless the file (or an earlier import) has
    /// them; declarations in this file still replace them.
    mutating func addHostAccounts(_ tree: ScannedTree) {
        mergeImportedPrincipals()
        var groups = p.world.groups
        var gNames = Set(groups.map(\.name)), gids = Set(groups.map(\.gid))
        for g in tree.groups where !gNames.contains(g.name) && !gids.contains(g.gid) && g.gid != 0 {
            groups.append(Group(name: g.name, gid: g.gid))
            gNames.insert(g.name); gids.insert(g.gid)
            groupNames[g.name] = g.gid
        }
        var users = p.world.users
        var uNames = Set(users.map(\.name)), uids = Set(users.map(\.uid))
        for u in tree.users where !uNames.contains(u.name) && !uids.contains(u.uid) && u.uid != 0 {
            users.append(User(name: u.name, uid: u.uid, gid: u.gid, supplementary: u.groups, home: "/home/" + u.name))
            uNames.insert(u.name); uids.insert(u.uid)
            userNames[u.name] = u.uid
            p.userOrder.append(u.name)
        }
        rebuildPrincipals(groups: groups, users: users)
    }

    /// Turns `getfacl -R` blocks into a tree: paths relative to the first block, types from
    /// default ACLs and children, modes from the base entries and the `# flags:` line.
    mutating func treeFromDump(_ blocks: [GetfaclDump.Block], file: String) -> ScannedTree? {
        guard let first = blocks.first else {
            r.diags.error(SourceLocation(file: file, line: 1, column: 1), code: "bad-getfacl", "the getfacl dump is empty",
                          help: "create it with `getfacl -R DIR > FILE`")
            return nil
        }
        let rootPath = first.path
        var tree = ScannedTree(root: rootPath.hasPrefix("/") ? rootPath : "/" + rootPath)
        // Every path that has something below it (each ancestor inserted once).
        var parents: Set<Substring> = []
        for b in blocks {
            var rest = Substring(b.path)
            while let slash = rest.lastIndex(of: "/"), slash != rest.startIndex {
                let parent = rest[..<slash]
                if !parents.insert(parent).inserted { break }
                rest = parent
            }
        }
        // Host accounts met, by name (each looked up once).
        var hostUsers: [String: UInt32?] = [:], hostGroups: [String: UInt32?] = [:]
        for b in blocks {
            let rel: String
            if b.path == rootPath { rel = "" }
            else if b.path.hasPrefix(rootPath + "/") { rel = String(b.path.dropFirst(rootPath.count + 1)) }
            else {
                r.diags.error(SourceLocation(file: file, line: b.line, column: 9), code: "bad-getfacl", "`\(b.path)` is not below the dump's first path `\(rootPath)`",
                              help: "dump one tree: `getfacl -R DIR`")
                continue
            }
            func id(_ name: String, user: Bool) -> UInt32? {
                if let n = user ? userNames[name] : groupNames[name] { return n }
                if let n = numericID(name) { return n }
                if user {
                    if let known = hostUsers[name] { return known }
                    let u = PolicyLoader.hostUser?(name)
                    if let u, !tree.users.contains(u) { tree.users.append(u) }
                    hostUsers[name] = u?.uid
                    return u?.uid
                }
                if let known = hostGroups[name] { return known }
                let g = PolicyLoader.hostGroup?(name)
                if let g, !tree.groups.contains(where: { $0.gid == g }) { tree.groups.append((name, g)) }
                hostGroups[name] = g
                return g
            }
            guard let uid = id(b.owner, user: true) else {
                r.diags.error(SourceLocation(file: file, line: b.line + 1, column: 10), code: "unknown-user", "unknown user `\(b.owner)` in the getfacl dump",
                              help: "declare it under `users` (with the uid it has on that machine)")
                continue
            }
            guard let gid = id(b.group, user: false) else {
                r.diags.error(SourceLocation(file: file, line: b.line + 2, column: 10), code: "unknown-group", "unknown group `\(b.group)` in the getfacl dump",
                              help: "declare it under `groups` (with the gid it has on that machine)")
                continue
            }
            var acl: POSIXACL? = nil
            switch POSIXACL.build(b.access) {
            case .success(let a): acl = a
            case .failure(let e):
                r.diags.error(SourceLocation(file: file, line: b.line, column: 1), code: "bad-getfacl", "the entries of `\(b.path)`: \(e.message)")
                continue
            }
            var def: POSIXACL? = nil
            if !b.defaults.isEmpty {
                switch POSIXACL.build(b.defaults) {
                case .success(let a): def = a
                case .failure(let e):
                    r.diags.error(SourceLocation(file: file, line: b.line, column: 1), code: "bad-getfacl", "the default entries of `\(b.path)`: \(e.message)")
                }
            }
            let a = acl!
            let mode = FileMode(b.special | UInt16(a.userObj.rawValue) << 6 | UInt16(a.groupClass.rawValue) << 3 | UInt16(a.other.rawValue))
            let hasChildren = parents.contains(Substring(b.path))
            tree.entries.append(ScannedTree.Entry(relativePath: rel, type: (def != nil || hasChildren) ? .dir : .file,
                                                  uid: uid, gid: gid, mode: mode, access: a.isMinimal ? nil : a, defaultACL: def))
        }
        return tree
    }

    /// The mounts a scan met become volumes: at their real paths, or (placed with `at`) the
    /// ones at and below the root, relative to `at`. The file's own `volumes` come later and win.
    mutating func addMounts(_ tree: ScannedTree, at: String?) {
        for (path, m) in tree.volumes(at: at) {
            var v = Volume(mountPath: normalize(path))
            v.readOnly = m.readOnly
            v.readOnlyMount = m.readOnlyMount
            v.noexec = m.noexec
            v.nodev = m.nodev
            v.nosuid = m.nosuid
            v.fsType = m.fsType
            p.world.setVolume(v)
        }
    }

    /// Adds a scanned tree to the world at `at` (the tree's root becomes `at` itself), with its
    /// real ancestors when they were read; when they were not, the folders above `at` that
    /// nothing declares are marked assumed.
    mutating func mergeScanned(_ tree: ScannedTree, at: String, loc: SourceLocation) {
        for e in tree.ancestors where at == tree.root {
            let id = p.world.addNode(path: e.relativePath, type: e.type, uid: e.uid, gid: e.gid, mode: e.mode, flags: e.flags, acl: e.access?.mappedACEs())
            if e.access != nil { p.world.mappedACLNodes.insert(id) }
            p.world.setPOSIXACL(e.access, on: id)
            p.world.setDefaultPOSIXACL(e.defaultACL, on: id)
            p.world.assumedNodes.remove(id)
            // Only the way down was read: another name here is unknown, unless an import read it all.
            if !fullyRead.contains(id) { p.world.unread[id] = e.unread ?? .outside }
            p.nodeLocations[id] = loc
        }
        var hint = World.AddNodeHint()
        var firstName: [ScannedTree.Inode: NodeID] = [:]
        p.world.reserveCapacity(nodes: p.world.nodeCount + tree.entries.count)
        p.nodeLocations.reserveCapacity(p.world.nodeCount + tree.entries.count)
        for e in tree.entries {
            let path = e.relativePath.isEmpty ? at : (at == "/" ? "" : at) + "/" + e.relativePath
            let mapped = e.access?.mappedACEs()
            let id = p.world.addNode(path: path, type: e.type, uid: e.uid, gid: e.gid, mode: e.mode, flags: e.flags, acl: mapped,
                                     declared: true, hint: &hint)
            if mapped != nil { p.world.mappedACLNodes.insert(id) }
            p.world.setPOSIXACL(e.access, on: id)
            p.world.setDefaultPOSIXACL(e.defaultACL, on: id)
            if let t = e.target { p.world.setSymlinkTarget(t, on: id) }
            if e.assumed { p.world.assumedNodes.insert(id) } else { p.world.assumedNodes.remove(id) }
            if let k = e.content { p.world.contentKinds[id] = k }
            if let i = e.inode {
                if let first = firstName[i] { p.world.addHardLink(id, to: first) } else { firstName[i] = id }
            }
            if let why = e.unread {
                if !fullyRead.contains(id) { p.world.unread[id] = why }
            } else if e.type == .dir {
                fullyRead.insert(id)
                p.world.unread[id] = nil
            }
            p.nodeLocations[id] = loc
        }
        if !(tree.ancestorsRead && at == tree.root) {
            var comps = at.split(separator: "/")
            while !comps.isEmpty {
                comps.removeLast()
                if let n = p.world.lookup("/" + comps.joined(separator: "/")), !p.world[n].declared { p.world.assumedNodes.insert(n) }
            }
        }
    }

    /// Copies an imported policy's tree (its declared nodes) into this world.
    mutating func mergeTree(_ inner: Policy) {
        let w = inner.world
        var newOf: [NodeID: NodeID] = [:]
        defer {
            for g in w.linkGroups {
                let names = g.compactMap { newOf[$0] }
                for n in names.dropFirst() { p.world.addHardLink(n, to: names[0]) }
            }
        }
        for i in 0..<w.nodeCount {
            let id = NodeID(i)
            let n = w[id]
            guard n.declared else { continue }
            let path = w.path(of: id)
            let new = p.world.addNode(path: path, type: n.type, uid: n.uid, gid: n.gid, mode: n.mode, flags: n.flags, acl: w.acl(of: id))
            if w.mappedACLNodes.contains(id) { p.world.mappedACLNodes.insert(new) }
            if let a = w.posixACL(of: id) { p.world.setPOSIXACL(a, on: new) }
            if let a = w.defaultPOSIXACL(of: id) { p.world.setDefaultPOSIXACL(a, on: new) }
            if let t = w.symlinkTargets[id] { p.world.setSymlinkTarget(t, on: new) }
            if let why = w.unread[id] { p.world.unread[new] = why } else { p.world.unread[new] = nil }
            p.world.contentKinds[new] = w.contentKinds[id]
            newOf[id] = new
            if w.assumedNodes.contains(id) { p.world.assumedNodes.insert(new) } else { p.world.assumedNodes.remove(new) }
            if n.protection != .unspecified || n.openBeforeLock { p.world.setProtection(n.protection, open: n.openBeforeLock, on: new) }
            if let l = inner.nodeLocations[id] { p.nodeLocations[new] = l }
            if let l = inner.aceLocations[path] { p.aceLocations[path] = l }
        }
    }
}
