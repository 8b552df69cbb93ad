import Testing
import FSPolicy

// chown and lchown with -1 for either id (O27), lchmod (O25), utimensat with UTIME_NOW and
// UTIME_OMIT per time (O26), block and character device nodes, and the set-id bits of a new
// FIFO under macos (O28). The linux answers are what CallsDifferentialTests measures on this
// machine's kernel; the macos ones the reference facts on XNU's vnode_authattr.

enum CallsFixture {
    static let world: World = {
        var b = LinuxFixture.Builder()
        b.w = LinuxFixture.world
        b.dir("/c", .root, LG.root, 0o777)
        b.file("/c/plain", .u1, LG.g1, 0o644)
        b.file("/c/other", .u2, LG.g2, 0o666)
        b.file("/c/su", .u1, LG.g1, 0o4755)
        b.file("/c/sg", .u1, LG.g1, 0o2745)
        b.file("/c/imm", .u1, LG.g1, 0o644, flags: .systemImmutable)
        b.file("/c/app", .u1, LG.g1, 0o644, flags: .systemAppend)
        b.file("/c/appsu", .u1, LG.g1, 0o4755, flags: .systemAppend)
        b.symlink("/c/ln", "plain", owner: .u1)
        b.dir("/c/sgd", .u1, LG.g3, 0o2777)
        return b.w
    }()

    static func decide(_ r: Request, _ sem: Semantics) -> Decision { Authorizer(world: world, semantics: sem).decide(r) }

    static func chown(_ who: LU, _ path: String, owner: UID?, group: GID?, op: FSPolicy.Operation = .chown) -> Request {
        var r = Request(subject: world.subject(uid: who.uid), op: op, path: path)
        r.owner = owner
        r.group = group
        return r
    }

    static func times(_ who: LU, _ path: String, _ a: TimeChange, _ m: TimeChange) -> Request {
        var r = Request(subject: world.subject(uid: who.uid), op: .settimes, path: path)
        r.atime = a
        r.mtime = m
        return r
    }

    static func lchmod(_ who: LU, _ path: String, _ mode: UInt16) -> Request {
        Request(subject: world.subject(uid: who.uid), op: .lchmod, path: path, mode: FileMode(mode))
    }
}

struct CallRow: Sendable, CustomTestStringConvertible {
    var label: String
    var request: Request
    var sem: Semantics
    /// nil: allowed.
    var errno: Errno?
    var rule: RuleID?
    var unknown = false
    var testDescription: String { "\(sem) \(label)" }
}

