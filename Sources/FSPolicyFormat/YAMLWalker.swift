import Foundation
import FSPolicy
import Yams

/// A YAML node with its file, for diagnostics. Scalars are read as their source text, so
/// `mode: 0755` means octal 0755 whatever YAML's own typing says. The node comes from Yams
/// or from the fast reader (`FastYAML`), which gives the same nodes for the texts it reads.
struct YNode {
    enum Backing {
        /// Boxed, so that a YNode is two words (Yams' nodes are large; NodeFields holds eleven).
        indirect case yams(Yams.Node, String)
        /// The document (which knows its file) and the node's index in it.
        case fast(FastYAMLDocument, Int32)
    }
    let backing: Backing

    var file: String {
        switch backing {
        case .yams(_, let f): f
        case .fast(let d, _): d.file
        }
    }

    init(node: Yams.Node, file: String) {
        self.backing = .yams(node, file)
    }

    init(fast doc: FastYAMLDocument, _ index: Int32) {
        self.backing = .fast(doc, index)
    }

    /// A short scalar of the fast reader (its text a piece of the file, at most fourteen
    /// bytes) as a key of its style and bytes, without making its string; nil otherwise.
    var shortScalarKey: ScalarKey? {
        if case .fast(let d, let i) = backing { return d.shortScalarKey(i) }
        return nil
    }

    enum Style { case plain, singleQuoted, doubleQuoted, literal, folded }

    var loc: SourceLocation {
        switch backing {
        case .yams(let node, let file):
            let m = node.mark
            return SourceLocation(file: file, line: m?.line ?? 1, column: m?.column ?? 1)
        case .fast(let d, let i):
            let n = d.nodes[Int(i)]
            return SourceLocation(file: file, line: Int(n.line), column: Int(n.column))
        }
    }

    /// The style of a scalar (nil for other nodes).
    var style: Style? {
        switch backing {
        case .yams(let node, let file):
            guard case .scalar(let s) = node else { return nil }
            switch s.style {
            case .singleQuoted: return .singleQuoted
            case .doubleQuoted: return .doubleQuoted
            case .literal: return .literal
            case .folded: return .folded
            default: return .plain
            }
        case .fast(let d, let i):
            let n = d.nodes[Int(i)]
            guard n.kind == 0 else { return nil }
            return n.style == 0 ? .plain : n.style == 1 ? .singleQuoted : .doubleQuoted
        }
    }

    var isNull: Bool {
        if case .fast(let d, let i) = backing {
            let n = d.nodes[Int(i)]
            guard n.kind == 0, n.style == 0, n.b == 0 || n.b == 1 || n.b == 4 else { return false }
        }
        guard style == .plain, let s = scalar else { return false }
        return s.isEmpty || s == "~" || s == "null" || s == "Null" || s == "NULL"
    }

    var scalar: String? {
        switch backing {
        case .yams(let node, let file):
            if case .scalar(let s) = node { return s.string }
            return nil
        case .fast(let d, let i):
            return d.nodes[Int(i)].kind == 0 ? d.scalar(i) : nil
        }
    }

    /// A scalar (`scalar != nil`), without making its string.
    var isScalarNode: Bool {
        switch backing {
        case .yams(let node, _):
            if case .scalar = node { return true }
            return false
        case .fast(let d, let i): return d.nodes[Int(i)].kind == 0
        }
    }

    var isQuoted: Bool { style == .singleQuoted || style == .doubleQuoted }

    var mapping: [(key: YNode, value: YNode)]? {
        switch backing {
        case .yams(let node, let file):
            if case .mapping(let m) = node { return m.map { (YNode(node: $0.key, file: file), YNode(node: $0.value, file: file)) } }
            return nil
        case .fast(let d, let i):
            let n = d.nodes[Int(i)]
            guard n.kind == 1 else { return nil }
            var out: [(key: YNode, value: YNode)] = []
            out.reserveCapacity(Int(n.b))
            var c = Int(n.a)
            for _ in 0..<Int(n.b) {
                out.append((YNode(fast: d, d.children[c]), YNode(fast: d, d.children[c + 1])))
                c += 2
            }
            return out
        }
    }

