import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// One question of the quiz: an expectation marked `quiz: true` (or a keychain call), with the
/// answer fspolicy decides.
package struct QuizQuestion {
    package var label: String
    package var policy: Policy
    package var evaluator: Evaluator
    package var expectation: Expectation
    package var subject: SubjectRef
    package var decision: Decision
    /// A keychain question (docs/keychain.md) instead of a file request.
    package var keychain: KeychainQuiz? = nil

    package init(label: String, policy: Policy, evaluator: Evaluator, expectation: Expectation, subject: SubjectRef, decision: Decision) {
        self.label = label
        self.policy = policy
        self.evaluator = evaluator
        self.expectation = expectation
        self.subject = subject
        self.decision = decision
    }

    package var renderer: TextRenderer { TextRenderer(policy: policy, world: evaluator.world(after: expectation.after)) }
    package func renderer(_ style: Style) -> TextRenderer { TextRenderer(policy: policy, style: style, world: evaluator.world(after: expectation.after)) }
    package var who: String {
        if let a = expectation.asText { return a }
        switch subject {
        case .user(let uid): return String(uid)
        case .app(let id): return id
        case .service(let name): return "service:" + name
        case .process(let uid, _): return String(uid)
        }
    }

    /// The questions of loaded policy files, in file order: each expectation marked `quiz: true`
    /// about one user or app, then the file's keychain questions. `warnings` are the
    /// expectations that cannot be asked, and those whose `result` fspolicy does not agree
    /// with (the quiz goes by fspolicy's answer), as lines for standard error.
    package static func collect(_ policies: [(label: String, policy: Policy)], semantics: Semantics?) -> (questions: [QuizQuestion], warnings: [String]) {
        var questions: [QuizQuestion] = []
        var warnings: [String] = []
        for (label, p) in policies {
            let ev = Evaluator(policy: p, semantics: semantics)
            for e in p.expectations where e.quiz {
                guard e.allowed == nil, e.state == nil, let subject = e.subject,
                    let d = ev.decide(e.request, subject: subject, after: e.after)
                else {
                    warnings.append("fspolicy: warning: \(e.location): only a question about one user or app (`as` and `result`) can be asked; skipped")
                    continue
                }
                if let want = e.result, want != d.allowed {
                    warnings.append(
                        "fspolicy: warning: \(e.location): the file expects \(want ? "allow" : "deny") but fspolicy decides \(d.allowed ? "allow" : "deny"); the quiz goes by fspolicy's answer"
                    )
                }
                questions.append(QuizQuestion(label: label, policy: p, evaluator: ev, expectation: e, subject: subject, decision: d))
            }
            if let kc = p.keychain { questions += KeychainQuiz.questions(kc, label: label, policy: p, evaluator: ev) }
        }
        return (questions, warnings)
    }
}
