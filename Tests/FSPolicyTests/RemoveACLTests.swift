import FSPolicy
import Testing

/// `removeacls` under linux behaves like `setfacl -b`: the base entries stay, so the group bits
/// of the mode become the `group::` entry's (the mask goes away with the named entries).
@Test("linux removeacls: the group bits revert to group:: (setfacl -b)")
func linuxRemoveACLsRestoresGroupBits() throws {
    var w = World()
    w.addUser(User(name: "alice", uid: 501, gid: 100))
    let f = w.addNode(path: "/srv/f", type: .file, uid: 501, gid: 100, mode: FileMode(0o660))
    let acl = try POSIXACL(userObj: [.read, .write], users: [POSIXACL.Entry(id: 502, perms: [.read, .write])],
                           groupObj: .read, mask: [.read, .write], other: [])
    w.setPOSIXACL(acl, on: f)
    let out = Mutator.apply(Request(subject: w.subject(uid: 0), op: .removeACLs, path: "/srv/f"), to: &w, semantics: .linux)
    #expect(out.applied)
    #expect(w.posixACL(of: f) == nil)
    #expect(w[f].mode.rawValue == 0o640)
}
