import Foundation
import FSPolicy
import Yams

/// A YAML node with its file, for diagnostics. Scalars are read as their source text, so
/// `mode: 0755` means octal 0755 whatever YAML's own typing says.
struct YNode {
    let node: Yams.Node
    let file: String

    var loc: SourceLocation {
        let m = node.mark
        return SourceLocation(file: file, line: m?.line ?? 1, column: m?.column ?? 1)
    }

    var isNull: Bool {
        if case .scalar(let s) = node { return s.style == .plain && ["", "~", "null", "Null", "NULL"].contains(s.string) }
        return false
    }

    var scalar: String? {
        if case .scalar(let s) = node { return s.string }
        return nil
    }

    var isQuoted: Bool {
        if case .scalar(let s) = node { return s.style == .singleQuoted || s.style == .doubleQuoted }
        return false
    }

    var mapping: [(key: YNode, value: YNode)]? {
        if case .mapping(let m) = node { return m.map { (YNode(node: $0.key, file: file), YNode(node: $0.value, file: file)) } }
        return nil
    }

    var sequence: [YNode]? {
        if case .sequence(let s) = node { return s.map { YNode(node: $0, file: file) } }
        return nil
    }

    var kindWord: String {
        switch node {
        case .scalar: isNull ? "null" : "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
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

    mutating func string(_ n: YNode, what: String) -> String? {
        guard let s = n.scalar, !n.isNull else {
            diags.error(n.loc, code: "wrong-type", "\(what) must be a string, found \(n.kindWord)")
            return nil
        }
        return s
    }

    mutating func bool(_ n: YNode, what: String) -> Bool? {
        switch n.scalar {
        case "true", "True", "TRUE", "yes", "on": return true
        case "false", "False", "FALSE", "no", "off": return false
        default:
            diags.error(n.loc, code: "wrong-type", "\(what) must be `true` or `false`, found `\(n.scalar ?? n.kindWord)`")
            return nil
        }
    }

    mutating func int(_ n: YNode, what: String, min: Int = Int.min, max: Int = Int.max) -> Int? {
        guard let s = n.scalar, let v = Int(s), !n.isQuoted || true else {
            diags.error(n.loc, code: "wrong-type", "\(what) must be a whole number, found `\(n.scalar ?? n.kindWord)`")
            return nil
        }
        if v < min || v > max {
            diags.error(n.loc, code: "out-of-range", "\(what) must be between \(min) and \(max), found \(v)")
            return nil
        }
        return v
    }

    mutating func mapping(_ n: YNode, what: String) -> [(key: YNode, value: YNode)]? {
        if n.isNull { return [] }
        guard let m = n.mapping else {
            diags.error(n.loc, code: "wrong-type", "\(what) must be a mapping, found \(n.kindWord)")
            return nil
        }
        return m
    }

    mutating func list(_ n: YNode, what: String) -> [YNode]? {
        if n.isNull { return [] }
        guard let s = n.sequence else {
            diags.error(n.loc, code: "wrong-type", "\(what) must be a list, found \(n.kindWord)",
                        help: "write a list as `[a, b]` or one `- item` per line")
            return nil
        }
        return s
    }

    /// A list of strings; a single string is accepted as a one-element list when `allowSingle`.
    mutating func stringList(_ n: YNode, what: String, allowSingle: Bool = false) -> [(String, YNode)]? {
        if allowSingle, let s = n.scalar, !n.isNull { return [(s, n)] }
        guard let items = list(n, what: what) else { return nil }
        var out: [(String, YNode)] = []
        for it in items { if let s = string(it, what: "an item of \(what)") { out.append((s, it)) } }
        return out
    }

    /// Checks a mapping's keys against the known ones: unknown keys are errors with the nearest
    /// known key as a hint. Returns the values by key.
    mutating func keyed(_ pairs: [(key: YNode, value: YNode)], known: [String], context: String) -> [String: YNode] {
        var out: [String: YNode] = [:]
        for (k, v) in pairs {
            guard let key = k.scalar else {
                diags.error(k.loc, code: "wrong-type", "keys of \(context) must be strings")
                continue
            }
            if !known.contains(key) {
                let near = nearest(key, in: known)
                diags.error(k.loc, code: "unknown-key", "unknown key `\(key)` in \(context)",
                            help: near.map { "did you mean `\($0)`?" } ?? "known keys: " + known.joined(separator: ", "))
                continue
            }
            out[key] = v
        }
        return out
    }
}

/// Parses YAML text into a node, turning parser errors into diagnostics.
func parseYAML(_ text: String, file: String, diags: inout DiagnosticBag) -> YNode? {
    do {
        guard let node = try Yams.compose(yaml: text) else {
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "empty-file", "the file is empty",
                        help: "a policy file starts with `fspolicy: 1`")
            return nil
        }
        return YNode(node: node, file: file)
    } catch let e as YamlError {
        switch e {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            diags.error(SourceLocation(file: file, line: mark.line, column: mark.column), code: "yaml-syntax",
                        "YAML syntax error: \(problem)", help: "check the indentation and quoting around this line")
        case .duplicatedKeysInMapping(let dups, let ctx):
            let key = dups.first ?? "?"
            let loc = secondOccurrence(of: key, in: text, after: ctx.mark, file: file)
            diags.error(loc, code: "duplicate-key", "duplicate key `\(key)`",
                        help: "each key may appear once in a mapping; merge the two entries")
        case .reader(let problem, _, _, _):
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "yaml-syntax", "cannot read the file: \(problem)",
                        help: "policy files are UTF-8 text")
        default:
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "yaml-syntax", "YAML error: \(e)")
        }
        return nil
    } catch {
        diags.error(SourceLocation(file: file, line: 1, column: 1), code: "yaml-syntax", "YAML error: \(error)")
        return nil
    }
}

/// Where a duplicated key appears again (the parser only names the first).
private func secondOccurrence(of key: String, in text: String, after mark: Mark, file: String) -> SourceLocation {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let first = mark.line - 1
    var seen = false
    for (i, line) in lines.enumerated() where i >= first {
        let trimmed = line.drop { $0 == " " || $0 == "-" }
        for cand in [key + ":", "\"" + key + "\":", "'" + key + "':"] where trimmed.hasPrefix(cand) {
            if seen || i > first {
                return SourceLocation(file: file, line: i + 1, column: line.count - trimmed.count + 1)
            }
            seen = true
        }
        // flow mappings: look for the key inside braces
        if i == first, let r = line.range(of: key + ":", options: [], range: line.index(line.startIndex, offsetBy: min(max(mark.column - 1 + key.count, 0), line.count))..<line.endIndex) {
            return SourceLocation(file: file, line: i + 1, column: line.distance(from: line.startIndex, to: r.lowerBound) + 1)
        }
    }
    return SourceLocation(file: file, line: mark.line, column: mark.column)
}
