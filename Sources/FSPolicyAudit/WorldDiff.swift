import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// One (subject, op, path) whose decision differs between two worlds.
public struct AccessChange: Sendable, Hashable {
    /// Index into the subject lists given to `WorldDiff`.
    public var subject: Int
    /// Index into the ops given.
    public var op: Int
    public var path: String
    /// The node in each world (nil where the path does not exist).
    public var oldNode: NodeID?
    public var newNode: NodeID?
    /// Allowed in the new world (and denied in the old one); false for the reverse.
    public var gained: Bool
}

/// The decisions that differ between two worlds, for the given subjects and ops, at or below
/// one path. Nodes are matched by path. Only nodes whose own attributes changed, that exist
/// on one side only, or that lie below such a node are decided again (by a `SetEngine` on each
/// side); everything else is compared attribute by attribute and skipped. When something every
/// decision depends on changes (a subject's credentials, the volumes, securelevel, the device
/// state), the whole subtree is decided again.
public struct WorldDiff {
    public let old: World
    public let new: World
    public let semantics: Semantics
    public let ops: [Operation]
    public let oldSubjects: [Subject]
    public let newSubjects: [Subject]
    /// Nodes decided again (both sides counted once per path) in the last `run`.
    public private(set) var redecided = 0
    /// Nodes compared and skipped.
    public private(set) var skipped = 0
    /// The most changes `run` holds; past it, it stops and sets `overLimit` (docs/cli.md, Limits).
    public var limit = Int.max
    /// The last `run` met more than `limit` changes; its result is then incomplete.
    public private(set) var overLimit = false

    public init(old: World, new: World, semantics: Semantics, oldSubjects: [Subject], newSubjects: [Subject], ops: [Operation]) {
        precondition(oldSubjects.count == newSubjects.count)
        self.old = old
        self.new = new
        self.semantics = semantics
        self.oldSubjects = oldSubjects
        self.newSubjects = newSubjects
        self.ops = ops
    }

    /// Whether a change outside the tree's nodes can change any decision.
    var globalChange: Bool {
        oldSubjects != newSubjects || old.volumes != new.volumes || old.securelevel != new.securelevel
            || old.device != new.device || old.linux != new.linux
    }

    /// Every decision that differs at or below `path`, in tree order (parents first, siblings
    /// by the bytes of their names), then op order, then subject order.
    public mutating func run(under path: String = "/") -> [AccessChange] {
        overLimit = false
        let o = old.lookup(path), n = new.lookup(path)
        if o == nil && n == nil { return [] }
        let oldEngine = SetEngine(world: old, semantics: semantics, subjects: oldSubjects, ops: ops)
        let newEngine = SetEngine(world: new, semantics: semantics, subjects: newSubjects, ops: ops)
        var out: [AccessChange] = []
        if globalChange {
            subtree(o, n, oldEngine, newEngine, into: &out)
            return WorldDiff.sorted(out)
        }
        // Parallel walk of both trees by name; a pair that differs starts a re-decided subtree.
        // Whether an op's answer on a directory depends on its entries (ENOTEMPTY of delete).
        let entriesMatter = ops.contains { $0.removesName || { if case .rights(let r, _) = $0 { return r.contains(.delete) } else { return false } }($0) }
        let found = WorldDiff.walk(old: old, new: new, from: o, n, oldEngine: oldEngine, newEngine: newEngine, entriesMatter: entriesMatter)
        skipped += found.skipped
        for (a, b) in found.ones where !overLimit { one(a, b, oldEngine, newEngine, into: &out) }
        for (a, b) in found.subtrees where !overLimit { subtree(a, b, oldEngine, newEngine, into: &out) }
        return WorldDiff.sorted(out)
    }

    /// Tree order of paths (component by component, bytes), then op, then subject.
    static func sorted(_ changes: [AccessChange]) -> [AccessChange] {
        // The path's bytes with `/` as 0 (names hold no NUL) order paths component by component:
        // a name before any longer name it begins, a folder before what is below it.
        let keyed = changes.map { c in (c.path.utf8.map { $0 == 0x2f ? 0 : $0 }, c) }
        return keyed.sorted { x, y in
            if x.0 != y.0 { return x.0.lexicographicallyPrecedes(y.0) }
            if x.1.op != y.1.op { return x.1.op < y.1.op }
            return x.1.subject < y.1.subject
        }.map(\.1)
    }

