import Testing
import FSPolicy

// The administrator operations and moves (continued from InheritanceTests.swift; sources as
// listed there).

private let F: ACEFlags = .F, D: ACEFlags = .D, L: ACEFlags = .L, O: ACEFlags = .O, I: ACEFlags = .I

private func with(_ a: ACE, _ flags: ACEFlags) -> ACE { var c = a; c.flags = flags; return c }

// MARK: - Table 6: the administrator operations (guide: "OS X Server v10.4では…", Figure B-1)

// propagate: every node below the path re-inherits, top-down, from its (already updated) parent:
// its explicit entries stay, its inherited entries are recomputed (macos §3.5 composition:
// explicit entries in stored order, then the parent's selected entries in parent order; guide:
// explicit deny, explicit allow, then inherited). inheritacl: the same for one node.
// makeexplicit: `inherited` cleared on the node and below. removeacls: no ACL on the node and
// below. copypermissions: owner, group and mode of the directory copied to everything below
// (BSD permissions only). Each step is authorized first (writesecurity on the node: implicit
// for the owner, macOS §2.6 / §5 row 6; a writesecurity ACE delegates it).

private let t0 = AdminTree.t0, t1 = AdminTree.t1
private let t0d = with(t0, [I, F, D]), t1d = with(t1, [I, F, D])
private let t0f = with(t0, I), t1f = with(t1, I)
private let staleDir = AdminTree.staleDir, staleFile = AdminTree.staleFile
private let fX = AdminTree.fExplicit, sA = AdminTree.sAllow, sD = AdminTree.sDeny, gX = AdminTree.gExplicit
private let t2bob = allow(iu(.bob), .readData, [F, D])
private let t3deny = deny(iu(.dave), .readData, [F, D]), t3bob = allow(iu(.bob), .readData, [F, D])
private let t3frankW = allow(iu(.frank), .writeData), t3frankD = allow(iu(.frank), .delete, [F, D])

