import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the steps of a policy file and print the resulting tree.",
        discussion: """
            Each step is authorized first and applied only when allowed (with the rule set's creation, \
            inheritance and umask rules). The output lists what each step did, then the tree: `ls -le` \
            style under macos and guide (numbered ACEs, `inherited`), getfacl style under linux.

            Examples:
              fspolicy simulate fixtures/examples/figure-b1/policy.yaml
              fspolicy simulate fixtures/examples/figure-b1/policy.yaml --after 2 --path "/Directory 0"
              fspolicy simulate fixtures/examples/linux-default-acl/policy.yaml --format json

            Exit codes: 0 every step did what it said · 1 a step was denied (or allowed) unexpectedly · 3 invalid input.
            """)

    @OptionGroup var common: CommonOptions<TextOrJSON>
    @Argument(help: "The policy file.") var file: String
    @Option(name: .long, help: "Show the tree after the first N steps (default: after all).") var after: Int?
    @Option(name: .long, help: "Show only this directory and what is below it.") var path: String = "/"

    func validate() throws { try common.requireTextOrJSON("simulate") }

    func run() throws {
        let host = try OutputGuard.check(output: common.output, inputs: [(file, "the policy file", false)])
        let p = try loadOrExit(file, semantics: common.semantics, host: host)
        let ev = Evaluator(policy: p, semantics: common.semantics)
        if let a = after, a < 0 || a > p.steps.count {
            printError("fspolicy: error: `--after \(a)` but the file has \(p.steps.count) step(s)\n  help: give a number from 0 to \(p.steps.count)")
            throw ExitCode.invalid
        }
        let upTo = after ?? p.steps.count
        let w = ev.world(after: upTo)
        let t = TextRenderer(policy: p, style: common.style, world: w)
        guard let top = w.lookup(path) else {
            printError("fspolicy: error: `\(path)` is not in the simulated tree\n  help: give a path of the tree, or leave out --path")
            throw ExitCode.invalid
        }
        let checks = Array(ev.checkSteps().prefix(upTo))
        let nodes = t.listedNodes(under: top)
        switch common.format {
        case .json:
            try common.emit(SimulateReport.json(ev, checks: checks, upTo: upTo, nodes: nodes, renderer: t))
        default:
            let text = SimulateReport.text(ev, checks: checks, upTo: upTo, nodes: nodes, renderer: t, style: common.style, quiet: common.quiet)
            if !text.isEmpty { try common.emit(text) }
        }
        if checks.contains(where: { !$0.passed }) { throw ExitCode.failed }
    }
}
