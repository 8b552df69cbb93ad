import FSPolicy

/// Writes a scanned tree as a format-v1 policy file (`fspolicy scan -o FILE`).
public enum ScanWriter {
    /// What a scan cannot see, written at the head of every scan file (docs/semantics.md says
    /// the same under "What a scanned world leaves out").
    public static let cannotKnow: [String] = [
        "Linux security modules (SELinux, AppArmor, Smack, TOMOYO, Landlock) and seccomp filters, which can refuse what the file modes allow (none of them is modelled; AppArmor and SELinux cannot even be proven on the kernel the tests run on)",
        "which capabilities a running process holds: a user asks as a process with none (uid 0: all of them), a declared service or `--caps` with the set it is given (docs/services.md); user namespaces and idmapped mounts are not read",
        "the server's own checks on network and FUSE file systems (NFS root squashing and export options, CIFS, sshfs), which can refuse what the local modes allow",
        "file contents (a script's interpreter, an ELF binary's loader), open descriptors and locks, and quotas or a full disk",
        "anything that changed after the scan"
    ]

    /// The whole file as one string (tests, the fuzzer; `scan` itself streams with `write`).
    public static func yaml(_ tree: ScannedTree, at mount: String? = nil) -> String {
        var all: [UInt8] = []
        write(tree, at: mount, chunk: Int.max) { all.append(contentsOf: $0) }
        return String(decoding: all, as: UTF8.self)
    }

