import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import Foundation

/// The changes `diff` found, and its three outputs: text (one line per path, op and direction,
/// or with `--list-all` one per user), JSON and SARIF. Each change's decision and words are
/// made as it is written: a decision with its evidence per change is not held for all of them.
package struct DiffReport {
    package var oldName: String
    package var newName: String
    /// The file SARIF results point into.
    package var newFile: String
    package var oldPolicy: Policy
    package var newPolicy: Policy
    /// Comparing a file before and after its steps (the old policy's locations are the new one's).
    package var steps: Bool
    package var newWorld: World
    package var semantics: Semantics
    package var under: String
    package var names: [String]
    package var uidOf: [String: UID]
    package var newSubjects: [Subject]
    package var ops: [FSPolicy.Operation]
    package var changes: [AccessChange]
    /// Changes one side cannot decide (P6): set apart, not counted.
    package var unknownChanges: [AccessChange]
    /// Changes of set-ID bits, file capabilities, default ACLs and inheritable ACEs.
    package var privilegeChanges: [PrivilegeChange]

    package init(
        oldName: String, newName: String, newFile: String, oldPolicy: Policy, newPolicy: Policy, steps: Bool, newWorld: World,
        semantics: Semantics, under: String, names: [String], uidOf: [String: UID], newSubjects: [Subject],
        ops: [FSPolicy.Operation], changes: [AccessChange], unknownChanges: [AccessChange], privilegeChanges: [PrivilegeChange] = []
    ) {
        self.oldName = oldName; self.newName = newName; self.newFile = newFile; self.oldPolicy = oldPolicy; self.newPolicy = newPolicy
        self.steps = steps; self.newWorld = newWorld; self.semantics = semantics; self.under = under; self.names = names
        self.uidOf = uidOf; self.newSubjects = newSubjects; self.ops = ops; self.changes = changes; self.unknownChanges = unknownChanges
        self.privilegeChanges = privilegeChanges
    }

    struct Row { var change: AccessChange; var decision: Decision?; var why: String }

    /// What decides a change, in the world where it now stands (the new one; "removed" for a
    /// path that no longer exists).
    func row(_ c: AccessChange, _ auth: Authorizer, _ renderer: TextRenderer) -> Row {
        if c.newNode == nil { return Row(change: c, decision: nil, why: "removed") }
        let d = auth.decide(Request(subject: newSubjects[c.subject], op: ops[c.op], path: c.path))
        let ev = renderer.evidence(d.evidence, relativeTo: c.newNode)
        var why: String
        switch d.rule {
        case .searchDenied: why = "\(d.layer.rawValue): no search on \(newWorld.path(of: d.node))"
        default: why = "\(d.layer.rawValue): \(ev.isEmpty ? d.rule.rawValue : ev)"
        }
        if c.oldNode == nil { why = "new; " + why }
        return Row(change: c, decision: d, why: why)
    }

    var renderer: TextRenderer { TextRenderer(policy: newPolicy, world: newWorld) }
    var authorizer: Authorizer { Authorizer(world: newWorld, semantics: semantics, tracing: false) }

    /// The JSON document, each change written as it is made.
    package func json(write: (String) -> Void) {
        let newRenderer = renderer, newAuth = authorizer
        var fields: [(String, JSON)] = [
            ("schemaVersion", .int(1)), ("old", .string(oldName)), ("new", .string(newName)),
            ("semantics", .string(semantics.rawValue)), ("under", .string(under)),
            ("users", .array(names.map { .string($0) })), ("ops", .array(ops.map { .string($0.word) })),
            ("changes", .array(changes.isEmpty ? [] : [.string(DiffReport.rowsMark)])),
            ("count", .int(changes.count)),
            (
                "unknown",
                .array(
                    unknownChanges.map { c in
                        .object([("user", .string(names[c.subject])), ("op", .string(ops[c.op].word)), ("path", .string(c.path))])
                    })
            )
        ]
        // Only when there is such a change: a diff without one reads as it always has.
        if !privilegeChanges.isEmpty { fields.append(("privileges", .array(privilegeChanges.map(\.json)))) }
        let doc = JSON.object(fields)
        DiffReport.stream(doc, indent: 4, count: changes.count, write: write) { i in
            let r = row(changes[i], newAuth, newRenderer)
            var f: [(String, JSON)] = [
                ("user", .string(names[r.change.subject])), ("uid", .int(Int(uidOf[names[r.change.subject]]!))),
                ("op", .string(ops[r.change.op].word)), ("path", .string(r.change.path)),
                ("change", .string(r.change.gained ? "allowed" : "denied")),
                ("before", .string(r.change.gained ? "deny" : "allow")), ("after", .string(r.change.gained ? "allow" : "deny")),
                ("exists", .object([("old", .bool(r.change.oldNode != nil)), ("new", .bool(r.change.newNode != nil))]))
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
    }

    /// The SARIF log: one result per change (`access-gained` a warning, `access-lost` a note).
    package func sarif(toolVersion: String, write: (String) -> Void) {
        let newRenderer = renderer, newAuth = authorizer
        func result(_ i: Int) -> JSON {
            let c = changes[i]
            let r = row(c, newAuth, newRenderer)
            let text = "\(names[c.subject]) \(c.gained ? "may now" : "may no longer") \(ops[c.op].word) \(c.path) (\(r.why))"
            let l = newPolicy.nodeLocation(c.path) ?? (steps ? nil : oldPolicy.nodeLocation(c.path))
            return Reports.sarifResult(
                rule: c.gained ? "access-gained" : "access-lost", level: c.gained ? "warning" : "note", text: text, uri: newFile,
                line: l?.line ?? 0, column: l?.column ?? 0)
        }
        let doc = JSON.object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    .object([
                        (
                            "tool",
                            .object([
                                (
                                    "driver",
                                    .object([
                                        ("name", .string("fspolicy")), ("version", .string(toolVersion)),
                                        (
                                            "rules",
                                            .array(
                                                [
                                                    Reports.sarifRule("access-gained", "A user may now do something they could not"),
                                                    Reports.sarifRule("access-lost", "A user may no longer do something they could")
                                                ] + privilegeRules)
                                        )
                                    ])
                                )
                            ])
                        ),
                        ("results", .array(changes.isEmpty && privilegeChanges.isEmpty ? [] : [.string(DiffReport.rowsMark)]))
                    ])
                ])
            )
        ])
        DiffReport.stream(doc, indent: 8, count: changes.count + privilegeChanges.count, write: write) { i in
            i < changes.count ? result(i) : privilegeResult(privilegeChanges[i - changes.count])
        }
    }

    /// The text: one line per (path, op, direction) with the users as a set, or with
    /// `listAll` one line per user and change with what decides it; then the counts.
    package func text(listAll: Bool, style: Style, write: (String) -> Void) {
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
            for key in order {
                let g = groups[key]!
                let who = names.indices.filter { g.users.contains($0) }.map { names[$0] }
                let set = SubjectSetText.text(allowed: who, ofUsersAndServices: names)
                let word = (g.gained ? "+" : "-") + ops[g.op].word
                let line = safe(g.path) + " " + (g.gained ? style.green(word) : style.red(word)) + ": " + safe(set) + "\n"
                // The pieces are escaped already; this turns the style's marks into colors.
                write(style.enabled ? Escaping.terminal(line, color: true) : line)
            }
        }
        let uw = names.indices.map { i in changes.contains { $0.subject == i } ? safe(names[i]).count : 0 }.max() ?? 0
        let ow = ops.indices.map { k in changes.contains { $0.op == k } ? ops[k].word.count + 1 : 0 }.max() ?? 0
        var pw = 0
        var lastPath: String? = nil
        for c in changes where c.path != lastPath { pw = max(pw, safe(c.path).count); lastPath = c.path }
        let newRenderer = renderer, newAuth = authorizer
        for c in changes where listAll {
            let r = row(c, newAuth, newRenderer)
            let user = safe(names[c.subject]).padding(toLength: uw, withPad: " ", startingAt: 0)
            let word = (c.gained ? "+" : "-") + ops[c.op].word
            let o = (c.gained ? style.green(word) : style.red(word)) + String(repeating: " ", count: max(0, ow - word.count))
            let p = safe(c.path).padding(toLength: pw, withPad: " ", startingAt: 0)
            let line = "\(user)  \(o)  \(p)  (\(safe(r.why)))\n"
            // The pieces are escaped already; this turns the style's marks into colors.
            write(style.enabled ? Escaping.terminal(line, color: true) : line)
        }
        privilegeSection(write: write)
        let gained = changes.filter(\.gained).count
        let decisions =
            changes.isEmpty
            ? (privilegeChanges.isEmpty ? "no change" : "no change of decisions")
            : "\(changes.count) change(s): \(gained) now allowed, \(changes.count - gained) now denied"
        write(decisions + privilegeCount + " [semantics: \(semantics.rawValue)]\n")
        if !unknownChanges.isEmpty {
            let paths = Set(unknownChanges.map(\.path)).count
            write("\(unknownChanges.count) answer(s) on \(paths) path(s) unknown on one side (what decides them was not read there); not counted as changes\n")
        }
    }

    /// Stands for the list of changes in a document written around them.
    static let rowsMark = "\u{1}fspolicy-rows\u{1}"

    /// Writes `doc` as `render()` would with `count` items in place of the one `rowsMark` item
    /// (an array at `indent`), each made by `item` as it is written.
    static func stream(_ doc: JSON, indent: Int, count: Int, write: (String) -> Void, _ item: (Int) -> JSON) {
        let text = doc.render() + "\n"
        let mark = String(repeating: " ", count: indent) + JSON.quote(rowsMark)
        guard count > 0, let at = text.range(of: mark) else { write(text); return }
        write(String(text[..<at.lowerBound]))
        for i in 0..<count {
            if i > 0 { write(",\n") }
            write(String(repeating: " ", count: indent) + item(i).render(indent: indent))
        }
        write(String(text[at.upperBound...]))
    }
}
