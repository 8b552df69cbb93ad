import FSPolicy

/// Writes a scanned tree as a format-v1 policy file (`fspolicy scan -o FILE`).
public enum ScanWriter {
    public static func yaml(_ tree: ScannedTree, at mount: String? = nil) -> String {
        let base = mount ?? tree.root
        var userName: [UID: String] = [0: "root"]
        var groupName: [GID: String] = [0: "root"]
        for u in tree.users { userName[u.uid] = u.name }
        for g in tree.groups { groupName[g.gid] = g.name }
        func owner(_ u: UID) -> String { userName[u] ?? String(u) }
        func group(_ g: GID) -> String { groupName[g] ?? String(g) }
        func q(_ s: String) -> String { JSON.quote(s) }

        var out: [String] = []
        out.append("fspolicy: 1")
        out.append("semantics: linux")
        out.append("description: " + q("scanned from \(tree.root) by fspolicy scan"))
        let groups = tree.groups.filter { $0.gid != 0 }
        if !groups.isEmpty {
            out.append("")
            out.append("groups:")
            for g in groups { out.append("  \(q(g.name)): {gid: \(g.gid)}") }
        }
        let users = tree.users.filter { $0.uid != 0 }
        if !users.isEmpty {
            out.append("")
            out.append("users:")
            for u in users {
                var line = "  \(q(u.name)): {uid: \(u.uid), group: \(q(group(u.gid)))"
                if !u.groups.isEmpty { line += ", groups: [" + u.groups.map { q(group($0)) }.joined(separator: ", ") + "]" }
                out.append(line + "}")
            }
        }
        out.append("")
        out.append("tree:")
        for e in tree.entries {
            let path = e.relativePath.isEmpty ? base : (base == "/" ? "" : base) + "/" + e.relativePath
            var fields: [String] = []
            if e.type != .file { fields.append("type: \(e.type.word)") }
            fields.append("owner: \(q(owner(e.uid)))")
            fields.append("group: \(q(group(e.gid)))")
            if e.type != .symlink { fields.append("mode: \"\(e.mode.octal)\"") }
            let flags = flagWords(e.flags)
            if !flags.isEmpty { fields.append("flags: [" + flags.joined(separator: ", ") + "]") }
            if let t = e.target { fields.append("target: " + q(t)) }
            if let a = e.access { fields.append("acl: [" + a.lines(user: owner, group: group, effective: false).map(q).joined(separator: ", ") + "]") }
            if let d = e.defaultACL { fields.append("defaultAcl: [" + d.lines(user: owner, group: group, effective: false).map(q).joined(separator: ", ") + "]") }
            out.append("  \(q(path)): {" + fields.joined(separator: ", ") + "}")
        }
        return out.joined(separator: "\n") + "\n"
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

    public struct ParseError: Error, Sendable { public var line: Int; public var column: Int; public var message: String }

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
                if let c = cur { blocks.append(c) }
                cur = Block(path: NameEscaping.canonical(String(line.dropFirst(8))), line: n, owner: "", group: "", special: 0, access: [], defaults: [])
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
}

extension String {
    var trimmingSpacesCompat: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
