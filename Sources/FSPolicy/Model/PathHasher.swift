/// `World.fnv` of a path fed in pieces: after appending a path's bytes in any split (a parent's
/// path, then `/` and a name), `finish()` is the hash of the whole path hashed at once. A walk
/// down a tree extends its parent's state by one name instead of hashing the whole path again,
/// so building or re-indexing a path of n components costs n names, not n paths.
public struct PathHasher: Sendable {
    /// The state after every full eight-byte word so far.
    private var h: UInt64 = World.fnvSeed
    /// Up to seven bytes not folded in yet, the first in the low byte (as a little-endian load).
    private var pending: UInt64 = 0
    private var pendingCount: UInt64 = 0
    private var length = 0

    public init() {}

    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        pending |= UInt64(byte) << (pendingCount &* 8)
        pendingCount &+= 1
        length &+= 1
        if pendingCount == 8 {
            h = (h ^ pending) &* World.fnvPrime
            pending = 0
            pendingCount = 0
        }
    }

    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        var i = 0
        // Fill the pending word, then whole words straight from the buffer, then the tail.
        while pendingCount != 0 && i < n { append(base[i]); i += 1 }
        let raw = UnsafeRawPointer(base)
        while i + 8 <= n {
            h = (h ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* World.fnvPrime
            length &+= 8
            i += 8
        }
        while i < n { append(base[i]); i += 1 }
    }

    public mutating func append<S: StringProtocol>(_ s: S) {
        // A new node's name on the walk: its bytes in place, copied only if not contiguous.
        if s.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var copy = String(s)
        copy.withUTF8 { append($0) }
    }

    /// `World.fnv` of every prefix `bytes[0..<cut]`, for the cuts in increasing order, appended
    /// to `out` as (cut, hash): one pass over the bytes, each whole word folded once, the tail
    /// of each prefix taken as one masked word.
    public static func prefixHashes(_ bytes: UnsafeBufferPointer<UInt8>, cuts: [Int], into out: inout [(offset: Int, hash: UInt64)]) {
        guard let base = bytes.baseAddress else {
            for c in cuts { out.append((c, World.fnvFinish(World.fnvSeed, length: 0))) }
            return
        }
        let raw = UnsafeRawPointer(base)
        let n = bytes.count
        var h = World.fnvSeed
        var folded = 0
        for c in cuts {
            precondition(c >= folded && c <= n, "cuts must be in increasing order, within the bytes")
            while folded + 8 <= c {
                h = (h ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: folded, as: UInt64.self))) &* World.fnvPrime
                folded += 8
            }
            var t = h
            let rest = c - folded
            if rest > 0 {
                var tail: UInt64 = 0
                if folded + 8 <= n {
                    // Eight bytes loaded, the first `rest` kept (the first byte is the low one).
                    tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: folded, as: UInt64.self)) & ((1 &<< (UInt64(rest) &* 8)) &- 1)
                } else {
                    for k in 0..<rest { tail |= UInt64(base[folded + k]) &<< (UInt64(k) &* 8) }
                }
                t = (t ^ tail) &* World.fnvPrime
            }
            out.append((c, World.fnvFinish(t, length: c)))
        }
    }

    /// The hash of everything appended: `World.fnv` of those bytes.
    public func finish() -> UInt64 {
        var h = self.h
        // The tail as one word, as `World.fnv` folds it (the bytes not yet folded, zero above).
        if pendingCount > 0 { h = (h ^ pending) &* World.fnvPrime }
        return World.fnvFinish(h, length: length)
    }
}
