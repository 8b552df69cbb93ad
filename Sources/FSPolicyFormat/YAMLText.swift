/// Writing YAML text that every YAML reader takes back unchanged.
public enum YAMLText {
    /// A double-quoted YAML scalar: `"` and `\` escaped, and every code point YAML does not
    /// allow raw or that the one escaping rule calls unsafe (`Escaping.isUnsafe`) as a YAML
    /// escape (`\n`, `\t`, `\xXX`, `\uXXXX`, `\UXXXXXXXX`), so the file never holds a control
    /// character, a separator that a YAML 1.1 reader ends a line at, or a noncharacter.
    public static func quote(_ s: String) -> String {
        // Printable ASCII without `"` or `\`: nothing to escape.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return "\"" + s + "\"" }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let v = u.value
                if Escaping.isUnsafe(v) || (0xD800...0xDFFF).contains(v) {
                    let hex = String(v, radix: 16, uppercase: true)
                    if v <= 0xFF {
                        out += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                    } else if v <= 0xFFFF {
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out += "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// YAML readers refuse an implicit key longer than 1,024 characters; longer keys are
    /// written as explicit keys (`? KEY` then `: VALUE` on the next line).
    public static let implicitKeyLimit = 1024

    /// One block-mapping entry `KEY: VALUE` at `indent` spaces, explicit when the key is long
    /// or spans lines.
    public static func entry(key: String, value: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        if key.unicodeScalars.count <= implicitKeyLimit - 2 && !key.contains("\n") { return pad + key + ": " + value }
        return pad + "? " + key + "\n" + pad + ": " + value
    }

    /// An absolute path with `.` and empty components dropped and `..` applied (`/a/../b` is `/b`).
    public static func lexicalPath(_ path: String) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/") {
            if c == "." { continue }
            if c == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(c)
        }
        return "/" + parts.joined(separator: "/")
    }
}
