import Testing
import FSPolicy

// symlink, mkfifo, mknod and socket (rules O17–O19) and a write's clearing of setuid and setgid
// (O20), as requests and as steps. The linux answers are what NodeKindDifferentialTests measures
// on this machine's kernel; the macos ones XNU's mknodat, unp_bind and hfs_vnop_write.

enum NodeKindFixture {
    static let world: World = {
        var b = LinuxFixture.Builder()
        b.w = SpecialFileFixture.world
        b.dir("/sg", .root, LG.g1, 0o2777)
        b.file("/o/dir/su6777", .u1, LG.g1, 0o6777)
        b.file("/o/dir/sg2767", .u1, LG.g1, 0o2767)
        b.file("/o/dir/su4777", .u1, LG.g1, 0o4777)
        return b.w
    }()

    static func subject(_ who: LU, umask: UInt16 = 0o022) -> Subject {
        var s = world.subject(uid: who.uid)
        s.umask = umask
        return s
    }

    static func decide(_ who: LU, _ op: FSPolicy.Operation, _ path: String, to: String? = nil, _ sem: Semantics) -> Decision {
        Authorizer(world: world, semantics: sem).decide(Request(subject: subject(who), op: op, path: path, to: to))
    }
}

struct NodeKindRow: Sendable, CustomTestStringConvertible {
    var label: String
    var who: LU
    var op: FSPolicy.Operation
    var path: String
    var sem: Semantics
    /// nil: allowed.
    var errno: Errno?
    var rule: RuleID?
    var testDescription: String { "\(sem) \(label)" }
}

let nodeKindRows: [NodeKindRow] = [
    NodeKindRow(label: "O17: a user makes a FIFO in a directory she may write", who: .u2, op: .mkfifo, path: "/o/dir/p", sem: .linux),
    NodeKindRow(label: "O17: a symlink over an existing name", who: .u2, op: .symlink, path: "/sk/s7", sem: .linux, errno: .EEXIST, rule: .exists),
    NodeKindRow(label: "O17: on a read-only file system", who: .u1, op: .mkfifo, path: "/ro/d/p", sem: .linux, errno: .EROFS, rule: .readOnlyVolume),
    NodeKindRow(label: "O17: a new name with a trailing slash", who: .u1, op: .socket, path: "/o/dir/s/", sem: .linux, errno: .ENOENT, rule: .notFound),
    NodeKindRow(label: "O18: a device node needs CAP_MKNOD", who: .u2, op: .mknod, path: "/o/dir/dev", sem: .linux, errno: .EPERM, rule: .mknodNeedsPrivilege),
    NodeKindRow(label: "O18: may_create comes first", who: .u2, op: .mknod, path: "/sk/dev", sem: .linux, errno: .EACCES, rule: .otherBitsMissing),
    NodeKindRow(label: "O18: root has CAP_MKNOD", who: .root, op: .mknod, path: "/o/dir/dev", sem: .linux, rule: .mknodNeedsPrivilege),
    NodeKindRow(label: "O19: bind to an existing name", who: .u2, op: .socket, path: "/sk/s7", sem: .linux, errno: .EADDRINUSE, rule: .socketAddressInUse),
    NodeKindRow(
        label: "O19: bind to the name of a file", who: .root, op: .socket, path: "/sk/f_u1", sem: .linux, errno: .EADDRINUSE, rule: .socketAddressInUse),
    NodeKindRow(label: "O17: a FIFO as add_file", who: .u2, op: .mkfifo, path: "/o/dir/p", sem: .macos),
    NodeKindRow(
        label: "O18: mknod by a user, before the lookup", who: .u2, op: .mknod, path: "/nowhere/dev", sem: .macos, errno: .EPERM, rule: .mknodNeedsPrivilege),
    NodeKindRow(label: "O18: mknod by the superuser", who: .root, op: .mknod, path: "/o/dir/dev", sem: .macos),
    NodeKindRow(label: "O19: bind to an existing name", who: .u2, op: .socket, path: "/sk/s7", sem: .macos, errno: .EADDRINUSE, rule: .socketAddressInUse),
    NodeKindRow(label: "O18: mknod by a user", who: .u1, op: .mknod, path: "/o/dir/dev", sem: .guide, errno: .EPERM, rule: .mknodNeedsPrivilege)
]