    /// Decides one node on both sides (not what is below it).
    mutating func one(_ a: NodeID, _ b: NodeID, _ oe: SetEngine, _ ne: SetEngine, into out: inout [AccessChange]) {
        var os: [Int32] = [], ns: [Int32] = []
        var path = ""
        oe.walk(from: a) { _, _, sets in
            os = sets; return false
        }
        ne.walk(from: b) { _, p, sets in
            ns = sets; path = p; return false
        }
        redecided += 1
        for k in ops.indices {
            for i in 0..<oldSubjects.count {
                let x = oe.contains(os[k], subject: i), y = ne.contains(ns[k], subject: i)
                if x != y {
                    if out.count >= limit { overLimit = true; return }
                    out.append(AccessChange(subject: i, op: k, path: path, oldNode: a, newNode: b, gained: y))
                }
            }
        }
    }

    /// Decides the subtree at `a` (old) and `b` (new) on both sides and records the differences.
    mutating func subtree(_ a: NodeID?, _ b: NodeID?, _ oe: SetEngine, _ ne: SetEngine, into out: inout [AccessChange]) {
        var before: [String: (NodeID, [Int32])] = [:]
        var oldOrder: [String] = []
        if let a {
            oe.walk(from: a) { node, path, sets in
                before[path] = (node, sets)
                oldOrder.append(path)
                return true
            }
        }
        let count = oldSubjects.count
        func record(_ path: String, _ on: NodeID?, _ nn: NodeID?, _ os: [Int32]?, _ ns: [Int32]?) {
            redecided += 1
            for k in ops.indices {
                for i in 0..<count {
                    let x = os.map { oe.contains($0[k], subject: i) } ?? false
                    let y = ns.map { ne.contains($0[k], subject: i) } ?? false
                    if x != y {
                        if out.count >= limit { overLimit = true; return }
                        out.append(AccessChange(subject: i, op: k, path: path, oldNode: on, newNode: nn, gained: y))
                    }
                }
            }
        }
        if let b {
            ne.walk(from: b) { node, path, sets in
                if overLimit { return false }
                let prior = before.removeValue(forKey: path)
                record(path, prior?.0, node, prior?.1, sets)
                return true
            }
        }
        // Paths that exist only in the old world: what was allowed there is lost.
        for p in oldOrder where !overLimit {
            guard let prior = before[p] else { continue }
            record(p, prior.0, nil, prior.1, nil)
        }
    }

    /// What the walk of the two trees found: the pairs whose subtrees are decided again (a node
    /// on one side only, or whose attributes changed), the directories decided again alone
    /// (their entries changed and an op depends on them), and how many pairs it skipped.
    struct Walk {
        var subtrees: [(NodeID?, NodeID?)] = []
        var ones: [(NodeID, NodeID)] = []
        var skipped = 0
    }

