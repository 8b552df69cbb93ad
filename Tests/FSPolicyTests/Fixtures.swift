import Testing
import FSPolicy

// One shared world for the rule tables. Each table owns a top-level directory (`/ro`, `/del`,
// `/acl`, …) so its nodes can be read next to its rows. Every expected answer in the tables is
// derived from shared/reference/macos-semantics.md (section numbers cited per table), never
// from running the code.

/// The declared users.
enum Who: UInt32, Sendable, CustomStringConvertible {
    case root = 0
    /// staff (primary), admin
    case alice = 501
    /// staff (primary), editors (as a member)
    case bob = 502
    /// guests (primary), interns (as a member) → editors (nested)
    case carol = 503
    /// guests (primary) only
    case dave = 504

    var uid: UID { rawValue }
    var description: String {
        switch self {
        case .root: "root"
        case .alice: "alice"
        case .bob: "bob"
        case .carol: "carol"
        case .dave: "dave"
        }
    }
}

/// Group ids.
enum Gr {
    static let wheel: GID = 0
    static let staff: GID = 20
    static let guests: GID = 30
    static let admin: GID = 80
    static let unknown: GID = 99
    static let editors: GID = 701
    static let interns: GID = 702
}

extension ACESubject {
    static func who(_ w: Who) -> ACESubject { .user(w.uid) }
}

func allow(_ s: ACESubject, _ r: AccessRights, _ f: ACEFlags = []) -> ACE {
    ACE(subject: s, kind: .allow, rights: r, flags: f)
}

func deny(_ s: ACESubject, _ r: AccessRights, _ f: ACEFlags = []) -> ACE {
    ACE(subject: s, kind: .deny, rights: r, flags: f)
}

/// A raw right request (`op: delete_child`, `op: writesecurity`, …), or several rights at once.
func raw(_ r: AccessRights, _ word: String) -> FSPolicy.Operation { .rights(r, word: word) }

// MARK: - Expectations

/// The four things every row pins.
struct Expect: Sendable, CustomStringConvertible {
    var allowed: Bool
    var errno: Errno?
    var layer: Layer
    var rule: RuleID

    static func allow(_ layer: Layer, _ rule: RuleID) -> Expect {
        Expect(allowed: true, errno: nil, layer: layer, rule: rule)
    }

    static func deny(_ errno: Errno, _ layer: Layer, _ rule: RuleID) -> Expect {
        Expect(allowed: false, errno: errno, layer: layer, rule: rule)
    }

    var description: String {
        (allowed ? "allow" : "deny \(errno?.rawValue ?? "-")") + " [\(layer.rawValue)] \(rule.rawValue)"
    }
}

/// One decision: who does what to which path, and what the reference says comes back.
struct Row: Sendable, CustomTestStringConvertible {
    var label: String
    var who: Who
    var op: FSPolicy.Operation
    var path: String
    var to: String?
    var mode: UInt16?
    var owner: Who?
    var group: GID?
    var flags: FileFlags?
    var acl: ACL?
    var securelevel: Int
    var expect: Expect
    /// The node the deciding rule looked at (`Decision.node`).
    var at: String?
    /// The stored index of the ACE that decided (`Decision.evidence`).
    var aceIndex: Int?
    /// A rule that must appear somewhere in the trace (identity rewrites, guide notes).
    var traceHas: RuleID?

    init(
        _ label: String, _ who: Who, _ op: FSPolicy.Operation, _ path: String, to: String? = nil,
        mode: UInt16? = nil, owner: Who? = nil, group: GID? = nil, flags: FileFlags? = nil, acl: ACL? = nil,
        securelevel: Int = 0, _ expect: Expect, at: String? = nil, aceIndex: Int? = nil, traceHas: RuleID? = nil
    ) {
        self.label = label
        self.who = who
        self.op = op
        self.path = path
        self.to = to
        self.mode = mode
        self.owner = owner
        self.group = group
        self.flags = flags
        self.acl = acl
        self.securelevel = securelevel
        self.expect = expect
        self.at = at
        self.aceIndex = aceIndex
        self.traceHas = traceHas
    }

