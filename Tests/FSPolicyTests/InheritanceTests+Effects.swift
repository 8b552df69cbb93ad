import FSPolicy
import Testing

// The creations' effects and refusals (continued from InheritanceTests.swift; sources as
// listed there).

private let F: ACEFlags = .F, D: ACEFlags = .D, L: ACEFlags = .L, O: ACEFlags = .O, I: ACEFlags = .I

// MARK: - Table 4: the copies are effective (decisions on what was just created)

struct AfterRow: Sendable, CustomTestStringConvertible {
    var label: String
    var sem: Semantics
    var parentACL: [ACE]?
    var before: [Pre]
    var who: IU
    var op: FSPolicy.Operation
    var path: String
    var expect: Expect
    var testDescription: String { "[\(sem.rawValue)] \(label)" }
}

let inheritanceAfterRows: [AfterRow] = [
    AfterRow(
        label: "Q3: acltu3 writes the Q1 file through user:acltu3:rwx (mask rw-)", sem: .linux, parentACL: nil,
        before: [Pre(.u1, .create, "/l/d_def/newf", mode: 0o666)], who: .u3, op: .write, path: "/l/d_def/newf",
        expect: .allow(.acl, .linuxNamedUser)),
    AfterRow(
        label: "Q4: acltu4 cannot read the Q1 file (other::---)", sem: .linux, parentACL: nil,
        before: [Pre(.u1, .create, "/l/d_def/newf", mode: 0o666)], who: .u4, op: .read, path: "/l/d_def/newf",
        expect: .deny(.EACCES, .acl, .linuxACLOther)),
    AfterRow(
        label: "an inherit-only allow becomes effective on the copy: bob reads erin's 0600 file", sem: .macos,
        parentACL: [allow(iu(.bob), .readData, [F, O])], before: [Pre(.erin, .create, "/p/f", mode: 0o666)],
        who: .bob, op: .read, path: "/p/f", expect: .allow(.acl, .aclAllowComplete)),
    AfterRow(
        label: "dave, not named, falls to the 0600 mode", sem: .macos,
        parentACL: [allow(iu(.bob), .readData, [F, O])], before: [Pre(.erin, .create, "/p/f", mode: 0o666)],
        who: .dave, op: .read, path: "/p/f", expect: .deny(.EACCES, .mode, .otherBitsMissing)),
    AfterRow(
        label: "the worked example's inherited devs deny stops bob deleting P/f although the dir is 0777", sem: .macos,
        parentACL: workedExampleACL, before: [Pre(.alice, .create, "/p/f", mode: 0o666)],
        who: .bob, op: .delete, path: "/p/f", expect: .deny(.EACCES, .acl, .deleteNodeACEDeny))
]

extension InheritanceTests {
    @Suite("inheritance: the copies are effective")
    struct After {
        @Test("decisions on a just-created node (Q3, Q4; only_inherit cleared on the copy)", arguments: inheritanceAfterRows)
        func after(_ row: AfterRow) {
            var w = InhFixture.world
            if row.sem != .linux {
                w.addNode(path: "/p", type: .dir, uid: 0, gid: IG.devs, mode: FileMode(0o777), acl: row.parentACL.map { ACL($0) })
            }
            runBefore(row.before, in: &w, row.sem, row.label)
            let d = Authorizer(world: w, semantics: row.sem).decide(request(w, row.who, row.op, row.path))
            let got = (d.allowed ? "allow" : "deny \(d.errno?.rawValue ?? "-")") + " [\(d.layer.rawValue)] \(d.rule.rawValue)"
            #expect(
                d.allowed == row.expect.allowed && d.errno == row.expect.errno && d.layer == row.expect.layer
                    && d.rule == row.expect.rule, "\(row.testDescription): got \(got), expected \(row.expect)")
        }
    }
}

// MARK: - Table 5: authorization first — refused creations change nothing

struct RefusedRow: Sendable, CustomTestStringConvertible {
    var label: String
    var sems: [Semantics]
    var parentMode: UInt16
    var parentACL: [ACE]?
    var who: IU
    var op: FSPolicy.Operation
    var path: String
    var testDescription: String { label }
}

let inheritanceRefusedRows: [RefusedRow] = [
    RefusedRow(
        label: "dave creates in a root:devs 0755 dir (other r-x)", sems: [.macos, .guide], parentMode: 0o755,
        parentACL: [allow(iu(.bob), .readData, [F, D])], who: .dave, op: .create, path: "/p/f"),
    RefusedRow(
        label: "dave makes a directory in a root:devs 0755 dir", sems: [.macos, .guide], parentMode: 0o755,
        parentACL: [allow(iu(.bob), .readData, [F, D])], who: .dave, op: .mkdir, path: "/p/s"),
    RefusedRow(
        label: "an inheritable deny add_file is also effective on the parent itself", sems: [.macos, .guide],
        parentMode: 0o777, parentACL: [deny(iu(.dave), .writeData, F)], who: .dave, op: .create, path: "/p/f"),
    RefusedRow(
        label: "an inheritable deny add_subdirectory stops mkdir", sems: [.macos, .guide], parentMode: 0o777,
        parentACL: [deny(iu(.dave), .appendData, D)], who: .dave, op: .mkdir, path: "/p/s"),
    RefusedRow(
        label: "linux: u4 creates in u1's 0755 dir", sems: [.linux], parentMode: 0, parentACL: nil,
        who: .u4, op: .create, path: "/l/owned/new"),
    RefusedRow(
        label: "linux: u2 (group r-x) makes a dir in u1's 0755 dir", sems: [.linux], parentMode: 0, parentACL: nil,
        who: .u2, op: .mkdir, path: "/l/owned/newd")
]

extension InheritanceTests {
    @Suite("inheritance: refused steps are not applied")
    struct Refused {
        @Test("a create or mkdir without the right: outcome denied, not applied, nothing created", arguments: inheritanceRefusedRows)
        func refused(_ row: RefusedRow) {
            for sem in row.sems {
                var w = InhFixture.world
                if sem != .linux {
                    w.addNode(
                        path: "/p", type: .dir, uid: 0, gid: IG.devs, mode: FileMode(row.parentMode),
                        acl: row.parentACL.map { ACL($0) })
                }
                let before = w.nodeCount
                let out = Mutator.apply(request(w, row.who, row.op, row.path, mode: 0o777), to: &w, semantics: sem)
                #expect(!out.decision.allowed, "[\(sem.rawValue)] \(row.label): allowed")
                #expect(out.decision.errno == .EACCES, "[\(sem.rawValue)] \(row.label): errno \(String(describing: out.decision.errno))")
                #expect(!out.applied, "[\(sem.rawValue)] \(row.label): applied")
                #expect(
                    out.created == nil && w.lookup(row.path) == nil && w.nodeCount == before,
                    "[\(sem.rawValue)] \(row.label): something was created")
            }
        }
    }
}
