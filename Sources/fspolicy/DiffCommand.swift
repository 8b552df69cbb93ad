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
        abstract: "Every (user, op, path) whose decision differs between two worlds.",
        discussion: """
        Compares two policy files or scans (OLD NEW), or a file before and after its steps \
        (POLICY --steps). Each change is one line: the path, `+op` (now allowed) or `-op` (now \
        denied), and the users it happens to, written `everyone` or `everyone except …` when \
        that is shorter. With --list-all, one line per user: the user, the op, the path, and in \
        parentheses what decides in the new world (ask `fspolicy explain` on either file for \
        the whole trace). Paths that exist on one side only count \
        as denied on the other. Users: every user declared in NEW, then those only in OLD (or \
        --users); ops: read, write, execute (or --op).

        Examples:
          fspolicy diff fixtures/examples/audit/before.yaml fixtures/examples/audit/after.yaml
          fspolicy diff fixtures/examples/linux-default-acl/policy.yaml --steps --op read,write
          fspolicy diff fixtures/examples/audit/before.yaml fixtures/examples/audit/after.yaml --format sarif

        Exit codes: 0 no change · 1 changes · 3 invalid input.
        """)

    @Argument(help: "OLD and NEW (two files), or one file with --steps.") var files: [String]
    @Flag(name: .long, help: "Compare the file's tree before its steps with the tree after them.") var steps = false
    @Option(name: .long, help: "Users, comma-separated or repeated (default: all declared on either side).") var users: [String] = []
    @Option(name: .long, help: ArgumentHelp("An operation, comma-separated or repeated (default: read, write, execute).", valueName: "op")) var op: [String] = []
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
        try OutputGuard.check(output: output, inputs: files.map { ($0, "the policy file", false) })
        let (oldPolicy, newPolicy) = steps ? try { let p = try loadOrExit(files[0], semantics: semantics); return (p, p) }()
            : try loadBothOrExit(files[0], files[1], semantics: semantics)
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
        let wanted = users.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        if !wanted.isEmpty {
            var picked: [String] = []
            for w in wanted {
                if uidOf[w] != nil { if !picked.contains(w) { picked.append(w) }; continue }
                if let uid = UInt32(w) {
                    let n = newWorld.user(uid: uid)?.name ?? oldWorld.user(uid: uid)?.name ?? w
                    if uidOf[n] == nil { uidOf[n] = uid }
                    if !picked.contains(n) { picked.append(n) }
                    continue
                }
                printError("fspolicy: error: unknown user `\(safe(w))` in `--users`\n  help: declared users: \(names.joined(separator: ", "))")
                throw ExitCode(3)
            }
            names = picked
        }
        func subject(_ w: World, _ name: String) -> Subject {
            if let u = w.user(named: name) { return w.subject(uid: u.uid) }
            return w.subject(uid: uidOf[name]!)
        }
        let top = under ?? "/"
        if under != nil && (oldWorld.lookup(top) == nil && newWorld.lookup(top) == nil || !top.hasPrefix("/")) {
            printError("fspolicy: error: `--under \(safe(top))` is in neither tree\n  help: give an absolute path that exists in OLD or NEW")
            throw ExitCode(3)
        }
        var diff = WorldDiff(old: oldWorld, new: newWorld, semantics: sem,
                             oldSubjects: names.map { subject(oldWorld, $0) }, newSubjects: names.map { subject(newWorld, $0) }, ops: ops)
        diff.limit = Diff.changeLimit
        var changes = diff.run(under: top)
        if diff.overLimit {
            printError("fspolicy: error: more than \(Diff.changeLimit.formatted(.number.locale(Locale(identifier: "en_US")))) decisions differ, the limit of `diff` (each is held to be sorted and explained)\n  help: narrow it with `--users`, `--op` or `--under`; `fspolicy matrix` of each file, compared with `diff` or `comm`, has no limit")
            throw ExitCode(3)
        }
        // A change one side cannot decide (it depends on what that side's scan did not read,
        // P6) is not a change: it is set apart as unknown (a scan as nobody against a scan as
        // root differs in what each could read, not in who may do what).
        var unknownChanges: [AccessChange] = []
        if !oldWorld.unread.isEmpty || !newWorld.unread.isEmpty {
            let oa = Authorizer(world: oldWorld, semantics: sem, tracing: false)
            let na = Authorizer(world: newWorld, semantics: sem, tracing: false)
            changes = changes.filter { c in
                let unknown = oa.decide(Request(subject: diff.oldSubjects[c.subject], op: ops[c.op], path: c.path)).unknown
                    || na.decide(Request(subject: diff.newSubjects[c.subject], op: ops[c.op], path: c.path)).unknown
                if unknown { unknownChanges.append(c) }
                return !unknown
            }
        }

        // What decides each change, in the world where it now stands (the new one; the old one
        // for a path that no longer exists).
        let oldRenderer = TextRenderer(policy: oldPolicy, world: oldWorld)
        let newRenderer = TextRenderer(policy: newPolicy, world: newWorld)
        let oldAuth = Authorizer(world: oldWorld, semantics: sem, tracing: false)
        let newAuth = Authorizer(world: newWorld, semantics: sem, tracing: false)
        struct Row { var change: AccessChange; var decision: Decision?; var why: String }
        // Made one at a time as it is written: a decision with its evidence per change is not
        // held for all of them.
        func row(_ c: AccessChange) -> Row {
            if c.newNode == nil { return Row(change: c, decision: nil, why: "removed") }
            let d = newAuth.decide(Request(subject: diff.newSubjects[c.subject], op: ops[c.op], path: c.path))
            let ev = newRenderer.evidence(d.evidence, relativeTo: c.newNode)
            var why: String
            switch d.rule {
            case .searchDenied: why = "\(d.layer.rawValue): no search on \(newWorld.path(of: d.node))"
            default: why = "\(d.layer.rawValue): \(ev.isEmpty ? d.rule.rawValue : ev)"
            }
            if c.oldNode == nil { why = "new; " + why }
            return Row(change: c, decision: d, why: why)
        }
        _ = oldAuth
        _ = oldRenderer
        let sink = try OutputSink(path: output)
        let oldName = steps ? files[0] + " (before its steps)" : files[0]
        let newName = steps ? files[0] + " (after its steps)" : files[1]
        switch format {
        case .json:
            let doc = JSON.object([
                ("schemaVersion", .int(1)), ("old", .string(oldName)), ("new", .string(newName)),
                ("semantics", .string(sem.rawValue)), ("under", .string(top)),
                ("users", .array(names.map { .string($0) })), ("ops", .array(ops.map { .string($0.word) })),
                ("changes", .array(changes.isEmpty ? [] : [.string(Diff.rowsMark)])),
                ("count", .int(changes.count)),
                ("unknown", .array(unknownChanges.map { c in
                    .object([("user", .string(names[c.subject])), ("op", .string(ops[c.op].word)), ("path", .string(c.path))])
                })),
            ])
            Diff.stream(doc, indent: 4, count: changes.count, into: sink) { i in
                    let r = row(changes[i])
                    var f: [(String, JSON)] = [
                        ("user", .string(names[r.change.subject])), ("uid", .int(Int(uidOf[names[r.change.subject]]!))),
                        ("op", .string(ops[r.change.op].word)), ("path", .string(r.change.path)),
                        ("change", .string(r.change.gained ? "allowed" : "denied")),
                        ("before", .string(r.change.gained ? "deny" : "allow")), ("after", .string(r.change.gained ? "allow" : "deny")),
                        ("exists", .object([("old", .bool(r.change.oldNode != nil)), ("new", .bool(r.change.newNode != nil))])),
                    ]
                    if let d = r.decision {
                        f.append(("layer", .string(d.layer.rawValue)))
                        f.append(("rule", .string(d.rule.rawValue)))
                        f.append(("errno", d.errno.map { .string($0.rawValue) } ?? .null))
                        f.append(("decidedBy", newRenderer.json(d.evidence)))
                    }
                    f.append(("why", .string(r.why)))
                    return .object(f)
            }
        case .sarif:
            func result(_ i: Int) -> JSON {
                let c = changes[i]
                let r = row(c)
                let text = "\(names[c.subject]) \(c.gained ? "may now" : "may no longer") \(ops[c.op].word) \(c.path) (\(r.why))"
                var loc: [(String, JSON)] = [("artifactLocation", .object([("uri", .string(steps ? files[0] : files[1]))]))]
                if let l = newPolicy.nodeLocation(c.path) ?? (steps ? nil : oldPolicy.nodeLocation(c.path)), l.line > 0 {
                    loc.append(("region", .object([("startLine", .int(l.line)), ("startColumn", .int(max(1, l.column)))])))
                }
                return .object([("ruleId", .string(c.gained ? "access-gained" : "access-lost")),
                                        ("level", .string(c.gained ? "warning" : "note")),
                                        ("message", .object([("text", .string(text))])),
                                        ("locations", .array([.object([("physicalLocation", .object(loc))])]))])
            }
            let doc = JSON.object([
                ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
                ("version", .string("2.1.0")),
                ("runs", .array([.object([
                    ("tool", .object([("driver", .object([
                        ("name", .string("fspolicy")), ("version", .string(fspolicyVersion)),
                        ("rules", .array([
                            .object([("id", .string("access-gained")), ("shortDescription", .object([("text", .string("A user may now do something they could not"))]))]),
                            .object([("id", .string("access-lost")), ("shortDescription", .object([("text", .string("A user may no longer do something they could"))]))]),
                        ])),
                    ]))])),
                    ("results", .array(changes.isEmpty ? [] : [.string(Diff.rowsMark)])),
                ])])),
            ])
            Diff.stream(doc, indent: 8, count: changes.count, into: sink, result)
        default:
            if !listAll {
                // One line per (path, op, direction), in the order the changes come, with the
                // users as a set.
                var order: [String] = []
                var groups: [String: (path: String, op: Int, gained: Bool, users: Set<Int>)] = [:]
                for c in changes {
                    let key = "\(c.path)\u{0}\(c.op)\u{0}\(c.gained)"
                    if groups[key] == nil { order.append(key); groups[key] = (c.path, c.op, c.gained, []) }
                    groups[key]!.users.insert(c.subject)
                }
                let style = color.style(output: output)
                for key in order {
                    let g = groups[key]!
                    let who = names.indices.filter { g.users.contains($0) }.map { names[$0] }
                    let set = SubjectSetText.text(allowed: who, of: names)
                    let word = (g.gained ? "+" : "-") + ops[g.op].word
                    let line = safe(g.path) + " " + (g.gained ? style.green(word) : style.red(word)) + ": " + safe(set) + "\n"
                    // The pieces are escaped already; this turns the style's marks into colors.
                    sink.write(style.enabled ? Escaping.terminal(line, color: true) : line)
                }
            }
            let uw = names.indices.map { i in changes.contains { $0.subject == i } ? safe(names[i]).count : 0 }.max() ?? 0
            let ow = ops.indices.map { k in changes.contains { $0.op == k } ? ops[k].word.count + 1 : 0 }.max() ?? 0
            var pw = 0
            var lastPath: String? = nil
            for c in changes where c.path != lastPath { pw = max(pw, safe(c.path).count); lastPath = c.path }
            let style = color.style(output: output)
            for c in changes where listAll {
                let r = row(c)
                let user = safe(names[c.subject]).padding(toLength: uw, withPad: " ", startingAt: 0)
                let word = (c.gained ? "+" : "-") + ops[c.op].word
                let o = (c.gained ? style.green(word) : style.red(word)) + String(repeating: " ", count: max(0, ow - word.count))
                let p = safe(c.path).padding(toLength: pw, withPad: " ", startingAt: 0)
                let line = "\(user)  \(o)  \(p)  (\(safe(r.why)))\n"
                // The pieces are escaped already; this turns the style's marks into colors.
                sink.write(style.enabled ? Escaping.terminal(line, color: true) : line)
            }
            let gained = changes.filter(\.gained).count
            sink.write(changes.isEmpty ? "no change [semantics: \(sem.rawValue)]\n"
                                       : "\(changes.count) change(s): \(gained) now allowed, \(changes.count - gained) now denied [semantics: \(sem.rawValue)]\n")
            if !unknownChanges.isEmpty {
                let paths = Set(unknownChanges.map(\.path)).count
                sink.write("\(unknownChanges.count) answer(s) on \(paths) path(s) unknown on one side (what decides them was not read there); not counted as changes\n")
            }
        }
        sink.close()
        if !changes.isEmpty { throw ExitCode(1) }
    }

    /// Stands for the list of changes in a document written around them.
    static let rowsMark = "\u{1}fspolicy-rows\u{1}"

    /// Writes `doc` as `render()` would with `count` items in place of the one `rowsMark` item
    /// (an array at `indent`), each made by `item` as it is written.
    static func stream(_ doc: JSON, indent: Int, count: Int, into sink: OutputSink, _ item: (Int) -> JSON) {
        let text = doc.render() + "\n"
        let mark = String(repeating: " ", count: indent) + JSON.quote(rowsMark)
        guard count > 0, let at = text.range(of: mark) else { sink.write(text); return }
        sink.write(String(text[..<at.lowerBound]))
        for i in 0..<count {
            if i > 0 { sink.write(",\n") }
            sink.write(String(repeating: " ", count: indent) + item(i).render(indent: indent))
        }
        sink.write(String(text[at.upperBound...]))
    }
}