let inheritanceAdminRows: [AdminRow] = [
    AdminRow(
        "propagate /t by root: explicit entries kept, stale inherited ones replaced, top-down to the leaves", .root, .propagate, "/t",
        mac: [
            "/t/f": [fX, t0f, t1f], "/t/s": [sA, sD, t0d, t1d], "/t/s/g": [gX, t0f, t1f],
            "/t/s/u": [t0d, t1d], "/t/s/u/h": [t0f, t1f]
        ],
        guide: [
            "/t/f": [fX, t0d, t1d], "/t/s": [sD, sA, t0d, t1d], "/t/s/g": [gX, t0d, t1d],
            "/t/s/u": [t0d, t1d], "/t/s/u/h": [t0d, t1d]
        ]),
    AdminRow(
        "propagate /t/s by root: only below /t/s, from /t/s's own ACL; /t/s itself untouched", .root, .propagate, "/t/s",
        mac: ["/t/s/g": [gX, staleFile], "/t/s/u": [staleDir], "/t/s/u/h": [staleFile]],
        guide: ["/t/s/g": [gX, staleDir], "/t/s/u": [staleDir], "/t/s/u/h": [staleDir]]),
    AdminRow(
        "propagate /t3 by its owner alice (she owns the whole subtree); deny kept before allow in parent order",
        .alice, .propagate, "/t3",
        mac: [
            "/t3/a": [with(t3deny, I), with(t3bob, I)],
            "/t3/b": [t3frankW, t3frankD, with(t3deny, [I, F, D]), with(t3bob, [I, F, D])],
            "/t3/b/c": [with(t3frankD, I), with(t3deny, I), with(t3bob, I)]
        ],
        guide: [
            "/t3/a": [with(t3deny, [I, F, D]), with(t3bob, [I, F, D])],
            "/t3/b": [t3frankW, t3frankD, with(t3deny, [I, F, D]), with(t3bob, [I, F, D])],
            "/t3/b/c": [with(t3frankD, [I, F, D]), with(t3deny, [I, F, D]), with(t3bob, [I, F, D])]
        ]),
    AdminRow(
        "propagate /t2 by dave, who holds writesecurity on /t2 through an ACE and owns /t2/f", .dave, .propagate, "/t2",
        mac: ["/t2/f": [with(t2bob, I)]], guide: ["/t2/f": [with(t2bob, [I, F, D])]]),
    AdminRow(
        "inheritacl /t/s by its owner: one node re-inherits (guide: explicit deny moved first)", .alice, .inheritACL, "/t/s",
        mac: ["/t/s": [sA, sD, t0d, t1d]], guide: ["/t/s": [sD, sA, t0d, t1d]]),
    AdminRow(
        "inheritacl /t/f by its owner bob", .bob, .inheritACL, "/t/f",
        mac: ["/t/f": [fX, t0f, t1f]], guide: ["/t/f": [fX, t0d, t1d]]),
    AdminRow(
        "inheritacl on a dir without an ACL gives it the parent's inheritable entries", .alice, .inheritACL, "/t/s/u",
        mac: ["/t/s/u": [staleDir]]),
    AdminRow(
        "inheritacl on a file without an ACL, by root", .root, .inheritACL, "/t2/f",
        mac: ["/t2/f": [with(t2bob, I)]], guide: ["/t2/f": [with(t2bob, [I, F, D])]]),
    AdminRow(
        "inheritacl with nothing to inherit keeps an empty ACL empty (§3.4: present but empty)", .alice, .inheritACL, "/t/s/u/h",
        mac: ["/t/s/u/h": []]),
    AdminRow(
        "makeexplicit /t/s: inherited cleared on /t/s and below, inherit flags kept", .root, .makeExplicit, "/t/s",
        mac: ["/t/s": [sA, sD, with(staleDir, [F, D])], "/t/s/g": [gX, with(staleFile, [])]]),
    AdminRow(
        "makeexplicit /t3/b by its owner", .alice, .makeExplicit, "/t3/b",
        mac: ["/t3/b": [t3frankW, t3frankD, with(staleDir, [F, D])], "/t3/b/c": [with(staleFile, [])]]),
    AdminRow("makeexplicit on one file by its owner", .bob, .makeExplicit, "/t/f", mac: ["/t/f": [fX, with(staleFile, [])]]),
    AdminRow(
        "removeacls /t/s: no ACL on /t/s and everything below", .root, .removeACLs, "/t/s",
        mac: ["/t/s": nil, "/t/s/g": nil, "/t/s/u": nil, "/t/s/u/h": nil]),
    AdminRow(
        "removeacls /t3 by its owner", .alice, .removeACLs, "/t3",
        mac: ["/t3": nil, "/t3/a": nil, "/t3/b": nil, "/t3/b/c": nil]),
    AdminRow("removeacls on one file by its owner", .bob, .removeACLs, "/t/s/g", mac: ["/t/s/g": nil]),
    AdminRow(
        "copypermissions /t: owner, group and mode copied below, ACLs untouched", .root, .copyPermissions, "/t",
        attrs: [
            "/t/f": (.alice, IG.staff, 0o750), "/t/s": (.alice, IG.staff, 0o750), "/t/s/g": (.alice, IG.staff, 0o750),
            "/t/s/u": (.alice, IG.staff, 0o750), "/t/s/u/h": (.alice, IG.staff, 0o750)
        ]),
    AdminRow(
        "copypermissions /t/s: only below /t/s", .root, .copyPermissions, "/t/s",
        attrs: ["/t/s/g": (.alice, IG.staff, 0o755), "/t/s/u": (.alice, IG.staff, 0o755), "/t/s/u/h": (.alice, IG.staff, 0o755)]),
    AdminRow(
        "copypermissions /t3 by its owner", .alice, .copyPermissions, "/t3",
        attrs: ["/t3/a": (.alice, IG.staff, 0o755), "/t3/b": (.alice, IG.staff, 0o755), "/t3/b/c": (.alice, IG.staff, 0o755)]),
    // refused: nothing changes
    AdminRow("refused: dave propagates /t (no writesecurity)", .dave, .propagate, "/t", allowed: false),
    AdminRow("refused: bob propagates /t (his ACE allows read only)", .bob, .propagate, "/t", allowed: false),
    AdminRow("refused: bob propagates /t3 (read allowed, writesecurity not)", .bob, .propagate, "/t3", allowed: false),
    AdminRow("refused: carol re-inherits /t/s", .carol, .inheritACL, "/t/s", allowed: false),
    AdminRow(
        "refused: frank re-inherits /t3/b (his explicit ACEs give write and delete, not writesecurity)", .frank,
        .inheritACL, "/t3/b", allowed: false),
    AdminRow("refused: dave makes /t/s explicit", .dave, .makeExplicit, "/t/s", allowed: false),
    AdminRow("refused: dave removes the ACLs of /t", .dave, .removeACLs, "/t", allowed: false),
    AdminRow("refused: bob removes the ACLs of /t/s (he owns only /t/s/g)", .bob, .removeACLs, "/t/s", allowed: false),
    AdminRow("refused: dave copies the permissions of /t", .dave, .copyPermissions, "/t", allowed: false),
    AdminRow("refused: bob copies the permissions of /t/s", .bob, .copyPermissions, "/t/s", allowed: false),
    AdminRow("refused: bob removes the ACLs of /t2 (dave's delegation is his alone)", .bob, .removeACLs, "/t2", allowed: false)
]

