import Foundation
import Testing

/// What a scan did not read is `unknown` in every command (docs/semantics.md P6), over
/// fixtures/examples/unread: a folder the scan could not open and a link leaving it.
@Suite("Unknown answers in every command")
struct UnknownTests {
    static let world = "fixtures/examples/unread/policy.yaml"
    static let mixed = "fixtures/unknown/check.yaml"

    @Test("can and explain exit 4 with the unread folder named; a refusal on the way stays a denial")
    func canAndExplain() throws {
        let r = try run(fspolicyBinary(), ["can", UnknownTests.world, "--as", "alice", "--op", "read", "/srv/private/notes.txt"])
        #expect(r.status == 4)
        #expect(r.stdout.hasPrefix("unknown (traversal: /srv/private/notes.txt is not known: the entries of /srv/private were not read"), "\(r.stdout)")
        let bob = try run(fspolicyBinary(), ["can", UnknownTests.world, "--as", "bob", "--op", "read", "/srv/private/notes.txt"])
        #expect(bob.status == 2 && bob.stdout.hasPrefix("deny EACCES"))
        let e = try run(fspolicyBinary(), ["explain", UnknownTests.world, "--as", "alice", "--op", "read", "/srv/link"])
        #expect(e.status == 4)
        #expect(e.stdout.contains("Answer:   unknown") && e.stdout.contains("[traversal.not-read]"), "\(e.stdout)")
        let j = try run(fspolicyBinary(), ["can", UnknownTests.world, "--as", "alice", "--op", "read", "/srv/link", "--format", "json"])
        #expect(j.stdout.contains("\"result\": \"unknown\"") && j.stdout.contains("\"kind\": \"unread\""))
    }

    @Test("check counts unknown apart: text, JSON, JUnit, SARIF, and exit 4 unless --allow-unknown")
    func check() throws {
        let t = try run(fspolicyBinary(), ["check", UnknownTests.mixed])
        #expect(t.status == 4)
        #expect(t.stdout.hasPrefix("fixtures/unknown/check.yaml: 2 expectations, 1 passed, 0 failed, 1 unknown\nUNKNOWN "), "\(t.stdout)")
        #expect(try run(fspolicyBinary(), ["check", "--allow-unknown", UnknownTests.mixed]).status == 0)
        // A world read whole has no unknown count in its line.
        let plain = try run(fspolicyBinary(), ["check", UnknownTests.world])
        #expect(plain.status == 0 && plain.stdout == "fixtures/examples/unread/policy.yaml: 4 expectations, 4 passed, 0 failed\n")
        let j = try run(fspolicyBinary(), ["check", "--format", "json", UnknownTests.mixed])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let summary = try #require(doc["summary"] as? [String: Int])
        #expect(summary == ["expectations": 2, "passed": 1, "failed": 0, "unknown": 1])
        let x = try run(fspolicyBinary(), ["check", "--format", "junit", UnknownTests.mixed])
        #expect(x.stdout.contains("tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\""), "\(x.stdout)")
        #expect(x.stdout.contains("<error type=\"unknown\""))
        let s = try run(fspolicyBinary(), ["check", "--format", "sarif", UnknownTests.mixed])
        #expect(s.stdout.contains("\"kind\": \"open\"") && s.stdout.contains("\"level\": \"none\""))
    }

    @Test("matrix has an unknown column, access lists unknown and unread apart, who a section of its own")
    func setCommands() throws {
        let m = try run(fspolicyBinary(), ["matrix", UnknownTests.world, "--op", "read"])
        #expect(m.stdout.hasPrefix("path,op,allowed,unknown\n"))
        #expect(m.stdout.contains("/srv/link,read,,root alice bob\n"), "\(m.stdout)")
        #expect(m.stdout.contains("/srv/public/readme.txt,read,everyone,\n"), "every user of the table, written as a set")
        // A world read whole keeps the three columns.
        let full = try run(fspolicyBinary(), ["matrix", "fixtures/examples/audit/after.yaml", "--op", "read"])
        #expect(full.stdout.hasPrefix("path,op,allowed\n"))
        let a = try run(fspolicyBinary(), ["access", UnknownTests.world, "--as", "alice", "--op", "read", "--under", "/srv"])
        #expect(a.stdout.contains("unknown (what decides it was not read): /srv/link\n"), "\(a.stdout)")
        #expect(a.stdout.contains("not read, so not listed: the entries of /srv/private (the scan could not read it)\n"))
        let w = try run(fspolicyBinary(), ["who", UnknownTests.world, "--op", "read", "/srv/link"])
        #expect(w.stdout.contains("unknown:\n  root"), "\(w.stdout)")
    }

    @Test("diff does not count as a change what one side cannot decide")
    func diff() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-unknown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The same world with /srv/private read whole: alice reads notes.txt there.
        let text = try String(contentsOf: packageRoot.appendingPathComponent(UnknownTests.world), encoding: .utf8)
            .replacingOccurrences(of: ", unread: denied}", with: "}\n  \"/srv/private/notes.txt\": {owner: \"alice\", group: \"staff\", mode: \"0640\"}")
        let read = dir.appendingPathComponent("read.yaml").path
        try text.write(toFile: read, atomically: true, encoding: .utf8)
        let r = try run(fspolicyBinary(), ["diff", UnknownTests.world, read, "--op", "read", "--under", "/srv"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("no change") && r.stdout.contains("unknown on one side"), "\(r.stdout)")
    }
}
