import FSPolicy

/// A `path:` pattern of a quantified expectation: `*` matches any run of characters within one
/// name (not `/`), `**` as a whole component matches any number of components (none
/// included), `{a,b}` one of the alternatives (expanded first, so alternatives may hold `*` and `/`).
/// Everything else matches itself. A pattern matches the nodes of the tree, directories and
/// files alike.
public struct PathGlob: Sendable, Hashable {
    public let pattern: String
    /// One component list per alternative of the braces.
    let alternatives: [[Component]]

    enum Component: Sendable, Hashable {
        case any  // **
        case name([Piece])  // pieces of one name
    }
    enum Piece: Sendable, Hashable {
        case literal(String)
        case star
    }

    /// Whether `text` is a pattern rather than a plain path.
    public static func isPattern(_ text: String) -> Bool {
        // ASCII text (nearly every path): a search for the two bytes, without Foundation's search.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.contains { $0 == 0x2A || $0 == 0x7B } }
        return text.contains("*") || text.contains("{")
    }

    /// The most paths a pattern's braces may stand for: each group multiplies them, so a few
    /// groups in a line of text would stand for more than could ever be listed.
    public static let maxAlternatives = 1_024

    /// nil and a reason when the pattern is malformed.
    public static func parse(_ text: String) -> Result<PathGlob, GlobError> {
        guard text.hasPrefix("/") else {
            return .failure(GlobError(message: "the pattern `\(text)` is not absolute", help: "patterns start with `/`, e.g. `/srv/**`"))
        }
        let expanded: [String]
        var budget = maxAlternatives
        switch expandBraces(text, budget: &budget) {
        case .success(let e): expanded = e
        case .failure(let f): return .failure(f)
        }
        var alts: [[Component]] = []
        for e in expanded {
            var comps: [Component] = []
            for c in e.split(separator: "/", omittingEmptySubsequences: true) {
                if c == "**" { if comps.last != .any { comps.append(.any) }; continue }
                if c.contains("**") {
                    return .failure(
                        GlobError(
                            message: "`**` must be a whole path component in `\(text)`",
                            help: "write `/a/**/b` or `/a/*b`, not `/a/**b`"))
                }
                if c == ".." || c == "." {
                    return .failure(GlobError(message: "the pattern `\(text)` contains `\(c)`", help: "write the pattern without `.` and `..` components"))
                }
                var pieces: [Piece] = []
                var lit = ""
                for ch in c {
                    if ch == "*" {
                        if !lit.isEmpty { pieces.append(.literal(lit)); lit = "" }
                        if pieces.last != .star { pieces.append(.star) }
                    } else {
                        lit.append(ch)
                    }
                }
                if !lit.isEmpty { pieces.append(.literal(lit)) }
                comps.append(.name(pieces))
            }
            alts.append(comps)
        }
        return .success(PathGlob(pattern: text, alternatives: alts))
    }

    /// The pattern with its braces expanded, in order, without repeats. Every path made uses one
    /// of `budget`; past the last the expansion stops (`maxAlternatives`), after as many steps
    /// as paths allowed, however many groups there are.
    static func expandBraces(_ s: String, budget: inout Int) -> Result<[String], GlobError> {
        let chars = Array(s)
        guard let open = chars.firstIndex(of: "{") else {
            if chars.contains("}") { return .failure(GlobError(message: "unmatched `}` in `\(s)`", help: "alternatives are written `{a,b}`")) }
            budget -= 1
            if budget < 0 {
                return .failure(
                    GlobError(
                        message: "the pattern's braces stand for more than 1,024 paths (see Limits in docs/policy-format.md)",
                        help: "split it into several expectations, or match with `*`"))
            }
            return .success([s])
        }
        var depth = 0
        var close: Int? = nil
        var commas: [Int] = []
        for i in open..<chars.count {
            if chars[i] == "{" {
                depth += 1
            } else if chars[i] == "}" {
                depth -= 1; if depth == 0 { close = i; break }
            } else if chars[i] == "," && depth == 1 {
                commas.append(i)
            }
        }
        guard let end = close else { return .failure(GlobError(message: "unmatched `{` in `\(s)`", help: "alternatives are written `{a,b}`")) }
        let head = String(chars[..<open]), tail = String(chars[(end + 1)...])
        var bounds = [open] + commas + [end]
        var out: [String] = []
        for k in 0..<(bounds.count - 1) {
            let alt = String(chars[(bounds[k] + 1)..<bounds[k + 1]])
            switch expandBraces(head + alt + tail, budget: &budget) {
            case .success(let e): out += e
            case .failure(let f): return .failure(f)
            }
        }
        bounds.removeAll()
        var seen = Set<String>()
        return .success(out.filter { seen.insert($0).inserted })
    }

