import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport

/// The groups through which `who` finds an operation allowed.
enum WhoGroups {
    struct Row {
        var name: String
        var gid: GID
        /// Where the group is named: the node's `group` or `ACL`, the `directory's group` or `ACL`.
        var via: String
        var members: [String]
    }

    /// The groups the request's node (and, for an op on a name, its directory) names — owning
    /// group, ACL group entries, POSIX ACL named groups — whose synthetic member
    /// (`GroupSubjects`) is allowed one of `specs` while a user of no group that matters is not.
    static func granting(_ specs: [RequestSpec], evaluator ev: Evaluator, policy p: Policy, world: World) -> [Row] {
        guard let spec = specs.first else { return [] }
        var candidates: [(GID, String)] = []
        func add(_ g: GID, _ via: String) {
            if let i = candidates.firstIndex(where: { $0.0 == g }) {
                if !candidates[i].1.contains(via) { candidates[i].1 += ", " + via }
            } else {
                candidates.append((g, via))
            }
        }
        func named(_ n: NodeID, _ suffix: String) {
            add(world[n].gid, suffix + "group")
            if let acl = world.acl(of: n) {
                for ace in acl.entries { if case .group(let g) = ace.subject { add(g, suffix + "ACL") } }
            }
            if let pa = world.posixACL(of: n) { for g in pa.groups { add(g.id, suffix + "ACL") } }
        }
        let node = world.lookup(spec.path)
        if let n = node { named(n, "") }
        let onName: Set<String> = ["create", "creat", "open", "mkdir", "delete", "rename", "link", "symlink", "mkfifo", "mknod", "socket"]
        if node == nil || specs.contains(where: { onName.contains($0.op.word) }) {
            var parent = spec.path
            while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
            if let i = parent.lastIndex(of: "/") {
                let dir = i == parent.startIndex ? "/" : String(parent[..<i])
                if let d = world.lookup(dir) { named(d, "directory's ") }
            }
        }
        let auth = Authorizer(world: world, semantics: ev.semantics, tracing: false)
        func allowed(_ s: Subject) -> Bool {
            specs.contains { spec in
                var r = ev.request(spec, uid: 0)
                r.subject = s
                return auth.decide(r).allowed
            }
        }
        // A user in no group the tree names: what anyone gets without a group.
        var freeGID: GID = GroupSubjects.firstUID
        while world.group(gid: freeGID) != nil || candidates.contains(where: { $0.0 == freeGID }) { freeGID += 1 }
        let baseline = GroupSubjects.member(of: Group(name: "", gid: freeGID), in: world)
        if allowed(baseline) { return [] }
        var out: [Row] = []
        for (gid, via) in candidates {
            guard let g = world.group(gid: gid), allowed(GroupSubjects.member(of: g, in: world)) else { continue }
            out.append(Row(name: g.name, gid: gid, via: via, members: GroupSubjects.members(of: gid, in: p, world: world)))
        }
        return out
    }
}
