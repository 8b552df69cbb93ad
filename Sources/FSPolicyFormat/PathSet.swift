import FSPolicy

/// A set of paths (or pieces of paths) for the tree compiler's "which paths have children":
/// open addressing, the world's path hash, and equality as bytes — `Set<Substring>`
/// hashed every path with the seeded SipHash and compared as Unicode text, a tenth of loading
/// a deep million-node tree. Byte equality is the loader's equality for paths: they are in one
/// canonical spelling (`checkPath`), where equal text is equal bytes.
struct PathSet {
    private var slots: [Int32]
    private var items: [(hash: UInt64, path: Substring)] = []

    init(capacity: Int = 16) {
        var c = 16
        while c < capacity * 2 { c *= 2 }
        slots = Array(repeating: -1, count: c)
    }

    var count: Int { items.count }

    /// The world's index hash of the path's bytes.
    static func hash(_ s: Substring) -> UInt64 {
        s.utf8.withContiguousStorageIfAvailable(World.fnv) ?? Array(s.utf8).withUnsafeBufferPointer(World.fnv)
    }

    private func find(_ s: Substring, _ h: UInt64) -> (slot: Int, found: Bool) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while slots[i] >= 0 {
            let e = items[Int(slots[i])]
            if e.hash == h && World.sameBytes(e.path, s) { return (i, true) }
            i = (i + 1) & mask
        }
        return (i, false)
    }

    func contains(_ s: Substring) -> Bool { find(s, PathSet.hash(s)).found }

    /// Adds `s`; false when it was there already.
    @discardableResult
    mutating func insert(_ s: Substring) -> Bool {
        insert(s, hash: PathSet.hash(s))
    }

    /// Adds `s`, whose `hash(s)` the caller has already (a path's prefixes, hashed in one pass).
    @discardableResult
    mutating func insert(_ s: Substring, hash h: UInt64) -> Bool {
        let (slot, found) = find(s, h)
        if found { return false }
        slots[slot] = Int32(items.count)
        items.append((h, s))
        if items.count * 2 > slots.count { grow() }
        return true
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (k, e) in items.enumerated() {
            var i = Int(truncatingIfNeeded: e.hash) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(k)
        }
    }
}
