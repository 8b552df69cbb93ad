import Foundation

/// A YAML node of a read document, with its file for diagnostics. Scalars are read as their
/// source text, so `mode: 0755` means octal 0755 whatever YAML's own typing says.
package struct YNode {
    /// The document (which knows its file) and the node's index in it.
    package let doc: FastYAMLDocument
    package let index: Int32

    package init(fast doc: FastYAMLDocument, _ index: Int32) {
        self.doc = doc
        self.index = index
    }

    package var file: String { doc.file }

    /// A short scalar (its text a piece of the file, at most fourteen bytes) as a key of its
    /// style and bytes, without making its string; nil otherwise.
    package var shortScalarKey: ScalarKey? { doc.shortScalarKey(index) }

    package enum Style { case plain, singleQuoted, doubleQuoted, literal, folded }

    package var line: Int { Int(doc.nodes[Int(index)].line) }
    package var column: Int { Int(doc.nodes[Int(index)].column) }

    /// The style of a scalar (nil for other nodes).
    package var style: Style? {
        let n = doc.nodes[Int(index)]
        guard n.kind == 0 else { return nil }
        switch n.style {
        case 0: return .plain
        case 1: return .singleQuoted
        case 2: return .doubleQuoted
        default: return doc.folded.contains(index) ? .folded : .literal
        }
    }

    package var isNull: Bool {
        let n = doc.nodes[Int(index)]
        guard n.kind == 0, n.style == 0, n.b == 0 || n.b == 1 || n.b == 4 else { return false }
        guard let s = scalar else { return false }
        return s.isEmpty || s == "~" || s == "null" || s == "Null" || s == "NULL"
    }

    package var scalar: String? { doc.nodes[Int(index)].kind == 0 ? doc.scalar(index) : nil }

    /// A scalar (`scalar != nil`), without making its string.
    package var isScalarNode: Bool { doc.nodes[Int(index)].kind == 0 }

    package var isQuoted: Bool { style == .singleQuoted || style == .doubleQuoted }

    package var mapping: [(key: YNode, value: YNode)]? {
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

    package var sequence: [YNode]? {
        let n = doc.nodes[Int(index)]
        guard n.kind == 2 else { return nil }
        return (Int(n.a)..<Int(n.a + n.b)).map { YNode(fast: doc, doc.children[$0]) }
    }

    package var kindWord: String {
        if scalar != nil { return isNull ? "null" : "a scalar" }
        if mapping != nil { return "a mapping" }
        return "a list"
    }
}
