import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import Foundation

/// Options and helpers shared by the set commands (`access`, `matrix`, `diff`).
enum AuditInput {
    /// The operations a set command may ask about: those that take no value besides the path
    /// and are about a node that exists.
    static let refused: Set<String> = ["create", "mkdir", "rename", "link", "chown", "chgrp", "chflags", "setacl",
                                       "propagate", "copypermissions", "inheritacl", "makeexplicit", "removeacls"]

    /// `--op` words (repeated or comma-separated) as operations, in the order given, without
    /// duplicates; `defaults` when none is given. Exits 3 on an unknown or unsuitable word.
    static func ops(_ words: [String], defaults: [FSPolicy.Operation]) throws -> [FSPolicy.Operation] {
        let list = words.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        if list.isEmpty { return defaults }
        var out: [FSPolicy.Operation] = []
        for w in list {
            guard let op = FSPolicy.Operation(word: w) else {
                let hint = FSPolicy.Operation.suggestion(for: w).map { "did you mean `\($0)`? " } ?? ""
                printError("fspolicy: error: unknown operation `\(safe(w))`\n  help: \(hint)one of read, write, execute, append, truncate, list, search, stat, delete, chmod, …, or a raw right word (delete_child, add_file, …)")
                throw ExitCode(3)
            }
            if refused.contains(op.word) {
                printError("fspolicy: error: `--op \(op.word)` needs a value besides the path (or a name that does not exist yet), so it has no answer per node\n  help: ask it with `fspolicy can` or `fspolicy who`; set commands take read, write, execute, append, truncate, list, search, stat, delete, chmod, touch, settimes and the raw right words")
                throw ExitCode(3)
            }
            if !out.contains(op) { out.append(op) }
        }
        return out
    }

    /// A user of the file by name or numeric uid (numeric uids need not be declared).
    static func user(_ text: String, in p: Policy) -> (name: String, subject: Subject)? {
        if let u = p.world.user(named: text) { return (u.name, p.world.subject(uid: u.uid)) }
        if let uid = UInt32(text) { return (p.world.user(uid: uid)?.name ?? text, p.world.subject(uid: uid)) }
        return nil
    }

    /// `--users a,b,…` (or all declared users, root included, in declaration order).
    static func users(_ list: [String], in p: Policy) throws -> [(name: String, subject: Subject)] {
        let words = list.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        if words.isEmpty {
            return p.userOrder.compactMap { n in p.world.user(named: n).map { (n, p.world.subject(uid: $0.uid)) } }
        }
        var out: [(name: String, subject: Subject)] = []
        for w in words {
            guard let u = user(w, in: p) else {
                printError("fspolicy: error: unknown user `\(safe(w))` in `--users`\n  help: declared users: \(p.userOrder.joined(separator: ", "))")
                throw ExitCode(3)
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
            throw ExitCode(3)
        }
        return n
    }
}

/// Text with every control character written as `\ooo` (as names are in policy files), so that
/// nothing from a tree reaches a terminal raw.
func safe(_ s: String) -> String {
    if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) { return s }
    var out = ""
    for u in s.unicodeScalars {
        if u.value < 0x20 || u.value == 0x7f {
            let o = String(u.value, radix: 8)
            out += "\\" + String(repeating: "0", count: 3 - o.count) + o
        } else {
            out.unicodeScalars.append(u)
        }
    }
    return out
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
func csvField(_ s: String) -> String {
    let t = safe(s)
    if !t.utf8.contains(where: { $0 == 0x2c || $0 == 0x22 }) { return t }
    return "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Buffered output to standard output or a file (large outputs are written as they are made).
final class OutputSink {
    private var buffer: [UInt8] = []
    private let file: UnsafeMutablePointer<FILE>
    private let owned: Bool

    init(path: String?) throws {
        if let path {
            guard let f = fopen(path, "w") else {
                printError("fspolicy: error: cannot write `\(path)`: \(String(cString: strerror(errno)))")
                throw ExitCode(3)
            }
            file = f
            owned = true
        } else {
            file = fdopen(STDOUT_FILENO, "w")
            owned = false
        }
        buffer.reserveCapacity(1 << 20)
    }

    func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 20 { flush() }
    }

    func flush() {
        buffer.withUnsafeBufferPointer { b in _ = fwrite(b.baseAddress, 1, b.count, file) }
        buffer.removeAll(keepingCapacity: true)
        fflush(file)
    }

    func close() {
        flush()
        if owned { fclose(file) }
    }
}
