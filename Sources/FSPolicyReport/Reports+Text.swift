import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

extension Reports {
    /// `check`'s text: each file's summary, its findings, each failure with its trace, its
    /// keychain outcomes, and a total when there are several files; `quiet`: only the files that
    /// fail.
    public static func text(_ reports: [any CheckedFile], keychain: [(String, [KeychainOutcome])] = [], style: Style, quiet: Bool, to sink: OutputSink) throws {
        // Nothing to say (every file was invalid, reported on stderr): print nothing at all.
        for r in reports {
            // The unknown count only when there are some (a world read whole never has any).
            let unknown = r.unknown
            let summary = "\(counted(r.count, "expectation")), \(r.passed) passed, \(r.failed) failed" + (unknown > 0 ? ", \(unknown) unknown" : "")
            let color = r.failed > 0 ? style.red(summary) : unknown > 0 ? style.yellow(summary) : style.green(summary)
            if !(quiet && r.failed == 0 && unknown == 0) { sink.write("\(r.policy.file): " + color + "\n") }
            for d in r.findings { sink.write(style.yellow(d.rendered) + "\n") }
            // Each failure as its lines (rendered on several threads for a big file, written in order).
            try r.renderOutcomes(
                passed: .skipped, tracing: true, style: style, render: appendFailure,
                write: { sink.write(bytes: $0) })
            for (f, outcomes) in keychain where f == r.policy.file { sink.write(KeychainReport.text(f, outcomes, style: style, quiet: quiet)) }
        }
        // The total counts the keychains' expectations too.
        let kc = KeychainReport.counts(keychain)
        if reports.count > 1 && !(quiet && reports.allSatisfy({ $0.failed == 0 }) && kc.failed == 0) {
            let total = reports.reduce(0) { $0 + $1.count } + kc.expectations
            let failed = reports.reduce(0) { $0 + $1.failed } + kc.failed
            let unknown = reports.reduce(0) { $0 + $1.unknown }
            sink.write(
                "total: \(counted(total, "expectation")), \(total - failed - unknown) passed, \(failed) failed" + (unknown > 0 ? ", \(unknown) unknown" : "")
                    + "\n")
        }
    }

    /// A failed expectation's lines: where, what was expected, what happened and the trace.
    @Sendable public static func appendFailure(_ o: ExpectationOutcome, _ t: TextRenderer, _ out: inout ByteBuffer) {
        let e = o.expectation
        let style = t.style
        if o.isUnknown { style.begin("33", &out); out.append("UNKNOWN"); style.end(&out) } else { style.begin("31", &out); out.append("FAIL"); style.end(&out) }
        out.append(0x20); out.append(string: e.location.file); out.append(0x3A); out.append(decimal: e.location.line)
        out.append(": "); e.appendLabel(to: &out); out.append(0x0A)
        out.append("  expected: "); out.append(string: e.expectedText); out.append(0x0A)
        if let d = o.decision {
            out.append("  actual:   ")
            t.appendOneLine(d, target: t.oneLineTarget(d, path: e.request.path), to: &out)
            out.append(" [layer "); out.append(string: d.layer.rawValue)
            out.append(", rule "); out.append(string: d.rule.rawValue); out.append("]\n")
        } else if let a = o.actualAllowed {
            out.append("  actual:   allowed: "); out.append(string: a.isEmpty ? PrincipalName.noOne : a.joined(separator: ", ")); out.append(0x0A)
        }
        for m in o.mismatches { out.append("  - "); out.append(string: m); out.append(0x0A) }
        if let d = o.decision {
            out.append("  trace:\n")
            t.appendTrace(d, indent: "    ", to: &out)
        }
    }

    /// "1 expectation", "2 expectations", "0 expectations".
    public static func counted(_ n: Int, _ noun: String) -> String {
        n == 1 ? "1 \(noun)" : "\(n) \(noun)s"
    }
}
