import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Quiz: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the expectations marked `quiz: true` as questions; reveal, explain and score each answer.",
        discussion: """
        Each question starts with a short picture of the world: who asks, with all their groups, \
        and the nodes involved as `ls -le` shows them. Answer y or n; ? shows the question's \
        hint, q stops. The answer is revealed with the full explanation (the deciding rule, its \
        number in docs/semantics.md and the guide or kernel passage it rests on), and the quiz \
        ends with the score and the topics to revisit.

        PATH is a policy file, an exercise folder (its .yaml files, policy.yaml first), or a \
        folder of exercise folders, taken in the order of their names (a subfolder without \
        .yaml files of its own, such as fixtures/exercises/pending, is skipped).

        Answers come from the terminal, from standard input (one or more letters per line), or \
        from --answers.

        Examples:
          fspolicy quiz fixtures/exercises
          fspolicy quiz fixtures/exercises/04-sticky-bit
          fspolicy quiz fixtures/exercises/04-sticky-bit --answers nyny
          printf 'ny\\nny\\n' | fspolicy quiz fixtures/exercises/04-sticky-bit

        Exit codes: 0 every question answered, every answer right · 1 a wrong or missing answer · \
        3 invalid input, or no question to ask.
        """)

    @Argument(help: "A policy file, an exercise folder, or a folder of exercise folders.")
    var path: String

    @Option(name: .long, help: ArgumentHelp("The answers, one letter per question: y or n (? shows the hint and takes the next letter, q stops); spaces and commas are ignored. Without it, answers are read from standard input.", valueName: "letters"))
    var answers: String?

    @Option(name: .long, help: "Rule set that decides, overriding each file's: macos, guide or linux.")
    var semantics: Semantics?

    @Flag(name: .long, help: "Never use color (color is on only on a terminal and off when NO_COLOR is set).")
    var noColor = false

    func validate() throws {
        if let a = answers, let bad = a.first(where: { !"ynYN?qQ ,".contains($0) }) {
            throw ValidationError("`--answers` takes the letters y, n, ? and q; `\(bad)` is none of them")
        }
    }

    var style: Style {
        Style(enabled: Terminal.colorWanted(disabled: noColor))
    }

    func run() throws {
        let files = try QuizFiles.collect(path)
        var policies: [(label: String, policy: Policy)] = []
        var invalid = false
        for f in files {
            let p = PolicyLoader.load(path: f.path, semanticsOverride: semantics)
            if report(p.diagnostics.sorted) { invalid = true }
            policies.append((f.label, p))
        }
        if invalid { throw ExitCode(3) }
        var questions: [QuizQuestion] = []
        for (label, p) in policies {
            let ev = Evaluator(policy: p, semantics: semantics)
            for e in p.expectations where e.quiz {
                guard e.allowed == nil, e.state == nil, let subject = e.subject,
                      let d = ev.decide(e.request, subject: subject, after: e.after) else {
                    printError("fspolicy: warning: \(e.location): only a question about one user or app (`as` and `result`) can be asked; skipped")
                    continue
                }
                if let want = e.result, want != d.allowed {
                    printError("fspolicy: warning: \(e.location): the file expects \(want ? "allow" : "deny") but fspolicy decides \(d.allowed ? "allow" : "deny"); the quiz goes by fspolicy's answer")
                }
                questions.append(QuizQuestion(label: label, policy: p, evaluator: ev, expectation: e, subject: subject, decision: d))
            }
            if let kc = p.keychain { questions += KeychainQuiz.questions(kc, label: label, policy: p, evaluator: ev) }
        }
        if questions.isEmpty {
            printError("fspolicy: error: no expectation in `\(path)` is marked `quiz: true`\n  help: add `quiz: true` (and a `hint:`) to the expectations to ask")
            throw ExitCode(3)
        }
        var session = QuizSession(questions: questions, style: style,
                                  reader: AnswerReader(scripted: answers, interactive: answers == nil && isatty(STDIN_FILENO) == 1))
        let perfect = session.run(fileCount: policies.filter { p in questions.contains { $0.policy.file == p.policy.file } }.count)
        if !perfect { throw ExitCode(1) }
    }
}

/// Which policy files a quiz PATH stands for, in order, with the labels shown for them.
enum QuizFiles {
    struct Entry { var path: String; var label: String }

