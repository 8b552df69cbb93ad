import Foundation

/// Tests on eight bytes at once (SWAR), shared by the scanners that skip plain ASCII a word at a
/// time (the escaping rule, the JSON writer, the fast YAML reader), and how many parts such a
/// scan of a big text is cut into.
package enum SWAR {
    package static let ones: UInt64 = 0x0101_0101_0101_0101
    package static let high: UInt64 = 0x8080_8080_8080_8080

    /// Some byte of `w` is not printable ASCII: at or above 0x80, below 0x20, or DEL. Exact
    /// for "some byte is"; the bytes it marks after the first it finds may be wrong (a borrow).
    @inline(__always)
    package static func notPrintableASCII(_ w: UInt64) -> Bool {
        let below20 = (w &- ones &* 0x20) & ~w & high
        return (w & high) | below20 | hasByte(w, 0x7F) != 0
    }

    /// The `length` bytes (fewer than eight) of `buf` at `start` as one word, the first in the
    /// lowest bits, zero above them: one load where eight bytes can be read, else byte by byte.
    @inline(__always)
    package static func partialWord(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> UInt64 {
        if start &+ 8 <= buf.count {
            let w = UInt64(littleEndian: UnsafeRawPointer(buf.baseAddress!).loadUnaligned(fromByteOffset: start, as: UInt64.self))
            return w & ((1 << UInt64(length &* 8)) &- 1)
        }
        var v: UInt64 = 0
        for b in 0..<length { v |= UInt64(buf[start &+ b]) << UInt64(b &* 8) }
        return v
    }

    /// Some byte of `w` is not printable ASCII or a line feed. Exact for each byte, as below.
    @inline(__always)
    package static func notLineASCII(_ w: UInt64) -> Bool {
        if w & high != 0 { return true }
        let below20 = ~((w | high) &- ones &* 0x20) & high
        return below20 & ~equalLow(w, 0x0A) | equalLow(w, 0x7F) != 0
    }

    /// Some byte of `w` is not printable ASCII, a line feed or a tab. Exact for each byte: every
    /// byte is below 0x80 once the first test passes, so setting its high bit leaves room for
    /// the subtractions, which then borrow nothing from the next byte.
    @inline(__always)
    package static func notTextASCII(_ w: UInt64) -> Bool {
        if w & high != 0 { return true }
        let below20 = ~((w | high) &- ones &* 0x20) & high
        return below20 & ~(equalLow(w, 0x0A) | equalLow(w, 0x09)) | equalLow(w, 0x7F) != 0
    }

    /// The high bit set in each byte of `w` whose low seven bits are those of the ASCII byte
    /// `b`: exactly the bytes equal to `b` when `w` is ASCII (each byte's high bit is set before
    /// the subtraction, which so borrows nothing from the next).
    @inline(__always)
    package static func equalLow(_ w: UInt64, _ b: UInt8) -> UInt64 {
        ~(((w ^ (ones &* UInt64(b))) | high) &- ones) & high
    }

    /// How many parts a scan of `bytes` bytes is done in, one a thread: one for a small text,
    /// up to four (as many as cores) from 8 MiB; `asked` (the tests') when given.
    package static func parts(ofBytes bytes: Int, asked: Int? = nil) -> Int {
        max(1, min(asked ?? (bytes >= 8 << 20 ? min(4, ProcessInfo.processInfo.activeProcessorCount) : 1), bytes))
    }

    /// The high bit set in the bytes of `w` equal to `b` (and possibly in bytes after the first
    /// such one); zero when no byte is `b`.
    @inline(__always)
    package static func hasByte(_ w: UInt64, _ b: UInt8) -> UInt64 {
        let v = w ^ (ones &* UInt64(b))
        return (v &- ones) & ~v & high
    }
}
