import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Testing

/// Quantified expectations: each subject quantifier and each pattern form, the errors that
/// keep them from passing vacuously, the counterexamples and `fmt`.
@Suite("Quantified expectations")
struct QuantifiedExpectationTests {
    /// alice (staff, directly), bob (design, nested in staff), carol (no group), root. Under
    /// macos bob is in staff through nesting; under linux he is not.
    static func policy(_ semantics: String, _ expect: String, steps: String = "") -> Policy {
        PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: \(semantics)
                groups:
                  design: {gid: 701, members: [bob]}
                  staff: {gid: 20, members: [alice], groups: [design]}
                  nobody-here: {gid: 800}
                users:
                  alice: {uid: 501, group: staff}
                  bob: {uid: 502, group: design}
                  carol: {uid: 503, group: 900}
                tree:
                  /srv: {type: dir, mode: "0755"}
                  /srv/team: {type: dir, owner: alice, group: staff, mode: "0770"}
                  /srv/team/a.txt: {owner: alice, group: staff, mode: "0660"}
                  /srv/team/b.md: {owner: alice, group: staff, mode: "0660"}
                  /srv/team/sub/c.txt: {owner: alice, group: staff, mode: "0664"}
                  /srv/pub/d.txt: {owner: carol, group: 900, mode: "0644"}
                \(steps)
                expect:
                  - \(expect)
                """, file: "q.yaml")
    }

    static func outcome(_ semantics: String, _ expect: String, max: Int = 5) -> ExpectationOutcome? {
        let p = policy(semantics, expect)
        guard p.diagnostics.items.isEmpty, let e = p.expectations.first else { return nil }
        var ev = Evaluator(policy: p)
        ev.maxExamples = max
        return ev.check(e)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let semantics: String
        let expect: String
        /// (user, path) pairs checked and how many fail.
        let pairs: Int
        let failing: Int
        var testDescription: String { semantics + " " + expect }
    }

    static let cases: [Case] = [
        // `*`: every declared user, root included.
        Case(semantics: "linux", expect: #"{as: "*", op: read, path: /srv/pub/d.txt, result: allow}"#, pairs: 4, failing: 0),
        Case(semantics: "linux", expect: #"{as: "*", op: write, path: /srv/pub/d.txt, result: deny}"#, pairs: 4, failing: 2),
        // `except` removes subjects.
        Case(semantics: "linux", expect: #"{as: "*", except: [root, carol], op: write, path: /srv/pub/d.txt, result: deny}"#, pairs: 2, failing: 0),
        // `group:NAME`: nested membership counts under macos, not under linux.
        Case(semantics: "macos", expect: "{as: group:staff, op: read, path: /srv/team/a.txt, result: allow}", pairs: 2, failing: 0),
        Case(semantics: "linux", expect: "{as: group:staff, op: read, path: /srv/team/a.txt, result: allow}", pairs: 1, failing: 0),
        Case(semantics: "macos", expect: "{as: group:staff, except: [alice], op: read, path: /srv/team/a.txt, result: deny}", pairs: 1, failing: 1),
        // `users:` a list.
        Case(semantics: "linux", expect: "{users: [bob, carol], op: read, path: /srv/team/a.txt, result: deny}", pairs: 2, failing: 0),
        Case(semantics: "linux", expect: "{users: [alice, carol], op: read, path: /srv/team/a.txt, result: deny}", pairs: 2, failing: 1),
        // `*` within one name.
        Case(semantics: "linux", expect: #"{as: alice, op: write, path: "/srv/team/*.txt", result: allow}"#, pairs: 1, failing: 0),
        Case(semantics: "linux", expect: #"{as: carol, op: read, path: "/srv/team/*", result: deny}"#, pairs: 3, failing: 0),
        // `**` across levels, the directory itself included (zero components).
        Case(semantics: "linux", expect: #"{as: carol, op: read, path: "/srv/team/**", result: deny}"#, pairs: 5, failing: 0),
        Case(semantics: "linux", expect: #"{as: carol, op: read, path: "/srv/**/*.txt", result: deny}"#, pairs: 3, failing: 1),
        // `{a,b}` alternatives.
        Case(semantics: "linux", expect: #"{as: alice, op: read, path: "/srv/team/{a.txt,b.md}", result: allow}"#, pairs: 2, failing: 0),
        Case(semantics: "linux", expect: #"{as: "*", op: read, path: "/srv/{team,pub}/*.txt", result: allow}"#, pairs: 8, failing: 2),
        // `type:` narrows.
        Case(semantics: "linux", expect: #"{as: carol, op: read, path: "/srv/**", type: dir, result: allow}"#, pairs: 4, failing: 2),
        Case(semantics: "linux", expect: #"{as: carol, op: read, path: "/srv/**", type: file, result: deny}"#, pairs: 4, failing: 1),
        // errno and layer are checked on every pair too.
        Case(
            semantics: "linux", expect: #"{users: [carol], op: read, path: "/srv/team/*.txt", result: deny, errno: EACCES, layer: traversal}"#, pairs: 1,
            failing: 0),
        Case(semantics: "linux", expect: #"{users: [carol], op: read, path: "/srv/team/**", result: deny, layer: traversal}"#, pairs: 5, failing: 1)
    ]

    @Test("each quantifier and pattern form checks every (subject, path) pair", arguments: cases)
    func table(_ c: Case) throws {
        let p = Self.policy(c.semantics, c.expect)
        #expect(p.diagnostics.items.isEmpty, "\(p.diagnostics.items.map(\.message))")
        let o = try #require(Self.outcome(c.semantics, c.expect))
        #expect(o.pairsChecked == c.pairs)
        #expect(o.counterexampleCount == c.failing)
        #expect(o.passed == (c.failing == 0))
        #expect(o.counterexamples.count == c.failing)
        // Each counterexample is what Authorizer.decide says for that one question.
        let ev = Evaluator(policy: p)
        for x in o.counterexamples {
            var spec = p.expectations[0].request
            spec.path = x.path
            let d = ev.decide(spec, uid: x.uid)
            #expect(d.allowed == x.decision.allowed && d.rule == x.decision.rule)
            #expect(o.mismatches.contains { $0.hasPrefix("\(x.user) \(spec.op.word) \(x.path): ") })
        }
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let expect: String
        let code: String
        var testDescription: String { expect }
    }

    static let bad: [Bad] = [
        Bad(expect: "{as: group:nobody-here, op: read, path: /srv, result: deny}", code: "no-subjects"),
        Bad(expect: #"{as: "*", except: [root, alice, bob, carol], op: read, path: /srv, result: deny}"#, code: "no-subjects"),
        Bad(expect: "{users: [], op: read, path: /srv, result: deny}", code: "no-subjects"),
        Bad(expect: #"{as: alice, op: read, path: "/srv/nothing/*", result: deny}"#, code: "no-match"),
        Bad(expect: #"{as: alice, op: read, path: "/srv/**", type: symlink, result: deny}"#, code: "no-match"),
        Bad(expect: "{as: group:nope, op: read, path: /srv, result: deny}", code: "unknown-group"),
        Bad(expect: #"{as: alice, op: read, path: "/srv/{a", result: deny}"#, code: "bad-pattern"),
        Bad(expect: #"{as: alice, op: read, path: "/srv/**x", result: deny}"#, code: "bad-pattern"),
        // Braces multiply: 2^11 = 2,048 paths, over the limit of 1,024 (fuzzing: forty groups of
        // alternatives in one quoted path took minutes).
        Bad(expect: #"{as: alice, op: read, path: "/srv/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", result: deny}"#, code: "bad-pattern"),
        Bad(expect: "{as: alice, op: read, path: /srv, type: file, result: deny}", code: "unused-key"),
        Bad(expect: "{as: alice, except: [bob], op: read, path: /srv, result: deny}", code: "unused-key"),
        Bad(expect: "{as: alice, users: [bob], op: read, path: /srv, result: deny}", code: "conflicting-keys"),
        Bad(expect: "{users: [bob, mallory], op: read, path: /srv, result: deny}", code: "unknown-subject"),
        Bad(expect: #"{op: read, path: "/srv/*", allowed: [alice]}"#, code: "conflicting-keys"),
        Bad(expect: #"{as: alice, op: rename, path: "/srv/*", to: /x, result: deny}"#, code: "conflicting-keys")
    ]

    @Test("quantifiers over nothing, and malformed ones, are errors with a location", arguments: bad)
    func errors(_ b: Bad) {
        let p = Self.policy("linux", b.expect)
        let errs = p.diagnostics.items.filter { $0.severity == .error }
        #expect(errs.contains { $0.code == b.code }, "\(errs.map { $0.code + ": " + $0.message })")
        #expect(errs.allSatisfy { $0.location.line > 0 })
        #expect(p.expectations.isEmpty)
    }

    @Test("braces stand for at most 1,024 paths; the expansion stops there, however many groups")
    func braceLimit() throws {
        #expect(try PathGlob.parse("/srv/" + String(repeating: "{a,b}", count: 10)).get().alternatives.count == 1_024)
        guard case .failure(let e) = PathGlob.parse("/srv/" + String(repeating: "{a,b}", count: 11)) else { Issue.record("accepted"); return }
        #expect(e.message.contains("1,024"))
        // Sixty groups stand for 3^60 paths: refused after 1,025 of them, not expanded (the
        // test would not end otherwise).
        guard case .failure = PathGlob.parse("/x/" + String(repeating: "{a,b,c}", count: 60)) else { Issue.record("accepted"); return }
    }

    @Test("a pattern that matches nothing after the steps fails at check time (not a pass)")
    func emptyAfterSteps() throws {
        let p = Self.policy(
            "linux", #"{as: alice, op: read, path: "/srv/pub/*", result: deny}"#,
            steps: "steps:\n  - {as: root, op: delete, path: /srv/pub/d.txt}")
        #expect(p.diagnostics.items.filter { $0.severity == .error }.isEmpty)
        let o = Evaluator(policy: p).check(try #require(p.expectations.first))
        #expect(!o.passed)
        #expect(o.pairsChecked == 0)
        #expect(o.mismatches.contains { $0.contains("matches no node") })
    }

    @Test("the first --max-examples counterexamples are explained; all are counted")
    func maxExamples() throws {
        let e = #"{as: "*", op: read, path: "/srv/**", result: deny}"#
        let few = try #require(Self.outcome("linux", e, max: 2))
        let all = try #require(Self.outcome("linux", e, max: 100))
        #expect(few.counterexampleCount == all.counterexampleCount)
        #expect(all.counterexampleCount > 2)
        #expect(few.counterexamples.count == 2)
        #expect(all.counterexamples.count == all.counterexampleCount)
        #expect(few.mismatches.last?.contains("and \(all.counterexampleCount - 2) more") == true)
        #expect(few.mismatches.first == "\(all.counterexampleCount) of \(all.pairsChecked) (user, path) pairs fail")
    }

    @Test(
        "patterns: each form against a fixed tree",
        arguments: [
            ("/srv/*", ["/srv/team", "/srv/pub"]),
            ("/srv/team/*.txt", ["/srv/team/a.txt"]),
            ("/srv/**/*.txt", ["/srv/pub/d.txt", "/srv/team/a.txt", "/srv/team/sub/c.txt"]),
            ("/**/c.txt", ["/srv/team/sub/c.txt"]),
            ("/srv/{pub,team/sub}/*", ["/srv/pub/d.txt", "/srv/team/sub/c.txt"]),
            ("/srv/team/{a,b}.*", ["/srv/team/a.txt", "/srv/team/b.md"]),
            ("/srv/t*m/*b*", ["/srv/team/b.md", "/srv/team/sub"]),
            ("/srv/*/", ["/srv/pub", "/srv/team"])
        ])
    func patterns(_ pattern: String, _ expected: [String]) throws {
        let p = Self.policy("linux", "{as: alice, op: read, path: /srv, result: allow}")
        let g = try PathGlob.parse(pattern).get()
        let got = g.matches(in: p.world).map { p.world.path(of: $0) }
        #expect(Set(got) == Set(expected))
        #expect(got.count == expected.count)
    }

    @Test("fmt keeps the quantified forms, and the result loads to the same expectations")
    func fmtKeeps() throws {
        let src = Self.policyText
        let out = try Formatter.format(src, file: "q.yaml").get()
        for form in [#"as: "*""#, "except: [root]", "as: group:staff", "users: [alice, bob]", #"path: "/srv/{team,pub}/**""#, "type: file"] {
            #expect(out.contains(form), "\(form) lost:\n\(out)")
        }
        let a = PolicyLoader.load(text: src, file: "q.yaml"), b = PolicyLoader.load(text: out, file: "q.yaml")
        #expect(a.expectations.map(\.label) == b.expectations.map(\.label))
        #expect(b.diagnostics.items.isEmpty)
    }

    static let policyText = """
        fspolicy: 1
        semantics: linux
        groups:
          staff: {gid: 20, members: [alice]}
        users:
          alice: {uid: 501, group: staff}
          bob: {uid: 502}
        tree:
          /srv/team/a.txt: {owner: alice, group: staff, mode: "0660"}
        expect:
          - as: "*"
            except: [root]
            op: read
            path: "/srv/{team,pub}/**"
            type: file
            result: deny
          - {as: group:staff, op: read, path: /srv/team/a.txt, result: allow}
          - {users: [alice, bob], op: write, path: /srv/team/a.txt, result: deny}
        """
}
