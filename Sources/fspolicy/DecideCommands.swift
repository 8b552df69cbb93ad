import ArgumentParser
import FSPolicy
import FSPolicyFormat
import Foundation

struct Can: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide one request and print the answer on one line.",
        discussion: """
        Prints `allow`, or `deny ERRNO (layer: what decided)`.

        Examples:
          fspolicy can policy.yaml --as bob --op write /Users/alice/notes.txt
          fspolicy can policy.yaml --as alice --op rename /Shared/a --to /Shared/b
          fspolicy can policy.yaml --as 1003 --op chmod --mode 0600 /srv/shared/a

        Exit codes: 0 allow · 2 deny · 3 invalid input.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The policy file.") var file: String
    @Option(name: .customLong("as"), help: "Who asks: a user name, a numeric uid.") var who: String
    @OptionGroup var request: RequestOptions
    @OptionGroup var steps: AfterOption

    func validate() throws { try common.requireTextOrJSON("can") }

    func run() throws {
        let p = try loadOrExit(file, semantics: common.semantics)
        let (subject, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        guard case .user(let uid)? = subject else {
            printError("fspolicy: error: apps cannot be evaluated yet\n  help: ask as the app's user for now")
            throw ExitCode(3)
        }
        let ev = Evaluator(policy: p, semantics: common.semantics)
        try steps.check(ev)
        let d = ev.decide(spec, uid: uid, after: steps.after)
        let t = TextRenderer(policy: p, style: common.style, world: ev.world(after: steps.after))
        switch common.format {
        case .json: try common.emit(t.json(d, spec: spec, who: who, semantics: ev.authorizer.semantics).render() + "\n")
        default: try common.emit(t.oneLine(d, target: p.world.lookup(spec.path)) + "\n")
        }
        if !d.allowed { throw ExitCode(2) }
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
          fspolicy explain policy.yaml --as bob --op delete /Shared/plan.txt
          fspolicy explain policy.yaml --as alice --op write /Users/alice/locked.txt --compare

        Exit codes: 0 allow · 2 deny · 3 invalid input (with --compare: the file's own rule set decides).
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The policy file.") var file: String
    @Option(name: .customLong("as"), help: "Who asks: a user name, a numeric uid.") var who: String
    @OptionGroup var request: RequestOptions
    @Flag(name: .long, help: "Evaluate under macos, guide and linux side by side.") var compare = false
    @OptionGroup var steps: AfterOption

    func validate() throws { try common.requireTextOrJSON("explain") }

    func run() throws {
        let p = try loadOrExit(file, semantics: common.semantics)
        let (subject, spec) = try resolveOrExit(request.commandLine(as: who), in: p)
        guard case .user(let uid)? = subject else {
            printError("fspolicy: error: apps cannot be evaluated yet\n  help: ask as the app's user for now")
            throw ExitCode(3)
        }
        let main = common.semantics ?? p.semantics
        let mainEvaluator = Evaluator(policy: p, semantics: main)
        try steps.check(mainEvaluator)
        let t = TextRenderer(policy: p, style: common.style, world: mainEvaluator.world(after: steps.after))
        let primary = mainEvaluator.decide(spec, uid: uid, after: steps.after)
        if !compare {
            switch common.format {
            case .json: try common.emit(t.json(primary, spec: spec, who: who, semantics: main).render() + "\n")
            default: try common.emit(t.explain(primary, spec: spec, uid: uid, who: who, semantics: main) + "\n")
            }
            if !primary.allowed { throw ExitCode(2) }
            return
        }
        let available: [Semantics] = [.macos, .guide, .linux]
        var decisions: [(Semantics, Decision)] = []
        for s in available { decisions.append((s, Evaluator(policy: p, semantics: s).decide(spec, uid: uid, after: steps.after))) }
        let sentences = Comparison.sentences(decisions, renderer: t)
        switch common.format {
        case .json:
            let items: [JSON] = decisions.map { t.json($0.1, spec: spec, who: who, semantics: $0.0) }
            try common.emit(JSON.object([("schemaVersion", .int(1)), ("decisions", .array(items)),
                                         ("disagreements", .array(sentences.map { .string($0) }))]).render() + "\n")
        default:
            var out: [String] = []
            out.append(common.style.bold("Question:") + " " + t.question(spec, who: who))
            out.append("")
            for (s, d) in decisions {
                let res = d.allowed ? "allow" : "deny " + (d.errno?.rawValue ?? "")
                out.append("  " + s.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + res.padding(toLength: 14, withPad: " ", startingAt: 0)
                           + "layer \(d.layer.rawValue), rule \(d.rule.rawValue)")
            }
            out.append("")
            if sentences.isEmpty { out.append("macos and guide agree.") }
            for s in sentences { out.append(common.style.bold("Difference:") + " " + s) }
            for (s, d) in decisions {
                out.append("")
                out.append(common.style.bold("— \(s.rawValue) —"))
                out.append(t.explain(d, spec: spec, uid: uid, who: who, semantics: s))
            }
            try common.emit(out.joined(separator: "\n") + "\n")
        }
        if let d = decisions.first(where: { $0.0 == main })?.1, !d.allowed { throw ExitCode(2) }
    }
}

/// One-sentence statements of where rule sets disagree.
enum Comparison {
    static func sentences(_ ds: [(Semantics, Decision)], renderer t: TextRenderer) -> [String] {
        var out: [String] = []
        for i in ds.indices {
            for j in ds.indices where j > i {
                let (sa, a) = ds[i]
                let (sb, b) = ds[j]
                if a.allowed == b.allowed && a.errno == b.errno { continue }
                func ans(_ d: Decision) -> String { d.allowed ? "allows" : "denies (\(d.errno?.rawValue ?? ""))" }
                var why: String
                let guideRules = (a.trace + b.trace).map(\.rule).filter { $0.rawValue.hasPrefix("guide.") }
                    + [a.rule, b.rule].filter { $0.rawValue.hasPrefix("guide.") }
                if Set([sa, sb]) == [.macos, .guide], let g = guideRules.first {
                    why = g.info.summary + " [\(g.rawValue)]"
                } else {
                    why = "\(sa.rawValue) decides in the \(a.layer.rawValue) layer (\(a.rule.info(for: sa).summary)); "
                        + "\(sb.rawValue) in the \(b.layer.rawValue) layer (\(b.rule.info(for: sb).summary))"
                }
                out.append("\(sa.rawValue) \(ans(a)) but \(sb.rawValue) \(ans(b)) — " + why)
            }
        }
        return out
    }
}

struct Who: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every declared user allowed to do an operation, with the deciding rule.",
        discussion: """
        Examples:
          fspolicy who policy.yaml --op delete /Shared/plan.txt
          fspolicy who policy.yaml --op write /srv/shared --format json

        Exit codes: 0 · 3 invalid input.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The policy file.") var file: String
    @OptionGroup var request: RequestOptions
    @OptionGroup var steps: AfterOption

    func validate() throws { try common.requireTextOrJSON("who") }

    func run() throws {
        let p = try loadOrExit(file, semantics: common.semantics)
        let (_, spec) = try resolveOrExit(request.commandLine(as: nil), in: p)
        let ev = Evaluator(policy: p, semantics: common.semantics)
        try steps.check(ev)
        let rows = ev.who(spec, after: steps.after)
        let t = TextRenderer(policy: p, style: common.style, world: ev.world(after: steps.after))
        let target = p.world.lookup(spec.path)
        switch common.format {
        case .json:
            try common.emit(JSON.object([
                ("schemaVersion", .int(1)),
                ("op", .string(spec.op.word)), ("path", .string(spec.path)),
                ("semantics", .string(ev.authorizer.semantics.rawValue)),
                ("users", .array(rows.map { r in
                    .object([("name", .string(r.name)), ("uid", .int(Int(r.uid))),
                             ("result", .string(r.decision.allowed ? "allow" : "deny")),
                             ("errno", r.decision.errno.map { .string($0.rawValue) } ?? .null),
                             ("layer", .string(r.decision.layer.rawValue)), ("rule", .string(r.decision.rule.rawValue)),
                             ("decidedBy", t.json(r.decision.evidence))])
                })),
            ]).render() + "\n")
        default:
            var out = ["Who can \(spec.op.word) \(spec.path)? [semantics: \(ev.authorizer.semantics.rawValue)]"]
            let width = max(8, rows.map(\.name.count).max() ?? 0)
            let allowed = rows.filter { $0.decision.allowed }
            let denied = rows.filter { !$0.decision.allowed }
            out.append(common.style.bold("allowed:") + (allowed.isEmpty ? " nobody" : ""))
            for r in allowed {
                let ev = t.evidence(r.decision.evidence, relativeTo: target)
                out.append("  " + r.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + "\(r.decision.layer.rawValue): \(r.decision.rule.rawValue)" + (ev.isEmpty ? "" : " — " + ev))
            }
            out.append(common.style.bold("denied:") + (denied.isEmpty ? " nobody" : ""))
            for r in denied {
                out.append("  " + r.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + t.oneLine(r.decision, target: target))
            }
            try common.emit(out.joined(separator: "\n") + "\n")
        }
    }
}