    /// Lines of output gathered into one buffer, handed on in pieces of about `chunk` bytes.
    struct Lines {
        var bytes: [UInt8] = []
        let chunk: Int
        let emit: ([UInt8]) -> Void
        init(chunk: Int, emit: @escaping ([UInt8]) -> Void) {
            self.chunk = chunk
            self.emit = emit
            if chunk < Int.max { bytes.reserveCapacity(chunk + 4096) }
        }
        mutating func append(_ line: String) {
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0a)
            if bytes.count >= chunk { emit(bytes); bytes.removeAll(keepingCapacity: true) }
        }
        static func += (l: inout Lines, lines: [String]) { for x in lines { l.append(x) } }
        mutating func end() { if !bytes.isEmpty { emit(bytes); bytes.removeAll() } }
    }

    /// How many unreadable paths, or symlinks leaving the tree, the header lists by name.
    static let listed = 20

    /// The symlinks of a scanned tree (not an archive) whose targets, joined to the link's
    /// folder and made lexical, lie outside the scanned root: how many, and the first
    /// `listed` as (link, target) in host paths.
    public static func symlinksLeaving(_ tree: ScannedTree) -> (count: Int, links: [(String, String)]) {
        guard tree.origin == nil else { return (0, []) }
        var count = 0
        var links: [(String, String)] = []
        for e in tree.entries where e.type == .symlink {
            guard let t = e.target, !t.isEmpty else { continue }
            let link = e.relativePath.isEmpty ? tree.root : (tree.root == "/" ? "/" : tree.root + "/") + e.relativePath
            let folder = link.split(separator: "/").dropLast().joined(separator: "/")
            let absolute = YAMLText.lexicalPath(t.hasPrefix("/") ? t : "/" + folder + "/" + t)
            if tree.roots.contains(where: { App.isWithin(absolute, $0) }) { continue }
            count += 1
            if links.count < listed { links.append((link, absolute)) }
        }
        return (count, links)
    }

    /// Writes the scan file as it is made, in pieces of about `chunk` bytes (valid UTF-8, whole
    /// lines), to `emit`: no line list or whole text is held, only the tree and one piece.
    /// `schemaURL`: the first line names it for editors (`SchemaComment`).
    public static func write(
        _ tree: ScannedTree, at mount: String? = nil, schemaURL: String? = nil,
        chunk: Int = 1 << 20, emit: @escaping ([UInt8]) -> Void
    ) {
        // `--at` as the loader reads paths: one spelling per name, no `.` or `..`.
        let base = mount.map { YAMLText.lexicalPath(NameEscaping.canonical($0)) } ?? tree.root
        var userName: [UID: String] = [0: "root"]
        var groupName: [GID: String] = [0: "root"]
        for u in tree.users where userName[u.uid] == nil || u.uid != 0 { userName[u.uid] = u.uid == 0 ? "root" : u.name }
        for g in tree.groups where g.gid != 0 { groupName[g.gid] = g.name }
        func owner(_ u: UID) -> String { userName[u] ?? String(u) }
        func group(_ g: GID) -> String { groupName[g] ?? String(g) }
        func q(_ s: String) -> String { YAMLText.quote(s) }
        // A comment line: its text is already escaped like names; any line or paragraph
        // separator or control left (YAML 1.1 ends a line at U+0085, U+2028, U+2029) becomes `?`.
        func comment(_ s: String) -> String {
            var t = "# "
            for u in s.unicodeScalars {
                let v = u.value
                t.unicodeScalars.append(v < 0x20 || (0x7f...0x9f).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xfeff ? "?" : u)
            }
            return t
        }
        let placed = mount != nil && base != tree.root

        var out = Lines(chunk: chunk, emit: emit)
        if let url = schemaURL { out.append(SchemaComment.line(url)) }
        if let origin = tree.origin {
            // An archive: what it stores, and what it cannot say about where it will run.
            out.append(comment("Read from \(origin) by fspolicy scan" + (placed ? ", placed at \(base)" : "") + "."))
            out.append("# An archive records owners, groups, modes, POSIX ACLs, symlink targets and (when the tool")
            out.append("# stored them) inode flags. It cannot know the mounts it will be extracted or run on, and no")
            out.append("# answer from this file accounts for:")
            for c in cannotKnow.dropLast() { out.append("#   - " + c + ".") }
            if base != "/" {
                out.append(comment("The path above \(base) is assumed: its folders are written with `assumed: true`."))
            }
        } else {
            out.append(comment("Scanned from \(tree.roots.joined(separator: ", ")) by fspolicy scan" + (placed ? ", placed at \(base)" : "") + "."))
            out.append("# A scan records owners, groups, modes, inode flags, POSIX ACLs, symlink targets and mount")
            out.append("# options. It cannot know, and no answer from this file accounts for:")
            for c in cannotKnow { out.append("#   - " + c + ".") }
            if tree.ancestorsRead || base == "/" {
                out.append("# The folders from / down to the root were read from the host, with their mounts.")
            } else {
                out.append(comment("The path above \(base) is assumed, not read: its folders are written with `assumed: true`"))
                out.append("# and the defaults (root, root, 0755); `explain` marks them (assumed). Scan without --at to")
                out.append("# record the real ones.")
            }
            if tree.allAccounts {
                out.append("# Accounts: every user and group of the host (getpwent/getgrent, so every NSS source).")
            } else {
                out.append("# Accounts: only the owners and groups seen in the tree (--accounts owners); other users")
                out.append("# are unknown here, and ids without a name are written as numbers.")
            }
        }
        if tree.origin == nil {
            // The sysctls are the host's, whatever the mount: read with --at too.
            if let why = tree.tunablesUnread {
                out.append(comment("The fs.protected_* sysctls could not all be read (\(why)): the `linux:` section"))
                out.append("# leaves them out, and the defaults (docs/policy-format.md) stand in for them.")
            } else if !tree.linuxTunables.isEmpty {
                out.append("# The `linux:` section holds this host's fs.protected_* sysctls, read from /proc/sys/fs.")
            }
        }
        for n in tree.notes { out.append(comment("Note: " + n)) }
        // What the file does not hold though it is inside the scan: answers about it would say
        // "does not exist", which the host may not (the scan's warnings went to standard error
        // only, and a file read later did not say).
        if !tree.problems.isEmpty {
            out.append("# Incomplete: these could not be read, so what is in or below them is not in this file;")
            out.append("# they are marked `unread:`, and an answer that depends on them is `unknown`:")
            for p in tree.problems.prefix(ScanWriter.listed) { out.append(comment("  - \(p.path): \(p.message)")) }
            if tree.problems.count > ScanWriter.listed {
                out.append("#   … and \(tree.problems.count - ScanWriter.listed) more (the scan's warnings list them all).")
            }
        }
        let leaving = ScanWriter.symlinksLeaving(tree)
        if !leaving.links.isEmpty {
            out.append(
                comment(
                    "\(leaving.count) symlink\(leaving.count == 1 ? "" : "s") point\(leaving.count == 1 ? "s" : "") outside the scanned \(tree.roots.count > 1 ? "folders" : "folder \(tree.root)") (by the target's text): what"
                ))
            out.append("# they point to was not read, so an answer through them is `unknown`. Scan a folder that")
            out.append("# holds the targets too (several roots make one file) to have them decided:")
            for (link, target) in leaving.links { out.append(comment("  - \(link) -> \(target)")) }
            if leaving.count > leaving.links.count { out.append("#   … and \(leaving.count - leaving.links.count) more.") }
        }
        out.append("fspolicy: 1")
        out.append("semantics: linux")
        out.append(
            "description: " + q(tree.origin.map { "read from \($0) by fspolicy scan" } ?? "scanned from \(tree.roots.joined(separator: ", ")) by fspolicy scan")
        )
        // Block style, as `fmt` writes a top-level mapping.
        let tunables = LinuxTunable.allCases.compactMap { t in tree.linuxTunables[t].map { "  \(t.rawValue): \($0)" } }
        if !tunables.isEmpty { out += ["", "linux:"] + tunables }

        // gid 0 too: the linux rule set knows it as `root` without a declaration, but macos
        // and guide name it `wheel`, and a scan file read with `--semantics macos` (or beside
        // `explain --compare`'s other rule sets) must still know the group its nodes name.
        let groups = tree.groups
        if !groups.isEmpty {
            out.append("")
            out.append("groups:")
            for g in groups { out += FmtForm.entry(key: g.name, [("gid", .scalar(String(g.gid)))]) }
        }
        let users = tree.users.filter { $0.uid != 0 }
        if !users.isEmpty {
            out.append("")
            out.append("users:")
            for u in users {
                var f: [(String, FmtForm.Value)] = [("uid", .scalar(String(u.uid))), ("group", .scalar(q(group(u.gid))))]
                if !u.groups.isEmpty { f.append(("groups", .list(u.groups.map { q(group($0)) }))) }
                out += FmtForm.entry(key: u.name, f)
            }
        }
        // Volumes (after the accounts, where `fmt` puts them): the mounts met, at their real paths or (placed) relative to the new root.
        let volumes = tree.volumes(at: placed ? base : nil)
        if !volumes.isEmpty {
            out.append("")
            out.append("volumes:")
            for (path, m) in volumes {
                // In `fmt`'s key order (volumeKeys).
                var f: [(String, FmtForm.Value)] = []
                if m.readOnly { f.append(("readOnly", .scalar("true"))) }
                if m.readOnlyMount { f.append(("readOnlyMount", .scalar("true"))) }
                if m.noexec { f.append(("noexec", .scalar("true"))) }
                if m.nodev { f.append(("nodev", .scalar("true"))) }
                if m.nosuid { f.append(("nosuid", .scalar("true"))) }
                f.append(("fsType", .scalar(q(m.fsType))))
                out += FmtForm.entry(key: path, f)
            }
        }
        // The tree's entries in `fmt`'s order (by path): first the folders above the root, each
        // a prefix of the root's path and so before it, in order of depth; then the root and the
        // entries below it, sorted by their path below the root. Every full path is the root's
        // path, `/` and that relative path, and a common prefix ending in `/` (which composes
        // with nothing in Unicode normalization) keeps String's order: sorting the relative
        // paths sorts the full ones, without making a full path per entry to sort
        // (ScanWriterTests.orderIsTheFullPathsOrder).
        // The first name written of each file with several names; the others name it (`link:`).
        var firstName: [ScannedTree.Inode: String] = [:]
        func write(_ path: String, _ e: ScannedTree.Entry, assumed: Bool) {
            if let i = e.inode {
                if let first = firstName[i] {
                    out += FmtForm.entry(key: path, [("link", .scalar(q(first)))])
                    return
                }
                firstName[i] = path
            }
            // In `fmt`'s key order (nodeKeys).
            var fields: [(String, FmtForm.Value)] = []
            if e.type != .file { fields.append(("type", .scalar(e.type.word))) }
            fields.append(("owner", .scalar(q(owner(e.uid)))))
            fields.append(("group", .scalar(q(group(e.gid)))))
            if e.type != .symlink { fields.append(("mode", .scalar("\"\(e.mode.octal)\""))) }
            let flags = flagWords(e.flags)
            if !flags.isEmpty { fields.append(("flags", .list(flags))) }
            if let a = e.access { fields.append(("acl", .entries(a.lines(user: owner, group: group, effective: false).map(q)))) }
            if let d = e.defaultACL { fields.append(("defaultAcl", .entries(d.lines(user: owner, group: group, effective: false).map(q)))) }
            if let t = e.target { fields.append(("target", .scalar(q(t)))) }
            if assumed { fields.append(("assumed", .scalar("true"))) }
            if let why = e.unread { fields.append(("unread", .scalar(why.rawValue))) }
            if let k = e.content { fields.append(("content", .scalar(k.rawValue))) }
            if let c = e.caps { fields.append(("caps", .scalar(q(c.text)))) }
            out += FmtForm.entry(key: path, fields)
        }
        out.append("")
        out.append("tree:")
        if placed || !tree.ancestorsRead {
            // The folders above the new root, as stand-ins, `/` first.
            let comps = base.split(separator: "/")
            for k in 0..<comps.count {
                let up = "/" + comps[0..<k].joined(separator: "/")
                write(up, ScannedTree.Entry(relativePath: up, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)), assumed: true)
            }
        } else {
            // Only the way down to the root was read in each: any other name there is unknown.
            for a in tree.ancestors.sorted(by: { $0.relativePath < $1.relativePath }) {
                var a = a
                if a.unread == nil { a.unread = .outside }
                write(a.relativePath, a, assumed: a.assumed)
            }
        }
        let prefix = base == "/" ? "" : base
        for i in order(tree.entries) {
            let e = tree.entries[i]
            write(e.relativePath.isEmpty ? base : prefix + "/" + e.relativePath, e, assumed: e.assumed)
        }
        out.end()
    }

    /// The entries' indices in the order of their relative paths.
    static func order(_ entries: [ScannedTree.Entry]) -> [Int] {
        var order = Array(entries.indices)
        entries.withUnsafeBufferPointer { e in order.sort { e[$0].relativePath < e[$1].relativePath } }
        return order
    }

    /// Entries as `fmt` writes them (Formatter.emitMapping), so that a scan file is already
    /// formatted: `KEY: {…}` on one line when that fits in 110 columns and holds no ACL list,
    /// else a block mapping (ACL entries one per line); a key too long for YAML's implicit keys
    /// as an explicit `? KEY`.
    enum FmtForm {
        enum Value {
            /// YAML text of a scalar.
            case scalar(String)
            /// A list of scalars (their YAML text), in flow style when it fits.
            case list([String])
            /// ACL entries: always one per line.
            case entries([String])
        }

        static let width = 110

        static func flow(_ v: Value) -> String {
            switch v {
            case .scalar(let s): return s
            case .list(let l), .entries(let l): return "[" + l.joined(separator: ", ") + "]"
            }
        }

        /// The lines of `key` (raw text, quoted here) with its fields, at two spaces.
        static func entry(key: String, _ fields: [(String, Value)]) -> [String] {
            let quoted = YAMLText.quote(key)
            let long = quoted.unicodeScalars.count > YAMLText.implicitKeyLimit - 24
            let hasEntries = fields.contains {
                if case .entries(let l) = $0.1 { return !l.isEmpty }; return false
            }
            if !long && !hasEntries {
                let f = "{" + fields.map { $0.0 + ": " + flow($0.1) }.joined(separator: ", ") + "}"
                if 2 + key.count + f.count + 2 <= width { return ["  " + quoted + ": " + f] }
            }
            var out = long ? ["  ? " + quoted, "  :"] : ["  " + quoted + ":"]
            for (k, v) in fields {
                switch v {
                case .scalar(let s): out.append("    " + k + ": " + s)
                case .list(let l) where 4 + k.count + flow(v).count + 2 <= width || l.isEmpty: out.append("    " + k + ": " + flow(v))
                case .list(let l), .entries(let l):
                    if l.isEmpty { out.append("    " + k + ": []"); continue }
                    out.append("    " + k + ":")
                    for it in l { out.append("      - " + it) }
                }
            }
            return out
        }
    }

    /// Linux flag names for a scanned node.
    static func flagWords(_ f: FileFlags) -> [String] {
        var w: [String] = []
        if f.intersects(.immutable) { w.append("immutable") }
        if f.intersects(.append) { w.append("append") }
        if f.contains(.userNoDump) { w.append("nodump") }
        return w
    }
}

