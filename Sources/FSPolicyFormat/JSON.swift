import FSPolicy
import FSPolicyYAML

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
    mutating func element(
        cache: StepJSONCache, keys: StepJSONCache.Keys,
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
    public mutating func element(
        cache: StepJSONCache, keys: StepJSONCache.Keys,
        hole: (NodeID, inout ByteBuffer) -> Void, _ body: (inout Self) -> Void
    ) { body(&self) }
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
