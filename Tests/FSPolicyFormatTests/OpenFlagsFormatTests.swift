import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import Testing

/// `op: open` with `flags:` in a policy file (docs/policy-format.md, rule O21): what is read,
/// and what is refused with a location and a hint.
@Suite("open flags in the policy format")
struct OpenFlagsFormatTests {
    static func policy(_ semantics: String, _ expect: String) -> Policy {
        PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: \(semantics)
                groups:
                  staff: {gid: 100}
                users:
                  ann: {uid: 3301, group: staff}
                tree:
                  /srv: {type: dir, owner: root, mode: "0755"}
                  /srv/f: {owner: ann, mode: "0644"}
                expect:
                  - \(expect)

                """, file: "open.yaml")
    }

    @Test func flagsAreRead() throws {
        let p = Self.policy("linux", "{as: ann, op: open, path: /srv/f, flags: [O_RDONLY, O_TRUNC, o_nofollow], result: allow}")
        #expect(p.diagnostics.items.filter { $0.severity == .error }.isEmpty, "\(p.diagnostics.items.map(\.message))")
        let e = try #require(p.expectations.first)
        #expect(e.request.op == .open && e.request.openFlags == [.trunc, .nofollow])
        // Without `flags:`, O_RDONLY: what `read` asks.
        let plain = Self.policy("linux", "{as: ann, op: open, path: /srv/f, result: allow}")
        #expect(try #require(plain.expectations.first).request.openFlags == nil)
        #expect(Evaluator(policy: plain).checkAll().passed == 1)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var semantics = "linux"
        var expect: String
        var code: String
        var message: String
        var testDescription: String { expect }
    }

    static let bad: [Bad] = [
        Bad(expect: "{as: ann, op: open, path: /srv/f, flags: [O_WRONLY, O_RDWR], result: allow}", code: "conflicting-keys", message: "two access modes"),
        Bad(expect: "{as: ann, op: open, path: /srv/f, flags: [O_RDONLY, O_CLOEXEC], result: allow}", code: "bad-flag", message: "changes nothing"),
        Bad(expect: "{as: ann, op: open, path: /srv/f, flags: [O_TRUNK], result: allow}", code: "bad-flag", message: "unknown open flag"),
        Bad(semantics: "macos", expect: "{as: ann, op: open, path: /srv/f, flags: [O_PATH], result: allow}", code: "not-for-macos", message: "O_PATH"),
        Bad(expect: "{as: ann, op: read, path: /srv/f, flags: [O_TRUNC], result: allow}", code: "unused-key", message: "`flags` has no meaning")
    ]

    @Test("bad open flags are errors with a location and a hint", arguments: bad)
    func errors(_ b: Bad) {
        let p = Self.policy(b.semantics, b.expect)
        let errs = p.diagnostics.items.filter { $0.severity == .error }
        #expect(errs.contains { $0.code == b.code && $0.message.contains(b.message) }, "\(errs.map { $0.code + ": " + $0.message })")
        #expect(errs.allSatisfy { $0.location.line > 0 && $0.location.column > 0 })
    }

    @Test("a suggestion for a near miss")
    func hint() {
        let p = Self.policy("linux", "{as: ann, op: open, path: /srv/f, flags: [O_TRUNK], result: allow}")
        #expect(p.diagnostics.items.contains { $0.help == "did you mean `O_TRUNC`?" })
    }
}
