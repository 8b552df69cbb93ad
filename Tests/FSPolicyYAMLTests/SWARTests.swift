import Testing
@testable import FSPolicyYAML

@Suite("the byte check's words")
struct LineASCIITests {
    @Test("notLineASCII is exact: every byte value at every place of a word, beside letters and line feeds")
    func everyByte() {
        for filler: UInt8 in [0x61, 0x0A, 0x7E] {
            for b in 0...255 {
                let bad = b >= 0x80 || (b < 0x20 && b != 0x0A) || b == 0x7F
                for place in 0..<8 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[place] = UInt8(b)
                    let w = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    #expect(SWAR.notLineASCII(w) == bad, "byte \(b) at \(place) among \(filler)")
                    // The whole check over a text of such words: refused exactly for the refused bytes
                    // (a byte of 0x80 or more alone is not UTF-8, and is refused or read as not ASCII).
                    if b < 0x80 {
                        let text = [UInt8](repeating: 0x61, count: 5) + bytes + [UInt8](repeating: 0x0A, count: 11)
                        let r = text.withUnsafeBufferPointer { FastYAML.acceptableBytes($0, from: 0, to: $0.count) }
                        #expect((r == nil) == bad && (r == nil || r == true), "byte \(b) at \(place) among \(filler)")
                    }
                }
            }
        }
    }
}
