import FSPolicy

/// Limits by design (docs/policy-format.md, "Limits").
public enum Limits {
    /// Bytes in one name (a path component): NAME_MAX on Linux and macOS.
    public static let nameBytes = 255
    /// Files in one chain of nested `import: - policy:` entries (the importing file included).
    /// Each level is loaded by a nested call, so the chain is bounded well below what the
    /// stack holds (about 250 levels in a debug build, 1,000 in a release build).
    public static let importDepth = 64
}

/// What a user or group name may be: text an ACE can name and a terminal can show.
public enum PrincipalName {
    /// The empty set of users in words (`allowed: no one`). Not `nobody`: that is an account on
    /// nearly every Linux and macOS host. A name cannot hold a space, so nobody is called this.
    public static let noOne = "no one"

    /// Why `name` cannot be a user or group name, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if numericID(name) != nil || name == noIDText { return "a name made of digits would read as an id" }
        for u in name.unicodeScalars {
            // ASCII first, without Unicode's property tables: the same answers as the test below.
            let v = u.value
            if v < 0x80 {
                if v == 0x3A || v == 0x2C || v == 0x20 || (0x09...0x0D).contains(v) {
                    return "ACE text could not name it (`:`, `,` and spaces separate the parts of an ACE)"
                }
                if v < 0x20 || v == 0x7F { return "it holds a control character" }
                continue
            }
            if u == ":" || u == "," || u == " " || u == "\t" || u.properties.isWhitespace {
                return "ACE text could not name it (`:`, `,` and spaces separate the parts of an ACE)"
            }
            if Escaping.isUnsafe(u.value) { return "it holds a control character" }
        }
        return nil
    }
}
