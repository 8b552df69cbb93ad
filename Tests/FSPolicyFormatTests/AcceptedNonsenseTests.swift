import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

/// Issue 13, "accepted nonsense": files the loader used to accept, or reported in the wrong place.
@Suite("Hostile input: the loader refuses nonsense")
struct AcceptedNonsenseTests {
    static func errors(_ text: String) -> [Diagnostic] {
        PolicyLoader.load(text: text, file: "t.yaml").diagnostics.sorted.filter { $0.severity == .error }
    }

    @Test func groupCyclesThroughOtherGroups() {
        let e = Self.errors(
            "fspolicy: 1\ngroups:\n  a: {gid: 701, groups: [b]}\n  b: {gid: 702, groups: [c]}\n  c: {gid: 703, groups: [a]}\ntree:\n  /: {type: dir}\n")
        #expect(e.count == 1)
        #expect(e.first?.code == "group-cycle")
        #expect(e.first?.message == "groups contain each other in a cycle: `a` → `b` → `c` → `a`")
        #expect(e.first?.location.line == 5)
        // A chain without a cycle, and a diamond, are fine.
        #expect(
            Self.errors(
                "fspolicy: 1\ngroups:\n  a: {gid: 701, groups: [b, c]}\n  b: {gid: 702, groups: [d]}\n  c: {gid: 703, groups: [d]}\n  d: {gid: 704}\ntree:\n  /: {type: dir}\n"
            ).isEmpty)
    }

    @Test func idOfMinusOneIsRefused() {
        let e = Self.errors(
            "fspolicy: 1\nsemantics: linux\nusers:\n  bob: {uid: 4294967295}\ngroups:\n  g: {gid: 4294967295}\ntree:\n  /: {type: dir}\n  /a: {owner: 4294967295}\n  /b: {group: 4294967295}\n  /c: {acl: [\"user::rw-\", \"user:4294967295:r--\", \"group::r--\", \"mask::r--\", \"other::r--\"], mode: \"0644\"}\n"
        )
        #expect(e.map(\.location.line) == [4, 6, 9, 10, 11], "\(e.map(\.rendered))")
        #expect(e.contains { $0.message.contains("that is (uid_t)-1") })
        // 4294967294 is an id like any other.
        #expect(Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  /a: {owner: 4294967294, group: 4294967294}\n").isEmpty)
        #expect(numericID("4294967295") == nil && numericID("+5") == nil && numericID(" 5") == nil && numericID("5") == 5)
    }

    @Test("a user or group whose entry is refused is not reported again as unknown wherever it is used")
    func brokenDeclarationsAreReportedOnce() {
        let e = Self.errors(
            """
            fspolicy: 1
            semantics: linux
            users:
              alice: {uid: -5}
              bob: {uid: 1001}
              carol: {uid: 1001, group: ops}
            groups:
              ops: {gid: 99999999999999999999}
              staff: {gid: 50, members: [alice, carol]}
            tree:
              /srv: {type: dir, owner: alice, group: ops, mode: "0755"}
              /srv/b: {owner: carol, group: root, mode: "0644"}
              /srv/c: {owner: dave, group: root, mode: "0644"}
            expect:
              - {as: alice, op: read, path: /srv/b, result: allow}

            """)
        // The three bad entries, and the one name never declared.
        #expect(e.map(\.location.line) == [4, 6, 8, 13], "\(e.map(\.rendered))")
        #expect(e.last?.message == "unknown user `dave` in `owner` of `/srv/c`")
    }

    @Test("a quiz question must ask about one user: `allowed` or `state` with `quiz: true` is an error, as a quantified one is")
    func quizAsksOneUser() {
        let head = "fspolicy: 1\nsemantics: linux\nusers:\n  bob: {uid: 1001}\ntree:\n  /f: {owner: bob, mode: \"0644\"}\nexpect:\n"
        for (entry, what) in [
            ("{op: read, path: /f, allowed: [root, bob], quiz: true}", "an `allowed` list"),
            ("{as: \"*\", op: read, path: /f, result: allow, quiz: true}", "a quantified expectation")
        ] {
            let e = Self.errors(head + "  - " + entry + "\n")
            #expect(e.map(\.code) == ["conflicting-keys"] && e.first?.message == "\(what) cannot be a quiz question", "\(e.map(\.rendered))")
        }
    }

    @Test("`after: N` counts a step that was refused: only the step's own error, not a wrong count")
    func afterCountsRefusedSteps() {
        let e = Self.errors(
            """
            fspolicy: 1
            semantics: linux
            users:
              bob: {uid: 1001}
            tree:
              /f: {owner: bob, mode: "0644"}
            steps:
              - {as: bob, op: chmod, path: /f, mode: "99"}
            expect:
              - {as: bob, op: read, path: /f, result: allow, after: 1}
              - {as: bob, op: read, path: /f, result: allow, after: 3}

            """)
        #expect(e.map(\.location.line) == [8, 11], "\(e.map(\.rendered))")
        #expect(e.last?.message == "`after: 3` but the file has 1 step(s)")
    }

    @Test func oneCanonicalSpellingPerName() {
        let p = PolicyLoader.load(text: "fspolicy: 1\ntree:\n  /: {type: dir}\n  \"/x\\tb\": {}\n  '/x\\011b': {}\n", file: "t.yaml")
        let e = p.diagnostics.sorted.filter { $0.severity == .error }
        #expect(e.count == 1 && e.first?.code == "duplicate-path" && e.first?.location.line == 5, "\(e.map(\.rendered))")
        let q = PolicyLoader.load(text: "fspolicy: 1\ntree:\n  /: {type: dir}\n  \"/x\\tb\\u0085\\u202E\": {}\n", file: "t.yaml")
        #expect(q.diagnostics.sorted.isEmpty)
        #expect(q.world.lookup("/x\\011b\\302\\205\\342\\200\\256") != nil)
    }

    @Test func trailingSlashOnlyOnDirectories() {
        let e = Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  /f/: {type: file}\n  /d/: {}\n  /s/: {mode: \"lrwxrwxrwx\", target: /d}\n")
        #expect(e.map(\.location.line) == [4, 6], "\(e.map(\.rendered))")
        #expect(e.first?.code == "not-a-directory" && e.first?.message.contains("ENOTDIR") == true)
        let p = PolicyLoader.load(text: "fspolicy: 1\ntree:\n  /: {type: dir}\n  /d/: {}\n", file: "t.yaml")
        #expect(p.world.lookup("/d").map { p.world[$0].type } == .dir)
    }

    @Test func namesNoACECanName() {
        let e = Self.errors(
            "fspolicy: 1\nusers:\n  \"\": {uid: 600}\n  \"a:b\": {uid: 601}\n  \"c d\": {uid: 602}\n  \"e\\u001b\": {uid: 603}\ngroups:\n  \"x,y\": {gid: 800}\n  \"123\": {gid: 801}\ntree:\n  /: {type: dir}\n"
        )
        #expect(e.map(\.location.line) == [3, 4, 5, 6, 8, 9], "\(e.map(\.rendered))")
        #expect(e.allSatisfy { $0.code == "bad-name" })
        #expect(PrincipalName.problem("bob.smith-2_x") == nil)
    }

    @Test func nameLongerThanNameMax() {
        let long = String(repeating: "a", count: 256)
        let e = Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  /\(long): {}\n  /\(long.dropLast()): {}\n")
        #expect(e.count == 1 && e.first?.code == "limit" && e.first?.location.line == 4, "\(e.map(\.rendered))")
        // Escapes count as the bytes they stand for: 255 bytes written as 1,020 characters.
        #expect(Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  '/\(String(repeating: "\\377", count: 255))': {}\n").isEmpty)
    }

    @Test func nulReportedWhereItIs() {
        let e = Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  /abc\u{0}def: {}\n")
        #expect(e.count == 1)
        #expect(e.first?.location.line == 4 && e.first?.location.column == 7, "\(e.map(\.rendered))")
        #expect(e.first?.message.contains("U+0000") == true)
    }

    @Test func duplicateKeyReportedAtItsSecondOccurrence() {
        var e = Self.errors("fspolicy: 1\ntree:\n  /: {type: dir}\n  /a: {owner: root, mode: \"0644\", owner: root}\n")
        #expect(e.first?.code == "duplicate-key")
        #expect(e.first?.location.line == 4 && e.first?.location.column == 35, "\(e.map(\.rendered))")
        #expect(e.first?.message.contains("first at line 4") == true)
        e = Self.errors("fspolicy: 1\nusers:\n  bob:\n    uid: 501\n    uid: 502\ntree:\n  /: {type: dir}\n")
        #expect(e.first?.location.line == 5 && e.first?.location.column == 5, "\(e.map(\.rendered))")
    }
}
