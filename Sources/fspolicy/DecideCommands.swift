import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Can: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide one request and print the answer on one line.",
        discussion: """
            Prints `allow`, or `deny ERRNO (layer: what decided)`. With --keychain, the question is \
            a Keychain call by the app of --as, and the answer an OSStatus (docs/keychain.md).

            Examples:
              fspolicy can fixtures/examples/macos-home/policy.yaml --as bob --op write /Users/alice/notes.txt
              fspolicy can fixtures/examples/team-share/policy.yaml --as alice --op rename /Shared/Dropbox/bob-notes.txt --to /Shared/notes.txt
              fspolicy can fixtures/examples/linux-default-acl/policy.yaml --as 3003 --op chmod --mode 0700 /srv/team
              fspolicy can fixtures/examples/sandboxed-editor/policy.yaml --as com.example.Editor --op read /Users/alice/Archive/2023.txt
              fspolicy can fixtures/examples/keychain/policy.yaml --as com.example.Chat.Notify --keychain copy --service chat.example.com --account push

            Exit codes: 0 allow · 2 deny · 3 invalid input · 4 unknown (the file lacks what decides it).
            """)

    @OptionGroup var common: CommonOptions<CanFormat>
    @Argument(help: "The policy file.") var file: String
    @Option(
        name: .customLong("as"),
        help: "Who asks: a user name, a numeric uid, an app's bundle id, service:NAME, or @GROUP (a member of GROUP with no other right).",
        completion: .custom(Completions.subjects)) var who: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Under linux, ask as a process of the `--as` user holding exactly these capabilities, comma-separated (`cap_dac_read_search,cap_fowner`; `none`: no capability, e.g. root without them).",
            valueName: "caps"))
    var caps: String?
    @OptionGroup var request: RequestOptions
    @OptionGroup var steps: AfterOption
    @OptionGroup(title: "Keychain questions") var keychain: KeychainOptions
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Answer the questions of FILE (`-`: standard input), one a line, one answer a line: tab-separated `as op path` and what the op needs (see docs/cli.md).",
            valueName: "file"))
    var batch: String?

    func validate() throws {
        if batch != nil {
            if common.format == .junit || common.format == .sarif || common.format == .json {
                throw ValidationError("`can --batch` reads and writes text or `--format jsonl`")
            }
            if who != nil || caps != nil || request.op != nil || request.path != nil {
                throw ValidationError("`--batch` takes its questions from the file: give no `--as`, `--caps`, `--op` or path")
            }
            return
        }
        if common.format == .jsonl { throw ValidationError("`--format jsonl` goes with `can --batch`") }
        try common.requireTextOrJSON("can")
        if who == nil { throw ValidationError("Missing expected argument '--as <as>'") }
        if keychain.asked {
            if request.op != nil || request.path != nil { throw ValidationError("a keychain question (`--keychain`) takes no `--op` or path") }
            return
        }
        if request.op == nil { throw ValidationError("Missing expected argument '--op <op>'") }
        if request.path == nil { throw ValidationError("Missing expected argument '<path>'") }
    }

    func run() throws {
        let host = try OutputGuard.check(
            output: common.output, inputs: [(file, "the policy file", false)] + (batch.map { [($0, "the batch file", false)] } ?? []))
        var p = try loadOrExit(file, semantics: common.semantics, host: host, quiet: common.quiet)
        if let batch { return try runBatch(batch, policy: p) }
        if keychain.asked { return try KeychainQuestion.can(common, file: file, host: host, who: who ?? "", options: keychain, after: steps.after) }
        let who = who ?? ""
        try GroupSubjects.prepare(who, in: &p)
        let (resolved, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        let subject = try withCapsOrExit(resolved, caps, semantics: common.semantics ?? p.semantics, quiet: common.quiet)
        let ev = Evaluator(policy: p, semantics: common.semantics)
        try steps.check(ev)
        guard let subject, let d = ev.decide(spec, subject: subject, after: steps.after) else { throw ExitCode.invalid }
        let t = TextRenderer(policy: p, style: common.style, world: ev.world(after: steps.after))
        switch common.format {
        case .json: try common.emit(t.json(d, spec: spec, who: who, semantics: ev.authorizer.semantics).render() + "\n")
        default: if !common.quiet { try common.emit(t.oneLine(d, target: t.oneLineTarget(d, path: spec.path)) + "\n") }
        }
        if d.unknown { throw ExitCode.unknown }
        if !d.allowed { throw ExitCode.denied }
    }

    func runBatch(_ path: String, policy p: Policy) throws {
        let ev = Evaluator(policy: p, semantics: common.semantics, tracing: false)
        try steps.check(ev)
        let fd: Int32
        if path == "-" {
            fd = STDIN_FILENO
        } else {
            fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                printError("fspolicy: error: cannot read `\(path)`: \(String(cString: strerror(errno)))")
                throw ExitCode.invalid
            }
        }
        defer { if path != "-" { close(fd) } }
        let asker = BatchAsker(
            policy: p, evaluator: ev, after: steps.after, jsonl: common.format == .jsonl,
            inputName: path == "-" ? "<stdin>" : path)
        // Answers go out in pieces (see `BatchAsker.run`), each written out at once; after each
        // answer when the questions come from a terminal. With --output, the file is written once,
        // at the end.
        var whole: [UInt8] = []
        let sink = try common.output == nil ? common.sink() : nil
        let errors = try asker.run(
            fd: fd,
            emit: { piece, _ in
                guard let sink else { whole += piece; return }
                piece.withUnsafeBufferPointer { sink.write(bytes: $0) }
                try sink.flushOrExit()
            }, flushEach: isatty(fd) == 1)
        let out = try sink ?? common.sink()
        whole.withUnsafeBufferPointer { out.write(bytes: $0) }
        try out.close()
        if errors > 0 { throw ExitCode.invalid }
    }
}

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide one request and explain it layer by layer.",
        discussion: """
            Shows the question, the subject's groups, the answer, every layer consulted in order with its \
            verdict and the rights still undecided, the deciding rule and where it comes from. With \
            --compare, decides under macos, guide and linux and says where they disagree.

            Examples:
              fspolicy explain fixtures/examples/team-share/policy.yaml --as dave --op delete /Shared/Dropbox/bob-notes.txt
              fspolicy explain fixtures/examples/flags/policy.yaml --as bob --op write /Users/alice/contract.pdf --compare
              fspolicy explain fixtures/examples/keychain/policy.yaml --as com.example.ChatMac --keychain copy --service chat.example.com --account mac --compare

            Exit codes: 0 allow · 2 deny · 3 invalid input · 4 unknown (with --compare: the file's own rule set decides).
            """)

    @OptionGroup var common: CommonOptions<TextOrJSON>
    @Argument(help: "The policy file.") var file: String
    @Option(
        name: .customLong("as"),
        help: "Who asks: a user name, a numeric uid, an app's bundle id, service:NAME, or @GROUP (a member of GROUP with no other right).",
        completion: .custom(Completions.subjects)) var who: String
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Under linux, ask as a process of the `--as` user holding exactly these capabilities, comma-separated (`cap_dac_read_search,cap_fowner`; `none`: no capability, e.g. root without them).",
            valueName: "caps"))
    var caps: String?
    @OptionGroup var request: RequestOptions
    @Flag(name: .long, help: "Evaluate under macos, guide and linux side by side (keychain: iOS and the two macOS keychains).") var compare = false
    @OptionGroup var steps: AfterOption
    @OptionGroup(title: "Keychain questions") var keychain: KeychainOptions

    func validate() throws {
        try common.requireTextOrJSON("explain")
        if keychain.asked {
            if request.op != nil || request.path != nil { throw ValidationError("a keychain question (`--keychain`) takes no `--op` or path") }
            return
        }
        if request.op == nil { throw ValidationError("Missing expected argument '--op <op>'") }
        if request.path == nil { throw ValidationError("Missing expected argument '<path>'") }
    }

    func run() throws {
        let host = try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)])
        if keychain.asked {
            return try KeychainQuestion.explain(common, file: file, host: host, who: who, options: keychain, after: steps.after, compare: compare)
        }
        var p = try loadOrExit(file, semantics: common.semantics, host: host, quiet: common.quiet)
        try GroupSubjects.prepare(who, in: &p)
        let (asked, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        let main = common.semantics ?? p.semantics
        guard let subject = try withCapsOrExit(asked, caps, semantics: compare ? .linux : main, quiet: common.quiet) else { throw ExitCode.invalid }
        let mainEvaluator = Evaluator(policy: p, semantics: main)
        try steps.check(mainEvaluator)
        let t = TextRenderer(policy: p, style: common.style, world: mainEvaluator.world(after: steps.after))
        guard let primary = mainEvaluator.decide(spec, subject: subject, after: steps.after) else { throw ExitCode.invalid }
        if !compare {
            switch common.format {
            case .json: try common.emit(t.json(primary, spec: spec, who: who, semantics: main).render() + "\n")
            default: if !common.quiet { try common.emit(t.explain(primary, spec: spec, subject: subject, who: who, semantics: main) + "\n") }
            }
            if primary.unknown { throw ExitCode.unknown }
            if !primary.allowed { throw ExitCode.denied }
            return
        }
        let available: [Semantics] = [.macos, .guide, .linux]
        var decisions: [(Semantics, Decision)] = []
        for s in available {
            if let d = Evaluator(policy: p, semantics: s).decide(spec, subject: subject, after: steps.after) { decisions.append((s, d)) }
        }
        switch common.format {
        case .json: try common.emit(CompareReport.json(decisions, spec: spec, who: who, renderer: t))
        default: if !common.quiet { try common.emit(CompareReport.text(decisions, spec: spec, subject: subject, who: who, renderer: t)) }
        }
        if let d = decisions.first(where: { $0.0 == main })?.1, d.unknown { throw ExitCode.unknown }
        if let d = decisions.first(where: { $0.0 == main })?.1, !d.allowed { throw ExitCode.denied }
    }
}

