import FSPolicy

// The reports' caches (one per rendering thread): what `JSONWriter.element`,
// `JSONWriter.traceSteps` and `JSONWriter.fields` (JSON.swift) and the text trace's lines
// (`TextRenderer.textTailKey`, TextRender.swift) copy instead of writing again.

/// The JSON of trace steps a renderer has written, by step and indentation. A report's failures
/// repeat the same steps again and again (the search of `/`, `/srv`, … for every path below them),
/// and writing a step's dozen keys, its path and its evidence costs more than finding and copying
/// its bytes. Two kinds of text are kept, each under a key of three words in one plain
/// open-addressing table (`keys(_:in:)`):
/// - whole steps: a directory's search granted by its mode bits, whose text follows from a few
///   numbers (the steps that make most of a trace);
/// - templates: the text of any step whose evidence is the mode bits, and of such evidence as a
///   decision's `decidedBy`, without the contents of its paths, keyed by everything else the
///   text says. A step or evidence of the same shape met again, but not kept whole (another
///   directory; the last step of a failure), is the template with its own paths written in.
/// The same table keeps the text reports' trace lines after their path column, for steps whose
/// evidence is their own node's mode bits (`TextRenderer.textTailKey`: the template's key with
/// a bit no other key has). Two more kinds have tables of their own: whole traces by shape
/// (their steps' templates laid end to end, `prepareTrace`, for `JSONWriter.traceSteps`) and
/// the fixed runs of text between a result's values (`blocks`, for `JSONWriter.fields`).
/// Only renderers made by a `RendererCache` have a cache, and a `RendererCache` is used by one
/// thread (each rendering thread has its own), so a cache is never written by two threads. It
/// stops taking new steps at 512 KiB (`limit`: half a core's second-level cache, so that the
/// copies come from it), new templates at twice that.
public final class StepJSONCache: @unchecked Sendable {
    public struct Key: Equatable {
        package var a: UInt64, b: UInt64, c: UInt64
        package init(a: UInt64, b: UInt64, c: UInt64) {
            self.a = a
            self.b = b
            self.c = c
        }
    }
    // One thread uses a cache (see above): the accesses are not checked for exclusivity at run
    // time (each check cost more than the lookup it guarded).
    @exclusivity(unchecked) var keys: [Key] = []
    @exclusivity(unchecked) var spans: [(start: Int32, count: Int32)] = []
    /// Indices into `keys`, -1 for a free slot; at most half full.
    @exclusivity(unchecked) var slots = [Int32](repeating: -1, count: 1024)
    @exclusivity(unchecked) package var bytes = ByteBuffer(capacity: 256)
    /// How many steps were written from a template (for the tests).
    @exclusivity(unchecked) var templateUses = 0
    /// How many text trace lines ended with kept text (`TextRenderer.textTailKey`; for the tests).
    @exclusivity(unchecked) package var textTailUses = 0
    static let limit = 1 << 19

    /// Whole traces (`JSONWriter.traceSteps`), by shape: four words a step (its template key,
    /// the depths of its holes' nodes) in `traceShapes`; the text, separators and padding
    /// included, less its holes, in `traceText`; the holes, as (offset in `traceText` where
    /// one goes, depth of its node), in `traceHoles` (raw memory, read where it is by
    /// `JSONWriter.traceSteps`). An open-addressing table of entries by
    /// the shape's hash, each compared word for word. Up to `traceLimit` bytes of text.
    struct TraceEntry {
        var hash: UInt64
        var shapeStart: Int, shapeCount: Int
        var textStart: Int, textCount: Int
        var holeStart: Int, holeCount: Int
    }
    @exclusivity(unchecked) var traces: [TraceEntry] = []
    @exclusivity(unchecked) var traceSlots = [Int32](repeating: -1, count: 256)
    @exclusivity(unchecked) var traceShapes: [UInt64] = []
    @exclusivity(unchecked) var traceText = ByteBuffer(capacity: 256)
    @exclusivity(unchecked) var traceHoles = UnsafeMutablePointer<(offset: Int32, depth: Int32)>.allocate(capacity: 64)
    @exclusivity(unchecked) var traceHoleCount = 0, traceHoleCapacity = 64
    /// Where `traceText`'s bytes are (kept up to date by `keepTrace`).
    @exclusivity(unchecked) var traceTextBase: UnsafeMutablePointer<UInt8>
    /// Where a trace's deepest path is written (raw memory: a buffer kept in a class's
    /// property is checked for exclusive access each time it is written).
    @exclusivity(unchecked) var scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    @exclusivity(unchecked) var scratchCapacity = 256
    deinit {
        scratch.deallocate(); chain.deallocate(); shapeWords.deallocate(); ends.deallocate(); traceHoles.deallocate()
    }