/// `getfacl -R` output: one block per file (`# file:`, `# owner:`, `# group:`, optional
/// `# flags:`, the access entries, `default:` entries), separated by blank lines.
public enum GetfaclDump {
    public struct Block: Sendable {
        public var path: String
        public var line: Int
        public var owner: String
        public var group: String
        public var special: UInt16
        public var access: [POSIXACLLine]
        public var defaults: [POSIXACLLine]
    }

    public struct ParseError: Error, Sendable {
        public var line: Int; public var column: Int; public var message: String
        /// What to do about it, when there is more to say than what `getfacl -R` prints.
        public var help: String? = nil
    }

    public static func parse(_ text: String, user: (String) -> UInt32?, group: (String) -> UInt32?) -> Result<[Block], ParseError> {
        var blocks: [Block] = []
        var cur: Block? = nil
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let n = i + 1
            if line.trimmingSpacesCompat.isEmpty {
                if let c = cur { blocks.append(c); cur = nil }
                continue
            }
            if line.hasPrefix("# file: ") {
                if let e = checkPath(line.dropFirst(8), line: n, column: 9) { return .failure(e) }
                if let c = cur { blocks.append(c) }
                cur = Block(
                    path: NameEscaping.canonical(backslashes(String(line.dropFirst(8)))), line: n, owner: "", group: "", special: 0, access: [], defaults: [])
                continue
            }
            guard cur != nil else { return .failure(ParseError(line: n, column: 1, message: "expected `# file: PATH` to start a block")) }
            if line.hasPrefix("# owner: ") { cur!.owner = String(line.dropFirst(9)); continue }
            if line.hasPrefix("# group: ") { cur!.group = String(line.dropFirst(9)); continue }
            if line.hasPrefix("# flags: ") {
                let f = Array(line.dropFirst(9))
                guard f.count == 3 else { return .failure(ParseError(line: n, column: 10, message: "`# flags:` has three characters like `-s-`")) }
                if f[0] == "s" { cur!.special |= FileMode.setuid }
                if f[1] == "s" { cur!.special |= FileMode.setgid }
                if f[2] == "t" { cur!.special |= FileMode.sticky }
                continue
            }
            if line.hasPrefix("#") { continue }
            switch POSIXACLLine.parse(line, user: user, group: group) {
            case .success(let l?): if l.isDefault { cur!.defaults.append(l) } else { cur!.access.append(l) }
            case .success(nil): break
            case .failure(let e): return .failure(ParseError(line: n, column: e.offset + 1, message: e.message))
            }
        }
        if let c = cur { blocks.append(c) }
        return .success(blocks)
    }

    /// A `# file:` path as getfacl writes it, checked before it is taken apart: a `.` or `..`
    /// component would make nodes of those names (or climb out of the dump's tree), and an
    /// escape that stands for NUL or `/` (`\000`, `\057`), or for no byte at all (`\400` and up),
    /// would put into one name what no name can hold. getfacl never writes any of these for a
    /// tree it walked; each is an error at its column.
    static func checkPath(_ path: Substring, line: Int, column: Int) -> ParseError? {
        let help = "the path should be exactly what `getfacl -R DIR` prints for a file below DIR"
        var col = column
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component == "." || component == ".." {
                return ParseError(
                    line: line, column: col, message: "the path `\(path)` has a `\(component)` component, which names no file of the tree",
                    help: help + " (dump the tree by its own name: `getfacl -R /srv/x`, not through `.` or `..`)")
            }
            let chars = Array(component)
            var i = 0
            while i < chars.count {
                guard chars[i] == "\\" else { i += 1; continue }
                if i + 1 < chars.count, chars[i + 1] == "\\" { i += 2; continue }
                let digits = chars.dropFirst(i + 1).prefix(3)
                if digits.count == 3, digits.allSatisfy({ ("0"..."7").contains($0) }) {
                    let v = digits.reduce(0) { $0 * 8 + Int(String($1))! }
                    let escape = "\\" + String(digits)
                    let why =
                        v > 0o377
                        ? "stands for no byte (octal escapes go up to `\\377`)"
                        : v == 0
                            ? "stands for NUL, which no file name can hold"
                            : v == 0x2f
                                ? "stands for `/`, which separates names and cannot be inside one"
                                : nil
                    if let why {
                        return ParseError(line: line, column: col + i, message: "the escape `\(escape)` in the path `\(path)` \(why)", help: help)
                    }
                    i += 4
                    continue
                }
                i += 1
            }
            col += component.count + 1
        }
        return nil
    }

    /// getfacl writes a backslash in a name as `\\` (and other odd bytes as `\ooo`).
    static func backslashes(_ s: String) -> String {
        guard s.contains("\\\\") else { return s }
        var out = ""
        var it = s.makeIterator()
        while let c = it.next() {
            if c == "\\" {
                guard let d = it.next() else { out.append(c); break }
                out += d == "\\" ? "\\134" : String(c) + String(d)
            } else {
                out.append(c)
            }
        }
        return out
    }
}

extension String {
    var trimmingSpacesCompat: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
