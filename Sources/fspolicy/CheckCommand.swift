import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate every expectation in each policy file.",
        discussion: """
            Prints, per file, `N expectations, N passed, N failed` and, for each failure, its file:line, \
            its name, what was expected and what happened, and the decision trace.

            Examples:
              fspolicy check fixtures/examples/team-share/policy.yaml
              fspolicy check --format junit --output report.xml fixtures/examples/*/policy.yaml
              fspolicy check --format sarif fixtures/examples/team-share/policy.yaml > fspolicy.sarif

            With --findings, the lint findings of docs/findings.md are reported too, in the same \
            format: after the report (text), under "findings" (JSON), as a test suite "fspolicy lint" \
            with a test case per rule (JUnit), as results of the FSL rules (SARIF). The app warnings \
            then appear under their catalog codes (FSL013–FSL017) instead.

            An expectation whose answer depends on what the file does not hold (a folder a scan did \
            not read: docs/semantics.md P6) is unknown, counted apart from passed and failed.

            Exit codes: 0 all passed · 1 some failed (or, with --findings, a finding at or above \
            --fail-on) · 3 invalid input · 4 none failed but some are unknown (0 with --allow-unknown).
            """)

    @OptionGroup var common: CommonOptions<CheckFormat>

    @Argument(help: "Policy files to check.")
    var files: [String]

    @Flag(name: .long, help: "Report the lint findings (docs/findings.md) too.")
    var findings = false

    @Option(name: .customLong("fail-on"), help: "With --findings: exit 1 when a finding has this severity or a higher one (note, warning, error).")
    var failOn: LintSeverity = .error

    @Option(name: .long, help: "With --findings: a previous lint or check --findings output (JSON or SARIF); report only new findings.")
    var baseline: String?

    @Flag(name: .long, help: "With --format json: passed expectations' decisions carry their trace too (by default only failures' do).")
    var allTraces = false

    @Option(name: .long, help: "Counterexamples shown, with their explanation, per failing quantified expectation (all are counted).")
    var maxExamples: Int = 5

    @Flag(name: .long, help: "Expectations whose answer is unknown (what decides it was not read) do not fail the run; they are still reported.")
    var allowUnknown = false

    func validate() throws {
        if maxExamples < 0 { throw ValidationError("`--max-examples` must be 0 or more") }
        if common.format == .jsonl { throw ValidationError("`--format jsonl` is for `can --batch`; `check` prints text, json, junit or sarif") }
        if baseline != nil && !findings { throw ValidationError("`--baseline` goes with `--findings`") }
        if allTraces && common.format != .json {
            throw ValidationError("`--all-traces` goes with `--format json` (the other formats print the trace of failures only)")
        }
    }

    func run() throws {
        let host = try OutputGuard.check(
            output: common.output, inputs: files.map { ($0, "the policy file", false) } + (baseline.map { [($0, "the baseline", false)] } ?? []))
        var reports: [any CheckedFile] = []
        var diagnostics: [Diagnostic] = []
        var invalid = false
        var keychainRuns: [(String, [KeychainOutcome])] = []
        var lintItems: [LintItem] = [], lintSuppressed: [LintItem] = [], lintRuns: [(String, Semantics)] = []
        /// Whether a progress line may be left to clear once the report is written (or its
        /// writing failed).
        var progressLines = false
        defer { if progressLines { printProgress("\r\u{1B}[K") } }
        // The reports hold the policies and their expectations: kept, not taken apart (see
        // `ProcessLifetime`).
        defer { ProcessLifetime.keep(reports) }
        let progress = Terminal.progressWanted(quiet: common.quiet)
        for f in files {
            let p = PolicyLoader.load(path: f, semanticsOverride: common.semantics, host: host)
            let diags = p.diagnostics.sorted
            diagnostics += diags
            if report(diags) { invalid = true; continue }
            // Decided once here to count them; the report decides each again as it is written,
            // so no outcome is kept. The JSON report writes each file's counts after its
            // results: each expectation is decided once, as it is written, and counted then.
            var ev = Evaluator(policy: p)
            ev.maxExamples = maxExamples
            let showProgress = progress && p.expectations.count >= 2000
            let tell = { (i: Int) in
                if showProgress && i % 500 == 0 { printProgress("\r" + Escaping.line(f) + ": \(i)/\(p.expectations.count)") }
            }
            var fr: StreamedFileReport
            if common.format == .json {
                // Progress while the report is written, unless the report goes to the terminal
                // too (its lines would land among the report's).
                let reportOnTerminal = (common.output == nil || common.output == "-") && isatty(STDOUT_FILENO) == 1
                fr = .uncounted(evaluator: ev, progress: reportOnTerminal ? { _ in } : tell)
                if showProgress && !reportOnTerminal { progressLines = true }
            } else {
                fr = StreamedFileReport(evaluator: ev, progress: tell)
                if showProgress { printProgress("\r\u{1B}[K") }
            }
            if findings {
                let r = LintItem.collect(p, file: f, semantics: common.semantics)
                if report(r.errors) { invalid = true; continue }
                lintItems += r.items
                lintSuppressed += r.suppressed
                lintRuns.append((f, r.semantics))
            } else {
                fr.findings = Findings.analyze(p)
                diagnostics += fr.findings
            }
            reports.append(fr)
            if let kc = p.keychain { keychainRuns.append((f, kc.outcomes())) }
        }
        let keychainFailed = keychainRuns.contains { $0.1.contains { $0.isCheck && !$0.passed } }
        var known: Int? = nil
        if let b = baseline {
            let base = try LintBaseline.loadOrExit(b)
            let before = lintItems.count
            lintItems = lintItems.filter { !base.contains($0) }
            known = before - lintItems.count
        }
        // The report is written in pieces as it is made, to standard output or to the file
        // (through a temporary file put in place at the end): never held whole.
        let sink = try common.sink()
        switch common.format {
        case .text, .jsonl:
            try Reports.text(reports, keychain: keychainRuns, style: common.style, quiet: common.quiet, to: sink)
            if findings { sink.write("findings:\n" + LintReport.text(lintItems, suppressed: lintSuppressed, fileCount: lintRuns.count, inBaseline: known)) }
        case .json:
            var extra: [(String, JSON)] =
                findings ? [("findings", LintReport.json(lintItems, suppressed: lintSuppressed, runs: lintRuns, inBaseline: known))] : []
            if !keychainRuns.isEmpty { extra.append(("keychain", .array(keychainRuns.map { KeychainReport.json($0.0, $0.1) }))) }
            try Reports.json(
                reports, diagnostics: diagnostics, extra: extra, extraCounts: KeychainReport.counts(keychainRuns), passTraces: allTraces, to: sink)
        case .junit:
            var suites = findings ? LintReport.junitSuite(lintItems, runs: lintRuns, failOn: failOn) : nil
            if !keychainRuns.isEmpty {
                let k = KeychainReport.junitSuites(keychainRuns)
                suites = ((suites?.xml ?? "") + k.xml, (suites?.tests ?? 0) + k.tests, (suites?.failures ?? 0) + k.failures)
            }
            try Reports.junit(reports, extraSuites: suites, to: sink)
        case .sarif:
            let offset = Reports.sarifRuleCount(diagnostics)
            let rules: [JSON] =
                findings
                ? {
                    if case .array(let a) = LintReport.sarifRules { return a }; return []
                }() : []
            try Reports.sarif(
                reports, diagnostics: diagnostics, toolVersion: fspolicyVersion, extraRules: rules,
                extraResults: KeychainReport.sarifResults(keychainRuns)
                    + (lintItems + lintSuppressed).map { LintReport.sarifResult($0, ruleOffset: offset) }, to: sink)
        }
        try sink.close()
        if invalid { throw ExitCode.invalid }
        if reports.contains(where: { $0.failed > 0 }) || keychainFailed { throw ExitCode.failed }
        if lintItems.contains(where: { $0.finding.severity >= failOn }) { throw ExitCode.failed }
        if !allowUnknown && reports.contains(where: { $0.unknown > 0 }) { throw ExitCode.unknown }
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Parse and check policy files without evaluating anything.",
        discussion: """
            Reports every problem as file:line:column: error: message, with a help line where one helps. \
            For a valid file with apps, the findings about them (missing purpose strings, temporary \
            exceptions, unbalanced or stale bookmarks, unused entitlements) follow its line as warnings; \
            finding unused entitlements decides the file's app expectations.

            Examples:
              fspolicy validate fixtures/examples/team-share/policy.yaml
              fspolicy validate --format json fixtures/examples/*/policy.yaml

            Exit codes: 0 valid · 3 invalid input.
            """)

    @OptionGroup var common: CommonOptions<TextOrJSON>

    @Argument(help: "Policy files to validate.")
    var files: [String]

    func validate() throws { try common.requireTextOrJSON("validate") }

    func run() throws {
        let host = try OutputGuard.check(output: common.output, inputs: files.map { ($0, "the policy file", false) })
        var invalid = false
        var all: [Diagnostic] = []
        var lines: [String] = []
        for f in files {
            let p = PolicyLoader.load(path: f, semanticsOverride: common.semantics, host: host)
            ProcessLifetime.keep(p)
            // The rule names of `findings:`, against the one catalog lint uses.
            let diags = (p.diagnostics.sorted + LintItem.unknownRules(p)).sorted { $0.location < $1.location }
            all += diags
            let bad = diags.contains { $0.severity == .error }
            report(diags)
            if bad {
                invalid = true
            } else {
                if !common.quiet {
                    lines.append(FileReports.validLine(f, p))
                }
                let findings = Findings.analyze(p)
                all += findings
                lines += findings.map(\.rendered)
            }
        }
        switch common.format {
        case .json:
            try common.emit(FileReports.validationJSON(valid: !invalid, diagnostics: all))
        default: if !lines.isEmpty { try common.emit(lines.joined(separator: "\n") + "\n") }
        }
        if invalid { throw ExitCode.invalid }
    }
}
