/// `modify` (docs/semantics.md O40, O41): may the subject change the node at all? It is not
/// a system call but a question over several, each decided as itself by the engine (the
/// trailing symlink followed, as `open` does):
///
/// - a directory: `create` or `mkdir` of a name it does not hold (making an entry, as
///   `open(O_CREAT|O_EXCL)` or `mkdir(2)` would, so the walk into it needs search), or
///   `delete_child` on it after that search (removing or renaming an entry away, which an ACL
///   may grant alone);
/// - anything else: `write`, `append` or `truncate`.
///
/// Allowed when one way is; the trace is a note naming the ways, then the steps of the first
/// allowed way (of the first way when none is); a note gives each way's answer. Unknown when no
/// way is allowed and one is unknown.
extension Eval {
    /// The ways `modify` of a node of this kind is tried, in order.
    static func modifyWays(directory: Bool) -> [Operation] {
        directory ? [.create, .mkdir, .rights(.deleteChild, word: "delete_child")] : [.write, .append, .truncate]
    }

    /// A name directory `dir` does not hold, for the `create` and `mkdir` ways.
    func freshName(in dir: NodeID) -> String {
        var name = ".fspolicy-new"
        var i = 0
        while world.child(dir, Substring(name)) != nil { i += 1; name = ".fspolicy-new\(i)" }
        return name
    }

    mutating func decideModify(_ r: Request) -> Outcome {
        let walkStart = trace.count
        let res: Resolved
        switch resolveNamed(r.path, followTrailing: true) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        guard let n = res.node else {
            return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), [])
        }
        let dir = world[n].isDir
        let ways = Eval.modifyWays(directory: dir)
        // A directory's ways walk into it again (their own walk, search on it included).
        if dir { trace.removeSubrange(walkStart...) }
        let start = trace.count
        var outcomes: [(Operation, Outcome, [TraceStep])] = []
        var base = r.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        let inside = (base == "/" ? "/" : base + "/") + (dir ? freshName(in: n) : "")
        for way in ways {
            let before = trace.count
            var sub = r
            sub.op = way
            let o: Outcome
            switch way {
            case .create, .mkdir:
                sub.path = inside
                o = sem == .linux ? decideLinux(sub) : decideBSD(sub)
            case .rights:
                if let denied = searchCheck(n) {
                    o = denied
                } else if sem == .linux {
                    // Linux asks write and search of the directory in one check (may_delete:
                    // MAY_WRITE | MAY_EXEC), where CAP_DAC_READ_SEARCH no longer counts.
                    sub.op = .rights([.deleteChild, .search], word: "delete_child")
                    o = decideLinuxOn(sub, n, parent: res.parent)
                } else {
                    o = decideBSDOn(way, n, parent: res.parent)
                }
            default:
                o = sem == .linux ? decideLinuxOn(sub, n, parent: res.parent) : decideBSDOn(way, n, parent: res.parent)
            }
            outcomes.append((way, o, tracing ? Array(trace[before...]) : []))
            trace.removeSubrange(before...)
            if o.allowed { break }
        }
        let chosen =
            outcomes.first(where: { $0.1.allowed })
            ?? outcomes.first(where: { $0.1.unknown })
            ?? outcomes[0]
        // The note is part of the answer, traced or not (a decision is the same without its trace).
        let answers = outcomes.map { way, o, _ in
            "\(way.word) " + (o.allowed ? "allowed" : o.unknown ? "unknown" : (o.errno?.rawValue ?? "denied"))
        }
        let tried = outcomes.count < ways.count ? " (the rest not tried)" : ""
        notes.append(
            "modify of a \(dir ? "directory" : "file") is any of \(ways.map(\.word).joined(separator: ", ")): "
                + answers.joined(separator: ", ") + tried + "; the steps are those of \(chosen.0.word)")
        if tracing {
            trace.insert(
                TraceStep(
                    layer: .type, rule: dir ? .modifyDirectory : .modifyFile, verdict: .note, node: n,
                    requested: [], remaining: [], evidence: .node(n), depth: depth), at: start)
            trace.append(contentsOf: chosen.2)
        }
        return chosen.1
    }
}
