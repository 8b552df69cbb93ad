import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyImport
import FSPolicyLinux
import FSPolicyRender
import FSPolicyReport
import Foundation

@main
struct FSPolicyCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fspolicy",
        abstract: "Who can do what to this file, and why: a file-system policy simulator.",
        discussion: """
            fspolicy reads a policy file (YAML, format version 1) describing users, groups, volumes and a \
            file tree, and decides requests under the macOS kernel's rules (macos), Apple's documented \
            order (guide) or the Linux kernel's rules (linux), explaining every decision layer by layer.

            Exit codes: 0 success/allow/all passed · 1 some expectations failed (check), would change (fmt --check) \
            · 2 denied (can, explain) · 3 invalid input · 64 usage error.
            """,
        version: fspolicyVersion,
        subcommands: [
            Check.self, Can.self, Explain.self, Who.self, Access.self, Matrix.self, Report.self, Diff.self, Lint.self, Simulate.self, Quiz.self, Scan.self,
            Validate.self, Fmt.self, Schema.self
        ]
    )

    static func main() {
        // Before any other thread starts: SIGINT/SIGTERM remove the temporary files and folders made.
        SignalCleanup.install()
        SafeOutput.guardStandardStreams()
        // The arguments as the shell gave their bytes (a byte that is not UTF-8 is `\ooo`).
        let arguments = RawArguments.fromProcess()
        SafeOutput.refuse(names: RawArguments.notUTF8)
        if MemoryAdvice.wanted(arguments: arguments) { MemoryAdvice.tuneAllocator() }
        Self.main(Array(arguments.dropFirst()))
    }
}

let fspolicyVersion = "0.1.0"
