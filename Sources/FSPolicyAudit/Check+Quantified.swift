import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// Quantified expectations (`as: group:NAME`, `as: "*"`, `users:`, `except:`, path patterns):
/// the expectation holds only if it holds for every (subject, path) pair.
extension Evaluator {
    /// The subjects of an expectation: the set, or the single user of `as`.
    func quantifiedSubjects(_ e: Expectation, world: World) -> [(name: String, uid: UID)] {
        if let set = e.subjects { return set.members(of: policy, world: world, semantics: semantics) }
        if case .user(let uid)? = e.subject { return [(e.asText ?? world.userName(uid), uid)] }
        return []
    }

    /// The paths of an expectation: the nodes its pattern matches, or its one path.
    func quantifiedPaths(_ e: Expectation, world: World) -> [(String, NodeID?)] {
        if let g = e.glob { return g.matches(in: world, type: e.nodeType).map { (world.path(of: $0), $0) } }
        return [(e.request.path, world.lookup(e.request.path))]
    }

    func checkQuantified(_ e: Expectation) -> ExpectationOutcome {
        var out = ExpectationOutcome(expectation: e, passed: true)
        let w = world(after: e.after)
        let subjects = quantifiedSubjects(e, world: w)
        let paths = quantifiedPaths(e, world: w)
        if case .app? = e.subject {
            out.passed = false
            out.mismatches.append("a path pattern is checked for users; `\(e.asText ?? "?")` is an app")
            return out
        }
        if subjects.isEmpty {
            out.passed = false
            out.mismatches.append("\(e.subjects?.text ?? e.asText ?? "?") stands for no declared user: nothing was checked")
        }
        if paths.isEmpty {
            out.passed = false
            out.mismatches.append("the pattern `\(e.request.path)`\(e.nodeType.map { " (type \($0.word))" } ?? "") matches no node: nothing was checked")
        }
        if !out.passed { return out }
        let fast = Authorizer(world: w, semantics: semantics, tracing: false)
        let t = TextRenderer(policy: policy, world: w)
        for (path, node) in paths {
            var spec = e.request
            spec.path = path
            for s in subjects {
                let req = Evaluator.makeRequest(spec, subject: w.subject(uid: s.uid))
                let d = fast.decide(req)
                out.pairsChecked += 1
                var wrong: [String] = []
                if d.unknown {
                    wrong.append("result: expected \(e.result.map { $0 ? "allow" : "deny" } ?? "an answer"), got unknown")
                } else if let want = e.result, want != d.allowed {
                    wrong.append("result: expected \(want ? "allow" : "deny"), got \(d.allowed ? "allow" : "deny")")
                }
                if let want = e.errno, want != d.errno { wrong.append("errno: expected \(want.rawValue), got \(d.errno?.rawValue ?? "none")") }
                if let want = e.layer, want != d.layer { wrong.append("layer: expected \(want.rawValue), got \(d.layer.rawValue)") }
                if wrong.isEmpty { continue }
                out.counterexampleCount += 1
                if d.unknown { out.unknownPairs += 1 }
                if out.counterexamples.count < maxExamples {
                    out.counterexamples.append(
                        Counterexample(
                            user: s.name, uid: s.uid, path: path, node: node ?? -1, decision: d,
                            mismatch: wrong.joined(separator: "; ")))
                }
            }
        }
        if out.counterexampleCount > 0 {
            out.passed = false
            out.mismatches.append("\(out.counterexampleCount) of \(out.pairsChecked) (user, path) pairs fail")
            for c in out.counterexamples {
                // The result is shown by the reason itself; errno and layer mismatches are added.
                let extra = c.mismatch.split(separator: "; ").map(String.init).filter { !$0.hasPrefix("result:") }
                out.mismatches.append(
                    "\(c.user) \(e.request.op.word) \(c.path): \(t.reason(c.decision, target: c.node >= 0 ? c.node : nil))"
                        + (extra.isEmpty ? "" : " — " + extra.joined(separator: "; ")))
            }
            let more = out.counterexampleCount - out.counterexamples.count
            if more > 0 { out.mismatches.append("… and \(more) more (show more with --max-examples)") }
        }
        return out
    }
}

extension TextRenderer {
    /// One phrase saying why: `allow (acl: ACE #2 "group:staff allow write" on /srv/hr)` or the
    /// contract's deny line.
    public func reason(_ d: Decision, target: NodeID?) -> String {
        if !d.allowed { return oneLine(d, target: target) }
        let ev = evidence(d.evidence, relativeTo: target)
        return "allow (\(d.layer.rawValue): \(ev.isEmpty ? d.rule.rawValue : ev))"
    }
}
