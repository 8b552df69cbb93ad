/// The whole-path index: an open-addressing hash table from a path's hash to candidate nodes.
///
/// Each slot is one word: the upper 32 bits of the path's hash (the tag) and the node id + 1.
/// A lookup probes from `tag & mask` and offers every node whose tag matches; the caller
/// verifies each candidate byte for byte against the path, so the table never has to prove
/// equality and two paths with the same tag simply occupy two slots. One word per slot keeps a
/// probe to one cache line (the standard `Dictionary` keeps its bitmap, keys and values in
/// three separate arrays, three cache misses on a cold lookup).
///
/// The slot position comes from the tag alone, so the table can grow without the paths.
struct PathTable: Sendable {
    /// `tag << 32 | (node + 1)`; 0 is an empty slot, `tombstone` a removed entry.
    private(set) var slots: [UInt64]
    private(set) var mask: Int
    /// Slots in use: live entries and tombstones (probes stop only at empty slots).
    private var used = 0
    private var live = 0

    static let tombstoneLow: UInt64 = 0xFFFF_FFFF

    init() {
        slots = Array(repeating: 0, count: 16)
        mask = 15
    }

    @inline(__always) static func tag(_ hash: UInt64) -> UInt64 { hash >> 32 }

    /// Adds `node` under `hash` (nothing happens if it is already there).
    mutating func insert(_ hash: UInt64, _ node: NodeID) {
        if (used + 1) * 2 > slots.count { grow() }
        let tag = PathTable.tag(hash)
        let entry = tag << 32 | UInt64(UInt32(bitPattern: node) &+ 1)
        var i = Int(truncatingIfNeeded: tag) & mask
        var reuse = -1
        while slots[i] != 0 {
            if slots[i] == entry { return }
            if reuse < 0 && slots[i] & 0xFFFF_FFFF == PathTable.tombstoneLow { reuse = i }
            i = (i + 1) & mask
        }
        if reuse >= 0 {
            slots[reuse] = entry
        } else {
            slots[i] = entry
            used += 1
        }
        live += 1
    }

    /// Inserts every entry, as `insert` would one by one, in order of home slot (see
    /// `IntMap.insertAll`).
    mutating func insertAll(_ entries: [(hash: UInt64, node: NodeID)]) {
        reserveCapacity(live + entries.count)
        let bits = slots.count.trailingZeroBitCount
        let down = max(0, bits - 11), m = mask
        BatchOrder.inOrder(of: entries, buckets: 1 << (bits - down), bucket: { (Int(truncatingIfNeeded: PathTable.tag($0.hash)) & m) >> down }) { e in
            insert(e.hash, e.node)
        }
    }

    /// Removes `node` from under `hash`, if it is there.
    mutating func remove(_ hash: UInt64, _ node: NodeID) {
        let tag = PathTable.tag(hash)
        let entry = tag << 32 | UInt64(UInt32(bitPattern: node) &+ 1)
        var i = Int(truncatingIfNeeded: tag) & mask
        while slots[i] != 0 {
            if slots[i] == entry {
                slots[i] = tag << 32 | PathTable.tombstoneLow
                live -= 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Grows now to hold `count` entries without growing on the way there.
    mutating func reserveCapacity(_ count: Int) {
        if (count + 1) * 2 > slots.count { grow(toHold: count) }
    }

    /// Rebuilds at the smallest power of two at least three times the live entries (tombstones
    /// dropped): a half-full table doubles, so the load stays between a quarter and a half.
    private mutating func grow(toHold count: Int = 0) {
        var capacity = 16
        while capacity < (max(live, count) + 1) * 3 { capacity *= 2 }
        let old = slots
        slots = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        used = 0
        live = 0
        for s in old where s != 0 && s & 0xFFFF_FFFF != PathTable.tombstoneLow {
            var i = Int(truncatingIfNeeded: s >> 32) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = s
            used += 1
            live += 1
        }
    }

    /// The node in the slot a lookup of `hash` probes first, when that slot holds `hash`'s tag;
    /// else -1. For reading ahead (`World.readAhead`): it tells nothing certain.
    @inline(__always)
    func firstProbe(_ hash: UInt64) -> NodeID {
        let tag = PathTable.tag(hash)
        let v = slots.withUnsafeBufferPointer { $0[Int(truncatingIfNeeded: tag) & mask] }
        let low = v & 0xFFFF_FFFF
        return v != 0 && v >> 32 == tag && low != PathTable.tombstoneLow ? NodeID(truncatingIfNeeded: low &- 1) : -1
    }

    /// Calls `verify` on each node stored under `hash`'s tag, in probe order, until it returns
    /// a node; nil when none does.
    @inline(__always)
    func first(_ hash: UInt64, where verify: (NodeID) -> NodeID?) -> NodeID? {
        let tag = PathTable.tag(hash)
        return slots.withUnsafeBufferPointer { s in
            var i = Int(truncatingIfNeeded: tag) & mask
            while true {
                let v = s[i]
                if v == 0 { return nil }
                let low = v & 0xFFFF_FFFF
                if v >> 32 == tag && low != PathTable.tombstoneLow, let n = verify(NodeID(truncatingIfNeeded: low &- 1)) {
                    return n
                }
                i = (i + 1) & mask
            }
        }
    }
}
