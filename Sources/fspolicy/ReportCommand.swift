import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "One self-contained HTML page: the tree, who may do what, expectations and findings.",
        discussion: """
            Writes a page that opens from a file, with no network and under a strict \
            Content-Security-Policy: a collapsible tree of each file's world (ls -le / getfacl \
            style, with the source file:line), for the selected node the users x operations grid \
            (each cell opens its explanation, the same text as `explain`), the results of `check` \
            and the findings of `lint`, each linking to its node, a search box and a filter "what \
            this user can do". Full explanations are embedded for a bounded number of cells \
            (--max-explained); the other cells show their answer and the `fspolicy explain` command \
            that prints the rest (docs/report.md). Default users: all declared; default ops by node type: \
            read, write, execute on files (and everything but directories), list, search, modify on directories.

            Examples:
              fspolicy report fixtures/examples/team-share/policy.yaml -o team-share.html
              fspolicy report fixtures/examples/flags/policy.yaml --compare --op read,write,delete -o flags.html

            Exit codes: 0 · 3 invalid input or output not written.
            """)

    @Argument(help: "Policy files or scans.") var files: [String]
    @Option(name: [.customShort("o"), .long], help: "Write the page to this file instead of standard output.") var output: String?
    @Flag(name: .long, help: "With --output: when the file is a symbolic link, write to the file it points to (refused otherwise).") var followSymlinks = false
    @Option(name: .long, help: "Users of the grid, comma-separated or repeated, services as service:NAME (default: every declared user, then every service).")
    var users: [String] = []
    @Option(
        name: .long,
        help: ArgumentHelp(
            "An operation of the grid, comma-separated or repeated (default: read, write, execute on files; list, search, modify on directories).",
            valueName: "op")) var op: [String] = []
    @Option(name: .long, help: "Rule set that decides, overriding the files: macos, guide or linux.") var semantics: Semantics?
    @Flag(name: .long, help: "Also decide under the other two rule sets and show them where they differ.") var compare = false
    @Option(
        name: .customLong("max-explained"), help: ArgumentHelp("Grid cells (user x op x rule set) whose full explanation is embedded, in all.", valueName: "n"))
    var maxExplained: Int = 3000
    @Option(name: .long, help: ArgumentHelp("Counterexamples embedded per failing quantified expectation.", valueName: "n")) var maxExamples: Int = 5

    func validate() throws {
        if maxExplained < 0 { throw ValidationError("`--max-explained` must be 0 or more") }
        if maxExamples < 0 { throw ValidationError("`--max-examples` must be 0 or more") }
    }

    func run() throws {
        let host = try OutputGuard.check(output: output, inputs: files.map { ($0, "the policy file", false) })
        let ops = try AuditInput.ops(op, defaults: AuditInput.fileOps + AuditInput.directoryOps)
        let byType = op.isEmpty ? (file: AuditInput.opIndices(directory: false), directory: AuditInput.opIndices(directory: true)) : nil
        // Every cell names the `explain` command that prints its trace; chmod needs a mode there.
        if ops.contains(.chmod) {
            printError(
                "fspolicy: error: `--op chmod` needs the new mode, so a report cell could not name the `explain` command for it\n  help: ask it with `fspolicy who FILE --op chmod --mode 0640 PATH`, or use `fspolicy matrix --op chmod`"
            )
            throw ExitCode.invalid
        }
        var inputs: [ReportInput] = []
        for file in files {
            let p = try loadOrExit(file, semantics: semantics, host: host)
            let main = semantics ?? p.semantics
            let sems = [main] + (compare ? [Semantics.macos, .guide, .linux].filter { $0 != main } : [])
            let world = Evaluator(policy: p, semantics: main, tracing: false).world(after: nil)
            let who = try AuditInput.users(users, in: p, world: world).map { u in
                (name: u.name, subject: u.name.hasPrefix("@") || u.name.hasPrefix("service:") ? u.subject : world.subject(uid: u.subject.uid))
            }
            inputs.append(ReportInput(policy: p, users: who, ops: ops, semantics: sems, opsByType: byType))
        }
        var options = ReportOptions()
        options.explainedCells = maxExplained
        options.maxExamples = maxExamples
        let page: (html: String, stats: ReportStats)
        do { page = try HTMLReport.render(inputs, options: options, version: fspolicyVersion) } catch {
            printError("fspolicy: error: \(error.message)\n  help: give fewer users (`--users`) or operations (`--op`), or split the tree")
            throw ExitCode.invalid
        }
        try OutputSink.write(page.html, to: output, followSymlinks: followSymlinks)
        if let output, !OutputSink.isStandardOutput(output) {
            let s = page.stats
            printError(
                "\(safe(output)): \(page.html.utf8.count) bytes; \(s.nodes) node\(s.nodes == 1 ? "" : "s"), \(s.cells) grid cells, \(s.explainedCells) explained in full"
            )
        }
    }
}
