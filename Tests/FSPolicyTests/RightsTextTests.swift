import Testing
@testable import FSPolicy

// The words every renderer prints for a mode and for rights, written without intermediate
// strings: held to their definitions.

@Test("a mode's octal text is its lowest twelve bits as four octal digits, for every mode")
func modeOctalEveryValue() {
    for v in UInt16(0)...0o7777 {
        let digits = String(v, radix: 8)
        #expect(FileMode(v).octal == String(repeating: "0", count: 4 - digits.count) + digits)
    }
}

@Test("rights' text is the comma-joined words of the rights present, directory aliases on directories")
func rightsTextMatchesTheWords() {
    var g = SystemRandomNumberGenerator()
    let extra: [(AccessRights, String)] = [(.linkTarget, "linktarget"), (.checkImmutable, "checkimmutable")]
    for _ in 0..<5_000 {
        var r = AccessRights(rawValue: 0)
        for w in AccessRights.words where Bool.random(using: &g) && Bool.random(using: &g) { r.insert(w.right) }
        for (x, _) in extra where Int.random(in: 0..<4, using: &g) == 0 { r.insert(x) }
        for dir in [nil, false, true] as [Bool?] {
            var parts = AccessRights.words.filter { r.contains($0.right) && ((dir ?? false) ? $0.onDirectories : $0.onFiles) }.map(\.word)
            parts += extra.filter { r.contains($0.0) }.map(\.1)
            #expect(r.text(forDirectory: dir) == parts.joined(separator: ","))
        }
    }
}

@Test("rights' text for every set of the ACE rights (with and without the two action bits and a stray bit), on files and directories, is the table's words")
func rightsTextForEverySet() {
    let extra: [(AccessRights, String)] = [(.linkTarget, "linktarget"), (.checkImmutable, "checkimmutable")]
    for low in 0..<(1 << 13) {
        for more: UInt32 in [0, AccessRights.linkTarget.rawValue, AccessRights.checkImmutable.rawValue | 1 | (1 << 20)] {
            let r = AccessRights(rawValue: UInt32(low) << 1 | more)
            for dir in [nil, false, true] as [Bool?] {
                var parts = AccessRights.words.filter { r.contains($0.right) && ((dir ?? false) ? $0.onDirectories : $0.onFiles) }.map(\.word)
                parts += extra.filter { r.contains($0.0) }.map(\.1)
                let got = r.text(forDirectory: dir)
                if got != parts.joined(separator: ",") { Issue.record("\(r.rawValue) dir \(String(describing: dir)): \(got)"); return }
            }
        }
    }
}
