import Foundation

/// A YAML node of a read document, with its file for diagnostics. Scalars are read as their
/// source text, so `mode: 0755` means octal 0755 whatever YAML's own typing says.
struct YNode {
    /// The document (which knows its file) and the node's index in it.
    let doc: FastYAMLDocument
    let index: Int32

    init(fast doc: FastYAMLDocument, _ index: Int32) {
        self.doc = doc
        self.index = index
    }

    var file: String { doc.file }

    /// A short scalar (its text a piece of the file, at most fourteen bytes) as a key of its
    /// style and bytes, without making its string; nil otherwise.
    var shortScalarKey: ScalarKey? { doc.shortScalarKey(index) }

    enum Style { case plain, singleQuoted, doubleQuoted, literal, folded }

    var line: Int { Int(doc.nodes[Int(index)].line) }
    var column: Int { Int(doc.nodes[Int(index)].column) }

    /// The style of a scalar (nil for other nodes).
    var style: Style? {
        let n = doc.nodes[Int(index)]
        guard n.kind == 0 else { return nil }
        switch n.style {
        case 0: return .plain
        case 1: return .singleQuoted
        case 2: return .doubleQuoted
        default: return doc.folded.contains(index) ? .folded : .literal
        }
    }

    var isNull: Bool {
        let n = doc.nodes[Int(index)]
        guard n.kind == 0, n.style == 0, n.b == 0 || n.b == 1 || n.b == 4 else { return false }
        guard let s = scalar else { return false }
        return s.isEmpty || s == "~" || s == "null" || s == "Null" || s == "NULL"
    }

    var scalar: String? { doc.nodes[Int(index)].kind == 0 ? doc.scalar(index) : nil }

    /// A scalar (`scalar != nil`), without making its string.
    var isScalarNode: Bool { doc.nodes[Int(index)].kind == 0 }

    var isQuoted: Bool { style == .singleQuoted || style == .doubleQuoted }

    var mapping: [(key: YNode, value: YNode)]? {
        let n = doc.nodes[Int(index)]
        guard n.kind == 1 else { return nil }
        var out: [(key: YNode, value: YNode)] = []
        out.reserveCapacity(Int(n.b))
        var c = Int(n.a)
        for _ in 0..<Int(n.b) {
            out.append((YNode(fast: doc, doc.children[c]), YNode(fast: doc, doc.children[c + 1])))
            c += 2
        }
        return out
    }

    var sequence: [YNode]? {
        let n = doc.nodes[Int(index)]
        guard n.kind == 2 else { return nil }
        return (Int(n.a)..<Int(n.a + n.b)).map { YNode(fast: doc, doc.children[$0]) }
    }

    var kindWord: String {
        if scalar != nil { return isNull ? "null" : "a scalar" }
        if mapping != nil { return "a mapping" }
        return "a list"
    }
}
