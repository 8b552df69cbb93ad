import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// `check` decides every expectation twice: once without a trace to count them (the summary
/// comes first in every format), then again, with the trace, for those a report shows. These
/// tests hold the two passes to the same answers on every policy file in `fixtures/`.
@Suite struct CheckPassesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func policies() -> [Policy] {
        let dir = CheckPassesTests.root.appendingPathComponent("fixtures")
        var out: [Policy] = []
        let files =
            FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("invalid/") }
            .sorted() ?? []
        for f in files {
            let p = PolicyLoader.load(path: dir.appendingPathComponent(f).path)
            if p.diagnostics.hasErrors || p.expectations.isEmpty && p.steps.isEmpty { continue }
            out.append(p)
        }
        return out
    }

    @Test func testUntracedCountingAgreesWithTheTracedDecision() {
        let ps = policies()
        #expect(ps.count > 20, "the fixtures should give many checkable files")
        var compared = 0, failing = 0
        for p in ps {
            for sem in Semantics.allCases {
                let ev = Evaluator(policy: p, semantics: sem)
                var cache = CredentialCache()
                for e in p.expectations {
                    let traced = ev.check(e)
                    let quiet = ev.check(e, tracing: false, credentials: &cache)
                    let at = "\(p.file):\(e.location.line) under \(sem)"
                    #expect(traced.passed == quiet.passed, "\(at)")
                    #expect(traced.mismatches == quiet.mismatches, "\(at)")
                    #expect(traced.decision?.allowed == quiet.decision?.allowed, "\(at)")
                    #expect(traced.decision?.errno == quiet.decision?.errno, "\(at)")
                    #expect(traced.decision?.layer == quiet.decision?.layer, "\(at)")
                    #expect(traced.decision?.rule == quiet.decision?.rule, "\(at)")
                    #expect(traced.decision?.node == quiet.decision?.node, "\(at)")
                    // SARIF writes a failure's one line from a decision without a trace.
                    #expect(traced.decision?.evidence == quiet.decision?.evidence, "\(at)")
                    if let d = quiet.decision { #expect(d.trace.isEmpty, "the counting pass records no trace: \(at)") }
                    compared += 1
                    if !traced.passed { failing += 1 }
                }
            }
        }
        #expect(compared > 200)
        #expect(failing > 10, "under other rule sets some expectations fail, so both outcomes are compared")
    }

    @Test func testStreamedReportCountsAndListsWhatTheWholeReportDoes() {
        for p in policies() {
            for sem in Semantics.allCases {
                let ev = Evaluator(policy: p, semantics: sem)
                let whole = ev.checkAll()
                let streamed = StreamedFileReport(evaluator: ev)
                #expect(streamed.count == whole.count, "\(p.file)")
                #expect(streamed.passed == whole.passed, "\(p.file)")
                var all: [ExpectationOutcome] = [], lean: [ExpectationOutcome] = []
                streamed.forEachOutcome { all.append($0) }
                streamed.forEachOutcome(decidingPassed: false) { lean.append($0) }
                #expect(all.count == whole.outcomes.count, "\(p.file)")
                #expect(lean.count == whole.outcomes.count, "\(p.file)")
                for (k, o) in whole.outcomes.enumerated() where k < min(all.count, lean.count) {
                    #expect(all[k].passed == o.passed, "\(p.file)")
                    #expect(all[k].mismatches == o.mismatches, "\(p.file)")
                    #expect(all[k].decision?.trace.count == o.decision?.trace.count, "\(p.file)")
                    #expect(lean[k].passed == o.passed, "\(p.file)")
                    #expect(lean[k].expectation.location == o.expectation.location, "\(p.file)")
                    if !o.passed {
                        // A failure comes whole, with the traced decision.
                        #expect(lean[k].mismatches == o.mismatches, "\(p.file)")
                        #expect(lean[k].decision?.trace.count == o.decision?.trace.count, "\(p.file)")
                    } else if o.expectation.index >= 0 {
                        #expect(lean[k].decision == nil, "a pass is not decided again: \(p.file)")
                    }
                }
            }
        }
    }
}
