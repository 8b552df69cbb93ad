import FSPolicy
import Testing

@Suite("File name patterns (NameMatcher): exact names, suffixes and globs")
struct NameMatcherTests {
    @Test("the first matching pattern is returned; exact, suffix and glob patterns each match the whole name")
    func kinds() {
        let m = NameMatcher(["id_rsa", "*.pem", "secret?.txt", "*key*"])
        #expect(m.match("id_rsa") == "id_rsa")
        #expect(m.match("cacert.pem") == "*.pem")
        #expect(m.match(".pem") == "*.pem")
        #expect(m.match("secret1.txt") == "secret?.txt")
        #expect(m.match("secret12.txt") == nil)
        #expect(m.match("monkeys") == "*key*")
        #expect(m.match("id_rsa.pub") == nil)
        #expect(m.match("") == nil)
        #expect(m.firstMatch(Array("a.pem".utf8)) == 1)
        #expect(m.firstMatch(Array("x".utf8)) == nil)
    }

    @Test("lint's default sensitive names and the names scan reads are one list, matched alike")
    func sensitiveDefaults() {
        let m = NameMatcher(ContentKind.sensitiveNames)
        for name in [
            "id_rsa", "cacert.pem", "server.key", ".env", "shadow", "gshadow", "db.kdbx", "login.keychain-db",
            "id_rsa.pub", "pem", "shadow.bak", "env", "notes.txt", "", "a.keychain", ".netrc"
        ] {
            #expect((m.match(name) != nil) == ContentKind.isSensitiveName(Array(name.utf8)), "\(name)")
        }
    }
}
