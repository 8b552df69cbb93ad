import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// `fspolicy quiz`: scripted answers, answers on standard input, and a real terminal (tmux).
@Suite("The quiz")
struct QuizTests {
    static let sticky = "fixtures/exercises/04-sticky-bit"
    /// The right answers to the four questions of 04-sticky-bit.
    static let stickyRight = "nyny"

    @Test("right answers score full marks and exit 0")
    func allRight() throws {
        let r = try fspolicy(["quiz", Self.sticky, "--answers", Self.stickyRight])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.isEmpty)
        #expect(r.stdout.hasPrefix("fspolicy quiz: 4 questions."))
        #expect(r.stdout.contains("Score: 4 of 4 right."))
        #expect(r.stdout.contains("Nothing to revisit."))
        #expect(!r.stdout.contains("Not quite"))
        #expect(!r.stdout.contains("\u{1B}["))
    }

    @Test("a question shows the world first: the subject's groups and an ls -le listing of the nodes involved")
    func picture() throws {
        let r = try fspolicy(["quiz", "fixtures/exercises/11-delete-precedence/policy.yaml", "--answers", "n"])
        let expected = """
            Question 1 of 7  [semantics: macos]
            bob (uid 502; groups everyone, staff, team) looks at:
              drwxr-xr-x  root   wheel  /
              drwxrwxr-t+ alice  team   /Projects
                  0: group:leads allow delete_child
              -rw-r--r--+ bob    team   /Projects/plan.txt
                  0: group:everyone deny delete
            Can bob delete /Projects/plan.txt? [y/n, ? for a hint] n
            Right — the answer is no.
            Answer:   deny EACCES — decided by the acl layer, rule delete.node-ace-deny
            """
        #expect(r.stdout.contains(expected), "got:\n\(r.stdout)")
        // The explanation names the deciding rule, its number and where it comes from.
        #expect(r.stdout.contains("→   3  acl       /Projects/plan.txt  deny   ACE #0 \"group:everyone deny delete\"  [delete.node-ace-deny]"))
        #expect(r.stdout.contains("Why: rule M6 (delete.node-ace-deny)"))
        #expect(r.stdout.contains("Source: XNU vnode_authorize_delete"))
        // Six questions were left unanswered.
        #expect(r.status == 1)
        #expect(r.stdout.contains("No more answers: the quiz stops here."))
        #expect(r.stdout.contains("Score: 1 of 7 right (6 not answered)."))
    }

    @Test("wrong answers exit 1 and name the topics to revisit, from the deciding rules' numbers")
    func wrongAnswers() throws {
        let r = try fspolicy(["quiz", Self.sticky, "--answers", "yyyn"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("Not quite — the answer is no."))
        #expect(r.stdout.contains("Score: 1 of 4 right."))
        let summary = r.stdout.components(separatedBy: "Topics to revisit:").last ?? ""
        #expect(summary.contains("M6   deleting: an ACE on the file, an ACE on the folder, the folder's w bit, the sticky bit"))
        #expect(summary.contains("question 1 (fixtures/exercises/04-sticky-bit/policy.yaml): Can bob delete /tmp/alice.log? — deny, rule sticky.not-owner"))
        #expect(summary.contains("question 4 "))
        #expect(!summary.contains("question 2 "))
    }

    @Test("? shows the hint and asks again; q stops")
    func hintAndQuit() throws {
        let r = try fspolicy(["quiz", Self.sticky, "--answers", "? n q"])
        #expect(
            r.stdout.contains(
                "Hint: /tmp is drwxrwxrwt: bob may write the folder. What does the t at the end add?\nCan bob delete /tmp/alice.log? [y/n, ? for a hint] n"))
        #expect(r.stdout.contains("Stopped."))
        #expect(r.stdout.contains("Score: 1 of 4 right (3 not answered)."))
        #expect(r.status == 1)
    }

    @Test("answers on standard input: one per line, words or letters, several letters on a line")
    func stdinAnswers() throws {
        let r = try fspolicy(["quiz", Self.sticky], stdin: "no\nyes\n\nny\n")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("Score: 4 of 4 right."))
        // What was read is echoed after the prompt, so the transcript reads like a session.
        #expect(r.stdout.contains("Can bob write /tmp/alice.log? [y/n, ? for a hint] y\nRight — the answer is yes."))
        let bad = try fspolicy(["quiz", Self.sticky], stdin: "maybe\nn\n")
        #expect(bad.stderr.contains("`maybe` is not an answer"))
        #expect(bad.stdout.contains("Score: 1 of 4 right (3 not answered)."))
        #expect(bad.status == 1)
        let none = try fspolicy(["quiz", Self.sticky], stdin: "")
        #expect(none.status == 1)
        #expect(none.stdout.contains("Score: 0 of 4 right (4 not answered)."))
    }

    @Test("the whole curriculum, in folder order, pending exercises skipped; the right answers score full marks")
    func curriculum() throws {
        // First pass: answer yes everywhere and learn the right answers from the reveals.
        let first = try fspolicy(["quiz", "fixtures/exercises", "--answers", String(repeating: "y", count: 400)])
        let reveals = first.stdout.split(separator: "\n").filter { $0.hasPrefix("Right — the answer is ") || $0.hasPrefix("Not quite — the answer is ") }
        let right = reveals.map { $0.hasSuffix("yes.") ? "y" : "n" }.joined()
        let count = first.stdout.split(separator: "\n").first.flatMap { $0.split(separator: " ").dropFirst(2).first }.flatMap { Int($0) } ?? -1
        #expect(count == reveals.count && count >= 70, "\(count) questions, \(reveals.count) revealed")
        #expect(!first.stderr.contains("error"), "stderr: \(first.stderr)")
        // Every quiz question of the non-pending exercises is asked.
        var marked = 0
        for f in ExerciseTests.files {
            marked += try String(contentsOf: packageRoot.appendingPathComponent(f), encoding: .utf8).components(separatedBy: "quiz: true").count - 1
        }
        #expect(marked == count)
        // Exercises come in the order of their folder names, and pending ones are not there.
        let headers = first.stdout.split(separator: "\n").filter { $0.hasPrefix("── ") }.map { String($0.dropFirst(3).prefix(2)) }
        #expect(headers == headers.sorted())
        #expect(headers.first == "01")
        #expect(!first.stdout.contains("pending/"))
        // Second pass: the right answers.
        let second = try fspolicy(["quiz", "fixtures/exercises", "--answers", right])
        #expect(second.status == 0, "\(second.stdout.suffix(2000))")
        #expect(second.stdout.contains("Score: \(count) of \(count) right."))
    }

    @Test("a folder of exercise folders: taken by name, a subfolder without .yaml files of its own (pending/) skipped")
    func folderOfFolders() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-curriculum-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        for sub in ["02-second", "01-first", "pending/03-later"] {
            try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let sticky = try String(contentsOf: packageRoot.appendingPathComponent(Self.sticky + "/policy.yaml"), encoding: .utf8)
        try sticky.write(to: dir.appendingPathComponent("01-first/policy.yaml"), atomically: true, encoding: .utf8)
        try sticky.write(to: dir.appendingPathComponent("02-second/policy.yaml"), atomically: true, encoding: .utf8)
        // Another file of the exercise comes after policy.yaml.
        try sticky.write(to: dir.appendingPathComponent("01-first/another.yaml"), atomically: true, encoding: .utf8)
        try "fspolicy: 1\nfrobnicate: true\n".write(to: dir.appendingPathComponent("pending/03-later/policy.yaml"), atomically: true, encoding: .utf8)
        let r = try fspolicy(["quiz", dir.path, "--answers", String(repeating: Self.stickyRight, count: 3)])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let headers = r.stdout.split(separator: "\n").filter { $0.hasPrefix("── ") }
        #expect(headers == ["── 01-first/policy.yaml ──", "── 01-first/another.yaml ──", "── 02-second/policy.yaml ──"])
        #expect(r.stdout.hasPrefix("fspolicy quiz: 12 questions from 3 files."))
    }

    @Test("errors: no questions, an invalid file, a bad --answers letter, a missing path")
    func errors() throws {
        let none = try fspolicy(["quiz", "fixtures/examples/team-share/policy.yaml"])
        #expect(none.status == 3)
        #expect(none.stderr.contains("no expectation in `fixtures/examples/team-share/policy.yaml` is marked `quiz: true`"))
        let bad = try fspolicy(["quiz", "fixtures/invalid/bad-octal-mode.yaml"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("is not an octal digit"))
        let letters = try fspolicy(["quiz", Self.sticky, "--answers", "yx"])
        #expect(letters.status == 64)
        #expect(letters.stderr.contains("`--answers` takes the letters y, n, ? and q"))
        let missing = try fspolicy(["quiz", "fixtures/nothing-here"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("cannot read `fixtures/nothing-here`"))
    }

    @Test("quiz --help has examples and exit codes")
    func help() throws {
        let r = try fspolicy(["quiz", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("USAGE: fspolicy quiz"))
        #expect(r.stdout.contains("Examples:"))
        #expect(r.stdout.contains("Exit codes:"))
    }

    // MARK: A real terminal

    /// A tmux server of our own (its own socket), killed when done.
    ///
    /// tmux is started with `posix_spawn`, not `Process`: the server it forks must inherit
    /// neither the test runner's blocked signal mask (its panes would ignore the hang-up that
    /// `kill-server` sends) nor any other descriptor (Foundation's `Process` notices that a
    /// child has exited when a socket the child holds is closed, and a daemon holding such a
    /// socket would make `waitUntilExit` wait for the daemon).
    struct Tmux {
        let tmux: String
        let socket = "fspolicy-quiz-\(UUID().uuidString.prefix(8))"

        func callAsFunction(_ args: [String]) throws -> RunResult { try spawn([tmux, "-L", socket] + args) }

        func screen(_ session: String, escapes: Bool = false) throws -> String {
            try self(["capture-pane", "-p", "-J", "-S", "-", "-t", session] + (escapes ? ["-e"] : [])).stdout
        }

        /// Waits until the screen contains `text` (up to 20 s); returns the screen.
        func waitFor(_ text: String, in session: String, escapes: Bool = false) throws -> String {
            var last = ""
            for _ in 0..<200 {
                last = try screen(session, escapes: escapes)
                if last.contains(text) { return last }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Issue.record("the terminal never showed `\(text)`; the screen was:\n\(last)")
            throw CancellationError()
        }

        func kill() { _ = try? self(["kill-server"]) }
    }

    static func tmux() -> Tmux? {
        guard let t = which("tmux") else {
            Issue.record("tmux is not installed, so the quiz cannot be tested in a real terminal: run scripts/setup (Debian package tmux)")
            return nil
        }
        return Tmux(tmux: t)
    }

    @Test("in a real terminal (tmux): the prompt, hints, line editing, re-asking, color and the score")
    func terminal() throws {
        guard let tm = Self.tmux() else { return }
        defer { tm.kill() }
        let command = "cd '\(packageRoot.path)' && env -u NO_COLOR TERM=xterm-256color '\(fspolicyBinary())' quiz \(Self.sticky); echo QUIZ-EXIT=$?; sleep 120"
        let started = try tm(["new-session", "-d", "-s", "quiz", "-x", "200", "-y", "60", command])
        #expect(started.status == 0, "tmux new-session: \(started.stderr)")
        var screen = try tm.waitFor("Can bob delete /tmp/alice.log? [y/n, ? for a hint]", in: "quiz")
        #expect(screen.contains("bob (uid 502; groups everyone, staff) looks at:"))
        #expect(screen.contains("  drwxrwxrwt  root   wheel  /tmp"))
        // A hint, then the question again.
        _ = try tm(["send-keys", "-t", "quiz", "?", "Enter"])
        screen = try tm.waitFor("Hint: /tmp is drwxrwxrwt", in: "quiz")
        // Line editing: type a wrong letter, erase it, answer.
        _ = try tm(["send-keys", "-t", "quiz", "y", "BSpace", "n", "Enter"])
        _ = try tm.waitFor("Right — the answer is no.", in: "quiz")
        // The explanation comes after the verdict and before the next question: wait for that one
        // (a slow build, such as an AddressSanitizer one, can be caught between the two).
        screen = try tm.waitFor("Can bob write /tmp/alice.log? [y/n, ? for a hint]", in: "quiz")
        #expect(screen.contains("→   4  sticky    /tmp          deny   sticky bit  [sticky.not-owner]"))
        // Something that is not an answer is asked again, on a terminal.
        _ = try tm(["send-keys", "-t", "quiz", "perhaps", "Enter"])
        _ = try tm.waitFor("Please answer y or n (? for a hint, q to stop):", in: "quiz")
        _ = try tm(["send-keys", "-t", "quiz", "y", "Enter"])
        _ = try tm.waitFor("Can bob rename /tmp/alice.log to /tmp/mine.log?", in: "quiz")
        _ = try tm(["send-keys", "-t", "quiz", "y", "Enter"])
        _ = try tm.waitFor("Can carol delete /Shared/Dropbox/alice.txt?", in: "quiz")
        _ = try tm(["send-keys", "-t", "quiz", "yes", "Enter"])
        screen = try tm.waitFor("QUIZ-EXIT=", in: "quiz")
        #expect(screen.contains("Not quite — the answer is no."))
        #expect(screen.contains("Score: 3 of 4 right."))
        #expect(screen.contains("Topics to revisit:"))
        #expect(screen.contains("QUIZ-EXIT=1"))
        // On a terminal, with NO_COLOR unset, the verdicts are colored.
        let colored = try tm.screen("quiz", escapes: true)
        #expect(colored.contains("\u{1B}["), "no color escapes on a terminal")

        // NO_COLOR turns color off, on a terminal too.
        let plain =
            "cd '\(packageRoot.path)' && NO_COLOR=1 '\(fspolicyBinary())' quiz \(Self.sticky) --answers \(Self.stickyRight); echo QUIZ-EXIT=$?; sleep 120"
        _ = try tm(["new-session", "-d", "-s", "plain", "-x", "200", "-y", "60", plain])
        _ = try tm.waitFor("QUIZ-EXIT=0", in: "plain")
        let noEscapes = try tm.screen("plain", escapes: true)
        #expect(!noEscapes.contains("\u{1B}[3"), "color escapes despite NO_COLOR")
        #expect(noEscapes.contains("Score: 4 of 4 right."))
    }
}

/// Runs a program with `posix_spawn`: a clean signal mask and default dispositions, standard
/// input from /dev/null, standard output and error to a file, every other descriptor closed.
func spawn(_ argv: [String]) throws -> RunResult {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-spawn-\(UUID().uuidString).out").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    var fa = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&fa)
    defer { posix_spawn_file_actions_destroy(&fa) }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&fa, 1, 2)
    // glibc 2.34+: close everything above stderr in the child.
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        Issue.record("posix_spawn_file_actions_addclosefrom_np is missing (glibc older than 2.34)")
        throw CancellationError()
    }
    _ = unsafeBitCast(sym, to: CloseFrom.self)(&fa, 3)
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attr, &empty)
    posix_spawnattr_setsigdefault(&attr, &all)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for a in cargs { free(a) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &fa, &attr, &cargs, environ)
    guard rc == 0 else {
        Issue.record("cannot start \(argv[0]): posix_spawn returned \(rc)")
        throw CancellationError()
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    let exited = status & 0x7f == 0
    return RunResult(status: exited ? (status >> 8) & 0xff : -1, stdout: text, stderr: exited ? "" : text, crashed: !exited)
}
