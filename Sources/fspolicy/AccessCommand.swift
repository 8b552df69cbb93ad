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
        abstract: "Every node under a path on which one user (or service) is allowed every op asked.",
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
    @Option(
        name: .customLong("as"),
        help: "The user: a name, a numeric uid, service:NAME (a declared service's process), or @GROUP (a member of GROUP with no other right).")
    var who: String
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
        let host = try OutputGuard.check(output: output, inputs: [(file, "the policy file", false)])
        let p = try loadOrExit(file, semantics: semantics, host: host)
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        try steps.check(ev)
        let world = ev.world(after: steps.after)
        let ops = try AuditInput.ops(op, defaults: [.read])
        if who.hasPrefix("@") && p.world.user(named: who) == nil { _ = try GroupSubjects.group(who, in: p.world) }
        try AuditInput.checkService(who, in: p, option: "--as")
        guard let user = AuditInput.user(who, in: p, world: world) else {
            printError(
                "fspolicy: error: unknown user `\(safe(who))`\n  help: give a declared user or a numeric uid (declared users: \(p.userOrder.joined(separator: ", ")))"
            )
            throw ExitCode.invalid
        }
        let top = try AuditInput.under(under, in: world)
        let engine = SetEngine(world: world, semantics: ev.semantics, subjects: [user.subject], ops: ops)
        // (node, depth, path, selected), in tree order.
        var rows: [(node: NodeID, depth: Int, path: String, selected: Bool)] = []
        var depthOf: [NodeID: Int] = [top: 0]
        // What the world does not hold (P6): a node whose answer is unknown (a symlink followed
        // out of what was read, a folder whose emptiness is not known) is neither may nor may
        // not; a folder whose entries were not read may hold more than the listing shows.
        let asker = world.unread.isEmpty ? nil : Authorizer(world: world, semantics: ev.semantics, tracing: false)
        var unknown: [(node: NodeID, path: String)] = []
        var unreadFolders: [(path: String, reason: UnreadReason)] = []
        engine.walk(from: top) { n, path, sets in
            let d = n == top ? 0 : depthOf[world[n].parent]! + 1
            if world[n].isDir || !world.children(of: n).isEmpty { depthOf[n] = d }
            let all = any ? sets.contains { engine.contains($0, subject: 0) } : sets.allSatisfy { engine.contains($0, subject: 0) }
            if let why = world.unread[n], world[n].isDir { unreadFolders.append((path, why)) }
            if !all, let asker, world[n].type == .symlink || world.unread[n] != nil,
                ops.contains(where: { asker.decide(Request(subject: user.subject, op: $0, path: path)).unknown })
            {
                unknown.append((n, path))
                rows.append((n, d, path, false))
                return true
            }
            rows.append((n, d, path, all != denied))
            return true
        }
        let listing = AccessListing(
            world: world, user: user.name, uid: user.subject.uid, ops: ops, any: any, denied: denied, semantics: ev.semantics,
            top: top, rows: rows, unknown: unknown, unreadFolders: unreadFolders)
        let sink = try OutputSink.open(output, followSymlinks: followSymlinks)
        switch format {
        case .csv: sink.write(listing.csv)
        case .json: sink.write(listing.json)
        case .text: sink.write(listing.text(style: color.style(output: output)))
        }
        try sink.close()
    }
}
