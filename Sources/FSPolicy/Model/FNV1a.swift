// FNV-1a, 64 bits: the constants and the byte-at-a-time hash, written once.

/// FNV-1a over 64 bits: start from `offsetBasis`; for each byte, xor it in, then multiply by
/// `prime`. A stable hash for keys that leave the process (lint's baseline fingerprints) and for
/// small hash tables. The path index hashes eight bytes at a time from the same constants
/// (`World.fnv`), so its values are not FNV-1a's.
public enum FNV1a {
    @inlinable public static var offsetBasis: UInt64 { 0xcbf2_9ce4_8422_2325 }
    @inlinable public static var prime: UInt64 { 0x100_0000_01b3 }

    /// `state` with one more byte.
    @inlinable @inline(__always)
    public static func step(_ state: UInt64, _ byte: UInt8) -> UInt64 { (state ^ UInt64(byte)) &* prime }

    /// The hash of `bytes`.
    @inlinable
    public static func hash<S: Sequence<UInt8>>(_ bytes: S) -> UInt64 {
        var h = offsetBasis
        for b in bytes { h = step(h, b) }
        return h
    }
}
