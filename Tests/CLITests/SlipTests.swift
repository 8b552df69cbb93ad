import Foundation
import Testing
import FSPolicy

/// The small things a new user met on the first day (issue 17): each is held by a test here.
@Suite("First-day slips: messages, counts, hints and help that cannot drift")
struct SlipTests {
    /// Writes `text` to a temporary policy file, runs `body` with its path, and removes it.
    func withPolicy<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-slip-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    static let one = """
        fspolicy: 1
        users: {bob: {uid: 501}}
        tree:
          /x: {type: dir, owner: bob, mode: "0755"}
          /x/f: {owner: bob, mode: "0644"}
        expect:
          - {as: bob, op: read, path: /x/f, result: allow}

        """

    @Test("one expectation is counted in the singular, several in the plural")
    func plural() throws {
        try withPolicy(Self.one) { path in
            let r = try fspolicy(["check", path])
            #expect(r.stdout.contains(": 1 expectation, 1 passed, 0 failed"), "\(r.stdout)")
            let v = try fspolicy(["validate", path])
            #expect(v.stdout.contains("(1 expectation, "), "\(v.stdout)")
            let two = try fspolicy(["check", path, path])
            #expect(two.stdout.contains("total: 2 expectations, 2 passed"), "\(two.stdout)")
        }
    }

    @Test("check on an invalid file prints nothing on stdout, the error on stderr, and exits 3")
    func invalidPrintsNothing() throws {
        try withPolicy("fspolicy: 1\nusers: {bob: {uid: 5}}\nexpect:\n  - {as: bob, op: read, path: x, result: allow}\n") { path in
            let r = try fspolicy(["check", path])
            #expect(r.status == 3)
            #expect(r.stdout.isEmpty, "stdout: \(r.stdout.debugDescription)")
            #expect(r.stderr.contains(": error: "))
        }
    }

    @Test(
        "an op word from elsewhere gets the op word that does the same",
        arguments: [
            ("remove", "delete"), ("rm", "unlink"), ("del", "delete"), ("mv", "rename"), ("ls", "list"),
            ("openat", "open"), ("dlete", "delete"), ("exec", "execute")
        ])
    func opSynonyms(_ c: (String, String)) throws {
        let text = "fspolicy: 1\nusers: {bob: {uid: 5}}\nexpect:\n  - {as: bob, op: \(c.0), path: /x, result: allow}\n"
        try withPolicy(text) { path in
            let r = try fspolicy(["validate", path])
            #expect(r.status == 3)
            #expect(r.stderr.contains("unknown operation `\(c.0)`"), "\(r.stderr)")
            #expect(r.stderr.contains("did you mean `\(c.1)`?"), "\(r.stderr)")
        }
        #expect(Operation.suggestion(for: c.0) == c.1)
    }

    @Test("rights without a comma are refused with the canonical form; fmt writes it; `read, write` is accepted")
    func aceWithoutComma() throws {
        let bad = """
            fspolicy: 1
            users: {bob: {uid: 501}}
            tree:
              /x: {type: dir, owner: bob, mode: "0755", acl: ["user:bob allow read write"]}

            """
        try withPolicy(bad) { path in
            let r = try fspolicy(["validate", path])
            #expect(r.status == 3)
            #expect(r.stderr.contains("rights must be separated by commas"), "\(r.stderr)")
            #expect(r.stderr.contains("write `read,write`"), "\(r.stderr)")
            let f = try fspolicy(["fmt", "--stdout", path])
            #expect(f.status == 0)
            #expect(f.stdout.contains("- \"user:bob allow read,write\""), "\(f.stdout)")
            #expect(!f.stdout.contains("read write"))
        }
        try withPolicy(bad.replacingOccurrences(of: "read write", with: "read, write")) { path in
            #expect(try fspolicy(["validate", path]).status == 0)
            let f = try fspolicy(["fmt", "--stdout", path])
            #expect(f.stdout.contains("\"user:bob allow read,write\""), "\(f.stdout)")
        }
    }

