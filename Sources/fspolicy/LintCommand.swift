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
        abstract:
            "Findings about a tree and its apps: the catalog of docs/findings.md (world-writable, setuid, home and service directories, ACL hygiene, exposed secrets, apps).",
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
    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding has this severity or a higher one: note, warning or error.") var failOn: LintSeverity =
        .error
    @Option(name: [.customShort("o"), .long], help: "Write to this file instead of standard output.") var output: String?
    @Option(name: .long, help: "Rule set that decides, overriding the files: macos, guide or linux.") var semantics: Semantics?
    @OptionGroup var color: ColorOption
    @Option(name: .long, help: "A previous `lint --format json` or `--format sarif` output: report only the findings it does not have.") var baseline: String?

    typealias Item = LintItem

    func run() throws {
        let host = try OutputGuard.check(
            output: output, inputs: files.map { ($0, "the policy file", false) } + (baseline.map { [($0, "the baseline", false)] } ?? []))
        var items: [Item] = []
        var suppressed: [Item] = []
        var runs: [(String, Semantics)] = []
        for file in files {
            let p = try loadOrExit(file, semantics: semantics, host: host)
            let r = LintItem.collect(p, file: file, semantics: semantics)
            if report(r.errors) { throw ExitCode.invalid }
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
        let style = color.style(output: output)
        // Text's pieces are escaped already; with color, the escaping rule turns the style's
        // marks into colors.
        let sink = try OutputSink.open(output, mode: format == .text && style.enabled ? .escaped(color: true) : .raw)
        switch format {
        case .text:
            sink.write(LintReport.text(items, suppressed: suppressed, fileCount: files.count, inBaseline: baseline == nil ? nil : known, style: style))
        case .json: sink.write(LintReport.json(items, suppressed: suppressed, runs: runs, inBaseline: baseline == nil ? nil : known).render() + "\n")
        case .sarif: sink.write(LintReport.sarif(items, suppressed: suppressed, toolVersion: fspolicyVersion).render() + "\n")
        }
        try sink.close()
        if items.contains(where: { $0.finding.severity >= failOn }) { throw ExitCode.failed }
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
            throw ExitCode.invalid
        }
        do { return try parse(data) } catch {
            if case .message(let m) = error { printError("\(Escaping.line(path)): error: the baseline \(m)") }
            throw ExitCode.invalid
        }
    }
}
