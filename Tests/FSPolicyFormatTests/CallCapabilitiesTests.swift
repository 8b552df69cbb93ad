import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import Testing

/// `capabilities:` on an expectation or a step: the calling process's capabilities for that call
/// only (docs/policy-format.md), as `--caps` gives them to `can`. What each capability allows is
/// proven against the kernel by CapabilityDifferentialTests; here, that the key reaches the
/// decision, one call at a time, and that a mistake is reported where it is.
@Suite("capabilities of one call in a policy file")
struct CallCapabilitiesTests {
    static let head = """
        fspolicy: 1
        semantics: linux
        groups: {shadow: {gid: 42}, staff: {gid: 100}}
        users: {ann: {uid: 3201, group: staff}}
        tree:
          /etc: {type: dir, mode: "0755"}
          /etc/shadow: {owner: root, group: shadow, mode: "0640"}
          /etc/ann.key: {owner: ann, group: staff, mode: "0600"}
        """

    @Test("each call holds the capabilities it names, and only that call")
    func perCall() {
        let p = PolicyLoader.load(
            text: Self.head + """

                steps:
                  - {as: ann, op: chmod, path: /etc/shadow, mode: "0644", capabilities: [cap_fowner]}
                expect:
                  - {as: ann, op: read, path: /etc/shadow, capabilities: [cap_dac_read_search], result: allow, after: 0}
                  - {as: ann, op: read, path: /etc/shadow, result: deny, errno: EACCES, after: 0}
                  - {as: root, op: read, path: /etc/ann.key, capabilities: [], result: deny, errno: EACCES, after: 0}
                  - {as: root, op: read, path: /etc/ann.key, result: allow, after: 0}
                  - {as: ann, op: chmod, path: /etc/shadow, mode: "0600", result: deny, errno: EPERM, after: 0}
                  - {as: ann, op: read, path: /etc/shadow, result: allow}
                """, file: "caps.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        #expect(p.expectations.first?.request.capabilities == .dacReadSearch)
        #expect(p.expectations[1].request.capabilities == nil)
        let r = Evaluator(policy: p).checkAll()
        #expect(r.outcomes.count >= 6 && r.outcomes.allSatisfy(\.passed), "\(r.outcomes.map(\.mismatches))")
    }

    @Test("an unknown capability is an error at its place, with a hint")
    func unknownName() {
        let p = PolicyLoader.load(
            text: Self.head + "\nexpect:\n  - {as: ann, op: read, path: /etc/shadow, capabilities: [cap_read_everything], result: allow}\n",
            file: "caps.yaml")
        let e = p.diagnostics.items.first { $0.severity == .error }
        #expect(e?.location.line == 10, "\(p.diagnostics.items.map(\.rendered))")
        #expect(e?.message.contains("cap_read_everything") == true)
        #expect(e?.help != nil)
    }
}