    @Test("a name that does not exist, or that exists, is said in words in the trace and the one line")
    func lookupWords() throws {
        try withPolicy(Self.one) { path in
            let missing = try fspolicy(["explain", path, "--as", "bob", "--op", "read", "/x/new"])
            #expect(missing.stdout.contains("deny   /x/new does not exist  [traversal.not-found]"), "\(missing.stdout)")
            let deep = try fspolicy(["can", path, "--as", "bob", "--op", "read", "/x/gone/f"])
            #expect(deep.stdout == "deny ENOENT (traversal: /x/gone does not exist)\n", "\(deep.stdout)")
            let exists = try fspolicy(["explain", path, "--as", "bob", "--op", "create", "/x/f"])
            #expect(exists.stdout.contains("deny   /x/f exists  [traversal.exists]"), "\(exists.stdout)")
            for r in [missing, exists] {
                #expect(!r.stdout.contains("deny   search"), "a lookup result reads as a refused search: \(r.stdout)")
            }
            let json = try fspolicy(["can", path, "--as", "bob", "--op", "read", "/x/new", "--format", "json"])
            #expect(json.stdout.contains("\"kind\": \"missing\""), "\(json.stdout)")
        }
    }

    @Test("a missed question sends the learner to its topic: 02/5 to P1 (search), not M11 (the group bits that decide it)")
    func quizTopic() throws {
        // 02's right answers are n y n n y; answering q5 wrongly.
        let r = try fspolicy(["quiz", "fixtures/exercises/02-search-on-every-ancestor", "--answers", "nynnn"])
        let topics = r.stdout.components(separatedBy: "Topics to revisit:").last ?? ""
        #expect(topics.contains("  P1   search (x) on every directory of the path"), "\(topics)")
        #expect(!topics.contains("M11"), "\(topics)")
        #expect(topics.contains("question 5"), "\(topics)")
    }

    @Test("`topic` must be a known rule number, on a quiz question")
    func topicChecked() throws {
        let base = "fspolicy: 1\nusers: {bob: {uid: 5}}\ntree:\n  /x: {type: dir}\nexpect:\n  - {as: bob, op: list, path: /x, result: allow, "
        try withPolicy(base + "quiz: true, topic: P9}\n") { path in
            let r = try fspolicy(["validate", path])
            #expect(r.status == 3 && r.stderr.contains("unknown rule number `P9`"), "\(r.stderr)")
        }
        try withPolicy(base + "topic: P1}\n") { path in
            let r = try fspolicy(["validate", path])
            #expect(r.status == 3 && r.stderr.contains("is not a question"), "\(r.stderr)")
        }
        try withPolicy(base + "quiz: true, topic: P1, hint: h}\n") { path in
            let r = try fspolicy(["validate", path])
            #expect(r.status == 0, "\(r.stderr)")
        }
    }

