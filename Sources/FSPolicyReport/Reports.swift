import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyYAML

/// Reports over many files.
public enum Reports {
    public static func json(_ reports: [any CheckedFile], diagnostics: [Diagnostic], passTraces: Bool = false) -> String {
        let sink = OutputSink()
        try? json(reports, diagnostics: diagnostics, passTraces: passTraces, to: sink)
        return sink.text
    }

    /// The JSON report, written result by result (the same bytes as rendering it whole).
    /// `passTraces`: whether a passed expectation's decision carries its trace (by default only
    /// failures' do, as in the other formats).
    /// `extra`: more keys (a keychain's results, findings), written before the summary;
    /// `extraCounts`: expectations and failures they hold, counted in the summary.
    public static func json(
        _ reports: [any CheckedFile], diagnostics: [Diagnostic], extra: [(String, JSON)] = [],
        extraCounts: (expectations: Int, failed: Int) = (0, 0), passTraces: Bool = false, to sink: OutputSink
    ) throws {
        sink.write("{\n  \"schemaVersion\": 1,\n  \"files\": ")
        if reports.isEmpty {
            sink.write("[]")
        } else {
            sink.write("[\n")
            for (i, r) in reports.enumerated() {
                // The counts follow the results: a report counted as it is written
                // (`StreamedFileReport.uncounted`) knows them only then.
                let head: [(String, JSON)] = [
                    ("file", .string(r.policy.file)),
                    ("semantics", .string(r.policy.semantics.rawValue))
                ]
                sink.write("    {\n")
                sink.write { out in
                    for (k, v) in head {
                        JSON.pad(6, into: &out)
                        JSON.quote(k, into: &out)
                        out.append(": ")
                        v.write(into: &out, indent: 6)
                        out.append(",\n")
                    }
                }
                sink.write("      \"results\": ")
                if r.count == 0 {
                    sink.write("[]")
                } else {
                    sink.write("[\n")
                    var first = true
                    let semantics = r.policy.semantics
                    try writeElements(of: r, passed: .decided(traced: passTraces), tracing: true, first: &first, to: sink) { o, t, w in
                        emit(o, t, semantics: semantics, passTraces: passTraces, to: &w)
                    }
                    sink.write("\n      ]")
                }
                sink.write { out in
                    for (k, v) in [("expectations", r.count), ("passed", r.passed), ("failed", r.failed), ("unknown", r.unknown)] {
                        out.append(",\n")
                        JSON.pad(6, into: &out)
                        JSON.quote(k, into: &out)
                        out.append(": ")
                        JSON.int(v).write(into: &out, indent: 6)
                    }
                }
                sink.write("\n    }" + (i == reports.count - 1 ? "\n" : ",\n"))
            }
            sink.write("  ]")
        }
        let total = reports.reduce(0) { $0 + $1.count } + extraCounts.expectations
        let failed = reports.reduce(0) { $0 + $1.failed } + extraCounts.failed
        let unknown = reports.reduce(0) { $0 + $1.unknown }
        let tail: [(String, JSON)] =
            [("diagnostics", .array(diagnostics.map(diagnosticJSON)))] + extra + [
                (
                    "summary",
                    .object([
                        ("expectations", .int(total)), ("passed", .int(total - failed - unknown)), ("failed", .int(failed)),
                        ("unknown", .int(unknown))
                    ])
                )
            ]
        sink.write { out in
            for (k, v) in tail {
                out.append(",\n  ")
                JSON.quote(k, into: &out)
                out.append(": ")
                v.write(into: &out, indent: 2)
            }
            out.append("\n}\n")
        }
    }

