import FSPolicy

/// A JSON value with ordered keys, written deterministically.
public indirect enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public func render(indent: Int = 0, step: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        let inner = String(repeating: " ", count: indent + step)
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .string(let s): return JSON.quote(s)
        case .array(let a):
            if a.isEmpty { return "[]" }
            return "[\n" + a.map { inner + $0.render(indent: indent + step, step: step) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let o):
            if o.isEmpty { return "{}" }
            return "{\n" + o.map { inner + JSON.quote($0.0) + ": " + $0.1.render(indent: indent + step, step: step) }.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    public static func quote(_ s: String) -> String {
        var out = ""
        quote(s, into: &out)
        return out
    }

    /// `s` as a JSON string, appended to `out`. `htmlSafe`: `<`, `>` and `&` are `\uXXXX` too, so
    /// the JSON can sit inside a `<script>` element (no `</script>` or `<!--` can appear).
    public static func quote(_ s: String, htmlSafe: Bool = false, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<" where htmlSafe: out += "\\u003c"
            case ">" where htmlSafe: out += "\\u003e"
            case "&" where htmlSafe: out += "\\u0026"
            default:
                // Every unsafe code point (controls, C1, bidi controls, separators,
                // noncharacters) as `\uXXXX` (a surrogate pair above U+FFFF): valid JSON,
                // and nothing a terminal acts on when the JSON is shown.
                if Escaping.isUnsafe(u.value) {
                    for unit in String(u).utf16 {
                        let hex = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else { out.unicodeScalars.append(u) }
            }
        }
        out += "\""
    }
}

extension TextRenderer {
    public func json(_ e: Evidence) -> JSON {
        switch e {
        case .none: return .null
        case .ace(let n, let i, let ace):
            var o: [(String, JSON)] = [("kind", .string("ace")), ("path", .string(path(n))), ("index", .int(i)),
                                       ("text", .string(world.aceText(ace, forDirectory: world[n].isDir)))]
            if let l = sourceLocation(e) { o.append(("source", .string(l.description))) }
            return .object(o)
        case .posixEntry(let n, let tag, let perms, let mask):
            return .object([("kind", .string("posixEntry")), ("path", .string(path(n))), ("entry", .string(posixEntryText(tag, perms))),
                            ("perms", .string(perms.text)), ("mask", mask.map { .string($0.text) } ?? .null)])
        case .mode(let n, let cls, let needed, let has):
            return .object([("kind", .string("mode")), ("path", .string(path(n))), ("class", .string(cls.rawValue)),
                            ("needed", .string(needed.text)), ("bits", .string(has.text)),
                            ("mode", .string(world[n].mode.octal))])
        case .flag(let n, let f):
            return .object([("kind", .string("flag")), ("path", .string(path(n))), ("flags", .array(flagNames(f).map { .string($0) }))])
        case .sticky(let n):
            return .object([("kind", .string("sticky")), ("path", .string(path(n)))])
        case .identity(let n, let uid, let gid, let fu, let fg):
            return .object([("kind", .string("identity")), ("path", .string(path(n))), ("owner", .string(world.userName(uid))),
                            ("group", .string(world.groupName(gid))), ("storedOwner", .string(world.userName(fu))),
                            ("storedGroup", .string(world.groupName(fg)))])
        case .volume(let m): return .object([("kind", .string("volume")), ("mountPath", .string(m))])
        case .node(let n): return .object([("kind", .string("node")), ("path", .string(path(n)))])
        case .missing(let d, let name):
            let base = path(d)
            return .object([("kind", .string("missing")), ("path", .string(base == "/" ? "/" + name : base + "/" + name))])
        case .app(let n, let f):
            return .object([("kind", .string("app")), ("path", .string(path(n))), ("app", .string(f.app)), ("text", .string(f.text)),
                            ("key", f.key.map { .string($0) } ?? .null), ("entry", f.entry.map { .string($0) } ?? .null),
                            ("wouldAllow", .array(f.wouldAllow.map { .string($0) }))])
        case .protection(let n, let cls, let state, let open):
            return .object([("kind", .string("protection")), ("path", .string(path(n))), ("class", .string(cls.word)),
                            ("deviceState", .string(state.rawValue)), ("openBeforeLock", .bool(open))])
        case .newFileProtection(let d, let p, let cls, let state, let from):
            let origin: JSON
            switch from {
            case .directory(let n): origin = .string(path(n))
            case .entitlement: origin = .string("entitlement")
            case .platformDefault: origin = .string("iosDefault")
            }
            return .object([("kind", .string("newFileProtection")), ("path", .string(path(d))), ("newPath", .string(p)),
                            ("class", .string(cls.word)), ("classFrom", origin), ("deviceState", .string(state.rawValue))])
        case .tunable(let n, let d, let t, let v):
            var o: [(String, JSON)] = [("kind", .string("tunable")), ("sysctl", .string(t.sysctl)), ("value", .int(Int(v))),
                                       ("path", .string(path(n)))]
            if d >= 0 { o.append(("dir", .string(path(d)))) }
            return .object(o)
        }
    }