    var sequence: [YNode]? {
        switch backing {
        case .yams(let node, let file):
            if case .sequence(let s) = node { return s.map { YNode(node: $0, file: file) } }
            return nil
        case .fast(let d, let i):
            let n = d.nodes[Int(i)]
            guard n.kind == 2 else { return nil }
            return (Int(n.a)..<Int(n.a + n.b)).map { YNode(fast: d, d.children[$0]) }
        }
    }

    var isAlias: Bool {
        if case .yams(let node, _) = backing, case .alias = node { return true }
        return false
    }

    var kindWord: String {
        if scalar != nil { return isNull ? "null" : "a scalar" }
        if mapping != nil { return "a mapping" }
        if sequence != nil { return "a list" }
        return "an alias"
    }

    /// The location of character `offset` inside this scalar's text (for pointing at a word).
    func location(atOffset offset: Int) -> SourceLocation {
        var l = loc
        l.column += offset + (isQuoted ? 1 : 0)
        return l
    }
}

/// Typed reads that record a diagnostic and return nil on a mismatch.
struct Reader {
    var diags = DiagnosticBag()
    /// Known keys that an unknown key was taken for ("did you mean"); a missing-key error for
    /// one of them would only repeat the typo.
    var suggested: Set<String> = []

    mutating func string(_ n: YNode, what: @autoclosure () -> String) -> String? {
        guard let s = n.scalar, !n.isNull else {
            diags.error(n.loc, code: "wrong-type", "\(what()) must be a string, found \(n.kindWord)")
            return nil
        }
        return s
    }

    mutating func bool(_ n: YNode, what: @autoclosure () -> String) -> Bool? {
        switch n.scalar {
        case "true", "True", "TRUE", "yes", "on": return true
        case "false", "False", "FALSE", "no", "off": return false
        default:
            diags.error(n.loc, code: "wrong-type", "\(what()) must be `true` or `false`, found `\(n.scalar ?? n.kindWord)`")
            return nil
        }
    }

    mutating func int(_ n: YNode, what: String, min: Int = Int.min, max: Int = Int.max) -> Int? {
        guard let s = n.scalar, let v = Int(s) else {
            diags.error(n.loc, code: "wrong-type", "\(what) must be a whole number, found `\(n.scalar ?? n.kindWord)`",
                        help: what.contains("uid") ? "uids are numbers, e.g. `uid: 501`; the name is the key above it"
                            : what.contains("gid") ? "gids are numbers, e.g. `gid: 701`; the name is the key above it" : nil)
            return nil
        }
        if v < min || v > max {
            // An id's range has a reason worth saying: 4294967295 is (uid_t)-1, "no id" to chown.
            let id = what.contains("uid") || what.contains("gid")
            diags.error(n.loc, code: "out-of-range", "\(what) must be between \(min) and \(max), found \(v)",
                        help: id ? "ids are 32-bit and 4294967295 means \"no id\" (-1) to the kernel: pick another, e.g. one above 1000"
                                 : "give a whole number from \(min) to \(max)")
            return nil
        }
        return v
    }

    mutating func mapping(_ n: YNode, what: @autoclosure () -> String) -> [(key: YNode, value: YNode)]? {
        if n.isNull { return [] }
        guard let m = n.mapping else {
            var help: String? = "write it as `key: value` lines, or `{key: value, …}` on one line"
            if n.sequence != nil { help = "remove the `- ` in front of the entries: \(what()) maps names to their settings" }
            diags.error(n.loc, code: "wrong-type", "\(what()) must be a mapping, found \(n.kindWord)", help: help)
            return nil
        }
        return m
    }

    mutating func list(_ n: YNode, what: @autoclosure () -> String) -> [YNode]? {
        if n.isNull { return [] }
        guard let s = n.sequence else {
            diags.error(n.loc, code: "wrong-type", "\(what()) must be a list, found \(n.kindWord)",
                        help: "write a list as `[a, b]` or one `- item` per line")
            return nil
        }
        return s
    }