let callRows: [CallRow] = {
    typealias F = CallsFixture
    let u1 = LU.u1.uid, u2 = LU.u2.uid
    return [
        // O27, linux: chown(-1, -1) asks neither chown_ok nor chgrp_ok.
        CallRow(label: "O27: chown(-1, -1) of another's plain file", request: F.chown(.u2, "/c/plain", owner: nil, group: nil), sem: .linux, rule: .chownNoIDs),
        CallRow(
            label: "O27: chown(-1, -1) of another's setuid file clears setuid: owner or CAP_FOWNER",
            request: F.chown(.u2, "/c/su", owner: nil, group: nil), sem: .linux, errno: .EPERM, rule: .linuxChownClearsSetID),
        CallRow(
            label: "O27: setgid without group x, caller not in the group", request: F.chown(.u3, "/c/sg", owner: nil, group: nil), sem: .linux,
            errno: .EPERM, rule: .linuxChownClearsSetID),
        CallRow(label: "O27: the owner's setuid file", request: F.chown(.u1, "/c/su", owner: nil, group: nil), sem: .linux, rule: .chownNoIDs),
        CallRow(
            label: "O27: an immutable file on a file system the world does not name", request: F.chown(.root, "/c/imm", owner: nil, group: nil),
            sem: .linux, rule: .chownNoIDs, unknown: true),
        CallRow(label: "O27: append-only, nothing to clear", request: F.chown(.root, "/c/app", owner: nil, group: nil), sem: .linux, rule: .chownNoIDs),
        CallRow(
            label: "O27: append-only with setuid to clear, file system unnamed", request: F.chown(.root, "/c/appsu", owner: nil, group: nil),
            sem: .linux, rule: .chownNoIDs, unknown: true),
        CallRow(label: "O27: a missing name", request: F.chown(.u2, "/c/nope", owner: nil, group: nil), sem: .linux, errno: .ENOENT),
        CallRow(label: "O27: a read-only file system first", request: F.chown(.u1, "/ro/f", owner: nil, group: nil), sem: .linux, errno: .EROFS),
        // The ids given: chown_ok, then chgrp_ok.
        CallRow(label: "C4: the owner to her own group, owner -1", request: F.chown(.u1, "/c/plain", owner: nil, group: LG.g1), sem: .linux),
        CallRow(
            label: "C4: the owner to a group she is not in", request: F.chown(.u1, "/c/plain", owner: nil, group: LG.g3), sem: .linux, errno: .EPERM,
            rule: .linuxChgrpNotAllowed),
        CallRow(
            label: "C4: the owner to herself and another group", request: F.chown(.u1, "/c/plain", owner: u1, group: LG.g2), sem: .linux,
            errno: .EPERM, rule: .linuxChgrpNotAllowed),
        CallRow(
            label: "C4: giving it away", request: F.chown(.u1, "/c/plain", owner: u2, group: nil), sem: .linux, errno: .EPERM,
            rule: .linuxChownNeedsCap),
        CallRow(label: "C4: root, both ids", request: F.chown(.root, "/c/plain", owner: u2, group: LG.g2), sem: .linux, rule: .linuxChownNeedsCap),
        CallRow(label: "O16: lchown(-1, -1) of a symlink", request: F.chown(.u2, "/c/ln", owner: nil, group: nil, op: .lchown), sem: .linux, rule: .chownNoIDs),
        // macos (vnode_authattr): no id active asks nothing.
        CallRow(label: "O27: chown(-1, -1)", request: F.chown(.u2, "/c/su", owner: nil, group: nil), sem: .macos, rule: .chownNoIDs),
        CallRow(label: "O27: chown(-1, -1) of an immutable file", request: F.chown(.u2, "/c/imm", owner: nil, group: nil), sem: .macos, rule: .chownNoIDs),
        CallRow(
            label: "A2: owner -1, a group the caller is not in", request: F.chown(.u1, "/c/plain", owner: nil, group: LG.g3), sem: .macos,
            errno: .EPERM, rule: .chgrpNotMember),
        CallRow(
            label: "A1: another user, group -1", request: F.chown(.u1, "/c/plain", owner: u2, group: nil), sem: .macos, errno: .EPERM,
            rule: .chownToOther),
        // O25: lchmod.
        CallRow(
            label: "O25: lchmod of a symlink, root included", request: F.lchmod(.root, "/c/ln", 0o600), sem: .linux, errno: .EOPNOTSUPP,
            rule: .lchmodSymlink),
        CallRow(label: "O25: lchmod of a file is chmod", request: F.lchmod(.u1, "/c/plain", 0o600), sem: .linux),
        CallRow(
            label: "O25: lchmod of another's file", request: F.lchmod(.u2, "/c/plain", 0o600), sem: .linux, errno: .EPERM,
            rule: .linuxOwnerOrFowner),
        CallRow(label: "O25: lchmod of the link by its owner", request: F.lchmod(.u1, "/c/ln", 0o600), sem: .macos),
        CallRow(label: "O25: lchmod of the link by another", request: F.lchmod(.u2, "/c/ln", 0o600), sem: .macos, errno: .EPERM),
        // O26: utimensat per time.
        CallRow(label: "O26: both omitted: no lookup at all", request: F.times(.u2, "/nowhere/x", .omit, .omit), sem: .linux, rule: .settimesOmitBoth),
        CallRow(label: "O26: both omitted on an immutable file", request: F.times(.u2, "/c/imm", .omit, .omit), sem: .linux, rule: .settimesOmitBoth),
        CallRow(label: "O26: both now, writable by the caller", request: F.times(.u3, "/c/other", .now, .now), sem: .linux),
        CallRow(
            label: "O26: now and omit is an explicit change: owner only", request: F.times(.u1, "/c/other", .now, .omit), sem: .linux, errno: .EPERM,
            rule: .linuxOwnerOrFowner),
        CallRow(
            label: "O26: omit and a given time", request: F.times(.u1, "/c/other", .omit, .set), sem: .linux, errno: .EPERM, rule: .linuxOwnerOrFowner),
        CallRow(label: "O26: the owner, now and omit", request: F.times(.u2, "/c/other", .now, .omit), sem: .linux),
        CallRow(label: "O26: both now on append-only", request: F.times(.root, "/c/app", .now, .now), sem: .linux),
        CallRow(
            label: "O26: now and omit on append-only", request: F.times(.root, "/c/app", .now, .omit), sem: .linux, errno: .EPERM,
            rule: .appendOnly),
        CallRow(
            label: "O26: a time omitted is not in the reference", request: F.times(.u2, "/c/other", .now, .omit), sem: .macos,
            rule: .settimesOmitUnknown, unknown: true),
        CallRow(label: "O26: both now is utimes(NULL)", request: F.times(.u1, "/c/other", .now, .now), sem: .macos)
    ]
}()

