import FSPolicy
import Foundation
import Synchronization

/// A short scalar's style, length and bytes, packed (`FastYAMLDocument.shortScalarKey`).
struct ScalarKey: Hashable {
    var lo: UInt64
    var hi: UInt64
}

/// What was read from recent short scalars: 256 slots, each holding the last key that hashed
/// to it. A key not found is read again (a collision costs a read, never a wrong value).
struct ScalarMemo<T> {
    private var keys = [ScalarKey](repeating: ScalarKey(lo: 0, hi: 0), count: 256)
    private var values = [T?](repeating: nil, count: 256)

    private static func slot(_ k: ScalarKey) -> Int {
        Int(truncatingIfNeeded: ((k.lo ^ (k.hi &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 56)
    }

    subscript(_ k: ScalarKey) -> T? {
        get {
            let i = Self.slot(k)
            return keys[i] == k ? values[i] : nil
        }
        set {
            let i = Self.slot(k)
            keys[i] = k
            values[i] = newValue
        }
    }
}

/// A YAML document read by the fast reader: the same nodes (kinds, scalar values and styles,
/// positions, order) that Yams composes for the same text, stored flat. Scalars that are a
/// verbatim piece of the text are kept as that piece and made into strings only when asked.
final class FastYAMLDocument: @unchecked Sendable {
    struct Node {
        var line: Int32
        /// Column << 4 | kind << 2 | style (16 bytes a node instead of 20).
        private var packed: UInt32
        /// Scalars: byte offset of the value in the text (b >= 0), or index in `unescaped`
        /// (b < 0). Collections: first index in `children`.
        var a: Int32
        /// Scalars: byte length of the value, or -1. Collections: number of children (pairs
        /// for a mapping).
        var b: Int32

        init(line: Int32, column: Int32, kind: UInt8, style: UInt8, a: Int32, b: Int32) {
            self.line = line
            self.packed = UInt32(column) << 4 | UInt32(kind) << 2 | UInt32(style)
            self.a = a
            self.b = b
        }

        /// The same for a node `offset` bytes into its line (an ASCII line: its column is
        /// `offset + 1`), every value known to fit (`FastYAMLParser.quickEntry`: a text of
        /// fewer than 2^31 bytes, a line shorter than 2^27).
        @inline(__always) init(line: Int32, offset: Int, kind: UInt8, style: UInt8, a: Int, b: Int) {
            self.line = line
            self.packed = UInt32(truncatingIfNeeded: offset &+ 1) << 4 | UInt32(kind) << 2 | UInt32(style)
            self.a = Int32(truncatingIfNeeded: a)
            self.b = Int32(truncatingIfNeeded: b)
        }

        var column: Int32 { Int32(packed >> 4) }
        /// 0 scalar, 1 mapping, 2 sequence.
        var kind: UInt8 { UInt8((packed >> 2) & 3) }
        /// Scalars: 0 plain, 1 single-quoted, 2 double-quoted.
        var style: UInt8 { UInt8(packed & 3) }
    }
    let text: String
    let file: String
    var nodes: [Node] = []
    /// Children of collections, each collection's contiguous (a mapping's as key, value, …).
    var children: [Int32] = []
    /// Scalar values that are not a verbatim piece of the text (escapes, `''`).
    var unescaped: [String] = []
    /// Later occurrences of a key in one mapping (set aside, not among `children`) and the
    /// first occurrence: each is a `duplicate-key` error, as the full parser reports it.
    var duplicates: [(key: Int32, first: Int32)] = []
    var root: Int32 = 0
    /// How many sections were read in two halves (for the tests that compare the two ways).
    var splitSections = 0
    /// How many list items were read by `FastYAMLParser.quickEntry` (for the tests).
    var quickEntries = 0

    init(text: String, file: String) {
        self.text = text
        self.file = file
    }

    /// Once nothing reads the document again: its nodes and children (for a big file, most of
    /// the memory the reading made) freed on another thread. Returning that much memory to the
    /// kernel takes a tenth of a second for a million expectations, which the thread that
    /// loaded them would otherwise spend alone before the questions are decided.
    func freeLater() {
        guard nodes.count + children.count >= 1 << 20 else { return }
        let parts = (nodes, children)
        nodes = []
        children = []
        // The closure holds the only references left: they are released where it runs.
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(parts) {} }
    }

    /// Index in `words` of the scalar `i`, compared as bytes (for keys: a key that is not one
    /// of a few ASCII words is not equal to any of them as a string either), or nil.
    func wordIndex(_ i: Int32, in words: [[UInt8]]) -> Int? {
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
    func shortScalarKey(_ i: Int32) -> ScalarKey? {
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
    func withScalarBytes<R>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
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

    func scalar(_ i: Int32) -> String {
        let n = nodes[Int(i)]
        if n.b < 0 { return unescaped[Int(n.a)] }
        if let s = text.utf8.withContiguousStorageIfAvailable({
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(n.a)..<Int(n.a + n.b)]), as: UTF8.self)
        }) { return s }
        let u = text.utf8
        let from = u.index(u.startIndex, offsetBy: Int(n.a))
        let to = u.index(from, offsetBy: Int(n.b))
        return String(text[from..<to])
    }
}

/// Reads the subset of YAML that `scan` and `fmt` write (block mappings and lists, one-line
/// flow mappings and lists, plain, single- and double-quoted one-line scalars, explicit `? `
/// keys, comments) into a `FastYAMLDocument`, and gives up (nil) on anything else — other
/// constructs, anything unusual, and anything YAML would refuse — so that the caller reads
/// the text with the full YAML parser instead. What it accepts, it reads exactly as Yams
/// does: `FastYAMLTests` compares the two on every fixture, the invalid corpus and
/// generated files, node by node.
enum FastYAML {
    struct GiveUp: Error {}

    /// `FSPOLICY_FULL_YAML=1` in the environment turns the fast reader off (for measuring
    /// the full parser against it; the results are the same).
    static let enabled: Bool = ProcessInfo.processInfo.environment["FSPOLICY_FULL_YAML"] != "1"

    /// A top-level section (the block collection under a key of the document's mapping) longer
    /// than this many bytes is read in two halves, the second on a thread of its own.
    static let defaultSplitBytes = 4 << 20

