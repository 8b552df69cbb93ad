import Testing
import FSPolicy

// Each row is one request evaluated under both rule sets. The macos answer comes from the
// reference (§2.2–§2.7); the guide answer from the File System Programming Guide's seven steps
// read as the reference §2.8 says (ACL algorithm as step 3, "read and write" for the owner as
// readsecurity/writesecurity) and from policy-format.md ("an ACL allow beats uchg").

struct Comparison: Sendable, CustomTestStringConvertible {
    var row: Row
    var macos: Expect
    var guide: Expect
    /// The guide.* rule the difference is recorded under (in the guide trace).
    var guideRule: RuleID

    init(
        _ label: String, _ who: Who, _ op: FSPolicy.Operation, _ path: String, mode: UInt16? = nil, flags: FileFlags? = nil,
        macos: Expect, guide: Expect, guideRule: RuleID
    ) {
        row = Row(label, who, op, path, mode: mode, flags: flags, macos)
        self.macos = macos
        self.guide = guide
        self.guideRule = guideRule
    }

    var testDescription: String { "\(guideRule.rawValue): \(row.label)" }
}

let comparisons: [Comparison] = [
    Comparison(
        "bob writes a uchg file whose ACE allows him write", .bob, .write, "/g/uchgacl",
        macos: .deny(.EPERM, .flags, .immutable), guide: .allow(.acl, .guideACLBeforeFlags),
        guideRule: .guideACLBeforeFlags),
    Comparison(
        "bob deletes a uchg file whose ACE allows him delete", .bob, .delete, "/g/uchgdel",
        macos: .deny(.EPERM, .flags, .immutable), guide: .allow(.acl, .guideACLBeforeFlags),
        guideRule: .guideACLBeforeFlags),
    Comparison(
        "bob deletes, by a node allow-delete ACE, from a uchg directory", .bob, .delete, "/del/immp/nodeallow",
        macos: .deny(.EPERM, .flags, .parentImmutable), guide: .allow(.acl, .guideACLBeforeFlags),
        guideRule: .guideACLBeforeFlags),
    Comparison(
        "bob writes alice's 0444 file on an ignore-ownership volume", .bob, .write, "/stick/ro",
        macos: .deny(.EACCES, .mode, .ownerBitsMissing), guide: .allow(.ownership, .guideIgnoreOwnershipAllows),
        guideRule: .guideIgnoreOwnershipAllows),
    Comparison(
        "allow write stored before deny write (explicit deny first in the guide)", .bob, .write, "/g/order",
        macos: .allow(.acl, .aclAllowComplete), guide: .deny(.EACCES, .acl, .guideACLStatedOrder),
        guideRule: .guideACLStatedOrder),
    Comparison(
        "inherited deny stored before an explicit allow (explicit entries first in the guide)", .bob, .write, "/g/inhorder",
        macos: .deny(.EACCES, .acl, .aclDenyMatched), guide: .allow(.acl, .guideACLStatedOrder),
        guideRule: .guideACLStatedOrder),
    Comparison(
        "owner reads the ACL against a deny-readsecurity ACE naming her", .alice, .readsecurity, "/g/rsec",
        macos: .deny(.EACCES, .acl, .aclDenyMatched), guide: .allow(.ownership, .guideOwnerSecurityRights),
        guideRule: .guideOwnerSecurityRights),
    Comparison(
        "root execve's a 0644 file", .root, .execute, "/g/plain",
        macos: .deny(.EACCES, .mode, .execNeedsXBit), guide: .allow(.root, .guideRootExecutesAnything),
        guideRule: .guideRootExecutesAnything),
    Comparison(
        "bob execve's a 0644 file whose ACE allows him execute", .bob, .execute, "/g/aclx",
        macos: .deny(.EACCES, .mode, .execNeedsXBit), guide: .allow(.acl, .guideACLExecuteWithoutX),
        guideRule: .guideACLExecuteWithoutX),
    Comparison(
        "owner sets attributes on her 0444 file", .alice, .writeattr, "/g/ro444",
        macos: .allow(.ownership, .ownerWriteAttr), guide: .deny(.EACCES, .mode, .guideNoOwnerWriteAttr),
        guideRule: .guideNoOwnerWriteAttr),
    Comparison(
        "writesecurity delegate sets uchg on someone else's file", .bob, .chflags, "/g/wsec", flags: .userImmutable,
        macos: .allow(.acl, .aclAllowComplete), guide: .deny(.EPERM, .ownership, .guideChflagsOwnerOnly),
        guideRule: .guideChflagsOwnerOnly),
    Comparison(
        "writeattr delegate sets explicit times on someone else's file", .bob, .settimes, "/g/wattr",
        macos: .deny(.EPERM, .ownership, .settimesNotOwner), guide: .allow(.acl, .aclAllowComplete),
        guideRule: .guideSettimesByWriteAttr),
    Comparison(
        "root writes a 0000 file (same answer, different rule)", .root, .write, "/g/zero",
        macos: .allow(.root, .rootAllowed), guide: .allow(.root, .guideRootAfterFlags),
        guideRule: .guideRootAfterFlags)
]

@Suite("guide vs macos")
struct GuideComparisonTests {
    @Test("G2–G10 every guide.* difference: the same request under macos and under guide", arguments: comparisons)
    func compare(_ c: Comparison) {
        check(c.row, semantics: .macos, expect: c.macos)
        let g = check(c.row, semantics: .guide, expect: c.guide)
        #expect(g.trace.contains { $0.rule == c.guideRule }, "guide trace records \(c.guideRule.rawValue)")
    }

    @Test("G2–G10 each guide.* rule id named in RuleID has a comparison row")
    func coverage() {
        let covered = Set(comparisons.map(\.guideRule.rawValue))
        for r in RuleID.allCases where r.rawValue.hasPrefix("guide.") {
            #expect(covered.contains(r.rawValue), "no comparison for \(r.rawValue)")
        }
    }
}

@Suite("guide order of ACEs")
struct GuideOrderTests {
    /// `isCanonical` is a one-pass check; it must agree with building the guide's order.
    @Test("isCanonical agrees with guideOrder on every ACL of up to 5 entries of the 4 kinds")
    func canonicalAgrees() {
        let kinds: [ACE] = [
            ACE(subject: .everyone, kind: .deny, rights: .readData),
            ACE(subject: .everyone, kind: .allow, rights: .readData),
            ACE(subject: .everyone, kind: .deny, rights: .readData, flags: .inherited),
            ACE(subject: .everyone, kind: .allow, rights: .readData, flags: .inherited)
        ]
        var canonical = 0, total = 0
        for length in 0...5 {
            var counter = Array(repeating: 0, count: length)
            while true {
                let acl = ACL(counter.map { kinds[$0] })
                #expect(acl.isCanonical == (acl.guideOrder == Array(acl.entries.indices)), "\(counter)")
                if acl.isCanonical { canonical += 1 }
                total += 1
                var i = 0
                while i < length { counter[i] += 1; if counter[i] < kinds.count { break }; counter[i] = 0; i += 1 }
                if i == length { break }
            }
        }
        // Both answers occur.
        #expect(canonical > 0 && canonical < total)
    }
}
