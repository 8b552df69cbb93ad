// Dead grants: the shape of a node and its parent, its uid classes and the subjects asked.
import FSPolicy

extension DeadGrants {
    // MARK: Shapes

    /// The shape of the nodes in `chain` (principals renamed in order of appearance; root, 99
    /// and `everyone` kept), and their uids (root left out) and groups (`everyone` left out under
    /// the macOS rule sets) in order of appearance.
    static func shape(_ world: World, _ semantics: Semantics, _ chain: [NodeID]) -> (key: [UInt64], uids: [UID], gids: [GID]) {
        // Small lists, searched linearly: a shape names a handful of principals.
        var uidMap: [UID] = [], gidMap: [GID] = []
        var uids: [UID] = [], gids: [GID] = []
        // `everyone` is everyone's only where the world puts every user in gid 12.
        let mac = semantics != .linux && world.implicitEveryone
        func u(_ x: UID) -> UInt64 {
            if x != 0 && !uids.contains(x) { uids.append(x) }
            if x == 0 || x == WellKnown.unknownID { return 1 << 40 | UInt64(x) }
            if let v = uidMap.firstIndex(of: x) { return UInt64(v) }
            uidMap.append(x); return UInt64(uidMap.count - 1)
        }
        func g(_ x: GID) -> UInt64 {
            if !(mac && x == WellKnown.everyoneGID) && !gids.contains(x) { gids.append(x) }
            if x == 0 || x == WellKnown.unknownID || x == WellKnown.everyoneGID { return 1 << 40 | UInt64(x) }
            if let v = gidMap.firstIndex(of: x) { return UInt64(v) }
            gidMap.append(x); return UInt64(gidMap.count - 1)
        }
        var key: [UInt64] = [UInt64(chain.count)]
        key.reserveCapacity(8 + 14 * chain.count)
        for c in chain {
            let node = world[c]
            key.append(0xFFFF_0000_0000 | UInt64(node.type.rawValue) << 16 | UInt64(node.mode.rawValue))
            key.append(UInt64(node.flags.rawValue) << 24 | UInt64(node.volume) << 8 | UInt64(node.protection.rawValue) << 1 | (node.openBeforeLock ? 1 : 0))
            key.append(u(node.uid)); key.append(g(node.gid))
            let vb = world.volumeBits[Int(node.volume)]
            key.append(vb.fsOwner.map { u($0) } ?? UInt64.max); key.append(vb.fsGroup.map { g($0) } ?? UInt64.max)
            if node.acl >= 0, let acl = world.acl(of: c) {
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
            if node.posixACL >= 0, let p = world.posixACL(of: c) {
                key.append(0xB05_0000_0000 | UInt64(p.userObj.rawValue) << 16 | UInt64(p.groupObj.rawValue) << 8 | UInt64(p.other.rawValue))
                key.append(p.mask.map { UInt64($0.rawValue) } ?? UInt64.max)
                for e in p.users { key.append(1 << 60 | u(e.id)); key.append(UInt64(e.perms.rawValue)) }
                for e in p.groups { key.append(2 << 60 | g(e.id)); key.append(UInt64(e.perms.rawValue)) }
            }
        }
        return (key, uids, gids)
    }

    /// The uid classes of a shape: its uids, 99 (which a macOS check may treat as anyone), and
    /// one uid none of them is.
    static func candidates(_ uids: [UID]) -> [UID] {
        var c = uids
        if !c.contains(WellKnown.unknownID) { c.append(WellKnown.unknownID) }
        var other: UID = 4_294_967_000
        while c.contains(other) { other -= 1 }
        c.append(other)
        return c
    }

    /// A subject of uid `u` that is a member of exactly the groups of `gids` whose bit is set
    /// in `mask` (and of `everyone` under the macOS rule sets where `world` puts every user in
    /// it, and of one group nothing names, its primary group).
    static func subject(_ u: UID, _ gids: [GID], _ mask: Int, _ semantics: Semantics, _ world: World) -> Subject {
        var noGroup: GID = 4_294_967_000
        while gids.contains(noGroup) { noGroup -= 1 }
        var gs: [GID] = [noGroup]
        for (i, g) in gids.enumerated() where mask & (1 << i) != 0 { gs.append(g) }
        if semantics != .linux && world.implicitEveryone { gs.append(WellKnown.everyoneGID) }
        return Subject(uid: u, gid: noGroup, groups: gs)
    }
}
