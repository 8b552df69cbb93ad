import Testing
import FSPolicy

// The world for the `linux` rule tables (LinuxTests.swift). It is separate from Fixture.world
// so the users can mirror the accounts of shared/reference/linux-semantics.md §7:
//   acltu1 (1001, group acltg1)          → u1
//   acltu2 (1002, acltg2, also acltg1)   → u2
//   acltu3 (1003, acltg3, also acltg2)   → u3
//   acltu4 (1004, acltg3 only)           → u4
// plus u5, a member of `inner`, which is nested in `outer` (Group.nested: macOS resolves it,
// Linux does not). Every expected answer in the tables comes from the reference (section and
// measured row cited per table), never from running the code.

/// The users of the linux world.
enum LU: UInt32, Sendable, CustomStringConvertible {
    case root = 0
    /// acltu1: primary g1.
    case u1 = 1001
    /// acltu2: primary g2, supplementary g1.
    case u2 = 1002
    /// acltu3: primary g3, supplementary g2.
    case u3 = 1003
    /// acltu4: primary g3 only.
    case u4 = 1004
    /// primary g5; listed as a member of `inner`; `outer` nests `inner`.
    case u5 = 1005

    var uid: UID { rawValue }
    var description: String { self == .root ? "root" : "u\(rawValue - 1000)" }
}

/// Group ids of the linux world.
enum LG {
    static let root: GID = 0
    static let g1: GID = 1001
    static let g2: GID = 1002
    static let g3: GID = 1003
    static let g5: GID = 1005
    static let inner: GID = 1010
    static let outer: GID = 1011
}

/// `"rw-"` → RWX.
func rwxBits<S: StringProtocol>(_ s: S) -> RWX {
    var r: RWX = []
    for c in s {
        switch c {
        case "r": r.insert(.read)
        case "w": r.insert(.write)
        case "x": r.insert(.execute)
        default: break
        }
    }
    return r
}

/// A POSIX access ACL from short text, e.g. `"u::rw-,u:1003:rw-,g::r--,m::r--,o::---"`.
func posixACL(_ text: String) -> POSIXACL {
    var userObj: RWX = [], groupObj: RWX = [], other: RWX = []
    var mask: RWX? = nil
    var users: [POSIXACL.Entry] = [], groups: [POSIXACL.Entry] = []
    for e in text.split(separator: ",") {
        let p = e.split(separator: ":", omittingEmptySubsequences: false)
        precondition(p.count == 3, "bad ACL entry \(e)")
        let bits = rwxBits(p[2])
        switch (p[0], p[1].isEmpty) {
        case ("u", true): userObj = bits
        case ("u", false): users.append(POSIXACL.Entry(id: UInt32(p[1])!, perms: bits))
        case ("g", true): groupObj = bits
        case ("g", false): groups.append(POSIXACL.Entry(id: UInt32(p[1])!, perms: bits))
        case ("m", _): mask = bits
        case ("o", _): other = bits
        default: preconditionFailure("bad ACL tag \(e)")
        }
    }
    return try! POSIXACL(userObj: userObj, users: users, groupObj: groupObj, groups: groups, mask: mask, other: other)
}

// MARK: - Rows

/// One linux decision: who does what to which path, and what the reference says comes back.
struct LRow: Sendable, CustomTestStringConvertible {
    var label: String
    var who: LU
    var op: FSPolicy.Operation
    var path: String
    var to: String?
    var mode: UInt16?
    var owner: LU?
    var group: GID?
    var flags: FileFlags?
    var expect: Expect
    /// The node the deciding rule looked at (`Decision.node`).
    var at: String?
    /// A rule that must appear in the trace (the mask-`---` note, the touch/move-dir notes).
    var traceHas: RuleID?

    init(
        _ label: String, _ who: LU, _ op: FSPolicy.Operation, _ path: String, to: String? = nil,
        mode: UInt16? = nil, owner: LU? = nil, group: GID? = nil, flags: FileFlags? = nil,
        _ expect: Expect, at: String? = nil, traceHas: RuleID? = nil
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
        self.expect = expect
        self.at = at
        self.traceHas = traceHas
    }

    var testDescription: String { "\(label) → \(expect)" }

