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
    package static func pad(_ n: Int, into out: inout ByteBuffer) { out.append(repeating: 0x20, count: n) }

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
    package static func scalar(_ u: UnsafeBufferPointer<UInt8>, at i: Int, length: Int) -> UInt32 {
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
    @inline(__always) package mutating func field(_ k: StaticString, _ s: String) { key(k); string(s) }
    @inline(__always) package mutating func field(_ k: StaticString, _ s: String?) { key(k); if let s { string(s) } else { null() } }
    @inline(__always) package mutating func field(_ k: StaticString, plain s: String) { key(k); plain(s) }
    @inline(__always) package mutating func field(_ k: StaticString, plain s: String?) { key(k); if let s { plain(s) } else { null() } }
    @inline(__always) package mutating func field(_ k: StaticString, _ i: Int) { key(k); int(i) }
    @inline(__always) package mutating func field(_ k: StaticString, _ b: Bool) { key(k); bool(b) }
    /// An array of strings.
    @inline(__always) package mutating func strings(_ k: StaticString, _ a: [String]) {
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
