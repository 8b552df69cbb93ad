/// The test for a path already in its canonical, plain form, eight bytes at a time.
///
/// A plain path is `/`, or `/` followed by names separated by single slashes, with no trailing
/// slash; each name is 1 to 255 bytes (NAME_MAX) of printable ASCII other than `\\`, and not made
/// of dots only (`.`, `..`, also `...`, which the careful way handles). The loader, the quick
/// reader of expectations and `can --batch` take such a path as it is; anything else goes through
/// `Compiler.checkPath`. Tested against the definition written out in `PlainPathTests`.
enum PlainPath {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let high: UInt64 = 0x8080_8080_8080_8080
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// 0x80 in every byte of `x` that is zero, 0 in the others (exact: no borrow between bytes).
    @inline(__always)
    private static func zeroBytes(_ x: UInt64) -> UInt64 {
        ~(((x & low7) &+ low7) | x | low7)
    }

    /// 0x80 in every byte of `w` equal to `b`.
    @inline(__always)
    private static func bytes(_ w: UInt64, equalTo b: UInt8) -> UInt64 {
        zeroBytes(w ^ (ones &* UInt64(b)))
    }

    /// Whether the `count` bytes at `base` are a plain path; with `patternFree`, also without `*`
    /// or `{` (so not a `PathGlob` pattern either).
    ///
    /// Each word is judged as a whole: its bytes' range, then its slashes and dots as bit masks.
    /// A name begins on the byte after a slash; a slash there is an empty name, a dot there a
    /// name that may be dots only, which `carefully` settles (as it does paths of more than 256
    /// bytes, the only ones that can hold a name longer than 255, and paths shorter than a word
    /// and a byte).
    static func isPlain(_ base: UnsafePointer<UInt8>, count n: Int, patternFree: Bool = false) -> Bool {
        guard n >= 1, base[0] == 0x2F else { return false }
        if n == 1 { return true }
        guard base[n - 1] != 0x2F else { return false }
        if n > 256 || n < 9 { return carefully(base, count: n, patternFree: patternFree) }
        let raw = UnsafeRawPointer(base)
        var carry: UInt64 = 0  // 0x80 when the previous word ended in a slash
        var i = 0
        while i < n {
            let w: UInt64
            var valid: UInt64 = high
            if n &- i >= 8 {
                w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            } else {
                // The last bytes, at the bottom of a word with zeros above (the word ending at
                // the path's end, shifted down: a path that reaches here has at least 9 bytes);
                // the flags of the zeros dropped.
                let rest = UInt64(n &- i)
                w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) >> ((8 &- rest) &* 8)
                valid = high & ((1 << (rest &* 8)) &- 1)
            }
            // Not ASCII; below 0x20 (only meaningful for ASCII bytes, and any other byte fails
            // already); 0x7F; a backslash.
            var bad = (w | ~(w &+ 0x6060_6060_6060_6060) | (w &+ ones)) & high
            bad |= bytes(w, equalTo: 0x5C)
            if patternFree { bad |= bytes(w, equalTo: 0x2A) | bytes(w, equalTo: 0x7B) }
            let slashes = bytes(w, equalTo: 0x2F) & valid
            // The first byte of each name in this word.
            let starts = ((slashes << 8) | carry) & valid
            if (bad & valid) | (starts & slashes) != 0 { return false }
            if starts & bytes(w, equalTo: 0x2E) != 0 { return carefully(base, count: n, patternFree: patternFree) }
            carry = (slashes >> 63) << 7
            i &+= 8
        }
        return true
    }

    /// The same, byte by byte.
    static func carefully(_ base: UnsafePointer<UInt8>, count n: Int, patternFree: Bool) -> Bool {
        guard n >= 1, base[0] == 0x2F else { return false }
        if n == 1 { return true }
        var count = 0  // bytes of the current name
        var dots = 0  // the current name's bytes while they are all `.`
        for k in 1..<n {
            let b = base[k]
            if b == 0x2F {
                if count == 0 || dots == count { return false }
                count = 0; dots = 0
                continue
            }
            guard b >= 0x20 && b < 0x7F && b != 0x5C else { return false }
            if patternFree && (b == 0x2A || b == 0x7B) { return false }
            count += 1
            if b == 0x2E { dots += 1 }
            if count > Limits.nameBytes { return false }
        }
        return count > 0 && dots != count
    }
}
