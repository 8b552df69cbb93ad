import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// Grants nobody can use (docs/findings.md, FSL019 and FSL020): an allow ACE of a macOS ACL
/// (explicit or inherited: the kernel evaluates both alike), or a named entry of a POSIX ACL,
/// or a class of the mode bits (owner, group, other), whose rights decide nothing for any
/// possible subject — because every subject it applies to is refused search on a directory
/// above, or is always decided by something else first (an earlier ACE, a flag, the mask), or
/// some of each. Why, for the message: `DeadGrants+Reasons.swift`.
///
/// How it is decided, exactly and not by sampling:
/// - **Used means deciding.** A grant is used by a subject for a right when turning the grant
///   into its opposite (an allow ACE into a deny of the same rights; a named entry into one
///   that grants nothing; a mode class into `---`) changes that subject's decision on that
///   right. A grant no subject's decision depends on is dead; a grant that only repeats what
///   the mode gives is not dead (the subject it applies to is decided by it).
/// - **A decision in two halves.** A request on a node is allowed when every directory above
///   grants search (`Authorizer.searchGranted`) and the node's own check allows it once reached
///   (`Authorizer.decideAfterWalk`, which reads the node and its parent). The grant changes only
///   the second half.
/// - **Every possible subject, as constraints.** A subject is a uid and a set of groups. A
///   directory's search check reads only the subject's uid as far as it equals a principal of
///   that directory (its owner, the ids its ACL names, its volume's owner; 99 always counts)
///   and its membership in the groups the directory names. So for each uid class, the
///   directory's check is a truth table over its few groups, computed from the rule set itself;
///   "may reach the parent" is the conjunction of those tables down the path (kept as fixed
///   memberships plus the tables that tie several groups together). The node's own check is a
///   truth table over the groups the node and its parent name, per uid class. A grant is used
///   exactly when, for some uid, some membership of the node's groups makes the grant decide
///   and can be extended to a membership of every group on the path that reaches the node.
///   No limit on the number of groups: the cost grows with the groups that are tied together
///   by one directory's check, not with the groups on the path.
/// - **Shapes, not nodes.** The node's truth tables depend only on the shape of the node and
///   its parent (types, modes, flags, volumes, ACLs, with their principals renamed in order of
///   appearance, root, 99 and `everyone` kept): they are computed once per shape. The path's
///   constraints are computed once per directory, in tree order.
///
/// `DeadGrantTests` checks the verdicts against brute force — every subject over all of a random
/// world's ids and groups, deciding whole requests through the path in the whole world — on
/// random worlds.
public enum DeadGrants {
    /// One explicit grant of a node.
    public enum Grant: Hashable, Sendable {
        /// The allow ACE at this index of the node's macOS ACL.
        case ace(Int)
        case posixUser(UID)
        case posixGroup(GID)
        /// A class of the node's mode bits: 0 owner, 1 group, 2 other.
        case modeClass(Int)
    }

    /// Which grants an analysis looks at.
    public enum Kind: Int, Sendable {
        /// ACEs and named POSIX entries (FSL019).
        case acl
        /// Mode classes (FSL020).
        case mode
    }

    public struct Verdict: Sendable {
        public let grant: Grant
        /// Some subject would use it if the directories above let it reach the node.
        public let blockedAbove: Bool
        /// Some subject it may apply to reaches the node (and is decided by something else
        /// first), so "nobody it applies to reaches the node" would be false. Always true when
        /// not `blockedAbove`.
        public let reachedByGrantee: Bool
        /// Which of the rights of an ACE an earlier entry of the ACL decides first, for those
        /// it applies to who are not cut off above; `.none` for other grants.
        public let earlierEntries: Share

        public init(grant: Grant, blockedAbove: Bool, reachedByGrantee: Bool = true, earlierEntries: Share = .none) {
            self.grant = grant
            self.blockedAbove = blockedAbove
            self.reachedByGrantee = reachedByGrantee || !blockedAbove
            self.earlierEntries = earlierEntries
        }
    }

    /// How many of a grant's rights something decides.
    public enum Share: Sendable { case none, some, all }

