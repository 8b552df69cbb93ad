// Byte-level lookup (the hot path): the index hash, the path index's walk, name comparison.

extension World {
    // MARK: Byte-level lookup (the hot path)

    @inline(__always)
    static func memEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        // Eight bytes at a time, then a tail of four, two and one.
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= n {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        if n - i >= 4 {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt32.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt32.self) { return false }
            i += 4
        }
        if n - i >= 2 {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt16.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt16.self) { return false }
            i += 2
        }
        return i == n || a[i] == b[i]
    }

    /// The index hash of a path or name: FNV-style over eight-byte words, then the tail (the
    /// last one to seven bytes, zero-padded, as one more word), then the length and a final mix.
    /// Every key is verified byte for byte after lookup, so the hash only has to spread keys,
    /// never to prove equality. (The tail was folded a byte at a time: up to seven dependent
    /// multiplications more before a lookup could load its index slot.)
    @inline(__always)
    public static func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = fnvSeed
        let n = bytes.count
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                h = (h ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* fnvPrime
                i += 8
            }
            let rest = n &- i
            if rest > 0 {
                var tail: UInt64 = 0
                if n >= 8 {
                    // The eight bytes ending at the end, shifted down to the tail's first byte.
                    tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) &>> (UInt64(8 &- rest) &* 8)
                } else {
                    for k in 0..<rest { tail |= UInt64(base[k]) &<< (UInt64(k) &* 8) }
                }
                h = (h ^ tail) &* fnvPrime
            }
        }
        return fnvFinish(h, length: n)
    }

    /// FNV-1a's constants (`FNV1a`).
    static var fnvSeed: UInt64 { FNV1a.offsetBasis }
    static var fnvPrime: UInt64 { FNV1a.prime }

    /// `fnv`'s last step (shared with `PathHasher`): the length, then a mix of the bits.
    @inline(__always)
    static func fnvFinish(_ state: UInt64, length: Int) -> UInt64 {
        var h = state ^ UInt64(length)
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 32
        return h
    }

    static func fnv(_ s: String) -> UInt64 {
        var s = s
        return s.withUTF8 { fnv($0) }
    }

    @inline(__always)
    func fastKey(_ parent: NodeID, _ hash: UInt64) -> UInt64 {
        ((hash &* 0x9e37_79b9_7f4a_7c15) ^ UInt64(UInt32(bitPattern: parent))) & childKeyMask
    }

    func keyHash(_ name: Substring, in dir: NodeID) -> UInt64 {
        World.fnv(folded(name, in: dir))
    }

    /// The node whose path is exactly `bytes` (canonical: `/`-separated, no empty, `.` or `..`
    /// components, no trailing slash), verified segment by segment against its ancestors'
    /// names; nil when absent or not canonical. Not used on case-insensitive volumes.
    func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>) -> NodeID? {
        var walked = 0
        return indexedNode(bytes, chain: nil, walked: &walked)
    }

    /// The same; with `chain`, also the nodes the verification walked through, the node first,
    /// up to the root (not included): `walked` is set to how many there were (more than
    /// `chain.count` when they did not all fit). A search of the path's directories then needs
    /// no second walk up (`Eval.resolveIndexed`).
    func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>, chain: UnsafeMutableBufferPointer<NodeID>?, walked: inout Int) -> NodeID? {
        World.indexedNode(
            bytes, chain: chain, walked: &walked, index: pathIndex, nodes: nodes, fold: foldNames, folding: anyFolding,
            names: nameBytes, starts: nameStart)
    }

    /// The lookup itself, on the tables it reads, passed one by one: `WorldBox` asks it of the
    /// world it holds this way, because a method of that `World` called through the box had the
    /// whole `World` (312 bytes) copied to the stack first, on every decision.
    @inline(__always)
    static func indexedNode(
        _ bytes: UnsafeBufferPointer<UInt8>, chain: UnsafeMutableBufferPointer<NodeID>?, walked: inout Int,
        index: PathTable, nodes: [Node], fold: [Bool], folding: Bool, names: [UInt8], starts: [Int32]
    ) -> NodeID? {
        guard let base = bytes.baseAddress else { return nil }
        let total = bytes.count
        // (`folding` is checked once, not at every level, in the common world with no
        // case-insensitive volume.) The chain's room (none without one), and the count kept in
        // a register until the end.
        let slots = chain?.baseAddress
        let room = chain?.count ?? 0
        var count = 0
        defer { walked = count }
        return nodes.withUnsafeBufferPointer { all in
            fold.withUnsafeBufferPointer { fold in
                index.first(World.fnv(bytes)) { n in
                    verify(n, base, total, all, fold, folding: folding, names: names, starts: starts, slots: slots, room: room, count: &count) ? n : nil
                }
            }
        }
    }

    /// Whether `n`'s path is exactly `bytes` (the index's verification of a candidate, alone:
    /// `PathIndexTests` asks it of every node against every path).
    func pathMatches(_ n: NodeID, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, n >= 0, Int(n) < nodes.count else { return false }
        var count = 0
        return nodes.withUnsafeBufferPointer { all in
            foldNames.withUnsafeBufferPointer { fold in
                World.verify(n, base, bytes.count, all, fold, folding: anyFolding, names: nameBytes, starts: nameStart, slots: nil, room: 0, count: &count)
            }
        }
    }

    /// Verifies from the end that `base[0..<total]` is `n`'s path: each segment must be exactly
    /// the name of the next ancestor, preceded by a slash. A segment sits at a known length
    /// before the previous slash, so there is no scanning, only one comparison. The nodes passed
    /// are recorded in `slots` (up to `room`) and counted in `count`; false on a case-folding
    /// volume when `folding`.
    @inline(__always)
    private static func verify(
        _ n: NodeID, _ base: UnsafePointer<UInt8>, _ total: Int, _ all: UnsafeBufferPointer<Node>,
        _ fold: UnsafeBufferPointer<Bool>, folding: Bool, names: [UInt8], starts: [Int32],
        slots: UnsafeMutablePointer<NodeID>?, room: Int, count: inout Int
    ) -> Bool {
        let raw = UnsafeRawPointer(base)
        var end = total
        var cur = n
        count = 0
        while cur != World.root {
            if count < room { slots.unsafelyUnwrapped[count] = cur }
            count &+= 1
            let node = all[Int(cur)]
            if folding && fold[Int(node.volume)] { return false }
            var length = Int(node.nameLength)
            if length <= 7 && end >= 8 {
                // The common segment, in one comparison: the eight bytes ending at
                // its end, shifted down to the slash before it, are that slash and
                // then the name (`nameHead` is zero above the name's bytes). The
                // slash is at `end - length - 1 >= end - 8 >= 0`.
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end &- 8, as: UInt64.self))
                guard length > 0, word &>> (UInt64(7 &- length) &* 8) == (node.nameHead &<< 8) | 0x2f else { return false }
                end = end &- length &- 1
                cur = node.parent
                continue
            }
            if length == 255 { length = World.nameByteCount(node.name, starts: starts) }
            let start = end - length
            guard length > 0, start > 0, base[start - 1] == 0x2f else { return false }
            if length == 8 && end >= 8 {
                // Eight bytes (shorter names were checked above): the word ending at the
                // segment's end is the name's head, its slash checked apart.
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
                guard word == node.nameHead else { return false }
            } else if end < 8 && total >= 8 {
                // A short segment in the path's first eight bytes: those bytes,
                // shifted down to the segment and cut to its length.
                let word = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
                let mask: UInt64 = (1 << (UInt64(length) &* 8)) &- 1
                guard (word >> (UInt64(start) &* 8)) & mask == node.nameHead else { return false }
            } else {
                guard nameEquals(node, UnsafeBufferPointer(start: base + start, count: length), names: names, starts: starts) else { return false }
            }
            end = start - 1
            cur = node.parent
        }
        return end == 0
    }

    /// Reads ahead, for a batch of path lookups, what they will read: each path's first index
    /// slot (`hashes` holds each path's `World.fnv`), then the record of the node found there,
    /// then its parent's, and so on up to the root, one level at a time across the whole batch.
    /// The loads of one level do not wait for each other, so their cache misses overlap, where
    /// a lookup on its own waits for each in turn (the parent's number is in the child's
    /// record); the lookups that follow find those lines in the cache. Changes nothing in the
    /// world; `hashes` is scratch space and is overwritten. The result only folds what was read,
    /// so that the loads are kept.
    public func readAhead(_ hashes: UnsafeMutableBufferPointer<UInt64>) -> Int32 {
        var live = 0
        for i in hashes.indices {
            let n = pathIndex.firstProbe(hashes[i])
            if n > 0 && Int(n) < nodes.count { hashes[live] = UInt64(n); live += 1 }
        }
        return nodes.withUnsafeBufferPointer { all in
            var sink: Int32 = 0
            var depth = 0
            // A level per round; a path deeper than 64 is read ahead only so far.
            while live > 0 && depth < 64 {
                var next = 0
                for i in 0..<live {
                    let p = all[Int(hashes[i])].parent
                    sink ^= p
                    if p != World.root { hashes[next] = UInt64(UInt32(bitPattern: p)); next += 1 }
                }
                live = next
                depth += 1
            }
            return sink
        }
    }

    /// `node`'s name is exactly `bytes`: the head and length from the record, the rest (names
    /// longer than eight bytes) from the arena.
    func nameEquals(_ node: Node, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        World.nameEquals(node, bytes, names: nameBytes, starts: nameStart)
    }

    /// The same on the name arena and its offsets, passed in.
    static func nameEquals(_ node: Node, _ bytes: UnsafeBufferPointer<UInt8>, names: [UInt8], starts: [Int32]) -> Bool {
        let n = bytes.count
        if n > 8 {
            // The head is the first eight bytes as they are (one load, not a loop).
            let head = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self))
            guard head == node.nameHead, Int(node.nameLength) == min(n, 255) else { return false }
        } else {
            guard n > 0, World.nameHead(bytes) == (node.nameHead, node.nameLength) else { return false }
            return true
        }
        let id = Int(node.name)
        let from = Int(starts[id])
        guard Int(starts[id + 1]) - from == n else { return false }
        return names.withUnsafeBufferPointer { arena in
            memEqual(arena.baseAddress! + from + 8, bytes.baseAddress! + 8, n - 8)
        }
    }

    func nameByteCount(_ id: NameID) -> Int { World.nameByteCount(id, starts: nameStart) }

    /// The length in bytes of name `id`, from the arena's offsets.
    @inline(__always)
    static func nameByteCount(_ id: NameID, starts: [Int32]) -> Int { Int(starts[Int(id) + 1] - starts[Int(id)]) }

    /// The head and length fields of a node whose name has these UTF-8 bytes (see `Node.nameHead`).
    static func nameHead<C: Collection>(_ bytes: C) -> (head: UInt64, length: UInt8) where C.Element == UInt8 {
        var head: UInt64 = 0
        for (i, b) in bytes.prefix(8).enumerated() { head |= UInt64(b) << (UInt64(i) &* 8) }
        return (head, UInt8(min(bytes.count, 255)))
    }

    /// The child of `dir` whose name is exactly `bytes`, or nil when there is none or the fast
    /// index cannot tell (a hash clash, a case-insensitive volume): callers then use `child`.
    @inline(__always)
    func fastChild(_ dir: NodeID, _ bytes: UnsafeBufferPointer<UInt8>) -> (found: NodeID?, certain: Bool) {
        if foldNames[Int(nodes[Int(dir)].volume)] { return (nil, false) }
        guard let c = fastChildren[fastKey(dir, World.fnv(bytes))] else { return (nil, !crowded.contains(dir)) }
        let node = nodes[Int(c)]
        guard node.parent == dir, nameEquals(node, bytes) else { return (nil, false) }
        return (c, true)
    }
}
