import FSPolicy
import Testing

/// `removeacls` under linux behaves like `setfacl -b`: the base entries stay, so the group bits
/// of the mode become the `group::` entry's (the mask goes away with the named entries).
@Test("linux removeacls: the group bits revert to group:: (setfacl -b)")
func linuxRemoveACLsRestoresGroupBits() throws {
    var w = World()
    w.addUser(User(name: "alice", uid: 501, gid: 100))
    let f = w.addNode(path: "/srv/f", type: .file, uid: 501, gid: 100, mode: FileMode(0o660))
    let acl = try POSIXACL(
        userObj: [.read, .write], users: [POSIXACL.Entry(id: 502, perms: [.read, .write])],
        groupObj: .read, mask: [.read, .write], other: [])
    w.setPOSIXACL(acl, on: f)
    let out = Mutator.apply(Request(subject: w.subject(uid: 0), op: .removeACLs, path: "/srv/f"), to: &w, semantics: .linux)
    #expect(out.applied)
    #expect(w.posixACL(of: f) == nil)
    #expect(w[f].mode.rawValue == 0o640)
}

/// Under linux gid 12 is an ordinary group (Debian's `man`), not macOS's `everyone`.
@Test("nobody is a member of gid 12 (man) without declaring it, under linux and under macos")
func gid12IsNotEveryoneOnLinux() {
    var w = World()
    w.addGroup(Group(name: "man", gid: 12))
    w.addUser(User(name: "bob", uid: 502, gid: 100))
    w.addUser(User(name: "carl", uid: 503, gid: 100, supplementary: [12]))
    w.addNode(path: "/srv/manual", type: .file, uid: 0, gid: 12, mode: FileMode(0o640))
    let linux = Authorizer(world: w, semantics: .linux)
    #expect(!linux.decide(Request(subject: w.subject(uid: 502), op: .read, path: "/srv/manual")).allowed)
    #expect(linux.decide(Request(subject: w.subject(uid: 503), op: .read, path: "/srv/manual")).allowed)
    // Under macos too: gid 12 is `man` in this world, not `everyone`, so only its members are in
    // it (docs/semantics.md, "Identities on a world from another system").
    let mac = Authorizer(world: w, semantics: .macos)
    #expect(!mac.decide(Request(subject: w.subject(uid: 502), op: .read, path: "/srv/manual")).allowed)
    #expect(mac.decide(Request(subject: w.subject(uid: 503), op: .read, path: "/srv/manual")).allowed)
}