    static func collect(_ path: String) throws -> [Entry] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            printError("fspolicy: error: cannot read `\(path)`: no such file or directory")
            throw ExitCode(3)
        }
        if !isDir.boolValue { return [Entry(path: path, label: path)] }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        let own = yamlFiles(in: base)
        if !own.isEmpty { return own.map { Entry(path: base + "/" + $0, label: base + "/" + $0) } }
        var out: [Entry] = []
        let subs = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).sorted()
        for s in subs {
            var d: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + "/" + s, isDirectory: &d), d.boolValue else { continue }
            for y in yamlFiles(in: base + "/" + s) { out.append(Entry(path: base + "/" + s + "/" + y, label: s + "/" + y)) }
        }
        if out.isEmpty {
            printError("fspolicy: error: `\(path)` holds no policy files (.yaml), nor folders that do")
            throw ExitCode(3)
        }
        return out
    }

    /// The .yaml files directly in `dir`: policy.yaml first, then the others by name.
    static func yamlFiles(in dir: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        return names.filter { $0 == "policy.yaml" } + names.filter { $0 != "policy.yaml" }
    }
}

struct QuizQuestion {
    var label: String
    var policy: Policy
    var evaluator: Evaluator
    var expectation: Expectation
    var subject: SubjectRef
    var decision: Decision
    /// A keychain question (docs/keychain.md) instead of a file request.
    var keychain: KeychainQuiz? = nil

    var renderer: TextRenderer { TextRenderer(policy: policy, world: evaluator.world(after: expectation.after)) }
    func renderer(_ style: Style) -> TextRenderer { TextRenderer(policy: policy, style: style, world: evaluator.world(after: expectation.after)) }
    var who: String {
        if let a = expectation.asText { return a }
        switch subject {
        case .user(let uid): return String(uid)
        case .app(let id): return id
        case .service(let name): return "service:" + name
        case .process(let uid, _): return String(uid)
        }
    }
}

/// Answers from `--answers`, or from standard input (a terminal or a pipe).
struct AnswerReader {
    enum Answer: Equatable { case yes, no, hint, quit }
    var queue: [Answer] = []
    /// Input comes from `--answers`: nothing more to read once the queue is empty.
    let scripted: Bool
    /// Standard input is a terminal: the user types, the terminal echoes.
    let interactive: Bool

    init(scripted: String?, interactive: Bool) {
        self.scripted = scripted != nil
        self.interactive = interactive
        if let s = scripted { queue = AnswerReader.letters(s) ?? [] }
    }

    static func letters(_ s: String) -> [Answer]? {
        var out: [Answer] = []
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

    static func parse(_ line: String) -> [Answer]? {
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

    /// The next answer, or nil when the input has ended, and whether the user just typed it
    /// at the terminal (then the terminal has echoed it). `reprompt` is shown again after a
    /// line that is not an answer (on a terminal).
    mutating func next(reprompt: () -> Void) -> (answer: Answer, typed: Bool)? {
        var typed = false
        while queue.isEmpty {
            if scripted { return nil }
            guard let line = readLine(strippingNewline: true) else { return nil }
            if let a = AnswerReader.parse(line), !a.isEmpty { queue = a; typed = interactive; break }
            if interactive {
                reprompt()
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                printError("fspolicy: warning: `\(line)` is not an answer (y, n, ? or q); ignored")
            }
        }
        return (queue.removeFirst(), typed)
    }
}

/// One run of the quiz: asks, reveals, explains, keeps score, sums up.
struct QuizSession {
    let questions: [QuizQuestion]
    let style: Style
    var reader: AnswerReader
    var right = 0
    var answered = 0
    var missed: [(number: Int, question: QuizQuestion)] = []

    init(questions: [QuizQuestion], style: Style, reader: AnswerReader) {
        self.questions = questions
        self.style = style
        self.reader = reader
    }

    func say(_ s: String) { fspolicy.say(s, color: style.enabled) }

    /// Returns true when every question was answered, and answered right.
    mutating func run(fileCount: Int) -> Bool {
        let n = questions.count
        say("fspolicy quiz: \(n) question\(n == 1 ? "" : "s")\(fileCount > 1 ? " from \(fileCount) files" : ""). "
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
            var answer: AnswerReader.Answer? = nil
            while true {
                let next = reader.next(reprompt: { fspolicy.say("Please answer y or n (? for a hint, q to stop): ") })
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
            let text = q.keychain.map { KeychainRenderer(style: style).explain($0.answer, device: $0.device) }
                ?? t.explain(q.decision, spec: q.expectation.request, subject: q.subject, who: q.who, semantics: sem)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let start = lines.firstIndex { $0.contains("Answer:") } ?? 0
            say(lines[start...].joined(separator: "\n") + "\n")
        }
        if let s = stopped { say("\n" + s + "\n") }
        say("\n" + summary().joined(separator: "\n") + "\n")
        return answered == n && right == n
    }

    func echo(_ a: AnswerReader.Answer) -> String {
        switch a {
        case .yes: "y"
        case .no: "n"
        case .hint: "?"
        case .quit: "q"
        }
    }

    /// The score and the topics to revisit, from the rule numbers of the questions missed.
    func summary() -> [String] {
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
                out.append("       question \(k) (\(q.label)): " + (q.keychain.map(\.question) ?? t.quizQuestion(q.expectation.request, who: q.who))
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
