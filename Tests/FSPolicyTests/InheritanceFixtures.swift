import Testing
import FSPolicy

// The world and the row types for InheritanceTests.swift: what a new file or directory receives
// (owner, group, mode, ACL; POSIX access and default ACLs under linux) and what the
// administrator operations do. Unlike the decision tables, these rows *apply* steps with
// `Mutator.apply` to a private copy of the world and then read the result back. Every expected
// value comes from shared/reference/macos-semantics.md §2.7 and §3, linux-semantics.md §3, §5 and
// §7 (Q1–Q7, R1, R2), and the guide's "権限の継承" (seed 001), never from running the code.

/// The users of the inheritance world. The umask is part of the account (`User.umask`), so the
/// umask rows pick the user: alice 022, erin 077, frank 000.
enum IU: UInt32, Sendable, CustomStringConvertible {
    case root = 0
    /// primary staff, member of admin; umask 022.
    case alice = 601
    /// primary staff, member of devs; umask 022.
    case bob = 602
    /// primary guests, member of devs; umask 022.
    case carol = 603
    /// primary guests only; umask 022.
    case dave = 604
    /// primary staff; umask 077.
    case erin = 605
    /// primary guests; umask 000.
    case frank = 606
    /// acltu1: primary g1; umask 077 (the umask of the measured Q rows).
    case u1 = 1001
    /// acltu2: primary g2, supplementary g1; umask 022.
    case u2 = 1002
    /// acltu3: primary g3, supplementary g2; umask 022.
    case u3 = 1003
    /// acltu4: primary g3 only; umask 022 (the umask of the measured R rows).
    case u4 = 1004

    var uid: UID { rawValue }
    var description: String {
        switch self {
        case .root: "root"
        case .alice: "alice"
        case .bob: "bob"
        case .carol: "carol"
        case .dave: "dave"
        case .erin: "erin"
        case .frank: "frank"
        case .u1: "u1"
        case .u2: "u2"
        case .u3: "u3"
        case .u4: "u4"
        }
    }
}

/// Group ids of the inheritance world.
enum IG {
    static let wheel: GID = 0
    static let staff: GID = 20
    static let guests: GID = 30
    static let admin: GID = 80
    static let writers: GID = 701
    static let devs: GID = 710
    static let g1: GID = 1001
    static let g2: GID = 1002
    static let g3: GID = 1003
}

extension ACEFlags {
    /// Short names for the tables: I inherited, F file_inherit, D directory_inherit,
    /// L limit_inherit, O only_inherit.
    static let I: ACEFlags = .inherited
    static let F: ACEFlags = .fileInherit
    static let D: ACEFlags = .directoryInherit
    static let L: ACEFlags = .limitInherit
    static let O: ACEFlags = .onlyInherit
}

/// `user:NAME` as an ACE subject.
func iu(_ u: IU) -> ACESubject { .user(u.uid) }

// MARK: - The world

enum InhFixture {
    static let world: World = build()