    var testDescription: String { "\(label) → \(expect)" }

    func request(in world: World) -> Request {
        Request(
            subject: world.subject(uid: who.uid), op: op, path: path, to: to, mode: mode.map(FileMode.init),
            owner: owner?.uid, group: group, flags: flags, acl: acl)
    }
}

/// Decides `row` under `semantics` in the shared world and checks allowed, errno, layer and
/// rule (plus the node, ACE index and trace rule when the row names them).
@discardableResult
func check(
    _ row: Row, semantics: Semantics = .macos, expect: Expect? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Decision {
    var world = Fixture.world
    world.securelevel = row.securelevel
    let e = expect ?? row.expect
    let d = Authorizer(world: world, semantics: semantics).decide(row.request(in: world))
    let what = "[\(semantics.rawValue)] \(row.label)"
    #expect(d.allowed == e.allowed, "\(what): allowed", sourceLocation: sourceLocation)
    #expect(d.errno == e.errno, "\(what): errno", sourceLocation: sourceLocation)
    #expect(d.layer == e.layer, "\(what): layer", sourceLocation: sourceLocation)
    #expect(d.rule == e.rule, "\(what): rule", sourceLocation: sourceLocation)
    if let p = row.at {
        let n = world.lookup(p)
        #expect(n != nil, "\(what): fixture has no \(p)", sourceLocation: sourceLocation)
        #expect(
            d.node == n, "\(what): decided on \(d.node >= 0 ? world.path(of: d.node) : "-"), expected \(p)",
            sourceLocation: sourceLocation)
    }
    if let i = row.aceIndex {
        if case .ace(_, let index, _) = d.evidence {
            #expect(index == i, "\(what): ACE index", sourceLocation: sourceLocation)
        } else {
            Issue.record("\(what): evidence is \(d.evidence), expected ACE #\(i)", sourceLocation: sourceLocation)
        }
    }
    if let r = row.traceHas {
        #expect(
            d.trace.contains { $0.rule == r }, "\(what): trace lacks \(r.rawValue)",
            sourceLocation: sourceLocation)
    }
    return d
}

// MARK: - The world

enum Fixture {
    static let world: World = build()

    struct Builder {
        var w = World()

        mutating func node(
            _ path: String, _ type: NodeType, _ owner: UID, _ group: GID, _ mode: UInt16,
            _ flags: FileFlags, _ acl: [ACE]?
        ) {
            w.addNode(
                path: path, type: type, uid: owner, gid: group, mode: FileMode(mode), flags: flags,
                acl: acl.map { ACL($0) })
        }

        mutating func dir(
            _ path: String, _ owner: Who = .root, _ group: GID = Gr.wheel, _ mode: UInt16 = 0o755,
            flags: FileFlags = [], acl: [ACE]? = nil
        ) {
            node(path, .dir, owner.uid, group, mode, flags, acl)
        }

        mutating func file(
            _ path: String, _ owner: Who = .root, _ group: GID = Gr.wheel, _ mode: UInt16 = 0o644,
            flags: FileFlags = [], acl: [ACE]? = nil
        ) {
            node(path, .file, owner.uid, group, mode, flags, acl)
        }

        mutating func symlink(_ path: String, _ target: String) {
            let id = w.addNode(path: path, type: .symlink, uid: 0, gid: 0, mode: FileMode(0o755))
            w.setSymlinkTarget(target, on: id)
        }
    }

