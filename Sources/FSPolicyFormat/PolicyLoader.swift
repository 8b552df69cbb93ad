import FSPolicy
import FSPolicyYAML
import Foundation
import Synchronization

/// Reads format-v1 policy files. Every problem is collected with its position; nothing the
/// file says is silently ignored.
public enum PolicyLoader {
    public static let formatVersion = 1

    /// The policy file at `path`. `host`: what its imports may ask of this machine (reading
    /// real trees and archives, its accounts); by default nothing.
    public static func load(path: String, semanticsOverride: Semantics? = nil, host: LoaderHost = .none) -> Policy {
        switch readText(path) {
        case .text(let text): return load(text: text, file: path, semanticsOverride: semanticsOverride, host: host)
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
            if let kind = archiveKind(fd: fd) {
                let name = (path as NSString).lastPathComponent
                return failed(
                    "it is \(kind), not a policy file",
                    "read an archive as a tree with `fspolicy scan --tar \(name) -o scan.yaml` (an image: `--oci`), or import it from a policy (`import: [{tar: \(name)}]`)"
                )
            }
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
            return failed(
                "it is a FIFO, and nothing was written to it",
                "fspolicy reads a FIFO while another process writes a policy into it; give the policy file itself")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            policy.diagnostics.error(
                firstInvalidUTF8(data, file: path), code: "not-utf8",
                "the file is not UTF-8 text: this byte is not valid UTF-8",
                help: "save the file as UTF-8 (policy files are UTF-8 YAML)")
            return .failed(policy, unreadable: nil)
        }
        return .text(text)
    }

    /// What a regular file is when its first bytes say it is an archive or a compressed file
    /// (the ustar magic at 257; gzip, zstd, xz, bzip2 signatures), nil otherwise: such a file
    /// given as a policy is a mistake worth naming, not a character to refuse.
    static func archiveKind(fd: Int32) -> String? {
        var head = [UInt8](repeating: 0, count: 265)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 265, 0) }
        guard n > 0 else { return nil }
        let b = Array(head.prefix(n))
        func starts(_ sig: [UInt8]) -> Bool { b.starts(with: sig) }
        // A tar header pads its fields with NUL, which no policy file holds.
        if b.count >= 262, Array(b[257..<262]) == Array("ustar".utf8), b[0..<257].contains(0) { return "a tar archive" }
        if starts([0x1F, 0x8B]) { return "a gzip-compressed file" }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return "a zstd-compressed file" }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "an xz-compressed file" }
        if starts(Array("BZh".utf8)), b.count > 3, (0x31...0x39).contains(b[3]) { return "a bzip2-compressed file" }
        return nil
    }

    public static func load(text: String, file: String, semanticsOverride: Semantics? = nil, host: LoaderHost = .none) -> Policy {
        load(text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: true, host: host)
    }

    /// `fastExpect: false` reads every expectation with the full reading (for the differential
    /// test of `Compiler.readExpectationsQuickly`).
    static func load(text: String, file: String, semanticsOverride: Semantics?, fastExpect: Bool, host: LoaderHost = .none) -> Policy {
        loadCounting(text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: fastExpect, host: host).policy
    }

    /// The policy, and how many expectations of the file (not of its imports) the quick reading read.
    /// `earlyCount`: the shortest `expect:` list read quickly while the tree is built
    /// (`Compiler.startQuickRead`; the tests read every list so).
    static func loadCounting(
        text: String, file: String, semanticsOverride: Semantics?,
        fastExpect: Bool, quickWorkers: Int? = nil, generalTree: Bool = false,
        earlyCount: Int = Compiler.QuickRead.earlyCount, host: LoaderHost = .none
    ) -> (policy: Policy, quick: Int) {
        let r = loadCompiled(
            text: text, file: file, semanticsOverride: semanticsOverride, fastExpect: fastExpect,
            quickWorkers: quickWorkers, generalTree: generalTree, earlyCount: earlyCount, host: host)
        return (r.policy, r.compiler.quickExpectations)
    }

    /// The policy and the compiler that made it (what its readings did, for the tests).
    static func loadCompiled(
        text: String, file: String, semanticsOverride: Semantics?,
        fastExpect: Bool, quickWorkers: Int? = nil, generalTree: Bool = false,
        earlyCount: Int = Compiler.QuickRead.earlyCount, host: LoaderHost = .none
    ) -> (policy: Policy, compiler: Compiler) {
        var c = Compiler(file: file, override: semanticsOverride, importStack: [canonical(file)])
        c.host = host
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

let topKeys = [
    "fspolicy", "semantics", "description", "securelevel", "linux", "groups", "users", "volumes", "defaults",
    "tree", "import", "apps", "services", "units", "device", "steps", "expect", "findings", "keychain"
]
/// The `linux:` section: Linux's `fs.protected_*` sysctls (LinuxTunable's raw values).
let linuxKeys = LinuxTunable.allCases.map(\.rawValue)
let groupKeys = ["gid", "members", "groups"]
let userKeys = ["uid", "group", "groups", "umask", "home"]
let volumeKeys = [
    "readOnly", "readOnlyMount", "noexec", "nodev", "nosuid", "fsType", "ignoreOwnership", "acls", "owner", "group",
    "caseSensitive", "kind"
]
let defaultsKeys = ["owner", "group", "fileMode", "dirMode"]
let nodeKeys = ["type", "owner", "group", "mode", "flags", "acl", "defaultAcl", "target", "protection", "open", "assumed", "unread", "link", "content", "caps"]
let importKeys = ["scan", "getfacl", "lsle", "tar", "oci", "policy", "at", "accounts", "platform"]
let appKeys = [
    "user", "entitlements", "info", "selected", "bookmarks", "tcc", "umask", "platform", "container", "bundle",
    "groupContainers", "systemReadable", "team", "provisioned"
]
let bookmarkKeys = ["path", "scope", "readOnly", "stale", "started", "stopped"]
let tccKeys = [
    "documents", "desktop", "downloads", "removableVolumes", "networkVolumes", "appData", "fullDiskAccess",
    "pictures", "music", "movies"
]
let deviceKeys = ["state", "passcode", "biometry", "iCloudKeychain"]
let expectKeys = [
    "as", "users", "except", "op", "path", "type", "to", "mode", "owner", "group", "flags", "acl", "atime", "mtime", "result", "errno", "layer",
    "state", "allowed", "after", "name", "quiz", "topic", "hint", "groups", "umask", "capabilities"
]
let stepKeys = [
    "as", "op", "path", "type", "to", "mode", "owner", "group", "flags", "acl", "atime", "mtime", "result", "errno", "layer", "name", "groups", "umask",
    "capabilities"
]
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
