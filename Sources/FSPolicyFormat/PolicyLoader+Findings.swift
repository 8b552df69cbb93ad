import FSPolicy
import Foundation
import FSPolicyYAML

/// The `findings:` section of a policy file: how `fspolicy lint` and `check --findings` treat
/// the catalog of docs/findings.md for this file. The loader checks its shape; the rule names
/// are checked against the catalog by the commands that run it (FSPolicyAudit owns the catalog).
public struct FindingsConfig: Sendable {
    /// One rule's setting: `off`, or a severity word.
    public struct RuleSetting: Sendable {
        public var rule: String
        public var value: String
        public var location: SourceLocation
    }
    /// One finding on one path that a reviewer accepted, with why.
    public struct Suppression: Sendable {
        public var rule: String
        public var ruleLocation: SourceLocation
        public var path: String
        public var reason: String
        public var location: SourceLocation
    }
    public var location: SourceLocation
    public var rules: [RuleSetting] = []
    /// Name patterns added to the default sensitive names.
    public var sensitive: [String] = []
    /// Service directory patterns added to the default ones.
    public var serviceDirectories: [String] = []
    public var suppressions: [Suppression] = []

    public init(location: SourceLocation) { self.location = location }

    /// The words a rule setting may take.
    public static let settingWords = ["off", "note", "warning", "error"]
}

let findingsKeys = ["rules", "sensitive", "serviceDirectories", "suppress"]
let suppressKeys = ["rule", "path", "reason"]

extension Compiler {
    mutating func readFindings(_ n: YNode) {
        guard let m = r.mapping(n, what: "`findings`") else { return }
        var cfg = FindingsConfig(location: n.loc)
        let k = r.keyed(m, known: findingsKeys, context: "`findings`")
        if let rv = k["rules"], let rules = r.mapping(rv, what: "`findings.rules`") {
            for (key, value) in rules {
                guard let name = r.string(key, what: "a rule in `findings.rules`"),
                    let w = r.string(value, what: "the setting of rule `\(name)`")
                else { continue }
                // YAML 1.1 reads a bare `off` as false; the loader keeps the source text.
                guard FindingsConfig.settingWords.contains(w) else {
                    r.diags.error(
                        value.loc, code: "bad-value", "unknown setting `\(w)` for rule `\(name)`",
                        help: "use `off`, `note`, `warning` or `error`" + (nearest(w, in: FindingsConfig.settingWords).map { " (did you mean `\($0)`?)" } ?? "")
                    )
                    continue
                }
                cfg.rules.append(.init(rule: name, value: w, location: key.loc))
            }
        }
        if let s = k["sensitive"], let items = r.stringList(s, what: "`findings.sensitive`") {
            for (pat, node) in items {
                if pat.isEmpty || pat.contains("/") {
                    r.diags.error(
                        node.loc, code: "bad-value", "`\(pat)` is not a file name pattern",
                        help: "a pattern matches the last component of a path: `*.secret`, `credentials.json`")
                } else {
                    cfg.sensitive.append(pat)
                }
            }
        }
        if let s = k["serviceDirectories"], let items = r.stringList(s, what: "`findings.serviceDirectories`") {
            for (pat, node) in items {
                if !pat.hasPrefix("/") {
                    r.diags.error(
                        node.loc, code: "bad-path", "`serviceDirectories` entries are absolute paths, found `\(pat)`",
                        help: "e.g. `/srv/*` (`*` is one path component)")
                } else {
                    cfg.serviceDirectories.append(pat)
                }
            }
        }
        if let s = k["suppress"], let items = r.list(s, what: "`findings.suppress`") {
            for item in items {
                guard let im = r.mapping(item, what: "a suppression") else { continue }
                let sk = r.keyed(im, known: suppressKeys, context: "a suppression")
                var missing: [String] = []
                for key in suppressKeys where sk[key] == nil { missing.append(key) }
                if !missing.isEmpty {
                    r.diags.error(
                        item.loc, code: "missing-key", "a suppression needs `\(missing.joined(separator: "`, `"))`",
                        help: "write `{rule: FSL001, path: /srv/drop, reason: \"why this is accepted\"}`: every suppression says why")
                    continue
                }
                guard let rule = r.string(sk["rule"]!, what: "`rule`"), let path = r.string(sk["path"]!, what: "`path`"),
                    let reason = r.string(sk["reason"]!, what: "`reason`")
                else { continue }
                if reason.trimmingCharacters(in: .whitespaces).isEmpty {
                    r.diags.error(
                        sk["reason"]!.loc, code: "bad-value", "the `reason` of a suppression is empty",
                        help: "say why the finding is accepted, so that the next reviewer can judge it")
                    continue
                }
                if !path.hasPrefix("/") {
                    r.diags.error(
                        sk["path"]!.loc, code: "bad-path", "the `path` of a suppression must be absolute, found `\(path)`",
                        help: "write the path the finding reports, e.g. `/srv/drop`")
                    continue
                }
                cfg.suppressions.append(.init(rule: rule, ruleLocation: sk["rule"]!.loc, path: path, reason: reason, location: item.loc))
            }
        }
        p.findings = cfg
    }
}
