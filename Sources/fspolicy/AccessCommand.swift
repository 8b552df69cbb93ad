import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

enum AccessFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv
}

struct Access: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every node under a path on which one user is allowed every op asked.",
        discussion: """
        Lists, as a tree, the nodes at or below --under (default /) on which the user may do each \
        of the ops (default: read); with --denied, the nodes where at least one of them is denied. \
        With --any, one of the ops is enough (with --denied: every one is denied). \
        Directories that are listed only to place what is below them are shown in parentheses.

        Examples:
          fspolicy access fixtures/examples/team-share/policy.yaml --as carol --op write --under /Shared
          fspolicy access fixtures/examples/team-share/policy.yaml --as dave --op read --denied --format csv

        Exit codes: 0 · 3 invalid input.
        """)

    @Argument(help: "The policy file (or scan).") var file: String
    @Option(name: .customLong("as"), help: "The user: a name, a numeric uid, or @GROUP (a member of GROUP with no other right).") var who: String
    @Option(name: .long, help: ArgumentHelp("An operation, comma-separated or repeated (default: read).", valueName: "op")) var op: [String] = []
    @Option(name: .long, help: "Only this node and what is below it.") var under: String?
    @Flag(name: .long, help: "List the nodes where some op is denied instead.") var denied = false
    @Flag(name: .long, help: "Any of the ops instead of every one: the nodes where one is allowed (with --denied: where all are denied).") var any = false
    @Option(name: .long, help: "text, json or csv.") var format: AccessFormat = .text
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of standard output.") var output: String?
    @Flag(name: .long, help: "With --output: when the file is a symbolic link, write to the file it points to (refused otherwise).") var followSymlinks = false
    @Option(name: .long, help: "Rule set that decides, overriding the file: macos, guide or linux.") var semantics: Semantics?
    @OptionGroup var color: ColorOption
    @OptionGroup var steps: AfterOption

    func run() throws {
        try OutputGuard.check(output: output, inputs: [(file, "the policy file", false)])
        let p = try loadOrExit(file, semantics: semantics)
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        try steps.check(ev)
        let world = ev.world(after: steps.after)
        let ops = try AuditInput.ops(op, defaults: [.read])
        if who.hasPrefix("@") && p.world.user(named: who) == nil { _ = try GroupSubjects.group(who, in: p.world) }
        guard let user = AuditInput.user(who, in: p) else {
            printError("fspolicy: error: unknown user `\(safe(who))`\n  help: give a declared user or a numeric uid (declared users: \(p.userOrder.joined(separator: ", ")))")
            throw ExitCode(3)
        }
        let top = try AuditInput.under(under, in: world)
        let engine = SetEngine(world: world, semantics: ev.semantics, subjects: [user.subject], ops: ops)
        // (node, depth, path, selected), in tree order.
        var rows: [(NodeID, Int, String, Bool)] = []
        var depthOf: [NodeID: Int] = [top: 0]
        var total = 0
        // What the world does not hold (P6): a node whose answer is unknown (a symlink followed
        // out of what was read, a folder whose emptiness is not known) is neither may nor may
        // not; a folder whose entries were not read may hold more than the listing shows.
        let asker = world.unread.isEmpty ? nil : Authorizer(world: world, semantics: ev.semantics, tracing: false)
        var unknown: [(NodeID, String)] = []
        var unreadFolders: [(String, UnreadReason)] = []
        engine.walk(from: top) { n, path, sets in
            let d = n == top ? 0 : depthOf[world[n].parent]! + 1
            if world[n].isDir || !world.children(of: n).isEmpty { depthOf[n] = d }
            let all = any ? sets.contains { engine.contains($0, subject: 0) } : sets.allSatisfy { engine.contains($0, subject: 0) }
            total += 1
            if let why = world.unread[n], world[n].isDir { unreadFolders.append((path, why)) }
            if !all, let asker, world[n].type == .symlink || world.unread[n] != nil,
               ops.contains(where: { asker.decide(Request(subject: user.subject, op: $0, path: path)).unknown }) {
                unknown.append((n, path))
                rows.append((n, d, path, false))
                return true
            }
            rows.append((n, d, path, all != denied))
            return true
        }
        let selected = rows.filter(\.3)
        let sink = try OutputSink(path: output, followSymlinks: followSymlinks)
        let opText = any && ops.count > 1
            ? ops.dropLast().map(\.word).joined(separator: ", ") + " or " + ops.last!.word
            : ops.map(\.word).joined(separator: ", ")
        let under = world.path(of: top)
        switch format {
        case .csv:
            sink.write("path,type\n")
            for r in selected { sink.write(csvField(r.2) + "," + world[r.0].type.word + "\n") }
        case .json:
            let doc = JSON.object([
                ("schemaVersion", .int(1)), ("user", .string(user.name)), ("uid", .int(Int(user.subject.uid))),
                ("ops", .array(ops.map { .string($0.word) })), ("any", .bool(any)), ("under", .string(under)), ("denied", .bool(denied)),
                ("semantics", .string(ev.semantics.rawValue)), ("nodes", .int(total)),
                ("matches", .array(selected.map { .object([("path", .string($0.2)), ("type", .string(world[$0.0].type.word))]) })),
                ("unknown", .array(unknown.map { .object([("path", .string($0.1)), ("type", .string(world[$0.0].type.word))]) })),
                ("unread", .array(unreadFolders.map { .object([("path", .string($0.0)), ("reason", .string($0.1.rawValue))]) })),
            ])
            sink.write(doc.render() + "\n")
        case .text:
            let verb = denied ? "may not" : "may"
            let style = color.style(output: output)
            // The pieces are escaped already; this turns the style's marks into colors.
            func paint(_ s: String) -> String { style.enabled ? Escaping.terminal(s, color: true) : s }
            sink.write(paint(style.bold("\(safe(user.name)) \(verb) \(opText) under \(safe(under))") + " [semantics: \(ev.semantics.rawValue)]: \(selected.count) of \(total) node(s)\n"))
            // A row is shown when selected, or in parentheses when something below it is.
            var show = [Bool](repeating: false, count: rows.count)
            var needed: Set<NodeID> = []
            for (i, r) in rows.enumerated().reversed() {
                if r.3 || needed.contains(r.0) {
                    show[i] = true
                    if r.0 != top { needed.insert(world[r.0].parent) }
                }
            }
            for (i, r) in rows.enumerated() where show[i] {
                let name = r.0 == top ? r.2 : world.name(of: r.0)
                let label = safe(name) + (world[r.0].isDir && name != "/" ? "/" : "")
                let text = r.3 ? label : "(" + label + ")"
                sink.write(String(repeating: "  ", count: r.1) + text + "\n")
            }
            if !unknown.isEmpty {
                sink.write(paint(style.yellow("unknown")) + " (what decides it was not read): " + unknown.map { safe($0.1) }.joined(separator: ", ") + "\n")
            }
            if !unreadFolders.isEmpty {
                sink.write("not read, so not listed: the entries of " + unreadFolders.map { "\(safe($0.0)) (\($0.1.phrase))" }.joined(separator: ", ") + "\n")
            }
        }
        sink.close()
    }
}
