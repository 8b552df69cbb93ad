import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

enum LintFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif
}

extension LintSeverity: ExpressibleByArgument {}

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Findings about a tree and its apps: the catalog of docs/findings.md (world-writable, setuid, home and service directories, ACL hygiene, exposed secrets, apps).",
        discussion: """
        Runs the catalog of docs/findings.md over each file's tree (after its steps) and apps \
        under the file's rule set, configured by the file's `findings:` section (rules off or at \
        another severity, more sensitive names and service directories, suppressions with a \
        reason). Text output groups the findings by rule, with a count per rule; JSON and SARIF \
        carry the same findings with a fingerprint (SARIF lists every rule of the catalog in \
        tool.driver.rules). --baseline takes an earlier JSON or SARIF output and reports only \
        what it does not have.

        Examples:
          fspolicy lint fixtures/lint/world-writable-directory.yaml
          fspolicy lint fixtures/lint/setid-writable-by-others.yaml --format sarif
          fspolicy lint fixtures/lint/world-writable-file.yaml --fail-on warning
          fspolicy lint fixtures/lint/setid-writable-by-others.yaml --baseline fixtures/lint/setid-writable-by-others.baseline.json

        Exit codes: 0 no finding at or above --fail-on · 1 some · 3 invalid input.
        """)

    @Argument(help: "Policy files or scans.") var files: [String]
    @Option(name: .long, help: "text, json or sarif.") var format: LintFormat = .text
    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding has this severity or a higher one: note, warning or error.") var failOn: LintSeverity = .error
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of standard output.") var output: String?
    @Option(name: .long, help: "Rule set that decides, overriding the files: macos, guide or linux.") var semantics: Semantics?
    @OptionGroup var color: ColorOption
    @Option(name: .long, help: "A previous `lint --format json` or `--format sarif` output: report only the findings it does not have.") var baseline: String?

    typealias Item = LintItem

    func run() throws {
        try OutputGuard.check(output: output, inputs: files.map { ($0, "the policy file", false) } + (baseline.map { [($0, "the baseline", false)] } ?? []))
        var items: [Item] = []
        var suppressed: [Item] = []
        var runs: [(String, Semantics)] = []
        for file in files {
            let p = try loadOrExit(file, semantics: semantics)
            let r = LintItem.collect(p, file: file, semantics: semantics)
            if report(r.errors) { throw ExitCode(3) }
            runs.append((file, r.semantics))
            items += r.items
            suppressed += r.suppressed
        }
        var known = 0
        if let b = baseline {
            let base = try LintBaseline.loadOrExit(b)
            let before = items.count
            items = items.filter { !base.contains($0) }
            known = before - items.count
        }
        let sink = try OutputSink(path: output)
        switch format {
        case .text:
            let style = color.style(output: output)
            let text = LintReport.text(items, suppressed: suppressed, fileCount: files.count, inBaseline: baseline == nil ? nil : known, style: style)
            // The pieces are escaped already; this turns the style's marks into colors.
            sink.write(style.enabled ? Escaping.terminal(text, color: true) : text)
        case .json: sink.write(LintReport.json(items, suppressed: suppressed, runs: runs, inBaseline: baseline == nil ? nil : known).render() + "\n")
        case .sarif: sink.write(LintReport.sarif(items, suppressed: suppressed).render() + "\n")
        }
        sink.close()
        if items.contains(where: { $0.finding.severity >= failOn }) { throw ExitCode(1) }
    }
}

/// The three outputs of `lint` (text grouped by rule, JSON, SARIF); `check --findings` uses the
/// same pieces.
enum LintReport {
    static func place(_ i: LintItem) -> String {
        if let l = i.location, l.line > 0 { return "\(source(i)):\(l.line):\(max(1, l.column))" }
        return i.file
    }

    /// The file the location's line is in: the policy file, or the listing, getfacl dump or
    /// other file it imports the node from.
    static func source(_ i: LintItem) -> String {
        if let l = i.location, !l.file.isEmpty { return l.file }
        return i.file
    }

    /// One finding as text lines (place, path, message; the fix below).
    static func lines(_ i: LintItem, indent: String = "  ") -> String {
        let what = i.finding.path.isEmpty ? "" : "\(safe(i.finding.path)): "
        return "\(indent)\(safe(place(i))): \(what)\(safe(i.finding.message))\n\(indent)  fix: \(safe(i.finding.fix))\n"
    }