extension InheritanceTests {
    @Suite("inheritance: administrator operations")
    struct Admin {
        @Test(
            "propagate, inheritacl, makeexplicit, removeacls, copypermissions under macos and guide; authorized first",
            arguments: inheritanceAdminRows)
        func admin(_ row: AdminRow) {
            let all = AdminTree.paths
            for sem in [Semantics.macos, .guide] {
                let w0 = InhFixture.world
                var w = w0
                let what = "[\(sem.rawValue)] \(row.label)"
                let out = Mutator.apply(request(w, row.who, row.op, row.path), to: &w, semantics: sem)
                #expect(out.decision.allowed == row.allowed, "\(what): allowed = \(out.decision.allowed) (\(out.decision.rule.rawValue))")
                #expect(out.applied == row.allowed, "\(what): applied = \(out.applied)")
                let map = sem == .guide ? (row.guide ?? row.mac) : row.mac
                for p in all {
                    let n = w.lookup(p)!
                    let original = w0.acl(of: n)?.entries
                    var expected = original
                    if let e = map[p] { expected = e }
                    let got = w.acl(of: n)?.entries
                    #expect(got == expected, "\(what): \(p) is [\(aclText(got, in: w))], expected [\(aclText(expected, in: w))]")
                    let (eu, eg, em) = row.attrs[p].map { ($0.0.uid, $0.1, FileMode($0.2)) } ?? (w0[n].uid, w0[n].gid, w0[n].mode)
                    #expect(
                        w[n].uid == eu && w[n].gid == eg && w[n].mode == em,
                        "\(what): \(p) is \(w[n].uid):\(w[n].gid) \(w[n].mode.octal), expected \(eu):\(eg) \(em.octal)")
                }
            }
        }