    static func nameMatches(_ pieces: [Piece], _ name: Substring) -> Bool {
        // Classic wildcard matching with backtracking to the last star.
        let n = Array(name.unicodeScalars)
        var flat: [(Bool, [Unicode.Scalar])] = pieces.map { p in
            switch p {
            case .star: (true, []);
            case .literal(let l): (false, Array(l.unicodeScalars))
            }
        }
        if flat.isEmpty { return n.isEmpty }
        // Match literals greedily between stars.
        var pos = 0
        var i = 0
        let lastIsStar = flat.last!.0
        if !flat[0].0 {
            let l = flat[0].1
            guard n.count >= l.count, Array(n[0..<l.count]) == l else { return false }
            pos = l.count
            i = 1
        }
        if flat.count == 1 { return flat[0].0 || pos == n.count }
        // The final literal (if any) must sit at the end.
        var endLit: [Unicode.Scalar] = []
        if !lastIsStar { endLit = flat.removeLast().1 }
        while i < flat.count {
            if flat[i].0 { i += 1; continue }
            let l = flat[i].1
            var found = -1
            var k = pos
            while k + l.count <= n.count - endLit.count {
                if Array(n[k..<(k + l.count)]) == l { found = k; break }
                k += 1
            }
            if found < 0 { return false }
            pos = found + l.count
            i += 1
        }
        if lastIsStar { return true }
        guard n.count - pos >= endLit.count else { return false }
        return Array(n[(n.count - endLit.count)...]) == endLit
    }

    /// The nodes of `world` the pattern matches, in tree order (parents first, siblings by
    /// the bytes of their names); `type` narrows to one node type.
    public func matches(in world: World, type: NodeType? = nil) -> [NodeID] {
        var out: [NodeID] = []
        // NFA states: (alternative, position) pairs, closed over `**` matching nothing.
        func close(_ s: [(Int, Int)]) -> [(Int, Int)] {
            var r: [(Int, Int)] = []
            for (a, p) in s {
                var q = p
                r.append((a, q))
                while q < alternatives[a].count, alternatives[a][q] == .any { q += 1; r.append((a, q)) }
            }
            return r
        }
        func accepts(_ s: [(Int, Int)]) -> Bool { s.contains { $0.1 == alternatives[$0.0].count } }
        func step(_ s: [(Int, Int)], _ name: String) -> [(Int, Int)] {
            var r: [(Int, Int)] = []
            for (a, p) in s where p < alternatives[a].count {
                switch alternatives[a][p] {
                case .any: r.append((a, p)); r.append((a, p + 1))
                case .name(let pieces): if PathGlob.nameMatches(pieces, Substring(name)) { r.append((a, p + 1)) }
                }
            }
            var seen = Set<Int>()
            return close(r).filter { seen.insert($0.0 << 20 | $0.1).inserted }
        }
        let start = close(alternatives.indices.map { ($0, 0) })
        var stack: [(NodeID, [(Int, Int)])] = [(World.root, start)]
        while let (n, s) = stack.popLast() {
            if accepts(s) && (type.map { world[n].type.isNamed(by: $0) } ?? true) { out.append(n) }
            let kids = world.children(of: n)
            if kids.isEmpty { continue }
            let named = kids.map { (world.name(of: $0), $0) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (name, c) in named.reversed() {
                let t = step(s, name)
                if !t.isEmpty { stack.append((c, t)) }
            }
        }
        return out
    }
}

public struct GlobError: Error, Sendable, Hashable {
    public var message: String
    public var help: String
}
