import FSPolicy

/// A JSON value with ordered keys, written deterministically.
public indirect enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public func render(indent: Int = 0, step: Int = 2) -> String {
        var out = ByteBuffer()
        write(into: &out, indent: indent, step: step)
        return out.string
    }

    /// The text `render(indent:step:)` gives, appended to `out` as UTF-8: one buffer for the
    /// whole value, the padding written in place, no text made per level.
    public func write(into out: inout ByteBuffer, indent: Int = 0, step: Int = 2) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .int(let i): JSON.int(i, into: &out)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let a):
            if a.isEmpty { out.append("[]"); return }
            out.append(0x5B)
            var first = true
            for v in a {
                out.append(first ? "\n" : ",\n")
                first = false
                JSON.pad(indent + step, into: &out)
                v.write(into: &out, indent: indent + step, step: step)
            }
            out.append(0x0A)
            JSON.pad(indent, into: &out)
            out.append(0x5D)
        case .object(let o):
            if o.isEmpty { out.append("{}"); return }
            out.append(0x7B)
            var first = true
            for (k, v) in o {
                out.append(first ? "\n" : ",\n")
                first = false
                JSON.pad(indent + step, into: &out)
                JSON.quote(k, into: &out)
                out.append(": ")
                v.write(into: &out, indent: indent + step, step: step)
            }
            out.append(0x0A)
            JSON.pad(indent, into: &out)
            out.append(0x7D)
        }
    }

    /// `n` spaces.
    @inline(__always)
    static func pad(_ n: Int, into out: inout ByteBuffer) { out.append(repeating: 0x20, count: n) }

    /// `String(i)`'s digits, without making the string.
    static func int(_ i: Int, into out: inout ByteBuffer) {
        if i < 0 { out.append(0x2D) }
        var m = i.magnitude
        var digits = 1
        var p: UInt = 10
        while digits < 20 && m >= p { digits += 1; p = p &* 10 }
        out.appendReserved(digits) { d in
            for k in stride(from: digits - 1, through: 0, by: -1) {
                d[k] = UInt8(truncatingIfNeeded: 0x30 + m % 10)
                m /= 10
            }
        }
    }

    public static func quote(_ s: String) -> String {
        var out = ByteBuffer()
        quote(s, into: &out)
        return out.string
    }

    /// `s` as a JSON string, appended to `out`. `htmlSafe`: `<`, `>` and `&` are `\uXXXX` too, so
    /// the JSON can sit inside a `<script>` element (no `</script>` or `<!--` can appear).
    public static func quote(_ s: String, htmlSafe: Bool = false, into out: inout String) {
        var bytes = ByteBuffer()
        quote(s, htmlSafe: htmlSafe, into: &bytes)
        out += bytes.string
    }

    /// `s` as a JSON string, appended to `out` as UTF-8. The text is read byte by byte and every
    /// run that needs no escape is appended at once. Escaped: `"`, `\`, newline, return and tab
    /// by their short forms; every unsafe code point (`Escaping.isUnsafe`: controls, C1, bidi
    /// controls, separators, noncharacters) as `\uXXXX` (a surrogate pair above U+FFFF): valid
    /// JSON, and nothing a terminal acts on when the JSON is shown.
    public static func quote(_ s: String, htmlSafe: Bool = false, into out: inout ByteBuffer) {
        // A native or small string's bytes are read in place; others through a copy.
        if s.utf8.withContiguousStorageIfAvailable({ quote(utf8: $0, htmlSafe: htmlSafe, into: &out) }) == nil {
            var s = s
            s.withUTF8 { quote(utf8: $0, htmlSafe: htmlSafe, into: &out) }
        }
    }

    public static func quote(_ s: Substring, htmlSafe: Bool = false, into out: inout ByteBuffer) {
        var s = s
        s.withUTF8 { quote(utf8: $0, htmlSafe: htmlSafe, into: &out) }
    }

    /// The ASCII bytes written as they are (printable, not `"` or `\\`), a bit each: bytes 0–63
    /// in `plainLow`, 64–127 in `plainHigh`; `htmlLow` also leaves out `<`, `>` and `&`.
    static let plainLow: UInt64 = 0xFFFF_FFFB_0000_0000
    static let htmlLow: UInt64 = plainLow & ~(1 << 0x3C | 1 << 0x3E | 1 << 0x26)
    static let plainHigh: UInt64 = 0x7FFF_FFFF_EFFF_FFFF

    @inline(__always) static func plain(_ b: UInt8, low: UInt64) -> Bool {
        b < 64 ? (low >> UInt64(b)) & 1 != 0 : b < 128 && (plainHigh >> UInt64(b & 63)) & 1 != 0
    }

    /// How many bytes at the start of the `n` at `p` need no escape: eight at a time (the last
    /// eight read again, overlapping, rather than byte by byte), then a bitmap for the rest.
    @inline(__always)
    static func plainPrefix(_ p: UnsafePointer<UInt8>, _ n: Int, htmlSafe: Bool) -> Int {
        var i = 0
        if !htmlSafe && n >= 8 {
            while i + 8 <= n, !JSON.needsLook(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            if i < n && i + 8 > n && !JSON.needsLook(UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self)) { return n }
        }
        let low = htmlSafe ? htmlLow : plainLow
        while i < n && plain(p[i], low: low) { i += 1 }
        return i
    }

    static func quote(utf8 u: UnsafeBufferPointer<UInt8>, htmlSafe: Bool, into out: inout ByteBuffer) {
        let n = u.count
        // Most strings need no escape: a plain one is copied at once.
        guard let p = u.baseAddress, n > 0 else { out.append("\"\""); return }
        var i = plainPrefix(p, n, htmlSafe: htmlSafe)
        if i == n {
            out.appendReserved(n + 2) { to in
                to[0] = 0x22
                ByteBuffer.copy(p, to: to + 1, count: n)
                to[n + 1] = 0x22
            }
            return
        }
        out.append(0x22)
        var run = 0
        @inline(__always) func flush(_ end: Int) {
            if end > run { out.append(UnsafeBufferPointer(rebasing: u[run..<end])) }
        }
        while i < n {
            // The bytes that need no escape, then the one that stopped them.
            i += plainPrefix(p + i, n - i, htmlSafe: htmlSafe)
            if i >= n { break }
            let b = u[i]
            if b < 0x80 {
                flush(i)
                switch b {
                case 0x22: out.append("\\\"")
                case 0x5C: out.append("\\\\")
                case 0x0A: out.append("\\n")
                case 0x0D: out.append("\\r")
                case 0x09: out.append("\\t")
                default: unicodeEscape(UInt16(b), into: &out)
                }
                i += 1
                run = i
                continue
            }
            // A multi-byte scalar (the text is valid UTF-8).
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            let v = scalar(u, at: i, length: len)
            if Escaping.isUnsafe(v) {
                flush(i)
                if v > 0xFFFF {
                    let w = v - 0x10000
                    unicodeEscape(UInt16(0xD800 + (w >> 10)), into: &out)
                    unicodeEscape(UInt16(0xDC00 + (w & 0x3FF)), into: &out)
                } else {
                    unicodeEscape(UInt16(v), into: &out)
                }
                i += len
                run = i
            } else {
                i += len
            }
        }
        flush(n)
        out.append(0x22)
    }

    /// The code point of the `length`-byte UTF-8 sequence at `i` (the text is valid UTF-8).
    @inline(__always)
    static func scalar(_ u: UnsafeBufferPointer<UInt8>, at i: Int, length: Int) -> UInt32 {
        switch length {
        case 2: return UInt32(u[i] & 0x1F) << 6 | UInt32(u[i + 1] & 0x3F)
        case 3: return UInt32(u[i] & 0x0F) << 12 | UInt32(u[i + 1] & 0x3F) << 6 | UInt32(u[i + 2] & 0x3F)
        default: return UInt32(u[i] & 0x07) << 18 | UInt32(u[i + 1] & 0x3F) << 12 | UInt32(u[i + 2] & 0x3F) << 6 | UInt32(u[i + 3] & 0x3F)
        }
    }

    /// Whether any of the eight bytes of `w` is not printable ASCII other than `"` and `\` (a byte
    /// at or above 0x80, below 0x20, `"`, `\` or DEL), each test setting the high bit of the bytes
    /// it finds (SWAR). It may also say so of a plain byte after one it found (a borrow), never
    /// the reverse.
    @inline(__always)
    static func needsLook(_ w: UInt64) -> Bool {
        SWAR.notPrintableASCII(w) || SWAR.hasByte(w, 0x22) | SWAR.hasByte(w, 0x5C) != 0
    }

    /// `\u` and four lowercase hex digits.
    static func unicodeEscape(_ unit: UInt16, into out: inout ByteBuffer) {
        let hex: StaticString = "0123456789abcdef"
        out.append(0x5C)
        out.append(0x75)
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(hex.utf8Start[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}

/// Where JSON goes as it is made: a tree (`JSONTree`, for `JSON` values) or text (`JSONWriter`,
/// straight into a byte buffer). One function that emits a value serves both, so the JSON of a
/// decision has one definition whichever way it is wanted. In an object every value follows a
/// `key`; the elements of an array or object come between its `begin` and `end`. (No closures:
/// a closure would carry a copy of the renderer, with its policy and world, for every value.)
public protocol JSONOutput: ~Copyable {
    /// A key of the current object, one of fspolicy's own (ASCII, nothing to escape).
    mutating func key(_ k: StaticString)
    mutating func null()
    mutating func bool(_ b: Bool)
    mutating func int(_ i: Int)
    mutating func string(_ s: String)
    mutating func string(_ s: Substring)
    /// A string of the bytes `body` appends (whole UTF-8 code points; invalid bytes are
    /// repaired as `String(decoding:)` does), without making a `String` first when it can.
    mutating func string(writing body: (inout ByteBuffer) -> Void)
    /// The same, `body` given `context` as an argument (borrowed: a closure that captured a
    /// part of a bigger value, or read it through a pointer, would copy it, retaining every
    /// string in it).
    mutating func string<C>(with context: borrowing C, writing body: (borrowing C, inout ByteBuffer) -> Void)
    /// A string that needs no escape, one of fspolicy's own words (an operation, a rule, a
    /// layer, an errno, a rule set): written as it is, without looking at its bytes.
    mutating func plain(_ s: String)
    mutating func beginArray()
    mutating func endArray()
    mutating func beginObject()
    mutating func endObject()
    /// A value already made.
    mutating func value(_ j: JSON)
    /// A value (an array's element or a key's value) that `body` writes, whose text depends only
    /// on `keys.step` when there is one (and on the renderer's world, which owns `cache`): a
    /// writer may keep the bytes `body` wrote and copy them for the same key again instead of
    /// calling it. Its text with the contents of the strings written by `string(writing:)` left
    /// out (the paths of `keys.holes`, one or two: -1 for no second) depends only on `keys.template`:
    /// a writer may keep that too, and for another value of the same template copy it around
    /// those strings, written by `hole` (`StepJSONCache`).
    mutating func element(cache: StepJSONCache, keys: StepJSONCache.Keys,
                          hole: (NodeID, inout ByteBuffer) -> Void, _ body: (inout Self) -> Void)
    /// The steps of a trace, the elements of the array just opened, all at once when a writer
    /// can (`JSONWriter`, from `cache`: the text of every step as `element` writes it): true
    /// when it wrote them, false when it wrote nothing (they are then written one by one).
    mutating func traceSteps(cache: StepJSONCache, _ steps: UnsafeBufferPointer<TraceStep>, in world: World) -> Bool
    /// A run of fixed text that `body` writes (keys, brackets, fspolicy's own words), whose
    /// bytes depend only on `key` and on where the writer is (its indentation, nesting, and
    /// whether anything was written in the innermost container yet): a writer may keep them
    /// and copy them for the same key and place again instead of calling `body`.
    mutating func fields(cache: StepJSONCache, key: UInt64, _ body: (inout Self) -> Void)
}

extension JSONOutput where Self: ~Copyable {
    public mutating func element(cache: StepJSONCache, keys: StepJSONCache.Keys,
                                 hole: (NodeID, inout ByteBuffer) -> Void, _ body: (inout Self) -> Void) { body(&self) }
    public mutating func traceSteps(cache: StepJSONCache, _ steps: UnsafeBufferPointer<TraceStep>, in world: World) -> Bool { false }
    public mutating func fields(cache: StepJSONCache, key: UInt64, _ body: (inout Self) -> Void) { body(&self) }
    @inline(__always) mutating func field(_ k: StaticString, _ s: String) { key(k); string(s) }
    @inline(__always) mutating func field(_ k: StaticString, _ s: String?) { key(k); if let s { string(s) } else { null() } }
    @inline(__always) mutating func field(_ k: StaticString, plain s: String) { key(k); plain(s) }
    @inline(__always) mutating func field(_ k: StaticString, plain s: String?) { key(k); if let s { plain(s) } else { null() } }
    @inline(__always) mutating func field(_ k: StaticString, _ i: Int) { key(k); int(i) }
    @inline(__always) mutating func field(_ k: StaticString, _ b: Bool) { key(k); bool(b) }
    /// An array of strings.
    @inline(__always) mutating func strings(_ k: StaticString, _ a: [String]) {
        key(k)
        beginArray()
        for s in a { string(s) }
        endArray()
    }
}

/// Builds a `JSON` value.
public struct JSONTree: JSONOutput {
    /// The elements of the open containers, innermost last (array elements have no key).
    var open: [[(String, JSON)]] = [[]]
    var pendingKey = ""
    /// The keys of the open containers (the first is the top's, unused).
    var keys: [String] = []
    public init() {}
    /// The value emitted (null when nothing was).
    public var result: JSON { open[0].first?.1 ?? .null }

    mutating func add(_ j: JSON) {
        open[open.count - 1].append((pendingKey, j))
        pendingKey = ""
    }
    public mutating func key(_ k: StaticString) { pendingKey = k.withUTF8Buffer { String(decoding: $0, as: UTF8.self) } }
    public mutating func null() { add(.null) }
    public mutating func bool(_ b: Bool) { add(.bool(b)) }
    public mutating func int(_ i: Int) { add(.int(i)) }
    public mutating func string(_ s: String) { add(.string(s)) }
    public mutating func string(_ s: Substring) { add(.string(String(s))) }
    public mutating func plain(_ s: String) { add(.string(s)) }
    public mutating func string(writing body: (inout ByteBuffer) -> Void) {
        var b = ByteBuffer(capacity: 64)
        body(&b)
        add(.string(b.string))
    }
    public mutating func string<C>(with context: borrowing C, writing body: (borrowing C, inout ByteBuffer) -> Void) {
        var b = ByteBuffer(capacity: 64)
        body(context, &b)
        add(.string(b.string))
    }
    public mutating func value(_ j: JSON) { add(j) }
    public mutating func beginArray() { keys.append(pendingKey); pendingKey = ""; open.append([]) }
    public mutating func beginObject() { beginArray() }
    public mutating func endArray() {
        let items = open.removeLast()
        pendingKey = keys.removeLast()
        add(.array(items.map(\.1)))
    }
    public mutating func endObject() {
        let items = open.removeLast()
        pendingKey = keys.removeLast()
        add(.object(items))
    }
}

/// Writes JSON text, the bytes `JSON.render(indent:step:)` gives for the same value, into
/// `bytes`. The value starts where the buffer ends (its first line's padding is the caller's);
/// its inner lines are indented from `indent`.
public struct JSONWriter: JSONOutput, ~Copyable {
    public var bytes: ByteBuffer
    var indent: Int
    let step: Int
    /// Nesting depth; no element written yet in the innermost container; a key just written.
    var depth = 0
    var first = true
    var afterKey = false
    /// While a step's template is made (`element`): the contents of the strings written by
    /// `string(writing:)`, as (start, end) offsets, and how many there were.
    var recording = false
    var holes = (0, 0, 0, 0)
    var holeCount = 0

    public init(bytes: consuming ByteBuffer = ByteBuffer(), indent: Int = 0, step: Int = 2) {
        self.bytes = bytes
        self.indent = indent
        self.step = step
    }

    /// What goes before a value: nothing after a key or at the top, else the separator and
    /// the padding of an array element.
    @inline(__always) mutating func begin() {
        if afterKey { afterKey = false; return }
        if depth == 0 { return }
        separator()
    }

    @inline(__always) mutating func separator() {
        if first { bytes.append(0x0A); first = false } else { bytes.append(0x2C); bytes.append(0x0A) }
        JSON.pad(indent, into: &bytes)
    }

    public mutating func key(_ k: StaticString) {
        // `,\n`, the padding, `"key": ` in one go (the padding eight spaces a store, the last
        // store perhaps past the end, into the room made for it: the key then overwrites it).
        // (Wrapping arithmetic: every number here is a few dozen at most.)
        let lead = first ? 1 : 2
        let length = k.utf8CodeUnitCount
        let indent = indent
        bytes.appendReserved(lead &+ indent &+ length &+ 4, slack: 8) { p in
            var at = 0
            if lead == 2 { p[0] = 0x2C; at = 1 }
            p[at] = 0x0A
            at &+= 1
            let spaces: UInt64 = 0x2020_2020_2020_2020
            var i = 0
            while i < indent {
                UnsafeMutableRawPointer(p + (at &+ i)).storeBytes(of: spaces, as: UInt64.self)
                i &+= 8
            }
            at &+= indent
            p[at] = 0x22
            ByteBuffer.copy(k.utf8Start, to: p + (at &+ 1), count: length)
            at &+= 1 &+ length
            p[at] = 0x22
            p[at &+ 1] = 0x3A
            p[at &+ 2] = 0x20
        }
        first = false
        afterKey = true
    }
    public mutating func null() { begin(); bytes.append("null") }
    public mutating func bool(_ b: Bool) { begin(); bytes.append(b ? "true" : "false") }
    public mutating func int(_ i: Int) { begin(); JSON.int(i, into: &bytes) }
    public mutating func string(_ s: String) { begin(); JSON.quote(s, into: &bytes) }
    public mutating func string(_ s: Substring) { begin(); JSON.quote(s, into: &bytes) }
    public mutating func plain(_ s: String) {
        begin()
        bytes.append(0x22)
        let start = bytes.count
        bytes.append(string: s)
        assert(JSON.plainPrefix(bytes.base + start, bytes.count - start, htmlSafe: false) == bytes.count - start, "not a plain word: \(s)")
        bytes.append(0x22)
    }
    /// The bytes are written in place after the opening quote; when any of them needs an escape
    /// (rare), they are taken out again and quoted from a copy.
    public mutating func string(writing body: (inout ByteBuffer) -> Void) {
        begin()
        bytes.append(0x22)
        let start = bytes.count
        stringContents(writing: body)
        endString(start)
    }

    public mutating func string<C>(with context: borrowing C, writing body: (borrowing C, inout ByteBuffer) -> Void) {
        begin()
        bytes.append(0x22)
        let start = bytes.count
        body(context, &bytes)
        escapeContents(from: start)
        endString(start)
    }

    /// After a string's contents (from `start`): its closing quote, the contents kept as a hole
    /// while a template is recorded.
    @inline(__always) mutating func endString(_ start: Int) {
        if recording {
            if holeCount == 0 { holes.0 = start; holes.1 = bytes.count } else if holeCount == 1 { holes.2 = start; holes.3 = bytes.count }
            holeCount += 1
        }
        bytes.append(0x22)
    }

    /// The contents of a string (what goes between its quotes, the opening one already
    /// written) that `body` appends: in place, or escaped from a copy when a byte needs it.
    mutating func stringContents(writing body: (inout ByteBuffer) -> Void) {
        let start = bytes.count
        body(&bytes)
        escapeContents(from: start)
    }

    /// The bytes from `start` on, just appended as a string's contents, escaped if any needs it.
    @inline(__always) mutating func escapeContents(from start: Int) {
        let n = bytes.count - start
        if JSON.plainPrefix(bytes.base + start, n, htmlSafe: false) == n { return }
        let text = String(decoding: UnsafeBufferPointer(start: bytes.base + start, count: n), as: UTF8.self)
        // The opening quote before `start` is the template's: `JSON.quote` writes it again.
        bytes.truncate(to: start - 1)
        JSON.quote(text, into: &bytes)
        bytes.truncate(to: bytes.count - 1)
    }
    public mutating func value(_ j: JSON) { begin(); j.write(into: &bytes, indent: indent, step: step) }
    public mutating func beginArray() { open(0x5B) }
    public mutating func beginObject() { open(0x7B) }
    public mutating func endArray() { close(0x5D) }
    public mutating func endObject() { close(0x7D) }

    /// A value (an array's element, or a key's value) copied from `cache` when the same step
    /// was written at the same indentation before (`keys.step`); else, when a value of the same
    /// template was (`keys.template`), its template copied around its paths (the nodes of
    /// `keys.holes`, -1 for none, written by `hole`); else written by `body`, and the step and its
    /// template kept (while the cache has room).
    public mutating func element(cache: StepJSONCache, keys: StepJSONCache.Keys,
                                 hole: (NodeID, inout ByteBuffer) -> Void, _ body: (inout JSONWriter) -> Void) {
        begin()
        let nodes = keys.holes
        let layout = UInt64(UInt16(truncatingIfNeeded: indent)) << 40 | UInt64(UInt8(truncatingIfNeeded: step)) << 56
        var key = keys.step, template = keys.template
        key?.c |= layout
        template.c |= layout
        // As after the value's own `close`: its container has an element now.
        defer { first = false }
        if let key, let r = cache.find(key) {
            bytes.append(UnsafeBufferPointer(start: cache.bytes.base + r.start, count: r.count))
            return
        }
        if let t = cache.find(template) {
            cache.templateUses += 1
            // Kept as: the two holes' offsets in the text (UInt32.max for no second hole), then
            // the text up to the first hole, from there up to the second, and the rest.
            let base = cache.bytes.base + t.start
            let h1 = Int(UnsafeRawPointer(base).loadUnaligned(as: UInt32.self))
            let h2raw = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let h2 = h2raw == .max ? t.count - 8 : Int(h2raw)
            bytes.append(UnsafeBufferPointer(start: base + 8, count: h1))
            let holeStart = bytes.count
            stringContents { hole(nodes.0, &$0) }
            let length = bytes.count - holeStart
            bytes.append(UnsafeBufferPointer(start: base + 8 + h1, count: h2 - h1))
            guard h2raw != .max else { return }
            if nodes.1 == nodes.0 {
                // The same path again (a step's node is most often its evidence's): its bytes
                // as written the first time.
                bytes.reserve(length)
                bytes.append(UnsafeBufferPointer(start: bytes.base + holeStart, count: length))
            } else {
                stringContents { hole(nodes.1, &$0) }
            }
            bytes.append(UnsafeBufferPointer(start: base + 8 + h2, count: t.count - 8 - h2))
            return
        }
        // The separator is written: the value's `beginObject` must not write another.
        afterKey = true
        let start = bytes.count
        recording = true
        holeCount = 0
        body(&self)
        recording = false
        let written = UnsafeBufferPointer(start: bytes.base + start, count: bytes.count - start)
        if let key { cache.keep(key, written) }
        // A template only when the strings written in are exactly the holes asked for.
        let wanted = nodes.1 >= 0 ? 2 : 1
        guard holeCount == wanted else { return }
        let h = (holes.0 - start, holes.1 - start, holes.2 - start, holes.3 - start)
        let head = (UInt32(h.0), wanted == 2 ? UInt32(h.2 - (h.1 - h.0)) : UInt32.max)
        var text = withUnsafeBytes(of: head) { Array($0) }
        text += written[0..<h.0]
        if wanted == 2 {
            text += written[h.1..<h.2]
            text += written[h.3...]
        } else {
            text += written[h.1...]
        }
        text.withUnsafeBufferPointer { cache.keep(template, $0) }
    }

    /// A trace's steps from one text kept for traces of the same shape (`StepJSONCache`'s
    /// traces): the text of its steps as `element` writes them from their templates, separators
    /// and padding included, its holes the paths of the steps' nodes. Each such node must be
    /// the deepest step node or one of its ancestors, whose paths are then the beginnings of the
    /// deepest one's, up to a `/`: the deepest path is written once and each hole is a copy of
    /// the start of it (instead of a walk up the world for every path of every step).
    /// Nothing is written (false) when a step has no template key, a node is elsewhere (after a
    /// symbolic link), the deepest path needs an escape, or a step's template was not kept.
    public mutating func traceSteps(cache: StepJSONCache, _ steps: UnsafeBufferPointer<TraceStep>, in world: World) -> Bool {
        guard first else { return false }
        let layout = UInt64(UInt16(truncatingIfNeeded: indent)) << 40 | UInt64(UInt8(truncatingIfNeeded: step)) << 56
        // (The work in the cache's own buffers, no closure here: a closure that captured the
        // writer had each of its uses checked for exclusive access at run time.)
        guard let (e, pathLength) = cache.prepareTrace(steps, layout: layout, indent: indent, in: world) else { return false }
        cache.traceUses += 1
        // Room for the text and every hole at its longest, then each piece copied.
        let text = cache.traceTextBase, path = cache.scratch, ends = cache.ends
        let holes = cache.traceHoles
        bytes.append(upTo: e.textCount + e.holeCount * pathLength) { out in
            var at = e.textStart, to = 0
            for h in e.holeStart..<e.holeStart + e.holeCount {
                let hole = holes[h]
                let upTo = Int(hole.offset)
                ByteBuffer.copy(text + at, to: out + to, count: upTo - at)
                to += upTo - at
                at = upTo
                let length = ends[Int(hole.depth)]
                ByteBuffer.copy(path, to: out + to, count: length)
                to += length
            }
            let rest = e.textStart + e.textCount - at
            ByteBuffer.copy(text + at, to: out + to, count: rest)
            return to + rest
        }
        first = false
        return true
    }

    public mutating func fields(cache: StepJSONCache, key: UInt64, _ body: (inout JSONWriter) -> Void) {
        // (Not while a step's template is recorded: its holes are offsets into what is written.)
        if recording { body(&self); return }
        let k = StepJSONCache.Key(a: key, b: UInt64(UInt32(truncatingIfNeeded: indent)) | UInt64(UInt32(truncatingIfNeeded: depth)) << 32,
                                  c: UInt64(UInt32(truncatingIfNeeded: step)) | (first ? 1 << 32 : 0) | (afterKey ? 1 << 33 : 0))
        let slot = cache.blockSlot(k)
        let kept = cache.blocks[slot]
        if kept.key == k {
            bytes.append(UnsafeBufferPointer(start: cache.blockBytes.base + kept.start, count: kept.count))
            indent = Int(kept.indent); depth = Int(kept.depth); first = kept.first; afterKey = kept.afterKey
            return
        }
        let start = bytes.count
        body(&self)
        cache.keepBlock(k, at: slot, UnsafeBufferPointer(start: bytes.base + start, count: bytes.count - start),
                        indent: indent, depth: depth, first: first, afterKey: afterKey)
    }

    @inline(__always) mutating func open(_ bracket: UInt8) {
        begin()
        bytes.append(bracket)
        first = true
        depth += 1
        indent += step
    }

    @inline(__always) mutating func close(_ bracket: UInt8) {
        indent -= step
        depth -= 1
        if !first {
            bytes.append(0x0A)
            JSON.pad(indent, into: &bytes)
        }
        bytes.append(bracket)
        // The container was an element of the one around it, which so has one now.
        first = false
    }
}

extension TextRenderer {
    public func json(_ e: Evidence) -> JSON {
        var t = JSONTree()
        emit(e, to: &t)
        return t.result
    }

    public func json(_ d: Decision, spec: RequestSpec, who: String, semantics: Semantics) -> JSON {
        var t = JSONTree()
        emit(d, spec: spec, who: who, semantics: semantics, to: &t)
        return t.result
    }

    /// The JSON of a piece of evidence.
    public func emit<O: JSONOutput & ~Copyable>(_ e: Evidence, to o: inout O) {
        switch e {
        case .none: o.null()
        case .ace(let n, let i, let ace):
            o.beginObject()
                o.field("kind", "ace"); o.key("path"); emitPath(n, to: &o); o.field("index", i)
                o.field("text", world.aceText(ace, forDirectory: world[n].isDir))
                if let l = sourceLocation(e) { o.field("source", l.description) }
            o.endObject()
        case .posixEntry(let n, let tag, let perms, let mask):
            o.beginObject()
                o.field("kind", "posixEntry"); o.key("path"); emitPath(n, to: &o); o.field("entry", posixEntryText(tag, perms))
                o.field("perms", perms.text); o.field("mask", mask.map(\.text))
            o.endObject()
        case .mode(let n, let cls, let needed, let has):
            o.beginObject()
                o.field("kind", "mode"); o.key("path"); emitPath(n, to: &o); o.field("class", cls.rawValue)
                o.field("needed", needed.text); o.field("bits", has.text); o.field("mode", world[n].mode.octal)
            o.endObject()
        case .flag(let n, let f):
            o.beginObject(); o.field("kind", "flag"); o.key("path"); emitPath(n, to: &o); o.strings("flags", flagNames(f)); o.endObject()
        case .sticky(let n):
            o.beginObject(); o.field("kind", "sticky"); o.key("path"); emitPath(n, to: &o); o.endObject()
        case .identity(let n, let uid, let gid, let fu, let fg):
            o.beginObject()
                o.field("kind", "identity"); o.key("path"); emitPath(n, to: &o); o.field("owner", world.userName(uid))
                o.field("group", world.groupName(gid)); o.field("storedOwner", world.userName(fu))
                o.field("storedGroup", world.groupName(fg))
            o.endObject()
        case .volume(let m): o.beginObject(); o.field("kind", "volume"); o.field("mountPath", m); o.endObject()
        case .view(let n, let e):
            o.beginObject(); o.field("kind", "unitView"); o.key("path"); emitPath(n, to: &o)
            o.field("option", e.option); o.field("place", e.place); o.field("mountPath", e.path)
            o.field("mode", e.mode.word); o.endObject()
        case .node(let n): o.beginObject(); o.field("kind", "node"); o.key("path"); emitPath(n, to: &o); o.endObject()
        case .missing(let d, let name):
            o.beginObject(); o.field("kind", "missing")
            o.key("path")
            o.string { b in
                if d != World.root { appendPath(d, to: &b) }
                b.append(0x2F)
                b.append(string: name)
            }
            o.endObject()
        case .unread(let d, let name, let why):
            o.beginObject(); o.field("kind", "unread")
            o.key("path")
            o.string { b in
                if d != World.root || name == nil { appendPath(d, to: &b) }
                if let name { b.append(0x2F); b.append(string: name) }
            }
            o.key("unread"); o.string { b in appendPath(d, to: &b) }
            o.field("reason", why.rawValue)
            o.endObject()
        case .app(let n, let f):
            o.beginObject()
                o.field("kind", "app"); o.key("path"); emitPath(n, to: &o); o.field("app", f.app); o.field("text", f.text)
                o.field("key", f.key); o.field("entry", f.entry); o.strings("wouldAllow", f.wouldAllow)
            o.endObject()
        case .protection(let n, let cls, let state, let open):
            o.beginObject()
                o.field("kind", "protection"); o.key("path"); emitPath(n, to: &o); o.field("class", cls.word)
                o.field("deviceState", state.rawValue); o.field("openBeforeLock", open)
            o.endObject()
        case .newFileProtection(let d, let p, let cls, let state, let from):
            let origin: String
            switch from {
            case .directory(let n): origin = path(n)
            case .entitlement: origin = "entitlement"
            case .platformDefault: origin = "iosDefault"
            }
            o.beginObject()
                o.field("kind", "newFileProtection"); o.key("path"); emitPath(d, to: &o); o.field("newPath", p)
                o.field("class", cls.word); o.field("classFrom", origin); o.field("deviceState", state.rawValue)
            o.endObject()
        case .tunable(let n, let d, let t, let v):
            o.beginObject()
                o.field("kind", "tunable"); o.field("sysctl", t.sysctl); o.field("value", Int(v)); o.key("path"); emitPath(n, to: &o)
                if d >= 0 { o.key("dir"); emitPath(d, to: &o) }
            o.endObject()
        case .capability(let n, let c, let held):
            o.beginObject()
                o.field("kind", "capability"); o.strings("capabilities", c.upperNames); o.field("held", held)
                o.key("path"); emitPath(n, to: &o)
            o.endObject()
        }
    }

    /// The path of `n` as a string value, written from the world's names.
    @inline(__always)
    func emitPath<O: JSONOutput & ~Copyable>(_ n: NodeID, to o: inout O) {
        o.string { appendPath(n, to: &$0) }
    }

    /// The JSON of a decision (`fspolicy can --format json`, and each decision of a JSON report);
    /// without `trace` when `trace` is false.
    public func emit<O: JSONOutput & ~Copyable>(_ d: Decision, spec: RequestSpec, who: String, semantics: Semantics,
                                               trace: Bool = true, to o: inout O) {
        // The fixed runs between the values given (`fields`), each keyed by what it says:
        // block 1 the start, 2 the operation, 3 the decision's own words.
        fields(&o, 1) { o in
            o.beginObject()
            o.field("schemaVersion", 1)
            o.key("request")
            o.beginObject()
            o.key("as")
        }
        o.string(who)
        // (An operation named by its rights has its own word: written each time.)
        let op = spec.op.wordIndex
        let word = spec.op.word
        if op >= 0 { fields(&o, 2 | UInt64(op) << 8) { o in o.field("op", plain: word); o.key("path") } }
        else { o.field("op", plain: word); o.key("path") }
        o.string(spec.path)
        if let t = spec.to { o.field("to", t) }
        if let m = spec.mode { o.field("mode", m.octal) }
        // (The closures take the few values they need, not the decision: a closure that
        // captured it would retain its arrays.)
        let allowed = d.allowed, errno = d.errno, layer = d.layer, rule = d.rule, unknown = d.unknown
        fields(&o, 3 | StepJSONCache.tag(semantics) << 8 | (allowed ? 1 << 16 : 0) | (unknown ? 1 << 17 : 0) | StepJSONCache.tag(errno) << 24
                  | UInt64(layer.ordinal) << 32 | UInt64(rule.ordinal) << 40) { o in
            o.endObject()
            // fspolicy's own words (`EnumOrdinalTests` holds them plain).
            o.field("semantics", plain: semantics.rawValue)
            o.field("result", plain: allowed ? "allow" : unknown ? "unknown" : "deny")
            o.field("errno", plain: errno?.rawValue)
            o.field("layer", plain: layer.rawValue)
            o.field("rule", plain: rule.rawValue)
            o.key("summary")
        }
            if d.allowed { o.string("allow") } else {
                let target = oneLineTarget(d, path: spec.path)
                o.string(with: d) { d, b in appendOneLine(d, target: target, to: &b) }
            }
            o.key("decidedBy")
            if let cache = stepCache, let keys = StepJSONCache.keys(d.evidence, in: world) {
                o.element(cache: cache, keys: keys, hole: { appendPath($0, to: &$1) }) { o in emit(d.evidence, to: &o) }
            } else {
                emit(d.evidence, to: &o)
            }
            if trace {
                o.key("trace")
                o.beginArray()
                    // Each step read where it is stored: `for s in d.trace` copies every one
                    // (and the closure would copy it again).
                    d.trace.withUnsafeBufferPointer { steps in
                        if let cache = stepCache, o.traceSteps(cache: cache, steps, in: world) { return }
                        for k in steps.indices {
                            let s = steps.baseAddress! + k
                            if let cache = stepCache, let keys = StepJSONCache.keys(s, in: world) {
                                o.element(cache: cache, keys: keys, hole: { appendPath($0, to: &$1) }) { o in emitStep(s.pointee, to: &o) }
                            } else {
                                emitStep(s.pointee, to: &o)
                            }
                        }
                    }
                o.endArray()
            }
            o.strings("notes", d.notes)
        o.endObject()
    }

    /// `body`'s fixed run through the renderer's cache when it has one (`JSONOutput.fields`).
    @inline(__always)
    func fields<O: JSONOutput & ~Copyable>(_ o: inout O, _ key: UInt64, _ body: (inout O) -> Void) {
        if let cache = stepCache { o.fields(cache: cache, key: key, body) } else { body(&o) }
    }

    /// One step of a trace, as an object.
    func emitStep<O: JSONOutput & ~Copyable>(_ s: TraceStep, to o: inout O) {
        o.beginObject()
            o.field("layer", s.layer.rawValue); o.field("rule", s.rule.rawValue)
            o.field("verdict", s.verdict.rawValue)
            o.key("path"); emitPath(s.node, to: &o)
            o.key("requested")
            rightWords(s.requested, node: s.node, to: &o)
            o.key("undecided")
            rightWords(s.remaining, node: s.node, to: &o)
            o.key("evidence")
            emit(s.evidence, to: &o)
            o.field("depth", Int(s.depth))
        o.endObject()
    }

    /// The rights' words as an array of strings.
    func rightWords<O: JSONOutput & ~Copyable>(_ r: AccessRights, node: NodeID, to o: inout O) {
        o.beginArray()
        r.forEachWord(forDirectory: isDir(node)) { o.plain($0) }
        o.endArray()
    }
}

/// Output written in pieces: text is gathered (as UTF-8) up to a size, then handed to `flush`,
/// so a long report never has to exist whole in memory.
public final class ReportSink {
    let flushBody: ((String) throws -> Void)?
    let flushBytes: ((UnsafeBufferPointer<UInt8>) throws -> Void)?
    var buffer = ByteBuffer(capacity: 1 << 12)
    let limit: Int
    public init(limit: Int = 1 << 16, flush: @escaping (String) throws -> Void) {
        self.flushBody = flush
        self.flushBytes = nil
        self.limit = limit
    }
    /// A sink that hands its bytes on as they are (valid UTF-8), without making a string.
    public init(limit: Int = 1 << 16, bytes: @escaping (UnsafeBufferPointer<UInt8>) throws -> Void) {
        self.flushBody = nil
        self.flushBytes = bytes
        self.limit = limit
    }
    public func write(_ s: String) throws {
        buffer.append(string: s)
        if buffer.count >= limit { try flush() }
    }
    /// Whatever `body` appends to the buffer (valid UTF-8, whole code points), without making a
    /// string of it first.
    public func write(_ body: (inout ByteBuffer) throws -> Void) throws {
        try body(&buffer)
        if buffer.count >= limit { try flush() }
    }
    /// Bytes already made (valid UTF-8, whole code points): a big piece goes on as it is, after
    /// what the buffer holds, instead of being copied into it first.
    public func write(bytes: UnsafeBufferPointer<UInt8>) throws {
        if let flushBytes, bytes.count >= limit {
            try flush()
            try flushBytes(bytes)
            return
        }
        try write { $0.append(bytes) }
    }
    /// A JSON value, emitted by `body` into the buffer through a `JSONWriter` (its inner lines
    /// indented from `indent`; its first line's padding is the caller's).
    public func writeJSON(indent: Int, _ body: (inout JSONWriter) -> Void) throws {
        var w = JSONWriter(bytes: ByteBuffer(empty: ()), indent: indent)
        swap(&w.bytes, &buffer)
        body(&w)
        swap(&w.bytes, &buffer)
        if buffer.count >= limit { try flush() }
    }
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        if let flushBytes {
            defer { buffer.removeAll() }
            try flushBytes(buffer.bytes(from: 0))
            return
        }
        let b = buffer.string
        buffer.removeAll()
        try flushBody?(b)
    }
}

/// Reports over many files.
public enum Reports {
    public static func json(_ reports: [any CheckedFile], diagnostics: [Diagnostic], passTraces: Bool = false) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? json(reports, diagnostics: diagnostics, passTraces: passTraces, to: sink)
        try? sink.flush()
        return out
    }

    /// The JSON report, written result by result (the same bytes as rendering it whole).
    /// `passTraces`: whether a passed expectation's decision carries its trace (by default only
    /// failures' do, as in the other formats).
    public static func json(_ reports: [any CheckedFile], diagnostics: [Diagnostic], extra: [(String, JSON)] = [],
                            passTraces: Bool = false, to sink: ReportSink) throws {
        try sink.write("{\n  \"schemaVersion\": 1,\n  \"files\": ")
        if reports.isEmpty { try sink.write("[]") } else {
            try sink.write("[\n")
            for (i, r) in reports.enumerated() {
                // The counts follow the results: a report counted as it is written
                // (`StreamedFileReport.uncounted`) knows them only then.
                let head: [(String, JSON)] = [
                    ("file", .string(r.policy.file)),
                    ("semantics", .string(r.policy.semantics.rawValue)),
                ]
                try sink.write("    {\n")
                try sink.write { out in
                    for (k, v) in head {
                        JSON.pad(6, into: &out)
                        JSON.quote(k, into: &out)
                        out.append(": ")
                        v.write(into: &out, indent: 6)
                        out.append(",\n")
                    }
                }
                try sink.write("      \"results\": ")
                if r.count == 0 { try sink.write("[]") } else {
                    try sink.write("[\n")
                    var first = true
                    let semantics = r.policy.semantics
                    try writeElements(of: r, passed: .decided(traced: passTraces), tracing: true, first: &first, to: sink) { o, t, w in
                        emit(o, t, semantics: semantics, passTraces: passTraces, to: &w)
                    }
                    try sink.write("\n      ]")
                }
                try sink.write { out in
                    for (k, v) in [("expectations", r.count), ("passed", r.passed), ("failed", r.failed), ("unknown", r.unknown)] {
                        out.append(",\n")
                        JSON.pad(6, into: &out)
                        JSON.quote(k, into: &out)
                        out.append(": ")
                        JSON.int(v).write(into: &out, indent: 6)
                    }
                }
                try sink.write("\n    }" + (i == reports.count - 1 ? "\n" : ",\n"))
            }
            try sink.write("  ]")
        }
        let total = reports.reduce(0) { $0 + $1.count }
        let failed = reports.reduce(0) { $0 + $1.failed }
        let unknown = reports.reduce(0) { $0 + $1.unknown }
        let tail: [(String, JSON)] = [
            ("diagnostics", .array(diagnostics.map(diagnosticJSON))),
            ("summary", .object([("expectations", .int(total)), ("passed", .int(total - failed - unknown)), ("failed", .int(failed)),
                                 ("unknown", .int(unknown))])),
        ] + extra
        try sink.write { out in
            for (k, v) in tail {
                out.append(",\n  ")
                JSON.quote(k, into: &out)
                out.append(": ")
                v.write(into: &out, indent: 2)
            }
            out.append("\n}\n")
        }
    }

    /// The outcomes of `r` as elements of a JSON array whose elements are indented by 8, each
    /// emitted by `body` (with the renderer of its world) after the comma and padding that
    /// separate it from the one before, rendered on several threads for a big file and written
    /// in order; `first` (nothing written in the array yet) drops the very first comma.
    static func writeElements(of r: any CheckedFile, passed: PassedOutcomes, tracing: Bool, first: inout Bool, to sink: ReportSink,
                              _ body: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout JSONWriter) -> Void) throws {
        try r.renderOutcomes(passed: passed, tracing: tracing, style: Style(enabled: false), render: { o, t, out in
            out.append(",\n")
            JSON.pad(8, into: &out)
            var w = JSONWriter(bytes: ByteBuffer(empty: ()), indent: 8)
            swap(&w.bytes, &out)
            body(o, t, &w)
            swap(&w.bytes, &out)
        }, write: { bytes in
            guard !bytes.isEmpty else { return }
            let rest = first ? UnsafeBufferPointer(rebasing: bytes[2...]) : bytes
            first = false
            try sink.write(bytes: rest)
        })
    }

    /// One result of the JSON report, rendered by `t` (the renderer of its world). A pass's
    /// decision has no trace unless `passTraces`.
    static func emit<O: JSONOutput & ~Copyable>(_ o: ExpectationOutcome, _ t: TextRenderer, semantics: Semantics, passTraces: Bool, to j: inout O) {
        // The fixed runs through the renderer's cache (`JSONOutput.fields`): block 4 the
        // start, 5 `passed` and the start of `mismatches`, 6 its end and the `decision` key.
        t.fields(&j, 4) { j in j.beginObject(); j.key("name") }
            // The label and location written from the outcome lent to the writer: a closure
            // that captured `o`, or read it through a pointer, would copy it.
            j.string(with: o.expectation) { e, b in e.appendLabel(to: &b) }
            j.key("location"); j.string(with: o.expectation.location) { l, b in l.append(to: &b) }
            let passed = o.passed
            t.fields(&j, 5 | (passed ? 1 << 8 : 0)) { j in j.field("passed", passed); j.key("mismatches"); j.beginArray() }
            for m in o.mismatches { j.string(m) }
            // Lent from the outcome (`if let` would copy the decision and its trace).
            if o.decision != nil {
                t.fields(&j, 6) { j in j.endArray(); j.key("decision") }
                t.emit(o.decision!, spec: o.expectation.request, who: o.expectation.asText ?? "", semantics: semantics,
                       trace: passTraces || !o.passed, to: &j)
            } else {
                j.endArray()
            }
            if let a = o.actualAllowed { j.strings("allowed", a) }
            if o.expectation.isQuantified {
                j.field("pairs", o.pairsChecked)
                j.field("counterexampleCount", o.counterexampleCount)
                j.key("counterexamples")
                j.beginArray()
                    for c in o.counterexamples {
                        var spec = o.expectation.request
                        spec.path = c.path
                        j.beginObject()
                            j.field("user", c.user); j.field("uid", Int(c.uid)); j.field("path", c.path)
                            j.field("mismatch", c.mismatch)
                            j.key("decision")
                            t.emit(c.decision, spec: spec, who: c.user, semantics: semantics, to: &j)
                        j.endObject()
                    }
                j.endArray()
            }
        j.endObject()
    }

    public static func diagnosticJSON(_ d: Diagnostic) -> JSON {
        .object([("file", .string(d.location.file)), ("line", .int(d.location.line)), ("column", .int(d.location.column)),
                 ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
                 ("help", d.help.map { .string($0) } ?? .null)])
    }

    public static func xml(_ s: String) -> String {
        var out = ByteBuffer()
        xml(s, into: &out)
        return out.string
    }

    /// `s` as XML text or attribute value, appended to `out` as UTF-8; runs that need no escape
    /// are appended at once. `&`, `<`, `>`, `"` and `'` become entities; every other unsafe code
    /// point but newline and tab (XML 1.0 has no way to write most of them, not even as `&#…;`)
    /// is written by the one escaping rule, as `\ooo` per byte.
    public static func xml(_ s: String, into out: inout ByteBuffer) {
        var s = s
        s.withUTF8 { xml(utf8: $0, into: &out) }
    }

    /// The same for text given as UTF-8 bytes (whole code points).
    public static func xml(utf8 u: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        let n = u.count
        var i = 0, run = 0
        @inline(__always) func flush(_ end: Int) {
            if end > run { out.append(UnsafeBufferPointer(rebasing: u[run..<end])) }
        }
        @inline(__always) func octal(_ from: Int, _ to: Int) {
            for k in from..<to {
                let b = u[k]
                out.append(0x5C)
                out.append(0x30 + (b >> 6))
                out.append(0x30 + ((b >> 3) & 7))
                out.append(0x30 + (b & 7))
            }
        }
        while i < n {
            // Eight bytes at a time while none of them needs a look (printable ASCII other than
            // the five that become entities), then on to the first that does.
            if let base = u.baseAddress {
                i += xmlPlainPrefix(base + i, n - i)
                if i >= n { break }
            }
            let b = u[i]
            if b < 0x80 {
                if (b >= 0x20 || b == 0x0A || b == 0x09) && b != 0x7F && b != 0x26 && b != 0x3C && b != 0x3E && b != 0x22 && b != 0x27 {
                    i += 1
                    continue
                }
                flush(i)
                switch b {
                case 0x26: out.append("&amp;")
                case 0x3C: out.append("&lt;")
                case 0x3E: out.append("&gt;")
                case 0x22: out.append("&quot;")
                case 0x27: out.append("&apos;")
                default: octal(i, i + 1)
                }
                i += 1
                run = i
                continue
            }
            let len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            if Escaping.isUnsafe(JSON.scalar(u, at: i, length: len)) {
                flush(i)
                octal(i, i + len)
                run = i + len
            }
            i += len
        }
        flush(n)
    }

    /// The bytes of `w` (in memory order, the low byte first) that are not printable ASCII or
    /// are one XML writes as an entity (`&`, `<`, `>`, `"`, `'`), each as its high bit. It may
    /// also flag `#`, `$`, `%` and `=` (the bytes among the entities' that two ranges take in:
    /// the caller then looks at the byte), never the reverse. Adding 0x80 - b to a byte below
    /// 0x80 sets its high bit exactly when it is at least b, with nothing carried into the next
    /// byte: a range is two additions, where a test for one byte is four operations.
    @inline(__always) static func xmlLookMask(_ w: UInt64) -> UInt64 {
        @inline(__always) func atLeast(_ b: UInt64) -> UInt64 { w &+ SWAR.ones &* (0x80 &- b) }
        let control = ~atLeast(0x20)
        let quotes = atLeast(0x22) & ~atLeast(0x28)
        let angles = atLeast(0x3C) & ~atLeast(0x3F)
        return (control | quotes | angles | atLeast(0x7F) | w) & SWAR.high
    }

    /// How many of the `n` bytes at `p` come before the first that needs a look
    /// (`xmlLookMask`), read eight at a time; up to the last whole eight when none does (the
    /// caller looks at the rest). The lowest flag of a word is its first such byte: an addition
    /// carries only from a byte at or above 0x80 into the bytes after it, which the flag of
    /// that byte comes before.
    @inline(__always) static func xmlPlainPrefix(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var i = 0
        while i + 8 <= n {
            let m = xmlLookMask(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            if m != 0 { return i + m.trailingZeroBitCount >> 3 }
            i += 8
        }
        return i
    }

    /// One `<testcase>`: a pass is its name; a failure has its mismatches, answer and trace.
    static func junitCase(_ o: ExpectationOutcome, _ t: TextRenderer, fileAttribute: [UInt8], into out: inout ByteBuffer) {
        let e = o.expectation
        var scratch = ByteBuffer(capacity: 256)
        out.append("    <testcase name=\"")
        e.appendLabel(to: &scratch)
        xml(utf8: scratch.bytes(from: 0), into: &out)
        out.append("\" classname=\"")
        fileAttribute.withUnsafeBufferPointer { out.append($0) }
        out.append(0x22)
        if o.passed { out.append("/>\n"); return }
        let element = o.isUnknown ? "error" : "failure"
        out.append(">\n      <"); out.append(string: element)
        out.append(o.isUnknown ? " type=\"unknown\" message=\"" : " type=\"expectation\" message=\"")
        var firstMismatch = true
        for m in o.mismatches {
            if !firstMismatch { out.append("; ") }
            firstMismatch = false
            xml(m, into: &out)
        }
        out.append("\">")
        // The body, escaped piece by piece (the escape of a text is the escapes of its pieces,
        // one after the other).
        xml(e.location.file, into: &out)
        out.append(0x3A); out.append(decimal: e.location.line)
        out.append(0x3A); out.append(decimal: e.location.column)
        out.append(": ")
        xml(utf8: scratch.bytes(from: 0), into: &out)
        out.append(0x0A)
        firstMismatch = true
        for m in o.mismatches {
            if !firstMismatch { out.append(0x0A) }
            firstMismatch = false
            xml(m, into: &out)
        }
        if let d = o.decision {
            out.append("\nactual: ")
            // The line and the trace are written as text, then escaped (a trace's lines are
            // joined by newlines, which stay as they are).
            scratch.removeAll()
            t.appendOneLine(d, target: t.oneLineTarget(d, path: e.request.path), to: &scratch)
            xml(utf8: scratch.bytes(from: 0), into: &out)
            out.append("\ntrace:\n")
            scratch.removeAll()
            t.appendTrace(d, indent: "  ", to: &scratch)
            xml(utf8: scratch.bytes(from: 0, to: max(0, scratch.count - 1)), into: &out)
        }
        out.append("</"); out.append(string: element); out.append(">\n    </testcase>\n")
    }

    /// JUnit XML: a testsuite per file, a testcase per expectation, failures with a message.
    public static func junit(_ reports: [any CheckedFile]) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? junit(reports, to: sink)
        try? sink.flush()
        return out
    }

    /// `extraSuites`: more `<testsuite>` elements (already XML), with their test and failure counts.
    public static func junit(_ reports: [any CheckedFile], extraSuites: (xml: String, tests: Int, failures: Int)? = nil, to sink: ReportSink) throws {
        let total = reports.reduce(0) { $0 + $1.count } + (extraSuites?.tests ?? 0)
        let failed = reports.reduce(0) { $0 + $1.failed } + (extraSuites?.failures ?? 0)
        // An unknown expectation (P6) is an error: the test could not reach a verdict.
        let unknown = reports.reduce(0) { $0 + $1.unknown }
        try sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        try sink.write("<testsuites name=\"fspolicy\" tests=\"\(total)\" failures=\"\(failed)\" errors=\"\(unknown)\">\n")
        for r in reports {
            try sink.write("  <testsuite name=\"\(xml(r.policy.file))\" tests=\"\(r.count)\" failures=\"\(r.failed)\" errors=\"\(r.unknown)\" skipped=\"0\" file=\"\(xml(r.policy.file))\">\n")
            try sink.write("    <properties>\n      <property name=\"semantics\" value=\"\(r.policy.semantics.rawValue)\"/>\n    </properties>\n")
            let file = r.policy.file
            // The file's name as an attribute, escaped once for every test case.
            var fileBuffer = ByteBuffer(capacity: 64)
            xml(file, into: &fileBuffer)
            let fileAttribute = fileBuffer.bytes
            // A pass is its name only: it need not be decided again. Test cases are rendered on
            // several threads for a big file, and written in order.
            try r.renderOutcomes(passed: .undecided, tracing: true, style: Style(enabled: false), render: { o, t, out in
                junitCase(o, t, fileAttribute: fileAttribute, into: &out)
            }, write: { try sink.write(bytes: $0) })
            try sink.write("  </testsuite>\n")
        }
        if let x = extraSuites { try sink.write(x.xml) }
        try sink.write("</testsuites>\n")
    }

    /// SARIF 2.1.0: one result per failed expectation and per diagnostic.
    public static func sarif(_ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String) -> String {
        var out = ""
        let sink = ReportSink(limit: Int.max) { out += $0 }
        try? sarif(reports, diagnostics: diagnostics, toolVersion: toolVersion, to: sink)
        try? sink.flush()
        return out
    }

    /// `extraRules` are appended to `tool.driver.rules` (their indices follow the others) and
    /// `extraResults` to the results.
    public static func sarifRuleCount(_ diagnostics: [Diagnostic]) -> Int { Set(diagnostics.map(\.code)).subtracting(["expectation-failed"]).count + 1 }

    /// One SARIF result: its rule, level, message and the one place it is about.
    static func sarifResult<O: JSONOutput & ~Copyable>(rule: String, level: String, text: String, at l: SourceLocation, to j: inout O) {
        sarifResult(rule: rule, level: level, at: l, to: &j) { j in j.string(text) }
    }

    /// The same, the message's text written by `text`.
    @inline(__always)
    static func sarifResult<O: JSONOutput & ~Copyable>(rule: String, level: String, kind: String? = nil, at l: SourceLocation, to j: inout O,
                                                       text: (inout O) -> Void) {
        j.beginObject()
            j.field("ruleId", rule)
            if let kind { j.field("kind", kind) }
            j.field("level", level)
            j.key("message")
            j.beginObject(); j.key("text"); text(&j); j.endObject()
            j.key("locations")
            j.beginArray()
                j.beginObject()
                    j.key("physicalLocation")
                    j.beginObject()
                        j.key("artifactLocation")
                        j.beginObject(); j.field("uri", l.file); j.endObject()
                        j.key("region")
                        j.beginObject(); j.field("startLine", l.line); j.field("startColumn", l.column); j.endObject()
                    j.endObject()
                j.endObject()
            j.endArray()
        j.endObject()
    }

    public static func sarif(_ reports: [any CheckedFile], diagnostics: [Diagnostic], toolVersion: String,
                             extraRules: [JSON] = [], extraResults: [JSON] = [], to sink: ReportSink) throws {
        var rules: [(String, String)] = [("expectation-failed", "An expectation about an access decision does not hold")]
        var ruleIDs: Set<String> = ["expectation-failed"]
        for d in diagnostics where ruleIDs.insert(d.code).inserted { rules.append((d.code, Findings.summaries[d.code] ?? "Policy file problem: \(d.code)")) }
        // The document around the results is written directly; the results go between.
        let anyResult = !diagnostics.isEmpty || reports.contains { $0.failed + $0.unknown > 0 } || !extraResults.isEmpty
        let tool = JSON.object([("driver", .object([
            ("name", .string("fspolicy")),
            ("version", .string(toolVersion)),
            ("rules", .array(rules.map { .object([("id", .string($0.0)), ("shortDescription", .object([("text", .string($0.1))]))]) } + extraRules)),
        ]))])
        try sink.write { out in
            out.append("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")
            tool.write(into: &out, indent: 6)
            out.append(anyResult ? ",\n      \"results\": [\n" : ",\n      \"results\": []")
        }
        var first = true
        /// A result, written by `body` into the sink.
        func emit(_ body: (inout JSONWriter) -> Void) throws {
            try sink.write { out in
                if !first { out.append(",\n") }
                JSON.pad(8, into: &out)
            }
            try sink.writeJSON(indent: 8, body)
            first = false
        }
        for r in reports {
            // Passes are not written: they need not be decided again; failures are written
            // without their trace, so they are decided without one.
            try writeElements(of: r, passed: .skipped, tracing: false, first: &first, to: sink) { o, t, w in
                // The message written in place, piece by piece (then escaped if it must be), not
                // joined into a string first.
                // An unknown answer is SARIF's `open` result: the tool could not tell pass from fail.
                sarifResult(rule: "expectation-failed", level: o.isUnknown ? "none" : "error", kind: o.isUnknown ? "open" : nil,
                            at: o.expectation.location, to: &w) { w in
                    w.string(with: o) { o, b in
                        o.expectation.appendLabel(to: &b)
                        b.append(": ")
                        for (k, m) in o.mismatches.enumerated() {
                            if k > 0 { b.append("; ") }
                            b.append(string: m)
                        }
                        if let d = o.decision {
                            b.append(" (actual: ")
                            t.appendOneLine(d, target: t.oneLineTarget(d, path: o.expectation.request.path), to: &b)
                            b.append(", rule ")
                            b.append(string: d.rule.rawValue)
                            b.append(0x29)
                        }
                    }
                }
            }
        }
        for d in diagnostics {
            var text = d.message
            if let h = d.help { text += " (help: \(h))" }
            try emit { sarifResult(rule: d.code, level: d.severity == .error ? "error" : "warning", text: text, at: d.location, to: &$0) }
        }
        for j in extraResults { try emit { $0.value(j) } }
        try sink.write((anyResult ? "\n      ]" : "") + "\n    }\n  ]\n}\n")
    }
}