    static func build() -> World {
        var w = World()
        w.addGroup(Group(name: "wheel", gid: IG.wheel, members: [0]))
        w.addGroup(Group(name: "staff", gid: IG.staff))
        w.addGroup(Group(name: "guests", gid: IG.guests))
        w.addGroup(Group(name: "admin", gid: IG.admin, members: [IU.alice.uid]))
        w.addGroup(Group(name: "writers", gid: IG.writers))
        w.addGroup(Group(name: "devs", gid: IG.devs, members: [IU.bob.uid, IU.carol.uid]))
        w.addGroup(Group(name: "g1", gid: IG.g1))
        w.addGroup(Group(name: "g2", gid: IG.g2))
        w.addGroup(Group(name: "g3", gid: IG.g3))
        w.addUser(User(name: "root", uid: 0, gid: IG.wheel))
        w.addUser(User(name: "alice", uid: IU.alice.uid, gid: IG.staff, umask: 0o022))
        w.addUser(User(name: "bob", uid: IU.bob.uid, gid: IG.staff, umask: 0o022))
        w.addUser(User(name: "carol", uid: IU.carol.uid, gid: IG.guests, umask: 0o022))
        w.addUser(User(name: "dave", uid: IU.dave.uid, gid: IG.guests, umask: 0o022))
        w.addUser(User(name: "erin", uid: IU.erin.uid, gid: IG.staff, umask: 0o077))
        w.addUser(User(name: "frank", uid: IU.frank.uid, gid: IG.guests, umask: 0o000))
        w.addUser(User(name: "u1", uid: IU.u1.uid, gid: IG.g1, umask: 0o077))
        w.addUser(User(name: "u2", uid: IU.u2.uid, gid: IG.g2, supplementary: [IG.g1], umask: 0o022))
        w.addUser(User(name: "u3", uid: IU.u3.uid, gid: IG.g3, supplementary: [IG.g2], umask: 0o022))
        w.addUser(User(name: "u4", uid: IU.u4.uid, gid: IG.g3, umask: 0o022))

        // §2.7: ignore-ownership volumes with and without mnt_fsowner / mnt_fsgroup; §3: a volume
        // without extended security (no inheritance); linux §5.1: a file system without ACLs.
        var io = Volume(mountPath: "/io"); io.ignoreOwnership = true
        var iof = Volume(mountPath: "/iof"); iof.ignoreOwnership = true
        iof.fsOwner = IU.dave.uid; iof.fsGroup = IG.admin
        var iou = Volume(mountPath: "/iou"); iou.ignoreOwnership = true; iou.fsOwner = IU.dave.uid
        var iog = Volume(mountPath: "/iog"); iog.ignoreOwnership = true; iog.fsGroup = IG.admin
        var noacl = Volume(mountPath: "/noacl"); noacl.acls = false
        for v in [io, iof, iou, iog, noacl] { w.setVolume(v) }

        // linux §5 / §7: the measured parents (owner acltu1:acltg1), plus variants.
        func ldir(_ path: String, _ owner: IU, _ group: GID, _ mode: UInt16, def: String? = nil) {
            let id = w.addNode(path: path, type: .dir, uid: owner.uid, gid: group, mode: FileMode(mode))
            if let d = def { w.setDefaultPOSIXACL(posixACL(d), on: id) }
        }
        ldir("/l", .root, IG.wheel, 0o755)
        ldir("/l/plain", .root, IG.wheel, 0o777)
        ldir("/l/d_def", .u1, IG.g1, 0o777, def: "u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---")
        ldir("/l/d_def2", .u1, IG.g1, 0o777, def: "u::rwx,g::---,o::r-x")
        ldir("/l/d_sgid", .u1, IG.g1, 0o2777)
        ldir("/l/d_defsgid", .u1, IG.g1, 0o2777, def: "u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---")
        ldir("/l/d_nomask", .u1, IG.g1, 0o777, def: "u::rwx,g::rwx,o::r-x")
        ldir("/l/d_maskonly", .u1, IG.g1, 0o777, def: "u::rwx,g::r-x,m::rwx,o::---")
        ldir("/l/d_named", .u1, IG.g1, 0o777, def: "u::rw-,g::r--,g:1002:rwx,m::r-x,o::r--")
        ldir("/l/owned", .u1, IG.g1, 0o755)
        ldir("/noacl/d", .u1, IG.g1, 0o777, def: "u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---")
        let la = w.addNode(path: "/l/owned/f", type: .file, uid: IU.u1.uid, gid: IG.g1, mode: FileMode(0o660))
        w.setPOSIXACL(posixACL("u::rw-,u:1003:rw-,g::r--,m::rw-,o::---"), on: la)
        let ls = w.addNode(path: "/l/owned/s", type: .dir, uid: IU.u1.uid, gid: IG.g1, mode: FileMode(0o770))
        w.setPOSIXACL(posixACL("u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---"), on: ls)
        w.setDefaultPOSIXACL(posixACL("u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---"), on: ls)

        // The administrator-operation tree (see AdminTree below for what each node carries).
        for (p, t, o, g, m, a) in AdminTree.nodes {
            w.addNode(path: p, type: t, uid: o.uid, gid: g, mode: FileMode(m), acl: a.map { ACL($0) })
        }
        return w
    }
}

