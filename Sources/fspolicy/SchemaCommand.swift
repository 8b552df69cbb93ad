import ArgumentParser
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema of the policy file format, for editors and validators.",
        discussion: """
            The schema (JSON Schema draft 2020-12) is built from the loader's own key tables and the \
            rule engine's word lists (operations, flags, ACE rights, errnos, layers), so it accepts \
            the keys the loader accepts. Save it beside your policy files and point your editor at \
            it: a first line `# yaml-language-server: $schema=fspolicy-1.schema.json` gives \
            completion and checking in editors that use the YAML language server.

            Examples:
              fspolicy schema -o fspolicy-1.schema.json

            Exit codes: 0.
            """)

    @Option(name: [.customShort("o"), .long], help: "Write the schema to this file instead of standard output.") var output: String?
    @Flag(name: .long, help: "With --output: when the file is a symbolic link, write to the file it points to (refused otherwise).") var followSymlinks = false

    func run() throws {
        try OutputSink.write(PolicySchema.json.render() + "\n", to: output, followSymlinks: followSymlinks)
    }
}
