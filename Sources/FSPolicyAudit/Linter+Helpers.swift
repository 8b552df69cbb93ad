// Linter helpers: tree order, the words of findings, service directories, glob matching, shell quoting.
import FSPolicy
import FSPolicyFormat

extension Linter {
    /// -1, 0 or 1: `a` before, with, or after `b` in tree order (component by component, bytes).
    static func treeOrder(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            let x = i.next(), y = j.next()
            switch (x, y) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?):
                if x == y { continue }
                // The separator sorts before every byte of a name.
                if x == 0x2f { return -1 }
                if y == 0x2f { return 1 }
                return x < y ? -1 : 1
            }
        }
    }

    static func kindWord(_ t: NodeType) -> String { t == .dir ? "directory" : t.word }

    static func setidWords(_ mode: FileMode) -> String {
        [mode.isSetuid ? "setuid" : nil, mode.isSetgid ? "setgid" : nil].compactMap { $0 }.joined(separator: "+")
    }

    /// A name no entry of `dir` has, for asking whether a new entry may be created.
    static func probeName(_ world: World, _ dir: NodeID) -> String {
        var name = ".fspolicy-lint-probe"
        while world.child(dir, Substring(name)) != nil { name += "_" }
        return name
    }

    static func aclWord(_ world: World, _ n: NodeID) -> String {
        if world.posixACL(of: n).map({ !$0.isMinimal }) == true { return ", with a POSIX ACL" }
        if let a = world.acl(of: n), !a.isEmpty, !world.mappedACLNodes.contains(n) { return ", with an ACL" }
        return ""
    }

    static func aclFix(_ world: World, _ n: NodeID, _ path: String) -> String {
        if world.posixACL(of: n).map({ !$0.isMinimal }) == true { return " && setfacl -b \(shellQuote(path))" }
        if let a = world.acl(of: n), !a.isEmpty, !world.mappedACLNodes.contains(n) { return " && chmod -N \(shellQuote(path))" }
        return ""
    }

    /// Whether `path` is one of the service directories (`*` is one component).
    static func isService(_ path: String, _ patterns: [[String]]) -> Bool {
        let comps = path.split(separator: "/", omittingEmptySubsequences: true)
        for p in patterns where p.count == comps.count {
            var ok = true
            for (a, b) in zip(p, comps) where !globMatch(a, Substring(b)) { ok = false; break }
            if ok { return true }
        }
        return false
    }

    /// The first pattern `name` matches.
    static func matchingPattern(_ name: String, _ patterns: [String]) -> String? {
        patterns.first { globMatch($0, Substring(name)) }
    }

    /// `*` (any characters) and `?` (one character) against the whole of `s`
    /// (`NameMatcher.globMatch`, the one the sensitive-name patterns use).
    public static func globMatch(_ pattern: String, _ s: Substring) -> Bool {
        NameMatcher.globMatch(pattern, s)
    }

    /// A path (in the escaped spelling of names) as one shell word that names the same bytes.
    /// Plain names stay as they are, others go in single quotes; a name holding escapes (a byte
    /// that is not UTF-8, a control character, a backslash) is written `$'…'` with the same
    /// `\ooo` escapes, which bash, zsh, ksh and POSIX.1-2024 `sh` decode back to the bytes. In
    /// single quotes the escapes would be taken literally and name another file.
    public static func shellQuote(_ s: String) -> String {
        let plain = s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2f || c == 0x2e || c == 0x5f || c == 0x2d || c == 0x2b
                || c == 0x2c || c == 0x3a || c == 0x40
        }
        if plain && !s.isEmpty { return s }
        if s.unicodeScalars.contains(where: { $0 == "\\" || Escaping.isUnsafe($0.value) }) {
            // Back to the bytes, then escaped again: every backslash left is an escape.
            var out = "$'"
            for ch in NameEscaping.escape(NameEscaping.unescape(s)).unicodeScalars {
                if ch == "'" { out += "\\'" } else { out.unicodeScalars.append(ch) }
            }
            return out + "'"
        }
        var out = "'"
        for ch in s { out += ch == "'" ? "'\\''" : String(ch) }
        return out + "'"
    }
}