struct Who: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every declared user (and app and service) allowed to do an operation, with the deciding rule.",
        discussion: """
            Also lists the groups through which the operation is allowed (the node's group and the \
            groups its ACL names), each with its members. A set of users that is everyone, or \
            everyone but a few, is written `everyone` or `everyone except …` (--list-all lists each \
            one). With --any and several comma-separated ops, a user is allowed when one op is.

            Examples:
              fspolicy who fixtures/examples/team-share/policy.yaml --op delete /Shared/Design/brief.txt
              fspolicy who fixtures/examples/linux-default-acl/policy.yaml --op create /srv/team/new.txt --format json
              fspolicy who fixtures/examples/keychain/policy.yaml --keychain copy --service chat.example.com --account push

            Exit codes: 0 · 3 invalid input.
            """)

    @OptionGroup var common: CommonOptions<TextOrJSON>
    @Argument(help: "The policy file.") var file: String
    @OptionGroup var request: RequestOptions
    @OptionGroup var steps: AfterOption
    @OptionGroup(title: "Keychain questions") var keychain: KeychainOptions
    @Flag(name: .long, help: "With several comma-separated ops: allowed when any of them is.") var any = false
    @Flag(name: .long, help: "Only the users allowed.") var allowed = false
    @Flag(name: .long, help: "Only the users denied.") var denied = false
    @Flag(name: .customLong("list-all"), help: "List every user, never `everyone except …`.") var listAll = false

    func validate() throws {
        try common.requireTextOrJSON("who")
        if allowed && denied { throw ValidationError("give `--allowed` or `--denied`, not both") }
        if keychain.asked {
            if request.op != nil || request.path != nil { throw ValidationError("a keychain question (`--keychain`) takes no `--op` or path") }
            return
        }
        if request.op == nil { throw ValidationError("Missing expected argument '--op <op>'") }
        if request.path == nil { throw ValidationError("Missing expected argument '<path>'") }
    }

    /// The op words of `--op` (comma-separated), without duplicates.
    var opWords: [String] {
        let op = request.op ?? ""
        var out: [String] = []
        for w in op.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) where !w.isEmpty && !out.contains(w) {
            out.append(w)
        }
        return out.isEmpty ? [op] : out
    }

    func run() throws {
        let host = try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)])
        if keychain.asked { return try KeychainQuestion.who(common, file: file, host: host, options: keychain, after: steps.after) }
        let p = try loadOrExit(file, semantics: common.semantics, host: host, quiet: common.quiet)
        let words = opWords
        if words.count > 1 && !any {
            printError(
                "fspolicy: error: `--op \(safe(request.op ?? ""))` names \(words.count) operations\n  help: add `--any` to ask whether a user may do any of them, or ask one op at a time"
            )
            throw ExitCode.invalid
        }
        var specs: [RequestSpec] = []
        for w in words { specs.append(try resolveOrExit(request.commandLine(as: nil, op: w), in: p).1) }
        let spec = specs[0]
        let ev = Evaluator(policy: p, semantics: common.semantics)
        try steps.check(ev)
        // Each user's decision: the first op allowed, else the first unknown, else the first op's.
        func combine(_ lists: [[(name: String, uid: UID, decision: Decision)]]) -> [(name: String, uid: UID, decision: Decision)] {
            guard var out = lists.first else { return [] }
            for i in out.indices {
                let ds = lists.map { $0[i].decision }
                out[i].decision = ds.first(where: \.allowed) ?? ds.first(where: \.unknown) ?? ds[0]
            }
            return out
        }
        let users = combine(specs.map { ev.who($0, after: steps.after) })
        // Declared apps follow the users (the `apps` key of the JSON is there only when the file declares apps).
        let apps = combine(specs.map { ev.whoApps($0, after: steps.after) })
        // Declared services follow (`service:NAME`; the `services` key only when the file declares some).
        let services = combine(specs.map { ev.whoServices($0, after: steps.after) })
        // Under linux, the programs through which someone refused as themselves is allowed.
        let programs = ev.whoThroughPrograms(spec, after: steps.after)
        let world = ev.world(after: steps.after)
        let t = TextRenderer(policy: p, style: common.style, world: world)
        let groups = WhoGroups.granting(specs, evaluator: ev, policy: p, world: world)
        let answer = WhoReport.Answer(
            ops: words, spec: spec, semantics: ev.authorizer.semantics, users: users, apps: apps, services: services,
            groups: groups.map { .init(name: $0.name, gid: $0.gid, via: $0.via, members: $0.members) }, programs: programs,
            listsApps: !p.appIDs.isEmpty, listsServices: !p.world.services.isEmpty, target: p.world.lookup(spec.path))
        switch common.format {
        case .json: try common.emit(WhoReport.json(answer, allowedOnly: allowed, deniedOnly: denied, renderer: t))
        default: if !common.quiet { try common.emit(WhoReport.text(answer, allowedOnly: allowed, deniedOnly: denied, listAll: listAll, renderer: t)) }
        }
    }
}