    static func read(_ text: String, file: String, splitBytes: Int = defaultSplitBytes, entryShortcut: Bool = true) -> FastYAMLDocument? {
        var text = text
        if text.utf8.count >= Int(Int32.max) { return nil }
        let doc = FastYAMLDocument(text: text, file: file)
        let ok: Bool? = text.withUTF8 { buf -> Bool? in
            guard let ascii = acceptableBytes(buf) else { return nil }
            var p = FastYAMLParser(buf: buf, doc: doc)
            p.ascii = ascii
            p.splitBytes = splitBytes
            p.entryShortcut = entryShortcut
            p.nodes.reserveCapacity(buf.count / 6)
            p.children.reserveCapacity(buf.count / 6)
            do {
                try p.document()
                doc.nodes = p.nodes
                doc.children = p.children
                doc.unescaped = p.unescaped
                doc.duplicates = p.duplicates
                doc.splitSections = p.splitSections
                doc.quickEntries = p.quickEntries
                return true
            } catch { return nil }
        }
        return ok == true ? doc : nil
    }

    /// No byte or character the subset leaves to the full parser: controls other than the
    /// line feed (tabs and carriage returns included), DEL, C1 controls (U+0085 among them),
    /// the line and paragraph separators, the byte-order mark, U+FFFE and U+FFFF.
    /// Returns nil when there is one, else whether the text is all ASCII.
    /// A big text is looked at in parts, one a thread.
    /// (`parts`: how many, for the tests.)
    static func acceptableBytes(_ buf: UnsafeBufferPointer<UInt8>, parts asked: Int? = nil) -> Bool? {
        let parts = SWAR.parts(ofBytes: buf.count, asked: asked)
        if parts == 1 { return acceptableBytes(buf, from: 0, to: buf.count) }
        let job = AcceptJob(buf: buf, parts: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { job.run($0) }
        return job.result
    }

    /// `acceptableBytes` of the parts of a text, `run(k)` the `k`-th.
    final class AcceptJob: @unchecked Sendable {
        let buf: UnsafeBufferPointer<UInt8>, parts: Int
        /// 0: acceptable and ASCII; 1: acceptable, not all ASCII; 2: not acceptable.
        let results: UnsafeMutableBufferPointer<UInt8>
        init(buf: UnsafeBufferPointer<UInt8>, parts: Int) {
            self.buf = buf; self.parts = parts
            results = .allocate(capacity: parts)
            results.initialize(repeating: 2)
        }
        deinit { results.deallocate() }
        func run(_ k: Int) {
            let r = FastYAML.acceptableBytes(buf, from: buf.count * k / parts, to: buf.count * (k + 1) / parts)
            results[k] = r == nil ? 2 : r! ? 0 : 1
        }
        var result: Bool? { results.contains(2) ? nil : !results.contains(1) }
    }

    /// The same for the characters that start in `from..<to` (one may end past `to`; a part
    /// that starts inside a character takes its bytes as not ASCII, which the text is not).
    static func acceptableBytes(_ buf: UnsafeBufferPointer<UInt8>, from: Int, to n: Int) -> Bool? {
        guard let base = UnsafeRawPointer(buf.baseAddress) else { return true }
        var i = from
        var ascii = true
        while i < n {
            // Eight bytes at a time while they are printable ASCII or line feeds (no byte of
            // 0x80 or more, below 0x20 but a line feed, or equal to 0x7F: exact tests).
            while i + 8 <= n {
                if SWAR.notLineASCII(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { break }
                i += 8
            }
            // Then the next eight (a line feed, a non-ASCII character) one by one.
            let stop = min(n, i + 8)
            while i < stop {
                let b = buf[i]
                if b < 0x80 {
                    if (b < 0x20 && b != 0x0A) || b == 0x7F { return nil }
                    i += 1
                    continue
                }
                ascii = false
                let end = buf.count
                if b == 0xC2, i + 1 < end, buf[i + 1] < 0xA0 { return nil }
                if b == 0xE2, i + 2 < end, buf[i + 1] == 0x80, buf[i + 2] == 0xA8 || buf[i + 2] == 0xA9 { return nil }
                if b == 0xEF, i + 2 < end, (buf[i + 1] == 0xBB && buf[i + 2] == 0xBF) || (buf[i + 1] == 0xBF && buf[i + 2] >= 0xBE) { return nil }
                i += 1
            }
        }
        return ascii
    }
}

struct FastYAMLParser {
    let buf: UnsafeBufferPointer<UInt8>
    let doc: FastYAMLDocument
    /// The document's nodes, children and unescaped scalars while it is read (moved into
    /// `doc` at the end: appending to a class's arrays costs an access check each time).
    /// About one node per eight bytes in scan files; reserved pages not touched cost nothing.
    var nodes: [FastYAMLDocument.Node] = []
    var children: [Int32] = []
    var unescaped: [String] = []
    /// Keys set aside as later occurrences of an earlier key of their mapping, with the first.
    var duplicates: [(key: Int32, first: Int32)] = []
    /// Children of the collections being read, innermost last (one array for all of them,
    /// instead of one per collection).
    var pending: [Int32] = []
    /// How many `{…}`/`[…]` the reader is inside. Past `maxFlowDepth` it gives up, and the full
    /// parser, which refuses deep nesting with a message (libyaml's limit), decides: reading
    /// them one call deeper each crashed the process on 100,000 `[` (its stack ran out), and
    /// the fast reader must not accept what the full parser refuses.
    var flowDepth = 0
    static let maxFlowDepth = 64
    var i = 0
    /// 1-based number of the line `lineStart` begins.
    var line = 1
    var lineStart = 0
    /// Sections longer than this are read in two halves (`FastYAML.defaultSplitBytes`).
    var splitBytes = Int.max
    /// Where the first half of a split section ends: the collection being read stops at a
    /// content line that starts here (the second half, read by another parser, begins there).
    var stop = -1
    /// Sections read in two halves so far.
    var splitSections = 0

    init(buf: UnsafeBufferPointer<UInt8>, doc: FastYAMLDocument) {
        self.buf = buf
        self.doc = doc
    }

    typealias GiveUp = FastYAML.GiveUp

    @inline(__always) func at(_ k: Int) -> UInt8 { k < buf.count ? buf[k] : 0 }
    @inline(__always) var cur: UInt8 { at(i) }
    @inline(__always) func isEOL(_ b: UInt8) -> Bool { b == 0x0A || b == 0 }

    /// The last column computed: byte offset and column (nodes come in order on a line).
    var colAt = 0
    var colValue: Int32 = 1

    /// Whether the text is all ASCII (a column is then a byte offset).
    var ascii = false

    /// 1-based column of byte `k` of the current line, in characters.
    @inline(__always) mutating func column(_ k: Int) -> Int32 {
        if ascii { return Int32(k - lineStart + 1) }
        return columnCounted(k)
    }

    /// `column(k)` in a text that is not all ASCII: its characters counted.
    mutating func columnCounted(_ k: Int) -> Int32 {
        var c: Int32 = 1
        var j = lineStart
        if colAt >= lineStart && colAt <= k { j = colAt; c = colValue }
        while j < k { if buf[j] & 0xC0 != 0x80 { c += 1 }; j += 1 }
        colAt = k; colValue = c
        return c
    }

    mutating func newNode(kind: UInt8, style: UInt8, at k: Int, a: Int32, b: Int32) throws -> Int32 {
        if k - lineStart >= 1 << 27 { throw GiveUp() }   // a column the packed node cannot hold
        nodes.append(.init(line: Int32(line), column: column(k), kind: kind, style: style, a: a, b: b))
        return Int32(nodes.count - 1)
    }

    /// Moves the children of `node`, `pending` from `base` on, to `children`.
    mutating func setChildren(_ node: Int32, from base: Int, pairs: Bool) {
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

    /// Moves to the start of the next line that holds content (skipping blank lines and
    /// comment lines) and returns its indentation, or nil at the end of the text.
    mutating func nextContentLine() throws -> Int? {
        if i >= buf.count { return nil }
        // Already at the content of a line (a nested collection ended there).
        if i != lineStart { return i - lineStart }
        while true {
            if i >= buf.count { return nil }
            var k = i
            while k < buf.count && buf[k] == 0x20 { k += 1 }
            let b = at(k)
            if b == 0 { i = k; return nil }
            if b == 0x0A || b == 0x23 {   // blank or comment line
                while k < buf.count && buf[k] != 0x0A { k += 1 }
                if k >= buf.count { i = k; return nil }
                i = k + 1; line += 1; lineStart = i
                continue
            }
            if k == i {
                // Document markers and directives are left to the full parser.
                if b == 0x25 { throw GiveUp() }
                if (b == 0x2D || b == 0x2E) && at(k + 1) == b && at(k + 2) == b { throw GiveUp() }
            }
            let indent = k - i
            i = k
            return indent
        }
    }

    /// After a value: spaces, an optional comment, then the end of the line (consumed).
    mutating func endOfLine() throws {
        let start = i
        while cur == 0x20 { i += 1 }
        if cur == 0x23 {
            if i == start { throw GiveUp() }
            while !isEOL(cur) { i += 1 }
        }
        guard isEOL(cur) else { throw GiveUp() }
        if i < buf.count { i += 1; line += 1; lineStart = i }
    }

    mutating func document() throws {
        guard let indent = try nextContentLine(), indent == 0 else { throw GiveUp() }
        doc.root = try blockMapping(indent: 0)
        if i < buf.count { throw GiveUp() }
        if nodes[Int(doc.root)].kind != 1 { throw GiveUp() }
    }

    // MARK: Block collections

    /// A block mapping whose first key starts at `i` (at column `indent` + 1); subsequent
    /// keys are on lines indented by `indent` spaces.
    mutating func blockMapping(indent: Int, split: Bool = false) throws -> Int32 {
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
    mutating func mappingPairs(indent: Int) throws {
        while true {
            let key: Int32
            if cur == 0x3F && (at(i + 1) == 0x20 || isEOL(at(i + 1))) {
                // `? KEY` on its own line, then `: VALUE`.
                i += 1
                while cur == 0x20 { i += 1 }
                key = try flowScalar(flow: false, key: false)
                while cur == 0x20 { i += 1 }
                guard isEOL(cur), i < buf.count else { throw GiveUp() }
                i += 1; line += 1; lineStart = i
                guard let ind = try nextContentLine(), ind == indent, cur == 0x3A else { throw GiveUp() }
                i += 1
                guard cur == 0x20 || isEOL(cur) else { throw GiveUp() }
            } else {
                let start = i
                key = try flowScalar(flow: false, key: true)
                guard cur == 0x3A, i - start <= 1000 else { throw GiveUp() }
                i += 1
                guard cur == 0x20 || isEOL(cur) else { throw GiveUp() }
            }
            let value = try blockValue(parentIndent: indent)
            pending.append(key)
            pending.append(value)
            guard let next = try nextContentLine() else { break }
            if next < indent || lineStart == stop { break }
            guard next == indent else { throw GiveUp() }
        }
    }

    /// The value after a key's `:` (at `i`): on the same line, or a block collection on the
    /// lines below, indented more than the key.
    mutating func blockValue(parentIndent: Int) throws -> Int32 {
        let start = i
        while cur == 0x20 { i += 1 }
        if isEOL(cur) || (cur == 0x23 && i > start) {
            i = start
            try endOfLine()
            guard let ind = try nextContentLine(), ind > parentIndent else { throw GiveUp() }
            // A section of the document (the value of a key at the left edge) may be read in two halves.
            let top = parentIndent == 0
            if cur == 0x2D && (at(i + 1) == 0x20 || isEOL(at(i + 1))) { return try blockSequence(indent: ind, split: top) }
            return try blockMapping(indent: ind, split: top)
        }
        let v = try inlineNode(flow: false)
        try endOfLine()
        return v
    }

    /// A block list whose first `- ` is at `i` (indented `indent` spaces).
    mutating func blockSequence(indent: Int, split: Bool = false) throws -> Int32 {
        let node = try newNode(kind: 2, style: 0, at: i, a: 0, b: 0)
        let base = pending.count
        let half = split ? startSecondHalf(indent: indent, mapping: false) : nil
        defer { half?.wait() }
        try sequenceItems(indent: indent)
        if let half { try take(half) }
        setChildren(node, from: base, pairs: false)
        return node
    }

    /// The items of a block list from `i` on, into `pending`, up to a content line indented
    /// less than `indent`, the end, or `stop`.
    mutating func sequenceItems(indent: Int) throws {
        while true {
            guard cur == 0x2D, at(i + 1) == 0x20 else { throw GiveUp() }
            i += 1
            while cur == 0x20 { i += 1 }
            let b = cur
            if isEOL(b) || b == 0x23 || (b == 0x2D && (at(i + 1) == 0x20 || isEOL(at(i + 1)))) || b == 0x3F { throw GiveUp() }
            if isCompactMapping() {
                let keyIndent = Int(column(i)) - 1
                guard i - lineStart == keyIndent else { throw GiveUp() }   // ASCII before the key
                let item = try blockMapping(indent: keyIndent)
                pending.append(item)
                // blockMapping stopped at a content line indented less than the key, or the end.
                if i >= buf.count { break }
                var k = lineStart
                while k < buf.count && buf[k] == 0x20 { k += 1 }
                let next = k - lineStart
                if next < indent || lineStart == stop { break }
                guard next == indent else { throw GiveUp() }
                continue
            }
            let item = try (entryShortcut && ascii && cur == 0x7B ? quickEntry() : nil) ?? inlineNode(flow: false)
            pending.append(item)
            try endOfLine()
            guard let next = try nextContentLine() else { break }
            if next < indent || lineStart == stop { break }
            guard next == indent else { throw GiveUp() }
        }
    }

    // MARK: A big section in two halves

    /// The second half of a section read on another thread: its parser, and whether it gave up
    /// (both to be read only after `wait`).
    final class SecondHalf: @unchecked Sendable {
        var parser: FastYAMLParser
        var failed = false
        let done = DispatchSemaphore(value: 0)
        /// Set by the thread when it is done (`done` is signalled then).
        let finished = Atomic<Bool>(false)
        var waited = false
        /// Where this half begins and the section ends; the first half's nodes and children
        /// when it began, and its offset.
        let begins: Int, sectionEnd: Int
        let firstNodes: Int, firstChildren: Int, firstBegins: Int
        init(_ p: FastYAMLParser, begins: Int, sectionEnd: Int, firstNodes: Int, firstChildren: Int, firstBegins: Int) {
            parser = p
            self.begins = begins; self.sectionEnd = sectionEnd
            self.firstNodes = firstNodes; self.firstChildren = firstChildren; self.firstBegins = firstBegins
        }
        /// Waits for the thread (once; the buffer it reads must outlive it).
        func wait() {
            if waited { return }
            waited = true
            done.wait()
        }
    }

    /// For a section longer than `splitBytes` whose elements start at `i`: a line about half
    /// way through it that starts an element at `indent` (`- ` for a list, a key for a mapping),
    /// read from there on by a parser on another thread, this one stopping there (`stop`).
    /// Nil when the section is short or no such line is found near the middle.
    mutating func startSecondHalf(indent: Int, mapping: Bool) -> SecondHalf? {
        guard buf.count - i > splitBytes, let base = buf.baseAddress else { return nil }
        // The section ends at the next line with something at the left edge (the next key of
        // the document, or anything else the reader will judge then).
        var sectionEnd = buf.count
        var e = i
        while let next = lineAfter(e, base: base, end: buf.count) {
            e = next
            if e < buf.count, buf[e] != 0x20, buf[e] != 0x0A, buf[e] != 0x23 { sectionEnd = e; break }
        }
        guard sectionEnd - i > splitBytes else { return nil }
        // A little before the middle: this thread then copies the other half's nodes after its
        // own (`take`), which the other thread would otherwise wait for (a million expectations
        // on two cores: the copy is about a quarter of the time either half takes).
        var k = i + (sectionEnd - i) * 45 / 100
        let end = min(sectionEnd, k + (1 << 20))
        var found = -1
        while let next = lineAfter(k, base: base, end: end) {
            k = next
            var j = k
            while j < end && j - k < indent && buf[j] == 0x20 { j += 1 }
            guard j - k == indent, j + 1 < end else { continue }
            let b = buf[j]
            if mapping {
                // A key: a path, a quoted scalar, or a word.
                if b == 0x2F || b == 0x22 || b == 0x27 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) {
                    found = k; break
                }
            } else if b == 0x2D && buf[j + 1] == 0x20 {
                found = k; break
            }
        }
        guard found > 0 else { return nil }
        // The second half's first line number: this one's plus the line feeds in between.
        var lines = 0
        var q = lineStart
        while let next = lineAfter(q, base: base, end: found) {
            lines += 1
            q = next
        }
        var p = FastYAMLParser(buf: buf, doc: doc)
        p.ascii = ascii
        p.entryShortcut = entryShortcut
        p.i = found + indent
        p.lineStart = found
        p.line = line + lines
        p.nodes.reserveCapacity((buf.count - found) / 6)
        p.children.reserveCapacity((buf.count - found) / 6)
        let half = SecondHalf(p, begins: found, sectionEnd: sectionEnd, firstNodes: nodes.count, firstChildren: children.count, firstBegins: i)
        stop = found
        Thread.detachNewThread {
            do {
                if mapping { try half.parser.mappingPairs(indent: indent) } else { try half.parser.sequenceItems(indent: indent) }
            } catch { half.failed = true }
            half.finished.store(true, ordering: .releasing)
            half.done.signal()
        }
        return half
    }

    /// The offset after the first line feed in `k..<end`, or nil when there is none.
    @inline(__always) func lineAfter(_ k: Int, base: UnsafePointer<UInt8>, end: Int) -> Int? {
        guard k < end, let nl = memchr(base + k, 0x0A, end - k) else { return nil }
        return UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base + 1
    }

    /// Appends the second half's elements after this half's, which stopped where it began:
    /// its nodes, children and scalars renumbered as if this parser had read them. If this
    /// half ended before (the section was shorter than it looked), the second half read
    /// something else and is dropped.
    mutating func take(_ half: SecondHalf) throws {
        let reached = lineStart == stop
        stop = -1
        if reached && !half.finished.load(ordering: .acquiring) { prepareRoom(for: half) }
        half.wait()
        guard reached else { return }
        if half.failed { throw GiveUp() }
        splitSections += 1
        let p = half.parser
        let n = Int32(nodes.count), c = Int32(children.count), u = Int32(unescaped.count)
        // Copied whole, then renumbered in place (an append a node checked the array each time).
        nodes.append(contentsOf: p.nodes)
        nodes.withUnsafeMutableBufferPointer { all in
            for k in Int(n)..<all.count {
                if all[k].kind != 0 { all[k].a &+= c } else if all[k].b < 0 { all[k].a &+= u }
            }
        }
        children.append(contentsOf: p.children)
        children.withUnsafeMutableBufferPointer { all in
            for k in Int(c)..<all.count { all[k] &+= n }
        }
        unescaped.append(contentsOf: p.unescaped)
        quickEntries += p.quickEntries
        for d in p.duplicates { duplicates.append((key: d.key + n, first: d.first + n)) }
        for x in p.pending { pending.append(x + n) }
        i = p.i
        line = p.line
        lineStart = p.lineStart
        colAt = 0
        colValue = 1
    }

    /// While the second half is still being read: the pages its nodes and children will be
    /// copied to (past this half's, in the room reserved for them), made now, as many as this
    /// half's count per byte says it will need. The copy would otherwise wait for a page fault
    /// every 4 KiB after the other thread is done (a million entries: 0.1 s, this thread
    /// alone). Pages are only made, their bytes not written (`MADV_POPULATE_WRITE`, Linux 5.14;
    /// elsewhere, or when it fails, nothing is done).
    func prepareRoom(for half: SecondHalf) {
        #if os(Linux)
        let firstBytes = half.begins - half.firstBegins
        guard firstBytes > 0 else { return }
        let secondBytes = half.sectionEnd - half.begins
        @inline(__always) func populate<T>(_ a: [T], expected: Int) {
            let wanted = min(a.capacity, a.count + expected + expected / 16)
            guard wanted > a.count else { return }
            a.withUnsafeBufferPointer { b in
                guard let base = b.baseAddress else { return }
                let page = 4096
                let from = (UInt(bitPattern: base + a.count) + UInt(page - 1)) & ~UInt(page - 1)
                let to = UInt(bitPattern: base + wanted) & ~UInt(page - 1)
                guard to > from, let start = UnsafeMutableRawPointer(bitPattern: from) else { return }
                _ = madvise(start, Int(to - from), 23)   // MADV_POPULATE_WRITE
            }
        }
        populate(nodes, expected: (nodes.count - half.firstNodes) * secondBytes / firstBytes)
        populate(children, expected: (children.count - half.firstChildren) * secondBytes / firstBytes)
        #endif
    }

    /// Whether the list item at `i` is `KEY: …` (a mapping whose first key is on the dash line).
    func isCompactMapping() -> Bool {
        var k = i
        let b = at(k)
        if b == 0x22 || b == 0x27 {
            k += 1
            while k < buf.count && buf[k] != 0x0A {
                if buf[k] == 0x5C && b == 0x22 { k += 2; continue }
                if buf[k] == b {
                    if b == 0x27 && at(k + 1) == 0x27 { k += 2; continue }
                    break
                }
                k += 1
            }
            k += 1
            return at(k) == 0x3A
        }
        if b == 0x7B || b == 0x5B { return false }
        while !isEOL(at(k)) {
            if at(k) == 0x3A { return true }
            k += 1
        }
        return false
    }

    // MARK: An entry of `expect:` at a time

    /// Whether a list item that is a flow mapping of the common shape is read by `quickEntry`.
    var entryShortcut = true
    /// How many items `quickEntry` read (for the tests).
    var quickEntries = 0

    /// Whether `word` (`shortKeyWord`'s form) is a key `quickEntry` takes: one of the quick
    /// reading's of `expect:` (`Compiler.quickExpectKeys`); its bit (bit k for the k-th key,
    /// as `Compiler.quickKey` reads it), or 0. (`QuickEntryTests`
    /// holds these words to the keys' bytes.)
    @inline(__always) static func entryKeyBit(_ word: UInt64) -> UInt32 {
        switch word {
        case 0x0200_0000_0000_7361: return 1        // as
        case 0x0200_0000_0000_706F: return 1 << 1   // op
        case 0x0400_0000_6874_6170: return 1 << 2   // path
        case 0x0600_746C_7573_6572: return 1 << 3   // result
        case 0x0500_006F_6E72_7265: return 1 << 4   // errno
        case 0x0500_0072_6579_616C: return 1 << 5   // layer
        case 0x0400_0000_656D_616E: return 1 << 6   // name
        case 0x0500_0072_6574_6661: return 1 << 7   // after
        case 0x0400_0000_746E_6968: return 1 << 8   // hint
        default: return 0
        }
    }

    /// Whether `quickEntry` takes byte `b` in a plain scalar: a letter, a digit or one of
    /// `_./~-`, each a byte `flowScalar` reads on past (bit b of the 128-bit set).
    @inline(__always) static func entryPlain(_ b: UInt8) -> Bool {
        b < 64 ? (0x03FF_E000_0000_0000 as UInt64) >> UInt64(b) & 1 != 0
               : b < 128 && (0x47FF_FFFE_87FF_FFFE as UInt64) >> UInt64(b &- 64) & 1 != 0
    }

    /// The flow mapping at `i` (a `{`), when it is one line of the shape most `expect:` entries
    /// have (`{as: bob, op: read, path: "/srv/a", result: allow}`): keys of the quick reading
    /// (`entryKeyBit`), each once, each followed by `: `; values plain scalars of the bytes
    /// `entryPlain` takes, not starting with `-`, or double-quoted scalars without a backslash;
    /// `,` between pairs and spaces where `flowMapping` allows them, `}` at the end. Its nodes
    /// and children are made as `flowMapping` makes them (the same nodes for the same bytes)
    /// without its general steps: no scalar read by `flowScalar`, no key compared with another
    /// (a key met twice is the same bit twice). Nil, with nothing read or made, for anything
    /// else: `flowMapping` then reads it (and decides, as for any entry, what to do with it).
    /// An ASCII text only (a column is a byte offset).
    mutating func quickEntry() -> Int32? {
        guard let base = buf.baseAddress else { return nil }
        let n = buf.count, open = i, from = lineStart
        let l = Int32(line)
        let m = Int32(nodes.count)
        let c0 = Int32(children.count)
        // The nodes made here first (the mapping's, then each key's and value's), then added.
        return withUnsafeTemporaryAllocation(of: FastYAMLDocument.Node.self, capacity: 19) { made -> Int32? in
            var k = open + 1
            var seen: UInt32 = 0
            var count = 1
            while k < n && base[k] == 0x20 { k &+= 1 }
            while true {
                // A key: lowercase letters, then `: `.
                let ks = k
                while k < n && base[k] >= 0x61 && base[k] <= 0x7A { k &+= 1 }
                let kl = k &- ks
                guard kl >= 1, kl <= 7, k + 1 < n, base[k] == 0x3A, base[k + 1] == 0x20 else { return nil }
                let bit = Self.entryKeyBit(shortKeyWord(ks, kl))
                guard bit != 0, seen & bit == 0 else { return nil }
                seen |= bit
                made[count] = .init(line: l, offset: ks &- from, kind: 0, style: 0, a: ks, b: kl)
                k &+= 2
                while k < n && base[k] == 0x20 { k &+= 1 }
                // A value.
                guard k < n else { return nil }
                if base[k] == 0x22 {
                    let q = k
                    k &+= 1
                    // Eight bytes at a time while none is a quote, a backslash or a line feed.
                    while k + 8 <= n {
                        let w = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: k, as: UInt64.self)
                        if SWAR.hasByte(w, 0x22) | SWAR.hasByte(w, 0x5C) | SWAR.hasByte(w, 0x0A) != 0 { break }
                        k &+= 8
                    }
                    while k < n && base[k] != 0x22 {
                        if base[k] == 0x5C || base[k] == 0x0A { return nil }
                        k &+= 1
                    }
                    guard k < n else { return nil }
                    // A quoted scalar's node is where its opening quote is.
                    made[count &+ 1] = .init(line: l, offset: q &- from, kind: 0, style: 2, a: q &+ 1, b: k &- q &- 1)
                    k &+= 1
                } else {
                    let vs = k
                    guard base[k] != 0x2D, Self.entryPlain(base[k]) else { return nil }
                    k &+= 1
                    while k < n && Self.entryPlain(base[k]) { k &+= 1 }
                    made[count &+ 1] = .init(line: l, offset: vs &- from, kind: 0, style: 0, a: vs, b: k &- vs)
                }
                count &+= 2
                while k < n && base[k] == 0x20 { k &+= 1 }
                guard k < n else { return nil }
                if base[k] == 0x2C {
                    guard count < 19 else { return nil }
                    k &+= 1
                    while k < n && base[k] == 0x20 { k &+= 1 }
                    continue
                }
                guard base[k] == 0x7D else { return nil }
                k &+= 1
                break
            }
            guard k - from < 1 << 27 else { return nil }
            let pairs = (count - 1) / 2
            made[0] = .init(line: l, offset: open &- from, kind: 1, style: 0, a: Int(c0), b: pairs)
            nodes.append(contentsOf: UnsafeBufferPointer(rebasing: made[0..<count]))
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 18) { kids in
                for c in 0..<(count - 1) { kids[c] = m + 1 + Int32(c) }
                children.append(contentsOf: UnsafeBufferPointer(rebasing: kids[0..<(count - 1)]))
            }
            i = k
            quickEntries += 1
            return m
        }
    }

    // MARK: Nodes on one line

    /// A scalar, `{…}` or `[…]` starting at `i`.
    mutating func inlineNode(flow: Bool) throws -> Int32 {
        switch cur {
        case 0x7B, 0x5B:
            flowDepth += 1
            defer { flowDepth -= 1 }
            if flowDepth > FastYAMLParser.maxFlowDepth { throw GiveUp() }
            return cur == 0x7B ? try flowMapping() : try flowSequence()
        default: return try flowScalar(flow: flow, key: false)
        }
    }

    mutating func flowMapping() throws -> Int32 {
        let node = try newNode(kind: 1, style: 0, at: i, a: 0, b: 0)
        i += 1
        while cur == 0x20 { i += 1 }
        let base = pending.count
        if cur == 0x7D { i += 1; setChildren(node, from: base, pairs: true); return node }
        while true {
            let start = i
            let k = try flowScalar(flow: true, key: true)
            guard cur == 0x3A, at(i + 1) == 0x20, i - start <= 1000 else { throw GiveUp() }
            i += 2
            while cur == 0x20 { i += 1 }
            let v = try inlineNode(flow: true)
            pending.append(k); pending.append(v)
            while cur == 0x20 { i += 1 }
            if cur == 0x2C {
                i += 1
                while cur == 0x20 { i += 1 }
                if cur == 0x7D || cur == 0x2C { throw GiveUp() }
                continue
            }
            guard cur == 0x7D else { throw GiveUp() }
            i += 1
            break
        }
        // A flow mapping's duplicate is left to the full parser (which cannot set it aside).
        try checkDuplicates(from: base, setAside: false)
        setChildren(node, from: base, pairs: true)
        return node
    }

    mutating func flowSequence() throws -> Int32 {
        let node = try newNode(kind: 2, style: 0, at: i, a: 0, b: 0)
        i += 1
        while cur == 0x20 { i += 1 }
        let base = pending.count
        if cur == 0x5D { i += 1; setChildren(node, from: base, pairs: false); return node }
        while true {
            let start = i
            let item = try inlineNode(flow: true)
            pending.append(item)
            // An item that is a key (`[a: b]`) is left to the full parser; so are very long
            // items, which YAML would not take as keys anyway.
            if i - start > 1000 { throw GiveUp() }
            while cur == 0x20 { i += 1 }
            if cur == 0x2C {
                i += 1
                while cur == 0x20 { i += 1 }
                if cur == 0x5D || cur == 0x2C { throw GiveUp() }
                continue
            }
            guard cur == 0x5D else { throw GiveUp() }
            i += 1
            break
        }
        setChildren(node, from: base, pairs: false)
        return node
    }

    /// A quoted or plain scalar at `i`. `flow`: inside `{…}`/`[…]`. `key`: a `:` may follow
    /// (a plain scalar ends before `: `; anywhere else a `:` makes the reader give up).
    mutating func flowScalar(flow: Bool, key: Bool) throws -> Int32 {
        let b = cur
        if b == 0x22 { return try doubleQuoted() }
        if b == 0x27 { return try singleQuoted() }
        // Indicators and anything that could start something other than a plain scalar.
        switch b {
        case 0x2D:   // `-`: only before an ASCII letter or digit
            let n = at(i + 1)
            if !((n >= 0x30 && n <= 0x39) || (n >= 0x41 && n <= 0x5A) || (n >= 0x61 && n <= 0x7A)) { throw GiveUp() }
        case 0x3F, 0x3A, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x25, 0x40, 0x60, 0x20, 0x0A, 0:
            throw GiveUp()
        default: break
        }
        let start = i
        var end = i   // after the last non-space byte
        // Eight bytes at a time up to the first that might end the scalar (`stopBytes`): the
        // bytes before it never do. From there on, byte by byte.
        if let base = buf.baseAddress {
            while i + 8 <= buf.count {
                let m = Self.stopBytes(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                if m == 0 { i += 8; end = i; continue }
                let k = m.trailingZeroBitCount >> 3
                if k > 0 { i += k; end = i }
                break
            }
        }
        while true {
            let c = cur
            // Bytes that never end a plain scalar: `-./0-9`, and above `:` all but the brackets.
            if (c >= 0x2D && c <= 0x39) || (c > 0x3A && c != 0x5B && c != 0x5D && c != 0x7B && c != 0x7D) {
                end = i + 1
                i += 1
                continue
            }
            if c == 0x0A || c == 0 { break }
            if c == 0x3A {
                if key && (at(i + 1) == 0x20 || (!flow && isEOL(at(i + 1)))) { break }
                throw GiveUp()
            }
            if c == 0x23 { throw GiveUp() }   // `#` in a plain scalar, or a comment after it
            if flow && (c == 0x2C || c == 0x5B || c == 0x5D || c == 0x7B || c == 0x7D) { break }
            if c == 0x20 {
                // A comment ends the scalar: the line's end is checked by the caller.
                if at(i + 1) == 0x23 { break }
            } else { end = i + 1 }
            i += 1
        }
        if end < i {
            // Trailing spaces: not part of the value. In a key they cannot come before `:`.
            if key && cur == 0x3A { throw GiveUp() }
            i = end
        }
        return try newNode(kind: 0, style: 0, at: start, a: Int32(start), b: Int32(end - start))
    }

    /// The high bit set in each byte of `w` (the first in the lowest bits) that might end a
    /// plain scalar or be part of one only in some places: below `-` (a space, a `#`, a `,`,
    /// controls…), `:`, and the brackets. Every other byte of a plain scalar, wherever it is, is
    /// part of it. (Each byte is tested on its low seven bits, exactly for ASCII: a byte of
    /// 0x80 or more may be marked too, which only sends it to the byte-by-byte reading.)
    @inline(__always) static func stopBytes(_ w: UInt64) -> UInt64 {
        let below = ~((w | SWAR.high) &- SWAR.ones &* 0x2D) & SWAR.high
        return below | SWAR.equalLow(w, 0x3A) | SWAR.equalLow(w, 0x5B) | SWAR.equalLow(w, 0x5D)
            | SWAR.equalLow(w, 0x7B) | SWAR.equalLow(w, 0x7D)
    }

    mutating func doubleQuoted() throws -> Int32 {
        let open = i
        i += 1
        let start = i
        var out: [UInt8]? = nil
        // Eight bytes at a time while none is a quote, a backslash or a line feed; then byte by
        // byte from the word that holds one.
        if let base = buf.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= buf.count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if SWAR.hasByte(w, 0x22) | SWAR.hasByte(w, 0x5C) | SWAR.hasByte(w, 0x0A) != 0 { break }
                i += 8
            }
        }
        while true {
            let c = cur
            if c == 0x0A || i >= buf.count { throw GiveUp() }
            if c == 0x22 { break }
            if c == 0x5C {
                if out == nil { out = Array(buf[start..<i]) }
                let e = at(i + 1)
                i += 2
                switch e {
                case 0x22: out!.append(0x22)
                case 0x5C: out!.append(0x5C)
                case 0x2F: out!.append(0x2F)
                case 0x6E: out!.append(0x0A)
                case 0x74: out!.append(0x09)
                case 0x72: out!.append(0x0D)
                case 0x78, 0x75, 0x55:
                    let digits = e == 0x78 ? 2 : e == 0x75 ? 4 : 8
                    var v: UInt32 = 0
                    for _ in 0..<digits {
                        let h = cur
                        let d: UInt32
                        if h >= 0x30 && h <= 0x39 { d = UInt32(h - 0x30) }
                        else if h >= 0x41 && h <= 0x46 { d = UInt32(h - 0x41 + 10) }
                        else if h >= 0x61 && h <= 0x66 { d = UInt32(h - 0x61 + 10) }
                        else { throw GiveUp() }
                        v = v * 16 + d
                        i += 1
                    }
                    guard v != 0, let u = Unicode.Scalar(v) else { throw GiveUp() }
                    out!.append(contentsOf: Array(String(u).utf8))
                default: throw GiveUp()
                }
                continue
            }
            if out != nil { out!.append(c) }
            i += 1
        }
        return try quotedScalar(style: 2, open: open, start: start, unescaped: out)
    }

