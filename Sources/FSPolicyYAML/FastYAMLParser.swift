import Foundation

/// Reads the YAML of policy files (`FastYAML.parse`) into a `FastYAMLDocument`: one pass over
/// the bytes, nodes appended as they are met. This file holds its state, lines and block
/// collections; the scalars, flow collections, duplicate keys, the quick reading of an
/// `expect:` entry and the reading of a big section in two halves are in the files beside it.
package struct FastYAMLParser {
    package let buf: UnsafeBufferPointer<UInt8>
    package let doc: FastYAMLDocument
    /// The document's nodes, children and unescaped scalars while it is read (moved into
    /// `doc` at the end: appending to a class's arrays costs an access check each time).
    /// About one node per eight bytes in scan files; reserved pages not touched cost nothing.
    package var nodes: [FastYAMLDocument.Node] = []
    package var children: [Int32] = []
    package var unescaped: [String] = []
    /// Keys set aside as later occurrences of an earlier key of their mapping, with the first.
    package var duplicates: [(key: Int32, first: Int32)] = []
    /// Children of the collections being read, innermost last (one array for all of them,
    /// instead of one per collection).
    package var pending: [Int32] = []
    /// How many collections the reader is inside (each one a call deeper: the limit keeps the
    /// stack safe on hostile text such as 100,000 `[`), how many of them are `{…}`/`[…]`, and
    /// where the nesting began (the second bracket, else the second level: the place the
    /// refusal points at).
    package var depth = 0
    package var flowDepth = 0
    package var secondLevelAt = 0
    package static let maxDepth = 1000
    /// Where the reading's stack began (`stackUsed`).
    package var stackBase: UInt = 0
    package var i = 0
    /// 1-based number of the line `lineStart` begins.
    package var line = 1
    package var lineStart = 0
    /// The indentation a block scalar's or a plain scalar's further lines must exceed: the
    /// indentation of the block collection the value belongs to (-1 at the top).
    package var parentIndent = -1
    /// Anchors by name (`&name`), the node each names; how many aliases (`*name`) were read, and
    /// where the first was.
    package var anchors: [String: Int32] = [:]
    package var aliases = 0
    package var firstAlias = -1
    /// Folded block scalars (`>`): style 3 is a block scalar, these are the folded ones.
    package var folded: [Int32] = []
    /// Sections longer than this are read in two halves (`FastYAML.defaultSplitBytes`).
    package var splitBytes = Int.max
    /// Where the first half of a split section ends: the collection being read stops at a
    /// content line that starts here (the second half, read by another parser, begins there).
    package var stop = -1
    /// Sections read in two halves so far; whether this parser reads a second half (which
    /// cannot know the anchors of the first).
    package var splitSections = 0
    package var isSecondHalf = false
    /// Whether a list item that is a flow mapping of the common shape is read by `quickEntry`.
    package var entryShortcut = true
    /// How many items `quickEntry` read (for the tests).
    package var quickEntries = 0

    package init(buf: UnsafeBufferPointer<UInt8>, doc: FastYAMLDocument) {
        self.buf = buf
        self.doc = doc
    }

    @inline(__always) package func at(_ k: Int) -> UInt8 { k < buf.count ? buf[k] : 0 }
    @inline(__always) package var cur: UInt8 { at(i) }
    @inline(__always) package func isEOL(_ b: UInt8) -> Bool { b == 0x0A || b == 0 }
    @inline(__always) package static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    @inline(__always) package func isBlankOrEOL(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0 }
    @inline(__always) package static func isFlowIndicator(_ b: UInt8) -> Bool { b == 0x2C || b == 0x5B || b == 0x5D || b == 0x7B || b == 0x7D }
    @inline(__always) package mutating func skipBlanks() { while cur == 0x20 || cur == 0x09 { i += 1 } }

    /// The last column computed: byte offset and column (nodes come in order on a line).
    package var colAt = 0
    package var colValue: Int32 = 1

    /// Whether the text is all ASCII (a column is then a byte offset).
    package var ascii = false

    /// 1-based column of byte `k` of the current line, in characters.
    @inline(__always) package mutating func column(_ k: Int) -> Int32 {
        if ascii { return Int32(k - lineStart + 1) }
        return columnCounted(k)
    }

    /// `column(k)` in a text that is not all ASCII: its characters counted.
    package mutating func columnCounted(_ k: Int) -> Int32 {
        var c: Int32 = 1
        var j = lineStart
        if colAt >= lineStart && colAt <= k { j = colAt; c = colValue }
        while j < k { if buf[j] & 0xC0 != 0x80 { c += 1 }; j += 1 }
        colAt = k; colValue = c
        return c
    }

    package mutating func newNode(kind: UInt8, style: UInt8, at k: Int, a: Int32, b: Int32) throws -> Int32 {
        if k - lineStart >= 1 << 27 { throw error(at: k, "a line longer than 128 MiB", help: "this looks like damaged or generated text") }
        nodes.append(.init(line: Int32(line), column: column(k), kind: kind, style: style, a: a, b: b))
        return Int32(nodes.count - 1)
    }

    /// A node at a place read before (a scalar over several lines ends on a later line).
    package mutating func newNode(kind: UInt8, style: UInt8, place: (line: Int, column: Int32), a: Int32, b: Int32) -> Int32 {
        nodes.append(.init(line: Int32(place.line), column: place.column, kind: kind, style: style, a: a, b: b))
        return Int32(nodes.count - 1)
    }

    /// An empty plain scalar (YAML's null) at byte `k` of the current line.
    package mutating func emptyScalar(at k: Int) throws -> Int32 {
        try newNode(kind: 0, style: 0, at: k, a: Int32(min(k, buf.count)), b: 0)
    }

    /// Moves the children of `node`, `pending` from `base` on, to `children`.
    package mutating func setChildren(_ node: Int32, from base: Int, pairs: Bool) {
        let count = pending.count - base
        nodes[Int(node)].a = Int32(children.count)
        nodes[Int(node)].b = Int32(pairs ? count / 2 : count)
        // Copied through a pointer: appending a slice of `pending` retained its storage and
        // went through a generic copy.
        pending.withUnsafeBufferPointer { p in
            children.append(contentsOf: UnsafeBufferPointer(rebasing: p[base...]))
        }
        pending.removeLast(count)
    }

    /// One level deeper (a collection starts at `k`); refused past `maxDepth`.
    @inline(__always) package mutating func enter(_ k: Int, flow: Bool = false) throws {
        depth += 1
        if flow {
            flowDepth += 1
            if flowDepth == 2 { secondLevelAt = k }
        } else if depth == 2 && flowDepth == 0 {
            secondLevelAt = k
        }
        if depth > Self.maxDepth { throw tooDeep() }
        if depth > 8 && stackUsed() > stackBudget { throw FastYAML.NeedsDeepStack() }
    }

    /// Bytes of stack the reading may use on the caller's thread: past it (a deep document,
    /// most of all in a debug build, whose calls take kilobytes each) the text is read again on
    /// a thread of its own with room for `maxDepth` levels (`FastYAML.parse`).
    package var stackBudget = 256 << 10

    /// Bytes of stack used since `stackBase` was taken.
    @inline(never)
    package func stackUsed() -> Int {
        var probe: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &probe) { UInt(bitPattern: $0) }
        return stackBase > here ? Int(stackBase - here) : 0
    }

    /// The address of a local of the caller: where the reading's stack begins.
    @inline(never)
    package static func stackAddress() -> UInt {
        var probe: UInt8 = 0
        return withUnsafeMutablePointer(to: &probe) { UInt(bitPattern: $0) }
    }

    @inline(never)
    package func tooDeep() -> FastYAML.Refusal {
        error(
            at: secondLevelAt, syntax: "collections nest too deeply here (the YAML parser stops at about 1,000 levels)",
            help: "a policy file nests a few levels; this looks like damaged or generated text")
    }

    // MARK: Lines

    /// Whether a document marker (`---` or `...`, then a blank or the line's end) starts at `k`.
    package func isDocumentMarker(_ k: Int) -> Bool {
        let b = at(k)
        return (b == 0x2D || b == 0x2E) && at(k + 1) == b && at(k + 2) == b && isBlankOrEOL(at(k + 3))
    }

    /// Moves to the start of the next line that holds content (skipping blank lines and
    /// comment lines) and returns its indentation, or nil at the end of the text or at a
    /// document marker (`---`, `...`: `document` decides what follows).
    package mutating func nextContentLine() throws -> Int? {
        if i >= buf.count { return nil }
        // Already at the content of a line (a nested collection ended there).
        if i != lineStart { return i - lineStart }
        while true {
            if i >= buf.count { return nil }
            var k = i
            while k < buf.count && buf[k] == 0x20 { k += 1 }
            var b = at(k)
            if b == 0x09 {
                // A tab: blank space on a blank or comment line, else indentation YAML refuses.
                var t = k
                while Self.isBlank(at(t)) { t += 1 }
                if !(isEOL(at(t)) || at(t) == 0x23) {
                    throw error(
                        at: k, code: "tab-indent", "a tab is used for indentation; YAML only allows spaces",
                        help: "indent with spaces (two per level)")
                }
                k = t
                b = at(k)
            }
            if b == 0 && k >= buf.count { i = k; return nil }
            if b == 0x0A || b == 0x23 {  // blank or comment line
                while k < buf.count && buf[k] != 0x0A { k += 1 }
                if k >= buf.count { i = k; return nil }
                i = k + 1; line += 1; lineStart = i
                continue
            }
            if k == i && isDocumentMarker(k) { i = k; return nil }
            let indent = k - i
            i = k
            return indent
        }
    }

    /// After a value: blanks, an optional comment, then the end of the line (consumed).
    package mutating func endOfLine() throws {
        let start = i
        skipBlanks()
        if cur == 0x23 {
            if i == start {
                throw error(at: i, syntax: "a `#` right after a value", help: "a comment needs a space before `#`; a value with `#` in it needs quotes")
            }
            while !isEOL(cur) { i += 1 }
        }
        guard isEOL(cur) else {
            if cur == 0x3A {
                throw error(
                    at: i, syntax: "mapping values are not allowed in this context",
                    help: "the keys of one mapping must start in the same column; a value with `: ` in it needs quotes")
            }
            throw error(
                at: i, syntax: "unexpected text after the value",
                help: "quote the whole value, or start a comment with ` #`")
        }
        if i < buf.count { i += 1; line += 1; lineStart = i }
    }

    // MARK: The document

    package mutating func document() throws {
        stackBase = Self.stackAddress()
        // Directives and a leading `---`.
        var k = 0
        while true {
            guard let indent = try nextContentLine() else {
                if i < buf.count && isDocumentMarker(i) && buf[i] == 0x2D && k == 0 {
                    // `---` opens the document: anything after it on its line must be a comment.
                    i += 3
                    k += 1
                    try endOfLine()
                    continue
                }
                break
            }
            if indent == 0 && cur == 0x25 {
                throw error(
                    at: i, syntax: "directives (`%YAML`, `%TAG`) are not part of the policy format",
                    help: "remove this line: a policy file is plain YAML without directives")
            }
            try document(root: indent)
            break
        }
        if nodes.isEmpty {
            throw FastYAML.Refusal(
                line: 1, column: 1, code: "empty-file", message: "the file is empty",
                help: "a policy file starts with `fspolicy: 1`")
        }
        // After the document: nothing but comments, or `...` and then nothing but comments.
        if i < buf.count, isDocumentMarker(i), buf[i] == 0x2E {
            i += 3
            try endOfLine()
            _ = try nextContentLine()
        }
        if i < buf.count {
            if isDocumentMarker(i) || i == lineStart || i - lineStart == 0 {
                throw error(
                    at: i, syntax: "a second YAML document starts here (`---`)",
                    help: "a policy file is one document: remove this line and what follows, or move it to a file of its own and `import:` it")
            }
            throw error(
                at: i, syntax: "did not find expected key",
                help: "the keys of one mapping must start in the same column; a value with `: ` in it needs quotes")
        }
    }

    /// The document's root, whose first line is indented `indent` spaces.
    package mutating func document(root indent: Int) throws {
        parentIndent = -1
        doc.root = try blockNode(indent: indent, top: false)
    }

    // MARK: Block collections

    /// The node whose first line starts at `i` (indented `indent`): a block list, a block
    /// mapping, or a value on its own line(s).
    package mutating func blockNode(indent: Int, top: Bool) throws -> Int32 {
        if cur == 0x2D && isBlankOrEOL(at(i + 1)) { return try blockSequence(indent: indent, split: top) }
        if isMappingLine() { return try blockMapping(indent: indent, split: top) }
        let saved = parentIndent
        parentIndent = indent - 1
        defer { parentIndent = saved }
        let v = try inlineNode(flow: false)
        try endOfLine()
        return v
    }

    /// A block mapping whose first key starts at `i` (at column `indent` + 1); subsequent
    /// keys are on lines indented by `indent` spaces.
    package mutating func blockMapping(indent: Int, split: Bool = false) throws -> Int32 {
        try enter(i)
        defer { depth -= 1 }
        let node = try newNode(kind: 1, style: 0, at: i, a: 0, b: 0)
        let base = pending.count
        let half = split ? startSecondHalf(indent: indent, mapping: true) : nil
        defer { half?.wait() }
        try mappingPairs(indent: indent)
        if let half { try take(half) }
        try checkDuplicates(from: base)
        setChildren(node, from: base, pairs: true)
        return node
    }

    /// The keys and values of a block mapping from `i` on, into `pending`, up to a content line
    /// indented less than `indent`, the end, or `stop`.
    package mutating func mappingPairs(indent: Int) throws {
        while true {
            let key: Int32
            if cur == 0x3F && isBlankOrEOL(at(i + 1)) {
                // `? KEY` on its own line, then `: VALUE` (or no value: null).
                i += 1
                skipBlanks()
                if isEOL(cur) || cur == 0x23 {
                    throw error(
                        at: i, syntax: "an explicit key (`? `) must be written on its `?` line",
                        help: "write `? \"the key\"` on one line and `: value` on the next")
                }
                let saved = parentIndent
                parentIndent = indent
                if isMappingLine() {
                    // `? key: value`: a mapping as the key (a policy file has none; `fmt` and the
                    // loader say so).
                    key = try blockMapping(indent: i - lineStart)
                    _ = try nextContentLine()
                    i = lineStart
                } else {
                    key = try inlineNode(flow: false, key: true)
                    try endOfLine()
                }
                parentIndent = saved
                if let ind = try nextContentLine(), ind == indent, cur == 0x3A, isBlankOrEOL(at(i + 1)) {
                    i += 1
                } else {
                    pending.append(key)
                    pending.append(try emptyScalar(at: i))
                    if try !nextKey(indent: indent) { break }
                    continue
                }
            } else if cur == 0x3A && isBlankOrEOL(at(i + 1)) {
                key = try emptyScalar(at: i)
                i += 1
            } else {
                let start = i, startLine = line
                let b = cur
                key =
                    try b == 0x22 || b == 0x27 || (b >= 0x2F && b <= 0x7A && b != 0x3A && b != 0x3E && b != 0x3F && b != 0x5B)
                    ? flowScalar(flow: false, key: true) : inlineNode(flow: false, key: true)
                skipBlanks()
                guard cur == 0x3A, line == startLine else {
                    throw error(
                        at: cur == 0x3A || isEOL(cur) ? start : i, syntax: "could not find expected ':'",
                        help: "a mapping's entries are `key: value`; a value with `: ` or ` #` in it needs quotes")
                }
                if i - start > 1024 && Int(column(i)) - Int(column(start)) > 1024 { throw longKey(at: i) }
                i += 1
                guard isBlankOrEOL(cur) else {
                    throw error(
                        at: i - 1, syntax: "mapping values are not allowed in this context",
                        help: "write a space after the `:` of a key")
                }
            }
            let value = try blockValue(parentIndent: indent)
            pending.append(key)
            pending.append(value)
            if try !nextKey(indent: indent) { break }
        }
    }

    /// After an entry of a block mapping: whether another key of it follows (at `i`).
    package mutating func nextKey(indent: Int) throws -> Bool {
        guard let next = try nextContentLine() else { return false }
        if next < indent || lineStart == stop { return false }
        guard next == indent else {
            throw error(
                at: i, syntax: "did not find expected key",
                help: "the keys of one mapping must start in the same column; a value with `: ` in it needs quotes")
        }
        return true
    }

    /// The error for an implicit key longer than YAML allows, at its `:` (`k`).
    @inline(never)
    package mutating func longKey(at k: Int) -> FastYAML.Refusal {
        error(
            at: k, syntax: "mapping values are not allowed in this context",
            help:
                "a key longer than 1,024 characters must be written explicitly: `? \"/the/long/path\"` on one line, `: {…}` on the next (as `fspolicy scan` writes them)"
        )
    }

    /// The value after a key's `:` or a list's `- ` (at `i`): on the same line, or a block
    /// collection or a value on the lines below, indented more than the parent (a list may be
    /// indented as much as the key it is the value of); null when there is none.
    package mutating func blockValue(parentIndent: Int, inSequence: Bool = false) throws -> Int32 {
        let start = i
        skipBlanks()
        var anchor: (name: String, at: Int)? = nil
        let anchorPlace = (line: Int32(line), column: column(i))
        if cur == 0x26, i > start || inSequence, let a = try anchorBeforeLineEnd() { anchor = a }
        if isEOL(cur) || (cur == 0x23 && i > start) {
            let here = i
            i = anchor?.at ?? start
            if anchor == nil { try endOfLine() } else { i = here; try endOfLine() }
            let v: Int32
            if let ind = try nextContentLine(), ind > parentIndent || (!inSequence && ind == parentIndent && cur == 0x2D && isBlankOrEOL(at(i + 1))) {
                // A section of the document (the value of a key at the left edge) may be read in two halves.
                let top = parentIndent == 0 && !inSequence && anchor == nil && !isSecondHalf
                if ind == parentIndent {
                    v = try blockSequence(indent: ind, split: top, underKey: true)
                } else {
                    let saved = self.parentIndent
                    self.parentIndent = parentIndent
                    defer { self.parentIndent = saved }
                    v = try blockNode(indent: ind, top: top)
                }
            } else {
                v = try emptyScalarAfter(here)
            }
            if let a = anchor {
                anchors[a.name] = v
                nodes[Int(v)].place(line: anchorPlace.line, column: anchorPlace.column)
            }
            return v
        }
        if let a = anchor { i = a.at }
        let saved = self.parentIndent
        self.parentIndent = parentIndent
        defer { self.parentIndent = saved }
        if inSequence {
            let col = Int(column(i)) - 1
            if cur == 0x2D && isBlankOrEOL(at(i + 1)) && i - lineStart == col {
                return try blockSequence(indent: col)  // `- - a`: a list in a list
            }
            if (isMappingLine() || (cur == 0x3F && isBlankOrEOL(at(i + 1)))) && i - lineStart == col {
                return try blockMapping(indent: col)  // `- key: value`
            }
        } else if cur == 0x2D && isBlankOrEOL(at(i + 1)) {
            throw error(
                at: i, syntax: "block sequence entries are not allowed in this context",
                help: "start the list on the next line, indented, one `- item` per line")
        }
        let v = try (entryShortcut && ascii && inSequence && cur == 0x7B ? quickEntry() : nil) ?? inlineNode(flow: false)
        try endOfLine()
        return v
    }

    /// An empty value (null) placed right after its key's `:` or its `- ` (`k` on an earlier line).
    package mutating func emptyScalarAfter(_ k: Int) throws -> Int32 {
        let (l, c) = FastYAML.place(of: k, in: buf)
        return newNode(kind: 0, style: 0, place: (l, Int32(c)), a: Int32(k), b: 0)
    }

    /// An anchor (`&name`) at `i` followed only by blanks or a comment on its line: its name
    /// and where the line's rest begins, `i` left there; nil (nothing read) otherwise.
    package mutating func anchorBeforeLineEnd() throws -> (name: String, at: Int)? {
        var k = i + 1
        while Self.isNameByte(at(k)) { k += 1 }
        var e = k
        while Self.isBlank(at(e)) { e += 1 }
        guard isEOL(at(e)) || at(e) == 0x23 else { return nil }
        guard k > i + 1 else {
            throw error(at: i, syntax: "an anchor (`&`) without a name", help: "write `&name` before the value, or quote a value that starts with `&`")
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: buf[(i + 1)..<k]), as: UTF8.self)
        i = k
        return (name, k)
    }

    /// A block list whose first `- ` is at `i` (indented `indent` spaces). `underKey`: the
    /// value of a key indented as much as it, which ends at the first line that is not an item.
    package mutating func blockSequence(indent: Int, split: Bool = false, underKey: Bool = false) throws -> Int32 {
        try enter(i)
        defer { depth -= 1 }
        let node = try newNode(kind: 2, style: 0, at: i, a: 0, b: 0)
        let base = pending.count
        let half = split ? startSecondHalf(indent: indent, mapping: false) : nil
        defer { half?.wait() }
        try sequenceItems(indent: indent, underKey: underKey)
        if let half { try take(half) }
        setChildren(node, from: base, pairs: false)
        return node
    }

    /// The items of a block list from `i` on, into `pending`, up to a content line indented
    /// less than `indent`, the end, or `stop`.
    package mutating func sequenceItems(indent: Int, underKey: Bool = false) throws {
        while true {
            i += 1  // the `-` (a blank or the line's end follows)
            let item = try blockValue(parentIndent: indent, inSequence: true)
            pending.append(item)
            guard let next = try nextContentLine() else { break }
            if next < indent || lineStart == stop { break }
            let dash = cur == 0x2D && isBlankOrEOL(at(i + 1))
            if next == indent && dash { continue }
            if next == indent && underKey { break }
            throw error(
                at: i, syntax: "did not find expected '-' indicator",
                help: "the items of one list must start in the same column, each with `- `")
        }
    }

    /// Whether the line from `i` on is `KEY: …` or `KEY:` (a mapping whose first key is here):
    /// a `:` followed by a blank or the line's end, outside quotes and before any comment.
    package func isMappingLine() -> Bool {
        var k = i
        let b = at(k)
        if b == 0x3F && isBlankOrEOL(at(k + 1)) { return true }
        if b == 0x7B || b == 0x5B || b == 0x7C || b == 0x3E { return false }
        if b == 0x26 {  // an anchor on the key
            k += 1
            while Self.isNameByte(at(k)) { k += 1 }
            while Self.isBlank(at(k)) { k += 1 }
        }
        let q = at(k)
        if q == 0x22 || q == 0x27 {
            k += 1
            while k < buf.count && buf[k] != 0x0A {
                if buf[k] == 0x5C && q == 0x22 { k += 2; continue }
                if buf[k] == q {
                    if q == 0x27 && at(k + 1) == 0x27 { k += 2; continue }
                    break
                }
                k += 1
            }
            k += 1
            while Self.isBlank(at(k)) { k += 1 }
            return at(k) == 0x3A && isBlankOrEOL(at(k + 1))
        }
        if q == 0x7B || q == 0x5B { return false }
        var prevBlank = false
        while !isEOL(at(k)) {
            let c = at(k)
            if c == 0x3A && isBlankOrEOL(at(k + 1)) { return true }
            if c == 0x23 && prevBlank { return false }
            prevBlank = Self.isBlank(c)
            k += 1
        }
        return false
    }

    // MARK: Errors

    /// A refusal at byte `k` (its line and column counted from the start of the text).
    @inline(never)
    package func error(at k: Int, code: String = "yaml-syntax", _ message: String, help: String?) -> FastYAML.Refusal {
        let (l, c) = FastYAML.place(of: k, in: buf)
        return FastYAML.Refusal(line: l, column: c, code: code, message: message, help: help)
    }

    /// The same for a YAML syntax error (its message starts "YAML syntax error: ").
    @inline(never)
    package func error(at k: Int, syntax problem: String, help: String?) -> FastYAML.Refusal {
        error(at: k, "YAML syntax error: " + problem, help: help)
    }
}
