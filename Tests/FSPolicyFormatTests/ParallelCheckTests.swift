import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Testing

/// A big file's expectations are counted and rendered a slice per thread (`StreamedFileReport`,
/// `threads`). Whatever the number of threads, the counts, the pass bits and the bytes written
/// must be those of one thread, in the file's order.
@Suite struct ParallelCheckTests {
    /// A tree with modes and ACLs, users in groups, a step, and more expectations than the
    /// threshold for threads (4,096), about half of them failing, some after the step.
    static func policy() -> Policy {
        var t = "fspolicy: 1\nsemantics: linux\ngroups:\n"
        for g in 0..<5 { t += "  g\(g): {gid: \(3000 + g)}\n" }
        t += "users:\n"
        for u in 0..<20 { t += "  u\(u): {uid: \(5000 + u), group: g\(u % 5), groups: [g\((u * 3) % 5)]}\n" }
        t += "tree:\n"
        var paths: [String] = []
        for d in 0..<20 {
            let modes = ["0755", "0750", "0700", "0775"]
            t += "  /srv/d\(d): {type: dir, owner: u\(d % 20), group: g\(d % 5), mode: \"\(modes[d % 4])\"}\n"
            for f in 0..<10 {
                let p = "/srv/d\(d)/f\(f)"
                paths.append(p)
                let acl = f % 3 == 0 ? ", acl: [\"user::rw-\", \"user:u\((d + f) % 20):rw-\", \"group::r--\", \"mask::rw-\", \"other::---\"]" : ""
                // With an ACL the mode's group digit is its mask and its other digit `other::`.
                let mode = f % 3 == 0 ? "0660" : ["0644", "0600", "0660", "0604"][f % 4]
                t += "  \(p): {type: file, owner: u\(f % 20), group: g\(f % 5), mode: \"\(mode)\"\(acl)}\n"
            }
        }
        t += "steps:\n  - {as: root, op: chmod, path: /srv/d3, mode: \"0700\"}\n"
        t += "expect:\n"
        let ops = ["read", "write", "execute", "stat", "delete"]
        for i in 0..<5_000 {
            let after = i % 7 == 0 ? ", after: 0" : ""
            t += "  - {as: u\((i * 7) % 20), op: \(ops[i % 5]), path: \"\(paths[(i * 13) % paths.count])\", result: \(i % 2 == 0 ? "allow" : "deny")\(after)}\n"
        }
        return PolicyLoader.load(text: t, file: "big.yaml")
    }

    static func rendered(_ r: StreamedFileReport, passed: PassedOutcomes) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try r.renderOutcomes(
            passed: passed, tracing: true, style: Style(enabled: false),
            render: { o, t, out in
                out.append(string: o.expectation.label)
                out.append(o.passed ? " pass\n" : " FAIL\n")
                for m in o.mismatches { out.append(string: m); out.append(0x0A) }
                if let d = o.decision {
                    t.appendOneLine(d, target: nil, to: &out)
                    out.append(0x0A)
                    t.appendTrace(d, indent: "  ", to: &out)
                }
            }, write: { bytes.append(contentsOf: $0) })
        return bytes
    }

    @Test("counts, pass bits and rendered bytes are the same on 1, 2 and 3 threads")
    func sameAsOneThread() throws {
        let p = ParallelCheckTests.policy()
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.prefix(3).map(\.rendered))")
        #expect(p.expectations.count == 5_000)
        let one = StreamedFileReport(evaluator: Evaluator(policy: p), threads: 1)
        #expect(one.passed > 500 && one.failed > 500, "the file should have many of each: \(one.passed) passed")
        let whole = Evaluator(policy: p).checkAll()
        #expect(one.passed == whole.passed)
        for passed in [PassedOutcomes.skipped, .undecided, .decided(traced: false), .decided(traced: true)] {
            let expected = try ParallelCheckTests.rendered(one, passed: passed)
            #expect(expected.count > 100_000)
            for n in [2, 3] {
                var progressed: [Int] = []
                let many = StreamedFileReport(evaluator: Evaluator(policy: p), threads: n) { progressed.append($0) }
                #expect(many.passed == one.passed && many.count == one.count)
                #expect(many.passBits == one.passBits, "\(n) threads")
                #expect(progressed == Array(0..<p.expectations.count), "progress is told of every expectation, in order")
                let got = try ParallelCheckTests.rendered(many, passed: passed)
                #expect(got == expected, "\(n) threads, passes \(passed): \(got.count) bytes against \(expected.count)")
            }
        }
    }

    struct Full: Error {}

    /// A round is written while the next is rendered (by one of the round's tasks): a write that
    /// fails there ends the report with its error, after what came before it, on any thread count.
    @Test("a failing write ends the report with its error")
    func failingWrite() throws {
        let p = ParallelCheckTests.policy()
        for n in [1, 2, 3] {
            let r = StreamedFileReport(evaluator: Evaluator(policy: p), threads: n)
            let whole = try ParallelCheckTests.rendered(r, passed: .decided(traced: true))
            for failAt in [1, 2, 5] {
                var bytes: [UInt8] = [], writes = 0
                #expect(throws: Full.self, "\(n) threads, write \(failAt)") {
                    try r.renderOutcomes(
                        passed: .decided(traced: true), tracing: true, style: Style(enabled: false),
                        render: { o, t, out in
                            out.append(string: o.expectation.label)
                            out.append(0x0A)
                            if let d = o.decision { t.appendTrace(d, indent: "  ", to: &out) }
                        },
                        write: {
                            writes += 1
                            if writes == failAt { throw Full() }
                            bytes.append(contentsOf: $0)
                        })
                }
                #expect(writes == failAt, "\(n) threads: nothing is written after the failure")
                #expect(bytes.count < whole.count)
            }
        }
    }
}
