import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import Foundation

/// An answer to a quiz question.
package enum QuizAnswer: Equatable {
    case yes, no, hint, quit

    /// Letters (`--answers`, or a line of several): y, n, ? and q; spaces, commas and tabs
    /// are ignored. Nil when another character is there.
    package static func letters(_ s: String) -> [QuizAnswer]? {
        var out: [QuizAnswer] = []
        for ch in s.lowercased() {
            switch ch {
            case "y": out.append(.yes)
            case "n": out.append(.no)
            case "?": out.append(.hint)
            case "q": out.append(.quit)
            case " ", ",", "\t": continue
            default: return nil
            }
        }
        return out
    }

    /// A line typed or piped: a word (yes, no, hint, quit, …) or letters. Nil for an empty
    /// line or one that is not an answer.
    package static func parse(_ line: String) -> [QuizAnswer]? {
        let t = line.trimmingCharacters(in: .whitespaces).lowercased()
        switch t {
        case "yes": return [.yes]
        case "no": return [.no]
        case "hint", "h": return [.hint]
        case "quit", "exit": return [.quit]
        case "": return nil
        default: return letters(t)
        }
    }
}

/// Where the answers come from.
package protocol QuizAnswers {
    /// The next answer, or nil when the input has ended, and whether the user just typed it
    /// at a terminal (then the terminal has echoed it).
    mutating func next() -> (answer: QuizAnswer, typed: Bool)?
}

/// One run of the quiz: asks, reveals, explains, keeps score, sums up.
package struct QuizSession<Answers: QuizAnswers> {
    package let questions: [QuizQuestion]
    package let style: Style
    package var reader: Answers
    /// Writes to the terminal (the style's marks become colors when it is enabled).
    let say: (String) -> Void
    package var right = 0
    package var answered = 0
    package var missed: [(number: Int, question: QuizQuestion)] = []

    package init(questions: [QuizQuestion], style: Style, reader: Answers, say: @escaping (String) -> Void) {
        self.questions = questions
        self.style = style
        self.reader = reader
        self.say = say
    }

    /// Returns true when every question was answered, and answered right.
    package mutating func run(fileCount: Int) -> Bool {
        let n = questions.count
        say(
            "fspolicy quiz: \(n) question\(n == 1 ? "" : "s")\(fileCount > 1 ? " from \(fileCount) files" : ""). "
                + "Answer y or n; ? shows a hint, q stops.\n")
        var lastFile = ""
        var stopped: String? = nil
        loop: for (i, q) in questions.enumerated() {
            let t = q.renderer(style)
            let sem = q.evaluator.semantics
            if q.policy.file != lastFile {
                lastFile = q.policy.file
                say("\n" + style.bold("── \(q.label) ──") + "\n")
                if let d = q.policy.description { say(d + "\n") }
            }
            var head = "\n" + style.bold("Question \(i + 1) of \(n)") + (q.keychain == nil ? "  [semantics: \(sem.rawValue)]" : "  [keychain]")
            if let a = q.expectation.after, q.policy.steps.count > 0 { head += "  after step \(a) of \(q.policy.steps.count)" }
            say(head + "\n")
            let picture = q.keychain.map { $0.picture(style) } ?? t.worldPicture(q.expectation.request, subject: q.subject, semantics: sem)
            say(picture.joined(separator: "\n") + "\n")
            let prompt = (q.keychain.map(\.question) ?? t.quizQuestion(q.expectation.request, who: q.who)) + " [y/n, ? for a hint] "
            say(prompt)
            var answer: QuizAnswer? = nil
            while true {
                let next = reader.next()
                guard let (a, typed) = next else {
                    say("\n")
                    stopped = "No more answers: the quiz stops here."
                    break loop
                }
                // Echo what the terminal did not: scripted answers, piped ones, and the rest
                // of a line that held several answers.
                if !typed { say(echo(a) + "\n") }
                if a == .hint {
                    say(style.yellow("Hint: " + (q.expectation.hint ?? "none for this question: think about which layer comes first.")) + "\n")
                    say(prompt)
                    continue
                }
                answer = a
                break
            }
            guard let a = answer else { break }
            if a == .quit { stopped = "Stopped."; break }
            answered += 1
            let correct = (a == .yes) == q.decision.allowed
            if correct { right += 1 } else { missed.append((i + 1, q)) }
            let verdict = correct ? style.green(style.bold("Right")) : style.red(style.bold("Not quite"))
            say(verdict + " — the answer is " + (q.decision.allowed ? "yes" : "no") + ".\n")
            // The explanation as `explain` prints it, without the question and subject just shown.
            let text =
                q.keychain.map { KeychainRenderer(style: style).explain($0.answer, device: $0.device) }
                ?? t.explain(q.decision, spec: q.expectation.request, subject: q.subject, who: q.who, semantics: sem)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let start = lines.firstIndex { $0.contains("Answer:") } ?? 0
            say(lines[start...].joined(separator: "\n") + "\n")
        }
        if let s = stopped { say("\n" + s + "\n") }
        say("\n" + summary().joined(separator: "\n") + "\n")
        return answered == n && right == n
    }

    func echo(_ a: QuizAnswer) -> String {
        switch a {
        case .yes: "y"
        case .no: "n"
        case .hint: "?"
        case .quit: "q"
        }
    }

    /// The score and the topics to revisit, from the rule numbers of the questions missed.
    package func summary() -> [String] {
        let n = questions.count
        var out: [String] = []
        var score = style.bold("Score: \(right) of \(n) right")
        if answered < n { score += " (\(n - answered) not answered)" }
        out.append(score + ".")
        if missed.isEmpty {
            out.append(answered == n ? "Nothing to revisit." : "No wrong answers so far.")
            return out
        }
        out.append(style.bold("Topics to revisit:"))
        var order: [String] = []
        var byTopic: [String: [(Int, QuizQuestion)]] = [:]
        for m in missed {
            // The idea the question tests (its `topic:`), else the rule that decided it.
            let number = m.question.expectation.topic ?? m.question.decision.rule.info(for: m.question.evaluator.semantics).number
            if byTopic[number] == nil { order.append(number) }
            byTopic[number, default: []].append(m)
        }
        for number in order {
            let first = byTopic[number]![0].1
            let info = first.decision.rule.info(for: first.evaluator.semantics)
            let named = RuleID.allCases.first { $0.info(for: first.evaluator.semantics).number == number }?.info(for: first.evaluator.semantics)
            let title = TeachingTopic.title(number) ?? (info.number == number ? info.summary : named?.summary ?? info.summary)
            out.append("  " + number.padding(toLength: 5, withPad: " ", startingAt: 0) + title)
            for (k, q) in byTopic[number]! {
                let t = q.renderer
                out.append(
                    "       question \(k) (\(q.label)): " + (q.keychain.map(\.question) ?? t.quizQuestion(q.expectation.request, who: q.who))
                        + " — " + (q.decision.allowed ? "allow" : "deny") + ", rule " + q.decision.rule.rawValue)
            }
        }
        if order.contains(where: TeachingTopic.inheritanceNumbers.contains) {
            out.append("Each rule is described, with its source, in docs/semantics.md (I1–I3 in docs/inheritance.md); the exercises' READMEs tell the stories.")
        } else {
            out.append("Each rule is described, with its source, in docs/semantics.md; the exercises' READMEs tell the stories.")
        }
        return out
    }
}
