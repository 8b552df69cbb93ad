import Foundation

/// A short scalar's style, length and bytes, packed (`FastYAMLDocument.shortScalarKey`).
package struct ScalarKey: Hashable {
    package var lo: UInt64
    package var hi: UInt64
    package init(lo: UInt64, hi: UInt64) {
        self.lo = lo
        self.hi = hi
    }

    /// Inlined where the loader compares keys (`ScalarMemo`, `ShortScalars`), once an entry.
    @inlinable package static func == (a: ScalarKey, b: ScalarKey) -> Bool { a.lo == b.lo && a.hi == b.hi }
}

/// A YAML document as `FastYAML` reads it: its nodes (kinds, scalar values and styles,
/// positions, order) stored flat. Scalars that are a verbatim piece of the text are kept as
/// that piece and made into strings only when asked. An alias is its anchor's node again
/// (the index appears twice among `children`).
package final class FastYAMLDocument: @unchecked Sendable {
    package struct Node {
        package var line: Int32
        /// Column << 4 | kind << 2 | style (16 bytes a node instead of 20).
        private var packed: UInt32
        /// Scalars: byte offset of the value in the text (b >= 0), or index in `unescaped`
        /// (b < 0). Collections: first index in `children`.
        package var a: Int32
        /// Scalars: byte length of the value, or -1. Collections: number of children (pairs
        /// for a mapping).
        package var b: Int32

        package init(line: Int32, column: Int32, kind: UInt8, style: UInt8, a: Int32, b: Int32) {
            self.line = line
            self.packed = UInt32(column) << 4 | UInt32(kind) << 2 | UInt32(style)
            self.a = a
            self.b = b
        }

        /// The same for a node `offset` bytes into its line (an ASCII line: its column is
        /// `offset + 1`), every value known to fit (`FastYAMLParser.quickEntry`: a text of
        /// fewer than 2^31 bytes, a line shorter than 2^27).
        @inline(__always) package init(line: Int32, offset: Int, kind: UInt8, style: UInt8, a: Int, b: Int) {
            self.line = line
            self.packed = UInt32(truncatingIfNeeded: offset &+ 1) << 4 | UInt32(kind) << 2 | UInt32(style)
            self.a = Int32(truncatingIfNeeded: a)
            self.b = Int32(truncatingIfNeeded: b)
        }

        package var column: Int32 { Int32(packed >> 4) }
        /// The node placed elsewhere (an anchored node is where its `&` is).
        package mutating func place(line: Int32, column: Int32) {
            self.line = line
            packed = UInt32(column) << 4 | (packed & 15)
        }
        /// 0 scalar, 1 mapping, 2 sequence.
        package var kind: UInt8 { UInt8((packed >> 2) & 3) }
        /// Scalars: 0 plain, 1 single-quoted, 2 double-quoted, 3 a block scalar (`|`, or `>`
        /// when the document's `folded` holds it).
        package var style: UInt8 { UInt8(packed & 3) }
    }
    package let text: String
    package let file: String
    package var nodes: [Node] = []
    /// Children of collections, each collection's contiguous (a mapping's as key, value, …).
    package var children: [Int32] = []
    /// Scalar values that are not a verbatim piece of the text (escapes, `''`).
    package var unescaped: [String] = []
    /// Later occurrences of a key in one mapping (set aside, not among `children`) and the
    /// first occurrence: each is a `duplicate-key` error.
    package var duplicates: [(key: Int32, first: Int32)] = []
    package var root: Int32 = 0
    /// How many sections were read in two halves (for the tests that compare the two ways).
    package var splitSections = 0
    /// How many list items were read by `FastYAMLParser.quickEntry` (for the tests).
    package var quickEntries = 0
    /// The block scalars written with `>` (folded).
    package var folded: Set<Int32> = []
    /// How many aliases (`*name`) the text has.
    package var aliases = 0

    package init(text: String, file: String) {
        self.text = text
        self.file = file
    }

    /// Once nothing reads the document again: its nodes and children (for a big file, most of
    /// the memory the reading made) freed on another thread. Returning that much memory to the
    /// kernel takes a tenth of a second for a million expectations, which the thread that
    /// loaded them would otherwise spend alone before the questions are decided.
    package func freeLater() {
        guard nodes.count + children.count >= 1 << 20 else { return }
        let parts = (nodes, children)
        nodes = []
        children = []
        // The closure holds the only references left: they are released where it runs.
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(parts) {} }
    }

    /// Index in `words` of the scalar `i`, compared as bytes (for keys: a key that is not one
    /// of a few ASCII words is not equal to any of them as a string either), or nil.
    package func wordIndex(_ i: Int32, in words: [[UInt8]]) -> Int? {
        let n = nodes[Int(i)]
        guard n.kind == 0 else { return nil }
        if n.b < 0 {
            let s = unescaped[Int(n.a)]
            return words.firstIndex { $0.elementsEqual(s.utf8) }
        }
        let start = Int(n.a), len = Int(n.b)
        func search(_ buf: UnsafeBufferPointer<UInt8>) -> Int? {
            for (w, word) in words.enumerated() where word.count == len {
                var k = 0
                while k < len && buf[start + k] == word[k] { k += 1 }
                if k == len { return w }
            }
            return nil
        }
        // The text is read in place (a copy of the string to make it contiguous is rarely needed).
        if let found = text.utf8.withContiguousStorageIfAvailable(search) { return found }
        var text = text
        return text.withUTF8(search)
    }

    /// The scalar `i` as a key of its style and bytes, when it is a piece of the text of at
    /// most fourteen bytes: two scalars have the same key exactly when they have the same
    /// style and the same bytes.
    package func shortScalarKey(_ i: Int32) -> ScalarKey? {
        let n = nodes[Int(i)]
        guard n.kind == 0, n.b >= 0, n.b <= 14 else { return nil }
        return withScalarBytes(i) { buf -> ScalarKey in
            var lo: UInt64 = 0, hi: UInt64 = 0
            for (k, b) in buf.enumerated() {
                if k < 8 { lo |= UInt64(b) << (8 * UInt64(k)) } else { hi |= UInt64(b) << (8 * UInt64(k - 8)) }
            }
            return ScalarKey(lo: lo, hi: hi | UInt64(buf.count) << 48 | UInt64(n.style) << 56)
        }
    }

    /// `body` over the bytes of the scalar `i` (a piece of the text, or its unescaped value),
    /// without making a string when it is a piece of the text; nil if `i` is not a scalar.
    package func withScalarBytes<R>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let n = nodes[Int(i)]
        guard n.kind == 0 else { return nil }
        if n.b < 0 {
            var s = unescaped[Int(n.a)]
            return s.withUTF8(body)
        }
        if let r = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeBufferPointer(rebasing: $0[Int(n.a)..<Int(n.a + n.b)])) }) { return r }
        var s = scalar(i)
        return s.withUTF8(body)
    }

    /// Nodes of the document with every alias expanded, or nil as soon as there are more
    /// than `limit` (each node's expanded size counted once).
    package func expandedNodeCount(limit: Int) -> Int? {
        var size = [Int](repeating: 0, count: nodes.count)
        // Children come before their collection's end only in reading order; go by index from
        // the last node made (a collection's children may have been made after it).
        var order: [Int32] = []
        var state = [UInt8](repeating: 0, count: nodes.count)
        var stack: [(Int32, Bool)] = [(root, false)]
        while let (n, done) = stack.popLast() {
            if done { order.append(n); continue }
            if state[Int(n)] != 0 { continue }
            state[Int(n)] = 1
            stack.append((n, true))
            let node = nodes[Int(n)]
            guard node.kind != 0 else { continue }
            let count = node.kind == 1 ? 2 * Int(node.b) : Int(node.b)
            for c in Int(node.a)..<(Int(node.a) + count) where state[Int(children[c])] == 0 { stack.append((children[c], false)) }
        }
        for n in order {
            let node = nodes[Int(n)]
            var s = 1
            if node.kind != 0 {
                let count = node.kind == 1 ? 2 * Int(node.b) : Int(node.b)
                for c in Int(node.a)..<(Int(node.a) + count) {
                    s += size[Int(children[c])]
                    if s > limit { return nil }
                }
            }
            size[Int(n)] = s
        }
        return size[Int(root)]
    }

    package func scalar(_ i: Int32) -> String {
        let n = nodes[Int(i)]
        if n.b < 0 { return unescaped[Int(n.a)] }
        if let s = text.utf8.withContiguousStorageIfAvailable({
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(n.a)..<Int(n.a + n.b)]), as: UTF8.self)
        }) {
            return s
        }
        let u = text.utf8
        let from = u.index(u.startIndex, offsetBy: Int(n.a))
        let to = u.index(from, offsetBy: Int(n.b))
        return String(text[from..<to])
    }
}

