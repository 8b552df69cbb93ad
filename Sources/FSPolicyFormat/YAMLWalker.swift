import Foundation
import FSPolicy
import FSPolicyYAML

extension YNode {
    var loc: SourceLocation { SourceLocation(file: file, line: line, column: column) }

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
            diags.error(
                n.loc, code: "wrong-type", "\(what) must be a whole number, found `\(n.scalar ?? n.kindWord)`",
                help: what.contains("uid")
                    ? "uids are numbers, e.g. `uid: 501`; the name is the key above it"
                    : what.contains("gid") ? "gids are numbers, e.g. `gid: 701`; the name is the key above it" : nil)
            return nil
        }
        if v < min || v > max {
            // An id's range has a reason worth saying: 4294967295 is (uid_t)-1, "no id" to chown.
            let id = what.contains("uid") || what.contains("gid")
            diags.error(
                n.loc, code: "out-of-range", "\(what) must be between \(min) and \(max), found \(v)",
                help: id
                    ? "ids are 32-bit and 4294967295 means \"no id\" (-1) to the kernel: pick another, e.g. one above 1000"
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
            diags.error(
                n.loc, code: "wrong-type", "\(what()) must be a list, found \(n.kindWord)",
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
                diags.error(
                    k.loc, code: "unknown-key", "unknown key `\(key)` in \(context)",
                    help: near.map { "did you mean `\($0)`?" } ?? "known keys: " + known.joined(separator: ", "))
                continue
            }
            out[key] = v
        }
        return out
    }
}

/// Reads YAML text into its root node (`FastYAML`), turning a refusal into a diagnostic. A
/// duplicated key is reported and its second entry set aside, so the rest of the file is
/// still checked.
func parseYAML(_ text: String, file: String, diags: inout DiagnosticBag) -> YNode? {
    switch FastYAML.parse(text, file: file) {
    case .success(let doc):
        for d in doc.duplicates {
            let n = doc.nodes[Int(d.key)]
            diags.error(
                SourceLocation(file: file, line: Int(n.line), column: Int(n.column)), code: "duplicate-key",
                "`\(doc.scalar(d.key))` appears twice in the same mapping (first at line \(doc.nodes[Int(d.first)].line))",
                help: "each key may appear once; merge the two entries")
        }
        return YNode(fast: doc, doc.root)
    case .failure(let r):
        diags.error(SourceLocation(file: file, line: r.line, column: r.column), code: r.code, r.message, help: r.help)
        return nil
    }
}

/// True when the document uses an alias (`*name`).
func usesAlias(_ n: YNode) -> Bool { n.doc.aliases > 0 }