// MARK: - Creation rows (macos and guide)

/// What the new node must look like: owner, group, mode and macOS ACL (nil = no ACL at all).
struct Made: Sendable, CustomStringConvertible {
    var uid: UID
    var gid: GID
    var mode: UInt16
    var acl: [ACE]?

    init(_ who: IU, _ gid: GID, _ mode: UInt16, _ acl: [ACE]? = nil) {
        self.uid = who.uid
        self.gid = gid
        self.mode = mode
        self.acl = acl
    }

    var description: String { "\(uid):\(gid) \(FileMode(mode).octal) acl=\(acl.map { "\($0.count) ACEs" } ?? "none")" }
}

/// A step run before the row's own request; it must be applied.
struct Pre: Sendable {
    var who: IU
    var op: FSPolicy.Operation
    var path: String
    var mode: UInt16?
    var acl: [ACE]?
    init(_ who: IU, _ op: FSPolicy.Operation, _ path: String, mode: UInt16? = nil, acl: [ACE]? = nil) {
        self.who = who; self.op = op; self.path = path; self.mode = mode; self.acl = acl
    }
}

/// One creation under macos and/or guide. The parent directory is (re)declared with the row's
/// owner, group, mode and ACL before anything runs, so each row reads on its own.
struct MadeRow: Sendable, CustomTestStringConvertible {
    var label: String
    var parent: String
    var parentOwner: IU
    var parentGroup: GID
    var parentMode: UInt16
    var parentACL: [ACE]?
    var before: [Pre]
    var who: IU
    var op: FSPolicy.Operation
    var path: String
    var mode: UInt16?
    /// The expected result under each rule set the row runs under.
    var mac: Made?
    var guide: Made?

    init(
        _ label: String, parent: String = "/p", owner: IU = .root, group: GID = IG.devs, pmode: UInt16 = 0o777,
        acl: [ACE]? = nil, before: [Pre] = [], _ who: IU, _ op: FSPolicy.Operation, _ path: String,
        mode: UInt16?, mac: Made?, guide: Made?
    ) {
        self.label = label
        self.parent = parent
        self.parentOwner = owner
        self.parentGroup = group
        self.parentMode = pmode
        self.parentACL = acl
        self.before = before
        self.who = who
        self.op = op
        self.path = path
        self.mode = mode
        self.mac = mac
        self.guide = guide
    }

    /// The same expectation under macos and guide.
    init(
        _ label: String, parent: String = "/p", owner: IU = .root, group: GID = IG.devs, pmode: UInt16 = 0o777,
        acl: [ACE]? = nil, before: [Pre] = [], _ who: IU, _ op: FSPolicy.Operation, _ path: String,
        mode: UInt16?, both: Made
    ) {
        self.init(
            label, parent: parent, owner: owner, group: group, pmode: pmode, acl: acl, before: before,
            who, op, path, mode: mode, mac: both, guide: both)
    }

    var semantics: [(Semantics, Made)] {
        var out: [(Semantics, Made)] = []
        if let m = mac { out.append((.macos, m)) }
        if let g = guide { out.append((.guide, g)) }
        return out
    }

    var testDescription: String { label }

    func world() -> World {
        var w = InhFixture.world
        w.addNode(
            path: parent, type: .dir, uid: parentOwner.uid, gid: parentGroup, mode: FileMode(parentMode),
            acl: parentACL.map { ACL($0) })
        return w
    }
}

/// Text of an ACL for failure messages (`ls -le` style, file words).
func aclText(_ entries: [ACE]?, in w: World) -> String {
    guard let e = entries else { return "no ACL" }
    if e.isEmpty { return "empty ACL" }
    return e.enumerated().map { "\($0.offset): " + w.aceText($0.element, forDirectory: nil) }.joined(separator: " / ")
}

