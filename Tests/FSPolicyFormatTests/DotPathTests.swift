import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

// `.` and `..` in request paths (rule O12) and the refusals of a last `.` or `..` (O11, O13)
// under each rule set. The Linux answers are the kernel's (DotPathDifferentialTests); these pin
// the macOS ones and what the loader and the trace make of such paths.
@Suite("`.` and `..` in request paths")
struct DotPathTests {
    static func policy(_ semantics: String, _ expect: [String]) -> Policy {
        PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: \(semantics)
                groups: {staff: {gid: 20}}
                users:
                  ann: {uid: 501, group: staff}
                  bob: {uid: 502, group: staff}
                tree:
                  /srv: {type: dir, mode: "0755"}
                  /srv/pub: {type: dir, owner: ann, group: staff, mode: "0755"}
                  /srv/pub/n1: {type: dir, owner: ann, group: staff, mode: "0755"}
                  /srv/pub/f: {owner: ann, group: staff, mode: "0644"}
                  /srv/pub/jump: {type: symlink, owner: ann, group: staff, target: /data/in}
                  /data: {type: dir, mode: "0755"}
                  /data/f: {mode: "0600"}
                  /data/in: {type: dir, owner: ann, group: staff, mode: "0755"}
                expect:
                \(expect.map { "  - " + $0 }.joined(separator: "\n"))
                """, file: "dots.yaml")
    }

    static func outcomes(_ semantics: String, _ expect: [String]) -> [ExpectationOutcome] {
        let p = policy(semantics, expect)
        #expect(p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        return p.expectations.map { ev.check($0) }
    }

    @Test("`..` is taken physically, after the symlink before it, and `..` of / is /, under every rule set")
    func physicalDotDot() {
        for sem in ["macos", "guide", "linux"] {
            let o = DotPathTests.outcomes(
                sem,
                [
                    "{as: ann, op: read, path: /srv/pub/jump/../f, result: deny, errno: EACCES}",
                    "{as: ann, op: read, path: /srv/pub/n1/../f, result: allow}",
                    "{as: ann, op: stat, path: /../../srv/./pub/.., result: allow}",
                    "{as: ann, op: read, path: /srv/pub/f/../f, result: deny, errno: ENOTDIR}"
                ])
            for x in o { #expect(x.passed, "\(sem): \(x.expectation.request.path): \(x.mismatches)") }
        }
    }

    @Test("macos and guide: a source `.` or `..` is EINVAL after the rename's permission checks; removing `..` is ENOTEMPTY after the delete check")
    func macOSRefusals() {
        for sem in ["macos", "guide"] {
            let o = DotPathTests.outcomes(
                sem,
                [
                    // bob may not write /srv/pub: the permission check answers first.
                    "{as: bob, op: rename, path: /srv/pub/n1/., to: /srv/x, result: deny, errno: EACCES}",
                    "{as: root, op: rename, path: /srv/pub/n1/., to: /srv/x, result: deny, errno: EINVAL, layer: type}",
                    "{as: bob, op: delete, path: /srv/pub/n1/.., result: deny, errno: EACCES}",
                    "{as: root, op: delete, path: /srv/pub/n1/.., result: deny, errno: ENOTEMPTY, layer: type}",
                    "{as: root, op: delete, path: /srv/pub/n1/., result: deny, errno: EINVAL, layer: type}"
                ])
            for x in o { #expect(x.passed, "\(sem): \(x.expectation.request.op.word) \(x.expectation.request.path): \(x.mismatches)") }
        }
    }

    @Test("linux: a last `.` or `..` on either side of a rename is EBUSY before any permission check; rmdir of `..` ENOTEMPTY")
    func linuxRefusals() {
        let o = DotPathTests.outcomes(
            "linux",
            [
                "{as: bob, op: rename, path: /srv/pub/n1/., to: /srv/x, result: deny, errno: EBUSY, layer: type}",
                "{as: bob, op: rename, path: /srv/pub/f, to: /srv/pub/n1/.., result: deny, errno: EBUSY, layer: type}",
                "{as: bob, op: rename, path: /srv/pub/missing, to: /srv/pub/n1/., result: deny, errno: EBUSY, layer: type}",
                "{as: bob, op: delete, path: /srv/pub/n1/.., result: deny, errno: ENOTEMPTY, layer: type}",
                "{as: root, op: link, path: /srv/pub/f, to: /srv/pub/n1/.., result: deny, errno: EEXIST}"
            ])
        for x in o { #expect(x.passed, "\(x.expectation.request.op.word) \(x.expectation.request.path): \(x.mismatches)") }
    }

    @Test("the request keeps `..` and a last `.` (path and to); the tree still refuses `..`")
    func loaderKeepsDots() {
        let p = DotPathTests.policy("linux", ["{as: ann, op: rename, path: /srv//pub/./n1/.., to: /srv/pub/n1/., result: deny}"])
        #expect(p.diagnostics.items.isEmpty)
        #expect(p.expectations.first?.request.path == "/srv/pub/n1/..")
        #expect(p.expectations.first?.request.to == "/srv/pub/n1/.")
        let bad = PolicyLoader.load(text: "fspolicy: 1\ntree:\n  /a/../b: {}\n", file: "t.yaml")
        #expect(bad.diagnostics.sorted.contains { $0.code == "bad-path" && $0.location.line == 3 })
    }

    @Test("explain shows each `..` as a step: where the walk was and where it went")
    func traceStep() throws {
        let p = DotPathTests.policy("linux", [])
        let ev = Evaluator(policy: p)
        let d = ev.decide(RequestSpec(op: .read, path: "/srv/pub/jump/../f"), uid: 501)
        let lines = TextRenderer(policy: p).trace(d)
        let step = try #require(lines.first { $0.contains("traversal.dot-dot") })
        #expect(step.contains("`..` of /data/in is /data"), "\(step)")
        #expect(d.rule == .otherBitsMissing)
    }
}

// `unlink` and `rmdir` (rules O14, O15) beside `delete`, under each rule set. The Linux answers
// are the kernel's (DifferentialTests, MountDifferentialTests ask both of every kind of node).
@Suite("unlink and rmdir")
struct UnlinkRmdirTests {
    @Test("macos and guide: unlink of a directory EPERM and rmdir of a file ENOTDIR, before the delete right")
    func bsd() {
        for sem in ["macos", "guide"] {
            let o = DotPathTests.outcomes(
                sem,
                [
                    // bob may not write /srv/pub: the type comes first.
                    "{as: bob, op: unlink, path: /srv/pub/n1, result: deny, errno: EPERM, layer: type}",
                    "{as: bob, op: rmdir, path: /srv/pub/f, result: deny, errno: ENOTDIR, layer: type}",
                    "{as: bob, op: rmdir, path: /srv/pub/n1, result: deny, errno: EACCES}",
                    "{as: ann, op: rmdir, path: /srv/pub/n1, result: allow}",
                    "{as: ann, op: unlink, path: /srv/pub/f, result: allow}",
                    "{as: ann, op: unlink, path: /srv/pub/jump, result: allow}",
                    "{as: root, op: rmdir, path: /srv/pub/n1/., result: deny, errno: EINVAL}",
                    "{as: root, op: delete, path: /srv/pub/n1, result: allow}"
                ])
            for x in o { #expect(x.passed, "\(sem): \(x.expectation.request.op.word) \(x.expectation.request.path): \(x.mismatches)") }
        }
    }

    @Test("linux: the type after may_delete; a last `.`, `..` or a trailing slash before it")
    func linux() {
        let o = DotPathTests.outcomes(
            "linux",
            [
                "{as: bob, op: unlink, path: /srv/pub/n1, result: deny, errno: EACCES}",
                "{as: ann, op: unlink, path: /srv/pub/n1, result: deny, errno: EISDIR, layer: type}",
                "{as: bob, op: unlink, path: /srv/pub/n1/, result: deny, errno: EISDIR, layer: type}",
                "{as: bob, op: unlink, path: /srv/pub/f/, result: deny, errno: ENOTDIR}",
                "{as: bob, op: unlink, path: /srv/pub/n1/., result: deny, errno: EISDIR}",
                "{as: bob, op: rmdir, path: /srv/pub/f, result: deny, errno: EACCES}",
                "{as: ann, op: rmdir, path: /srv/pub/f/, result: deny, errno: ENOTDIR, layer: type}",
                "{as: ann, op: rmdir, path: /srv/pub/jump/, result: deny, errno: ENOTDIR, layer: type}",
                "{as: ann, op: rmdir, path: /srv/pub/n1/, result: allow}",
                "{as: bob, op: rmdir, path: /srv/pub/n1/.., result: deny, errno: ENOTEMPTY}"
            ])
        for x in o { #expect(x.passed, "\(x.expectation.request.op.word) \(x.expectation.request.path): \(x.mismatches)") }
    }

    @Test("a step that unlinks or removes a directory takes the name away")
    func steps() {
        let p = PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: linux
                users: {ann: {uid: 501}}
                tree:
                  /srv: {type: dir, owner: ann, mode: "0755"}
                  /srv/f: {owner: ann, mode: "0644"}
                  /srv/d: {type: dir, owner: ann, mode: "0755"}
                steps:
                  - {as: ann, op: unlink, path: /srv/f}
                  - {as: ann, op: rmdir, path: /srv/d}
                expect:
                  - {as: ann, op: stat, path: /srv/f, result: deny, errno: ENOENT, after: 1}
                  - {as: ann, op: stat, path: /srv/d, result: allow, after: 1}
                  - {as: ann, op: stat, path: /srv/d, result: deny, errno: ENOENT, after: 2}
                """, file: "steps.yaml")
        #expect(p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        for e in p.expectations { #expect(ev.check(e).passed, "\(e.request.path): \(ev.check(e).mismatches)") }
    }
}

