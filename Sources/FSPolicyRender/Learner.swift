import FSPolicy
import FSPolicyFormat

/// Text for learners: the trace with the deciding step marked and plain words where a step has
/// no entry to show (`explain` and the quiz's explanations).
extension TextRenderer {
    /// The index of the step that decided: the last step of the deciding layer that is not a
    /// note (a `guide.*` note may follow it), else the last step that is not a note.
    public func decidingStep(_ d: Decision) -> Int? {
        if let i = d.trace.lastIndex(where: { $0.verdict != .note && $0.layer == d.layer }) { return i }
        return d.trace.lastIndex(where: { $0.verdict != .note }) ?? (d.trace.isEmpty ? nil : d.trace.count - 1)
    }

    /// Plain words for a step whose evidence has nothing to show (the trace would otherwise
    /// print only the rule id).
    func plainWords(_ rule: RuleID) -> String? {
        switch rule {
        case .aclNoMatch: "no ACE applies to this caller and these rights"
        case .aclPartial: "end of the ACL: the rights still undecided go on"
        case .aclNone: "no ACL"
        case .aclEmpty: "an empty ACL: it defers everything"
        case .unmappedGranted: "readattr and readsecurity have no mode bit: granted"
        case .neverWriteSecurity: "mode bits never grant writesecurity"
        case .neverTakeOwnership: "mode bits never grant chown (take ownership)"
        case .rootAllowed, .guideRootAfterFlags: "root: the ACL, mode and sticky checks do not apply"
        case .rootReadFastPath: "root, asking for nothing that writes or executes"
        case .flagsNotBlocking: "no flag blocks the request"
        case .ownerWriteSecurity: "the owner always has writesecurity"
        case .ownerWriteAttr: "the owner has writeattr (after the ACL)"
        case .guideOwnerSecurityRights: "the owner always has readsecurity and writesecurity"
        case .nothingToChange: "nothing changes"
        case .deleteParentWrite: "no ACE decided the delete: the folder's w bit does"
        default: nil
        }
    }

    /// The trace as `explain` shows it: numbered steps, `→` on the step that decided (bold when
    /// styled), and plain words instead of a bare rule id.
    public func learnerTrace(_ d: Decision, indent: String = "  ") -> [String] {
        if elsewhere(d) { return on(d).learnerTrace(d, indent: indent) }
        var lines: [String] = []
        // A node whose attributes are assumed (not read from the host) is marked in each step.
        func stepPath(_ n: NodeID) -> String { path(n) + (n >= 0 && world.assumedNodes.contains(n) ? " (assumed)" : "") }
        let width = max(12, d.trace.map { stepPath($0.node).count }.max() ?? 0)
        let decider = decidingStep(d)
        for (i, s) in d.trace.enumerated() {
            let num = String(i + 1)
            var detail = evidence(s.evidence, relativeTo: s.node)
            if s.rule == .linuxMaskEmptySkipsACL { detail = "mask (group bits) is ---: the ACL is not read" }
            if s.layer == .traversal {
                if let words = lookupWords(s.rule, s.node, s.evidence) { detail = words } else { detail = "search" + (detail.isEmpty ? "" : ": " + detail) }
            }
            let lead = i == decider ? "→" + String(indent.dropFirst()) : indent
            var line = lead + String(repeating: " ", count: max(0, 3 - num.count)) + num + "  "
            line += pad(s.layer.rawValue, 10) + pad(stepPath(s.node), width + 2)
            line += verdictWord(s.verdict) + String(repeating: " ", count: max(1, 7 - s.verdict.rawValue.count))
            if detail.isEmpty, let words = plainWords(s.rule) { detail = words }
            line += detail.isEmpty ? s.rule.rawValue : detail + "  " + style.dim("[" + s.rule.rawValue + "]")
            if s.verdict == .defer && !s.remaining.isEmpty {
                line += style.dim("  undecided: " + rights(s.remaining, node: s.node))
            }
            lines.append(i == decider ? style.bold(line) : line)
        }
        return lines
    }
}