func request(
    _ w: World, _ who: IU, _ op: FSPolicy.Operation, _ path: String, mode: UInt16? = nil,
    acl: [ACE]? = nil, umask: UInt16? = nil
) -> Request {
    var s = w.subject(uid: who.uid)
    if let u = umask { s.umask = u }
    return Request(subject: s, op: op, path: path, mode: mode.map(FileMode.init), acl: acl.map { ACL($0) })
}

/// Runs the `before` steps (each must be applied) under `sem`.
func runBefore(
    _ steps: [Pre], in w: inout World, _ sem: Semantics, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for s in steps {
        let o = Mutator.apply(request(w, s.who, s.op, s.path, mode: s.mode, acl: s.acl), to: &w, semantics: sem)
        #expect(o.applied, "\(what): setup step \(s.who) \(s.op.word) \(s.path) was not applied", sourceLocation: sourceLocation)
    }
}

/// Applies the row's steps under `sem` and checks the created node against `e`.
func checkMade(_ row: MadeRow, _ sem: Semantics, _ e: Made, sourceLocation: SourceLocation = #_sourceLocation) {
    var w = row.world()
    let what = "[\(sem.rawValue)] \(row.label)"
    runBefore(row.before, in: &w, sem, what, sourceLocation: sourceLocation)
    let out = Mutator.apply(request(w, row.who, row.op, row.path, mode: row.mode), to: &w, semantics: sem)
    #expect(out.decision.allowed, "\(what): not allowed (\(out.decision.rule.rawValue))", sourceLocation: sourceLocation)
    #expect(out.applied, "\(what): not applied", sourceLocation: sourceLocation)
    guard let id = out.created else {
        Issue.record("\(what): nothing created", sourceLocation: sourceLocation)
        return
    }
    #expect(w.lookup(row.path) == id, "\(what): created node is not at \(row.path)", sourceLocation: sourceLocation)
    let n = w[id]
    #expect(n.type == (row.op == .mkdir ? .dir : .file), "\(what): type \(n.type)", sourceLocation: sourceLocation)
    #expect(n.uid == e.uid, "\(what): owner \(n.uid), expected \(e.uid)", sourceLocation: sourceLocation)
    #expect(n.gid == e.gid, "\(what): group \(n.gid), expected \(e.gid)", sourceLocation: sourceLocation)
    #expect(
        n.mode == FileMode(e.mode), "\(what): mode \(n.mode.octal), expected \(FileMode(e.mode).octal)",
        sourceLocation: sourceLocation)
    let got = w.acl(of: id)?.entries
    #expect(
        got == e.acl, "\(what): ACL is [\(aclText(got, in: w))], expected [\(aclText(e.acl, in: w))]",
        sourceLocation: sourceLocation)
    #expect(
        w.posixACL(of: id) == nil && w.defaultPOSIXACL(of: id) == nil, "\(what): a POSIX ACL appeared",
        sourceLocation: sourceLocation)
}

// MARK: - The single-ACE flag table

/// The parent carries one ACE, `user:bob allow read` with `flags`; alice (umask 022) creates a
/// file (0666 → 0644) or a directory (0777 → 0755) in `/p` (root:devs 0777). `mac`/`guide`: the
/// flags of the child's single copy, or nil for no ACL.
struct FlagRow: Sendable, CustomTestStringConvertible {
    var label: String
    var flags: ACEFlags
    var dir: Bool
    var mac: ACEFlags?
    var guide: ACEFlags?

    init(_ label: String, _ flags: ACEFlags, dir: Bool, mac: ACEFlags?, guide: ACEFlags?) {
        self.label = label; self.flags = flags; self.dir = dir; self.mac = mac; self.guide = guide
    }

    static let base = allow(iu(.bob), .readData)

    var testDescription: String { label }

