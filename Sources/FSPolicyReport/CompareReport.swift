import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import Foundation

/// `explain --compare` (docs/cli.md): one request decided under macos, guide and linux, side by
/// side, with where they disagree and why; as text or JSON. `decisions` are the rule sets'
/// decisions in that order, `t` the renderer of the world asked.
public enum CompareReport {
    public static func json(_ decisions: [(Semantics, Decision)], spec: RequestSpec, who: String, renderer t: TextRenderer) -> String {
        let items: [JSON] = decisions.map { t.json($0.1, spec: spec, who: who, semantics: $0.0) }
        return JSON.object([
            ("schemaVersion", .int(1)), ("decisions", .array(items)),
            ("disagreements", .array(Comparison.sentences(decisions, renderer: t).map { .string($0) }))
        ]).render() + "\n"
    }

    public static func text(_ decisions: [(Semantics, Decision)], spec: RequestSpec, subject: SubjectRef, who: String, renderer t: TextRenderer) -> String {
        let style = t.style
        var out: [String] = []
        out.append(style.bold("Question:") + " " + t.question(spec, who: who))
        out.append("")
        for (s, d) in decisions {
            let res = d.allowed ? "allow" : d.unknown ? "unknown" : "deny " + (d.errno?.rawValue ?? "")
            out.append(
                "  " + s.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + res.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + "layer \(d.layer.rawValue), rule \(d.rule.rawValue)")
        }
        out.append("")
        let sentences = Comparison.sentences(decisions, renderer: t)
        if sentences.isEmpty { out.append(Comparison.agreement(decisions)) }
        for s in sentences { out.append(style.bold("Difference:") + " " + s) }
        for (s, d) in decisions {
            out.append("")
            out.append(style.bold("— \(s.rawValue) —"))
            out.append(t.explain(d, spec: spec, subject: subject, who: who, semantics: s))
        }
        return out.joined(separator: "\n") + "\n"
    }
}

/// Where the rule sets disagree, in one sentence: the answers grouped (the odd one out first),
/// then why — the guide rule behind a macos/guide split, and the layer and rule of a rule set
/// that stands apart.
public enum Comparison {
    public static func sentences(_ ds: [(Semantics, Decision)], renderer t: TextRenderer) -> [String] {
        func key(_ d: Decision) -> String { d.allowed ? "allow" : d.unknown ? "unknown" : "deny " + (d.errno?.rawValue ?? "") }
        func answer(_ d: Decision, plural: Bool) -> String {
            if d.unknown { return plural ? "do not know" : "does not know" }
            return d.allowed ? (plural ? "allow" : "allows") : (plural ? "deny" : "denies") + " (\(d.errno?.rawValue ?? ""))"
        }
        var groups: [[(Semantics, Decision)]] = []
        for x in ds {
            if let i = groups.firstIndex(where: { key($0[0].1) == key(x.1) }) { groups[i].append(x) } else { groups.append([x]) }
        }
        guard groups.count > 1 else { return [] }
        if groups.count == 2 && groups[1].count < groups[0].count { groups.swapAt(0, 1) }
        let parts = groups.map { g in names(g.map(\.0)) + " " + answer(g[0].1, plural: g.count > 1) }
        let said = groups.count == 2 ? parts[0] + " but " + parts[1] : list(parts)
        func group(of s: Semantics) -> Int? { groups.firstIndex { $0.contains { $0.0 == s } } }
        func decision(_ s: Semantics) -> Decision? { ds.first { $0.0 == s }?.1 }
        // What a rule set answered, in which layer and by which rule; the rule's summary only
        // when it names no errno other than the answer's (a rule's summary tells its failure, which
        // an allow or another errno contradicts).
        func answeredBy(_ s: Semantics, _ d: Decision, plural: Bool) -> String {
            let summary = d.rule.info(for: s).summary
            let fits = errnos(in: summary).allSatisfy { !d.allowed && !d.unknown && $0 == d.errno }
            let at = d.unknown ? ", at the \(d.layer.rawValue) layer," : " in the \(d.layer.rawValue) layer,"
            return answer(d, plural: plural) + at + " rule \(d.rule.rawValue)" + (fits ? " (\(summary))" : "")
        }
        let answered = Set(ds.compactMap { $0.1.allowed || $0.1.unknown ? nil : $0.1.errno })
        var why: [String] = []
        if let gm = group(of: .macos), let gg = group(of: .guide), gm != gg, let m = decision(.macos), let g = decision(.guide) {
            let guideRules =
                (m.trace + g.trace).map(\.rule).filter { $0.rawValue.hasPrefix("guide.") }
                + [m.rule, g.rule].filter { $0.rawValue.hasPrefix("guide.") }
            if let r = guideRules.first, errnos(in: r.info.summary).allSatisfy({ answered.contains($0) }) {
                why.append(r.info.summary + " [\(r.rawValue)]")
            } else {
                why.append("macos " + answeredBy(.macos, m, plural: false) + "; guide " + answeredBy(.guide, g, plural: false))
            }
        }
        if let gl = group(of: .linux), let l = decision(.linux), !groups[gl].contains(where: { $0.0 != .linux }) {
            let others = ds.filter { $0.0 != .linux }
            var s = "linux " + answeredBy(.linux, l, plural: false)
            if l.trace.contains(where: { $0.rule == .linuxMaskEmptySkipsACL }) {
                s += " after skipping the ACL (\(RuleID.linuxMaskEmptySkipsACL.info(for: .linux).summary))"
            }
            if let (o, d) = others.first, why.isEmpty {
                let sameGroup = others.filter { key($0.1) == key(d) && $0.1.rule == d.rule }.map(\.0)
                s += "; " + names(sameGroup.isEmpty ? [o] : sameGroup) + " " + answeredBy(o, d, plural: sameGroup.count > 1)
            }
            why.append(s)
        }
        return [said + (why.isEmpty ? "" : " — " + why.joined(separator: "; and "))]
    }

    /// The errnos a text names, as words.
    static func errnos(in text: String) -> [Errno] {
        text.split(whereSeparator: { !$0.isLetter }).compactMap { Errno(rawValue: String($0)) }
    }

    /// The line shown when every rule set gives the same answer.
    public static func agreement(_ ds: [(Semantics, Decision)]) -> String {
        names(ds.map(\.0)) + (ds.count == 2 ? " agree." : (ds.count > 2 ? " all agree." : " only."))
    }

    static func names(_ ss: [Semantics]) -> String { list(ss.map(\.rawValue)) }

    static func list(_ xs: [String]) -> String {
        xs.count <= 2 ? xs.joined(separator: " and ") : xs.dropLast().joined(separator: ", ") + " and " + xs.last!
    }
}
