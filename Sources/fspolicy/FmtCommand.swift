import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Fmt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite policy files in canonical form.",
        discussion: """
            Canonical form: keys in the contract's order, the tree sorted by path, short entries on one \
            line, ACEs in their order (a macOS ACE's rights joined by commas alone), comments kept.

            Examples:
              fspolicy fmt fixtures/examples/team-share/policy.yaml   # rewrite in place
              fspolicy fmt --check fixtures/examples/*/policy.yaml    # exit 1 if one would change
              fspolicy fmt --stdout fixtures/examples/flags/policy.yaml   # print instead of rewriting

            Exit codes: 0 · 1 would change (with --check) · 3 invalid input.
            """)

    @Flag(name: .long, help: "Do not write; exit 1 when a file is not in canonical form.") var check = false
    @Option(name: .customLong("format"), help: ArgumentHelp("Report format: text or json (which files changed, or would).", valueName: "format"))
    var formatChoice: TextOrJSON = .text
    var format: OutputFormat { formatChoice.output }
    @Flag(name: .long, help: "Print the formatted text instead of rewriting the file.") var stdout = false
    @Flag(name: .long, help: "When a file is a symbolic link, rewrite the file it points to (refused otherwise).") var followSymlinks = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Start each file with `# yaml-language-server: $schema=URL` (replacing one already there). Without this option or --no-schema-comment the line is kept as it is.",
            valueName: "url")) var schemaComment: String?
    @Flag(name: .long, help: "Remove a `# yaml-language-server: $schema=…` first line.") var noSchemaComment = false
    @Flag(name: [.customShort("q"), .long], help: "Print nothing but errors; the exit code says whether a file changed (or would, with --check).") var quiet =
        false
    @Argument(help: "Policy files to format.") var files: [String]

    func validate() throws {
        if format == .junit || format == .sarif { throw ValidationError("`--format \(format.rawValue)` is for `check`; `fmt` reports text or json") }
        if let u = schemaComment, !SchemaComment.isValid(u) { throw ValidationError("`--schema-comment` takes a URL or file name on one line") }
        if schemaComment != nil && noSchemaComment { throw ValidationError("`--schema-comment` and `--no-schema-comment` contradict each other; give one") }
        if stdout && format == .json { throw ValidationError("`--stdout` prints the formatted file; it does not go with `--format json`") }
    }

    func run() throws {
        var changed = false
        var results: [(file: String, changed: Bool)] = []
        defer { if format == .json { say(FileReports.formatJSON(check: check, files: results)) } }
        for f in files {
            // Formatting needs well-formed YAML only; `validate` checks the meaning.
            // Read as every command reads a policy file: a FIFO, directory or device, or a byte
            // that is not UTF-8, is an error that says which (at its line and column).
            let read = PolicyLoader.text(ofFile: f)
            guard let text = read.text else { _ = report(read.diagnostics); throw ExitCode.invalid }
            let formatted: String
            switch Formatter.format(text, file: f) {
            case .success(let s):
                if noSchemaComment {
                    formatted = SchemaComment.apply(s, url: nil)
                } else if let u = schemaComment {
                    formatted = SchemaComment.apply(s, url: u)
                } else {
                    formatted = s
                }
            case .failure(let e): report(e.diagnostics); throw ExitCode.invalid
            }
            if stdout { try OutputSink.write(formatted, to: nil); continue }
            let differs = formatted != text
            results.append((f, differs))
            if differs {
                changed = true
                if check {
                    if format == .text && !quiet { say("\(f): would change\n") }
                } else {
                    try OutputSink.write(formatted, to: f, followSymlinks: followSymlinks)
                    if format == .text && !quiet { say("\(f): formatted\n") }
                }
            }
        }
        if check && changed { throw ExitCode.failed }
    }
}
