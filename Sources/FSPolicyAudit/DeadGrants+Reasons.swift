// Dead grants: why a grant is dead, in terms the decision of each subject bears out.
import FSPolicy

extension DeadGrants {
    // MARK: Reasons

    /// The path world of `n` with its parent open to everyone (mode 0777, no flags, no ACL).
    static func openPathWorld(_ world: World, _ n: NodeID) -> (World, NodeID) {
        var (w, m) = pathWorld(world, n)
        if m != World.root {
            let p = w[m].parent
            w.update(p) {
                $0.mode = FileMode(0o777); $0.flags = []
            }
            w.setACL(nil, on: p)
            w.setPOSIXACL(nil, on: p)
        }
        return (w, m)
    }

    /// For each right (`ops` order) of grant `g` of `m` in the path world `w`: whether some
    /// subject of the shape's classes decides it differently once `g` is turned into its
    /// opposite, the walk having reached `m`. `stopAtFirst`: return at the first right used.
    static func usedRights(_ w: World, _ semantics: Semantics, _ m: NodeID, _ g: Grant, _ uids: [UID], _ gids: [GID], stopAtFirst: Bool) -> [Bool] {
        let a = Authorizer(world: w, semantics: semantics, tracing: false)
        let b = Authorizer(world: flipped(w, m, g), semantics: semantics, tracing: false)
        let ops = ops(w, semantics, m, g)
        var used = [Bool](repeating: false, count: ops.count)
        var left = ops.count
        for u in candidates(uids) {
            for mask in 0..<(1 << gids.count) {
                let s = subject(u, gids, mask, semantics, w)
                guard mayApply(w, semantics, m, g, s) else { continue }
                for (k, op) in ops.enumerated() where !used[k] && a.decideAfterWalk(s, op, node: m) != b.decideAfterWalk(s, op, node: m) {
                    used[k] = true
                    left -= 1
                    if stopAtFirst || left == 0 { return used }
                }
            }
        }
        return used
    }

    /// Whether `s` may be one of those grant `g` of `n` is for: as `mayApply`, and for a mode
    /// class, whether `s` may fall in that class (owner; member of the group; neither), every
    /// class counting where ownership can be lent (uid 99, ignore-ownership volumes).
    static func mayBeGrantee(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ s: Subject) -> Bool {
        guard case .modeClass(let c) = g else { return mayApply(world, semantics, n, g, s) }
        let node = world[n]
        if semantics != .linux
            && (world.volumeBits[Int(node.volume)].ignoreOwnership || node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID
                || s.uid == WellKnown.unknownID)
        {
            return true
        }
        let owner = s.uid == node.uid
        let member = semantics == .linux ? s.isDirectMember(node.gid) : s.isMember(node.gid)
        switch c {
        case 0: return owner
        case 1: return !owner && member
        default: return !owner && !member
        }
    }

    /// Whether some subject `g` may be for reaches `n` (may search every directory above):
    /// for each uid of `us`, the memberships of the node's groups `gids` its constraint admits.
    static func reachedByGrantee(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ reach: Reach, _ us: [UID], _ gids: [GID]) -> Bool {
        for u in us {
            let c = reach.of(u)
            if c.unsat { continue }
            for mask in 0..<(1 << gids.count) where c.admits(mask, of: gids) {
                if mayBeGrantee(world, semantics, n, g, subject(u, gids, mask, semantics, world)) { return true }
            }
        }
        return false
    }

    /// For an ACE, which of its rights the entries before it decide: a right counts when, with
    /// those entries taken out, some subject would use the ACE for it once the walk has reached
    /// the node. A right none of them decides is decided before the ACL is read (a flag, the
    /// volume). `.none` for every other grant, and for the first entry.
    static func earlierEntriesDecide(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ uids: [UID], _ gids: [GID]) -> Share {
        guard case .ace(let i) = g, i > 0 else { return .none }
        var (w, m) = pathWorld(world, n)
        guard var acl = w.acl(of: m) else { return .none }
        acl.entries.removeFirst(i)
        w.setACL(acl, on: m)
        let used = usedRights(w, semantics, m, .ace(0), uids, gids, stopAtFirst: false)
        return used.allSatisfy { $0 } ? .all : used.contains(true) ? .some : .none
    }
}
