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
        try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)] + (batch.map { [($0, "the batch file", false)] } ?? []))
        var p = try loadOrExit(file, semantics: common.semantics)
        if let batch { return try runBatch(batch, policy: p) }
        if keychain.asked { return try KeychainQuestion.can(common, file: file, who: who ?? "", options: keychain, after: steps.after) }
        let who = who ?? ""
        try GroupSubjects.prepare(who, in: &p)
        let (resolved, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        let subject = try withCapsOrExit(resolved, caps)
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
        try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)])
        if keychain.asked { return try KeychainQuestion.explain(common, file: file, who: who, options: keychain, after: steps.after, compare: compare) }
        var p = try loadOrExit(file, semantics: common.semantics)
        try GroupSubjects.prepare(who, in: &p)
        let (asked, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        guard let subject = try withCapsOrExit(asked, caps) else { throw ExitCode.invalid }
        let main = common.semantics ?? p.semantics
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
        let sentences = Comparison.sentences(decisions, renderer: t)
        switch common.format {
        case .json:
            let items: [JSON] = decisions.map { t.json($0.1, spec: spec, who: who, semantics: $0.0) }
            try common.emit(
                JSON.object([
                    ("schemaVersion", .int(1)), ("decisions", .array(items)),
                    ("disagreements", .array(sentences.map { .string($0) }))
                ]).render() + "\n")
        default:
            var out: [String] = []
            out.append(common.style.bold("Question:") + " " + t.question(spec, who: who))
            out.append("")
            for (s, d) in decisions {
                let res = d.allowed ? "allow" : d.unknown ? "unknown" : "deny " + (d.errno?.rawValue ?? "")
                out.append(
                    "  " + s.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + res.padding(toLength: 14, withPad: " ", startingAt: 0)
                        + "layer \(d.layer.rawValue), rule \(d.rule.rawValue)")
            }
            out.append("")
            if sentences.isEmpty { out.append(Comparison.agreement(decisions)) }
            for s in sentences { out.append(common.style.bold("Difference:") + " " + s) }
            for (s, d) in decisions {
                out.append("")
                out.append(common.style.bold("— \(s.rawValue) —"))
                out.append(t.explain(d, spec: spec, subject: subject, who: who, semantics: s))
            }
            if !common.quiet { try common.emit(out.joined(separator: "\n") + "\n") }
        }
        if let d = decisions.first(where: { $0.0 == main })?.1, d.unknown { throw ExitCode.unknown }
        if let d = decisions.first(where: { $0.0 == main })?.1, !d.allowed { throw ExitCode.denied }
    }
}

/// Where the rule sets disagree, in one sentence: the answers grouped (the odd one out first),
/// then why — the guide rule behind a macos/guide split, and the layer and rule of a rule set
/// that stands apart.
enum Comparison {
    static func sentences(_ ds: [(Semantics, Decision)], renderer t: TextRenderer) -> [String] {
        func key(_ d: Decision) -> String { d.allowed ? "allow" : d.unknown ? "unknown" : "deny " + (d.errno?.rawValue ?? "") }
        func answer(_ d: Decision, plural: Bool) -> String {
            if d.unknown { return plural ? "do not know" : "does not know" }
            return d.allowed ? (plural ? "allow" : "allows") : (plural ? "deny" : "denies") + " (\(d.errno?.rawValue ?? ""))"
        }
        var groups: [[(Semantics, Decision)]] = []
        for x in ds {
            if let i = groups.firstIndex(where: { key($0[0].1) == key(x.1) }) { groups[i].append(x) } else { groups.append([x]) }
        }
        guard groups.count > 1 else { return [] }
        if groups.count == 2 && groups[1].count < groups[0].count { groups.swapAt(0, 1) }
        let parts = groups.map { g in names(g.map(\.0)) + " " + answer(g[0].1, plural: g.count > 1) }
        let said = groups.count == 2 ? parts[0] + " but " + parts[1] : list(parts)
        func group(of s: Semantics) -> Int? { groups.firstIndex { $0.contains { $0.0 == s } } }
        func decision(_ s: Semantics) -> Decision? { ds.first { $0.0 == s }?.1 }
        func layerAndRule(_ s: Semantics, _ d: Decision) -> String {
            "in the \(d.layer.rawValue) layer (\(d.rule.info(for: s).summary))"
        }
        var why: [String] = []
        if let gm = group(of: .macos), let gg = group(of: .guide), gm != gg, let m = decision(.macos), let g = decision(.guide) {
            let guideRules =
                (m.trace + g.trace).map(\.rule).filter { $0.rawValue.hasPrefix("guide.") }
                + [m.rule, g.rule].filter { $0.rawValue.hasPrefix("guide.") }
            if let r = guideRules.first {
                why.append(r.info.summary + " [\(r.rawValue)]")
            } else {
                why.append("macos decides " + layerAndRule(.macos, m) + "; guide " + layerAndRule(.guide, g))
            }
        }
        if let gl = group(of: .linux), let l = decision(.linux), !groups[gl].contains(where: { $0.0 != .linux }) {
            let others = ds.filter { $0.0 != .linux }
            var s = "linux decides " + layerAndRule(.linux, l)
            if l.trace.contains(where: { $0.rule == .linuxMaskEmptySkipsACL }) {
                s += " after skipping the ACL (\(RuleID.linuxMaskEmptySkipsACL.info(for: .linux).summary))"
            }
            if let (o, d) = others.first, why.isEmpty {
                let sameGroup = others.filter { key($0.1) == key(d) && $0.1.rule == d.rule }.map(\.0)
                s += "; " + names(sameGroup.isEmpty ? [o] : sameGroup) + " " + layerAndRule(o, d)
            }
            why.append(s)
        }
        return [said + (why.isEmpty ? "" : " — " + why.joined(separator: "; and "))]
    }

