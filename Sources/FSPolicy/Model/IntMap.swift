/// A hash map from 64-bit keys to node ids (or any `Int32` other than `Int32.min`), for the
/// world's child indexes: open addressing with linear probing, keys hashed by one multiply
/// (Fibonacci hashing) instead of the seeded SipHash of `Dictionary`, each key next to its
/// value (one cache line per probe). Removal shifts the following entries back, so no
/// tombstones build up. Value semantics: the slot array is copied on write.
struct IntMap: Sendable {
    struct Slot: Sendable {
        var key: UInt64 = 0
        var value: Int32 = IntMap.empty
    }
    private var slots: [Slot]
    private var shift: UInt64  // 64 - log2(capacity)
    private(set) var count = 0

    static let empty = Int32.min

    init(capacity: Int = 8) {
        var c = 16
        while c < capacity * 2 { c *= 2 }
        slots = Array(repeating: Slot(), count: c)
        shift = UInt64(64 - c.trailingZeroBitCount)
    }

    @inline(__always) private func home(_ key: UInt64) -> Int { IntMap.home(key, shift: shift) }

    @inline(__always) private static func home(_ key: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    @inline(__always) subscript(key: UInt64) -> Int32? {
        get {
            slots.withUnsafeBufferPointer { s in
                let mask = s.count - 1
                var i = home(key)
                while s[i].value != IntMap.empty {
                    if s[i].key == key { return s[i].value }
                    i = (i + 1) & mask
                }
                return nil
            }
        }
        set {
            if let value = newValue { insert(key, value) } else { remove(key) }
        }
    }

    mutating func reserveCapacity(_ n: Int) {
        if n * 2 > slots.count { rehash(toHold: n) }
    }

    /// Sets `key`'s value; returns the value it replaced, if any.
    @discardableResult
    private mutating func insert(_ key: UInt64, _ value: Int32) -> Int32? {
        precondition(value != IntMap.empty)
        if (count + 1) * 2 > slots.count { rehash(toHold: count + 1) }
        let h = home(key)
        let replaced: Int32? = slots.withUnsafeMutableBufferPointer { s in
            let mask = s.count - 1
            var i = h
            while s[i].value != IntMap.empty {
                if s[i].key == key {
                    let old = s[i].value
                    s[i].value = value
                    return old
                }
                i = (i + 1) & mask
            }
            s[i] = Slot(key: key, value: value)
            return nil
        }
        if replaced == nil { count += 1 }
        return replaced
    }

    /// Inserts every entry as `self[key] = value` would, in the entries' order, and returns
    /// the values they replaced under a key (other than the same value). The entries are put
    /// in order of their home slot first (a counting sort on the slot's top bits, which keeps
    /// the order of the entries of one key): the insertions then go through the table once,
    /// in order, instead of landing each on a random cache line.
    mutating func insertAll(_ entries: [(key: UInt64, node: Int32)]) -> [Int32] {
        reserveCapacity(count + entries.count)
        var lost: [Int32] = []
        let bits = slots.count.trailingZeroBitCount
        let down = max(0, bits - 11), sh = shift
        BatchOrder.inOrder(of: entries, buckets: 1 << (bits - down), bucket: { IntMap.home($0.key, shift: sh) >> down }) { e in
            if let old = insert(e.key, e.node), old != e.node { lost.append(old) }
        }
        return lost
    }

    private mutating func remove(_ key: UInt64) {
        let mask = slots.count - 1
        var i = home(key)
        while slots[i].value != IntMap.empty {
            if slots[i].key == key { break }
            i = (i + 1) & mask
        }
        guard slots[i].value != IntMap.empty else { return }
        // Backward-shift deletion: move later entries of the probe run into the hole when their
        // home slot is not cyclically between the hole and them.
        var hole = i
        var j = (i + 1) & mask
        while slots[j].value != IntMap.empty {
            let h = home(slots[j].key)
            let between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !between {
                slots[hole] = slots[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        slots[hole] = Slot()
        count -= 1
    }

    private mutating func rehash(toHold n: Int) {
        var c = 16
        while c < n * 2 + 2 { c *= 2 }
        let old = slots
        slots = Array(repeating: Slot(), count: c)
        shift = UInt64(64 - c.trailingZeroBitCount)
        let mask = c - 1
        for e in old where e.value != IntMap.empty {
            var i = home(e.key)
            while slots[i].value != IntMap.empty { i = (i + 1) & mask }
            slots[i] = e
        }
    }
}

/// Visits a batch of hash-table entries in order of a bucket of their home slot (a stable
/// counting sort), so a batch of insertions sweeps the table once (`IntMap.insertAll`,
/// `PathTable.insertAll`).
enum BatchOrder {
    static func inOrder<E>(of entries: [E], buckets: Int, bucket: (E) -> Int, _ body: (E) -> Void) {
        if entries.count < 4096 {
            for e in entries { body(e) }
            return
        }
        var start = [Int](repeating: 0, count: buckets + 1)
        for e in entries { start[bucket(e) + 1] += 1 }
        for b in 0..<buckets { start[b + 1] += start[b] }
        let sorted = [E](unsafeUninitializedCapacity: entries.count) { out, n in
            for e in entries {
                let b = bucket(e)
                (out.baseAddress! + start[b]).initialize(to: e)
                start[b] += 1
            }
            n = entries.count
        }
        for e in sorted { body(e) }
    }
}
