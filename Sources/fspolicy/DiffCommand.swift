import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

/// `diff`: text for people, json for programs, sarif for code scanning.
enum DiffFormat: String, FormatChoice {
    case text, json, sarif
    static let help = "Output format: text, json or sarif."
}

struct Diff: ParsableCommand {
    /// The most differing decisions `diff` holds (docs/cli.md, Limits).
    static let changeLimit = 1_000_000
    static let configuration = CommandConfiguration(
        abstract: "Every (user or service, op, path) whose decision differs between two worlds.",
        discussion: """
            Compares two policy files or scans (OLD NEW), or a file before and after its steps \
            (POLICY --steps). Each change is one line: the path, `+op` (now allowed) or `-op` (now \
            denied), and the users it happens to, written `everyone` or `everyone except …` when \
            that is shorter. With --list-all, one line per user: the user, the op, the path, and in \
            parentheses what decides in the new world (ask `fspolicy explain` on either file for \
            the whole trace). Paths that exist on one side only count \
            as denied on the other. Users: every user declared in NEW, then those only in OLD (or \
            --users), then the services of either as service:NAME (a change of a unit's options is a \
            change of what the service may do); ops: read, write, execute (or --op). `everyone` counts \
            the users only: the services follow it by name. Then, under `privileges and \
            inheritance:`, each path whose set-user-ID or set-group-ID bit, file capabilities, \
            default ACL or inheritable ACEs changed (or that is new with them): what running the \
            program gives, what files created there get. Either kind of change makes the exit 1.

            Examples:
              fspolicy diff fixtures/examples/audit/before.yaml fixtures/examples/audit/after.yaml
              fspolicy diff fixtures/examples/linux-default-acl/policy.yaml --steps --op read,write
              fspolicy diff fixtures/examples/audit/before.yaml fixtures/examples/audit/after.yaml --format sarif

            Exit codes: 0 no change · 1 changes · 3 invalid input.
            """)

    @Argument(help: "OLD and NEW (two files), or one file with --steps.") var files: [String]
    @Flag(name: .long, help: "Compare the file's tree before its steps with the tree after them.") var steps = false
    @Option(name: .long, help: "Users, comma-separated or repeated, services as service:NAME (default: all declared on either side).")
    var users: [String] = []
    @Option(name: .long, help: ArgumentHelp("An operation, comma-separated or repeated (default: read, write, execute).", valueName: "op")) var op: [String] =
        []
    @Option(name: .long, help: "Only this path and what is below it.") var under: String?
    @Option(name: .customLong("format"), help: ArgumentHelp(DiffFormat.help, valueName: "format")) var formatChoice: DiffFormat = .text
    var format: OutputFormat { formatChoice.output }
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of standard output.") var output: String?
    @Option(name: .long, help: "Rule set that decides both sides, overriding the files: macos, guide or linux.") var semantics: Semantics?
    @OptionGroup var color: ColorOption
    @Flag(name: .customLong("list-all"), help: "Text: one line per user and change, with what decides it.") var listAll = false

    func validate() throws {
        if steps && files.count != 1 { throw ValidationError("`--steps` compares one file before and after its steps: give exactly one file") }
        if !steps && files.count != 2 { throw ValidationError("give two files (OLD NEW), or one file with `--steps`") }
        if format == .junit || format == .jsonl { throw ValidationError("`diff` prints text, json or sarif") }
    }

