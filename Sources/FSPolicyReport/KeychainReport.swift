import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// The keychain part of `fspolicy check` (docs/cli.md): each history step and expectation
/// that says what it expects, in text, JSON and JUnit.
public enum KeychainReport {
    public static func label(_ o: KeychainOutcome) -> String { o.entry.name ?? o.entry.text }
    static func safe(_ s: String) -> String { Escaping.line(s) }

    public static func expected(_ e: KeychainEntry) -> String {
        var parts: [String] = []
        if let s = e.status { parts.append(s.text) }
        if let n = e.items { parts.append(n == 1 ? "1 item" : "\(n) items") }
        return parts.joined(separator: ", ")
    }

    public static func actual(_ a: KeychainAnswer) -> String {
        "\(a.status.text), " + (a.items.count == 1 ? "1 item" : "\(a.items.count) items")
    }

    /// `keychain: N expectations, N passed, N failed`, then each failure with its steps.
    public static func text(_ file: String, _ outcomes: [KeychainOutcome], style: Style, quiet: Bool) -> String {
        let checks = outcomes.filter(\.isCheck)
        let failed = checks.filter { !$0.passed }
        var out = ""
        let summary =
            "keychain: \(checks.count == 1 ? "1 expectation" : "\(checks.count) expectations"), \(checks.count - failed.count) passed, \(failed.count) failed"
        if !(quiet && failed.isEmpty) { out += safe(file) + ": " + (failed.isEmpty ? style.green(summary) : style.red(summary)) + "\n" }
        for o in failed {
            guard let a = o.answer else { continue }
            out += style.red("FAIL") + " " + safe("\(o.entry.location.file):\(o.entry.location.line): \(label(o))") + "\n"
            out += "  expected: \(expected(o.entry))\n"
            out += "  actual:   \(actual(a)) [layer keychain, rule \(a.rule.rawValue)]\n"
            out += "  trace:\n"
            for (i, s) in a.steps.enumerated() { out += "    \(i + 1)  \(s.rule.info.number)  \(s.verdict.rawValue)  \(safe(s.text))  [\(s.rule.rawValue)]\n" }
            for s in a.assumptions { out += "  assumed: \(safe(s))\n" }
        }
        return out
    }

    /// Expectations and failures over every file's keychain, for the run's totals.
    public static func counts(_ files: [(String, [KeychainOutcome])]) -> (expectations: Int, failed: Int) {
        var n = 0, failed = 0
        for (_, outcomes) in files {
            for o in outcomes where o.isCheck {
                n += 1
                if !o.passed { failed += 1 }
            }
        }
        return (n, failed)
    }

    /// The line a failure's message starts with: where, and what was asked.
    static func place(_ o: KeychainOutcome) -> String {
        let l = o.entry.location
        return "\(l.file):\(l.line):\(max(1, l.column)): \(label(o))"
    }

    /// One SARIF result (rule `expectation-failed`) per failed keychain expectation, at its place.
    public static func sarifResults(_ files: [(String, [KeychainOutcome])]) -> [JSON] {
        var out: [JSON] = []
        for (_, outcomes) in files {
            for o in outcomes where o.isCheck && !o.passed {
                guard let a = o.answer else { continue }
                let l = o.entry.location
                out.append(
                    Reports.sarifResult(
                        rule: "expectation-failed", level: "error",
                        text: "\(label(o)): expected \(expected(o.entry)), got \(actual(a)) (rule \(a.rule.rawValue))", uri: l.file,
                        line: l.line, column: max(1, l.column)))
            }
        }
        return out
    }

    public static func json(_ file: String, _ outcomes: [KeychainOutcome]) -> JSON {
        let r = KeychainRenderer(style: Style(enabled: false))
        let checks = outcomes.filter(\.isCheck)
        return .object([
            ("file", .string(file)),
            ("expectations", .int(checks.count)),
            ("passed", .int(checks.count { $0.passed })),
            ("failed", .int(checks.count { !$0.passed })),
            (
                "results",
                .array(
                    checks.compactMap { o in
                        guard let a = o.answer else { return nil }
                        return .object([
                            ("name", .string(label(o))), ("line", .int(o.entry.location.line)),
                            ("location", .string("\(o.entry.location.file):\(o.entry.location.line):\(max(1, o.entry.location.column))")),
                            ("passed", .bool(o.passed)),
                            ("expected", .string(expected(o.entry))), ("answer", r.json(a, device: o.device))
                        ])
                    })
            )
        ])
    }

    /// One `<testsuite>` per file with a keychain.
    public static func junitSuites(_ files: [(String, [KeychainOutcome])]) -> (xml: String, tests: Int, failures: Int) {
        var xml = "", tests = 0, failures = 0
        for (file, outcomes) in files {
            let checks = outcomes.filter(\.isCheck)
            let failed = checks.filter { !$0.passed }
            tests += checks.count
            failures += failed.count
            xml +=
                "  <testsuite name=\"\(Reports.xml(file)) keychain\" tests=\"\(checks.count)\" failures=\"\(failed.count)\" errors=\"0\" skipped=\"0\" file=\"\(Reports.xml(file))\">\n"
            for o in checks {
                let head = "    <testcase name=\"\(Reports.xml(label(o)))\" classname=\"\(Reports.xml(file))\""
                guard !o.passed, let a = o.answer else { xml += head + "/>\n"; continue }
                xml += head + ">\n      <failure type=\"expectation\" message=\"\(Reports.xml("expected \(expected(o.entry)), got \(actual(a))"))\">"
                xml += Reports.xml(place(o) + "\n")
                xml += Reports.xml(a.steps.map { "\($0.rule.info.number) \($0.verdict.rawValue) \($0.text)" }.joined(separator: "\n"))
                xml += "</failure>\n    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return (xml, tests, failures)
    }
}
