/// A set of paths (or pieces of paths) for the tree compiler's "which paths have children":
/// open addressing, an FNV-style hash eight bytes at a time, and equality as bytes — `Set<Substring>`
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

    static func hash(_ s: Substring) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let done: Bool? = s.utf8.withContiguousStorageIfAvailable { u in
            let n = u.count
            var i = 0
            if let base = u.baseAddress {
                let raw = UnsafeRawPointer(base)
                while i + 8 <= n {
                    h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01b3
                    i += 8
                }
                while i < n { h = (h ^ UInt64(base[i])) &* 0x100_0000_01b3; i += 1 }
            }
            h ^= UInt64(n)
            return true
        }
        if done == nil {
            for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            h ^= UInt64(s.utf8.count)
        }
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        return h ^ (h >> 32)
    }

    static func same(_ a: Substring, _ b: Substring) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let r: Bool?? = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                guard let pa = p.baseAddress, let qa = q.baseAddress else { return p.count == q.count }
                return memcmpBytes(pa, qa, p.count)
            }
        }
        if let rr = r, let v = rr { return v }
        return x.elementsEqual(y)
    }

    private static func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = n
        while i > 0 { i -= 1; if a[i] != b[i] { return false } }   // from the end: paths share their start
        return true
    }

    private func find(_ s: Substring, _ h: UInt64) -> (slot: Int, found: Bool) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while slots[i] >= 0 {
            let e = items[Int(slots[i])]
            if e.hash == h && PathSet.same(e.path, s) { return (i, true) }
            i = (i + 1) & mask
        }
        return (i, false)
    }

    func contains(_ s: Substring) -> Bool { find(s, PathSet.hash(s)).found }

    /// Adds `s`; false when it was there already.
    @discardableResult
    mutating func insert(_ s: Substring) -> Bool {
        let h = PathSet.hash(s)
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
