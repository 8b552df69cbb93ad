import FSPolicy
import FSPolicyFormat

/// The JSON of the commands that only look at files: `validate` (valid or not, and every
/// diagnostic) and `fmt --format json` (which files were, or would be, changed).
public enum FileReports {
    public static func validationJSON(valid: Bool, diagnostics: [Diagnostic]) -> String {
        JSON.object([
            ("schemaVersion", .int(1)), ("valid", .bool(valid)),
            ("diagnostics", .array(diagnostics.map(Reports.diagnosticJSON)))
        ]).render() + "\n"
    }

    /// `validate`'s line for a valid file.
    public static func validLine(_ file: String, _ p: Policy) -> String {
        "\(file): valid (\(Reports.counted(p.expectations.count, "expectation")), \(Reports.counted(p.world.nodeCount, "node")), semantics \(p.semantics.rawValue))"
    }

    /// `files`: each file and whether formatting changed it, in the order given.
    public static func formatJSON(check: Bool, files: [(file: String, changed: Bool)]) -> String {
        JSON.object([
            ("schemaVersion", .int(1)), ("check", .bool(check)),
            ("files", .array(files.map { .object([("file", .string($0.file)), ("changed", .bool($0.changed))]) }))
        ]).render() + "\n"
    }
}