    func request(in world: World) -> Request {
        Request(
            subject: world.subject(uid: who.uid), op: op, path: path, to: to, mode: mode.map(FileMode.init),
            owner: owner?.uid, group: group, flags: flags)
    }
}

/// Decides `row` in the linux world under `semantics` (linux unless told) and checks allowed,
/// errno, layer and rule, plus the node and a trace rule when the row names them. `world` replaces
/// the linux world (e.g. with a sysctl changed).
@discardableResult
func checkLinux(
    _ row: LRow, semantics: Semantics = .linux, expect: Expect? = nil, in world: World = LinuxFixture.world,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Decision {
    let e = expect ?? row.expect
    let d = Authorizer(world: world, semantics: semantics).decide(row.request(in: world))
    let what = "[\(semantics.rawValue)] \(row.who) \(row.op.word) \(row.path)\(row.to.map { " → \($0)" } ?? ""): \(row.label)"
    let got = (d.allowed ? "allow" : "deny \(d.errno?.rawValue ?? "-")") + " [\(d.layer.rawValue)] \(d.rule.rawValue)"
    #expect(d.allowed == e.allowed, "\(what): allowed (got \(got))", sourceLocation: sourceLocation)
    #expect(d.errno == e.errno, "\(what): errno (got \(got))", sourceLocation: sourceLocation)
    #expect(d.layer == e.layer, "\(what): layer (got \(got))", sourceLocation: sourceLocation)
    #expect(d.rule == e.rule, "\(what): rule (got \(got))", sourceLocation: sourceLocation)
    if let p = row.at {
        let n = world.lookup(p)
        #expect(n != nil, "\(what): fixture has no \(p)", sourceLocation: sourceLocation)
        #expect(
            d.node == n, "\(what): decided on \(d.node >= 0 ? world.path(of: d.node) : "-"), expected \(p)",
            sourceLocation: sourceLocation)
    }
    if let r = row.traceHas {
        #expect(d.trace.contains { $0.rule == r }, "\(what): trace lacks \(r.rawValue)", sourceLocation: sourceLocation)
    }
    return d
}

// MARK: - The world

enum LinuxFixture {
    static let world: World = build()

    struct Builder {
        var w = World()

        /// Adds a node. With `acl`, the mode's rwx bits must already be what Linux stores:
        /// owner = `user::`, group = `mask::` (or `group::`), other = `other::`.
        mutating func node(
            _ path: String, _ type: NodeType, _ owner: LU, _ group: GID, _ mode: UInt16,
            flags: FileFlags = [], acl: String? = nil
        ) {
            let id = w.addNode(path: path, type: type, uid: owner.uid, gid: group, mode: FileMode(mode), flags: flags)
            if let text = acl {
                let a = posixACL(text)
                let m = FileMode(mode)
                precondition(
                    m.owner == a.userObj && m.group == a.groupClass && m.other == a.other,
                    "\(path): mode \(m.octal) does not match the ACL \(text)")
                w.setPOSIXACL(a, on: id)
            }
        }

        mutating func dir(
            _ path: String, _ owner: LU = .root, _ group: GID = LG.root, _ mode: UInt16 = 0o755,
            flags: FileFlags = [], acl: String? = nil
        ) {
            node(path, .dir, owner, group, mode, flags: flags, acl: acl)
        }

        mutating func file(
            _ path: String, _ owner: LU = .u1, _ group: GID = LG.g1, _ mode: UInt16 = 0o644,
            flags: FileFlags = [], acl: String? = nil
        ) {
            node(path, .file, owner, group, mode, flags: flags, acl: acl)
        }

        /// A u1:g1 file with the given mode.
        mutating func file(_ path: String, mode: UInt16, flags: FileFlags = [], acl: String? = nil) {
            node(path, .file, .u1, LG.g1, mode, flags: flags, acl: acl)
        }

        mutating func symlink(_ path: String, _ target: String, owner: LU = .root, mode: UInt16 = 0o777) {
            let id = w.addNode(
                path: path, type: .symlink, uid: owner.uid, gid: owner == .root ? LG.root : LG.g1,
                mode: FileMode(mode))
            w.setSymlinkTarget(target, on: id)
        }
    }

