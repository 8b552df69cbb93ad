import FSPolicy

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
    public mutating func element(
        cache: StepJSONCache, keys: StepJSONCache.Keys,
        hole: (NodeID, inout ByteBuffer) -> Void, _ body: (inout JSONWriter) -> Void
    ) {
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
        let k = StepJSONCache.Key(
            a: key, b: UInt64(UInt32(truncatingIfNeeded: indent)) | UInt64(UInt32(truncatingIfNeeded: depth)) << 32,
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
        cache.keepBlock(
            k, at: slot, UnsafeBufferPointer(start: bytes.base + start, count: bytes.count - start),
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