    /// A list of strings; a single string is accepted as a one-element list when `allowSingle`.
    mutating func stringList(_ n: YNode, what: @autoclosure () -> String, allowSingle: Bool = false) -> [(String, YNode)]? {
        if allowSingle, let s = n.scalar, !n.isNull { return [(s, n)] }
        guard let items = list(n, what: what()) else { return nil }
        var out: [(String, YNode)] = []
        for it in items { if let s = string(it, what: "an item of \(what())") { out.append((s, it)) } }
        return out
    }

    /// Checks a mapping's keys against the known ones: unknown keys are errors with the nearest
    /// known key as a hint. Returns the values by key.
    mutating func keyed(_ pairs: [(key: YNode, value: YNode)], known: [String], context: String) -> [String: YNode] {
        var out: [String: YNode] = [:]
        suggested = []
        for (k, v) in pairs {
            guard let key = k.scalar else {
                diags.error(k.loc, code: "wrong-type", "keys of \(context) must be strings")
                continue
            }
            if !known.contains(key) {
                let near = nearest(key, in: known)
                if let n = near { suggested.insert(n) }
                diags.error(k.loc, code: "unknown-key", "unknown key `\(key)` in \(context)",
                            help: near.map { "did you mean `\($0)`?" } ?? "known keys: " + known.joined(separator: ", "))
                continue
            }
            out[key] = v
        }
        return out
    }
}

/// Parses YAML text into a node, turning parser errors into diagnostics. A duplicated key is
/// reported and its second entry set aside, so the rest of the file is still checked.
func parseYAML(_ text: String, file: String, diags: inout DiagnosticBag, fast: Bool = true) -> YNode? {
    if fast, FastYAML.enabled, let doc = FastYAML.read(text, file: file) {
        // Every duplicated key in one reading (the full parser below needs one reading each).
        for d in doc.duplicates {
            let n = doc.nodes[Int(d.key)]
            diags.error(SourceLocation(file: file, line: Int(n.line), column: Int(n.column)), code: "duplicate-key",
                        "`\(doc.scalar(d.key))` appears twice in the same mapping (first at line \(doc.nodes[Int(d.first)].line))",
                        help: "each key may appear once; merge the two entries")
        }
        return YNode(fast: doc, doc.root)
    }
    var current = text
    for _ in 0..<50 {
        switch parseOnce(current, original: text, file: file, diags: &diags) {
        case .node(let n): return n
        case .failed: return nil
        case .retry(let t): current = t
        }
    }
    return nil
}

