import FSPolicy

/// Explicit grants nobody can use (docs/findings.md, FSL019): an allow ACE of a macOS ACL, or a
/// named entry of a POSIX ACL, whose rights decide nothing for any possible subject — because
/// every subject it applies to is refused search on a directory above, or is always decided by
/// something else first (an earlier ACE, the mask).
///
/// How it is decided, exactly and not by sampling:
/// - **Used means deciding.** A grant is used by a subject for a right when turning the grant
///   into its opposite (an allow ACE into a deny of the same rights; a named entry into one
///   that grants nothing) changes that subject's decision on that right. A grant no subject's
///   decision depends on is dead; a grant that only repeats what the mode gives is not dead
///   (the subject it applies to is decided by it).
/// - **Every possible subject.** Only the principals of the node and of the directories above
///   it can change a decision on the node: the owners and groups and the ids named by their ACL
///   entries — and of a directory above that grants search to every class (x for owner, group
///   and other, no ACL), none. A subject is characterised by its uid (one of those, or any other) and by which of
///   those groups it is a member of; every combination is one class, decided through one
///   representative. Nothing else about a subject can change a decision, so the classes cover
///   every possible subject (root aside: root is never a grantee). More than `maxGroups` groups
///   on one path and the node is not analysed.
/// - **The path alone.** The decisions are made in a world that holds only the node and its
///   ancestors (the same accounts and volumes), which decides them the same way.
///
/// `DeadGrantTests` checks the verdicts against brute force — every subject over all of a random
/// world's ids and groups, in the whole world — on random worlds.
public enum DeadGrants {
    public static let maxGroups = 8

    /// One explicit grant of a node.
    public enum Grant: Hashable, Sendable {
        /// The allow ACE at this index of the node's macOS ACL.
        case ace(Int)
        case posixUser(UID)
        case posixGroup(GID)
    }

    public struct Verdict: Sendable {
        public let grant: Grant
        /// Some subject would use it if the directories above let it reach the node.
        public let blockedAbove: Bool
    }