    /// The walk of both trees by name from `o` and `n`, deciding nothing. A function of its
    /// arguments alone: run as a method, each node's comparison read the two worlds through
    /// `self`, which the compiler copied (retaining every table of both worlds) for each call.
    static func walk(
        old: World, new: World, from o: NodeID?, _ n: NodeID?, oldEngine: SetEngine, newEngine: SetEngine,
        entriesMatter: Bool
    ) -> Walk {
        var found = Walk()
        var stack: [(NodeID?, NodeID?)] = [(o, n)]
        // Whether volume i of the old world and volume j of the new are the same (compared
        // once, not for every node), and which nodes' ACLs are mapped from POSIX ACLs (a flag
        // a node, not a hashed set lookup for each).
        let sameVolume = old.volumes.map { v in new.volumes.map { $0 == v } }
        let oldMapped = mappedFlags(old), newMapped = mappedFlags(new)
        old.withNamesAndLinks { ol in
            new.withNamesAndLinks { nl in
                while let (a, b) = stack.popLast() {
                    // A symlink's answers depend on its target, a name a case-insensitive volume folds
                    // onto a sibling on the sibling: such nodes are always decided again.
                    if let a, let b,
                        sameAttributes(
                            ol.node(a), nl.node(b), a, b, old: old, new: new, volumes: sameVolume,
                            mapped: (oldMapped, newMapped)),
                        a == World.root || oldEngine.isPlain(a), b == World.root || newEngine.isPlain(b)
                    {
                        var x = ol.firstChild(of: a), y = nl.firstChild(of: b)
                        if x < 0 && y < 0 { found.skipped += 1; continue }
                        // The usual case: the same names in the same order on both sides (a world and
                        // its edited copy, two scans of one tree), compared by their bytes along the
                        // two lists of children. Pair them by position; the order of the walk does not
                        // matter, the changes are sorted at the end.
                        while x >= 0 && y >= 0 && ol.sameName(x, as: y, in: nl) { x = ol.nextSibling(of: x); y = nl.nextSibling(of: y) }
                        if x < 0 && y < 0 {
                            found.skipped += 1
                            x = ol.firstChild(of: a); y = nl.firstChild(of: b)
                            while x >= 0 { stack.append((x, y)); x = ol.nextSibling(of: x); y = nl.nextSibling(of: y) }
                            continue
                        }
                        let ka = old.children(of: a), kb = new.children(of: b)
                        var names: [String: (NodeID?, NodeID?)] = [:]
                        for c in ka { names[old.name(of: c), default: (nil, nil)].0 = c }
                        for c in kb { names[new.name(of: c), default: (nil, nil)].1 = c }
                        if entriesMatter && names.values.contains(where: { $0.0 == nil || $0.1 == nil }) {
                            found.ones.append((a, b))
                        } else {
                            found.skipped += 1
                        }
                        let sorted = names.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                        for k in sorted.reversed() { stack.append(names[k]!) }
                        continue
                    }
                    found.subtrees.append((a, b))
                }
            }
        }
        return found
    }

    /// For each node of `w`, whether its macOS ACL was mapped from a POSIX ACL.
    static func mappedFlags(_ w: World) -> [Bool] {
        var flags = [Bool](repeating: false, count: w.mappedACLNodes.isEmpty ? 0 : w.nodeCount)
        for n in w.mappedACLNodes where Int(n) < flags.count { flags[Int(n)] = true }
        return flags
    }

    /// Everything a decision reads of one node (`x`, node `a` of the old world, and `y`, node
    /// `b` of the new), compared across the two worlds. (`volumes[i][j]`: whether the old
    /// world's volume i and the new world's volume j are the same; `mapped`: `mappedFlags` of
    /// each world.)
    static func sameAttributes(
        _ x: Node, _ y: Node, _ a: NodeID, _ b: NodeID, old: World, new: World, volumes: [[Bool]],
        mapped: ([Bool], [Bool])
    ) -> Bool {
        guard x.type == y.type, x.uid == y.uid, x.gid == y.gid, x.mode == y.mode, x.flags == y.flags,
            x.protection == y.protection, x.openBeforeLock == y.openBeforeLock,
            volumes[Int(x.volume)][Int(y.volume)]
        else { return false }
        if (x.acl >= 0) != (y.acl >= 0) || (x.acl >= 0 && old.acls[Int(x.acl)] != new.acls[Int(y.acl)]) { return false }
        if (x.posixACL >= 0) != (y.posixACL >= 0) || (x.posixACL >= 0 && old.posixACLs[Int(x.posixACL)] != new.posixACLs[Int(y.posixACL)]) { return false }
        if (x.defaultACL >= 0) != (y.defaultACL >= 0) || (x.defaultACL >= 0 && old.posixACLs[Int(x.defaultACL)] != new.posixACLs[Int(y.defaultACL)]) {
            return false
        }
        if x.type == .symlink && old.symlinkTargets[a] != new.symlinkTargets[b] { return false }
        let m = Int(a) < mapped.0.count && mapped.0[Int(a)], k = Int(b) < mapped.1.count && mapped.1[Int(b)]
        return m == k
    }
}