    @Test("scripts/install puts fspolicy, its manual pages, completions and schema under DESTDIR+PREFIX, and --uninstall removes exactly them")
    func install() throws {
        let dest = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dest) }
        let env = ["DESTDIR": dest.path, "PREFIX": "/usr", "FSPOLICY_BIN": fspolicyBinary()]
        let script = packageRoot.appendingPathComponent("scripts/install").path
        let r = try run(script, [], env: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("to remove it: PREFIX=/usr scripts/install --uninstall"), "\(r.stderr)")
        let root = dest.appendingPathComponent("usr").path
        let expected = [
            "bin/fspolicy", "share/bash-completion/completions/fspolicy", "share/zsh/site-functions/_fspolicy",
            "share/fish/vendor_completions.d/fspolicy.fish", "share/man/man1/fspolicy.1", "share/man/man1/fspolicy-check.1",
            "share/fspolicy/fspolicy-1.schema.json"
        ]
        for f in expected {
            #expect(FileManager.default.fileExists(atPath: root + "/" + f), "missing \(f)")
        }
        let schema = try String(contentsOfFile: root + "/share/fspolicy/fspolicy-1.schema.json", encoding: .utf8)
        #expect(schema == (try fspolicy(["schema"])).stdout, "the installed schema is `fspolicy schema`'s")
        let v = try run(root + "/bin/fspolicy", ["--version"])
        #expect(v.status == 0 && !v.stdout.isEmpty)
        // A file of someone else's in the same prefix survives the uninstall.
        try "keep".write(toFile: root + "/bin/other-tool", atomically: true, encoding: .utf8)
        let u = try run(script, ["--uninstall"], env: env)
        #expect(u.status == 0, "\(u.stderr)")
        let left =
            FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter {
                var isDir: ObjCBool = false
                return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDir) && !isDir.boolValue
            } ?? []
        #expect(left == ["bin/other-tool"], "left after --uninstall: \(left)")
        let bad = try run(script, [], env: ["PREFIX": "relative/dir", "FSPOLICY_BIN": fspolicyBinary()])
        #expect(bad.status == 64 && bad.stderr.contains("PREFIX must be an absolute path"))
    }

    @Test("the README keeps two set-up commands and says how to call fspolicy before the tour's first command")
    func readmeFirstHour() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let setup =
            readme.components(separatedBy: "## Two commands").last?.components(separatedBy: "```sh\n").dropFirst().first?
            .components(separatedBy: "```").first ?? ""
        let commands = setup.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(commands.count == 2 && commands[0].hasPrefix("scripts/example") && commands[1].hasPrefix("scripts/test"), "\(commands)")
        let firstCommand = readme.range(of: "$ fspolicy ")!.lowerBound
        let before = readme[..<firstCommand]
        for needed in [
            "~/.local/bin", "/usr/local/bin", "scripts/install --uninstall", "export PATH=\"$HOME/.local/bin:$PATH\"",
            ".build/release/fspolicy"
        ] {
            #expect(before.contains(needed), "the README says `\(needed)` only after the tour starts, or not at all")
        }
        #expect(readme.contains("## Troubleshooting"))
        for topic in ["libacl1-dev", "needs root", "Not Linux"] { #expect(readme.contains(topic), "Troubleshooting lacks \(topic)") }
    }

    @Test("docs/policy-format.md no longer calls working features unsupported")
    func formatDocCurrent() throws {
        let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/policy-format.md"), encoding: .utf8)
        for stale in [
            "*Not supported yet.*", "today it has no effect on decisions", "and they are not supported yet",
            "it does not change today's decisions"
        ] {
            #expect(!doc.contains(stale), "docs/policy-format.md still says: \(stale)")
        }
    }

    @Test("docs/cli.md describes fmt's --format, which fmt has")
    func fmtFormat() throws {
        let r = try fspolicy(["fmt", "--check", "--format", "json", "fixtures/examples/team-share/policy.yaml"])
        #expect(r.status == 0 && r.stdout.contains("\"changed\": false"), "\(r.stdout)\(r.stderr)")
        let cli = try String(contentsOf: packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        #expect(cli.contains("fspolicy fmt [--check] [--format text|json]"))
        #expect(!cli.contains("has no `--format`"))
    }

    @Test("the op list in `can --help` and docs/cli.md is every request op word")
    func opListsComplete() throws {
        let help = try fspolicy(["can", "--help"]).stdout.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: .punctuationCharacters) }
        let cli = try String(contentsOf: packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let opRow = cli.split(separator: "\n").first { $0.hasPrefix("| `--op OP`") }.map(String.init) ?? ""
        let docWords = Set(opRow.split(whereSeparator: { $0 == " " || $0 == "`" || $0 == "," || $0 == "." }).map(String.init))
        for w in Operation.requestWords {
            #expect(help.contains(w), "`can --help` does not list `\(w)`")
            #expect(docWords.contains(w), "docs/cli.md's --op row does not list `\(w)`")
        }
    }
}