@Suite("O25–O28: chown with -1, lchmod, utimensat per time, device kinds")
struct CallsTests {
    @Test("each call's answer", arguments: callRows)
    func answers(_ row: CallRow) {
        let d = CallsFixture.decide(row.request, row.sem)
        #expect(d.allowed == (row.errno == nil && !row.unknown))
        #expect(d.unknown == row.unknown)
        #expect(d.errno == row.errno)
        if let r = row.rule { #expect(d.rule == r) }
    }

    /// A step changes only the ids given, and clears what each kernel clears.
    @Test("chown steps change only the ids given")
    func chownSteps() {
        func apply(_ r: Request, _ sem: Semantics) -> Node? {
            var w = CallsFixture.world
            let out = Mutator.apply(r, to: &w, semantics: sem)
            guard out.applied, let n = w.resolveUnchecked(r.path, followTrailing: r.op == .chown).node else { return nil }
            return w[n]
        }
        // linux: the owner's chown(-1, -1) of her setuid file clears setuid.
        let a = apply(CallsFixture.chown(.u1, "/c/su", owner: nil, group: nil), .linux)
        #expect(a?.mode.rawValue == 0o755 && a?.uid == LU.u1.uid && a?.gid == LG.g1)
        // macos: nothing at all changes.
        let b = apply(CallsFixture.chown(.u1, "/c/su", owner: nil, group: nil), .macos)
        #expect(b?.mode.rawValue == 0o4755)
        // Group only: the owner stays.
        let c = apply(CallsFixture.chown(.root, "/c/plain", owner: nil, group: LG.g3), .linux)
        #expect(c?.uid == LU.u1.uid && c?.gid == LG.g3)
        // Both.
        let d = apply(CallsFixture.chown(.root, "/c/plain", owner: LU.u2.uid, group: LG.g2), .macos)
        #expect(d?.uid == LU.u2.uid && d?.gid == LG.g2)
        // lchmod changes the link itself under macos.
        let e = apply(CallsFixture.lchmod(.u1, "/c/ln", 0o700), .macos)
        #expect(e?.type == .symlink && e?.mode.rawValue == 0o700)
    }

    /// mknod makes the kind its request says; without one, a device of an unsaid kind.
    @Test("mknod makes a block or a character device")
    func deviceKinds() {
        for (kind, ls) in [(NodeType.blockDevice, "b"), (.charDevice, "c"), (.device, "?")] {
            var w = CallsFixture.world
            var r = Request(subject: w.subject(uid: 0), op: .mknod, path: "/c/dev", mode: FileMode(0o640))
            r.deviceType = kind
            let out = Mutator.apply(r, to: &w, semantics: .linux)
            #expect(out.created.map { w[$0].type } == kind)
            #expect(String(kind.lsChar) == ls)
            #expect(kind.isDevice && kind.isNamed(by: .device) && !NodeType.fifo.isNamed(by: .device))
        }
        #expect(!NodeType.blockDevice.isNamed(by: .charDevice))
    }

    /// O28: a user's FIFO keeping setgid for a group she is not in (the parent's, under
    /// macos): unknown; with a group of hers, or without the bit, made as asked.
    @Test("macos: set-id bits in a new FIFO's mode")
    func newFIFOSetID() {
        func ask(_ who: LU, _ path: String, _ mode: UInt16) -> Decision {
            var s = CallsFixture.world.subject(uid: who.uid)
            s.umask = 0o022
            return Authorizer(world: CallsFixture.world, semantics: .macos).decide(Request(subject: s, op: .mkfifo, path: path, mode: FileMode(mode)))
        }
        // /c/sgd's group is g3; u1 is not in it, u3 is.
        let doubt = ask(.u1, "/c/sgd/p", 0o2755)
        #expect(doubt.unknown && doubt.rule == .newNodeSetIDUnknown)
        #expect(ask(.u3, "/c/sgd/p", 0o2755).allowed)
        #expect(ask(.u1, "/c/sgd/p", 0o4755).allowed)
        #expect(ask(.u1, "/c/sgd/p", 0o0755).allowed)
        #expect(ask(.root, "/c/sgd/p", 0o6755).allowed)
    }
}
