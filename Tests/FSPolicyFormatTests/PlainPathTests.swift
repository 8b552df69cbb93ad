@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Testing

/// `PlainPath.isPlain` judges eight bytes at a time; this holds it to the definition written out
/// name by name, on paths that put every kind of byte at every offset of a word, and on names
/// around the 255-byte limit.
@Suite struct PlainPathTests {
    /// The definition: `/`, or `/` and names joined by single slashes; each name 1 to 255 bytes
    /// of printable ASCII other than `\`, not dots only; with `patternFree`, no `*` or `{` either.
    func definition(_ b: [UInt8], patternFree: Bool) -> Bool {
        guard b.first == 0x2F else { return false }
        if b.count == 1 { return true }
        return b.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false).allSatisfy { name in
            !name.isEmpty && name.count <= 255 && !name.allSatisfy { $0 == 0x2E }
                && name.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C && (!patternFree || ($0 != 0x2A && $0 != 0x7B)) }
        }
    }

    func fast(_ b: [UInt8], patternFree: Bool) -> Bool {
        // Copied into a buffer of exactly its size: a read past the end would be a bug that
        // AddressSanitizer reports (scripts/sanitize).
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(b.count, 1))
        defer { p.deallocate() }
        p.initialize(from: b, count: b.count)
        return PlainPath.isPlain(p, count: b.count, patternFree: patternFree)
    }

    func agree(_ b: [UInt8], _ plain: inout Int) {
        for pf in [false, true] {
            let want = definition(b, patternFree: pf)
            #expect(fast(b, patternFree: pf) == want, "\(b) patternFree \(pf)")
            if want { plain += 1 }
        }
    }

    @Test func testWordAtATimeAgreesWithTheDefinition() {
        let odd: [UInt8] = [0x2F, 0x2F, 0x2E, 0x2E, 0x5C, 0x2A, 0x7B, 0x1F, 0x00, 0x09, 0x0A, 0x7F, 0x80, 0xC3, 0xFF, 0x20, 0x7E, 0x5B]
        var g = SystemRandomNumberGenerator()
        var plain = 0
        for _ in 0..<40_000 {
            var b: [UInt8] = Int.random(in: 0..<10, using: &g) == 0 ? [] : [0x2F]
            for _ in 0..<Int.random(in: 0...40, using: &g) {
                // Mostly name bytes, so each odd byte lands at every offset of a word.
                b.append(Int.random(in: 0..<10, using: &g) < 7 ? Array("abcdefgh".utf8).randomElement(using: &g)! : odd.randomElement(using: &g)!)
            }
            agree(b, &plain)
        }
        #expect(plain > 5_000)
        // Every byte value alone at each offset of a path of two names.
        let base = Array("/abcdefghijklm/nopqrstuvw".utf8)
        for k in 0..<base.count {
            for v in 0...255 {
                var b = base
                b[k] = UInt8(v)
                agree(b, &plain)
            }
        }
        // `.`, `..`, `...` and dot-led names at every position.
        for name in [".", "..", "...", ".a", "..a", "a.", "a..", "a...b"] {
            for path in ["/\(name)", "/x/\(name)", "/\(name)/x", "/abcdefg/\(name)", "/abcdef/\(name)/yz"] {
                agree(Array(path.utf8), &plain)
            }
        }
    }

    @Test func testNamesAroundTheLimit() {
        var plain = 0
        for length in [254, 255, 256, 300] {
            for offset in 0..<9 {
                let name = [UInt8](repeating: 0x61, count: length)
                let lead = [0x2F] + [UInt8](repeating: 0x62, count: offset + 1)
                agree(lead + [0x2F] + name, &plain)
                agree(lead + [0x2F] + name + Array("/c".utf8), &plain)
                agree([0x2F] + name, &plain)
            }
        }
        // 3 lengths are plain (254, 255) of 4, in 3 shapes, at 9 offsets, both ways.
        #expect(plain == 2 * 3 * 9 * 2)
    }
}