    static func build() -> World {
        var b = Builder()
        b.w.addGroup(Group(name: "wheel", gid: Gr.wheel, members: [0]))
        b.w.addGroup(Group(name: "staff", gid: Gr.staff))
        b.w.addGroup(Group(name: "guests", gid: Gr.guests))
        b.w.addGroup(Group(name: "admin", gid: Gr.admin, members: [Who.alice.uid]))
        b.w.addGroup(Group(name: "editors", gid: Gr.editors, members: [Who.bob.uid], nested: [Gr.interns]))
        b.w.addGroup(Group(name: "interns", gid: Gr.interns, members: [Who.carol.uid]))
        b.w.addUser(User(name: "root", uid: 0, gid: Gr.wheel))
        b.w.addUser(User(name: "alice", uid: Who.alice.uid, gid: Gr.staff))
        b.w.addUser(User(name: "bob", uid: Who.bob.uid, gid: Gr.staff))
        b.w.addUser(User(name: "carol", uid: Who.carol.uid, gid: Gr.guests))
        b.w.addUser(User(name: "dave", uid: Who.dave.uid, gid: Gr.guests))

        var ro = Volume(mountPath: "/ro"); ro.readOnly = true
        var nx = Volume(mountPath: "/noexec"); nx.noexec = true
        var stick = Volume(mountPath: "/stick"); stick.ignoreOwnership = true
        var owned = Volume(mountPath: "/owned"); owned.ignoreOwnership = true
        owned.fsOwner = Who.alice.uid; owned.fsGroup = Gr.staff
        for v in [ro, nx, stick, owned, Volume(mountPath: "/other")] { b.w.setVolume(v) }

        let bob = ACESubject.who(.bob), alice = ACESubject.who(.alice), carol = ACESubject.who(.carol)

        // M1 read-only volume
        b.dir("/ro", .root, Gr.wheel, 0o777)
        b.file("/ro/f", .alice, Gr.wheel, 0o666)
        b.file("/ro/x", .root, Gr.wheel, 0o755)
        b.node("/ro/fifo", .fifo, Who.alice.uid, Gr.wheel, 0o666, [], nil)
        b.node("/ro/dev", .device, 0, Gr.wheel, 0o666, [], nil)
        b.file("/ro/u", .alice, Gr.wheel, 0o666, flags: .userImmutable)
        b.file("/ro/acl", .alice, Gr.wheel, 0o644, acl: [allow(bob, [.writeData, .delete])])
        b.dir("/ro/sub", .alice, Gr.wheel, 0o777)

        // M2 noexec
        b.dir("/noexec")
        b.file("/noexec/tool", .root, Gr.wheel, 0o755)
        b.file("/noexec/data", .root, Gr.wheel, 0o644)
        b.dir("/noexec/d")

        // M3/M5 root
        b.dir("/r")
        b.file("/r/secret", .alice, Gr.wheel, 0o000)
        b.file(
            "/r/denied", .alice, Gr.wheel, 0o644,
            acl: [deny(.everyone, [.readData, .writeData, .readAttributes, .readSecurity, .delete])])
        b.file("/r/plain", .alice, Gr.wheel, 0o644)
        b.file("/r/ownx", .alice, Gr.wheel, 0o100)
        b.file("/r/u", .alice, Gr.wheel, 0o644, flags: .userImmutable)
        b.file("/r/s", .root, Gr.wheel, 0o644, flags: .systemImmutable)
        b.file("/r/sa", .root, Gr.wheel, 0o644, flags: .systemAppend)
        b.dir("/r/closed", .alice, Gr.wheel, 0o000)
        b.file("/r/closed/f", .alice, Gr.wheel, 0o644)
        b.dir("/r/sticky", .alice, Gr.wheel, 0o1777)
        b.file("/r/sticky/f", .bob, Gr.wheel, 0o644)
        b.dir("/r/ud", .root, Gr.wheel, 0o777, flags: .userImmutable)
        b.file("/r/ud/f", .alice, Gr.wheel, 0o644)

        // M4 flags
        b.dir("/fl", .root, Gr.wheel, 0o777)
        b.file("/fl/uchg", .alice, Gr.wheel, 0o666, flags: .userImmutable)
        b.file("/fl/schg", .alice, Gr.wheel, 0o666, flags: .systemImmutable)
        b.file("/fl/uapp", .alice, Gr.wheel, 0o666, flags: .userAppend)
        b.file("/fl/sapp", .alice, Gr.wheel, 0o666, flags: .systemAppend)
        b.file("/fl/uchgx", .alice, Gr.wheel, 0o755, flags: .userImmutable)
        b.node("/fl/fifo", .fifo, Who.alice.uid, Gr.wheel, 0o666, .userImmutable, nil)
        b.file("/fl/nodump", .alice, Gr.wheel, 0o666, flags: .userNoDump)
        b.file("/fl/aclu", .alice, Gr.wheel, 0o644, flags: .userImmutable, acl: [allow(bob, [.writeData, .delete])])
        b.dir("/fl/adir", .alice, Gr.wheel, 0o777, flags: .userAppend)
        b.file("/fl/adir/f", .alice, Gr.wheel, 0o666)
        b.dir("/fl/idir", .alice, Gr.wheel, 0o777, flags: .userImmutable)
        b.file("/fl/idir/f", .alice, Gr.wheel, 0o666)

        // M4 chflags and securelevel
        b.dir("/cf")
        b.file("/cf/plain", .alice, Gr.staff, 0o644)
        b.file("/cf/u", .alice, Gr.staff, 0o644, flags: .userImmutable)
        b.file("/cf/s", .alice, Gr.staff, 0o644, flags: .systemImmutable)
        b.file("/cf/sa", .alice, Gr.staff, 0o644, flags: .systemAppend)
        b.file("/cf/us", .alice, Gr.staff, 0o644, flags: [.userImmutable, .systemImmutable])
        b.file("/cf/wsec", .alice, Gr.staff, 0o644, acl: [allow(bob, .writeSecurity)])
        b.file("/cf/wsecu", .alice, Gr.staff, 0o644, flags: .userImmutable, acl: [allow(bob, .writeSecurity)])
        b.file("/cf/denyws", .alice, Gr.staff, 0o644, acl: [deny(.everyone, .writeSecurity)])
        b.file("/cf/arch", .alice, Gr.staff, 0o644, flags: .systemArchived)

        // M6 delete
        b.dir("/del")
        b.dir("/del/ro")
        b.file("/del/ro/f", .alice)
        b.file("/del/ro/nodeallow", .alice, acl: [allow(bob, .delete)])
        b.file("/del/ro/emptyacl", .alice, acl: [])
        b.dir("/del/ro/full", .alice, Gr.wheel, 0o777)
        b.file("/del/ro/full/x", .alice)
        b.dir("/del/w", .root, Gr.wheel, 0o777)
        b.file("/del/w/f", .alice)
        b.file("/del/w/zero", .alice, Gr.wheel, 0o000)
        b.file("/del/w/nodedeny", .alice, acl: [deny(bob, .delete)])
        b.file("/del/w/everyonedeny", .alice, acl: [deny(.everyone, .delete)])
        b.dir("/del/w/full", .alice, Gr.wheel, 0o777)
        b.file("/del/w/full/x", .alice)
        b.dir("/del/w/empty", .alice)
        b.dir("/del/sticky", .root, Gr.wheel, 0o1777)
        b.file("/del/sticky/alicef", .alice)
        b.file("/del/sticky/bobf", .bob)
        b.file("/del/sticky/nodeallow", .alice, acl: [allow(bob, .delete)])
        b.dir("/del/stickyacl", .root, Gr.wheel, 0o1777, acl: [allow(bob, .deleteChild)])
        b.file("/del/stickyacl/alicef", .alice)
        b.dir("/del/pdeny", .root, Gr.wheel, 0o777, acl: [deny(bob, .deleteChild)])
        b.file("/del/pdeny/f", .alice)
        b.file("/del/pdeny/nodeallow", .alice, acl: [allow(bob, .delete)])
        b.dir("/del/pallow", .root, Gr.wheel, 0o755, acl: [allow(bob, .deleteChild)])
        b.file("/del/pallow/f", .alice)
        b.file("/del/pallow/nodedeny", .alice, acl: [deny(bob, .delete)])
        b.dir("/del/bobsticky", .bob, Gr.wheel, 0o1777)
        b.file("/del/bobsticky/alicef", .alice)
        b.dir("/del/grp", .root, Gr.staff, 0o775)
        b.file("/del/grp/f", .alice)
        b.dir("/del/grp2", .root, Gr.staff, 0o757)
        b.file("/del/grp2/f", .alice)
        b.dir("/del/immp", .root, Gr.wheel, 0o777, flags: .userImmutable)
        b.file("/del/immp/nodeallow", .alice, acl: [allow(bob, .delete)])

        // M8 ACL evaluation (files alice:staff, so bob is judged on group bits, carol/dave on other bits)
        b.dir("/acl")
        b.file("/acl/allow", .alice, Gr.staff, 0o000, acl: [allow(bob, .readData)])
        b.file("/acl/deny", .alice, Gr.staff, 0o644, acl: [deny(bob, .readData)])
        b.file("/acl/allowdeny", .alice, Gr.staff, 0o000, acl: [allow(bob, .readData), deny(bob, .readData)])
        b.file("/acl/accum", .alice, Gr.staff, 0o000, acl: [allow(bob, .readData), allow(.group(Gr.staff), .writeData)])
        b.file("/acl/partdeny", .alice, Gr.staff, 0o000, acl: [allow(bob, .readData), deny(bob, .writeData)])
        b.file("/acl/perright", .alice, Gr.staff, 0o444, acl: [allow(bob, .writeData)])
        b.file("/acl/onlyinhdeny", .alice, Gr.staff, 0o644, acl: [deny(bob, .readData, .onlyInherit)])
        b.file("/acl/onlyinhallow", .alice, Gr.staff, 0o000, acl: [allow(bob, .readData, .onlyInherit)])
        b.file("/acl/empty", .alice, Gr.staff, 0o644, acl: [])
        b.file("/acl/everyone", .alice, Gr.staff, 0o644, acl: [deny(.everyone, .readData)])
        b.file("/acl/ownerat", .alice, Gr.staff, 0o444, acl: [allow(.owner, .writeData)])
        b.file("/acl/groupat", .alice, Gr.staff, 0o644, acl: [deny(.owningGroup, .readData)])
        b.file("/acl/nested", .alice, Gr.staff, 0o000, acl: [allow(.group(Gr.editors), .readData)])
        b.file("/acl/guests", .alice, Gr.staff, 0o644, acl: [allow(.group(Gr.guests), .writeData)])
        b.file("/acl/denywrite", .alice, Gr.staff, 0o644, acl: [deny(bob, .writeData)])
        b.file("/acl/inhorder", .alice, Gr.staff, 0o644, acl: [deny(bob, .writeData, .inherited), allow(bob, .writeData)])
        b.file("/acl/index", .alice, Gr.staff, 0o000, acl: [deny(carol, .readData), allow(bob, .readData)])
        b.file("/acl/wide", .alice, Gr.staff, 0o000, acl: [allow(bob, [.readData, .writeData, .execute])])

        // M7/M9 owner's implicit rights; rights the mode bits never grant
        b.dir("/own")
        b.file("/own/denyws", .alice, Gr.staff, 0o644, acl: [deny(alice, .writeSecurity)])
        b.file("/own/ro444", .alice, Gr.staff, 0o444)
        b.file("/own/denywattr", .alice, Gr.staff, 0o644, acl: [deny(alice, .writeAttributes)])
        b.file("/own/open", .alice, Gr.wheel, 0o777)
        b.file("/own/chownace", .alice, Gr.wheel, 0o644, acl: [allow(bob, .takeOwnership)])
        b.file("/own/wsec", .alice, Gr.wheel, 0o644, acl: [allow(bob, .writeSecurity)])
        b.file("/own/zero", .alice, Gr.wheel, 0o000)
        b.file("/own/denyra", .alice, Gr.wheel, 0o644, acl: [deny(bob, .readAttributes)])
        b.file("/own/denyrs", .alice, Gr.wheel, 0o644, acl: [deny(bob, .readSecurity)])
        b.file("/own/raThenDeny", .alice, Gr.wheel, 0o644, acl: [allow(bob, .readAttributes), deny(bob, .readSecurity)])
        b.file("/own/raOnly", .alice, Gr.wheel, 0o000, acl: [allow(bob, .readAttributes)])
        b.file("/own/x600", .alice, Gr.wheel, 0o600)

        // M9 best-match mode class
        b.dir("/mode")
        b.file("/mode/m0077", .alice, Gr.staff, 0o077)
        b.file("/mode/m0707", .alice, Gr.staff, 0o707)
        b.file("/mode/m0640", .alice, Gr.staff, 0o640)
        b.file("/mode/ed0070", .alice, Gr.editors, 0o070)

        // Traversal
        b.dir("/t")
        b.dir("/t/closed", .alice, Gr.staff, 0o700)
        b.file("/t/closed/f")
        b.dir("/t/closed/sub")
        b.file("/t/closed/sub/f")
        b.dir("/t/aclsearch", .alice, Gr.wheel, 0o700, acl: [allow(bob, .search)])
        b.file("/t/aclsearch/f")
        b.dir("/t/denysearch", .root, Gr.wheel, 0o755, acl: [deny(bob, .search)])
        b.file("/t/denysearch/f")
        b.dir("/t/listonly", .root, Gr.wheel, 0o744)
        b.file("/t/listonly/f")
        b.dir("/t/grp", .alice, Gr.staff, 0o710)
        b.file("/t/grp/f")

        // Symlinks
        b.dir("/sl")
        b.dir("/sl/real")
        b.file("/sl/real/f")
        b.symlink("/sl/toreal", "/sl/real")
        b.symlink("/sl/rel", "real")
        b.symlink("/sl/tofile", "/sl/real/f")
        b.dir("/sl/closed", .alice, Gr.wheel, 0o700)
        b.file("/sl/closed/f")
        b.symlink("/sl/toclosed", "/sl/closed")
        b.symlink("/sl/loop1", "/sl/loop2")
        b.symlink("/sl/loop2", "/sl/loop1")
        b.symlink("/sl/self", "self")
        b.symlink("/sl/dangling", "/sl/nowhere")
        b.symlink("/sl/danglingdir", "/sl/nowhere/x")

        // Errors
        b.dir("/e", .root, Gr.wheel, 0o777)
        b.file("/e/f", .alice)
        b.dir("/e/d", .alice, Gr.wheel, 0o777)
        b.file("/e/d/x", .alice)
        b.dir("/e/empty", .alice, Gr.wheel, 0o777)
        b.dir("/other", .root, Gr.wheel, 0o777)

        // Rename
        b.dir("/rn")
        b.dir("/rn/w", .root, Gr.wheel, 0o777)
        b.file("/rn/w/f", .alice)
        b.dir("/rn/w/d", .alice)
        b.dir("/rn/w/bobd", .bob)
        b.dir("/rn/w/bobd2", .bob)
        b.dir("/rn/w/bobd3", .bob)
        b.file("/rn/w/bobf", .bob)
        b.file("/rn/w/target", .alice, acl: [deny(bob, .delete)])
        b.dir("/rn/w/emptyt", .alice, Gr.wheel, 0o777, acl: [deny(bob, .delete)])
        b.dir("/rn/w/full", .alice, Gr.wheel, 0o777)
        b.file("/rn/w/full/x", .alice)
        b.file("/rn/w/u", .alice, flags: .userImmutable)
        b.dir("/rn/ro")
        b.file("/rn/ro/f", .alice)
        b.file("/rn/ro/nodeallow", .alice, acl: [allow(bob, .delete)])
        b.dir("/rn/t", .root, Gr.wheel, 0o1777)
        b.file("/rn/t/alicef", .alice)
        b.file("/rn/t/bobf", .bob)
        b.dir("/rn/adir", .root, Gr.wheel, 0o777, flags: .userAppend)
        b.file("/rn/adir/f", .alice)

        // Link
        b.dir("/ln")
        b.dir("/ln/w", .root, Gr.wheel, 0o777)
        b.file("/ln/w/secret", .alice, Gr.wheel, 0o000)
        b.file("/ln/w/u", .alice, flags: .userImmutable)
        b.file("/ln/w/a", .alice, flags: .userAppend)
        b.file("/ln/w/s", .root, flags: .systemImmutable)
        b.file("/ln/w/exists", .alice)
        b.dir("/ln/w/d", .alice, Gr.wheel, 0o777)
        b.dir("/ln/adir", .root, Gr.wheel, 0o777, flags: .userAppend)

        // Attribute changes (vnode_authattr)
        b.dir("/at")
        b.file("/at/f", .alice, Gr.staff)
        b.file("/at/wheel", .alice, Gr.wheel)
        b.file("/at/wsec", .alice, Gr.staff, acl: [allow(bob, .writeSecurity)])
        b.file("/at/denyws", .alice, Gr.staff, acl: [deny(bob, .writeSecurity)])
        b.file("/at/wattr", .alice, Gr.staff, acl: [allow(bob, .writeAttributes)])
        b.file("/at/dwattr", .alice, Gr.staff, acl: [deny(alice, .writeAttributes)])
        b.file("/at/ochown", .alice, Gr.staff, acl: [allow(bob, .takeOwnership)])
        b.file("/at/u", .alice, Gr.staff, flags: .userImmutable)
        b.file("/at/o666", .alice, Gr.staff, 0o666)

        // Identity rewrites: ignore-ownership volumes and uid/gid 99
        b.dir("/stick")
        b.file("/stick/ro", .alice, Gr.staff, 0o444)
        b.file("/stick/r", .alice, Gr.staff, 0o400)
        b.dir("/stick/sticky", .alice, Gr.staff, 0o1777)
        b.file("/stick/sticky/f", .alice, Gr.staff, 0o644)
        b.file("/stick/deny", .alice, Gr.staff, 0o644, acl: [deny(bob, .readData)])
        b.file("/stick/u", .alice, Gr.staff, 0o644, flags: .userImmutable)
        b.file("/stick/ownerat", .alice, Gr.staff, 0o000, acl: [allow(.owner, .readData)])
        b.dir("/owned")
        b.file("/owned/f", .root, Gr.wheel, 0o640)
        b.dir("/id")
        b.node("/id/u99", .file, 99, Gr.unknown, 0o600, [], nil)
        b.node("/id/g99", .file, Who.alice.uid, Gr.unknown, 0o060, [], nil)

        // guide vs macos
        b.dir("/g")
        b.file("/g/uchgacl", .alice, flags: .userImmutable, acl: [allow(bob, .writeData)])
        b.file("/g/uchgdel", .alice, flags: .userImmutable, acl: [allow(bob, .delete)])
        b.file("/g/order", .alice, acl: [allow(bob, .writeData), deny(bob, .writeData)])
        b.file("/g/inhorder", .alice, acl: [deny(bob, .writeData, .inherited), allow(bob, .writeData)])
        b.file("/g/rsec", .alice, acl: [deny(alice, .readSecurity)])
        b.file("/g/plain", .root)
        b.file("/g/aclx", .alice, acl: [allow(bob, .execute)])
        b.file("/g/ro444", .alice, Gr.wheel, 0o444)
        b.file("/g/wsec", .alice, acl: [allow(bob, .writeSecurity)])
        b.file("/g/wattr", .alice, acl: [allow(bob, .writeAttributes)])
        b.file("/g/zero", .alice, Gr.wheel, 0o000)
        return b.w
    }
}

@Suite("fixture")
struct FixtureSanity {
    @Test("every fixture path exists with the declared type")
    func paths() {
        let w = Fixture.world
        for (p, t) in [
            ("/ro/fifo", NodeType.fifo), ("/ro/dev", .device), ("/sl/loop1", .symlink), ("/del/w/full", .dir),
            ("/id/u99", .file)
        ] {
            let n = w.lookup(p)
            #expect(n != nil, "\(p)")
            if let n { #expect(w[n].type == t, "\(p)") }
        }
        #expect(w.volume(of: w.lookup("/ro/f")!).readOnly)
        #expect(w.volume(of: w.lookup("/stick")!).ignoreOwnership)
        #expect(w.subject(uid: Who.carol.uid).isMember(Gr.editors), "carol is in editors through interns")
        #expect(!w.subject(uid: Who.dave.uid).isMember(Gr.editors))
    }
}