    static func text(_ items: [LintItem], suppressed: [LintItem], fileCount: Int, inBaseline: Int? = nil, style: Style = Style(enabled: false)) -> String {
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
            out += "\(items.count) \(inBaseline == nil ? "" : "new ")finding\(items.count == 1 ? "" : "s"): " + counts.map { "\($0.1) \($0.0.rawValue)\($0.1 == 1 ? "" : "s")" }.joined(separator: ", ") + sup + "\n"
        }
        return out
    }

    static func findingJSON(_ i: LintItem) -> JSON {
        var f: [(String, JSON)] = [
            ("code", .string(i.finding.code)), ("rule", .string(LintCatalog.rule(i.finding.code)?.name ?? "")),
            ("severity", .string(i.finding.severity.rawValue)), ("file", .string(i.file)),
        ]
        if let l = i.location, l.line > 0 {
            f.append(("source", .string(source(i))))
            f.append(("line", .int(l.line))); f.append(("column", .int(max(1, l.column))))
        }
        f += [("path", .string(i.finding.path)), ("message", .string(i.finding.message)), ("fix", .string(i.finding.fix)),
              ("affected", .array(i.finding.affected.map { .string($0) })),
              ("claims", .array(i.finding.claims.map { c in
                  .object([("op", .string(c.op.word)), ("path", .string(c.path)), ("who", .array(c.who.map { .string($0) }))])
              })),
              ("semantics", .string(i.semantics.rawValue)),
              ("fingerprint", .string(i.fingerprint))]
        if let r = i.suppressedBecause { f.append(("suppressedBecause", .string(r))) }
        return .object(f)
    }

    static func json(_ items: [LintItem], suppressed: [LintItem], runs: [(String, Semantics)], inBaseline: Int? = nil) -> JSON {
        var o: [(String, JSON)] = [
            ("schemaVersion", .int(1)),
            ("files", .array(runs.map { .object([("file", .string($0.0)), ("semantics", .string($0.1.rawValue))]) })),
            ("findings", .array(items.map(findingJSON))),
            ("suppressed", .array(suppressed.map(findingJSON))),
            ("counts", .object(LintSeverity.allCases.reversed().map { s in (s.rawValue, .int(items.filter { $0.finding.severity == s }.count)) })),
        ]
        if let k = inBaseline { o.append(("inBaseline", .int(k))) }
        return .object(o)
    }

    /// `tool.driver.rules`: the whole catalog.
    static var sarifRules: JSON {
        .array(LintCatalog.rules.map { r in .object([
            ("id", .string(r.code)), ("name", .string(r.name)),
            ("shortDescription", .object([("text", .string(r.summary))])),
            ("fullDescription", .object([("text", .string(r.description))])),
            ("helpUri", .string("docs/findings.md#" + r.anchor)),
            ("help", .object([("text", .string("See docs/findings.md, section \"\(r.code) \(r.name)\"."))])),
            ("defaultConfiguration", .object([("level", .string(r.severity.rawValue))])),
            ("properties", .object([("semantics", .array(r.semantics.map { .string($0.rawValue) }))])),
        ]) })
    }

    static func sarifResult(_ i: LintItem) -> JSON { sarifResult(i, ruleOffset: 0) }

    static func sarifResult(_ i: LintItem, ruleOffset: Int) -> JSON {
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
            ("partialFingerprints", .object([("fspolicyFinding/v1", .string(i.fingerprint))])),
        ]
        if let reason = i.suppressedBecause {
            r.append(("suppressions", .array([.object([("kind", .string("inSource")), ("justification", .string(reason))])])))
        }
        r.append(("properties", .object([("path", .string(i.finding.path)), ("fix", .string(i.finding.fix)),
                                         ("affected", .array(i.finding.affected.map { .string($0) })),
                                         ("semantics", .string(i.semantics.rawValue))])))
        return .object(r)
    }

    /// A JUnit test suite: one test case per file and rule of the catalog that applies under the
    /// file's rule set; it fails when the rule found something at or above `failOn` (findings
    /// below go to `system-out`).
    static func junitSuite(_ items: [LintItem], runs: [(String, Semantics)], failOn: LintSeverity) -> (xml: String, tests: Int, failures: Int) {
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
                    x += "      <failure type=\"finding\" message=\"\(Reports.xml("\(mine.count) finding\(mine.count == 1 ? "" : "s"): \(rule.summary)"))\">\(Reports.xml(body))</failure>\n"
                } else {
                    x += "      <system-out>\(Reports.xml(body))</system-out>\n"
                }
                cases += x + "    </testcase>\n"
            }
        }
        let head = "  <testsuite name=\"fspolicy lint\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n"
        return (head + cases + "  </testsuite>\n", tests, failures)
    }

    static func sarif(_ items: [LintItem], suppressed: [LintItem]) -> JSON {
        .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object([
                    ("name", .string("fspolicy")), ("version", .string(fspolicyVersion)),
                    ("rules", sarifRules),
                ]))])),
                ("results", .array((items + suppressed).map(sarifResult))),
            ])])),
        ])
    }
}