    static func build() -> World {
        var b = Builder()
        b.w.addGroup(Group(name: "root", gid: LG.root))
        b.w.addGroup(Group(name: "g1", gid: LG.g1))
        b.w.addGroup(Group(name: "g2", gid: LG.g2))
        b.w.addGroup(Group(name: "g3", gid: LG.g3))
        b.w.addGroup(Group(name: "g5", gid: LG.g5))
        b.w.addGroup(Group(name: "inner", gid: LG.inner, members: [LU.u5.uid]))
        b.w.addGroup(Group(name: "outer", gid: LG.outer, nested: [LG.inner]))
        b.w.addUser(User(name: "root", uid: 0, gid: LG.root))
        b.w.addUser(User(name: "u1", uid: LU.u1.uid, gid: LG.g1))
        b.w.addUser(User(name: "u2", uid: LU.u2.uid, gid: LG.g2, supplementary: [LG.g1]))
        b.w.addUser(User(name: "u3", uid: LU.u3.uid, gid: LG.g3, supplementary: [LG.g2]))
        b.w.addUser(User(name: "u4", uid: LU.u4.uid, gid: LG.g3))
        b.w.addUser(User(name: "u5", uid: LU.u5.uid, gid: LG.g5))

        var ro = Volume(mountPath: "/ro"); ro.readOnly = true
        var nx = Volume(mountPath: "/nx"); nx.noexec = true
        var noacl = Volume(mountPath: "/noacl"); noacl.acls = false
        for v in [ro, nx, noacl, Volume(mountPath: "/vol2")] { b.w.setVolume(v) }

        let imm: FileFlags = .systemImmutable  // chattr +i
        let app: FileFlags = .systemAppend  // chattr +a

        // §1.2 owner bits; classic group/other by membership (no ACL)
        b.dir("/m")
        b.file("/m/f_owner", .u1, LG.g1, 0o077)
        b.file("/m/f_grpdeny", .u1, LG.g1, 0o606)
        b.file("/m/f640", .u1, LG.g1, 0o640)
        b.file("/m/f_rx", .u1, LG.g1, 0o500)
        b.file("/m/g3_0060", .u1, LG.g3, 0o060)
        b.file("/m/inner0040", .root, LG.inner, 0o040)
        b.file("/m/outer0040", .root, LG.outer, 0o040)

        // §1.3 POSIX ACL entries (files u1:g1)
        b.dir("/acl")
        b.file("/acl/f_mask", mode: 0o640, acl: "u::rw-,u:1003:rw-,g::r--,m::r--,o::---")
        b.file("/acl/f_ngdeny", mode: 0o644, acl: "u::rw-,g::---,g:1002:---,m::r--,o::r--")
        b.file("/acl/f_multigrp", mode: 0o660, acl: "u::rw-,g::r--,g:1002:-w-,m::rw-,o::---")
        b.file("/acl/f_nu_vs_grp", mode: 0o670, acl: "u::rw-,u:1002:---,g::rwx,m::rwx,o::---")
        b.file("/acl/f_nu_grp", mode: 0o660, acl: "u::rw-,u:1002:r--,g::rw-,m::rw-,o::---")
        b.file("/acl/f_owner_named", mode: 0o070, acl: "u::---,u:1001:rwx,g::---,m::rwx,o::---")
        b.file("/acl/f_allgrant", mode: 0o666, acl: "u::rw-,u:1004:---,g::rw-,m::rw-,o::rw-")
        b.file("/acl/f_grpmasked", mode: 0o646, acl: "u::rw-,g::rw-,g:1003:rwx,m::r--,o::rw-")
        b.file("/acl/f_outer", mode: 0o640, acl: "u::rw-,g::---,g:1011:r--,m::r--,o::---")
        b.file("/acl/f_inner", mode: 0o640, acl: "u::rw-,g::---,g:1010:r--,m::r--,o::---")
        // a volume mounted without ACL support: the stored ACL is never read
        b.dir("/noacl")
        b.file("/noacl/f", mode: 0o660, acl: "u::rw-,u:1003:rw-,g::rw-,m::rw-,o::---")

        // §1.3 the mask-`---` quirk
        b.dir("/mq")
        b.file("/mq/f_masknone", mode: 0o604, acl: "u::rw-,u:1003:rw-,g::r--,g:1003:rw-,m::---,o::r--")
        b.file("/mq/f_maskr", mode: 0o644, acl: "u::rw-,u:1003:rw-,g::r--,g:1003:rw-,m::r--,o::r--")
        b.file("/mq/f_chmod", mode: 0o604, acl: "u::rw-,u:1003:rw-,g::r--,m::---,o::r--")
        b.file("/mq/f_namedeny", mode: 0o604, acl: "u::rw-,u:1004:---,g::---,m::---,o::r--")
        b.file("/mq/f_maskgrp", mode: 0o604, acl: "u::rw-,u:1002:rw-,g::rw-,m::---,o::r--")
        b.dir("/mq/d_masknone", .u1, LG.g1, 0o701, acl: "u::rwx,u:1003:---,g::---,m::---,o::--x")
        b.file("/mq/d_masknone/f")

        // §1.4 root's capabilities (files u1:g1)
        b.dir("/cap")
        b.file("/cap/f_root0", mode: 0o000)
        b.file("/cap/f_root_ox", mode: 0o001)
        b.file("/cap/f_ux", mode: 0o100)
        b.file("/cap/f_root_644", mode: 0o644)
        b.file("/cap/f_root_aclx", mode: 0o650, acl: "u::rw-,u:1003:r-x,g::---,m::r-x,o::---")
        b.file("/cap/f_root_aclx_masked", mode: 0o660, acl: "u::rw-,u:1003:rwx,g::---,m::rw-,o::---")
        b.file("/cap/f_root_deny", mode: 0o644, acl: "u::rw-,u:0:---,g::r--,m::r--,o::r--")
        b.file("/cap/f_ro", mode: 0o444)
        b.file("/cap/f_rootown011", .root, LG.root, 0o011)
        b.dir("/cap/d_0000", .u1, LG.g1, 0o000)
        b.file("/cap/d_0000/f")

        // §2 path traversal and symlinks
        b.dir("/t")
        b.dir("/t/d_nox", .u1, LG.g1, 0o744)
        b.file("/t/d_nox/f")
        b.dir("/t/d_xonly", .u1, LG.g1, 0o711)
        b.file("/t/d_xonly/f")
        b.file("/t/d_xonly/f0", mode: 0o000)
        b.dir("/t/d_aclx", .u1, LG.g1, 0o710, acl: "u::rwx,u:1004:--x,g::---,m::--x,o::---")
        b.file("/t/d_aclx/f")
        b.dir("/t/outer", .u1, LG.g1, 0o700)
        b.dir("/t/outer/inner", .u1, LG.g1, 0o777)
        b.file("/t/outer/inner/f")
        b.file("/t/f_grpdeny", .u1, LG.g1, 0o606)
        b.symlink("/t/ln_nox", "/t/d_nox/f")
        b.symlink("/t/ln_grpdeny", "f_grpdeny")
        b.symlink("/t/lndir", "/t/d_xonly")
        b.symlink("/t/ln0000", "d_xonly/f", owner: .u1, mode: 0o000)
        b.symlink("/t/loop1", "/t/loop2")
        b.symlink("/t/loop2", "/t/loop1")
        b.dir("/t/chain")
        b.file("/t/chain/target")
        for k in 0..<40 { b.symlink("/t/chain/l\(k)", "l\(k + 1)") }
        b.symlink("/t/chain/l40", "target")

        // §1.6 / §4.3 opening for write or exec: flags, volumes, types
        b.dir("/o")
        b.file("/o/f_app", .u1, LG.g1, 0o666, flags: app)
        b.file("/o/f_app644", .u1, LG.g1, 0o644, flags: app)
        b.file("/o/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/o/f_immuser", .u1, LG.g1, 0o666, flags: imm)
        b.file("/o/f_immx", .root, LG.root, 0o755, flags: imm)
        b.dir("/o/dir", .root, LG.root, 0o777)
        b.node("/o/fifo", .fifo, .u1, LG.g1, 0o777)
        b.file("/o/tool", .root, LG.root, 0o755)
        b.file("/o/tool644", .root, LG.root, 0o644)
        b.dir("/ro", .root, LG.root, 0o777)
        b.file("/ro/f", .u1, LG.g1, 0o666)
        b.file("/ro/f644", .u1, LG.g1, 0o644)
        b.node("/ro/fifo", .fifo, .u1, LG.g1, 0o666)
        b.dir("/ro/d", .u1, LG.g1, 0o777)
        b.file("/ro/d/x")
        b.dir("/nx")
        b.file("/nx/tool", .root, LG.root, 0o755)
        b.dir("/vol2", .root, LG.root, 0o777)

        // §3 may_create
        b.dir("/c")
        b.dir("/c/nowrite", .u1, LG.g1, 0o755)
        b.file("/c/nowrite/f")
        b.dir("/c/aclw", .u1, LG.g1, 0o775, acl: "u::rwx,u:1002:rwx,g::r-x,m::rwx,o::r-x")
        b.dir("/c/imm", .root, LG.root, 0o777, flags: imm)
        b.file("/c/imm/inner", .root, LG.root, 0o644)
        b.dir("/c/app", .u1, LG.g1, 0o755, flags: app)
        b.dir("/c/open", .root, LG.root, 0o777)
        b.symlink("/c/open/link", "/c/nowhere")

        // §3 may_delete
        b.dir("/d")
        b.dir("/d/sticky", .u3, LG.g3, 0o1777)
        for s in ["s1", "s2", "s3", "s4"] { b.file("/d/sticky/\(s)") }
        b.file("/d/sticky/s_u2", .u2, LG.g2)
        b.file("/d/sticky/s_imm", flags: imm)
        b.dir("/d/open", .root, LG.root, 0o777)
        b.file("/d/open/o1", .u1, LG.g1, 0o600)
        b.file("/d/open/o0", .u1, LG.g1, 0o000)
        b.file("/d/open/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/d/open/f_app", .u1, LG.g1, 0o666, flags: app)
        b.dir("/d/open/d_emptyimm", .root, LG.root, 0o755, flags: imm)
        b.dir("/d/open/full", .u1, LG.g1, 0o755)
        b.file("/d/open/full/x")
        b.dir("/d/open/empty", .u1, LG.g1, 0o700)
        b.dir("/d/nowrite", .u1, LG.g1, 0o755)
        b.file("/d/nowrite/f")
        b.dir("/d/nowrite/full", .u1, LG.g1, 0o777)
        b.file("/d/nowrite/full/x")
        b.dir("/d/aclw", .u1, LG.g1, 0o775, acl: "u::rwx,u:1002:rwx,g::r-x,m::rwx,o::r-x")
        b.file("/d/aclw/f")
        b.dir("/d/imm", .root, LG.root, 0o755, flags: imm)
        b.file("/d/imm/inner", .root, LG.root, 0o644)
        b.dir("/d/app", .u1, LG.g1, 0o777, flags: app)
        b.file("/d/app/old")
        b.dir("/d/wnox", .u1, LG.g1, 0o776)
        b.file("/d/wnox/f")
        b.symlink("/d/open/ln_imm", "/d/open/f_imm")

        // §3 rename
        b.dir("/r")
        b.dir("/r/sticky", .u3, LG.g3, 0o1777)
        b.file("/r/sticky/s5")
        b.file("/r/sticky/t_u1")
        b.dir("/r/open", .root, LG.root, 0o777)
        b.file("/r/open/fu2", .u2, LG.g2)
        b.file("/r/open/fu2b", .u2, LG.g2)
        b.dir("/r/open/u1dir", .u1, LG.g1, 0o755)
        b.file("/r/open/u1file", .u1, LG.g1, 0o444)
        b.dir("/r/open/dst", .root, LG.root, 0o777)
        b.dir("/r/open/d2", .u2, LG.g2, 0o755)
        b.dir("/r/open/dfull", .u1, LG.g1, 0o755)
        b.file("/r/open/dfull/x")
        b.dir("/r/open/dempty", .u1, LG.g1, 0o755)
        b.file("/r/open/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/r/open/f_app", .u1, LG.g1, 0o666, flags: app)
        b.dir("/r/nowrite", .u1, LG.g1, 0o755)
        b.file("/r/nowrite/tf")
        b.dir("/r/app", .u1, LG.g1, 0o777, flags: app)
        b.file("/r/app/old")
        b.dir("/r/imm", .root, LG.root, 0o755, flags: imm)
        b.file("/r/imm/inner", .root, LG.root, 0o644)
        b.symlink("/r/open/ln_imm", "/r/open/f_imm")

        // §3 link and fs.protected_hardlinks=1
        b.dir("/k")
        b.dir("/k/open", .root, LG.root, 0o777)
        b.file("/k/open/f_nolink", .u1, LG.g1, 0o600)
        b.file("/k/open/f_rw", .u1, LG.g1, 0o666)
        b.file("/k/open/f_suid", .u1, LG.g1, 0o4666)
        b.file("/k/open/f_sgidx", .u1, LG.g1, 0o2676)
        b.file("/k/open/f_sgid", .u1, LG.g1, 0o2666)
        b.file("/k/open/f_r", .u1, LG.g1, 0o644)
        b.node("/k/open/fifo", .fifo, .u1, LG.g1, 0o666)
        b.file("/k/open/exists")
        b.file("/k/open/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/k/open/f_app", .u1, LG.g1, 0o666, flags: app)
        b.dir("/k/open/d_u1", .u1, LG.g1, 0o755)
        b.dir("/k/nowrite", .root, LG.root, 0o755)
        b.symlink("/k/open/ln_u1", "/k/open/f_rw", owner: .u1)
        b.file("/k/open/f_immrw", .u1, LG.g1, 0o666, flags: imm)
        b.file("/k/open/f_aclrw", mode: 0o660, acl: "u::rw-,u:1004:rw-,g::---,m::rw-,o::---")

        // §1.6 attribute changes
        b.dir("/a")
        b.file("/a/f_u1")
        b.file("/a/f_u2", .u2, LG.g2)
        b.file("/a/f_u5", .u5, LG.g5)
        b.file("/a/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/a/f_app", .u1, LG.g1, 0o666, flags: app)
        b.file("/a/f_o666", .u1, LG.g1, 0o666)
        b.file("/a/f_o644", .u1, LG.g1, 0o644)
        b.file("/a/f_immuser", .u1, LG.g1, 0o666, flags: imm)
        b.file("/a/f_aclw", mode: 0o660, acl: "u::rw-,u:1004:rw-,g::---,m::rw-,o::---")

        // §4.2 changing inode flags
        b.dir("/fl")
        b.file("/fl/f_u1")
        b.file("/fl/f_d", flags: .userNoDump)
        b.file("/fl/f_600", mode: 0o600)
        b.file("/fl/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/fl/f_imm_u1", flags: imm)
        b.file("/fl/f_app", flags: app)

        // user.* extended attributes
        b.dir("/x")
        b.file("/x/f")
        b.file("/x/f600", mode: 0o600)
        b.node("/x/fifo", .fifo, .u1, LG.g1, 0o666)
        b.dir("/x/sticky", .u1, LG.g1, 0o1777)
        b.dir("/x/dir", .u1, LG.g1, 0o777)
        b.file("/x/f_imm", .root, LG.root, 0o644, flags: imm)
        b.file("/x/f_app", .u1, LG.g1, 0o666, flags: app)
        return b.w
    }
}

