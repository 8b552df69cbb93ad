import Foundation
import Testing

/// Keychain questions through the command line (docs/keychain.md, docs/cli.md): answers,
/// exit codes, explanations, check, diagnostics with file:line:column, and hostile input.
@Suite("Keychain questions on the command line")
struct KeychainCommandTests {
    static let example = "fixtures/examples/keychain/policy.yaml"
    static let notify = ["--as", "com.example.Chat.Notify", "--keychain", "copy", "--service", "chat.example.com"]

    /// A policy file in a fresh folder, removed by the caller with `cleanup`.
    static func write(_ text: String) throws -> (path: String, cleanup: () -> Void) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-keychain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let f = dir.appendingPathComponent("policy.yaml")
        try Data(text.utf8).write(to: f)
        return (f.path, { try? FileManager.default.removeItem(at: dir) })
    }

    static let apps = """
        fspolicy: 1
        users:
          mobile: {uid: 501}
        apps:
          com.example.App:
            user: mobile
            platform: ios
            team: T1
            entitlements: {keychain-access-groups: [T1.shared]}

        """

    @Test("can: the locked WhenUnlocked token is -25308 (exit 2), the AfterFirstUnlock key is returned (exit 0)")
    func canAnswers() throws {
        let denied = try fspolicy(["can", Self.example] + Self.notify + ["--account", "alice"])
        #expect(denied.status == 2)
        #expect(denied.stdout.hasPrefix("deny errSecInteractionNotAllowed (-25308)"))
        let allowed = try fspolicy(["can", Self.example] + Self.notify + ["--account", "push"])
        #expect(allowed.status == 0)
        #expect(allowed.stdout.hasPrefix("allow errSecSuccess (0): #2 genp"))
        let json = try fspolicy(["can", Self.example, "--format", "json"] + Self.notify + ["--account", "alice"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(doc["status"] as? Int == -25308)
        #expect(doc["statusName"] as? String == "errSecInteractionNotAllowed")
        #expect(doc["layer"] as? String == "keychain")
        #expect((doc["trace"] as? [[String: Any]])?.last?["number"] as? String == "K7")
    }

    @Test("explain: the keychain layer's steps in securityd's order, each with its rule; --op or a path is refused")
    func explainSteps() throws {
        let r = try fspolicy(["explain", Self.example] + Self.notify + ["--account", "alice"])
        #expect(r.status == 2)
        let numbers = r.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("  keychain  ") else { return nil }
            return line.split(separator: " ").first { $0.hasPrefix("K") }.map(String.init)
        }
        #expect(numbers == ["K1", "K5", "K9", "K7"])
        #expect(r.stdout.contains("Source: Security framework"))
        let both = try fspolicy(["explain", Self.example, "--op", "read", "/x"] + Self.notify)
        #expect(both.status != 0 && both.stderr.contains("takes no `--op` or path"))
    }

    @Test("a scenario in the history: add, lock, read, restore to a new phone, read; check counts it and fails a wrong status")
    func scenario() throws {
        let text =
            Self.apps + """
                keychain:
                  history:
                    - add: {app: com.example.App, service: s, account: a, accessible: afterFirstUnlockThisDeviceOnly}
                      status: errSecSuccess
                    - add: {app: com.example.App, service: s, account: b}
                      status: errSecSuccess
                    - lock
                    - copy: {app: com.example.App, service: s, account: a}
                      status: errSecSuccess
                    - copy: {app: com.example.App, service: s, account: b}
                      status: errSecInteractionNotAllowed
                    - restore: {backup: encrypted, device: new}
                    - copy: {app: com.example.App, service: s, account: a}
                      status: errSecItemNotFound
                    - copy: {app: com.example.App, service: s, account: b}
                      status: errSecSuccess
                      items: 1
                  expect:
                    - delete: {app: com.example.App, service: s}
                      status: errSecSuccess
                      items: 1

                """
        let (path, cleanup) = try Self.write(text)
        defer { cleanup() }
        let ok = try fspolicy(["check", path])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("keychain: 7 expectations, 7 passed, 0 failed"))
        // The same file with one status wrong: exit 1, FAIL with its file:line and the trace.
        let (bad, cleanupBad) = try Self.write(text.replacingOccurrences(of: "status: errSecItemNotFound", with: "status: errSecSuccess"))
        defer { cleanupBad() }
        let r = try fspolicy(["check", bad])
        #expect(r.status == 1)
        #expect(r.stdout.contains("FAIL \(bad):22: com.example.App SecItemCopyMatching genp account=a service=s"))
        // The finding: a ThisDeviceOnly item now expected after the restore (FSL024).
        #expect(r.stdout.contains("\(bad):22:7: warning: `com.example.App` expects #1 genp account=a service=s after a restore onto a new device"))
        #expect(!ok.stdout.contains("warning:"), "the passing file expects the item to be gone: no finding")
        #expect(r.stdout.contains("actual:   errSecItemNotFound (-25300), 0 items"))
        let junit = try fspolicy(["check", "--format", "junit", bad])
        #expect(junit.stdout.contains("<failure type=\"expectation\""))
        // --after: the state after the first three history steps (two adds, a lock).
        let after = try fspolicy(["can", path, "--after", "3", "--as", "com.example.App", "--keychain", "copy", "--service", "s", "--account", "b"])
        #expect(after.stdout.hasPrefix("deny errSecInteractionNotAllowed"))
        let tooFar = try fspolicy(["can", path, "--after", "99", "--as", "com.example.App", "--keychain", "copy"])
        #expect(tooFar.status == 3 && tooFar.stderr.contains("the keychain history has 8 step(s)"))
    }

    @Test("bad keychain input: file:line:column errors with a hint, never a crash")
    func diagnostics() throws {
        let (path, cleanup) = try Self.write(
            Self.apps + """
                keychain:
                  items:
                    - {class: genp, service: s, accessible: whenUnlokced, group: T1.shared}
                    - {class: key, group: T1.shared}
                    - {class: genp, service: s}
                  history:
                    - lokc
                    - copy: {app: com.example.App, servce: s}
                    - add: {app: com.example.App}
                      status: errSecDuplicate
                    - add: {app: com.example.App}
                      copy: {app: com.example.App}
                    - restore: {backup: tape}

                """)
        defer { cleanup() }
        let r = try fspolicy(["validate", path])
        #expect(r.status == 3)
        #expect(!r.crashed)
        let expected = [
            ("12:45", "unknown accessibility `whenUnlokced`", "did you mean `whenUnlocked`?"),
            ("13:15", "unknown keychain class `key`", "did you mean `keys`?"),
            ("14:7", "a data protection keychain item needs a `group`", nil),
            ("16:7", "unknown keychain event `lokc`", "did you mean `lock`?"),
            ("17:36", "unknown key `servce` in a keychain `copy`", "did you mean `service`?"),
            ("19:15", "unknown OSStatus `errSecDuplicate`", "did you mean `errSecDuplicateItem`?"),
            ("20:7", "a keychain step takes one call, found add and copy", nil),
            ("22:25", "unknown backup kind `tape`", "use one of `encrypted`, `unencrypted`, `iCloud`")
        ]
        for (at, message, help) in expected {
            #expect(r.stderr.contains("\(path):\(at): error: \(message)"), "\(at) \(message)\n\(r.stderr)")
            if let help { #expect(r.stderr.contains(help)) }
        }
        let none = try fspolicy(["can", "fixtures/examples/team-share/policy.yaml", "--as", "alice", "--keychain", "copy"])
        #expect(none.status == 3 && none.stderr.contains("has no `keychain:` section"))
    }

    @Test("hostile names: control codes, newlines and invalid UTF-8 in attributes never reach the terminal raw")
    func hostile() throws {
        let evil = "a\u{1B}[31mred\nsecond\u{7}line\u{202E}"
        let (path, cleanup) = try Self.write(
            Self.apps + """
                keychain:
                  items:
                    - {class: genp, service: "a\\e[31mred\\nsecond\\aline", account: x, group: T1.shared}

                """)
        defer { cleanup() }
        for args in [
            ["can", path, "--as", "com.example.App", "--keychain", "copy", "--service", evil],
            ["can", path, "--as", "com.example.App", "--keychain", "copy", "--account", "x"],
            ["explain", path, "--as", "com.example.App", "--keychain", "copy", "--account", "x"],
            ["who", path, "--keychain", "copy", "--service", evil]
        ] {
            let r = try fspolicy(args)
            #expect(!r.crashed)
            #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{7}") && !r.stdout.contains("\u{202E}"), "\(args[0]): \(r.stdout)")
            if args[0] == "can" { #expect(r.stdout.split(separator: "\n").count == 1, "one answer, one line: \(r.stdout)") }
        }
        // Invalid UTF-8 in the policy file: an error, not a crash.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-keychain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("p.yaml")
        var bytes = Array((Self.apps + "keychain:\n  items:\n    - {class: genp, service: \"").utf8)
        bytes += [0xFF, 0xFE, 0xC3]
        bytes += Array("\", group: T1.shared}\n".utf8)
        try Data(bytes).write(to: f)
        let r = try fspolicy(["can", f.path, "--as", "com.example.App", "--keychain", "copy"])
        #expect(!r.crashed)
        #expect(r.status == 3)
        #expect(r.stderr.contains("\(f.path):12:31:") && r.stderr.contains("is not valid UTF-8"), "\(r.stderr)")
    }

    @Test(
        "a failed keychain expectation is in every format's totals: the text total, JSON's summary (the last key), a SARIF result at its line and column, JUnit, the report's summary"
    )
    func keychainFailuresCount() throws {
        let text = try String(contentsOfFile: packageRoot.appendingPathComponent(Self.example).path, encoding: .utf8)
        let wrong = text.replacingOccurrences(of: "status: errSecItemNotFound", with: "status: errSecAuthFailed")
        #expect(wrong != text)
        let (file, cleanup) = try Self.write(wrong)
        defer { cleanup() }
        let line = 1 + (wrong.components(separatedBy: "\n").firstIndex { $0.contains("another team's app finds nothing") } ?? -1)
        let share = "fixtures/examples/team-share/policy.yaml"
        let t = try fspolicy(["check", file, share])
        #expect(t.status == 1)
        #expect(t.stdout.contains("total: 20 expectations, 19 passed, 1 failed\n"), "\(t.stdout)")
        let j = try fspolicy(["check", "--format", "json", file])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let summary = try #require(doc["summary"] as? [String: Int])
        #expect(summary["expectations"] == 4 && summary["failed"] == 1 && summary["passed"] == 3, "\(summary)")
        #expect(j.stdout.hasSuffix("  \"summary\": {\n    \"expectations\": 4,\n    \"passed\": 3,\n    \"failed\": 1,\n    \"unknown\": 0\n  }\n}\n"))
        let sarif = try fspolicy(["check", "--format", "sarif", file])
        #expect(sarif.status == 1)
        let runs = try #require((try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]])
        let results = try #require(runs.first?["results"] as? [[String: Any]])
        #expect(results.count == 1)
        let region = (((results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Int])
        #expect(region?["startLine"] == line && (region?["startColumn"] ?? 0) > 0, "\(results)")
        #expect(results.first?["ruleId"] as? String == "expectation-failed")
        let junit = try fspolicy(["check", "--format", "junit", file])
        #expect(junit.stdout.contains("<testsuites name=\"fspolicy\" tests=\"4\" failures=\"1\""), "\(junit.stdout.prefix(300))")
        #expect(junit.stdout.contains(">\(file):\(line):"), "the failure says where, as a file expectation's does")
        let dir = (file as NSString).deletingLastPathComponent
        let r = try fspolicy(["report", file, "-o", dir + "/r.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
        #expect(page.contains("<li>keychain expectations: 4, 3 passed, <strong>1 failed</strong></li>"))
    }

    @Test("report: a Keychain section with the items and every step's answer, names escaped")
    func report() throws {
        let (path, cleanup) = try Self.write(
            Self.apps + """
                keychain:
                  items:
                    - {class: genp, service: "<script>\\e", account: x, group: T1.shared}
                  expect:
                    - copy: {app: com.example.App, account: x}
                      status: errSecSuccess

                """)
        defer { cleanup() }
        let out = path + ".html"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try fspolicy(["report", path, "--output", out])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try String(contentsOfFile: out, encoding: .utf8)
        let section = try #require(page.range(of: "<section class=\"list\" id=\"keychain\"").map { String(page[$0.lowerBound...]) })
        #expect(section.contains("&lt;script&gt;") && !section.contains("<script>\u{1B}"))
        #expect(section.contains("errSecSuccess (0)") && section.contains("K16 keychain.matched") && section.contains("passed"))
    }

    @Test("large inputs: 20,000 items and 20,000 history steps, answered in seconds")
    func large() throws {
        var text = Self.apps + "keychain:\n  items:\n"
        for i in 0..<20_000 { text += "    - {class: genp, service: s, account: a\(i), group: T1.shared, accessible: afterFirstUnlock}\n" }
        text += "  history:\n"
        for i in 0..<10_000 { text += i % 2 == 0 ? "    - lock\n" : "    - unlock\n" }
        for _ in 0..<10_000 { text += "    - reboot\n" }
        let (path, cleanup) = try Self.write(text)
        defer { cleanup() }
        let start = Date()
        let r = try fspolicy(["can", path, "--as", "com.example.App", "--keychain", "copy", "--service", "s", "--limit", "all", "--format", "json"])
        #expect(r.status == 2, "before the first unlock, class C rows stop the call")
        #expect(r.stdout.contains("\"statusName\": \"errSecInteractionNotAllowed\""))
        let d = try fspolicy(["can", path, "--after", "9999", "--as", "com.example.App", "--keychain", "delete", "--service", "s"])
        #expect(d.status == 0 && d.stdout.contains("#20000 genp"))
        #expect(Date().timeIntervalSince(start) < 60)
    }
}