/// One finding of one input file, with where the file declares its node.
struct LintItem {
    var file: String
    var semantics: Semantics
    var finding: LintFinding
    var location: SourceLocation?
    /// For a suppressed finding: the reason the policy file gives.
    var suppressedBecause: String? = nil

    /// The stable key a baseline matches on: rule, path, and what tells findings of one rule on
    /// one path apart (FNV-1a, 64 bits, hex). The file name is not part of it, so a renamed or
    /// moved policy file keeps its baseline.
    var fingerprint: String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in (finding.code + "\u{0}" + finding.path + "\u{0}" + finding.detail).utf8 {
            h ^= UInt64(b)
            h = h &* 0x100000001b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    struct Result {
        var semantics: Semantics
        var items: [LintItem] = []
        var suppressed: [LintItem] = []
        /// Errors in the `findings:` section (unknown rule names): invalid input.
        var errors: [Diagnostic] = []
    }

    /// The findings of a loaded policy (its tree after its steps, and its apps) under its rule
    /// set or `semantics`, configured by its `findings:` section.
    /// The error for a rule name the catalog (`LintCatalog`) does not have.
    static func unknownRule(_ name: String, _ loc: SourceLocation) -> Diagnostic {
        let words = LintCatalog.rules.flatMap { [$0.code, $0.name] }
        return Diagnostic(loc, .error, code: "unknown-rule", "unknown lint rule `\(name)`",
                          help: (nearest(name, in: words).map { "did you mean `\($0)`? " } ?? "") + "the rules are listed in docs/findings.md (codes FSL001…, or their names)")
    }

    /// The rule names of a `findings:` section (settings and suppressions) that the catalog does
    /// not have, in file order: what `validate` reports (lint and check --findings report the
    /// same errors while collecting).
    static func unknownRules(_ p: Policy) -> [Diagnostic] {
        guard let cfg = p.findings else { return [] }
        var out: [Diagnostic] = []
        for s in cfg.rules where LintCatalog.rule(named: s.rule) == nil { out.append(unknownRule(s.rule, s.location)) }
        for s in cfg.suppressions where LintCatalog.rule(named: s.rule) == nil { out.append(unknownRule(s.rule, s.ruleLocation)) }
        return out
    }

    static func collect(_ p: Policy, file: String, semantics: Semantics?) -> Result {
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        let world = ev.world(after: ev.worlds.count - 1)
        let users = p.userOrder.compactMap { n in p.world.user(named: n).map { (name: n, subject: world.subject(uid: $0.uid)) } }
        var result = Result(semantics: ev.semantics)
        // The configuration.
        var options = LintOptions()
        var severity: [String: LintSeverity] = [:]
        var off = Set(LintCatalog.rules.filter { !$0.onByDefault }.map(\.code))
        func known(_ name: String, _ loc: SourceLocation) -> LintRule? {
            if let r = LintCatalog.rule(named: name) { return r }
            result.errors.append(unknownRule(name, loc))
            return nil
        }
        if let cfg = p.findings {
            for s in cfg.rules {
                guard let rule = known(s.rule, s.location) else { continue }
                if s.value == "off" { off.insert(rule.code) } else if let sev = LintSeverity(rawValue: s.value) {
                    severity[rule.code] = sev
                    off.remove(rule.code)
                }
            }
            options.sensitivePatterns += cfg.sensitive
            options.serviceDirectories += cfg.serviceDirectories
        }
        options.disabled = off
        var found: [LintItem] = []
        for f in Linter.run(world: world, semantics: ev.semantics, subjects: users, options: options) {
            found.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: p.nodeLocation(f.path)))
        }
        // The app findings (docs/sandbox.md), under the catalog's codes.
        var policy = p
        policy.semantics = ev.semantics
        for d in Findings.analyze(policy) {
            guard let rule = LintCatalog.rule(appCode: d.code), rule.semantics.contains(ev.semantics) else { continue }
            let f = LintFinding(code: rule.code, severity: rule.severity, node: -1, path: "", message: d.message,
                                fix: d.help ?? "", affected: [], detail: d.message)
            found.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: d.location))
        }
        // Rules off, severities changed, suppressions.
        let sups = p.findings?.suppressions ?? []
        var used = [Bool](repeating: false, count: sups.count)
        let supRules = sups.map { known($0.rule, $0.ruleLocation)?.code }
        for var item in found {
            let code = item.finding.code
            if off.contains(code) { continue }
            if let s = severity[code] { item.finding = item.finding.with(severity: s) }
            if let i = sups.indices.first(where: { supRules[$0] == code && sups[$0].path == item.finding.path && !item.finding.path.isEmpty }) {
                used[i] = true
                item.suppressedBecause = sups[i].reason
                result.suppressed.append(item)
                continue
            }
            result.items.append(item)
        }
        if !off.contains("FSL018") {
            for (i, s) in sups.enumerated() where !used[i] && supRules[i] != nil {
                let f = LintFinding(code: "FSL018", severity: severity["FSL018"] ?? .warning, node: -1, path: s.path,
                                    message: "the suppression of \(s.rule) on this path matches no finding (reason given: \(s.reason))",
                                    fix: "remove the suppression, or correct its rule or path", affected: [], detail: s.rule)
                result.items.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: s.location))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: LintCatalog.rules.enumerated().map { ($1.code, $0) })
        // Catalog order, then the order each rule found them in (stable).
        func sort(_ xs: [LintItem]) -> [LintItem] {
            xs.enumerated().sorted { a, b in
                let (x, y) = (order[a.element.finding.code] ?? 0, order[b.element.finding.code] ?? 0)
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
        }
        result.items = sort(result.items)
        result.suppressed = sort(result.suppressed)
        return result
    }
}