    /// The explicit grants of `n` this analysis looks at under `semantics`: allow ACEs (not
    /// only_inherit) of the node's own macOS ACL under macos and guide; named entries of its
    /// POSIX access ACL under linux.
    public static func grants(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [Grant] {
        var out: [Grant] = []
        if semantics == .linux {
            guard let p = world.posixACL(of: n) else { return [] }
            for u in p.users where !u.perms.isEmpty { out.append(.posixUser(u.id)) }
            for g in p.groups where !g.perms.isEmpty { out.append(.posixGroup(g.id)) }
        } else {
            guard let acl = world.acl(of: n), !world.mappedACLNodes.contains(n) else { return [] }
            for (i, e) in acl.entries.enumerated() where e.kind == .allow && !e.flags.contains(.onlyInherit)
                && !e.rights.intersection(AccessRights.aceRights).isEmpty {
                out.append(.ace(i))
            }
        }
        return out
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
        }
        var out: [Operation] = []
        for w in AccessRights.words where rights.contains(w.right) && !out.contains(where: { if case .rights(let r, _) = $0 { return r == w.right }; return false }) {
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

    /// A directory above `n` (not its parent, whose mode and owner decide deleting `n`) that
    /// grants search to every class: x for owner, group and other, and no ACL.
    static func isUniform(_ world: World, _ n: NodeID, _ d: NodeID) -> Bool {
        let node = world[d]
        return d != n && d != world[n].parent && node.type == .dir && node.mode.rawValue & 0o111 == 0o111 && node.acl < 0 && node.posixACL < 0
    }

    /// The shape of `n`'s path as far as a decision on `n` can tell: every directory above but
    /// the uniform ones, the parent and the node, with their types, modes, flags, volumes and
    /// ACLs, and their principals renamed in order of appearance (root, 99 and `everyone` kept).
    /// Two nodes of one shape have the same dead grants (at the same positions): renaming ids
    /// consistently changes no decision, and every subject class is enumerated either way.
    static func shapeKey(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [UInt64] {
        var uidMap: [UID: UInt64] = [:], gidMap: [GID: UInt64] = [:]
        func u(_ x: UID) -> UInt64 {
            if x == 0 || x == WellKnown.unknownID { return 1 << 40 | UInt64(x) }
            if let v = uidMap[x] { return v }
            let v = UInt64(uidMap.count); uidMap[x] = v; return v
        }
        func g(_ x: GID) -> UInt64 {
            if x == 0 || x == WellKnown.unknownID || x == WellKnown.everyoneGID { return 1 << 40 | UInt64(x) }
            if let v = gidMap[x] { return v }
            let v = UInt64(gidMap.count); gidMap[x] = v; return v
        }
        var chain: [NodeID] = [n]
        var cur = n
        while cur != World.root { cur = world[cur].parent; chain.append(cur) }
        var key: [UInt64] = []
        for c in chain.reversed() where !isUniform(world, n, c) {
            let node = world[c]
            key.append(0xFFFF_0000_0000 | UInt64(node.type.rawValue) << 16 | UInt64(node.mode.rawValue))
            key.append(UInt64(node.flags.rawValue) << 24 | UInt64(node.volume) << 8 | UInt64(node.protection.rawValue) << 1 | (node.openBeforeLock ? 1 : 0))
            key.append(u(node.uid)); key.append(g(node.gid))
            let vb = world.volumeBits[Int(node.volume)]
            key.append(vb.fsOwner.map { u($0) } ?? UInt64.max); key.append(vb.fsGroup.map { g($0) } ?? UInt64.max)
            if let acl = world.acl(of: c) {
                key.append(0xACE0_0000_0000 | UInt64(acl.entries.count) << 1 | (world.mappedACLNodes.contains(c) ? 1 : 0))
                for e in acl.entries {
                    key.append(UInt64(e.kind.rawValue) << 48 | UInt64(e.flags.rawValue) << 32 | UInt64(e.rights.rawValue))
                    switch e.subject {
                    case .user(let x): key.append(1 << 60 | u(x))
                    case .group(let x): key.append(2 << 60 | g(x))
                    case .everyone: key.append(3 << 60)
                    case .owner: key.append(4 << 60)
                    case .owningGroup: key.append(5 << 60)
                    }
                }
            }
            if let p = world.posixACL(of: c) {
                key.append(0xB05_0000_0000 | UInt64(p.userObj.rawValue) << 16 | UInt64(p.groupObj.rawValue) << 8 | UInt64(p.other.rawValue))
                key.append(p.mask.map { UInt64($0.rawValue) } ?? UInt64.max)
                for e in p.users { key.append(1 << 60 | u(e.id)); key.append(UInt64(e.perms.rawValue)) }
                for e in p.groups { key.append(2 << 60 | g(e.id)); key.append(UInt64(e.perms.rawValue)) }
            }
        }
        return key
    }

    /// Verdicts by path shape (`shapeKey`), for one world and rule set: positions in
    /// `grants(…)` order, nil for a live grant, else whether it is blocked above.
    public final class Cache {
        var table: [[UInt64]: [Bool?]?] = [:]
        public internal(set) var hits = 0
        public init() {}
    }

    /// `find`, memoized by path shape.
    public static func find(_ world: World, _ semantics: Semantics, _ n: NodeID, cache: Cache) -> [Verdict]? {
        let gs = grants(world, semantics, n)
        if gs.isEmpty { return [] }
        let key = shapeKey(world, semantics, n)
        if let hit = cache.table[key] {
            cache.hits += 1
            guard let marks = hit else { return nil }
            return zip(gs, marks).compactMap { g, m in m.map { Verdict(grant: g, blockedAbove: $0) } }
        }
        let found = find(world, semantics, n)
        cache.table[key] = found.map { vs in
            gs.map { g in vs.first { $0.grant == g }.map(\.blockedAbove) }
        }
        return found
    }

    /// Every class of non-root subject that the principals of `n` and its ancestors tell
    /// apart, one representative each; nil when they name more than `maxGroups` groups.
    public static func universe(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [Subject]? {
        var uids: Set<UID> = [WellKnown.unknownID]
        var gids: Set<GID> = []
        var cur = n
        while true {
            let node = world[cur]
            // A directory above that grants search to every class (x for owner, group and
            // other, no ACL) decides every non-root subject alike: its principals tell no one
            // apart. (Its volume's principals still count, below.)
            let uniform = isUniform(world, n, cur)
            if !uniform { uids.insert(node.uid); gids.insert(node.gid) }
            if !uniform, let acl = world.acl(of: cur) {
                for e in acl.entries {
                    switch e.subject {
                    case .user(let u): uids.insert(u)
                    case .group(let g): gids.insert(g)
                    default: break
                    }
                }
            }
            if !uniform, let p = world.posixACL(of: cur) {
                for e in p.users { uids.insert(e.id) }
                for e in p.groups { gids.insert(e.id) }
            }
            let vb = world.volumeBits[Int(node.volume)]
            if let u = vb.fsOwner { uids.insert(u) }
            if let g = vb.fsGroup { gids.insert(g) }
            if cur == World.root { break }
            cur = node.parent
        }
        uids.remove(0)
        let mac = semantics != .linux
        if mac { gids.remove(WellKnown.everyoneGID) }
        guard gids.count <= maxGroups else { return nil }
        var other: UID = 4_294_967_000
        while uids.contains(other) { other -= 1 }
        var noGroup: GID = 4_294_967_000
        while gids.contains(noGroup) { noGroup -= 1 }
        let gl = gids.sorted()
        var out: [Subject] = []
        for u in uids.sorted() + [other] {
            for mask in 0..<(1 << gl.count) {
                var gs: [GID] = []
                for (i, g) in gl.enumerated() where mask & (1 << i) != 0 { gs.append(g) }
                let primary = gs.first ?? noGroup
                if mac { gs.append(WellKnown.everyoneGID) }
                out.append(Subject(uid: u, gid: primary, groups: gs))
            }
        }
        return out
    }

    /// Whether grant `g` of `n` can apply to `s` at all (its principal matches): the others'
    /// decisions cannot depend on it, so they need not be asked.
    static func mayApply(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, _ s: Subject) -> Bool {
        let node = world[n]
        func member(_ gid: GID) -> Bool { semantics == .linux ? s.isDirectMember(gid) : s.isMember(gid) }
        switch g {
        case .posixUser(let u): return s.uid == u
        case .posixGroup(let gid): return member(gid)
        case .ace(let i):
            switch world.acl(of: n)!.entries[i].subject {
            case .user(let u): return s.uid == u || (s.uid == WellKnown.unknownID || u == WellKnown.unknownID)
            case .group(let gid): return member(gid) || gid == WellKnown.unknownID
            case .everyone: return true
            case .owner: return true   // ownership can be lent (ignore-ownership volumes, uid 99)
            case .owningGroup: return member(node.gid) || node.gid == WellKnown.unknownID
            }
        }
    }

    /// Whether some subject of `subjects` decides differently once `g` is turned into its
    /// opposite, in `world`. `skipInapplicable`: leave out the subjects `mayApply` rules out.
    public static func isUsed(_ world: World, _ semantics: Semantics, _ n: NodeID, _ g: Grant, subjects: [Subject],
                              skipInapplicable: Bool = true) -> Bool {
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

    /// The dead grants of `n` (in grant order), or nil when the node is not analysed (too many
    /// groups on its path).
    public static func find(_ world: World, _ semantics: Semantics, _ n: NodeID) -> [Verdict]? {
        let gs = grants(world, semantics, n)
        if gs.isEmpty { return [] }
        guard let subjects = universe(world, semantics, n) else { return nil }
        let (w, m) = pathWorld(world, n)
        // Only subjects whose walk reaches the node can decide differently on it: ask the
        // search checks first (cheap), the decisions only for those.
        let auth = Authorizer(world: w, semantics: semantics, tracing: false)
        var above: [NodeID] = []
        var cur = m
        while cur != World.root { cur = w[cur].parent; above.append(cur) }
        let reaching = subjects.filter { s in above.allSatisfy { auth.searchGranted(s, dir: $0) } }
        var out: [Verdict] = []
        var open: (World, NodeID)? = nil
        for g in gs where !isUsed(w, semantics, m, g, subjects: reaching) {
            // Why: with every directory above opened to everyone, would someone use it?
            if open == nil {
                var o = w
                var cur = o[m].parent
                while true {
                    o.update(cur) { $0.mode = FileMode(0o777); $0.flags = [] }
                    o.setACL(nil, on: cur)
                    o.setPOSIXACL(nil, on: cur)
                    if cur == World.root { break }
                    cur = o[cur].parent
                }
                open = (o, m)
            }
            out.append(Verdict(grant: g, blockedAbove: isUsed(open!.0, semantics, m, g, subjects: subjects)))
        }
        return out
    }
}