        @Test(
            "linux: removeacls needs the owner or root (like setfacl, W1), and removes access and default ACLs below",
            arguments: [(IU.u1, true), (.root, true), (.u4, false), (.u2, false)])
        func linuxRemove(_ who: IU, _ allowed: Bool) {
            var w = InhFixture.world
            let out = Mutator.apply(request(w, who, .removeACLs, "/l/owned"), to: &w, semantics: .linux)
            #expect(out.decision.allowed == allowed && out.applied == allowed, "\(who): allowed \(out.decision.allowed)")
            if !allowed { #expect(out.decision.errno == .EPERM, "\(who): errno \(String(describing: out.decision.errno))") }
            let f = w.lookup("/l/owned/f")!, s = w.lookup("/l/owned/s")!
            #expect((w.posixACL(of: f) == nil) == allowed, "\(who): /l/owned/f access ACL")
            #expect((w.posixACL(of: s) == nil) == allowed, "\(who): /l/owned/s access ACL")
            #expect((w.defaultPOSIXACL(of: s) == nil) == allowed, "\(who): /l/owned/s default ACL")
        }
    }
}

// MARK: - Table 7: Figure B-1, stage by stage

// A = read/write for admin, B = full control for admin, C = full control for writers, all
// "inheritable by all children" (file_inherit, directory_inherit). The stage-3 table of the seed
// swaps the File 1 and Subdirectory 2 rows (fixtures/examples/figure-b1/README.md); stage 4
// confirms Subdirectory 2 keeps its explicit C. Sets in the figure are checked in stored order:
// explicit first, then the parent's entries in the parent's order.

private let figA = allow(.group(IG.admin), [.readData, .writeData], [F, D])
private let figB = allow(.group(IG.admin), AccessRights.aceRights, [F, D])
private let figC = allow(.group(IG.writers), AccessRights.aceRights, [F, D])

extension InheritanceTests {
    @Suite("inheritance: Figure B-1")
    struct FigureB1 {
        @Test(
            "the guide's Figure B-1: build the tree by creation, apply C, propagate, replace A by B, propagate",
            arguments: [Semantics.macos, .guide])
        func figure(_ sem: Semantics) {
            let d0 = "/Directory 0", f0 = d0 + "/File 0", s1 = d0 + "/Subdirectory 1", f1 = s1 + "/File 1"
            let s2 = d0 + "/Subdirectory 2", s3 = s2 + "/Subdirectory 3", s4 = s2 + "/Subdirectory 4", f2 = s4 + "/File 2"
            // a directory's copy keeps both flags; a file's copy loses them under macos, keeps them under the guide
            func dir(_ a: ACE) -> ACE { with(a, [I, F, D]) }
            func file(_ a: ACE) -> ACE { with(a, sem == .guide ? [I, F, D] : I) }

            var w = InhFixture.world
            w.addNode(path: d0, type: .dir, uid: 0, gid: IG.wheel, mode: FileMode(0o755), acl: ACL([figA]))
            func step(_ op: FSPolicy.Operation, _ p: String, acl: [ACE]? = nil) {
                let o = Mutator.apply(
                    request(w, .root, op, p, mode: op == .mkdir ? 0o777 : op == .create ? 0o666 : nil, acl: acl),
                    to: &w, semantics: sem)
                #expect(o.applied, "[\(sem.rawValue)] \(op.word) \(p) not applied")
            }
            func stage(_ n: String, _ expected: [(String, [ACE])]) {
                for (p, e) in expected {
                    let got = w.lookup(p).flatMap { w.acl(of: $0)?.entries }
                    #expect(got == e, "[\(sem.rawValue)] \(n): \(p) is [\(aclText(got, in: w))], expected [\(aclText(e, in: w))]")
                }
            }
            step(.create, f0); step(.mkdir, s1); step(.create, f1); step(.mkdir, s2); step(.mkdir, s3); step(.mkdir, s4); step(.create, f2)
            stage(
                "first table",
                [
                    (d0, [figA]), (f0, [file(figA)]), (s1, [dir(figA)]), (f1, [file(figA)]), (s2, [dir(figA)]),
                    (s3, [dir(figA)]), (s4, [dir(figA)]), (f2, [file(figA)])
                ])
            step(.setacl, s2, acl: [figC, dir(figA)])
            stage(
                "stage 1",
                [
                    (d0, [figA]), (f0, [file(figA)]), (s1, [dir(figA)]), (f1, [file(figA)]), (s2, [figC, dir(figA)]),
                    (s3, [dir(figA)]), (s4, [dir(figA)]), (f2, [file(figA)])
                ])
            step(.propagate, s2)
            stage(
                "stage 2",
                [
                    (d0, [figA]), (f0, [file(figA)]), (s1, [dir(figA)]), (f1, [file(figA)]), (s2, [figC, dir(figA)]),
                    (s3, [dir(figC), dir(figA)]), (s4, [dir(figC), dir(figA)]), (f2, [file(figC), file(figA)])
                ])
            step(.setacl, d0, acl: [figB])
            stage(
                "stage 3",
                [
                    (d0, [figB]), (f0, [file(figA)]), (s1, [dir(figA)]), (f1, [file(figA)]), (s2, [figC, dir(figA)]),
                    (s3, [dir(figC), dir(figA)]), (s4, [dir(figC), dir(figA)]), (f2, [file(figC), file(figA)])
                ])
            step(.propagate, d0)
            stage(
                "stage 4",
                [
                    (d0, [figB]), (f0, [file(figB)]), (s1, [dir(figB)]), (f1, [file(figB)]), (s2, [figC, dir(figB)]),
                    (s3, [dir(figC), dir(figB)]), (s4, [dir(figC), dir(figB)]), (f2, [file(figC), file(figB)])
                ])
        }
    }
}