extension LintFinding {
    func with(severity: LintSeverity) -> LintFinding {
        LintFinding(code: code, severity: severity, node: node, path: path, message: message, fix: fix, affected: affected, detail: detail)
    }
}

/// The findings of a previous run (`lint --format json` or `sarif`, or `check --findings` in
/// either), by rule code, path and fingerprint: `--baseline` reports only what is not there.
struct LintBaseline {
    var keys: Set<String> = []
    /// Entries without a fingerprint (an older output): matched on code and path.
    var loose: Set<String> = []

    func contains(_ i: LintItem) -> Bool {
        keys.contains(i.finding.code + "\u{0}" + i.finding.path + "\u{0}" + i.fingerprint)
            || loose.contains(i.finding.code + "\u{0}" + i.finding.path)
    }

    mutating func add(code: String, path: String, fingerprint: String?) {
        if let f = fingerprint { keys.insert(code + "\u{0}" + path + "\u{0}" + f) } else { loose.insert(code + "\u{0}" + path) }
    }

    enum Problem: Error { case message(String) }

    static func parse(_ data: Data) throws(Problem) -> LintBaseline {
        guard let doc = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .message("is not a JSON object (give the output of `fspolicy lint --format json` or `--format sarif`)")
        }
        var b = LintBaseline()
        if let runs = doc["runs"] as? [[String: Any]] {
            // SARIF.
            for run in runs {
                for r in run["results"] as? [[String: Any]] ?? [] {
                    guard let code = r["ruleId"] as? String, code.hasPrefix("FSL") else { continue }
                    let props = r["properties"] as? [String: Any] ?? [:]
                    let fp = (r["partialFingerprints"] as? [String: Any])?["fspolicyFinding/v1"] as? String
                    b.add(code: code, path: props["path"] as? String ?? "", fingerprint: fp)
                }
            }
            return b
        }
        // JSON: lint's, or check's with the lint report under "findings".
        let lint = (doc["findings"] as? [String: Any]) ?? doc
        guard let findings = lint["findings"] as? [[String: Any]] else {
            throw .message("has no `findings` list and no SARIF `runs` (give the output of `fspolicy lint --format json` or `--format sarif`)")
        }
        for f in findings {
            guard let code = f["code"] as? String else { continue }
            b.add(code: code, path: f["path"] as? String ?? "", fingerprint: f["fingerprint"] as? String)
        }
        return b
    }

    static func loadOrExit(_ path: String) throws -> LintBaseline {
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("\(Escaping.line(path)): error: cannot read the baseline\n  help: give a file written by `fspolicy lint --format json` (or sarif)")
            throw ExitCode(3)
        }
        do { return try parse(data) } catch {
            if case .message(let m) = error { printError("\(Escaping.line(path)): error: the baseline \(m)") }
            throw ExitCode(3)
        }
    }
}