    /// The line shown when every rule set gives the same answer.
    static func agreement(_ ds: [(Semantics, Decision)]) -> String {
        names(ds.map(\.0)) + (ds.count == 2 ? " agree." : (ds.count > 2 ? " all agree." : " only."))
    }

    static func names(_ ss: [Semantics]) -> String { list(ss.map(\.rawValue)) }

    static func list(_ xs: [String]) -> String {
        xs.count <= 2 ? xs.joined(separator: " and ") : xs.dropLast().joined(separator: ", ") + " and " + xs.last!
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
        try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)])
        if keychain.asked { return try KeychainQuestion.who(common, file: file, options: keychain, after: steps.after) }
        let p = try loadOrExit(file, semantics: common.semantics)
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
        let rows = users + apps + services
        // Under linux, the programs through which someone refused as themselves is allowed.
        let programs = ev.whoThroughPrograms(spec, after: steps.after)
        let world = ev.world(after: steps.after)
        let t = TextRenderer(policy: p, style: common.style, world: world)
        let target = p.world.lookup(spec.path)
        let groups = WhoGroups.granting(specs, evaluator: ev, policy: p, world: world)
        let opText = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : spec.op.word
        switch common.format {
        case .json:
            func row(_ r: (name: String, uid: UID, decision: Decision)) -> JSON {
                .object([
                    ("name", .string(r.name)), ("uid", .int(Int(r.uid))),
                    ("result", .string(r.decision.allowed ? "allow" : r.decision.unknown ? "unknown" : "deny")),
                    ("errno", r.decision.errno.map { .string($0.rawValue) } ?? .null),
                    ("layer", .string(r.decision.layer.rawValue)), ("rule", .string(r.decision.rule.rawValue)),
                    ("decidedBy", t.json(r.decision.evidence))
                ])
            }
            func keep(_ r: (name: String, uid: UID, decision: Decision)) -> Bool {
                allowed ? r.decision.allowed : denied ? !r.decision.allowed && !r.decision.unknown : true
            }
            var doc: [(String, JSON)] = [("schemaVersion", .int(1))]
            doc.append(words.count > 1 ? ("ops", .array(words.map { .string($0) })) : ("op", .string(spec.op.word)))
            doc += [
                ("path", .string(spec.path)),
                ("semantics", .string(ev.authorizer.semantics.rawValue)),
                ("users", .array(users.filter(keep).map(row))),
                (
                    "groups",
                    .array(
                        groups.map { g in
                            .object([
                                ("name", .string(g.name)), ("gid", .int(Int(g.gid))), ("via", .string(g.via)),
                                ("members", .array(g.members.map { .string($0) }))
                            ])
                        })
                )
            ]
            if !p.appIDs.isEmpty { doc.append(("apps", .array(apps.filter(keep).map(row)))) }
            if !p.world.services.isEmpty { doc.append(("services", .array(services.filter(keep).map(row)))) }
            if !programs.isEmpty {
                doc.append(
                    (
                        "throughPrograms",
                        .array(
                            programs.map { pa in
                                .object([
                                    ("path", .string(pa.path)), ("gives", .array(pa.gives.map { .string($0) })), ("users", .array(pa.users.map { .string($0) }))
                                ])
                            })
                    ))
            }
            try common.emit(JSON.object(doc).render() + "\n")
        default:
            var out = ["Who can \(opText) \(spec.path)? [semantics: \(ev.authorizer.semantics.rawValue)]"]
            let width = max(8, rows.map(\.name.count).max() ?? 0)
            let allowedRows = rows.filter { $0.decision.allowed }
            let deniedRows = rows.filter { !$0.decision.allowed && !$0.decision.unknown }
            let unknown = rows.filter { $0.decision.unknown }
            let set = listAll ? nil : UserSet.phrase(allowed: users.filter { $0.decision.allowed }.map(\.name), of: users.map(\.name))
            func pad(_ name: String) -> String { "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) }
            if !denied {
                if let set, apps.isEmpty {
                    out.append(common.style.bold("allowed:") + " " + set)
                } else {
                    out.append(common.style.bold("allowed:") + (allowedRows.isEmpty ? " nobody" : ""))
                    for r in allowedRows {
                        let ev = t.evidence(r.decision.evidence, relativeTo: target)
                        out.append(pad(r.name) + "\(r.decision.layer.rawValue): \(r.decision.rule.rawValue)" + (ev.isEmpty ? "" : " — " + ev))
                    }
                }
                if !groups.isEmpty {
                    out.append(common.style.bold("through groups:"))
                    for g in groups {
                        let members = g.members.isEmpty ? "no members" : "members " + g.members.joined(separator: ", ")
                        out.append(pad("@" + g.name) + "named by the \(g.via); \(members)")
                    }
                }
            }
            if !allowed {
                out.append(common.style.bold("denied:") + (deniedRows.isEmpty ? " nobody" : ""))
                for r in deniedRows { out.append(pad(r.name) + t.oneLine(r.decision, target: target)) }
            }
            // Only when some answer is not known: the file lacks what decides it (P6).
            if !unknown.isEmpty {
                out.append(common.style.bold("unknown:"))
                for r in unknown { out.append(pad(r.name) + t.oneLine(r.decision, target: target)) }
            }
            if !programs.isEmpty {
                out.append(common.style.bold("allowed through a program they may run") + " (set-ID bits, file capabilities; what it does is up to its code):")
                for pa in programs {
                    out.append("  " + pa.path + " (" + pa.gives.joined(separator: ", ") + "): " + pa.users.joined(separator: ", "))
                }
            }
            if !common.quiet { try common.emit(out.joined(separator: "\n") + "\n") }
        }
    }
}