// A credential of one call: `groups:` and `umask:` on an expectation or a step (the kernel's
// answers: CredentialDifferentialTests).
@Suite("Per-call groups and umask")
struct PerCallCredentialTests {
    static let text = """
        fspolicy: 1
        semantics: SEM
        groups: {staff: {gid: 20}, build: {gid: 30}}
        users:
          ann: {uid: 501, group: staff, groups: [build]}
        tree:
          /srv: {type: dir, mode: "0777"}
          /srv/b: {owner: root, group: build, mode: "0660"}
        steps:
          - {as: ann, op: create, path: /srv/tight, mode: "0666", umask: "077"}
          - {as: ann, op: create, path: /srv/open, mode: "0666"}
        expect:
          - {as: ann, op: read, path: /srv/b, result: allow}
          - {as: ann, op: read, path: /srv/b, groups: [], result: deny, errno: EACCES}
          - {as: ann, op: read, path: /srv/b, groups: [30], result: allow}
          - {path: /srv/tight, state: {mode: "0600"}}
          - {path: /srv/open, state: {mode: "0644"}}
        """

    @Test("groups replace the user's supplementary groups for that call only; umask the user's umask", arguments: ["linux", "macos"])
    func keys(_ sem: String) {
        let p = PolicyLoader.load(text: PerCallCredentialTests.text.replacingOccurrences(of: "SEM", with: sem), file: "cred.yaml")
        #expect(p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        for e in p.expectations { #expect(ev.check(e).passed, "\(sem) \(e.location.line): \(ev.check(e).mismatches)") }
    }

    @Test("an unknown group in `groups` is an error at its place, with a hint")
    func unknownGroup() {
        let p = PolicyLoader.load(
            text: PerCallCredentialTests.text.replacingOccurrences(of: "SEM", with: "linux")
                .replacingOccurrences(of: "groups: [30]", with: "groups: [biuld]"), file: "cred.yaml")
        let d = p.diagnostics.sorted.first { $0.code == "unknown-group" }
        #expect(d?.location.line == 15, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(d?.help?.contains("build") == true)
    }
}