/// The first character YAML does not allow in a document (C0 controls other than tab, line
/// feed and carriage return, DEL, C1 controls other than U+0085, surrogates, U+FFFE, U+FFFF),
/// with its line and column and its code point.
func firstNonPrintable(in text: String) -> (Int, Int, String?) {
    var line = 1, col = 1
    for u in text.unicodeScalars {
        let v = u.value
        let printable = v == 0x09 || v == 0x0A || v == 0x0D || (0x20...0x7E).contains(v) || v == 0x85
            || (0xA0...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v) || v >= 0x10000
        if !printable {
            let hex = String(v, radix: 16, uppercase: true)
            return (line, col, "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex)
        }
        if v == 0x0A { line += 1; col = 1 } else { col += 1 }
    }
    return (1, 1, nil)
}

/// Limits on what a YAML document may expand to.
enum YAMLLimits {
    /// Nodes a document may have once every alias is expanded: 10,000 plus twice its size in
    /// bytes (a document without aliases never reaches it).
    static func expandedNodes(_ text: String) -> Int { 10_000 + 2 * text.utf8.count }
}

/// Nodes of `node` with every alias expanded, or nil as soon as there are more than `limit`.
func expandedNodeCount(_ node: Yams.Node, limit: Int) -> Int? {
    var count = 0
    var stack: [Yams.Node] = [node]
    while let n = stack.popLast() {
        count += 1
        if count > limit { return nil }
        switch n {
        case .mapping(let m): for (k, v) in m { stack.append(k); stack.append(v) }
        case .sequence(let q): stack.append(contentsOf: q)
        default: break
        }
    }
    return count
}

/// True when the document uses an alias: an alias is composed as a copy of its anchor's node,
/// so the same source position appears twice for nodes of one kind.
func usesAlias(_ n: YNode) -> Bool {
    // The fast reader reads no aliases.
    guard case .yams(let node, _) = n.backing else { return false }
    struct Key: Hashable { var kind: UInt8; var line: Int; var column: Int }
    var seen = Set<Key>()
    var stack: [Yams.Node] = [node]
    while let n = stack.popLast() {
        let kind: UInt8
        switch n {
        case .mapping(let m): kind = 1; for (k, v) in m { stack.append(k); stack.append(v) }
        case .sequence(let q): kind = 2; stack.append(contentsOf: q)
        case .scalar: kind = 3
        case .alias: return true
        }
        if let m = n.mark, !seen.insert(Key(kind: kind, line: m.line, column: m.column)).inserted { return true }
    }
    return false
}

/// Line and column of the first `*` that starts an alias (after a space, `[`, `{`, `,` or `:`).
func firstAlias(in text: String) -> (Int, Int) {
    var line = 1, col = 1
    var prev: UInt8 = 0x20
    for b in text.utf8 {
        if b == 0x2A && (prev == 0x20 || prev == 0x5B || prev == 0x7B || prev == 0x2C || prev == 0x3A || prev == 0x0A) { return (line, col) }
        if b == 0x0A { line += 1; col = 1 } else if b & 0xC0 != 0x80 { col += 1 }
        prev = b
    }
    return (1, 1)
}

private enum ParseStep { case node(YNode), failed, retry(String) }

private func parseOnce(_ text: String, original: String, file: String, diags: inout DiagnosticBag) -> ParseStep {
    do {
        guard let node = try Yams.compose(yaml: text, .basic) else {
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "empty-file", "the file is empty",
                        help: "a policy file starts with `fspolicy: 1`")
            return .failed
        }
        // Aliases share their anchor's node; walking them multiplies it. A document whose
        // aliases expand it beyond the limit is refused before anything walks it.
        if text.utf8.contains(0x2A), expandedNodeCount(node, limit: YAMLLimits.expandedNodes(text)) == nil {
            let (line, col) = firstAlias(in: text)
            diags.error(SourceLocation(file: file, line: line, column: col), code: "alias-limit",
                        "YAML aliases expand the document beyond the limit of \(YAMLLimits.expandedNodes(text)) nodes",
                        help: "the limit is 10,000 plus twice the file's size in bytes; write the entries out instead of nesting aliases")
            return .failed
        }
        return .node(YNode(node: node, file: file))
    } catch let e as YamlError {
        switch e {
        case .scanner(let ctx, let problem, let mark, _), .parser(let ctx, let problem, let mark, _), .composer(let ctx, let problem, let mark, _):
            if let tab = firstTabIndent(text) {
                diags.error(SourceLocation(file: file, line: tab.0, column: tab.1), code: "tab-indent",
                            "a tab is used for indentation; YAML only allows spaces", help: "indent with spaces (two per level)")
                return .failed
            }
            var help = "check the indentation and quoting around this line"
            var problem = problem
            var (line, column) = (mark.line, mark.column)
            // The end of the text, for an error libyaml places past it (a file cut short
            // without its last line break is reported on a line that does not exist).
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let lastLine = text.hasSuffix("\n") ? lines.count - 1 : lines.count
            if line > max(lastLine, 1) {
                line = max(lastLine, 1)
                column = (lines.count >= line ? lines[line - 1].count : 0) + 1
            }
            if problem.contains("Maximum nesting level reached") {
                // libyaml's words name its own function; say what it means.
                problem = "collections nest too deeply here (the YAML parser stops at about 1,000 levels)"
                help = "a policy file nests a few levels; this looks like damaged or generated text"
            } else if problem.contains("but found another document") {
                problem = "a second YAML document starts here (`---`)"
                help = "a policy file is one document: remove this line and what follows, or move it to a file of its own and `import:` it"
            } else if column > 1024 && (problem.contains("could not find expected ':'") || problem.contains("mapping values are not allowed")
                                        || problem.contains("did not find expected key")) {
                help = "a key longer than 1,024 characters must be written explicitly: `? \"/the/long/path\"` on one line, `: {…}` on the next (as `fspolicy scan` writes them)"
            } else if problem.contains("did not find expected key") || problem.contains("mapping values are not allowed") {
                help = "the keys of one mapping must start in the same column; a value with `: ` in it needs quotes"
            } else if problem.contains("expected ',' or '}'") || problem.contains("expected ',' or ']'") || problem.contains("end of stream") {
                help = "a `{` or `[` is not closed" + (ctx.map { " (it opens at line \($0.mark.line), column \($0.mark.column))" } ?? "")
            } else if problem.contains("found character that cannot start any token") {
                help = "quote the value: characters like `@`, `` ` `` and `%` cannot start a plain YAML value"
            }
            diags.error(SourceLocation(file: file, line: line, column: column), code: "yaml-syntax",
                        "YAML syntax error: \(problem)", help: help)
            return .failed
        case .duplicatedKeysInMapping(let dups, let ctx):
            // The parser names a mapping's duplicates in order; for keys that are lists or mappings
            // it names none usable, and its position for them depends on its hashing.
            let key = dups.first ?? "?"
            if dups.isEmpty || dups.contains("<uncovertable>") {
                // Two equal keys that are lists or mappings: the parser's position for them
                // depends on its hashing, so the report names the first key written that way.
                let at = firstComplexKey(in: text)
                diags.error(SourceLocation(file: file, line: at.0, column: at.1), code: "duplicate-key",
                            "a mapping has two equal keys that are lists or mappings",
                            help: "keys in a policy file are plain names and paths; each may appear once")
                return .failed
            }
            let (loc, block) = secondOccurrence(of: key, in: text, after: ctx.mark, file: file)
            diags.error(loc, code: "duplicate-key", "`\(key)` appears twice in the same mapping (first at line \(ctx.mark.line))",
                        help: "each key may appear once; merge the two entries")
            guard let range = block else { return .failed }
            // Set the second entry aside (blank its lines, keeping line numbers) and parse again.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for i in range where i < lines.count { lines[i] = "" }
            return .retry(lines.joined(separator: "\n"))
        case .reader(let problem, _, _, _):
            // Point at the character YAML refuses (libyaml only says that there is one).
            let (line, column, what) = firstNonPrintable(in: text)
            diags.error(SourceLocation(file: file, line: line, column: column), code: "yaml-syntax", "cannot read the file: \(problem)" + (what.map { " (\($0))" } ?? ""),
                        help: "policy files are UTF-8 text; write a control character in a name as `\\ooo` (e.g. `\\011` for a tab)")
            return .failed
        default:
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "yaml-syntax", "YAML error: \(e)")
            return .failed
        }
    } catch {
        diags.error(SourceLocation(file: file, line: 1, column: 1), code: "yaml-syntax", "YAML error: \(error)")
        return .failed
    }
}

