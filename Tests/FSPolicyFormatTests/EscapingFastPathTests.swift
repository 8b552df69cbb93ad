@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Testing

/// `Escaping.isSafe` judges ASCII eight bytes at a time; this holds it to the plain definition
/// (no unsafe code point, newlines and tabs allowed when asked) on strings that put every kind
/// of byte at every offset of a word.
@Suite struct EscapingFastPathTests {
    func slowIsSafe(_ s: String, keepNewlines: Bool) -> Bool {
        !s.unicodeScalars.contains { Escaping.isUnsafe($0.value) && !(keepNewlines && ($0.value == 0x0a || $0.value == 0x09)) }
    }

    @Test func testWordAtATimeAgreesWithTheDefinition() {
        let pieces: [String] = [
            "a", "Z", "0", " ", "~", "\u{7f}", "\n", "\t", "\r", "\u{1b}", "\u{0}", "\u{1f}", "é", "\u{85}", "\u{202e}", "\u{fffe}", "😀", "/", "\\"
        ]
        var g = SystemRandomNumberGenerator()
        var unsafeSeen = 0
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...40, using: &g)
            var s = ""
            for _ in 0..<n {
                // Mostly plain ASCII, so a single odd byte lands at every offset of a word.
                s += Int.random(in: 0..<10, using: &g) < 8 ? "abcdefgh".randomElement(using: &g).map(String.init)! : pieces.randomElement(using: &g)!
            }
            for keep in [false, true] {
                let want = slowIsSafe(s, keepNewlines: keep)
                #expect(Escaping.isSafe(Substring(s), keepNewlines: keep) == want, "\(Array(s.utf8)) keepNewlines \(keep)")
                if !want { unsafeSeen += 1 }
            }
        }
        #expect(unsafeSeen > 1000)
        // Every byte value below 0x80 alone at each offset of a 16-byte ASCII string.
        for b in UInt8(0)..<0x80 {
            for at in 0..<16 {
                var bytes = Array(repeating: UInt8(ascii: "x"), count: 16)
                bytes[at] = b
                let s = String(decoding: bytes, as: UTF8.self)
                for keep in [false, true] {
                    #expect(Escaping.isSafe(Substring(s), keepNewlines: keep) == slowIsSafe(s, keepNewlines: keep), "byte \(b) at \(at)")
                }
            }
        }
    }
}
