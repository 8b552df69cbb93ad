import Foundation
import Testing

/// `explain --compare`'s sentence says what each rule set answered: never an errno the table
/// beside it contradicts (docs/cli.md, `--compare`).
@Suite("Explain: the --compare sentence")
struct ExplainCompareTests {
    /// alice owns a file whose ACL denies her writeattr: macOS refuses settimes (EPERM: the
    /// operation turns the ACL's EACCES into EPERM), Linux lets the owner set times.
    static let ownerDenied = """
        fspolicy: 1
        semantics: macos
        users:
          alice: {uid: 501}
          bob: {uid: 502}
        tree:
          /Users/alice/f.txt:
            owner: alice
            mode: "0644"
            acl: ["user:alice deny writeattr", "user:bob allow write"]
        """

    static func tempPolicy(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-compare-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The errnos a text names, as words.
    static func errnos(_ text: String) -> Set<String> {
        let known: Set<String> = ["EACCES", "EPERM", "EROFS", "ENOENT", "ENOTDIR", "EXDEV", "ELOOP", "EEXIST", "EISDIR", "ENOTEMPTY", "EINVAL", "EBUSY"]
        return Set(text.split(whereSeparator: { !$0.isLetter }).map(String.init).filter { known.contains($0) })
    }

    @Test("the owner's settimes denied by an ACE on macOS: each rule set's own answer and layer, no EACCES")
    func ownerSettimes() throws {
        let file = try Self.tempPolicy(Self.ownerDenied)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try fspolicy(["explain", file.path, "--as", "alice", "--op", "settimes", "/Users/alice/f.txt", "--compare"])
        #expect(r.status == 2, "\(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("Difference:") }.map(String.init), "\(r.stdout)")
        #expect(r.stdout.contains("  macos  deny EPERM "), "\(r.stdout)")
        #expect(r.stdout.contains("  linux  allow "), "\(r.stdout)")
        #expect(line.contains("linux allows in the ownership layer"), "\(line)")
        #expect(line.contains("macos and guide deny (EPERM) in the acl layer"), "\(line)")
        #expect(Self.errnos(line) == ["EPERM"], "\(line)")
    }

    @Test("over several requests, the sentence names only errnos some rule set answered")
    func onlyAnsweredErrnos() throws {
        let file = try Self.tempPolicy(Self.ownerDenied)
        defer { try? FileManager.default.removeItem(at: file) }
        let chmod = ["chmod", "--mode", "0600"], chown = ["chown", "--owner", "bob"]
        let asks: [(String, String, [[String]], String)] = [
            (file.path, "alice", [["settimes"], chmod, ["write"], ["read"], chown], "/Users/alice/f.txt"),
            (file.path, "bob", [["settimes"], chmod, ["write"], ["delete"]], "/Users/alice/f.txt"),
            ("fixtures/docs/locked.yaml", "bob", [["write"], ["settimes"], chmod, ["delete"]], "/Users/alice/locked.txt"),
            ("fixtures/exercises/04-sticky-bit/policy.yaml", "bob", [["delete"], ["rename", "--to", "/tmp/bob2.log"], ["write"]], "/tmp/alice.log")
        ]
        var sentences = 0
        for (policy, who, ops, path) in asks {
            for op in ops {
                let r = try fspolicy(["explain", policy, "--as", who, "--op"] + op + [path, "--compare", "--format", "json"])
                #expect(!r.crashed && r.stderr.isEmpty, "\(policy) \(who) \(op): \(r.stderr)")
                let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
                let answered = Set((doc["decisions"] as? [[String: Any]] ?? []).compactMap { $0["errno"] as? String })
                for s in doc["disagreements"] as? [String] ?? [] {
                    sentences += 1
                    #expect(Self.errnos(s).isSubset(of: answered), "\(policy) \(who) \(op): answered \(answered.sorted()), but: \(s)")
                }
            }
        }
        #expect(sentences >= 5, "\(sentences) sentences compared")
    }
}