    /// Room for `n` bytes (and 8 more) in `scratch`.
    func scratchRoom(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if n + 8 > scratchCapacity {
            scratch.deallocate()
            scratchCapacity = max(2 * scratchCapacity, n + 8)
            scratch = .allocate(capacity: scratchCapacity)
        }
        return scratch
    }
    /// How many traces were written whole (for the tests).
    @exclusivity(unchecked) var traceUses = 0
    static let traceLimit = 1 << 20
    static let traceMaxSteps = 64

    /// Runs of fixed text (`JSONWriter.fields`): one kept for each of 256 slots by the hash of
    /// its key and place (a later one takes the slot), with where the writer was after it.
    struct Block {
        var key = Key(a: 0, b: 0, c: .max)
        var start = 0, count = 0
        var indent: Int32 = 0, depth: Int32 = 0
        var first = false, afterKey = false
    }
    @exclusivity(unchecked) var blocks = [Block](repeating: Block(), count: 256)
    @exclusivity(unchecked) var blockBytes = ByteBuffer(capacity: 256)
    static let blockLimit = 1 << 16

    /// Buffers of `prepareTrace`: the deepest step's node and its ancestors (`chain[j]` j levels
    /// up), a trace's shape, and where each beginning of the deepest path ends.
    let chain = UnsafeMutablePointer<NodeID>.allocate(capacity: traceMaxSteps + 1)
    let shapeWords = UnsafeMutablePointer<UInt64>.allocate(capacity: 4 * traceMaxSteps)
    let ends = UnsafeMutablePointer<Int>.allocate(capacity: traceMaxSteps + 1)

    /// For `JSONWriter.traceSteps`: the entry of the trace's shape (made from its steps'
    /// templates if there is none yet), with the deepest step's path written in `scratch` and
    /// where each of its beginnings ends in `ends` (by depth: 1 for `/`, the offset of the
    /// next `/` for each ancestor below it, the length for the node itself). Nil when the
    /// trace cannot be written so (see `traceSteps`).
    func prepareTrace(_ steps: UnsafeBufferPointer<TraceStep>, layout: UInt64, indent: Int, in world: World) -> (TraceEntry, Int)? {
        let n = steps.count
        guard n > 0, n <= Self.traceMaxSteps else { return nil }
        let deepest = steps[n - 1].node
        guard deepest >= 0 else { return nil }
        var depth = 0
        var cur = deepest
        while true {
            chain[depth] = cur
            if cur == World.root { break }
            cur = world[cur].parent
            guard cur >= 0, depth < Self.traceMaxSteps - 1 else { return nil }
            depth += 1
        }
        for k in 0..<n {
            guard let keys = Self.keys(steps.baseAddress! + k, in: world) else { return nil }
            let d0 = depthOf(keys.holes.0, depth), d1 = keys.holes.1 >= 0 ? depthOf(keys.holes.1, depth) : 0xFFFF
            guard d0 >= 0, d1 >= 0 else { return nil }
            shapeWords[4 * k] = keys.template.a
            shapeWords[4 * k + 1] = keys.template.b
            shapeWords[4 * k + 2] = keys.template.c | layout
            shapeWords[4 * k + 3] = UInt64(d0) | UInt64(d1) << 32
        }
        let shape = UnsafeBufferPointer(start: shapeWords, count: 4 * n)
        guard let e = findTrace(shape) ?? keepTrace(shape, steps: n, indent: indent) else { return nil }
        // The deepest path once, and where each of its beginnings ends.
        var length = 0
        world.writePath(of: deepest) { k in
            length = k; return scratchRoom(k)
        }
        guard JSON.plainPrefix(scratch, length, htmlSafe: false) == length else { return nil }
        var d = 0
        for i in 0..<length where scratch[i] == 0x2F {
            if d > 0 && d <= depth { ends[d] = i }
            d += 1
        }
        guard d == max(depth, 1) else { return nil }
        ends[0] = 1
        if depth > 0 { ends[depth] = length }
        return (e, length)
    }

