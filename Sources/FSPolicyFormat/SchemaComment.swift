/// The first-line comment that tells an editor's YAML language server which JSON Schema a
/// policy file follows (`# yaml-language-server: $schema=URL`), as `scan` writes it and
/// `fmt --schema-comment` adds it.
public enum SchemaComment {
    /// What `scan` names by default: the file `fspolicy schema > fspolicy-1.schema.json` writes,
    /// beside the policy file (the language server resolves a relative name from the file).
    public static let defaultURL = "fspolicy-1.schema.json"

    static let prefix = "# yaml-language-server:"

    /// The comment line for `url`, without its line break.
    public static func line(_ url: String) -> String { "\(prefix) $schema=\(url)" }

    /// Whether `url` can be written on one comment line: no line breaks or other controls.
    public static func isValid(_ url: String) -> Bool {
        !url.isEmpty && !url.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }
    }

    /// `text` with its leading language-server comment (if any) replaced by one naming `url`,
    /// or removed when `url` is nil. Nothing else in the text changes.
    public static func apply(_ text: String, url: String?) -> String {
        var rest = Substring(text)
        if rest.hasPrefix(prefix) {
            if let nl = rest.firstIndex(of: "\n") { rest = rest[rest.index(after: nl)...] } else { rest = "" }
        }
        guard let url else { return String(rest) }
        return line(url) + "\n" + rest
    }
}