    public func json(_ d: Decision, spec: RequestSpec, who: String, semantics: Semantics) -> JSON {
        var req: [(String, JSON)] = [("as", .string(who)), ("op", .string(spec.op.word)), ("path", .string(spec.path))]
        if let t = spec.to { req.append(("to", .string(t))) }
        if let m = spec.mode { req.append(("mode", .string(m.octal))) }
        return .object([
            ("schemaVersion", .int(1)),
            ("request", .object(req)),
            ("semantics", .string(semantics.rawValue)),
            ("result", .string(d.allowed ? "allow" : "deny")),
            ("errno", d.errno.map { .string($0.rawValue) } ?? .null),
            ("layer", .string(d.layer.rawValue)),
            ("rule", .string(d.rule.rawValue)),
            ("summary", .string(oneLine(d, target: world.lookup(spec.path)))),
            ("decidedBy", json(d.evidence)),
            ("trace", .array(d.trace.map { s in
                .object([("layer", .string(s.layer.rawValue)), ("rule", .string(s.rule.rawValue)),
                         ("verdict", .string(s.verdict.rawValue)), ("path", .string(path(s.node))),
                         ("requested", .array(rightWords(s.requested, node: s.node))),
                         ("undecided", .array(rightWords(s.remaining, node: s.node))),
                         ("evidence", json(s.evidence)), ("depth", .int(Int(s.depth)))])
            })),
            ("notes", .array(d.notes.map { .string($0) })),
        ])
    }

    func rightWords(_ r: AccessRights, node: NodeID) -> [JSON] {
        let t = r.text(forDirectory: isDir(node))
        return t.isEmpty ? [] : t.split(separator: ",").map { .string(String($0)) }
    }
}

/// Output written in pieces: text is gathered up to a size, then handed to `flush`, so a long
/// report never has to exist whole in memory.
public final class ReportSink {
    let flushBody: (String) throws -> Void
    var buffer = ""
    let limit: Int
    public init(limit: Int = 1 << 16, flush: @escaping (String) throws -> Void) {
        self.flushBody = flush
        self.limit = limit
    }
    public func write(_ s: String) throws {
        buffer += s
        if buffer.utf8.count >= limit { try flush() }
    }
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        let b = buffer
        buffer = ""
        try flushBody(b)
    }
}