    func row() -> MadeRow {
        func ace(_ f: ACEFlags) -> ACE { var a = FlagRow.base; a.flags = f; return a }
        let mode: UInt16 = dir ? 0o755 : 0o644
        return MadeRow(
            label, acl: [ace(flags)], .alice, dir ? .mkdir : .create, dir ? "/p/new" : "/p/new.txt",
            mode: dir ? 0o777 : 0o666,
            // macos: the group is the parent's (devs); guide: alice's primary group (staff).
            mac: Made(.alice, IG.devs, mode, mac.map { [ace($0)] }),
            guide: Made(.alice, IG.staff, mode, guide.map { [ace($0)] }))
    }
}

// MARK: - Linux creation rows

/// What a node created under linux must look like: owner, group, mode, access ACL and default
/// ACL (short text as in LinuxFixtures.swift; nil = none).
struct LMade: Sendable {
    var uid: UID
    var gid: GID
    var mode: UInt16
    var access: String?
    var def: String?
    init(_ who: IU, _ gid: GID, _ mode: UInt16, access: String? = nil, def: String? = nil) {
        self.uid = who.uid; self.gid = gid; self.mode = mode; self.access = access; self.def = def
    }
}

struct LMadeRow: Sendable, CustomTestStringConvertible {
    var label: String
    var before: [Pre]
    var who: IU
    var umask: UInt16?
    var op: FSPolicy.Operation
    var path: String
    var mode: UInt16?
    var expect: LMade

    init(
        _ label: String, before: [Pre] = [], _ who: IU, umask: UInt16? = nil, _ op: FSPolicy.Operation,
        _ path: String, mode: UInt16?, _ expect: LMade
    ) {
        self.label = label; self.before = before; self.who = who; self.umask = umask; self.op = op
        self.path = path; self.mode = mode; self.expect = expect
    }

    var testDescription: String { label }
}

func posixText(_ a: POSIXACL?) -> String {
    guard let a else { return "none" }
    var parts = ["u::" + a.userObj.text]
    parts += a.users.map { "u:\($0.id):" + $0.perms.text }
    parts.append("g::" + a.groupObj.text)
    parts += a.groups.map { "g:\($0.id):" + $0.perms.text }
    if let m = a.mask { parts.append("m::" + m.text) }
    parts.append("o::" + a.other.text)
    return parts.joined(separator: ",")
}

func checkLinuxMade(_ row: LMadeRow, sourceLocation: SourceLocation = #_sourceLocation) {
    var w = InhFixture.world
    let what = "[linux] \(row.label)"
    runBefore(row.before, in: &w, .linux, what, sourceLocation: sourceLocation)
    let out = Mutator.apply(request(w, row.who, row.op, row.path, mode: row.mode, umask: row.umask), to: &w, semantics: .linux)
    #expect(
        out.decision.allowed && out.applied, "\(what): not applied (\(out.decision.rule.rawValue))",
        sourceLocation: sourceLocation)
    guard let id = out.created else {
        Issue.record("\(what): nothing created", sourceLocation: sourceLocation)
        return
    }
    let n = w[id]
    let e = row.expect
    #expect(w.lookup(row.path) == id, "\(what): created node is not at \(row.path)", sourceLocation: sourceLocation)
    #expect(n.type == (row.op == .mkdir ? .dir : .file), "\(what): type", sourceLocation: sourceLocation)
    #expect(n.uid == e.uid, "\(what): owner \(n.uid), expected \(e.uid)", sourceLocation: sourceLocation)
    #expect(n.gid == e.gid, "\(what): group \(n.gid), expected \(e.gid)", sourceLocation: sourceLocation)
    #expect(
        n.mode == FileMode(e.mode), "\(what): mode \(n.mode.octal), expected \(FileMode(e.mode).octal)",
        sourceLocation: sourceLocation)
    let access = w.posixACL(of: id), def = w.defaultPOSIXACL(of: id)
    #expect(
        access == e.access.map(posixACL), "\(what): access ACL \(posixText(access)), expected \(e.access ?? "none")",
        sourceLocation: sourceLocation)
    #expect(
        def == e.def.map(posixACL), "\(what): default ACL \(posixText(def)), expected \(e.def ?? "none")",
        sourceLocation: sourceLocation)
    #expect(w.acl(of: id) == nil, "\(what): a macOS ACL appeared", sourceLocation: sourceLocation)
}

