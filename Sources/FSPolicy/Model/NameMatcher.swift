// File name patterns, compiled once: lint's sensitive names and the names `scan` reads.

/// File name patterns (`*` any characters, `?` one character), compiled once. A pattern with
/// no wildcard is compared byte for byte and `*` followed by such a literal is a suffix test on
/// the bytes; any other pattern is matched as a glob (`globMatch`). A name that only literal
/// and suffix patterns are asked about is matched without allocating.
public struct NameMatcher: Sendable {
    let patterns: [(text: String, bytes: [UInt8], literal: Bool, suffix: [UInt8]?)]

    public init(_ list: [String]) {
        patterns = list.map { p in
            let b = Array(p.utf8)
            let literal = !b.contains(0x2a) && !b.contains(0x3f)
            // `*` followed by a literal: a suffix test.
            let suffix: [UInt8]? = b.first == 0x2a && !b.dropFirst().contains(0x2a) && !b.contains(0x3f) ? Array(b.dropFirst()) : nil
            return (p, b, literal, suffix)
        }
    }

    /// The index of the first pattern the file name (its bytes, as on disk) matches.
    public func firstMatch<C: Collection<UInt8>>(_ name: C) -> Int? {
        for (i, p) in patterns.enumerated() {
            if p.literal {
                if name.elementsEqual(p.bytes) { return i }
            } else if let s = p.suffix {
                if name.count >= s.count && name.suffix(s.count).elementsEqual(s) { return i }
            } else if NameMatcher.globMatch(p.text, Substring(String(decoding: name, as: UTF8.self))) {
                return i
            }
        }
        return nil
    }

    /// The first pattern `name` matches.
    public func match(_ name: String) -> String? {
        var n = name
        return n.withUTF8 { firstMatch($0) }.map { patterns[$0].text }
    }

    /// `*` (any characters) and `?` (one character) against the whole of `s`.
    public static func globMatch(_ pattern: String, _ s: Substring) -> Bool {
        let p = Array(pattern), t = Array(s)
        var i = 0, j = 0, star = -1, mark = 0
        while j < t.count {
            if i < p.count && (p[i] == "?" || p[i] == t[j]) {
                i += 1; j += 1
            } else if i < p.count && p[i] == "*" {
                star = i; mark = j; i += 1
            } else if star >= 0 {
                i = star + 1; mark += 1; j = mark
            } else {
                return false
            }
        }
        while i < p.count && p[i] == "*" { i += 1 }
        return i == p.count
    }
}