/// Where the first key that may be a list or a mapping is written: an explicit `? ` key, or a
/// line that starts with `[` or `{` (line, column); (1, 1) when there is none.
private func firstComplexKey(in text: String) -> (Int, Int) {
    for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let indent = line.prefix { $0 == " " || $0 == "-" }.count
        let rest = line.dropFirst(indent)
        if rest == "?" || rest.hasPrefix("? ") || rest.hasPrefix("[") || rest.hasPrefix("{") { return (i + 1, indent + 1) }
    }
    return (1, 1)
}

/// The first line indented with a tab: (line, column of the tab).
private func firstTabIndent(_ text: String) -> (Int, Int)? {
    for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        var col = 1
        for ch in line {
            if ch == "\t" { return (i + 1, col) }
            if ch != " " { break }
            col += 1
        }
    }
    return nil
}

/// The quoted scalar at the start of `text` (its quotes included), or nil when it is not closed.
private func quotedKey(_ text: Substring, quote: Character) -> String? {
    var i = text.index(after: text.startIndex)
    while i < text.endIndex {
        let c = text[i]
        if quote == "\"" && c == "\\" {
            i = text.index(after: i)
            if i < text.endIndex { i = text.index(after: i) }
            continue
        }
        if c == quote {
            let n = text.index(after: i)
            // '' is a quote inside a single-quoted scalar.
            if quote == "'" && n < text.endIndex && text[n] == "'" { i = text.index(after: n); continue }
            return String(text[...i])
        }
        i = text.index(after: i)
    }
    return nil
}