// MARK: - The administrator-operation tree

/// `/t` (alice:staff 0750) and below. Explicit and inherited entries are mixed on purpose; the
/// inherited entries below `/t` are stale (they came from an earlier ACL of `/t`), so a
/// re-inheritance visibly replaces them.
enum AdminTree {
    /// /t: two inheritable entries, deny after allow (T0, T1).
    static let t0 = allow(iu(.bob), .readData, [.F, .D])
    static let t1 = deny(iu(.carol), .writeData, [.F, .D])
    /// stale inherited copies below /t
    static let staleDir = allow(iu(.erin), .readData, [.I, .F, .D])
    static let staleFile = allow(iu(.erin), .readData, .I)
    /// explicit entries
    static let fExplicit = allow(iu(.dave), .readData)
    static let sAllow = allow(iu(.dave), .readData)
    static let sDeny = deny(iu(.dave), .delete)
    static let gExplicit = allow(iu(.frank), .writeData)

    /// path, type, owner, group, mode, ACL
    static let nodes: [(String, NodeType, IU, GID, UInt16, [ACE]?)] = [
        ("/t", .dir, .alice, IG.staff, 0o750, [t0, t1]),
        ("/t/f", .file, .bob, IG.guests, 0o644, [fExplicit, staleFile]),
        ("/t/s", .dir, .alice, IG.staff, 0o755, [sAllow, sDeny, staleDir]),
        ("/t/s/g", .file, .bob, IG.staff, 0o600, [gExplicit, staleFile]),
        ("/t/s/u", .dir, .alice, IG.staff, 0o700, nil),
        ("/t/s/u/h", .file, .alice, IG.staff, 0o640, []),
        // dave holds writesecurity on /t2 through an explicit ACE (macOS §2.6: delegated admin);
        // the file below is his own.
        ("/t2", .dir, .root, IG.wheel, 0o755, [allow(iu(.dave), .writeSecurity), allow(iu(.bob), .readData, [.F, .D])]),
        ("/t2/f", .file, .dave, IG.guests, 0o644, nil),
        // a subtree alice owns entirely, so her propagate needs no right she lacks anywhere
        ("/t3", .dir, .alice, IG.staff, 0o755, [deny(iu(.dave), .readData, [.F, .D]), allow(iu(.bob), .readData, [.F, .D])]),
        ("/t3/a", .file, .alice, IG.staff, 0o644, nil),
        ("/t3/b", .dir, .alice, IG.staff, 0o755, [allow(iu(.frank), .writeData), allow(iu(.frank), .delete, [.F, .D]), staleDir]),
        ("/t3/b/c", .file, .alice, IG.staff, 0o644, [staleFile])
    ]

    static let paths = ["/t", "/t/f", "/t/s", "/t/s/g", "/t/s/u", "/t/s/u/h", "/t2", "/t2/f", "/t3", "/t3/a", "/t3/b", "/t3/b/c"]
}

/// One administrator step and the state of the tree after it: every listed path's ACL (and, for
/// copypermissions, owner/group/mode). Paths not listed must be unchanged.
struct AdminRow: Sendable, CustomTestStringConvertible {
    var label: String
    var who: IU
    var op: FSPolicy.Operation
    var path: String
    var allowed: Bool
    /// Expected ACLs per semantics (nil in the dictionary value = no ACL).
    var mac: [String: [ACE]?]
    var guide: [String: [ACE]?]?
    var attrs: [String: (IU, GID, UInt16)]

    init(
        _ label: String, _ who: IU, _ op: FSPolicy.Operation, _ path: String, allowed: Bool = true,
        mac: [String: [ACE]?] = [:], guide: [String: [ACE]?]? = nil, attrs: [String: (IU, GID, UInt16)] = [:]
    ) {
        self.label = label; self.who = who; self.op = op; self.path = path; self.allowed = allowed
        self.mac = mac; self.guide = guide; self.attrs = attrs
    }

    var testDescription: String { label }
}