    /// The depth of `node` when it is in `chain` (of the deepest node, `depth` deep), else -1
    /// (looked for from the root: a trace's steps go down from it).
    @inline(__always) func depthOf(_ node: NodeID, _ depth: Int) -> Int {
        var j = depth
        while j >= 0 { if chain[j] == node { return depth - j }; j -= 1 }
        return -1
    }

    /// A one-byte value's bits (an enum without payloads, or an optional one: each value has
    /// its own), for a block's key. `EnumOrdinalTests` holds these types to one byte.
    @inline(__always) package static func tag<T>(_ v: T) -> UInt64 {
        precondition(MemoryLayout<T>.size == 1)
        return withUnsafeBytes(of: v) { UInt64($0[0]) }
    }

    @inline(__always) func blockSlot(_ k: Key) -> Int { Int(truncatingIfNeeded: Self.hash(k) >> 56) }

    func keepBlock(_ k: Key, at slot: Int, _ b: UnsafeBufferPointer<UInt8>, indent: Int, depth: Int, first: Bool, afterKey: Bool) {
        guard blockBytes.count + b.count <= Self.blockLimit else { return }
        blocks[slot] = Block(
            key: k, start: blockBytes.count, count: b.count, indent: Int32(indent), depth: Int32(depth),
            first: first, afterKey: afterKey)
        blockBytes.append(b)
    }
    static func traceHash(_ shape: UnsafeBufferPointer<UInt64>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(shape.count)
        for w in shape { h = (h ^ w) &* 0xC2B2_AE3D_27D4_EB4F }
        return h ^ h >> 29
    }

