import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// `fspolicy simulate` (docs/cli.md): what each step did, then the tree it leaves, as text or
/// JSON. `checks` are the outcomes of the first `upTo` steps (`Evaluator.checkSteps`), `nodes`
/// the nodes listed, in order, and `t` the renderer of the world after them.
public enum SimulateReport {
    public static func json(_ ev: Evaluator, checks: [ExpectationOutcome], upTo: Int, nodes: [NodeID], renderer t: TextRenderer) -> String {
        let p = ev.policy
        let doc = JSON.object([
            ("schemaVersion", .int(1)), ("semantics", .string(ev.semantics.rawValue)), ("after", .int(upTo)),
            (
                "steps",
                .array(
                    checks.enumerated().map { i, o in
                        .object([
                            ("step", .int(i + 1)), ("name", .string(p.steps[i].label)), ("location", .string(o.expectation.location.description)),
                            ("result", .string(o.decision?.allowed == true ? "allow" : o.decision?.unknown == true ? "unknown" : "deny")),
                            ("errno", o.decision?.errno.map { .string($0.rawValue) } ?? .null),
                            ("rule", .string(o.decision?.rule.rawValue ?? "")), ("asExpected", .bool(o.passed))
                        ])
                    })
            ),
            ("tree", .array(nodes.map { t.nodeJSON($0) }))
        ])
        return doc.render() + "\n"
    }

    /// The text; `quiet`: only the steps that did not do what they said (empty when none).
    public static func text(
        _ ev: Evaluator, checks: [ExpectationOutcome], upTo: Int, nodes: [NodeID], renderer t: TextRenderer, style: Style, quiet: Bool
    ) -> String {
        let p = ev.policy
        var out: [String] = []
        for (i, o) in checks.enumerated() {
            let d = o.decision!
            let r = TextRenderer(policy: p, style: style, world: ev.world(after: i))
            var line =
                "step \(i + 1): \(p.steps[i].label) — "
                + (d.allowed ? "allowed, applied" : r.oneLine(d, target: r.oneLineTarget(d, path: p.steps[i].request.path)) + ", not applied")
            if !o.passed { line += "  " + style.red("UNEXPECTED: " + o.mismatches.joined(separator: "; ")) }
            if !quiet || !o.passed { out.append(line) }
        }
        if quiet { return out.isEmpty ? "" : out.joined(separator: "\n") + "\n" }
        if !checks.isEmpty { out.append("") }
        out.append("# tree after \(upTo) of \(p.steps.count) step(s) [semantics: \(ev.semantics.rawValue)]")
        out.append(contentsOf: ev.semantics == .linux ? t.getfaclListing(nodes) : t.lsle(nodes))
        return out.joined(separator: "\n") + "\n"
    }
}
