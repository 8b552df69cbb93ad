import FSPolicy
@testable import FSPolicyFormat
import Foundation
import XCTest

/// `check` decides every expectation twice: once without a trace to count them (the summary
/// comes first in every format), then again, with the trace, for those a report shows. These
/// tests hold the two passes to the same answers on every policy file in `fixtures/`.
final class CheckPassesTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func policies() -> [Policy] {
        let dir = CheckPassesTests.root.appendingPathComponent("fixtures")
        var out: [Policy] = []
        let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("invalid/") }.sorted() ?? []
        for f in files {
            let p = PolicyLoader.load(path: dir.appendingPathComponent(f).path)
            if p.diagnostics.hasErrors || p.expectations.isEmpty && p.steps.isEmpty { continue }
            out.append(p)
        }
        return out
    }

    func testUntracedCountingAgreesWithTheTracedDecision() {
        let ps = policies()
        XCTAssertGreaterThan(ps.count, 20, "the fixtures should give many checkable files")
        var compared = 0, failing = 0
        for p in ps {
            for sem in Semantics.allCases {
                let ev = Evaluator(policy: p, semantics: sem)
                var cache = CredentialCache()
                for e in p.expectations {
                    let traced = ev.check(e)
                    let quiet = ev.check(e, tracing: false, credentials: &cache)
                    let at = "\(p.file):\(e.location.line) under \(sem)"
                    XCTAssertEqual(traced.passed, quiet.passed, at)
                    XCTAssertEqual(traced.mismatches, quiet.mismatches, at)
                    XCTAssertEqual(traced.decision?.allowed, quiet.decision?.allowed, at)
                    XCTAssertEqual(traced.decision?.errno, quiet.decision?.errno, at)
                    XCTAssertEqual(traced.decision?.layer, quiet.decision?.layer, at)
                    XCTAssertEqual(traced.decision?.rule, quiet.decision?.rule, at)
                    XCTAssertEqual(traced.decision?.node, quiet.decision?.node, at)
                    if let d = quiet.decision { XCTAssertTrue(d.trace.isEmpty, "the counting pass records no trace: \(at)") }
                    compared += 1
                    if !traced.passed { failing += 1 }
                }
            }
        }
        XCTAssertGreaterThan(compared, 200)
        XCTAssertGreaterThan(failing, 10, "under other rule sets some expectations fail, so both outcomes are compared")
    }

    func testStreamedReportCountsAndListsWhatTheWholeReportDoes() {
        for p in policies() {
            for sem in Semantics.allCases {
                let ev = Evaluator(policy: p, semantics: sem)
                let whole = ev.checkAll()
                let streamed = StreamedFileReport(evaluator: ev)
                XCTAssertEqual(streamed.count, whole.count, p.file)
                XCTAssertEqual(streamed.passed, whole.passed, p.file)
                var all: [ExpectationOutcome] = [], lean: [ExpectationOutcome] = []
                streamed.forEachOutcome { all.append($0) }
                streamed.forEachOutcome(decidingPassed: false) { lean.append($0) }
                XCTAssertEqual(all.count, whole.outcomes.count, p.file)
                XCTAssertEqual(lean.count, whole.outcomes.count, p.file)
                for (k, o) in whole.outcomes.enumerated() where k < min(all.count, lean.count) {
                    XCTAssertEqual(all[k].passed, o.passed, p.file)
                    XCTAssertEqual(all[k].mismatches, o.mismatches, p.file)
                    XCTAssertEqual(all[k].decision?.trace.count, o.decision?.trace.count, p.file)
                    XCTAssertEqual(lean[k].passed, o.passed, p.file)
                    XCTAssertEqual(lean[k].expectation.location, o.expectation.location, p.file)
                    if !o.passed {
                        // A failure comes whole, with the traced decision.
                        XCTAssertEqual(lean[k].mismatches, o.mismatches, p.file)
                        XCTAssertEqual(lean[k].decision?.trace.count, o.decision?.trace.count, p.file)
                    } else if o.expectation.index >= 0 {
                        XCTAssertNil(lean[k].decision, "a pass is not decided again: \(p.file)")
                    }
                }
            }
        }
    }
}