@Suite("O17–O20 node kinds and setuid clearing")
struct NodeKindTests {
    @Test("each call's answer", arguments: nodeKindRows)
    func answers(_ row: NodeKindRow) {
        let d = NodeKindFixture.decide(row.who, row.op, row.path, to: row.op == .symlink ? "t" : nil, row.sem)
        #expect(d.allowed == (row.errno == nil))
        #expect(d.errno == row.errno)
        if let r = row.rule { #expect(d.rule == r) }
    }

    /// The new node: type, owner, group (a setgid parent's under linux), mode.
    @Test("steps make the node with its type, owner, group and mode")
    func steps() {
        func make(_ op: FSPolicy.Operation, _ path: String, mode: UInt16? = nil, umask: UInt16, _ sem: Semantics) -> (World, Node?) {
            var w = NodeKindFixture.world
            var r = Request(subject: NodeKindFixture.subject(.u2, umask: umask), op: op, path: path, mode: mode.map(FileMode.init))
            if op == .symlink { r.to = "../target" }
            let out = Mutator.apply(r, to: &w, semantics: sem)
            return (w, out.created.map { w[$0] })
        }
        var (w, n) = make(.symlink, "/sg/l", umask: 0o022, .linux)
        #expect(n?.type == .symlink && n?.mode.rawValue == 0o777 && n?.uid == LU.u2.uid && n?.gid == LG.g1)
        #expect(w.symlinkTargets[w.lookup("/sg/l")!] == "../target")
        (w, n) = make(.symlink, "/o/dir/l", umask: 0o022, .macos)
        #expect(n?.type == .symlink && n?.mode.rawValue == 0o755 && n?.gid == LG.root)
        (_, n) = make(.mkfifo, "/o/dir/p", mode: 0o4666, umask: 0o022, .linux)
        #expect(n?.type == .fifo && n?.mode.rawValue == 0o4644 && n?.gid == NodeKindFixture.subject(.u2).gid)
        (_, n) = make(.mkfifo, "/o/dir/p", mode: 0o4666, umask: 0o022, .macos)
        #expect(n?.type == .fifo && n?.mode.rawValue == 0o4644)
        (_, n) = make(.socket, "/o/dir/s", umask: 0o077, .linux)
        #expect(n?.type == .socket && n?.mode.rawValue == 0o700)
        (_, n) = make(.socket, "/o/dir/s", umask: 0o027, .macos)
        #expect(n?.type == .socket && n?.mode.rawValue == 0o750)
        (_, n) = make(.mknod, "/o/dir/dev", umask: 0o022, .linux)
        #expect(n == nil, "a user may not make a device node")
    }

    /// O20: the mode a write leaves (linux: setattr_should_drop_suidgid; macos: hfs_vnop_write).
    @Test("a write clears setuid and setgid as each kernel does")
    func writeClears() {
        func after(_ who: LU, _ op: FSPolicy.Operation, _ path: String, _ sem: Semantics) -> UInt16? {
            var w = NodeKindFixture.world
            let out = Mutator.apply(Request(subject: NodeKindFixture.subject(who), op: op, path: path), to: &w, semantics: sem)
            return out.applied ? w[w.lookup(path)!].mode.rawValue : nil
        }
        #expect(after(.u2, .write, "/o/dir/su6777", .linux) == 0o777, "setuid, and setgid with group x")
        #expect(after(.u1, .append, "/o/dir/su6777", .linux) == 0o777, "the owner is no exception")
        #expect(after(.u2, .write, "/o/dir/sg2767", .linux) == 0o2767, "a member keeps setgid without group x")
        #expect(after(.u3, .write, "/o/dir/sg2767", .linux) == 0o767, "a non-member does not")
        #expect(after(.u3, .truncate, "/o/dir/su4777", .linux) == 0o777)
        #expect(after(.root, .write, "/o/dir/su6777", .linux) == 0o6777, "CAP_FSETID keeps both")
        #expect(after(.u2, .write, "/o/dir/sg2767", .macos) == 0o767, "XNU clears both for anyone but root")
        #expect(after(.u2, .truncate, "/o/dir/su6777", .macos) == 0o6777, "XNU's O_TRUNC clears nothing")
        #expect(after(.root, .write, "/o/dir/su6777", .macos) == 0o6777)
    }
}
