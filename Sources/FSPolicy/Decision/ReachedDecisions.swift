/// The two halves of a decision, for callers that decide many paths at once (the set engine of
/// `FSPolicyAudit`): the search check a path walk makes on one directory, and what comes after
/// the walk for an operation that ends in rights on the node the path names. A walk to `n`
/// succeeds exactly when every directory above `n` grants search, so
/// `decide(subject, op, path(of: n))` allows exactly when every ancestor of `n` passes
/// `searchGranted` and `decideReached(subject, op, n)` allows — for the operations
/// `isDecidedOnNode` accepts, on a node that is not a symlink, whose ancestors are
/// directories, and whose path leads back to it (no case-folding clash). The set engine keeps
/// to those cases and asks `decide` for the rest; `SetEngineTests` checks the equality on
/// random worlds for every subject, operation and node.
extension Authorizer {
    /// Operations whose decision, once the walk has reached the node, depends on the subject
    /// and that node alone (not its parent, not another path, not the request's extra values).
    public static func isDecidedOnNode(_ op: Operation) -> Bool {
        switch op {
        case .read, .write, .readwrite, .append, .truncate, .execute, .list, .search, .stat,
            .readattr, .writeattr, .readextattr, .writeextattr, .readsecurity:
            return true
        default:
            return false
        }
    }

    /// Whether a path walk of `subject` may look names up in directory `dir` (search on `dir`
    /// itself; the directories above are not consulted). Without an app.
    public func searchGranted(_ subject: Subject, dir: NodeID) -> Bool {
        return Eval.with(box: box, sem: semantics, subject: subject, tracing: false) { e in
            return e.searchCheck(dir) == nil
        }
    }

    /// Whether `op` on `n` is allowed once the walk has reached `n` (found in its parent), for
    /// a plain process of `subject` (no app). Only for operations `isDecidedOnNode` accepts.
    public func decideReached(_ subject: Subject, _ op: Operation, node n: NodeID) -> Bool {
        precondition(Authorizer.isDecidedOnNode(op), "decideReached: \(op.word) is not decided on the node alone")
        return Eval.with(box: box, sem: semantics, subject: subject, tracing: false) { e in
            let parent = world[n].parent
            switch semantics {
            case .macos, .guide: return e.decideBSDOn(op, n, parent: parent).allowed
            case .linux: return e.decideLinuxOn(Request(subject: subject, op: op, path: ""), n, parent: parent).allowed
            }
        }
    }
}

extension Authorizer {
    /// Whether `modify` of directory `dir` is allowed once the walk has reached it, for a plain
    /// process of `subject` (no app): its ways as `decideModify` tries them (O41) — search on
    /// `dir`, then `create` or `mkdir` of a name it does not hold, or `delete_child` on it —
    /// with the walk already in `dir`. Exact when `dir`'s entries were read (no `unread`
    /// mark: a name looked up in it is then known to be missing) and, under `macos` and
    /// `guide`, no directory of the world has a Data Protection class (a new file's class is
    /// inherited from the nearest one above); the set engine asks it only then, and
    /// `SetEngineTests` holds it to `decide` through the whole path.
    public func decideModifyReached(_ subject: Subject, dir: NodeID) -> Bool {
        return Eval.with(box: box, sem: semantics, subject: subject, tracing: false) { e in
            if e.searchCheck(dir) != nil { return false }
            let parent = world[dir].parent
            let fresh = e.freshName(in: dir)
            let res = Resolved(parent: dir, node: nil, missing: fresh)
            switch semantics {
            case .linux:
                if e.linuxCreateIn(dir).allowed { return true }
            case .macos, .guide:
                let base = world.path(of: dir)
                let path = (base == "/" ? "/" : base + "/") + fresh
                for op in [Operation.create, .mkdir] where e.createIn(res, Request(subject: subject, op: op, path: path)).allowed { return true }
            }
            // delete_child as `decideModify` asks it: under linux with search in the same check.
            switch semantics {
            case .linux:
                let op = Operation.rights([.deleteChild, .search], word: "delete_child")
                return e.decideLinuxOn(Request(subject: subject, op: op, path: ""), dir, parent: parent).allowed
            case .macos, .guide:
                return e.decideBSDOn(.rights(.deleteChild, word: "delete_child"), dir, parent: parent).allowed
            }
        }
    }
}

extension Authorizer {
    /// Whether `op` on `n` is allowed once the walk has reached `n`, for a plain process of
    /// `subject` (no app): like `decideReached`, for every operation that ends in rights on the
    /// node the path names (`.rights` included), whose decision may also read `n`'s parent
    /// (`delete` needs `delete_child` there, or the sticky bit). Not for create, mkdir, creat,
    /// delete, rename, link, or the attribute operations macOS decides before the walk ends;
    /// `n` must not be a symlink. The dead-grant analysis (FSPolicyAudit) uses it, and
    /// `DeadGrantTests` checks it against `decide` through the whole path.
    public func decideAfterWalk(_ subject: Subject, _ op: Operation, node n: NodeID) -> Bool {
        return Eval.with(box: box, sem: semantics, subject: subject, tracing: false) { e in
            let parent = world[n].parent
            switch semantics {
            case .macos, .guide: return e.decideBSDOn(op, n, parent: parent).allowed
            case .linux: return e.decideLinuxOn(Request(subject: subject, op: op, path: ""), n, parent: parent).allowed
            }
        }
    }
}
