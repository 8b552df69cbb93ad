import FSPolicyFormat
import Foundation

/// One line of text through the one escaping rule (`Escaping.line`), so that
/// nothing from a tree reaches a terminal raw.
package func safe(_ s: String) -> String { Escaping.line(s) }

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. A field that
/// a spreadsheet would take for a formula (its first character `=`, `+`, `-`, `@`, a tab or a
/// carriage return, as the name `=1+2` is) gets a `'` in front and is quoted, so it is read as
/// text (the OWASP rule against CSV injection).
package func csvField(_ s: String) -> String {
    let t = safe(s)
    if [s.utf8.first, t.utf8.first].contains(where: { $0.map(csvFormulaStarts.contains) ?? false }) {
        return "\"'" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    if !t.utf8.contains(where: { $0 == 0x2c || $0 == 0x22 || $0 == 0x0a || $0 == 0x0d }) { return t }
    return "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// First bytes that make a spreadsheet read a cell as a formula: `=`, `+`, `-`, `@`, tab, CR.
private let csvFormulaStarts: Set<UInt8> = [0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]
