import Testing
import FSPolicy

// macOS puts every user in gid 12, `everyone`, without listing them. On a world read from Linux
// gid 12 is an ordinary group (Debian's `man`): the macOS rule sets must not hand its rights to
// everyone. docs/semantics.md, "Identities on a world from another system".

enum ForeignEveryone {
    /// A Debian-like world: gid 12 is `man`; `/srv/index.db` is root:man 0660; `/srv/acl` has an
    /// ACE for group 12 and one for `everyone`.
    static func world(fromLinux: Bool, twelve: String? = "man") -> World {
        var w = World()
        w.fromLinux = fromLinux
        w.addGroup(Group(name: "root", gid: 0))
        if let twelve { w.addGroup(Group(name: twelve, gid: 12)) }
        w.addGroup(Group(name: "nogroup", gid: 65534))
        w.addUser(User(name: "root", uid: 0, gid: 0))
        w.addUser(User(name: "man", uid: 6, gid: 12))
        w.addUser(User(name: "nobody", uid: 65534, gid: 65534))
        _ = w.addNode(path: "/srv", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        _ = w.addNode(path: "/srv/index.db", type: .file, uid: 0, gid: 12, mode: FileMode(0o660))
        let a = w.addNode(path: "/srv/acl", type: .file, uid: 0, gid: 0, mode: FileMode(0o600))
        w.setACL(ACL([ACE(subject: .group(12), kind: .allow, rights: .readData)]), on: a)
        let b = w.addNode(path: "/srv/everyone", type: .file, uid: 0, gid: 0, mode: FileMode(0o600))
        w.setACL(ACL([ACE(subject: .everyone, kind: .allow, rights: .readData)]), on: b)
        return w
    }

    static func decide(_ w: World, _ uid: UID, _ path: String, _ sem: Semantics) -> Decision {
        Authorizer(world: w, semantics: sem).decide(Request(subject: w.subject(uid: uid), op: .read, path: path))
    }
}

@Suite("gid 12 on a world from another system")
struct ForeignEveryoneTests {
    @Test("a world read from Linux puts nobody in gid 12 (man) unasked", arguments: [Semantics.macos, .guide])
    func readFromLinux(_ sem: Semantics) {
        let w = ForeignEveryone.world(fromLinux: true)
        #expect(!w.implicitEveryone)
        #expect(!w.subject(uid: 65534).isMember(12))
        let d = ForeignEveryone.decide(w, 65534, "/srv/index.db", sem)
        #expect(!d.allowed && d.errno == .EACCES && d.rule == .otherBitsMissing, "\(d.rule)")
        #expect(d.notes.contains { $0.contains("read from Linux") && $0.contains("`man`") }, "\(d.notes)")
        // The ACE for group 12 is man's only; the one for everyone is everyone's.
        #expect(!ForeignEveryone.decide(w, 65534, "/srv/acl", sem).allowed)
        #expect(ForeignEveryone.decide(w, 6, "/srv/acl", sem).allowed)
        #expect(ForeignEveryone.decide(w, 65534, "/srv/everyone", sem).allowed)
        // A real member of man keeps the group's bits.
        #expect(ForeignEveryone.decide(w, 6, "/srv/index.db", sem).allowed)
    }

    @Test("linux answers as before, with no note")
    func linux() {
        let w = ForeignEveryone.world(fromLinux: true)
        let d = ForeignEveryone.decide(w, 65534, "/srv/index.db", .linux)
        #expect(!d.allowed && d.rule == .otherBitsMissing)
        #expect(!d.notes.contains { $0.contains("gid 12") })
    }

    @Test("a macOS file naming another group with gid 12 does not make everyone its member")
    func otherGroupTwelve() {
        let w = ForeignEveryone.world(fromLinux: false)
        #expect(!w.implicitEveryone)
        let d = ForeignEveryone.decide(w, 65534, "/srv/index.db", .macos)
        #expect(!d.allowed && d.errno == .EACCES)
        #expect(d.notes.contains { $0.contains("in this world gid 12 is the group `man`") }, "\(d.notes)")
    }

    @Test("on a macOS world gid 12 is everyone's, declared or not", arguments: [String?.none, "everyone"])
    func macOSWorld(_ twelve: String?) {
        let w = ForeignEveryone.world(fromLinux: false, twelve: twelve)
        #expect(w.implicitEveryone)
        #expect(w.subject(uid: 65534).isMember(12))
        let d = ForeignEveryone.decide(w, 65534, "/srv/index.db", .macos)
        #expect(d.allowed && d.rule == .groupBitsGrant)
        #expect(d.notes.isEmpty, "\(d.notes)")
    }
}
