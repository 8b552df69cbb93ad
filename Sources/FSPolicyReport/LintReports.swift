import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// The three outputs of `lint` (text grouped by rule, JSON, SARIF); `check --findings` uses the
/// same pieces.
package enum LintReport {
    package static func place(_ i: LintItem) -> String {
        if let l = i.location, l.line > 0 { return "\(source(i)):\(l.line):\(max(1, l.column))" }
        return i.file
    }

    /// The file the location's line is in: the policy file, or the listing, getfacl dump or
    /// other file it imports the node from.
    package static func source(_ i: LintItem) -> String {
        if let l = i.location, !l.file.isEmpty { return l.file }
        return i.file
    }

    /// One finding as text lines (place, path, message; the fix below).
    package static func lines(_ i: LintItem, indent: String = "  ") -> String {
        let what = i.finding.path.isEmpty ? "" : "\(safe(i.finding.path)): "
        return "\(indent)\(safe(place(i))): \(what)\(safe(i.finding.message))\n\(indent)  fix: \(safe(i.finding.fix))\n"
    }

    package static func text(_ items: [LintItem], suppressed: [LintItem], fileCount: Int, inBaseline: Int? = nil, style: Style = Style(enabled: false))
        -> String
    {
        var out = ""
        for rule in LintCatalog.rules {
            let mine = items.filter { $0.finding.code == rule.code }
            if mine.isEmpty { continue }
            let severity = mine[0].finding.severity
            let word: String
            switch severity {
            case .error: word = style.red(severity.rawValue)
            case .warning: word = style.yellow(severity.rawValue)
            default: word = style.dim(severity.rawValue)
            }
            out += "\(style.bold(rule.code + " " + rule.name)) (\(word)): \(mine.count) finding\(mine.count == 1 ? "" : "s")\n"
            for i in mine { out += lines(i) }
        }
        let counts = LintSeverity.allCases.reversed().map { s in (s, items.filter { $0.finding.severity == s }.count) }.filter { $0.1 > 0 }
        var notes: [String] = []
        if !suppressed.isEmpty { notes.append("\(suppressed.count) suppressed") }
        if let k = inBaseline { notes.append("\(k) in the baseline") }
        let sup = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
        if items.isEmpty {
            out += "no \(inBaseline == nil ? "" : "new ")findings in \(fileCount) file\(fileCount == 1 ? "" : "s")\(sup)\n"
        } else {
            out +=
                "\(items.count) \(inBaseline == nil ? "" : "new ")finding\(items.count == 1 ? "" : "s"): "
                + counts.map { "\($0.1) \($0.0.rawValue)\($0.1 == 1 ? "" : "s")" }.joined(separator: ", ") + sup + "\n"
        }
        return out
    }

    package static func findingJSON(_ i: LintItem) -> JSON {
        var f: [(String, JSON)] = [
            ("code", .string(i.finding.code)), ("rule", .string(LintCatalog.rule(i.finding.code)?.name ?? "")),
            ("severity", .string(i.finding.severity.rawValue)), ("file", .string(i.file))
        ]
        if let l = i.location, l.line > 0 {
            f.append(("source", .string(source(i))))
            f.append(("line", .int(l.line))); f.append(("column", .int(max(1, l.column))))
        }
        f += [
            ("path", .string(i.finding.path)), ("message", .string(i.finding.message)), ("fix", .string(i.finding.fix)),
            ("affected", .array(i.finding.affected.map { .string($0) })),
            (
                "claims",
                .array(
                    i.finding.claims.map { c in
                        .object([("op", .string(c.op.word)), ("path", .string(c.path)), ("who", .array(c.who.map { .string($0) }))])
                    })
            ),
            ("semantics", .string(i.semantics.rawValue)),
            ("fingerprint", .string(i.fingerprint))
        ]
        if let r = i.suppressedBecause { f.append(("suppressedBecause", .string(r))) }
        return .object(f)
    }

    package static func json(_ items: [LintItem], suppressed: [LintItem], runs: [(String, Semantics)], inBaseline: Int? = nil) -> JSON {
        var o: [(String, JSON)] = [
            ("schemaVersion", .int(1)),
            ("files", .array(runs.map { .object([("file", .string($0.0)), ("semantics", .string($0.1.rawValue))]) })),
            ("findings", .array(items.map(findingJSON))),
            ("suppressed", .array(suppressed.map(findingJSON))),
            ("counts", .object(LintSeverity.allCases.reversed().map { s in (s.rawValue, .int(items.filter { $0.finding.severity == s }.count)) }))
        ]
        if let k = inBaseline { o.append(("inBaseline", .int(k))) }
        return .object(o)
    }

    /// `tool.driver.rules`: the whole catalog.
    package static var sarifRules: JSON {
        .array(
            LintCatalog.rules.map { r in
                .object([
                    ("id", .string(r.code)), ("name", .string(r.name)),
                    ("shortDescription", .object([("text", .string(r.summary))])),
                    ("fullDescription", .object([("text", .string(r.description))])),
                    ("helpUri", .string("docs/findings.md#" + r.anchor)),
                    ("help", .object([("text", .string("See docs/findings.md, section \"\(r.code) \(r.name)\"."))])),
                    ("defaultConfiguration", .object([("level", .string(r.severity.rawValue))])),
                    ("properties", .object([("semantics", .array(r.semantics.map { .string($0.rawValue) }))]))
                ])
            })
    }

    package static func sarifResult(_ i: LintItem) -> JSON { sarifResult(i, ruleOffset: 0) }

    package static func sarifResult(_ i: LintItem, ruleOffset: Int) -> JSON {
        var loc: [(String, JSON)] = [("artifactLocation", .object([("uri", .string(i.location.map { _ in source(i) } ?? i.file))]))]
        if let l = i.location, l.line > 0 {
            loc.append(("region", .object([("startLine", .int(l.line)), ("startColumn", .int(max(1, l.column)))])))
        }
        var location: [(String, JSON)] = [("physicalLocation", .object(loc))]
        if !i.finding.path.isEmpty {
            location.append(("logicalLocations", .array([.object([("fullyQualifiedName", .string(i.finding.path)), ("kind", .string("resource"))])])))
        }
        var r: [(String, JSON)] = [
            ("ruleId", .string(i.finding.code)),
            ("ruleIndex", .int(ruleOffset + (LintCatalog.rules.firstIndex { $0.code == i.finding.code } ?? 0))),
            ("level", .string(i.finding.severity.rawValue)),
            ("message", .object([("text", .string((i.finding.path.isEmpty ? "" : "\(i.finding.path): ") + "\(i.finding.message). Fix: \(i.finding.fix)"))])),
            ("locations", .array([.object(location)])),
            ("partialFingerprints", .object([("fspolicyFinding/v1", .string(i.fingerprint))]))
        ]
        if let reason = i.suppressedBecause {
            r.append(("suppressions", .array([.object([("kind", .string("inSource")), ("justification", .string(reason))])])))
        }
        r.append(
            (
                "properties",
                .object([
                    ("path", .string(i.finding.path)), ("fix", .string(i.finding.fix)),
                    ("affected", .array(i.finding.affected.map { .string($0) })),
                    ("semantics", .string(i.semantics.rawValue))
                ])
            ))
        return .object(r)
    }

    /// A JUnit test suite: one test case per file and rule of the catalog that applies under the
    /// file's rule set; it fails when the rule found something at or above `failOn` (findings
    /// below go to `system-out`).
    package static func junitSuite(_ items: [LintItem], runs: [(String, Semantics)], failOn: LintSeverity) -> (xml: String, tests: Int, failures: Int) {
        var cases = "", tests = 0, failures = 0
        for (file, sem) in runs {
            for rule in LintCatalog.rules where rule.semantics.contains(sem) {
                tests += 1
                let mine = items.filter { $0.file == file && $0.finding.code == rule.code }
                let name = Reports.xml("\(rule.code) \(rule.name)")
                let body = mine.map { lines($0, indent: "") }.joined()
                var x = "    <testcase name=\"\(name)\" classname=\"\(Reports.xml(file))\""
                if mine.isEmpty { cases += x + "/>\n"; continue }
                x += ">\n"
                if mine.contains(where: { $0.finding.severity >= failOn }) {
                    failures += 1
                    x +=
                        "      <failure type=\"finding\" message=\"\(Reports.xml("\(mine.count) finding\(mine.count == 1 ? "" : "s"): \(rule.summary)"))\">\(Reports.xml(body))</failure>\n"
                } else {
                    x += "      <system-out>\(Reports.xml(body))</system-out>\n"
                }
                cases += x + "    </testcase>\n"
            }
        }
        let head = "  <testsuite name=\"fspolicy lint\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n"
        return (head + cases + "  </testsuite>\n", tests, failures)
    }

    package static func sarif(_ items: [LintItem], suppressed: [LintItem], toolVersion: String) -> JSON {
        .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    .object([
                        (
                            "tool",
                            .object([
                                (
                                    "driver",
                                    .object([
                                        ("name", .string("fspolicy")), ("version", .string(toolVersion)),
                                        ("rules", sarifRules)
                                    ])
                                )
                            ])
                        ),
                        ("results", .array((items + suppressed).map(sarifResult)))
                    ])
                ])
            )
        ])
    }
}
