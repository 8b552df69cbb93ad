import FSPolicy
import Testing

@Suite("FNV-1a, 64 bits")
struct FNV1aTests {
    @Test("the published values for the empty string, \"a\" and \"foobar\"")
    func knownValues() {
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_f739_67e8)
        var h = FNV1a.offsetBasis
        for b in "foobar".utf8 { h = FNV1a.step(h, b) }
        #expect(h == FNV1a.hash("foobar".utf8))
    }
}