    /// The outcomes of `r` as elements of a JSON array whose elements are indented by 8, each
    /// emitted by `body` (with the renderer of its world) after the comma and padding that
    /// separate it from the one before, rendered on several threads for a big file and written
    /// in order; `first` (nothing written in the array yet) drops the very first comma.
    static func writeElements(
        of r: any CheckedFile, passed: PassedOutcomes, tracing: Bool, first: inout Bool, to sink: OutputSink,
        _ body: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout JSONWriter) -> Void
    ) throws {
        try r.renderOutcomes(
            passed: passed, tracing: tracing, style: Style(enabled: false),
            render: { o, t, out in
                out.append(",\n")
                JSON.pad(8, into: &out)
                var w = JSONWriter(bytes: ByteBuffer(empty: ()), indent: 8)
                swap(&w.bytes, &out)
                body(o, t, &w)
                swap(&w.bytes, &out)
            },
            write: { bytes in
                guard !bytes.isEmpty else { return }
                let rest = first ? UnsafeBufferPointer(rebasing: bytes[2...]) : bytes
                first = false
                sink.write(bytes: rest)
            })
    }

    /// One result of the JSON report, rendered by `t` (the renderer of its world). A pass's
    /// decision has no trace unless `passTraces`.
    static func emit<O: JSONOutput & ~Copyable>(_ o: ExpectationOutcome, _ t: TextRenderer, semantics: Semantics, passTraces: Bool, to j: inout O) {
        // The fixed runs through the renderer's cache (`JSONOutput.fields`): block 4 the
        // start, 5 `passed` and the start of `mismatches`, 6 its end and the `decision` key.
        t.fields(&j, 4) { j in
            j.beginObject(); j.key("name")
        }
        // The label and location written from the outcome lent to the writer: a closure
        // that captured `o`, or read it through a pointer, would copy it.
        j.string(with: o.expectation) { e, b in e.appendLabel(to: &b) }
        j.key("location"); j.string(with: o.expectation.location) { l, b in l.append(to: &b) }
        let passed = o.passed
        t.fields(&j, 5 | (passed ? 1 << 8 : 0)) { j in
            j.field("passed", passed); j.key("mismatches"); j.beginArray()
        }
        for m in o.mismatches { j.string(m) }
        // Lent from the outcome (`if let` would copy the decision and its trace).
        if o.decision != nil {
            t.fields(&j, 6) { j in
                j.endArray(); j.key("decision")
            }
            t.emit(
                o.decision!, spec: o.expectation.request, who: o.expectation.asText ?? "", semantics: semantics,
                trace: passTraces || !o.passed, to: &j)
        } else {
            j.endArray()
        }
        if let a = o.actualAllowed { j.strings("allowed", a) }
        if o.expectation.isQuantified {
            j.field("pairs", o.pairsChecked)
            j.field("counterexampleCount", o.counterexampleCount)
            j.key("counterexamples")
            j.beginArray()
            for c in o.counterexamples {
                var spec = o.expectation.request
                spec.path = c.path
                j.beginObject()
                j.field("user", c.user); j.field("uid", Int(c.uid)); j.field("path", c.path)
                j.field("mismatch", c.mismatch)
                j.key("decision")
                t.emit(c.decision, spec: spec, who: c.user, semantics: semantics, to: &j)
                j.endObject()
            }
            j.endArray()
        }
        j.endObject()
    }

    public static func diagnosticJSON(_ d: Diagnostic) -> JSON {
        .object([
            ("file", .string(d.location.file)), ("line", .int(d.location.line)), ("column", .int(d.location.column)),
            ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
            ("help", d.help.map { .string($0) } ?? .null)
        ])
    }

    public static func xml(_ s: String) -> String {
        var out = ByteBuffer()
        xml(s, into: &out)
        return out.string
    }

    /// `s` as XML text or attribute value, appended to `out` as UTF-8; runs that need no escape
    /// are appended at once. `&`, `<`, `>`, `"` and `'` become entities; every other unsafe code
    /// point but newline and tab (XML 1.0 has no way to write most of them, not even as `&#…;`)
    /// is written by the one escaping rule, as `\ooo` per byte.
    public static func xml(_ s: String, into out: inout ByteBuffer) {
        var s = s
        s.withUTF8 { xml(utf8: $0, into: &out) }
    }

    /// The same for text given as UTF-8 bytes (whole code points).
    public static func xml(utf8 u: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        let n = u.count
        var i = 0, run = 0
        @inline(__always) func flush(_ end: Int) {
            if end > run { out.append(UnsafeBufferPointer(rebasing: u[run..<end])) }
        }
        @inline(__always) func octal(_ from: Int, _ to: Int) {
            for k in from..<to {
                let b = u[k]
                out.append(0x5C)
                out.append(0x30 + (b >> 6))
                out.append(0x30 + ((b >> 3) & 7))
                out.append(0x30 + (b & 7))
            }
        }
        while i < n {
            // Eight bytes at a time while none of them needs a look (printable ASCII other than
            // the five that become entities), then on to the first that does.
            if let base = u.baseAddress {
                i += xmlPlainPrefix(base + i, n - i)
                if i >= n { break }
            }
            let b = u[i]
            if b < 0x80 {
                if (b >= 0x20 || b == 0x0A || b == 0x09) && b != 0x7F && b != 0x26 && b != 0x3C && b != 0x3E && b != 0x22 && b != 0x27 {
                    i += 1
                    continue
                }
                flush(i)
                switch b {
                case 0x26: out.append("&amp;")
                case 0x3C: out.append("&lt;")
                case 0x3E: out.append("&gt;")
                case 0x22: out.append("&quot;")
                case 0x27: out.append("&apos;")
                default: octal(i, i + 1)
                }
                i += 1
                run = i
                continue
            }
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            if Escaping.isUnsafe(JSON.scalar(u, at: i, length: len)) {
                flush(i)
                octal(i, i + len)
                run = i + len
            }
            i += len
        }
        flush(n)
    }

    /// The bytes of `w` (in memory order, the low byte first) that are not printable ASCII or
    /// are one XML writes as an entity (`&`, `<`, `>`, `"`, `'`), each as its high bit. It may
    /// also flag `#`, `$`, `%` and `=` (the bytes among the entities' that two ranges take in:
    /// the caller then looks at the byte), never the reverse. Adding 0x80 - b to a byte below
    /// 0x80 sets its high bit exactly when it is at least b, with nothing carried into the next
    /// byte: a range is two additions, where a test for one byte is four operations.
    @inline(__always) static func xmlLookMask(_ w: UInt64) -> UInt64 {
        @inline(__always) func atLeast(_ b: UInt64) -> UInt64 { w &+ SWAR.ones &* (0x80 &- b) }
        let control = ~atLeast(0x20)
        let quotes = atLeast(0x22) & ~atLeast(0x28)
        let angles = atLeast(0x3C) & ~atLeast(0x3F)
        return (control | quotes | angles | atLeast(0x7F) | w) & SWAR.high
    }

    /// How many of the `n` bytes at `p` come before the first that needs a look
    /// (`xmlLookMask`), read eight at a time; up to the last whole eight when none does (the
    /// caller looks at the rest). The lowest flag of a word is its first such byte: an addition
    /// carries only from a byte at or above 0x80 into the bytes after it, which the flag of
    /// that byte comes before.
    @inline(__always) static func xmlPlainPrefix(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var i = 0
        while i + 8 <= n {
            let m = xmlLookMask(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            if m != 0 { return i + m.trailingZeroBitCount >> 3 }
            i += 8
        }
        return i
    }

    /// One `<testcase>`: a pass is its name; a failure has its mismatches, answer and trace.
    static func junitCase(_ o: ExpectationOutcome, _ t: TextRenderer, fileAttribute: [UInt8], into out: inout ByteBuffer) {
        let e = o.expectation
        var scratch = ByteBuffer(capacity: 256)
        out.append("    <testcase name=\"")
        e.appendLabel(to: &scratch)
        xml(utf8: scratch.bytes(from: 0), into: &out)
        out.append("\" classname=\"")
        fileAttribute.withUnsafeBufferPointer { out.append($0) }
        out.append(0x22)
        if o.passed { out.append("/>\n"); return }
        let element = o.isUnknown ? "error" : "failure"
        out.append(">\n      <"); out.append(string: element)
        out.append(o.isUnknown ? " type=\"unknown\" message=\"" : " type=\"expectation\" message=\"")
        var firstMismatch = true
        for m in o.mismatches {
            if !firstMismatch { out.append("; ") }
            firstMismatch = false
            xml(m, into: &out)
        }
        out.append("\">")
        // The body, escaped piece by piece (the escape of a text is the escapes of its pieces,
        // one after the other).
        xml(e.location.file, into: &out)
        out.append(0x3A); out.append(decimal: e.location.line)
        out.append(0x3A); out.append(decimal: e.location.column)
        out.append(": ")
        xml(utf8: scratch.bytes(from: 0), into: &out)
        out.append(0x0A)
        firstMismatch = true
        for m in o.mismatches {
            if !firstMismatch { out.append(0x0A) }
            firstMismatch = false
            xml(m, into: &out)
        }
        if let d = o.decision {
            out.append("\nactual: ")
            // The line and the trace are written as text, then escaped (a trace's lines are
            // joined by newlines, which stay as they are).
            scratch.removeAll()
            t.appendOneLine(d, target: t.oneLineTarget(d, path: e.request.path), to: &scratch)
            xml(utf8: scratch.bytes(from: 0), into: &out)
            out.append("\ntrace:\n")
            scratch.removeAll()
            t.appendTrace(d, indent: "  ", to: &scratch)
            xml(utf8: scratch.bytes(from: 0, to: max(0, scratch.count - 1)), into: &out)
        }
        out.append("</"); out.append(string: element); out.append(">\n    </testcase>\n")
    }

    /// JUnit XML: a testsuite per file, a testcase per expectation, failures with a message.
    public static func junit(_ reports: [any CheckedFile]) -> String {
        let sink = OutputSink()
        try? junit(reports, to: sink)
        return sink.text
    }

    /// `extraSuites`: more `<testsuite>` elements (already XML), with their test and failure counts.
    public static func junit(_ reports: [any CheckedFile], extraSuites: (xml: String, tests: Int, failures: Int)? = nil, to sink: OutputSink) throws {
        let total = reports.reduce(0) { $0 + $1.count } + (extraSuites?.tests ?? 0)
        let failed = reports.reduce(0) { $0 + $1.failed } + (extraSuites?.failures ?? 0)
        // An unknown expectation (P6) is an error: the test could not reach a verdict.
        let unknown = reports.reduce(0) { $0 + $1.unknown }
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        sink.write("<testsuites name=\"fspolicy\" tests=\"\(total)\" failures=\"\(failed)\" errors=\"\(unknown)\">\n")
        for r in reports {
            sink.write(
                "  <testsuite name=\"\(xml(r.policy.file))\" tests=\"\(r.count)\" failures=\"\(r.failed)\" errors=\"\(r.unknown)\" skipped=\"0\" file=\"\(xml(r.policy.file))\">\n"
            )
            sink.write("    <properties>\n      <property name=\"semantics\" value=\"\(r.policy.semantics.rawValue)\"/>\n    </properties>\n")
            let file = r.policy.file
            // The file's name as an attribute, escaped once for every test case.
            var fileBuffer = ByteBuffer(capacity: 64)
            xml(file, into: &fileBuffer)
            let fileAttribute = fileBuffer.bytes
            // A pass is its name only: it need not be decided again. Test cases are rendered on
            // several threads for a big file, and written in order.
            try r.renderOutcomes(
                passed: .undecided, tracing: true, style: Style(enabled: false),
                render: { o, t, out in
                    junitCase(o, t, fileAttribute: fileAttribute, into: &out)
                }, write: { sink.write(bytes: $0) })
            sink.write("  </testsuite>\n")
        }
        if let x = extraSuites { sink.write(x.xml) }
        sink.write("</testsuites>\n")
    }

    /// SARIF 2.1.0: one result per failed expectation and per diagnostic.
    public static func sarif(_ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String) -> String {
        let sink = OutputSink()
        try? sarif(reports, diagnostics: diagnostics, toolVersion: toolVersion, to: sink)
        return sink.text
    }

    /// `extraRules` are appended to `tool.driver.rules` (their indices follow the others) and
    /// `extraResults` to the results.
    public static func sarifRuleCount(_ diagnostics: [Diagnostic]) -> Int { Set(diagnostics.map(\.code)).subtracting(["expectation-failed"]).count + 1 }

    /// A SARIF rule of `tool.driver.rules`: its id and one-line description.
    static func sarifRule(_ id: String, _ text: String) -> JSON {
        .object([("id", .string(id)), ("shortDescription", .object([("text", .string(text))]))])
    }

    /// One SARIF result as a value: rule, level, message and one place in `uri` (with its line
    /// and column when `line` is above 0). The streamed writer below writes the same shape.
    static func sarifResult(rule: String, level: String, text: String, uri: String, line: Int, column: Int) -> JSON {
        var loc: [(String, JSON)] = [("artifactLocation", .object([("uri", .string(uri))]))]
        if line > 0 { loc.append(("region", .object([("startLine", .int(line)), ("startColumn", .int(max(1, column)))]))) }
        return .object([
            ("ruleId", .string(rule)), ("level", .string(level)), ("message", .object([("text", .string(text))])),
            ("locations", .array([.object([("physicalLocation", .object(loc))])]))
        ])
    }

    /// One SARIF result: its rule, level, message and the one place it is about.
    static func sarifResult<O: JSONOutput & ~Copyable>(rule: String, level: String, text: String, at l: SourceLocation, to j: inout O) {
        sarifResult(rule: rule, level: level, at: l, to: &j) { j in j.string(text) }
    }

    /// The same, the message's text written by `text`.
    @inline(__always)
    static func sarifResult<O: JSONOutput & ~Copyable>(
        rule: String, level: String, kind: String? = nil, at l: SourceLocation, to j: inout O,
        text: (inout O) -> Void
    ) {
        j.beginObject()
        j.field("ruleId", rule)
        if let kind { j.field("kind", kind) }
        j.field("level", level)
        j.key("message")
        j.beginObject(); j.key("text"); text(&j); j.endObject()
        j.key("locations")
        j.beginArray()
        j.beginObject()
        j.key("physicalLocation")
        j.beginObject()
        j.key("artifactLocation")
        j.beginObject(); j.field("uri", l.file); j.endObject()
        j.key("region")
        j.beginObject(); j.field("startLine", l.line); j.field("startColumn", l.column); j.endObject()
        j.endObject()
        j.endObject()
        j.endArray()
        j.endObject()
    }

    public static func sarif(
        _ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String,
        extraRules: [JSON] = [], extraResults: [JSON] = [], to sink: OutputSink
    ) throws {
        var rules: [(String, String)] = [("expectation-failed", "An expectation about an access decision does not hold")]
        var ruleIDs: Set<String> = ["expectation-failed"]
        for d in diagnostics where ruleIDs.insert(d.code).inserted { rules.append((d.code, Findings.summaries[d.code] ?? "Policy file problem: \(d.code)")) }
        // The document around the results is written directly; the results go between.
        let anyResult = !diagnostics.isEmpty || reports.contains { $0.failed + $0.unknown > 0 } || !extraResults.isEmpty
        let tool = JSON.object([
            (
                "driver",
                .object([
                    ("name", .string("fspolicy")),
                    ("version", .string(toolVersion)),
                    ("rules", .array(rules.map { sarifRule($0.0, $0.1) } + extraRules))
                ])
            )
        ])
        sink.write { out in
            out.append(
                "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")
            tool.write(into: &out, indent: 6)
            out.append(anyResult ? ",\n      \"results\": [\n" : ",\n      \"results\": []")
        }
        var first = true
        /// A result, written by `body` into the sink.
        func emit(_ body: (inout JSONWriter) -> Void) throws {
            sink.write { out in
                if !first { out.append(",\n") }
                JSON.pad(8, into: &out)
            }
            sink.writeJSON(indent: 8, body)
            first = false
        }
        for r in reports {
            // Passes are not written: they need not be decided again; failures are written
            // without their trace, so they are decided without one.
            try writeElements(of: r, passed: .skipped, tracing: false, first: &first, to: sink) { o, t, w in
                // The message written in place, piece by piece (then escaped if it must be), not
                // joined into a string first.
                // An unknown answer is SARIF's `open` result: the tool could not tell pass from fail.
                sarifResult(
                    rule: "expectation-failed", level: o.isUnknown ? "none" : "error", kind: o.isUnknown ? "open" : nil,
                    at: o.expectation.location, to: &w
                ) { w in
                    w.string(with: o) { o, b in
                        o.expectation.appendLabel(to: &b)
                        b.append(": ")
                        for (k, m) in o.mismatches.enumerated() {
                            if k > 0 { b.append("; ") }
                            b.append(string: m)
                        }
                        if let d = o.decision {
                            b.append(" (actual: ")
                            t.appendOneLine(d, target: t.oneLineTarget(d, path: o.expectation.request.path), to: &b)
                            b.append(", rule ")
                            b.append(string: d.rule.rawValue)
                            b.append(0x29)
                        }
                    }
                }
            }
        }
        for d in diagnostics {
            var text = d.message
            if let h = d.help { text += " (help: \(h))" }
            try emit { sarifResult(rule: d.code, level: d.severity == .error ? "error" : "warning", text: text, at: d.location, to: &$0) }
        }
        for j in extraResults { try emit { $0.value(j) } }
        sink.write((anyResult ? "\n      ]" : "") + "\n    }\n  ]\n}\n")
    }
}
