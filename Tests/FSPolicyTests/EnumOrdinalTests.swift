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

    /// The JSON report keys its fixed runs (`StepJSONCache.tag`) by the byte that stores a
    /// rule set or an errno (or its absence): one byte each, every value its own.
    @Test func semanticsAndErrnoTags() {
        #expect(MemoryLayout<Semantics>.size == 1 && MemoryLayout<Errno?>.size == 1)
        func tag<T>(_ v: T) -> UInt8 { withUnsafeBytes(of: v) { $0[0] } }
        #expect(Set(Semantics.allCases.map { tag($0) }).count == Semantics.allCases.count)
        let errnos: [Errno?] = Errno.allCases.map { $0 } + [nil]
        #expect(Set(errnos.map { tag($0) }).count == errnos.count)
    }

    /// `Operation.wordIndex` (what `word` reads) is each operation's own place in `words`, and a
    /// raw right keeps the word it was written with.
    @Test func operationWords() {
        #expect(Operation.words.count == 43)
        for (i, (w, op)) in Operation.words.enumerated() {
            #expect(op.wordIndex == i, "\(w)")
            #expect(op.word == w)
            #expect(Operation(word: w)?.word == w)
        }
        #expect(Operation(word: "delete_child")?.word == "delete_child")
    }

    /// The words the JSON report writes without looking at them (`JSONOutput.plain`): rules,
    /// layers, errnos, rule sets, operations and right words are printable ASCII without `"`
    /// or `\`, so none needs an escape.
    @Test func reportWordsArePlain() {
        func plain(_ s: String) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C } }
        let words =
            RuleID.allCases.map(\.rawValue) + Layer.allCases.map(\.rawValue) + Errno.allCases.map(\.rawValue)
            + Semantics.allCases.map(\.rawValue) + Operation.words.map(\.0) + AccessRights.words.map(\.word) + ["allow", "deny"]
        for w in words { #expect(plain(w), "\(w)") }
    }
}
