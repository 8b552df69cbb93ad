import FSPolicy
import FSPolicyFormat

/// One finding of one input file, with where the file declares its node.
package struct LintItem {
    package var file: String
    package var semantics: Semantics
    package var finding: LintFinding
    package var location: SourceLocation?
    /// For a suppressed finding: the reason the policy file gives.
    package var suppressedBecause: String? = nil

    /// The stable key a baseline matches on: rule, path, and what tells findings of one rule on
    /// one path apart (FNV-1a, 64 bits, hex). The file name is not part of it, so a renamed or
    /// moved policy file keeps its baseline.
    package var fingerprint: String {
        let h = FNV1a.hash((finding.code + "\u{0}" + finding.path + "\u{0}" + finding.detail).utf8)
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    package struct Result {
        package var semantics: Semantics
        package var items: [LintItem] = []
        package var suppressed: [LintItem] = []
        /// Errors in the `findings:` section (unknown rule names): invalid input.
        package var errors: [Diagnostic] = []
    }

    /// The findings of a loaded policy (its tree after its steps, and its apps) under its rule
    /// set or `semantics`, configured by its `findings:` section.
    /// The error for a rule name the catalog (`LintCatalog`) does not have.
    package static func unknownRule(_ name: String, _ loc: SourceLocation) -> Diagnostic {
        let words = LintCatalog.rules.flatMap { [$0.code, $0.name] }
        return Diagnostic(
            loc, .error, code: "unknown-rule", "unknown lint rule `\(name)`",
            help: (nearest(name, in: words).map { "did you mean `\($0)`? " } ?? "") + "the rules are listed in docs/findings.md (codes FSL001…, or their names)"
        )
    }

    /// The rule names of a `findings:` section (settings and suppressions) that the catalog does
    /// not have, in file order: what `validate` reports (lint and check --findings report the
    /// same errors while collecting).
    package static func unknownRules(_ p: Policy) -> [Diagnostic] {
        guard let cfg = p.findings else { return [] }
        var out: [Diagnostic] = []
        for s in cfg.rules where LintCatalog.rule(named: s.rule) == nil { out.append(unknownRule(s.rule, s.location)) }
        for s in cfg.suppressions where LintCatalog.rule(named: s.rule) == nil { out.append(unknownRule(s.rule, s.ruleLocation)) }
        return out
    }

    package static func collect(_ p: Policy, file: String, semantics: Semantics?) -> Result {
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        let world = ev.world(after: ev.worlds.count - 1)
        let users = p.userOrder.compactMap { n in p.world.user(named: n).map { (name: n, subject: world.subject(uid: $0.uid)) } }
        var result = Result(semantics: ev.semantics)
        // The configuration.
        var options = LintOptions()
        var severity: [String: LintSeverity] = [:]
        var off = Set(LintCatalog.rules.filter { !$0.onByDefault }.map(\.code))
        func known(_ name: String, _ loc: SourceLocation) -> LintRule? {
            if let r = LintCatalog.rule(named: name) { return r }
            result.errors.append(unknownRule(name, loc))
            return nil
        }
        if let cfg = p.findings {
            for s in cfg.rules {
                guard let rule = known(s.rule, s.location) else { continue }
                if s.value == "off" {
                    off.insert(rule.code)
                } else if let sev = LintSeverity(rawValue: s.value) {
                    severity[rule.code] = sev
                    off.remove(rule.code)
                }
            }
            options.sensitivePatterns += cfg.sensitive
            options.serviceDirectories += cfg.serviceDirectories
        }
        options.disabled = off
        var found: [LintItem] = []
        for f in Linter.run(world: world, semantics: ev.semantics, subjects: users, options: options) {
            found.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: p.nodeLocation(f.path)))
        }
        // The app findings (docs/sandbox.md), under the catalog's codes.
        var policy = p
        policy.semantics = ev.semantics
        for d in Findings.analyze(policy) {
            guard let rule = LintCatalog.rule(appCode: d.code), rule.semantics.contains(ev.semantics) else { continue }
            let f = LintFinding(
                code: rule.code, severity: rule.severity, node: -1, path: "", message: d.message,
                fix: d.help ?? "", affected: [], detail: d.message)
            found.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: d.location))
        }
        // Rules off, severities changed, suppressions.
        let sups = p.findings?.suppressions ?? []
        var used = [Bool](repeating: false, count: sups.count)
        let supRules = sups.map { known($0.rule, $0.ruleLocation)?.code }
        for var item in found {
            let code = item.finding.code
            if off.contains(code) { continue }
            if let s = severity[code] { item.finding = item.finding.with(severity: s) }
            if let i = sups.indices.first(where: { supRules[$0] == code && sups[$0].path == item.finding.path && !item.finding.path.isEmpty }) {
                used[i] = true
                item.suppressedBecause = sups[i].reason
                result.suppressed.append(item)
                continue
            }
            result.items.append(item)
        }
        if !off.contains("FSL018") {
            for (i, s) in sups.enumerated() where !used[i] && supRules[i] != nil {
                let f = LintFinding(
                    code: "FSL018", severity: severity["FSL018"] ?? .warning, node: -1, path: s.path,
                    message: "the suppression of \(s.rule) on this path matches no finding (reason given: \(s.reason))",
                    fix: "remove the suppression, or correct its rule or path", affected: [], detail: s.rule)
                result.items.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: s.location))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: LintCatalog.rules.enumerated().map { ($1.code, $0) })
        // Catalog order, then the order each rule found them in (stable).
        func sort(_ xs: [LintItem]) -> [LintItem] {
            xs.enumerated().sorted { a, b in
                let (x, y) = (order[a.element.finding.code] ?? 0, order[b.element.finding.code] ?? 0)
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
        }
        result.items = sort(result.items)
        result.suppressed = sort(result.suppressed)
        return result
    }
}

extension LintFinding {
    package func with(severity: LintSeverity) -> LintFinding {
        LintFinding(code: code, severity: severity, node: node, path: path, message: message, fix: fix, affected: affected, detail: detail)
    }
}
