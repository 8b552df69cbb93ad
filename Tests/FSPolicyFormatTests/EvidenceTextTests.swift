import Testing
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import FSPolicy

/// The words of a decision's evidence say what the node has.
@Suite("evidence in words")
struct EvidenceTextTests {
    /// An executable with no `x` bit in any class, which root may not run either (linux L4,
    /// macos O2): the evidence is every class (`any`), with the bits some class has and the
    /// mode, not the owner's bits as `---` (the owner of a 0644 file has `rw-`).
    @Test func noExecuteBitNamesNoClass() {
        let p = PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: linux
                tree:
                  /srv/nox: {owner: root, mode: "0644"}
                """, file: "nox.yaml")
        #expect(!p.diagnostics.hasErrors)
        for sem in [Semantics.linux, .macos] {
            let ev = Evaluator(policy: p, semantics: sem)
            let spec = RequestSpec(op: .execute, path: "/srv/nox")
            let d = ev.decide(spec, uid: 0)
            #expect(!d.allowed && d.errno == .EACCES, "\(sem)")
            let t = TextRenderer(policy: p, world: p.world)
            let line = t.oneLine(d, target: t.oneLineTarget(d, path: spec.path))
            #expect(line.contains("no class has --x in mode 0644"), "\(sem): \(line)")
            #expect(!line.contains("owner bits"), "\(sem): \(line)")
            let json = t.json(d, spec: spec, who: "root", semantics: sem).render()
            #expect(json.contains("\"class\": \"any\"") && json.contains("\"bits\": \"rw-\""), "\(sem): \(json)")
        }
    }
}

/// Deep nesting in flow collections: refused with a message past 1,000 levels, never a crash
/// (100,000 `[` once ran a reader's stack out).
@Suite("deep flow nesting")
struct DeepNestingTests {
    @Test func deepFlowNestingIsAnErrorNotACrash() {
        for open in ["[", "{a: "] {
            for depth in [100, 5_000, 100_000] {
                let text = "fspolicy: 1\nsemantics: linux\ndescription: " + String(repeating: open, count: depth) + "\n"
                let p = PolicyLoader.load(text: text, file: "deep.yaml")
                #expect(p.diagnostics.hasErrors, "\(open) × \(depth)")
                if depth > 1_000 {
                    #expect(
                        p.diagnostics.items.contains { $0.message.contains("nest too deeply") },
                        "\(open) × \(depth): \(p.diagnostics.items.map(\.message).prefix(2))")
                }
            }
        }
    }
}