/// Reports over many files.
public enum Reports {
    public static func json(_ reports: [any CheckedFile], diagnostics: [Diagnostic]) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? json(reports, diagnostics: diagnostics, to: sink)
        try? sink.flush()
        return out
    }

    /// The JSON report, written result by result (the same bytes as rendering it whole).
    public static func json(_ reports: [any CheckedFile], diagnostics: [Diagnostic], extra: [(String, JSON)] = [], to sink: ReportSink) throws {
        try sink.write("{\n  \"schemaVersion\": 1,\n  \"files\": ")
        if reports.isEmpty { try sink.write("[]") } else {
            try sink.write("[\n")
            for (i, r) in reports.enumerated() {
                let head: [(String, JSON)] = [
                    ("file", .string(r.policy.file)),
                    ("semantics", .string(r.policy.semantics.rawValue)),
                    ("expectations", .int(r.count)), ("passed", .int(r.passed)), ("failed", .int(r.failed)),
                ]
                try sink.write("    {\n")
                for (k, v) in head { try sink.write("      " + JSON.quote(k) + ": " + v.render(indent: 6) + ",\n") }
                try sink.write("      \"results\": ")
                if r.count == 0 { try sink.write("[]") } else {
                    try sink.write("[\n")
                    var first = true
                    var failure: Error? = nil
                    r.forEachOutcome { o in
                        guard failure == nil else { return }
                        var fields: [(String, JSON)] = [
                            ("name", .string(o.expectation.label)),
                            ("location", .string(o.expectation.location.description)),
                            ("passed", .bool(o.passed)),
                            ("mismatches", .array(o.mismatches.map { .string($0) })),
                        ]
                        if let d = o.decision {
                            let t = r.renderer(for: o)
                            fields.append(("decision", t.json(d, spec: o.expectation.request, who: o.expectation.asText ?? "", semantics: r.policy.semantics)))
                        }
                        if let a = o.actualAllowed { fields.append(("allowed", .array(a.map { .string($0) }))) }
                        if o.expectation.isQuantified {
                            let t = r.renderer(for: o)
                            fields.append(("pairs", .int(o.pairsChecked)))
                            fields.append(("counterexampleCount", .int(o.counterexampleCount)))
                            fields.append(("counterexamples", .array(o.counterexamples.map { c in
                                var spec = o.expectation.request
                                spec.path = c.path
                                return .object([("user", .string(c.user)), ("uid", .int(Int(c.uid))), ("path", .string(c.path)),
                                                ("mismatch", .string(c.mismatch)),
                                                ("decision", t.json(c.decision, spec: spec, who: c.user, semantics: r.policy.semantics))])
                            })))
                        }
                        do {
                            try sink.write((first ? "" : ",\n") + "        " + JSON.object(fields).render(indent: 8))
                        } catch { failure = error }
                        first = false
                    }
                    if let failure { throw failure }
                    try sink.write("\n      ]")
                }
                try sink.write("\n    }" + (i == reports.count - 1 ? "\n" : ",\n"))
            }
            try sink.write("  ]")
        }
        let total = reports.reduce(0) { $0 + $1.count }
        let failed = reports.reduce(0) { $0 + $1.failed }
        try sink.write(",\n  \"diagnostics\": " + JSON.array(diagnostics.map(diagnosticJSON)).render(indent: 2))
        try sink.write(",\n  \"summary\": " + JSON.object([("expectations", .int(total)), ("passed", .int(total - failed)), ("failed", .int(failed))]).render(indent: 2))
        for (k, v) in extra { try sink.write(",\n  " + JSON.quote(k) + ": " + v.render(indent: 2)) }
        try sink.write("\n}\n")
    }

    public static func diagnosticJSON(_ d: Diagnostic) -> JSON {
        .object([("file", .string(d.location.file)), ("line", .int(d.location.line)), ("column", .int(d.location.column)),
                 ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
                 ("help", d.help.map { .string($0) } ?? .null)])
    }

    public static func xml(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 has no way to write most of these (not even as `&#…;`): the one
                // escaping rule writes them as `\ooo` text.
                if Escaping.isUnsafe(u.value) && u != "\n" && u != "\t" { out += Escaping.line(String(u)) } else { out.unicodeScalars.append(u) }
            }
        }
        return out
    }

    /// JUnit XML: a testsuite per file, a testcase per expectation, failures with a message.
    public static func junit(_ reports: [any CheckedFile]) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? junit(reports, to: sink)
        try? sink.flush()
        return out
    }

    /// `extraSuites`: more `<testsuite>` elements (already XML), with their test and failure counts.
    public static func junit(_ reports: [any CheckedFile], extraSuites: (xml: String, tests: Int, failures: Int)? = nil, to sink: ReportSink) throws {
        let total = reports.reduce(0) { $0 + $1.count } + (extraSuites?.tests ?? 0)
        let failed = reports.reduce(0) { $0 + $1.failed } + (extraSuites?.failures ?? 0)
        try sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        try sink.write("<testsuites name=\"fspolicy\" tests=\"\(total)\" failures=\"\(failed)\" errors=\"0\">\n")
        for r in reports {
            try sink.write("  <testsuite name=\"\(xml(r.policy.file))\" tests=\"\(r.count)\" failures=\"\(r.failed)\" errors=\"0\" skipped=\"0\" file=\"\(xml(r.policy.file))\">\n")
            try sink.write("    <properties>\n      <property name=\"semantics\" value=\"\(r.policy.semantics.rawValue)\"/>\n    </properties>\n")
            var failure: Error? = nil
            r.forEachOutcome { o in
                guard failure == nil else { return }
                let e = o.expectation
                var x = "    <testcase name=\"\(xml(e.label))\" classname=\"\(xml(r.policy.file))\""
                if o.passed { x += "/>\n" } else {
                    x += ">\n"
                    var body = e.location.description + ": " + e.label + "\n" + o.mismatches.joined(separator: "\n")
                    if let d = o.decision {
                        let t = r.renderer(for: o)
                        body += "\nactual: " + t.oneLine(d, target: t.world.lookup(e.request.path)) + "\ntrace:\n" + t.trace(d).joined(separator: "\n")
                    }
                    x += "      <failure type=\"expectation\" message=\"\(xml(o.mismatches.joined(separator: "; ")))\">\(xml(body))</failure>\n"
                    x += "    </testcase>\n"
                }
                do { try sink.write(x) } catch { failure = error }
            }
            if let failure { throw failure }
            try sink.write("  </testsuite>\n")
        }
        if let x = extraSuites { try sink.write(x.xml) }
        try sink.write("</testsuites>\n")
    }

    /// SARIF 2.1.0: one result per failed expectation and per diagnostic.
    public static func sarif(_ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? sarif(reports, diagnostics: diagnostics, toolVersion: toolVersion, to: sink)
        try? sink.flush()
        return out
    }

    /// `extraRules` are appended to `tool.driver.rules` (their indices follow the others) and
    /// `extraResults` to the results.
    public static func sarifRuleCount(_ diagnostics: [Diagnostic]) -> Int { Set(diagnostics.map(\.code)).subtracting(["expectation-failed"]).count + 1 }

    public static func sarif(_ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String,
                             extraRules: [JSON] = [], extraResults: [JSON] = [], to sink: ReportSink) throws {
        var rules: [(String, String)] = [("expectation-failed", "An expectation about an access decision does not hold")]
        var ruleIDs: Set<String> = ["expectation-failed"]
        for d in diagnostics where ruleIDs.insert(d.code).inserted { rules.append((d.code, Findings.summaries[d.code] ?? "Policy file problem: \(d.code)")) }
        func location(_ l: SourceLocation) -> JSON {
            .object([("physicalLocation", .object([
                ("artifactLocation", .object([("uri", .string(l.file))])),
                ("region", .object([("startLine", .int(l.line)), ("startColumn", .int(l.column))])),
            ]))])
        }
        // The document around the results, rendered once; the results are written between.
        let marker = "\u{0}results\u{0}"
        let anyResult = !diagnostics.isEmpty || reports.contains { $0.failed > 0 } || !extraResults.isEmpty
        let doc = JSON.object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object([
                    ("name", .string("fspolicy")),
                    ("version", .string(toolVersion)),
                    ("rules", .array(rules.map { .object([("id", .string($0.0)), ("shortDescription", .object([("text", .string($0.1))]))]) } + extraRules)),
                ]))])),
                ("results", .array(anyResult ? [.string(marker)] : [])),
            ])])),
        ]).render() + "\n"
        guard anyResult, let at = doc.range(of: "        " + JSON.quote(marker)) else { try sink.write(doc); return }
        try sink.write(String(doc[..<at.lowerBound]))
        var first = true
        func emit(_ j: JSON) throws {
            try sink.write((first ? "" : ",\n") + "        " + j.render(indent: 8))
            first = false
        }
        for r in reports {
            var failure: Error? = nil
            r.forEachOutcome { o in
                guard failure == nil, !o.passed else { return }
                let t = r.renderer(for: o)
                var text = "\(o.expectation.label): " + o.mismatches.joined(separator: "; ")
                if let d = o.decision { text += " (actual: " + t.oneLine(d, target: t.world.lookup(o.expectation.request.path)) + ", rule \(d.rule.rawValue))" }
                do {
                    try emit(.object([("ruleId", .string("expectation-failed")), ("level", .string("error")),
                                      ("message", .object([("text", .string(text))])),
                                      ("locations", .array([location(o.expectation.location)]))]))
                } catch { failure = error }
            }
            if let failure { throw failure }
        }
        for d in diagnostics {
            var text = d.message
            if let h = d.help { text += " (help: \(h))" }
            try emit(.object([("ruleId", .string(d.code)), ("level", .string(d.severity == .error ? "error" : "warning")),
                              ("message", .object([("text", .string(text))])),
                              ("locations", .array([location(d.location)]))]))
        }
        for j in extraResults { try emit(j) }
        try sink.write(String(doc[at.upperBound...]))
    }
}