/// Where a duplicated key appears again (the parser only names the first), and the 0-based
/// line range of that second entry (its line and the lines indented below it).
private func secondOccurrence(of key: String, in text: String, after mark: Mark, file: String) -> (SourceLocation, ClosedRange<Int>?) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let first = mark.line - 1
    // In a flow mapping (`{a: 1, a: 2}`) the second key follows the first one, after a `,`.
    if first < lines.count {
        let chars = Array(lines[first])
        let col = mark.column - 1
        if col <= chars.count, chars[..<col].contains("{") {
            var line = first, start = col + 1
            while line < lines.count {
                let cs = line == first ? chars : Array(lines[line])
                var i = line == first ? start : 0
                while i < cs.count {
                    if cs[i] == "," || (line != first && i == 0) {
                        var j = cs[i] == "," ? i + 1 : i
                        while j < cs.count && cs[j] == " " { j += 1 }
                        for cand in [key, "\"" + key + "\"", "'" + key + "'"] {
                            let c = Array(cand)
                            if j + c.count <= cs.count && Array(cs[j..<(j + c.count)]) == c {
                                var k = j + c.count
                                while k < cs.count && cs[k] == " " { k += 1 }
                                if k < cs.count && cs[k] == ":" { return (SourceLocation(file: file, line: line + 1, column: j + 1), nil) }
                            }
                        }
                    }
                    i += 1
                }
                line += 1
                start = 0
                if line > first + 200 { break }
            }
        }
    }
    let firstIndent = first < lines.count ? lines[first].prefix { $0 == " " || $0 == "-" }.count : 0
    for (i, line) in lines.enumerated() where i > first {
        let indent = line.prefix { $0 == " " || $0 == "-" }.count
        let trimmed = line.dropFirst(indent)
        guard indent == firstIndent else { continue }
        // The key as written: plain or quoted as the text, or quoted with escapes that decode to
        // it (`"/srv/evil\u202Etxt.exe"`).
        var written = [key + ":", "\"" + key + "\":", "'" + key + "':"].first { trimmed.hasPrefix($0) }
        if written == nil, let q = trimmed.first, q == "\"" || q == "'", let w = quotedKey(trimmed, quote: q),
           (try? Yams.load(yaml: w)) as? String == key, trimmed.dropFirst(w.count).hasPrefix(":") {
            written = w + ":"
        }
        if written != nil {
            var end = i
            while end + 1 < lines.count {
                let next = lines[end + 1]
                let nIndent = next.prefix { $0 == " " }.count
                if next.trimmingCharacters(in: .whitespaces).isEmpty || nIndent > indent { end += 1 } else { break }
            }
            return (SourceLocation(file: file, line: i + 1, column: indent + 1), i...end)
        }
    }
    return (SourceLocation(file: file, line: mark.line, column: mark.column), nil)
}

/// Limits by design (docs/policy-format.md, "Limits").
public enum Limits {
    /// Bytes in one name (a path component): NAME_MAX on Linux and macOS.
    public static let nameBytes = 255
    /// Files in one chain of nested `import: - policy:` entries (the importing file included).
    /// Each level is loaded by a nested call, so the chain is bounded well below what the
    /// stack holds (about 250 levels in a debug build, 1,000 in a release build).
    public static let importDepth = 64
}

/// What a user or group name may be: text an ACE can name and a terminal can show.
public enum PrincipalName {
    /// Why `name` cannot be a user or group name, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if numericID(name) != nil || name == noIDText { return "a name made of digits would read as an id" }
        for u in name.unicodeScalars {
            // ASCII first, without Unicode's property tables: the same answers as the test below.
            let v = u.value
            if v < 0x80 {
                if v == 0x3A || v == 0x2C || v == 0x20 || (0x09...0x0D).contains(v) {
                    return "ACE text could not name it (`:`, `,` and spaces separate the parts of an ACE)"
                }
                if v < 0x20 || v == 0x7F { return "it holds a control character" }
                continue
            }
            if u == ":" || u == "," || u == " " || u == "\t" || u.properties.isWhitespace {
                return "ACE text could not name it (`:`, `,` and spaces separate the parts of an ACE)"
            }
            if Escaping.isUnsafe(u.value) { return "it holds a control character" }
        }
        return nil
    }
}
