import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

enum MatrixFormat: String, ExpressibleByArgument, CaseIterable {
    case csv, jsonl
}

struct Matrix: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The whole decision table: for every node and op, the users (and services) allowed.",
        discussion: """
            One row per (node, op), nodes in tree order (parents before children, siblings by the \
            bytes of their names), ops in the order given. CSV: a header line `path,op,allowed`, then \
            `allowed` is the space-separated names of the users allowed (declaration order, root \
            included), empty for nobody, or `everyone` / `everyone except A, B` when that is what \
            the set of users is (--list-all: always the names); declared services follow the users \
            as `service:NAME`, never counted in `everyone` but listed by name after it. JSON Lines: one object per row with the same \
            keys, `allowed` the list of names. Default users: all declared, then the services; default ops by node type: read, write, execute on \
            files (and everything but directories), list, search, modify on directories. With --any, \
            one row per node whose op is the ops joined by `|` and whose users may do any of them.

            Examples:
              fspolicy matrix fixtures/examples/team-share/policy.yaml
              fspolicy matrix fixtures/examples/team-share/policy.yaml --users bob,carol --op write --under /Shared/Design --format jsonl

            Exit codes: 0 · 3 invalid input.
            """)

    @Argument(help: "The policy file (or scan).") var file: String
    @Option(name: .long, help: "Users to decide for, comma-separated or repeated, services as service:NAME (default: every declared user, then every service).")
    var users: [String] = []
    @Option(
        name: .long,
        help: ArgumentHelp(
            "An operation, comma-separated or repeated (default: read, write, execute on files; list, search, modify on directories).", valueName: "op"))
    var op: [String] = []
    @Flag(name: .long, help: "One row per node: the users allowed any of the ops.") var any = false
    @Flag(name: .long, help: "CSV: list every user, never `everyone` or `everyone except …`.") var listAll = false
    @Option(name: .long, help: "Only this node and what is below it.") var under: String?
    @Option(name: .long, help: "csv or jsonl.") var format: MatrixFormat = .csv
    @Option(name: [.customShort("o"), .long], help: "Write the table to this file instead of standard output.") var output: String?
    @Flag(name: .long, help: "With --output: when the file is a symbolic link, write to the file it points to (refused otherwise).") var followSymlinks = false
    @Option(name: .long, help: "Rule set that decides, overriding the file: macos, guide or linux.") var semantics: Semantics?
    @OptionGroup var steps: AfterOption

    func run() throws {
        let host = try OutputGuard.check(output: output, inputs: [(file, "the policy file", false)])
        let p = try loadOrExit(file, semantics: semantics, host: host)
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        try steps.check(ev)
        let world = ev.world(after: steps.after)
        let byType = op.isEmpty
        let ops = try AuditInput.ops(op, defaults: AuditInput.fileOps + AuditInput.directoryOps)
        let who = try AuditInput.users(users, in: p, world: world)
        let top = try AuditInput.under(under, in: world)
        let engine = SetEngine(world: world, semantics: ev.semantics, subjects: who.map(\.subject), ops: ops)
        let sink = try OutputSink.open(output, followSymlinks: followSymlinks)
        let words = ops.map(\.word)
        // A world read from a real tree may not hold what decides a cell (P6): its answers for
        // a symlink (followed) or a folder whose entries were not read (its emptiness) are asked
        // one by one, and the users whose answer is unknown get a column of their own.
        let partial = !world.unread.isEmpty
        let asker = partial ? Authorizer(world: world, semantics: ev.semantics, tracing: false) : nil
        func unknownUsers(_ n: NodeID, _ path: String, _ k: Int) -> [Int] {
            guard let asker, world[n].type == .symlink || world.unread[n] != nil else { return [] }
            return who.indices.filter { asker.decide(Request(subject: who[$0].subject, op: ops[k], path: path)).unknown }
        }
        var anyMembers: [Int] = []
        var table = MatrixRows(format: format == .csv ? .csv : .jsonl, names: who.map(\.name), partial: partial, listAll: listAll)
        if !table.header.isEmpty { sink.write(table.header) }
        engine.walk(from: top) { n, path, allSets in
            // The node's ops: by its type when none were given; with --any, one set of the
            // users in any of them (its index past the ops', its word the ops joined by `|`).
            let picked = byType ? AuditInput.opIndices(directory: world[n].isDir) : Array(ops.indices)
            var sets = picked.map { allSets[$0] }
            var opWords = picked.map { words[$0] }
            var kOf = picked
            if any {
                var bits = [Bool](repeating: false, count: who.count)
                for s in sets { for i in engine.subjectIndices(s) { bits[i] = true } }
                sets = [-1]
                opWords = [picked.map { words[$0] }.joined(separator: "|")]
                kOf = [-1]
                anyMembers = who.indices.filter { bits[$0] }
            }
            func members(_ s: Int32) -> [Int] { s == -1 ? anyMembers : engine.subjectIndices(s) }
            func unknownOf(_ k: Int) -> [Int] {
                k >= 0 ? unknownUsers(n, path, k) : Array(Set(picked.flatMap { unknownUsers(n, path, $0) })).sorted()
            }
            sink.write(table.rows(path: path, sets: sets, opWords: opWords, members: members, unknown: { unknownOf(kOf[$0]) }))
            return true
        }
        try sink.close()
    }
}
