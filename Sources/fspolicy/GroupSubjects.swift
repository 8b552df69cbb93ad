import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport

/// Groups as subjects: `--as @GROUP` (and `@GROUP` in `--users`) stands for a member of GROUP
/// who has no other right — a user the tree does not otherwise know (docs/cli.md, "Groups as
/// subjects"): a uid no user, owner or ACL entry names, whose primary group is GROUP and who
/// has no supplementary group. Everything else follows from the world's own rules: the groups
/// that nest GROUP (they count their members' members), and under macos `everyone`.
enum GroupSubjects {
    /// The first uid the synthetic member takes, when nothing in the world uses it.
    static let firstUID: UID = 4_000_000_000

    /// The group a `@NAME` (or `@GID`) word names; nil when the word does not start with `@`.
    /// Exits 3 when no such group is declared.
    static func group(_ word: String, in world: World) throws -> Group? {
        guard word.hasPrefix("@") else { return nil }
        let name = String(word.dropFirst())
        if let g = world.group(named: name) { return g }
        if let gid = UInt32(name), let g = world.group(gid: gid) { return g }
        let known = world.groups.map(\.name)
        let hint = nearest(name, in: known).map { "did you mean `@\($0)`? " } ?? ""
        printError(
            "fspolicy: error: unknown group `\(safe(name))` in `\(safe(word))`\n  help: \(hint)`@GROUP` names a declared group (or a gid): \(known.prefix(12).map(safe).joined(separator: ", "))\(known.count > 12 ? ", …" : "")"
        )
        throw ExitCode.invalid
    }

    /// A uid that no user, node owner, ACL entry or volume of `world` names.
    static func freeUID(in world: World) -> UID {
        var used: Set<UID> = Set(world.users.map(\.uid))
        world.withNamesAndLinks { view in
            for i in 0..<world.nodeCount { let u = view.node(NodeID(i)).uid; if u >= firstUID { used.insert(u) } }
        }
        for acl in world.acls { for ace in acl.entries { if case .user(let u) = ace.subject { used.insert(u) } } }
        for p in world.posixACLs { for u in p.users { used.insert(u.id) } }
        var uid = firstUID
        while used.contains(uid) { uid += 1 }
        return uid
    }

    /// `world` with the synthetic member of `g` added as user `@NAME`, and its uid.
    static func adding(_ g: Group, to world: World) -> (World, UID) {
        var w = world
        let uid = freeUID(in: world)
        w.addUser(User(name: "@" + g.name, uid: uid, gid: g.gid))
        return (w, uid)
    }

    /// The synthetic member's credential in `world`.
    static func member(of g: Group, in world: World) -> Subject {
        let (w, uid) = adding(g, to: world)
        return w.subject(uid: uid)
    }

    /// For `can`/`explain`: when `who` is `@GROUP`, the policy's world gains the synthetic
    /// member under the name `@GROUP`, so the request reads it as any declared user.
    static func prepare(_ who: String?, in p: inout Policy) throws {
        guard let who, p.world.user(named: who) == nil, let g = try group(who, in: p.world) else { return }
        p.world = adding(g, to: p.world).0
        if who != "@" + g.name { p.world.addUser(User(name: who, uid: p.world.user(named: "@" + g.name)!.uid, gid: g.gid)) }
    }

    /// The declared users that are members of `gid` (directly, or through a nested group), in
    /// declaration order.
    static func members(of gid: GID, in p: Policy, world: World) -> [String] {
        p.userOrder.filter { name in
            guard let u = world.user(named: name) else { return false }
            return world.subject(uid: u.uid).isMember(gid)
        }
    }
}