    /// The explicit grants of `n` this analysis looks at under `semantics`: allow ACEs (not
    /// only_inherit) of the node's own macOS ACL under macos and guide; named entries of its
    /// POSIX access ACL under linux.
    public static func grants(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [Grant] {
        var out: [Grant] = []
        let t = world[n].type
        guard t == .file || t == .dir else { return [] }
        if semantics == .linux {
            guard let p = world.posixACL(of: n) else { return [] }
            for u in p.users where !u.perms.isEmpty { out.append(.posixUser(u.id)) }
            for g in p.groups where !g.perms.isEmpty { out.append(.posixGroup(g.id)) }
        } else {
            guard let acl = world.acl(of: n), !world.mappedACLNodes.contains(n) else { return [] }
            for (i, e) in acl.entries.enumerated()
            where e.kind == .allow && !e.flags.contains(.onlyInherit)
                && !e.rights.intersection(AccessRights.aceRights).isEmpty
            {
                out.append(.ace(i))
            }
        }
        return out
    }

    /// The mode classes of `n` that grant something (FSL020): files and directories without
    /// a POSIX ACL (whose group class is the mask: FSL019 looks at its entries); not the owner
    /// class of a file root owns (root is decided by privilege, not by the bits).
    public static func modeGrants(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [Grant] {
        let node = world[n]
        guard node.type == .file || node.type == .dir, world.posixACL(of: n) == nil, !world.mappedACLNodes.contains(n) else { return [] }
        var out: [Grant] = []
        if !node.mode.owner.isEmpty && node.uid != 0 { out.append(.modeClass(0)) }
        if !node.mode.group.isEmpty { out.append(.modeClass(1)) }
        if !node.mode.other.isEmpty { out.append(.modeClass(2)) }
        return out
    }

    public static func grants(_ world: World, _ semantics: Semantics, _ n: NodeID, kind: Kind) -> [Grant] {
        kind == .acl ? grants(world, semantics, n) : modeGrants(world, semantics, n)
    }

    /// The single-right requests a grant can decide.
    static func ops(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant) -> [Operation] {
        var rights: AccessRights = []
        switch g {
        case .ace(let i): rights = world.acl(of: n)!.entries[i].rights.intersection(AccessRights.aceRights)
        case .posixUser(let u):
            rights = bits(world.posixACL(of: n)!.users.first { $0.id == u }!.perms)
        case .posixGroup(let gid):
            rights = bits(world.posixACL(of: n)!.groups.first { $0.id == gid }!.perms)
        case .modeClass(let c):
            let m = world[n].mode
            let p = c == 0 ? m.owner : c == 1 ? m.group : m.other
            rights = bits(p)
            // The write bit also grants append (files), add_subdirectory and delete_child (dirs).
            if p.contains(.write) { rights.formUnion(world[n].type == .dir ? [.appendData, .deleteChild] : [.appendData]) }
        }
        var out: [Operation] = []
        for w in AccessRights.words
        where rights.contains(w.right)
            && !out.contains(where: {
                if case .rights(let r, _) = $0 { return r == w.right }; return false
            })
        {
            out.append(.rights(w.right, word: w.word))
        }
        return out
    }

    static func bits(_ p: RWX) -> AccessRights {
        var r: AccessRights = []
        if p.contains(.read) { r.insert(.readData) }
        if p.contains(.write) { r.insert(.writeData) }
        if p.contains(.execute) { r.insert(.execute) }
        return r
    }

    /// `world` with grant `g` of `n` turned into its opposite.
    static func flipped(_ world: World, _ n: NodeID, _ g: Grant) -> World {
        var w = world
        switch g {
        case .ace(let i):
            var acl = w.acl(of: n)!
            acl.entries[i].kind = .deny
            w.setACL(acl, on: n)
        case .posixUser, .posixGroup:
            let p = w.posixACL(of: n)!
            let users = p.users.map { e in POSIXACL.Entry(id: e.id, perms: g == .posixUser(e.id) ? [] : e.perms) }
            let groups = p.groups.map { e in POSIXACL.Entry(id: e.id, perms: g == .posixGroup(e.id) ? [] : e.perms) }
            if let q = try? POSIXACL(userObj: p.userObj, users: users, groupObj: p.groupObj, groups: groups, mask: p.mask, other: p.other) {
                w.setPOSIXACL(q, on: n)
            }
        case .modeClass(let c):
            let shift = UInt16(6 - 3 * c)
            w.update(n) { $0.mode = FileMode($0.mode.rawValue & ~(0o7 << shift)) }
        }
        return w
    }

    /// A world with only `n` and its ancestors (and the same volumes and settings; no accounts:
    /// a decision reads the subject's ids and groups, not the account tables); returns it and
    /// the node's id in it.
    public static func pathWorld(_ world: World, _ n: NodeID) -> (World, NodeID) {
        var w = World()
        if let root = world.volumes.first(where: { $0.mountPath == "/" }) { w.setVolume(root) }
        for v in world.volumes where v.mountPath != "/" { w.setVolume(v) }
        w.securelevel = world.securelevel
        w.linux = world.linux
        w.device = world.device
        // Whether gid 12 is everyone's (`implicitEveryone`) comes along.
        w.fromLinux = world.fromLinux
        if let twelve = world.group(gid: WellKnown.everyoneGID) { w.addGroup(Group(name: twelve.name, gid: twelve.gid)) }
        var chain: [NodeID] = [n]
        var cur = n
        while cur != World.root { cur = world[cur].parent; chain.append(cur) }
        var last: NodeID = World.root
        for a in chain.reversed() {
            let node = world[a]
            let path = world.path(of: a)
            let id = w.addNode(path: path, type: node.type, uid: node.uid, gid: node.gid, mode: node.mode, flags: node.flags, acl: world.acl(of: a))
            if world.mappedACLNodes.contains(a) { w.mappedACLNodes.insert(id) }
            if let p = world.posixACL(of: a) { w.setPOSIXACL(p, on: id) }
            if node.protection != .unspecified || node.openBeforeLock { w.setProtection(node.protection, open: node.openBeforeLock, on: id) }
            last = id
        }
        return (w, last)
    }

    /// The node's own check, per shape: for each grant (in `grants` order) and uid class (in
    /// `candidates` order), the memberships of the shape's groups (bit set of 2^groups) for
    /// which the grant decides. And, once asked, whether someone would use each grant with the
    /// parent open to everyone.
    final class Local {
        let used: [[[UInt64]]]
        var open: [Bool?]
        /// Once asked, which rights of each grant the entries before it decide.
        var earlier: [Share?]
        init(used: [[[UInt64]]]) {
            self.used = used
            self.open = Array(repeating: nil, count: used.count)
            self.earlier = Array(repeating: nil, count: used.count)
        }
    }

    /// Verdicts by shape, for one world and rule set; the path's constraints for the current
    /// directory chain (lint visits the tree in order, so the chain is mostly reused).
    public final class Cache {
        var local: [[UInt64]: Local] = [:]
        var chain: [NodeID] = []
        var reach: [Reach] = []
        var auth: Authorizer? = nil
        /// The shape of the last node asked about (both kinds are asked in a row).
        var shapeOf: NodeID = -1
        var shapeWithParent = false
        var shape: (key: [UInt64], uids: [UID], gids: [GID]) = ([], [], [])
        public internal(set) var hits = 0
        public internal(set) var misses = 0
        public init() {}
    }

    /// Whether grant `g` of `n` can apply to `s` at all (its principal matches): the others'
    /// decisions cannot depend on it, so they need not be asked.
    static func mayApply(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ s: Subject) -> Bool {
        let node = world[n]
        func member(_ gid: GID) -> Bool { semantics == .linux ? s.isDirectMember(gid) : s.isMember(gid) }
        switch g {
        case .posixUser(let u): return s.uid == u
        case .posixGroup(let gid): return member(gid)
        case .modeClass: return true
        case .ace(let i):
            switch world.acl(of: n)!.entries[i].subject {
            case .user(let u): return s.uid == u || (s.uid == WellKnown.unknownID || u == WellKnown.unknownID)
            case .group(let gid): return member(gid) || gid == WellKnown.unknownID
            case .everyone: return true
            case .owner: return true  // ownership can be lent (ignore-ownership volumes, uid 99)
            case .owningGroup: return member(node.gid) || node.gid == WellKnown.unknownID
            }
        }
    }

    /// Whether some subject of `subjects` decides differently once `g` is turned into its
    /// opposite, in `world`, deciding whole requests through the path. `skipInapplicable`:
    /// leave out the subjects `mayApply` rules out. (The brute force of `DeadGrantTests`.)
    public static func isUsed(
        _ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, subjects: [Subject],
        skipInapplicable: Bool = true
    ) -> Bool {
        let ops = ops(world, semantics, n, g)
        let a = Authorizer(world: world, semantics: semantics, tracing: false)
        let b = Authorizer(world: flipped(world, n, g), semantics: semantics, tracing: false)
        let path = world.path(of: n)
        for s in subjects where !s.isRoot && (!skipInapplicable || mayApply(world, semantics, n, g, s)) {
            for op in ops {
                let r = Request(subject: s, op: op, path: path)
                if a.decide(r).allowed != b.decide(r).allowed { return true }
            }
        }
        return false
    }

    /// The dead grants of `n` (in grant order).
    public static func find(_ world: World, _ semantics: Semantics, _ n: NodeID, kind: Kind = .acl) -> [Verdict] {
        find(world, semantics, n, kind: kind, cache: Cache())
    }

    /// The search check of directory `d`, per uid class: a constraint to add for each.
    static func searchTables(_ auth: Authorizer, _ world: World, _ semantics: Semantics, _ d: NodeID)
        -> (uids: [UID], tables: [Table], other: Table)
    {
        let (_, uids, gids) = shape(world, semantics, [d])
        let cands = candidates(uids)
        var tables: [Table] = []
        for u in cands {
            var ok = [Bool](repeating: false, count: 1 << gids.count)
            for m in ok.indices { ok[m] = auth.searchGranted(subject(u, gids, m, semantics, world), dir: d) }
            tables.append(Table(vars: gids, ok: ok))
        }
        let other = tables.removeLast()
        // Only the uids this directory decides differently from any other uid.
        var out: ([UID], [Table]) = ([], [])
        for (u, t) in zip(cands.dropLast(), tables) where t.ok != other.ok { out.0.append(u); out.1.append(t) }
        return (out.0, out.1, other)
    }

    /// Who reaches `n`'s parent: the chain of constraints from the root, reusing the cached
    /// prefix.
    static func reachOfParent(_ world: World, _ semantics: Semantics, _ n: NodeID, _ cache: Cache) -> Reach {
        if n == World.root { return Reach() }
        var above: [NodeID] = []
        var cur = n
        while cur != World.root { cur = world[cur].parent; above.append(cur) }
        above.reverse()
        var k = 0
        while k < above.count && k < cache.chain.count && cache.chain[k] == above[k] { k += 1 }
        cache.chain.removeSubrange(k...)
        cache.reach.removeSubrange(k...)
        if cache.auth == nil { cache.auth = Authorizer(world: world, semantics: semantics, tracing: false) }
        let auth = cache.auth!
        for d in above[k...] {
            let base = cache.reach.last ?? Reach()
            let (uids, tables, other) = searchTables(auth, world, semantics, d)
            var r = Reach()
            r.other = base.other
            r.other.add(other)
            for (u, c) in base.explicit {
                var c = c
                c.add(uids.firstIndex(of: u).map { tables[$0] } ?? other)
                r.explicit[u] = c
            }
            for (u, t) in zip(uids, tables) where base.explicit[u] == nil {
                var c = base.other
                c.add(t)
                r.explicit[u] = c
            }
            r.order = r.explicit.keys.sorted()
            cache.chain.append(d)
            cache.reach.append(r)
        }
        return cache.reach.last!
    }

    /// The node's own check for a shape (computed in a world holding only the path).
    static func local(_ world: World, _ semantics: Semantics, _ n: NodeID, _ gs: [Grant], _ uids: [UID], _ gids: [GID]) -> Local {
        let (w, m) = pathWorld(world, n)
        let a = Authorizer(world: w, semantics: semantics, tracing: false)
        let cands = candidates(uids)
        let words = max(1, (1 << gids.count) / 64)
        var used: [[[UInt64]]] = []
        // The decisions without any change, shared by the grants.
        var before: [Int: Bool] = [:]
        for g in gs {
            let ops = ops(w, semantics, m, g)
            let b = Authorizer(world: flipped(w, m, g), semantics: semantics, tracing: false)
            var perUID: [[UInt64]] = []
            for (ci, u) in cands.enumerated() {
                var bitset = [UInt64](repeating: 0, count: words)
                for mask in 0..<(1 << gids.count) {
                    let s = subject(u, gids, mask, semantics, w)
                    guard mayApply(w, semantics, m, g, s) else { continue }
                    for op in ops {
                        guard case .rights(let r, _) = op else { continue }
                        let k = (ci << 40) | (mask << 8) | r.rawValue.trailingZeroBitCount
                        let x: Bool
                        if let y = before[k] { x = y } else { x = a.decideAfterWalk(s, op, node: m); before[k] = x }
                        if x == b.decideAfterWalk(s, op, node: m) { continue }
                        bitset[mask >> 6] |= 1 << UInt64(mask & 63)
                        break
                    }
                }
                perUID.append(bitset)
            }
            used.append(perUID)
        }
        return Local(used: used)
    }

    /// Whether someone would use grant `i` of the shape with the parent (and so every directory
    /// above) open to everyone.
    static func openUsed(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ uids: [UID], _ gids: [GID]) -> Bool {
        let (w, m) = openPathWorld(world, n)
        return usedRights(w, semantics, m, g, uids, gids, stopAtFirst: true).contains(true)
    }

    /// The dead grants of `n` of one kind (in grant order), memoized.
    public static func find(_ world: World, _ semantics: Semantics, _ n: NodeID, kind: Kind = .acl, cache: Cache) -> [Verdict] {
        let gs = grants(world, semantics, n, kind: kind)
        if gs.isEmpty { return [] }
        let parent = world[n].parent
        // The node's check reads the parent only for `delete` (delete_child there, its flags,
        // the sticky bit): the shape takes the parent in only for a grant of that right.
        let withParent =
            n != World.root
            && gs.contains { g in
                ops(world, semantics, n, g).contains { op in
                    if case .rights(let r, _) = op { return r.contains(.delete) }
                    return false
                }
            }
        if cache.shapeOf != n || cache.shapeWithParent != withParent {
            let sh = shape(world, semantics, withParent ? [parent, n] : [n])
            cache.shapeOf = n
            cache.shapeWithParent = withParent
            cache.shape = sh
        }
        let (k, luids, lgids) = cache.shape
        var key = k
        key.append(UInt64(kind.rawValue))
        let loc: Local
        if let hit = cache.local[key] {
            cache.hits += 1
            loc = hit
        } else {
            cache.misses += 1
            loc = local(world, semantics, n, gs, luids, lgids)
            cache.local[key] = loc
        }
        let reach = reachOfParent(world, semantics, n, cache)
        let cands = candidates(luids)
        var live = [Bool](repeating: false, count: gs.count)
        var liveCount = 0
        // Every uid the path or the node tells apart, and one that neither does.
        var us: [UID] = reach.order
        for u in cands.dropLast() where reach.explicit[u] == nil { us.append(u) }
        var other: UID = cands.last!
        while reach.explicit[other] != nil || cands.dropLast().contains(other) { other -= 1 }
        us.append(other)
        let count = 1 << lgids.count
        var feasible = [Bool](repeating: false, count: count)
        for u in us where liveCount < gs.count {
            let c = reach.of(u)
            if c.unsat { continue }
            let li = cands.firstIndex(of: u) ?? cands.count - 1
            // The memberships of the node's groups that some subject of uid u reaching the
            // node has: the fixed memberships, then (rarely) the tables tying groups together.
            var needed = false
            for gi in gs.indices where !live[gi] && loc.used[gi][li].contains(where: { $0 != 0 }) { needed = true; break }
            if !needed { continue }
            var must = 0, mustNot = 0
            if !c.fixed.isEmpty {
                for (i, g) in lgids.enumerated() {
                    if let x = c.fixed[g] { if x { must |= 1 << i } else { mustNot |= 1 << i } }
                }
            }
            for mask in 0..<count {
                var ok = mask & must == must && mask & mustNot == 0
                if ok && !c.tables.isEmpty {
                    var extra: [GID: Bool] = [:]
                    for (i, g) in lgids.enumerated() { extra[g] = mask & (1 << i) != 0 }
                    ok = c.satisfiable(extra)
                }
                feasible[mask] = ok
            }
            for gi in gs.indices where !live[gi] {
                let bits = loc.used[gi][li]
                for mask in 0..<count where feasible[mask] && bits[mask >> 6] & (1 << UInt64(mask & 63)) != 0 {
                    live[gi] = true
                    liveCount += 1
                    break
                }
            }
        }
        var out: [Verdict] = []
        for (i, g) in gs.enumerated() where !live[i] {
            let blocked: Bool
            if let b = loc.open[i] {
                blocked = b
            } else {
                blocked = openUsed(world, semantics, n, g, luids, lgids)
                loc.open[i] = blocked
            }
            let reached = !blocked || reachedByGrantee(world, semantics, n, g, reach, us, lgids)
            var earlier = Share.none
            if reached {
                if let e = loc.earlier[i] {
                    earlier = e
                } else {
                    earlier = earlierEntriesDecide(world, semantics, n, g, luids, lgids)
                    loc.earlier[i] = earlier
                }
            }
            out.append(Verdict(grant: g, blockedAbove: blocked, reachedByGrantee: reached, earlierEntries: earlier))
        }
        return out
    }
}
