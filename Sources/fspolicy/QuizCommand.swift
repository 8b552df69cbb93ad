import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import FSPolicyTeach
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The answers, one letter per question: y or n (? shows the hint and takes the next letter, q stops); spaces and commas are ignored. Without it, answers are read from standard input.",
            valueName: "letters"))
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
            let p = PolicyLoader.load(path: f.path, semanticsOverride: semantics, host: .commandLine)
            if report(p.diagnostics.sorted) { invalid = true }
            policies.append((f.label, p))
        }
        if invalid { throw ExitCode.invalid }
        let (questions, warnings) = QuizQuestion.collect(policies, semantics: semantics)
        for w in warnings { printError(w) }
        if questions.isEmpty {
            printError(
                "fspolicy: error: no expectation in `\(path)` is marked `quiz: true`\n  help: add `quiz: true` (and a `hint:`) to the expectations to ask")
            throw ExitCode.invalid
        }
        let color = style.enabled
        var session = QuizSession(
            questions: questions, style: style,
            reader: AnswerReader(scripted: answers, interactive: answers == nil && isatty(STDIN_FILENO) == 1),
            say: { say($0, color: color) })
        let perfect = session.run(fileCount: policies.filter { p in questions.contains { $0.policy.file == p.policy.file } }.count)
        if !perfect { throw ExitCode.failed }
    }
}

/// Which policy files a quiz PATH stands for, in order, with the labels shown for them.
enum QuizFiles {
    struct Entry { var path: String; var label: String }

    static func collect(_ path: String) throws -> [Entry] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            printError("fspolicy: error: cannot read `\(path)`: no such file or directory")
            throw ExitCode.invalid
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
            throw ExitCode.invalid
        }
        return out
    }

    /// The .yaml files directly in `dir`: policy.yaml first, then the others by name.
    static func yamlFiles(in dir: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        return names.filter { $0 == "policy.yaml" } + names.filter { $0 != "policy.yaml" }
    }
}

/// Answers from `--answers`, or from standard input (a terminal or a pipe).
struct AnswerReader: QuizAnswers {
    var queue: [QuizAnswer] = []
    /// Input comes from `--answers`: nothing more to read once the queue is empty.
    let scripted: Bool
    /// Standard input is a terminal: the user types, the terminal echoes.
    let interactive: Bool

    init(scripted: String?, interactive: Bool) {
        self.scripted = scripted != nil
        self.interactive = interactive
        if let s = scripted { queue = QuizAnswer.letters(s) ?? [] }
    }

    /// The next answer, or nil when the input has ended, and whether the user just typed it
    /// at the terminal (then the terminal has echoed it). After a line that is not an answer,
    /// a terminal is asked again; a pipe gets a warning.
    mutating func next() -> (answer: QuizAnswer, typed: Bool)? {
        var typed = false
        while queue.isEmpty {
            if scripted { return nil }
            guard let line = readLine(strippingNewline: true) else { return nil }
            if let a = QuizAnswer.parse(line), !a.isEmpty { queue = a; typed = interactive; break }
            if interactive {
                say("Please answer y or n (? for a hint, q to stop): ")
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                printError("fspolicy: warning: `\(line)` is not an answer (y, n, ? or q); ignored")
            }
        }
        return (queue.removeFirst(), typed)
    }
}
