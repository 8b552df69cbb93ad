import Testing
@testable import FSPolicyYAML

/// `FastYAML.acceptableBytes` looks at a big text in parts, one a thread: the same answer as in
/// one part, wherever a part begins (inside a character, next to a refused one).
@Suite("the fast reader's byte check in parts")
struct AcceptableBytesPartsTests {
    @Test("random texts of ASCII, controls and multi-byte characters, split everywhere: one answer")
    func partsAgree() {
        var rng = SystemRandomNumberGenerator()
        // Pieces whose bytes the check looks at: ASCII, a line feed, a tab, DEL, U+0085 (C2 85),
        // é (C3 A9), U+2028 (E2 80 A8), U+2026 (E2 80 A6), the BOM (EF BB BF), U+FFFE (EF BF BE),
        // U+FFFD (EF BF BD).
        let pieces: [[UInt8]] = [
            [0x61], [0x20], [0x0A], [0x09], [0x7F], [0xC2, 0x85], [0xC3, 0xA9], [0xE2, 0x80, 0xA8],
            [0xE2, 0x80, 0xA6], [0xEF, 0xBB, 0xBF], [0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBD]
        ]
        var answers = Set<String>()
        for _ in 0..<400 {
            var text: [UInt8] = []
            let n = Int.random(in: 0...40, using: &rng)
            for _ in 0..<n {
                // Mostly plain ASCII, so that texts of each answer come up.
                let k = Int.random(in: 0..<30, using: &rng)
                text += k < pieces.count ? pieces[k] : [UInt8.random(in: 0x20...0x7E, using: &rng)]
            }
            text.withUnsafeBufferPointer { buf in
                let whole = FastYAML.acceptableBytes(buf, from: 0, to: buf.count)
                answers.insert(String(describing: whole))
                for parts in 1...6 {
                    #expect(FastYAML.acceptableBytes(buf, parts: parts) == whole, "\(text) in \(parts) parts")
                }
            }
        }
        // Each answer came up: refused, accepted as ASCII, accepted with other characters.
        #expect(answers == ["nil", "Optional(true)", "Optional(false)"])
    }
}
