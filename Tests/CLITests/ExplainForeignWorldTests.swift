import Foundation
import Testing

/// `explain` of a world read from Linux under the macOS rule sets: gid 12 is the host's group
/// (`man` on Debian), not `everyone`, so nobody is put in it and no false "macos allows, linux
/// denies" appears (fixtures/docs/foreign-gid12.yaml; docs/semantics.md, "Identities on a world
/// from another system").
@Suite("Explain: a world read from Linux under macos and guide")
struct ExplainForeignWorldTests {
    static let file = "fixtures/docs/foreign-gid12.yaml"

    @Test("nobody is not in man (gid 12) under macos, and the answer says why")
    func macosSubject() throws {
        let r = try fspolicy(["explain", Self.file, "--semantics", "macos", "--as", "nobody", "--op", "read", "/var/cache/man/index.db"])
        #expect(!r.crashed && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains("Subject:  nobody (uid 65534; groups nogroup)"), "\(r.stdout)")
        #expect(r.stdout.contains("Answer:   deny EACCES"), "\(r.stdout)")
        #expect(r.stdout.contains("Note: this world was read from Linux, where gid 12 is the group `man`, not macOS's `everyone`"), "\(r.stdout)")
    }

    @Test("explain --compare: the three rule sets agree on the root:man 0660 file")
    func compare() throws {
        let r = try fspolicy(["explain", Self.file, "--compare", "--as", "nobody", "--op", "read", "/var/cache/man/index.db"])
        #expect(r.stdout.contains("macos, guide and linux all agree."), "\(r.stdout)")
        #expect(!r.stdout.contains("groups man"), "\(r.stdout)")
    }

    @Test("a member of man keeps the group's bits under every rule set")
    func member() throws {
        let r = try fspolicy(["explain", Self.file, "--compare", "--as", "man", "--op", "read", "/var/cache/man/index.db"])
        #expect(r.stdout.contains("macos, guide and linux all agree."), "\(r.stdout)")
        #expect(r.stdout.contains("Subject:  man (uid 6; groups man)"), "\(r.stdout)")
    }
}
