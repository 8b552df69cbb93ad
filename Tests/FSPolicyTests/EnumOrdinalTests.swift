import Testing
@testable import FSPolicy

/// `RuleID.ordinal`, `Layer.ordinal` and `Verdict.ordinal` read the enum's stored tag: each must
/// be the case's position in the declaration, every case its own (the JSON report's templates
/// are keyed by them).
@Suite("Enum ordinals")
struct EnumOrdinalTests {
    @Test func rulesLayersVerdicts() {
        #expect(MemoryLayout<RuleID>.size == 1 && MemoryLayout<Layer>.size == 1 && MemoryLayout<Verdict>.size == 1)
        #expect(RuleID.allCases.count > 100)
        for (i, r) in RuleID.allCases.enumerated() { #expect(r.ordinal == i, "\(r)") }
        for (i, l) in Layer.allCases.enumerated() { #expect(l.ordinal == i, "\(l)") }
        let verdicts: [Verdict] = [.allow, .deny, .defer, .note]
        for (i, v) in verdicts.enumerated() { #expect(v.ordinal == i, "\(v)") }
        #expect(Set(RuleID.allCases.map(\.ordinal)).count == RuleID.allCases.count)
    }
}