    /// The entry of a trace of this shape, or nil.
    func findTrace(_ shape: UnsafeBufferPointer<UInt64>) -> TraceEntry? {
        let h = Self.traceHash(shape)
        let mask = traceSlots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = Int(traceSlots[i])
            if e < 0 { return nil }
            let t = traces[e]
            if t.hash == h && t.shapeCount == shape.count {
                let same = traceShapes.withUnsafeBufferPointer { all in
                    var k = 0
                    while k < shape.count && all[t.shapeStart + k] == shape[k] { k += 1 }
                    return k == shape.count
                }
                if same { return t }
            }
            i = (i + 1) & mask
        }
    }

    /// Makes and keeps the entry of a trace of this shape from its steps' templates (as
    /// `JSONWriter.element` writes a step from one, the elements of an array opened at
    /// `indent`): nil when a template was not kept or the texts are full.
    func keepTrace(_ shape: UnsafeBufferPointer<UInt64>, steps n: Int, indent: Int) -> TraceEntry? {
        guard traceText.count < Self.traceLimit else { return nil }
        let textStart = traceText.count, holeStart = traceHoleCount
        for k in 0..<n {
            let key = Key(a: shape[4 * k], b: shape[4 * k + 1], c: shape[4 * k + 2])
            guard let t = find(key) else {
                traceText.truncate(to: textStart)
                traceHoleCount = holeStart
                // (The text may have moved as it grew.)
                traceTextBase = traceText.base
                return nil
            }
            let depths = shape[4 * k + 3]
            // What `begin` writes before an element: a line feed (a comma before all but the
            // first) and the padding.
            if k > 0 { traceText.append(0x2C) }
            traceText.append(0x0A)
            JSON.pad(indent, into: &traceText)
            // The template as `element` lays it out: the two holes' offsets, then the text.
            let base = bytes.base + t.start
            let h1 = Int(UnsafeRawPointer(base).loadUnaligned(as: UInt32.self))
            let h2raw = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let h2 = h2raw == .max ? t.count - 8 : Int(h2raw)
            traceText.append(UnsafeBufferPointer(start: base + 8, count: h1))
            appendHole(Int32(traceText.count), Int32(depths & 0xFFFF_FFFF))
            traceText.append(UnsafeBufferPointer(start: base + 8 + h1, count: h2 - h1))
            if h2raw != .max {
                appendHole(Int32(traceText.count), Int32(depths >> 32))
                traceText.append(UnsafeBufferPointer(start: base + 8 + h2, count: t.count - 8 - h2))
            }
        }
        traceTextBase = traceText.base
        let e = TraceEntry(
            hash: Self.traceHash(shape), shapeStart: traceShapes.count, shapeCount: shape.count,
            textStart: textStart, textCount: traceText.count - textStart,
            holeStart: holeStart, holeCount: traceHoleCount - holeStart)
        traceShapes.append(contentsOf: shape)
        if (traces.count + 1) * 2 > traceSlots.count {
            traceSlots = [Int32](repeating: -1, count: traceSlots.count * 2)
            for (k, t) in traces.enumerated() { placeTrace(t.hash, Int32(k)) }
        }
        placeTrace(e.hash, Int32(traces.count))
        traces.append(e)
        return e
    }

    private func appendHole(_ offset: Int32, _ depth: Int32) {
        if traceHoleCount == traceHoleCapacity {
            let more = UnsafeMutablePointer<(offset: Int32, depth: Int32)>.allocate(capacity: 2 * traceHoleCapacity)
            more.moveInitialize(from: traceHoles, count: traceHoleCount)
            traceHoles.deallocate()
            traceHoles = more
            traceHoleCapacity *= 2
        }
        traceHoles[traceHoleCount] = (offset, depth)
        traceHoleCount += 1
    }

    private func placeTrace(_ h: UInt64, _ e: Int32) {
        let mask = traceSlots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while traceSlots[i] >= 0 { i = (i + 1) & mask }
        traceSlots[i] = e
    }

    public init() { traceTextBase = traceText.base }

    /// A value's keys: `step`, of its whole text (a search step's, nil for other values);
    /// `template`, of its text without the contents of its paths; and those paths' nodes, the
    /// template's holes (-1 for no second).
    public struct Keys {
        var step: Key?
        package var template: Key
        package var holes: (NodeID, NodeID)
    }

    /// The keys of a step whose evidence is the mode bits, or nil for any other step. A search
    /// granted by the bits has a step key: its node, the evidence's node, class, bits, rights
    /// and depth. Every such step has a template key: instead of the two nodes, what the text
    /// says of them besides their paths (the evidence node's mode; whether the step's node is a
    /// directory, which words name its rights), and its layer, rule and verdict; with the top
    /// bit set, which no step key has (nodes are below 2^31), and the next one clear.
    static func keys(_ s: TraceStep, in w: World) -> Keys? {
        withUnsafePointer(to: s) { keys($0, in: w) }
    }

    /// The same, the step read where it is (passing it by value copies it, and its evidence).
    package static func keys(_ p: UnsafePointer<TraceStep>, in w: World) -> Keys? {
        guard case .mode(let node, let cls, let needed, let has) = p.pointee.evidence, node >= 0, p.pointee.node >= 0 else { return nil }
        let s = (
            node: p.pointee.node, requested: p.pointee.requested, remaining: p.pointee.remaining, depth: p.pointee.depth,
            layer: p.pointee.layer, rule: p.pointee.rule, verdict: p.pointee.verdict
        )
        let b = UInt64(s.requested.rawValue) | UInt64(s.remaining.rawValue) << 32
        let c = modeBits(cls, needed, has) | UInt64(s.depth) << 24
        let mode = UInt64(w[node].mode.rawValue & 0xFFFF)
        let dir: UInt64 = w[s.node].isDir ? 1 : 2
        let template = Key(
            a: 1 << 63 | mode | dir << 16 | UInt64(s.layer.ordinal) << 24 | UInt64(s.rule.ordinal) << 32
                | UInt64(s.verdict.ordinal) << 48, b: b, c: c)
        guard s.rule == .searchGranted, s.layer == .traversal, s.verdict == .allow else {
            return Keys(step: nil, template: template, holes: (s.node, node))
        }
        return Keys(
            step: Key(a: UInt64(UInt32(bitPattern: s.node)) | UInt64(UInt32(bitPattern: node)) << 32, b: b, c: c),
            template: template, holes: (s.node, node))
    }

    /// The template key of mode-bits evidence (a decision's `decidedBy`), its one hole its path:
    /// the node's mode, the class and the bits, with the two top bits set.
    package static func keys(_ e: Evidence, in w: World) -> Keys? {
        guard case .mode(let node, let cls, let needed, let has) = e, node >= 0 else { return nil }
        return Keys(
            step: nil, template: Key(a: 3 << 62 | UInt64(w[node].mode.rawValue & 0xFFFF), b: 0, c: modeBits(cls, needed, has)),
            holes: (node, -1))
    }

    /// Mode-bits evidence's class, needed and granted bits in the low 24 bits of a key word.
    @inline(__always) static func modeBits(_ cls: ModeClass, _ needed: RWX, _ has: RWX) -> UInt64 {
        (cls == .owner ? 1 : cls == .group ? 2 : cls == .other ? 3 : 4) | UInt64(needed.rawValue) << 8 | UInt64(has.rawValue) << 16
    }

    /// A key's hash (its three words mixed), for the steps' table and the runs' slots.
    @inline(__always) static func hash(_ k: Key) -> UInt64 {
        (k.a &* 0x9E37_79B9_7F4A_7C15) ^ (k.b &* 0xC2B2_AE3D_27D4_EB4F) ^ (k.c &* 0x1656_67B1_9E37_79F9)
    }

    @inline(__always) func slot(_ k: Key) -> Int {
        let h = Self.hash(k)
        return Int(truncatingIfNeeded: h ^ (h >> 29)) & (slots.count - 1)
    }

    package func find(_ k: Key) -> (start: Int, count: Int)? {
        var i = slot(k)
        let mask = slots.count - 1
        while true {
            let e = Int(slots[i])
            if e < 0 { return nil }
            if keys[e] == k { return (Int(spans[e].start), Int(spans[e].count)) }
            i = (i + 1) & mask
        }
    }

    /// Keeps `b` under `k`, while the cache holds less than `limit`; a template (a key with the
    /// top bit set) also after, up to `limit` more (there are few, and each saves the most).
    package func keep(_ k: Key, _ b: UnsafeBufferPointer<UInt8>) {
        guard bytes.count + b.count <= (k.a >> 63 == 1 ? 2 * Self.limit : Self.limit) else { return }
        if (keys.count + 1) * 2 > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            for (e, key) in keys.enumerated() { place(key, Int32(e)) }
        }
        place(k, Int32(keys.count))
        keys.append(k)
        spans.append((Int32(bytes.count), Int32(b.count)))
        bytes.append(b)
    }

    private func place(_ k: Key, _ e: Int32) {
        var i = slot(k)
        let mask = slots.count - 1
        while slots[i] >= 0 { i = (i + 1) & mask }
        slots[i] = e
    }
}
