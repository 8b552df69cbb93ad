import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

/// Options and helpers shared by the set commands (`access`, `matrix`, `diff`).
enum AuditInput {
    /// The operations a set command may ask about: those that take no value besides the path
    /// and are about a node that exists.
    static let refused: Set<String> = [
        "create", "mkdir", "rename", "link", "symlink", "mkfifo", "mknod", "socket", "chown", "lchown", "lchmod", "chgrp", "chflags", "setacl",
        "propagate", "copypermissions", "inheritacl", "makeexplicit", "removeacls"
    ]

    /// `--op` words (repeated or comma-separated) as operations, in the order given, without
    /// duplicates; `defaults` when none is given. Exits 3 on an unknown or unsuitable word.
    static func ops(_ words: [String], defaults: [FSPolicy.Operation]) throws -> [FSPolicy.Operation] {
        let list = words.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        if list.isEmpty { return defaults }
        var out: [FSPolicy.Operation] = []
        for w in list {
            guard let op = FSPolicy.Operation(word: w) else {
                let hint = FSPolicy.Operation.suggestion(for: w).map { "did you mean `\($0)`? " } ?? ""
                printError(
                    "fspolicy: error: unknown operation `\(safe(w))`\n  help: \(hint)one of read, write, execute, append, truncate, list, search, stat, delete, chmod, …, or a raw right word (delete_child, add_file, …)"
                )
                throw ExitCode.invalid
            }
            if refused.contains(op.word) {
                printError(
                    "fspolicy: error: `--op \(op.word)` needs a value besides the path (or a name that does not exist yet), so it has no answer per node\n  help: ask it with `fspolicy can` or `fspolicy who`; set commands take read, write, execute, append, truncate, list, search, stat, delete, chmod, touch, settimes and the raw right words"
                )
                throw ExitCode.invalid
            }
            if !out.contains(op) { out.append(op) }
        }
        return out
    }

    /// The default ops of a grid, by node type: a file's (and any non-directory's), then a
    /// directory's, so that no default cell asks a directory to be opened for writing.
    static let fileOps: [FSPolicy.Operation] = [.read, .write, .execute]
    static let directoryOps: [FSPolicy.Operation] = [.list, .search, .modify]

    /// Where a node's default ops are in `fileOps + directoryOps`.
    static func opIndices(directory: Bool) -> [Int] {
        directory ? Array(fileOps.count..<(fileOps.count + directoryOps.count)) : Array(fileOps.indices)
    }

    /// A user of the file by name or numeric uid (numeric uids need not be declared), or a
    /// declared service as `service:NAME` (its process: capabilities and sandbox view included).
    /// (`world`: the world the service's view is laid over, when steps have changed the file's.)
    static func user(_ text: String, in p: Policy, world: World? = nil) -> (name: String, subject: Subject)? {
        if let svc = service(text, in: world ?? p.world) { return svc }
        if text.hasPrefix("@") && p.world.user(named: text) == nil {
            guard let g = try? GroupSubjects.group(text, in: p.world) else { return nil }
            return ("@" + g.name, GroupSubjects.member(of: g, in: p.world))
        }
        if let u = p.world.user(named: text) { return (u.name, p.world.subject(uid: u.uid)) }
        if let uid = UInt32(text) { return (p.world.user(uid: uid)?.name ?? text, p.world.subject(uid: uid)) }
        return nil
    }

    /// `service:NAME` as the process of the declared service NAME (nil for any other text; an
    /// unknown service is reported by `checkService`).
    static func service(_ text: String, in w: World) -> (name: String, subject: Subject)? {
        guard text.hasPrefix("service:"), let i = w.serviceIndex(String(text.dropFirst("service:".count))) else { return nil }
        return (text, w.subject(service: i))
    }

    /// Exits 3 when `text` names a service the file does not declare, as `can --as` does.
    static func checkService(_ text: String, in p: Policy, option: String) throws {
        guard text.hasPrefix("service:"), service(text, in: p.world) == nil else { return }
        let name = String(text.dropFirst("service:".count))
        let names = p.world.services.map(\.name)
        let hint = nearest(name, in: names.sorted()).map { "did you mean `service:\($0)`?" } ?? "declare it under `services`"
        printError("fspolicy: error: unknown service `\(safe(name))` in `\(option)`\n  help: \(hint)")
        throw ExitCode.invalid
    }

    /// Every declared service, as `service:NAME`, in declaration order.
    static func services(in w: World) -> [(name: String, subject: Subject)] {
        zip(w.services, w.serviceSubjects()).map { ("service:" + $0.name, $1) }
    }

    /// `--users a,b,…` (or all declared users, root included, in declaration order, then every
    /// declared service as `service:NAME`).
    static func users(_ list: [String], in p: Policy, world: World? = nil) throws -> [(name: String, subject: Subject)] {
        let words = list.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        if words.isEmpty {
            return p.userOrder.compactMap { n in p.world.user(named: n).map { (n, p.world.subject(uid: $0.uid)) } } + services(in: world ?? p.world)
        }
        var out: [(name: String, subject: Subject)] = []
        for w in words {
            if w.hasPrefix("@") && p.world.user(named: w) == nil { _ = try GroupSubjects.group(w, in: p.world) }
            try checkService(w, in: p, option: "--users")
            guard let u = user(w, in: p, world: world) else {
                printError("fspolicy: error: unknown user `\(safe(w))` in `--users`\n  help: declared users: \(p.userOrder.joined(separator: ", "))")
                throw ExitCode.invalid
            }
            if !out.contains(where: { $0.name == u.name }) { out.append(u) }
        }
        return out
    }

    /// The node at `--under` (default `/`); exits 3 when it does not exist.
    static func under(_ path: String?, in world: World) throws -> NodeID {
        guard let p = path else { return World.root }
        guard p.hasPrefix("/"), let n = world.lookup(p) else {
            printError("fspolicy: error: `--under \(safe(p))` is not a node of the tree\n  help: give an absolute path the policy declares, imports or scans")
            throw ExitCode.invalid
        }
        return n
    }
}