    func run() throws {
        let host = try OutputGuard.check(output: output, inputs: files.map { ($0, "the policy file", false) })
        let (oldPolicy, newPolicy) =
            steps
            ? try {
                let p = try loadOrExit(files[0], semantics: semantics, host: host); return (p, p)
            }()
            : try loadBothOrExit(files[0], files[1], semantics: semantics, host: host)
        let sem = semantics ?? newPolicy.semantics
        let oldWorld: World, newWorld: World
        if steps {
            let ev = Evaluator(policy: oldPolicy, semantics: sem, tracing: false)
            oldWorld = ev.worlds[0]
            newWorld = ev.worlds[ev.worlds.count - 1]
        } else {
            oldWorld = Evaluator(policy: oldPolicy, semantics: sem, tracing: false).world(after: nil)
            newWorld = Evaluator(policy: newPolicy, semantics: sem, tracing: false).world(after: nil)
        }
        let ops = try AuditInput.ops(op, defaults: [.read, .write, .execute])
        // Users: by name on each side; a user declared on one side only is, on the other, its
        // uid with no declared groups.
        var names: [String] = []
        var uidOf: [String: UID] = [:]
        for p in [newPolicy, oldPolicy] {
            for n in p.userOrder where uidOf[n] == nil {
                if let u = p.world.user(named: n) { names.append(n); uidOf[n] = u.uid }
            }
        }
        // Then the services (`service:NAME`), NEW's first; one declared on one side only is, on
        // the other, the same service (its user, capabilities and unit's view) on that side's tree.
        var serviceOf: [String: Service] = [:]
        for w in [newWorld, oldWorld] {
            for svc in w.services where serviceOf["service:" + svc.name] == nil {
                let n = "service:" + svc.name
                names.append(n); uidOf[n] = svc.uid; serviceOf[n] = svc
            }
        }
        let wanted = users.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        if !wanted.isEmpty {
            var picked: [String] = []
            for w in wanted {
                if uidOf[w] != nil { if !picked.contains(w) { picked.append(w) }; continue }
                if SubjectSetText.isService(w) {
                    let known = serviceOf.keys.sorted().map { String($0.dropFirst("service:".count)) }
                    let name = String(w.dropFirst("service:".count))
                    let hint = nearest(name, in: known).map { "did you mean `service:\($0)`?" } ?? "declare it under `services`"
                    printError("fspolicy: error: unknown service `\(safe(name))` in `--users`\n  help: \(hint)")
                    throw ExitCode.invalid
                }
                if let uid = UInt32(w) {
                    let n = newWorld.user(uid: uid)?.name ?? oldWorld.user(uid: uid)?.name ?? w
                    if uidOf[n] == nil { uidOf[n] = uid }
                    if !picked.contains(n) { picked.append(n) }
                    continue
                }
                printError("fspolicy: error: unknown user `\(safe(w))` in `--users`\n  help: declared users: \(names.joined(separator: ", "))")
                throw ExitCode.invalid
            }
            names = picked
        }
        // Services whose units make the same changes share one view world in each tree.
        var oldViews = ViewWorlds()
        var newViews = ViewWorlds()
        func subject(_ w: World, _ name: String, _ views: inout ViewWorlds) -> Subject {
            if let svc = serviceOf[name] {
                if let i = w.serviceIndex(svc.name) { return w.subject(service: i, views: &views) }
                // A service only the other tree declares: its process and view, laid over this tree.
                var with = w
                with.services.append(svc)
                return with.subject(service: with.services.count - 1, views: &views)
            }
            if let u = w.user(named: name) { return w.subject(uid: u.uid) }
            return w.subject(uid: uidOf[name]!)
        }
        let top = under ?? "/"
        if under != nil && (oldWorld.lookup(top) == nil && newWorld.lookup(top) == nil || !top.hasPrefix("/")) {
            printError("fspolicy: error: `--under \(safe(top))` is in neither tree\n  help: give an absolute path that exists in OLD or NEW")
            throw ExitCode.invalid
        }
        var diff = WorldDiff(
            old: oldWorld, new: newWorld, semantics: sem,
            oldSubjects: names.map { subject(oldWorld, $0, &oldViews) }, newSubjects: names.map { subject(newWorld, $0, &newViews) }, ops: ops)
        diff.limit = Diff.changeLimit
        var changes = diff.run(under: top)
        if diff.overLimit {
            printError(
                "fspolicy: error: more than \(Diff.changeLimit.formatted(.number.locale(Locale(identifier: "en_US")))) decisions differ, the limit of `diff` (each is held to be sorted and explained)\n  help: narrow it with `--users`, `--op` or `--under`; `fspolicy matrix` of each file, compared with `diff` or `comm`, has no limit"
            )
            throw ExitCode.invalid
        }
        // What a program gives and a directory passes on: not a decision of today, a change all the same.
        let privileges = diff.privilegeChanges(under: top, limit: Diff.changeLimit)
        if privileges.overLimit {
            printError(
                "fspolicy: error: more than \(Diff.changeLimit.formatted(.number.locale(Locale(identifier: "en_US")))) set-ID bits, file capabilities or inherited ACLs differ, the limit of `diff`\n  help: narrow it with `--under`"
            )
            throw ExitCode.invalid
        }
        // A change one side cannot decide (it depends on what that side's scan did not read,
        // P6) is not a change: it is set apart as unknown (a scan as nobody against a scan as
        // root differs in what each could read, not in who may do what).
        var unknownChanges: [AccessChange] = []
        if !oldWorld.unread.isEmpty || !newWorld.unread.isEmpty {
            let oa = Authorizer(world: oldWorld, semantics: sem, tracing: false)
            let na = Authorizer(world: newWorld, semantics: sem, tracing: false)
            changes = changes.filter { c in
                let unknown =
                    oa.decide(Request(subject: diff.oldSubjects[c.subject], op: ops[c.op], path: c.path)).unknown
                    || na.decide(Request(subject: diff.newSubjects[c.subject], op: ops[c.op], path: c.path)).unknown
                if unknown { unknownChanges.append(c) }
                return !unknown
            }
        }

        let sink = try OutputSink.open(output)
        let report = DiffReport(
            oldName: steps ? files[0] + " (before its steps)" : files[0],
            newName: steps ? files[0] + " (after its steps)" : files[1],
            newFile: steps ? files[0] : files[1], oldPolicy: oldPolicy, newPolicy: newPolicy, steps: steps,
            newWorld: newWorld, semantics: sem, under: top, names: names, uidOf: uidOf,
            newSubjects: diff.newSubjects, ops: ops, changes: changes, unknownChanges: unknownChanges,
            privilegeChanges: privileges.changes)
        switch format {
        case .json: report.json(write: sink.write)
        case .sarif: report.sarif(toolVersion: fspolicyVersion, write: sink.write)
        default: report.text(listAll: listAll, style: color.style(output: output), write: sink.write)
        }
        try sink.close()
        if !changes.isEmpty || !privileges.changes.isEmpty { throw ExitCode.failed }
    }
}