// MARK: - Table 8: a move does not re-inherit (macos §3.9; the guide: a moved file is not
// duplicated, so it inherits nothing until an administrator propagates)

struct MoveRow: Sendable, CustomTestStringConvertible {
    var label: String
    var from: String
    var to: String
    /// path after the move → the ACL it must still carry
    var expect: [(String, [ACE]?)]
    var testDescription: String { label }
}

let inheritanceMoveRows: [MoveRow] = [
    MoveRow(
        label: "a file moved under /t3 keeps its explicit and its stale inherited entries", from: "/t/f", to: "/t3/f",
        expect: [("/t3/f", [fX, staleFile])]),
    MoveRow(
        label: "a directory moved under /t3 keeps its ACL, and so does everything in it", from: "/t/s", to: "/t3/s",
        expect: [("/t3/s", [sA, sD, staleDir]), ("/t3/s/g", [gX, staleFile]), ("/t3/s/u", nil), ("/t3/s/u/h", [])]),
    MoveRow(
        label: "a file without an ACL moved into a directory with inheritable entries stays without one", from: "/t2/f",
        to: "/t3/f2", expect: [("/t3/f2", nil)])
]

extension InheritanceTests {
    @Suite("inheritance: moves")
    struct Moves {
        @Test("rename keeps the ACL as it is under macos and guide", arguments: inheritanceMoveRows)
        func move(_ row: MoveRow) {
            for sem in [Semantics.macos, .guide] {
                var w = InhFixture.world
                let n0 = w.lookup(row.from)!
                let (u, g, m) = (w[n0].uid, w[n0].gid, w[n0].mode)
                var r = request(w, .root, .rename, row.from)
                r.to = row.to
                let out = Mutator.apply(r, to: &w, semantics: sem)
                #expect(out.applied, "[\(sem.rawValue)] \(row.label): not applied")
                #expect(w.lookup(row.from) == nil && w.lookup(row.to) == n0, "[\(sem.rawValue)] \(row.label): not moved")
                #expect(w[n0].uid == u && w[n0].gid == g && w[n0].mode == m, "[\(sem.rawValue)] \(row.label): attributes changed")
                for (p, e) in row.expect {
                    let got = w.lookup(p).flatMap { w.acl(of: $0)?.entries }
                    #expect(
                        w.lookup(p) != nil && got == e,
                        "[\(sem.rawValue)] \(row.label): \(p) is [\(aclText(got, in: w))], expected [\(aclText(e, in: w))]")
                }
            }
        }
    }
}