/// Limits on what a YAML document may expand to.
package enum YAMLLimits {
    /// Nodes a document may have once every alias is expanded: 10,000 plus twice its size in
    /// bytes (a document without aliases never reaches it).
    package static func expandedNodes(bytes: Int) -> Int { 10_000 + 2 * bytes }
    package static func expandedNodes(_ text: String) -> Int { expandedNodes(bytes: text.utf8.count) }
}

extension FastYAMLDocument {
    /// A value of a document made from values rather than read (`mapping(_:file:)`).
    package enum Value { case text(String), list([String]) }

    /// A document whose root maps each key to its value, every scalar double-quoted, every node
    /// at line 1, column 1 (a request given as options, read as the keys of an expectation).
    package static func mapping(_ pairs: [(String, Value)], file: String) -> FastYAMLDocument {
        let d = FastYAMLDocument(text: "", file: file)
        func scalar(_ s: String) -> Int32 {
            d.unescaped.append(s)
            d.nodes.append(Node(line: 1, column: 1, kind: 0, style: 2, a: Int32(d.unescaped.count - 1), b: -1))
            return Int32(d.nodes.count - 1)
        }
        d.nodes.append(Node(line: 1, column: 1, kind: 1, style: 0, a: 0, b: Int32(pairs.count)))
        var entries: [Int32] = []
        var lists: [(node: Int32, items: [String])] = []
        for (k, v) in pairs {
            entries.append(scalar(k))
            switch v {
            case .text(let s): entries.append(scalar(s))
            case .list(let items):
                d.nodes.append(Node(line: 1, column: 1, kind: 2, style: 0, a: 0, b: Int32(items.count)))
                entries.append(Int32(d.nodes.count - 1))
                lists.append((Int32(d.nodes.count - 1), items))
            }
        }
        d.children = entries
        for (node, items) in lists {
            d.nodes[Int(node)].a = Int32(d.children.count)
            let made = items.map(scalar)
            d.children.append(contentsOf: made)
        }
        d.root = 0
        return d
    }
}