    mutating func singleQuoted() throws -> Int32 {
        let open = i
        i += 1
        let start = i
        var out: [UInt8]? = nil
        while true {
            let c = cur
            if c == 0x0A || i >= buf.count { throw GiveUp() }
            if c == 0x27 {
                if at(i + 1) == 0x27 {
                    if out == nil { out = Array(buf[start..<i]) }
                    out!.append(0x27)
                    i += 2
                    continue
                }
                break
            }
            if out != nil { out!.append(c) }
            i += 1
        }
        return try quotedScalar(style: 1, open: open, start: start, unescaped: out)
    }

    /// The node of a quoted scalar whose closing quote is at `i` (stepped over): the text between
    /// the quotes as it is, or `unescaped` when escapes or `''` made it differ.
    mutating func quotedScalar(style: UInt8, open: Int, start: Int, unescaped out: [UInt8]?) throws -> Int32 {
        let end = i
        i += 1
        if let o = out {
            unescaped.append(String(decoding: o, as: UTF8.self))
            return try newNode(kind: 0, style: style, at: open, a: Int32(unescaped.count - 1), b: -1)
        }
        return try newNode(kind: 0, style: style, at: open, a: Int32(start), b: Int32(end - start))
    }

    // MARK: Duplicate keys

    /// The value of scalar `i` as a string (while the document is being read).
    func value(_ i: Int32) -> String {
        let n = nodes[Int(i)]
        if n.b < 0 { return unescaped[Int(n.a)] }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[Int(n.a)..<Int(n.a + n.b)]), as: UTF8.self)
    }

    /// Keys of one mapping equal as YAML (Yams) compares them: as Swift strings. Keys of ASCII
    /// bytes taken verbatim from the text are compared as bytes (the same thing for them); a
    /// mapping with any other key compares strings. Each later occurrence of a key is set aside
    /// with its value and remembered in `duplicates` (the full parser reports each and reads
    /// on without it), when both keys are certainly strings to YAML: quoted, or plain and
    /// starting with `/` (a path), in a block mapping. Any other duplicate (`1` and `"1"` are
    /// two keys to YAML; the full parser cannot set a flow mapping's aside): the text is left
    /// to the full parser.
    mutating func checkDuplicates(from base: Int, setAside: Bool = true) throws {
        let count = (pending.count - base) / 2
        if count < 2 { return }
        // A few keys of ASCII bytes taken verbatim (an entry's fields): compared pair by pair
        // in place; the rest as below.
        if count <= 8 {
            // Keys of up to eight bytes in an ASCII text (an entry's `as`, `op`, `path`, …): each
            // loaded as one word with its length, the words compared.
            if ascii {
                let distinct = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { w -> Bool in
                    for k in 0..<count {
                        let n = nodes[Int(pending[base + 2 * k])]
                        guard n.b >= 0, n.b <= 7 else { return false }
                        let v = shortKeyWord(Int(n.a), Int(n.b))
                        for i in 0..<k where w[i] == v { return false }
                        w[k] = v
                    }
                    return true
                }
                if distinct { return }
            }
            var simple = true
            for j in stride(from: base, to: pending.count, by: 2) where simple {
                let n = nodes[Int(pending[j])]
                if n.b < 0 { simple = false; break }
                // (A text all of ASCII, as `acceptableBytes` found, has no other byte to look for.)
                if !ascii { for k in Int(n.a)..<Int(n.a + n.b) where buf[k] >= 0x80 { simple = false; break } }
            }
            if simple {
                var equal = false
                for j in stride(from: base + 2, to: pending.count, by: 2) where !equal {
                    let n = nodes[Int(pending[j])]
                    for i in stride(from: base, to: j, by: 2) {
                        let o = nodes[Int(pending[i])]
                        if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { equal = true; break }
                    }
                }
                if !equal { return }
            }
        }
        var kids = Array(pending[base...])
        try checkDuplicates(&kids, setAside: setAside)
        pending.removeLast(pending.count - base)
        pending.append(contentsOf: kids)
    }

    /// The bytes of a key of up to seven bytes taken verbatim from the text, zero above them,
    /// and its length in the top byte: two such keys are equal when their words are.
    @inline(__always) func shortKeyWord(_ start: Int, _ length: Int) -> UInt64 {
        Self.shortKeyWord(buf, start, length)
    }

    /// The same in any text (the quick reading's, `Compiler.quickKey`).
    @inline(__always) static func shortKeyWord(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> UInt64 {
        SWAR.partialWord(buf, start, length) | UInt64(length) << 56
    }

    mutating func checkDuplicates(_ kids: inout [Int32], setAside: Bool = true) throws {
        let count = kids.count / 2
        if count < 2 { return }
        var found: [(later: Int, first: Int)] = []
        var ascii = true
        for j in stride(from: 0, to: kids.count, by: 2) {
            let n = nodes[Int(kids[j])]
            if n.b < 0 { ascii = false; break }
            if !self.ascii { for k in Int(n.a)..<Int(n.a + n.b) where buf[k] >= 0x80 { ascii = false; break } }
            if !ascii { break }
        }
        if !ascii {
            var seen: [String: Int] = [:]
            for j in stride(from: 0, to: kids.count, by: 2) {
                let v = value(kids[j])
                if let f = seen[v] { found.append((j, f)) } else { seen[v] = j }
            }
        } else if strictlyIncreasing(kids) {
            // Keys in increasing byte order (a scan file's or fmt's tree) are all different.
        } else if count <= 8 {
            for j in stride(from: 2, to: kids.count, by: 2) {
                let n = nodes[Int(kids[j])]
                for i in stride(from: 0, to: j, by: 2) {
                    let o = nodes[Int(kids[i])]
                    if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { found.append((j, i)); break }
                }
            }
        } else {
            // Open addressing over (hash, node) with byte comparison.
            var cap = 16
            while cap < count * 2 { cap <<= 1 }
            var slots = [Int32](repeating: -1, count: cap)
            for j in stride(from: 0, to: kids.count, by: 2) {
                let n = nodes[Int(kids[j])]
                let h = World.fnv(UnsafeBufferPointer(rebasing: buf[Int(n.a)..<Int(n.a + n.b)]))
                var s = Int(truncatingIfNeeded: h ^ (h >> 29)) & (cap - 1)
                var first = -1
                while slots[s] >= 0 {
                    let o = nodes[Int(kids[Int(slots[s])])]
                    if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { first = Int(slots[s]); break }
                    s = (s + 1) & (cap - 1)
                }
                if first >= 0 { found.append((j, first)) } else { slots[s] = Int32(j) }
            }
        }
        if found.isEmpty { return }
        if !setAside { throw GiveUp() }
        for (later, first) in found {
            guard certainlyString(kids[later]), certainlyString(kids[first]) else { throw GiveUp() }
            duplicates.append((key: kids[later], first: kids[first]))
        }
        let drop = Set(found.map(\.later))
        var kept: [Int32] = []
        kept.reserveCapacity(kids.count - 2 * drop.count)
        for j in stride(from: 0, to: kids.count, by: 2) where !drop.contains(j) { kept.append(kids[j]); kept.append(kids[j + 1]) }
        kids = kept
    }

    /// Whether the keys (verbatim ASCII scalars) are in strictly increasing byte order.
    func strictlyIncreasing(_ kids: [Int32]) -> Bool {
        guard let base = buf.baseAddress else { return false }
        var prev = nodes[Int(kids[0])]
        for j in stride(from: 2, to: kids.count, by: 2) {
            let n = nodes[Int(kids[j])]
            let common = Int(min(prev.b, n.b))
            let c = memcmp(base + Int(prev.a), base + Int(n.a), common)
            if c > 0 || (c == 0 && prev.b >= n.b) { return false }
            prev = n
        }
        return true
    }

    /// A scalar YAML's resolver can only take as a string: quoted, or plain and starting with `/`.
    func certainlyString(_ i: Int32) -> Bool {
        let n = nodes[Int(i)]
        guard n.kind == 0 else { return false }
        if n.style != 0 { return true }
        return n.b > 0 && buf[Int(n.a)] == 0x2F
    }

    @inline(__always) func memcmpEqual(_ x: Int, _ y: Int, _ n: Int) -> Bool {
        var k = 0
        while k < n { if buf[x + k] != buf[y + k] { return false }; k += 1 }
        return true
    }
}