extension LinuxTests {
    @Suite("linux fixture")
    struct FixtureSanity {
        @Test("the linux world is what the tables assume")
        func world() {
            let w = LinuxFixture.world
            for (p, t) in [
                ("/o/fifo", NodeType.fifo), ("/t/chain/l0", .symlink), ("/t/chain/l40", .symlink),
                ("/mq/d_masknone", .dir), ("/k/open/fifo", .fifo)
            ] {
                let n = w.lookup(p)
                #expect(n != nil, "\(p)")
                if let n { #expect(w[n].type == t, "\(p)") }
            }
            #expect(w.volume(of: w.lookup("/ro/f")!).readOnly)
            #expect(w.volume(of: w.lookup("/nx/tool")!).noexec)
            #expect(!w.volume(of: w.lookup("/noacl/f")!).acls)
            #expect(w.volume(of: w.lookup("/vol2")!).mountPath == "/vol2")
            #expect(w.protectedHardlinks, "fs.protected_hardlinks=1 as measured")
            let u2 = w.subject(uid: LU.u2.uid)
            #expect(u2.isDirectMember(LG.g1), "u2 is in g1 through its supplementary list")
            let u5 = w.subject(uid: LU.u5.uid)
            #expect(u5.isDirectMember(LG.inner), "u5 is listed in inner")
            #expect(u5.isMember(LG.outer) && !u5.isDirectMember(LG.outer), "u5 is in outer only through nesting")
            #expect(w.posixACL(of: w.lookup("/acl/f_mask")!) != nil)
        }
    }
}
