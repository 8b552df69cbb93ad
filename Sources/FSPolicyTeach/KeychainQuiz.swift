import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// A keychain step or expectation marked `quiz: true`, asked as "does this call succeed?".
package struct KeychainQuiz {
    package var answer: KeychainAnswer
    package var device: KeychainDevice
    package var items: [KeychainItem]
    package var groups: [String]

    package var question: String {
        let r = KeychainRenderer(style: Style(enabled: false))
        return "Does \(r.question(answer.query)) succeed (errSecSuccess)?"
    }

    /// What the learner needs: the device, the app's access groups, the items there are.
    package func picture(_ style: Style) -> [String] {
        let r = KeychainRenderer(style: style)
        var out = [
            "Device:  " + r.deviceWords(device),
            r.safe("App:     \(answer.query.app), access groups " + (groups.isEmpty ? "none" : groups.joined(separator: ", "))),
            "Items:"
        ]
        if items.isEmpty { out.append("  (none)") }
        for i in items {
            var line = "  \(i.name)  group \(i.group.isEmpty ? "-" : i.group)  \(i.accessible.rawValue)"
            if i.synchronizable { line += "  synchronizable" }
            if let ac = i.accessControl { line += "  accessControl \(ac.text)" }
            if i.store == .fileBased { line += "  file-based" }
            out.append(r.safe(line))
        }
        return out
    }

    /// The quiz questions of a policy's keychain, in history order then expectations, each on
    /// the state it is asked in.
    package static func questions(_ kc: KeychainPolicy, label: String, policy p: Policy, evaluator ev: Evaluator) -> [QuizQuestion] {
        var out: [QuizQuestion] = []
        var s = kc.initial
        func ask(_ e: KeychainEntry, on state: inout KeychainState) {
            let before = state
            let o = kc.run(e, on: &state)
            guard e.quiz, let a = o.answer, case .call(let q) = e.action else { return }
            var x = Expectation(index: -1, location: e.location, request: RequestSpec(op: .read, path: "/"))
            x.asText = q.app
            x.hint = e.hint
            x.topic = e.topic
            x.name = e.name
            let d = Decision(allowed: a.allowed, errno: nil, layer: .keychain, rule: a.rule, node: -1, evidence: .none)
            let app = kc.app(q.app) ?? KeychainApp(bundleID: q.app, platform: before.device.platform)
            var question = QuizQuestion(label: label, policy: p, evaluator: ev, expectation: x, subject: .app(q.app), decision: d)
            question.keychain = KeychainQuiz(answer: a, device: before.device, items: before.items, groups: app.accessGroups(on: before.device.platform))
            out.append(question)
        }
        for e in kc.history { ask(e, on: &s) }
        for e in kc.expectations {
            var copy = s
            ask(e, on: &copy)
        }
        return out
    }
}
