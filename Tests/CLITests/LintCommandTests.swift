import Foundation
import Testing

@Suite("lint")
struct LintCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        /// The codes the fixture must produce, with how many findings each (nothing else).
        var codes: [String: Int]
        /// The paths the findings are about (any code).
        var paths: Set<String>
        /// The rule sets the fixture is for (a macOS ACL or an app does not load under linux).
        var ruleSets: Set<String> = ["macos", "guide", "linux"]
        var testDescription: String { fixture }
    }
    static let mac: Set<String> = ["macos", "guide"]

    static let cases: [Case] = [
        Case(fixture: "world-writable-directory", codes: ["FSL001": 1], paths: ["/srv/drop"]),
        Case(fixture: "world-writable-directory.near-miss", codes: [:], paths: []),
        Case(fixture: "world-writable-file", codes: ["FSL002": 1], paths: ["/srv/notes.txt"]),
        Case(fixture: "world-writable-file.near-miss", codes: [:], paths: []),
        Case(fixture: "setid-writable-by-others", codes: ["FSL003": 2, "FSL025": 2], paths: ["/srv/bin/tool", "/srv/opt/helper"]),
        // (the inventory lists the programs all the same)
        Case(fixture: "setid-writable-by-others.near-miss", codes: ["FSL025": 2], paths: ["/srv/bin/tool", "/srv/opt/helper"]),
        // An ACL entry counts as much as a mode bit; a named entry masked to read does not.
        Case(fixture: "setid-writable-by-others.acl", codes: ["FSL003": 1, "FSL025": 2], paths: ["/srv/bin/tool", "/srv/bin/other"]),
        Case(fixture: "setid-on-nosuid-volume", codes: ["FSL004": 1], paths: ["/mnt/usb/tool"]),
        Case(fixture: "setid-on-nosuid-volume.near-miss", codes: ["FSL025": 1], paths: ["/mnt/disk/tool"]),
        // A group write bit on a home, a named ACL entry on a service directory.
        Case(fixture: "home-or-service-dir-writable", codes: ["FSL005": 2], paths: ["/home/alice", "/var/lib/app"]),
        Case(fixture: "home-or-service-dir-writable.near-miss", codes: [:], paths: []),
        Case(fixture: "acl-deny-after-allow", codes: ["FSL006": 1], paths: ["/Shared/plan.txt"], ruleSets: mac),
        Case(fixture: "acl-deny-after-allow.near-miss", codes: [:], paths: [], ruleSets: mac),
        Case(fixture: "acl-inherit-flags-on-file", codes: ["FSL007": 1], paths: ["/Shared/plan.txt"], ruleSets: mac),
        Case(fixture: "acl-inherit-flags-on-file.near-miss", codes: [:], paths: [], ruleSets: mac),
        Case(fixture: "acl-only-inherit-without-target", codes: ["FSL008": 1], paths: ["/Shared"], ruleSets: mac),
        Case(fixture: "acl-only-inherit-without-target.near-miss", codes: [:], paths: [], ruleSets: mac),
        Case(fixture: "acl-everyone-may-write", codes: ["FSL009": 2], paths: ["/Shared", "/Shared/plan.txt"], ruleSets: mac),
        Case(fixture: "acl-everyone-may-write.near-miss", codes: [:], paths: [], ruleSets: mac),
        Case(fixture: "acl-entry-unknown-id", codes: ["FSL010": 1], paths: ["/srv/report.txt"]),
        Case(fixture: "acl-entry-unknown-id.near-miss", codes: [:], paths: []),
        Case(fixture: "unknown-owner", codes: ["FSL011": 2], paths: ["/srv/app", "/srv/app/config.ini"]),
        Case(fixture: "unknown-owner.near-miss", codes: [:], paths: []),
        // A group read bit, a named ACL entry; the near miss: 0600, a key nobody else can
        // reach, an entry masked to nothing, a public key.
        Case(fixture: "sensitive-file-exposed", codes: ["FSL012": 2], paths: ["/home/alice/.ssh/id_ed25519", "/srv/app/.env"]),
        Case(fixture: "sensitive-file-exposed.near-miss", codes: [:], paths: []),
        Case(fixture: "app-findings", codes: ["FSL013": 1, "FSL014": 1, "FSL015": 1, "FSL016": 1, "FSL017": 1], paths: [""], ruleSets: mac),
        Case(fixture: "app-findings.near-miss", codes: [:], paths: [], ruleSets: mac),
        // A suppression of a finding /srv/old does not have; the near miss uses every one.
        Case(fixture: "unused-suppression", codes: ["FSL018": 1], paths: ["/srv/old"]),
        Case(fixture: "unused-suppression.near-miss", codes: [:], paths: []),
        // An entry cut off by a directory only root may search, one masked to nothing; the near
        // miss opens the directory and widens the mask. POSIX entries are analysed under linux.
        Case(fixture: "dead-grant", codes: ["FSL019": 2], paths: ["/srv/vault/notes.txt", "/srv/report.txt"], ruleSets: ["linux"]),
        Case(fixture: "dead-grant.near-miss", codes: [:], paths: []),
        // An allow after a deny of the same right for everyone; an allow below a folder nobody
        // may search. The near miss narrows the deny and grants bob search on the folder.
        Case(fixture: "dead-grant.mac", codes: ["FSL019": 2], paths: ["/Shared/plan.txt", "/Shared/Vault/key.txt"], ruleSets: mac),
        Case(fixture: "dead-grant.mac.near-miss", codes: [:], paths: [], ruleSets: mac),
        // The other bits of a file in a directory only its group may search; the group bits of a
        // file in a directory only its owner may search. The near miss drops the other bits and
        // lets the group search the owner's directory.
        Case(fixture: "dead-mode-class", codes: ["FSL020": 2], paths: ["/srv/team/plan.txt", "/srv/alice/draft.txt"]),
        Case(fixture: "dead-mode-class.near-miss", codes: [:], paths: []),
        // A default ACL on a regular file, in a policy file and in a tar archive; the near miss
        // has it on the directory.
        Case(fixture: "default-acl-on-file", codes: ["FSL021": 1], paths: ["/srv/shared/report.txt"]),
        Case(fixture: "default-acl-on-file.tar", codes: ["FSL021": 1], paths: ["/srv/shared/report.txt"]),
        Case(fixture: "default-acl-on-file.near-miss", codes: [:], paths: []),
        // An `always` secret, a group one of two apps never searches, a ThisDeviceOnly item
        // expected after a restore to a new phone; the near miss fixes all three.
        Case(fixture: "keychain-findings", codes: ["FSL022": 1, "FSL023": 1, "FSL024": 1], paths: [""], ruleSets: mac),
        Case(fixture: "keychain-findings.near-miss", codes: [:], paths: [], ruleSets: mac),
        // The inventory: every setuid/setgid program with an x bit, and nothing else with those bits.
        Case(
            fixture: "privileged-program", codes: ["FSL003": 1, "FSL025": 4],
            paths: ["/usr/bin/passwd", "/usr/bin/chage", "/usr/games/snake", "/usr/sbin/backup-reader"]),
        Case(fixture: "privileged-program.near-miss", codes: ["FSL004": 1], paths: ["/mnt/usb/tool"]),
        // A service reading secrets and a home through CAP_DAC_READ_SEARCH, one writing /etc
        // through CAP_DAC_OVERRIDE; the near miss holds capabilities that reach no file's content.
        Case(
            fixture: "service-capability-reach", codes: ["FSL026": 7],
            paths: ["/etc", "/etc/shadow", "/home/alice", "/home/alice/.ssh/id_ed25519"], ruleSets: ["linux"]),
        Case(fixture: "service-capability-reach.near-miss", codes: [:], paths: [], ruleSets: ["linux"])
    ]

    static func findings(_ stdout: String) throws -> [[String: Any]] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        return try #require(doc["findings"] as? [[String: Any]])
    }

    @Test(
        "each fixture triggers exactly its rule; each near miss triggers nothing; under every rule set",
        arguments: cases, ["macos", "guide", "linux"])
    func table(_ c: Case, _ semantics: String) throws {
        guard c.ruleSets.contains(semantics) else { return }
        let file = "fixtures/lint/\(c.fixture).yaml"
        let r = try fspolicy(["lint", file, "--format", "json", "--fail-on", "note", "--semantics", semantics])
        #expect(r.status == (c.codes.isEmpty ? 0 : 1), "\(r.stderr)")
        let fs = try Self.findings(r.stdout)
        var counts: [String: Int] = [:]
        for f in fs { counts[f["code"] as? String ?? "?", default: 0] += 1 }
        #expect(counts == c.codes)
        #expect(Set(fs.compactMap { $0["path"] as? String }) == c.paths)
        for f in fs {
            #expect(!(f["fix"] as? String ?? "").isEmpty)
            #expect((f["line"] as? Int ?? 0) > 0, "a finding points at the line that declares the node")
        }
    }

    @Test("FSL003 names who may modify and who may replace, and never the owner or root")
    func setidAffected() throws {
        let r = try fspolicy(["lint", "fixtures/lint/setid-writable-by-others.yaml", "--format", "json"])
        let fs = try Self.findings(r.stdout).filter { $0["code"] as? String == "FSL003" }
        let byPath = Dictionary(uniqueKeysWithValues: fs.map { ($0["path"] as! String, $0) })
        #expect(byPath["/srv/bin/tool"]?["affected"] as? [String] == ["bob"])
        #expect((byPath["/srv/bin/tool"]?["message"] as? String ?? "").contains("bob may modify it"))
        #expect(byPath["/srv/opt/helper"]?["affected"] as? [String] == ["bob"])
        #expect((byPath["/srv/opt/helper"]?["message"] as? String ?? "").contains("bob may replace it"))
        // Widening the directory to everyone makes every user, declared or not, a replacer.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lint-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let text = try String(contentsOf: packageRoot.appendingPathComponent("fixtures/lint/setid-writable-by-others.yaml"), encoding: .utf8)
        try text.replacingOccurrences(
            of: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0775\"}",
            with: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0777\"}"
        )
        .write(to: tmp, atomically: true, encoding: .utf8)
        let wide = try Self.findings(try fspolicy(["lint", tmp.path, "--format", "json"]).stdout)
        let helper = try #require(wide.first { $0["path"] as? String == "/srv/opt/helper" && $0["code"] as? String == "FSL003" })
        #expect(helper["affected"] as? [String] == ["alice", "bob", "(any other user)"])
        #expect(wide.contains { $0["code"] as? String == "FSL001" && $0["path"] as? String == "/srv/opt" })
    }

    @Test("text groups by rule with a count; --fail-on decides exit 0 or 1")
    func textAndExit() throws {
        let files = ["fixtures/lint/world-writable-directory.yaml", "fixtures/lint/world-writable-file.yaml", "fixtures/lint/setid-writable-by-others.yaml"]
        let r = try fspolicy(["lint"] + files)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let headers = lines.filter { !$0.hasPrefix(" ") }
        #expect(
            headers == [
                "FSL001 world-writable-directory (error): 1 finding",
                "FSL002 world-writable-file (warning): 1 finding",
                "FSL003 setid-writable-by-others (error): 2 findings",
                "FSL025 privileged-program (note): 2 findings",
                "6 findings: 3 errors, 1 warning, 2 notes"
            ])
        #expect(lines.contains { $0.hasPrefix("  fixtures/lint/world-writable-directory.yaml:") && $0.hasSuffix("(mode 0777, no sticky bit)") })
        #expect(lines.contains("    fix: chmod +t /srv/drop"))
        // Only a warning: exit 0 by default, 1 with --fail-on warning.
        #expect(try fspolicy(["lint", files[1]]).status == 0)
        #expect(try fspolicy(["lint", files[1], "--fail-on", "warning"]).status == 1)
        let clean = try fspolicy(["lint", "fixtures/lint/world-writable-directory.near-miss.yaml"])
        #expect(clean.status == 0)
        #expect(clean.stdout == "no findings in 1 file\n")
        // Same input, same bytes.
        #expect(try fspolicy(["lint"] + files).stdout == r.stdout)
    }

    @Test("SARIF: every catalog rule in tool.driver.rules, results point at them; valid against the schema")
    func sarif() throws {
        let r = try fspolicy(["lint", "fixtures/lint/setid-writable-by-others.yaml", "fixtures/lint/world-writable-file.yaml", "--format", "sarif"])
        #expect(r.status == 1)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let sarifRun = try #require((doc["runs"] as? [[String: Any]])?.first)
        let driver = try #require((sarifRun["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        let docs = try String(contentsOf: packageRoot.appendingPathComponent("docs/findings.md"), encoding: .utf8)
        // The catalog and docs/findings.md list the same rules, in the same order.
        let sections = docs.split(separator: "\n").filter { $0.hasPrefix("## FSL") }.map { String($0.dropFirst(3).split(separator: " ")[0]) }
        #expect(rules.compactMap { $0["id"] as? String } == sections)
        #expect(rules.count >= 17)
        for rule in rules {
            #expect((rule["fullDescription"] as? [String: Any])?["text"] as? String != nil)
            let uri = try #require(rule["helpUri"] as? String)
            let anchor = String(uri.split(separator: "#").last ?? "")
            // GitHub's anchor for "## FSL001 world-writable-directory".
            let id = rule["id"] as! String, name = rule["name"] as! String
            #expect(anchor == "\(id.lowercased())-\(name)")
            #expect(docs.contains("## \(id) \(name)\n"), "docs/findings.md has a section for \(id)")
        }
        let results = try #require(sarifRun["results"] as? [[String: Any]])
        #expect(results.count == 5, "FSL003 twice, FSL002, the inventory's two programs")
        for res in results {
            let idx = try #require(res["ruleIndex"] as? Int)
            #expect(rules[idx]["id"] as? String == res["ruleId"] as? String)
        }
        if let python = which("python3"), (try? run(python, ["-c", "import jsonschema"]))?.status == 0 {
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lint-\(UUID().uuidString).sarif")
            defer { try? FileManager.default.removeItem(at: tmp) }
            try r.stdout.write(to: tmp, atomically: true, encoding: .utf8)
            let v = try run(
                python,
                [
                    "-c",
                    "import json,sys,jsonschema; jsonschema.Draft4Validator(json.load(open('Tests/Schemas/sarif-schema-2.1.0.json'))).validate(json.load(open(sys.argv[1])))",
                    tmp.path
                ])
            #expect(v.status == 0, "\(v.stderr)")
        } else {
            Issue.record("python3 with jsonschema is needed to check the SARIF schema: run scripts/setup")
        }
    }

    @Test("invalid input exits 3")
    func invalid() throws {
        let r = try fspolicy(["lint", "fixtures/lint/nope.yaml"])
        #expect(r.status == 3)
        #expect(try fspolicy(["lint", "fixtures/lint/world-writable-file.yaml", "--fail-on", "fatal"]).status != 0)
    }

    static func tempFile(_ text: String, ext: String = "yaml") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lint-\(UUID().uuidString).\(ext)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("validate checks the rule names of findings: against lint's catalog, at file:line:column with a hint")
    func validateRuleNames() throws {
        let bad = try Self.tempFile(
            """
            fspolicy: 1
            semantics: linux
            tree:
              /srv: {type: dir, owner: root, group: 0, mode: "0755"}
            findings:
              rules: {dead-grnat: off, FSL001: error}
              suppress:
                - {rule: FSL0002, path: /srv, reason: "test"}
            """)
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try fspolicy(["validate", bad.path])
        #expect(r.status == 3)
        #expect(r.stderr.contains("\(bad.path):6:11: error: unknown lint rule `dead-grnat`"), "\(r.stderr)")
        #expect(r.stderr.contains("did you mean `dead-grant`?"))
        #expect(r.stderr.contains("\(bad.path):8:14: error: unknown lint rule `FSL0002`"))
        #expect(r.stderr.contains("did you mean `FSL002`?"))
        // lint says the same, at the same places.
        let l = try fspolicy(["lint", bad.path])
        #expect(l.status == 3)
        #expect(l.stderr.contains("\(bad.path):6:11: error: unknown lint rule `dead-grnat`"))
        // Every code and name of the catalog is accepted.
        let good = try Self.tempFile(
            """
            fspolicy: 1
            semantics: linux
            tree:
              /srv: {type: dir, owner: root, group: 0, mode: "0755"}
            findings:
              rules: {dead-mode-class: note, FSL019: warning, unused-suppression: off}
            """)
        defer { try? FileManager.default.removeItem(at: good) }
        #expect(try fspolicy(["validate", good.path]).status == 0)
    }

    @Test("a default ACL on a file loads with a warning at its file:line:column, and decides nothing")
    func defaultACLOnFileLoads() throws {
        let file = "fixtures/lint/default-acl-on-file.yaml"
        let v = try fspolicy(["validate", file])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stderr.contains("\(file):18:17: warning: only directories can have a default ACL"), "\(v.stderr)")
        #expect(v.stderr.contains("help: remove `defaultAcl`"))
        // The same file without the default ACL answers every question alike.
        let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        let without = try Self.tempFile(text.replacingOccurrences(of: "    defaultAcl: [\"user::rwx\", \"group::r-x\", \"other::---\"]\n", with: ""))
        defer { try? FileManager.default.removeItem(at: without) }
        #expect(!(try String(contentsOf: without, encoding: .utf8)).contains("defaultAcl"))
        for who in ["alice", "root", "1234"] {
            for op in ["read", "write", "execute", "chmod", "delete"] {
                let a = try fspolicy(["can", file, "--as", who, "--op", op, "/srv/shared/report.txt"])
                let b = try fspolicy(["can", without.path, "--as", who, "--op", op, "/srv/shared/report.txt"])
                #expect(a.stdout == b.stdout && a.status == b.status, "\(who) \(op): \(a.stdout) vs \(b.stdout)")
            }
        }
    }

    @Test("FSL020 is off unless findings: gives it a severity")
    func deadModeClassOptIn() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("fixtures/lint/dead-mode-class.yaml"), encoding: .utf8)
        let on = try Self.findings(try fspolicy(["lint", "fixtures/lint/dead-mode-class.yaml", "--format", "json"]).stdout)
        #expect(on.filter { $0["code"] as? String == "FSL020" }.count == 2)
        let stripped = try Self.tempFile(text.replacingOccurrences(of: "findings:\n  rules: {dead-mode-class: note}\n", with: ""))
        defer { try? FileManager.default.removeItem(at: stripped) }
        #expect(!(try String(contentsOf: stripped, encoding: .utf8)).contains("findings:"))
        let off = try Self.findings(try fspolicy(["lint", stripped.path, "--format", "json"]).stdout)
        #expect(off.isEmpty)
    }

    @Test("FSL019 gives the reason the decisions bear out: cut off above only when nobody it applies to reaches the file")
    func deadGrantReason() throws {
        // ivan is in interns: /T lets him search it through its ACE, and ACE 0 of f.txt lets him
        // read; an ivan in neither group would use ACE 2, and cannot search /T.
        let shadowed = try Self.tempFile(
            """
            fspolicy: 1
            semantics: macos
            groups:
              interns: {gid: 600, members: [ivan]}
              team: {gid: 601, members: [tess]}
            users:
              ivan: {uid: 510}
              tess: {uid: 511}
            tree:
              /T: {type: dir, owner: root, group: team, mode: "0750", acl: ["group:interns allow list,search"]}
              /T/f.txt:
                owner: root
                group: team
                mode: "0640"
                acl: ["group:interns allow read", "group:team allow read", "user:ivan allow read"]
              /S: {type: dir, owner: root, group: wheel, mode: "0755"}
              /S/locked.txt: {owner: root, group: wheel, mode: "0644", flags: [uchg], acl: ["user:ivan allow write"]}
              /Vault: {type: dir, owner: root, group: wheel, mode: "0700", acl: ["user:ivan allow list,file_inherit"]}
            steps:
              - {as: root, op: create, path: /Vault/key.txt}
            """)
        defer { try? FileManager.default.removeItem(at: shadowed) }
        #expect(try fspolicy(["can", shadowed.path, "--as", "ivan", "--op", "read", "/T/f.txt"]).status == 0)
        let fs = try Self.findings(try fspolicy(["lint", shadowed.path, "--format", "json", "--fail-on", "note"]).stdout)
        var byPath: [String: String] = [:]
        for f in fs where f["code"] as? String == "FSL019" { byPath[f["path"] as? String ?? ""] = f["message"] as? String ?? "" }
        #expect(Set(byPath.keys) == ["/T/f.txt", "/S/locked.txt", "/Vault/key.txt"], "\(byPath)")
        let t = byPath["/T/f.txt"] ?? ""
        #expect(t.hasPrefix("ACE 2 `user:ivan allow read`"), "\(t)")
        #expect(!t.contains("nobody it applies to may reach"), "\(t)")
        #expect(t.contains("for every subject it applies to that may reach this file, an earlier entry already decides each of its rights"), "\(t)")
        // No earlier entry on the immutable file: the flag decides before the ACL is read.
        let l = byPath["/S/locked.txt"] ?? ""
        #expect(!l.contains("earlier entry") && l.contains("decided before the ACL is read"), "\(l)")
        // An inherited entry is a grant like any other; nobody it applies to reaches it.
        let k = byPath["/Vault/key.txt"] ?? ""
        #expect(k.contains("`user:ivan inherited allow read`") && k.contains("nobody it applies to may reach this file"), "\(k)")
    }

    @Test("findings: rules off, another severity, more sensitive names and service directories")
    func configuration() throws {
        let file = "fixtures/lint/findings-config.yaml"
        let fs = try Self.findings(try fspolicy(["lint", file, "--format", "json", "--fail-on", "note"]).stdout)
        var byCode: [String: [String: Any]] = [:]
        for f in fs { byCode[f["code"] as! String] = f }
        // FSL002 is off: the world-writable scratch file is not reported.
        #expect(Set(byCode.keys) == ["FSL005", "FSL011", "FSL012"])
        #expect(byCode["FSL011"]?["severity"] as? String == "error", "unknown-owner raised to error by name")
        #expect(byCode["FSL012"]?["path"] as? String == "/srv/app/api.token", "*.token added to the sensitive names")
        #expect(byCode["FSL005"]?["path"] as? String == "/srv/app", "/srv/* added to the service directories")
        // Without the section, the same tree gives FSL002 and no FSL005 or FSL012.
        let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        let bare = try Self.tempFile(String(text[..<text.range(of: "findings:")!.lowerBound]))
        defer { try? FileManager.default.removeItem(at: bare) }
        let plain = try Self.findings(try fspolicy(["lint", bare.path, "--format", "json", "--fail-on", "note"]).stdout)
        #expect(Set(plain.compactMap { $0["code"] as? String }) == ["FSL002", "FSL011"])
        #expect(plain.first { $0["code"] as? String == "FSL011" }?["severity"] as? String == "warning")
    }

    @Test("a suppression hides its one finding, keeps it in JSON and SARIF with the reason; one that matches nothing is FSL018")
    func suppressions() throws {
        let file = "fixtures/lint/unused-suppression.yaml"
        let r = try fspolicy(["lint", file, "--format", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let sup = try #require(doc["suppressed"] as? [[String: Any]])
        #expect(sup.count == 1)
        #expect(sup.first?["path"] as? String == "/srv/drop")
        #expect((sup.first?["suppressedBecause"] as? String ?? "").contains("drop box"))
        let fs = try #require(doc["findings"] as? [[String: Any]])
        #expect(fs.map { $0["code"] as? String } == ["FSL018"])
        #expect(fs.first?["line"] as? Int == 20, "FSL018 points at the suppression")
        // Text says how many were suppressed.
        let t = try fspolicy(["lint", "fixtures/lint/unused-suppression.near-miss.yaml"])
        #expect(t.stdout == "no findings in 1 file (1 suppressed)\n")
        #expect(t.status == 0)
        // SARIF: the suppressed result is there, with its justification.
        let s = try fspolicy(["lint", file, "--format", "sarif"])
        let sd = try #require(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        let results = try #require(((sd["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        let suppressed = results.filter { $0["suppressions"] != nil }
        #expect(suppressed.count == 1)
        #expect(((suppressed.first?["suppressions"] as? [[String: Any]])?.first?["justification"] as? String ?? "").contains("drop box"))
        // Turning FSL018 off silences it.
        let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        let off = try Self.tempFile(text.replacingOccurrences(of: "findings:\n", with: "findings:\n  rules: {unused-suppression: off}\n"))
        defer { try? FileManager.default.removeItem(at: off) }
        let o = try fspolicy(["lint", off.path])
        #expect(o.status == 0)
        #expect(o.stdout == "no findings in 1 file (1 suppressed)\n")
    }

    @Test("a bad findings: section is invalid input with file:line:column and a hint")
    func badConfiguration() throws {
        let cases: [(String, String, String)] = [
            (
                "findings:\n  rules:\n    world-writeable-file: off\n", ":6:5: error: unknown lint rule `world-writeable-file`",
                "did you mean `world-writable-file`?"
            ),
            ("findings:\n  rules: {FSL001: loud}\n", ":5:19: error: unknown setting `loud` for rule `FSL001`", "use `off`, `note`, `warning` or `error`"),
            ("findings:\n  suppress:\n    - {rule: FSL001, path: /srv}\n", ":6:7: error: a suppression needs `reason`", "every suppression says why"),
            ("findings:\n  suppress:\n    - {rule: FSL001, path: /srv, reason: \" \"}\n", "error: the `reason` of a suppression is empty", "say why"),
            ("findings:\n  suppress:\n    - {rule: FSL009x, path: /srv, reason: ok}\n", ":6:14: error: unknown lint rule `FSL009x`", "did you mean"),
            ("findings:\n  sensitive: [secrets/*.txt]\n", "error: `secrets/*.txt` is not a file name pattern", "last component"),
            ("findings:\n  sensitiv: []\n", ":5:3: error: unknown key `sensitiv` in `findings`", "did you mean `sensitive`?")
        ]
        for (section, message, hint) in cases {
            let f = try Self.tempFile("fspolicy: 1\nsemantics: linux\ntree: {/srv: {type: dir}}\n" + section)
            defer { try? FileManager.default.removeItem(at: f) }
            for cmd in [["lint", f.path], ["check", "--findings", f.path]] {
                let r = try fspolicy(cmd)
                #expect(r.status == 3, "\(cmd) \(section)")
                #expect(r.stderr.contains(f.path + message) || (r.stderr.contains(message) && r.stderr.contains(f.path + ":")), "\(r.stderr)")
                #expect(r.stderr.contains("help: ") && r.stderr.contains(hint), "\(r.stderr)")
            }
        }
    }

    @Test("check --findings: the same findings in text, JSON, JUnit and SARIF; --fail-on decides")
    func checkFindings() throws {
        let file = "fixtures/lint/setid-writable-by-others.yaml"
        let lint = try Self.findings(try fspolicy(["lint", file, "--format", "json"]).stdout)
        // Text: the check report, then the lint report.
        let t = try fspolicy(["check", "--findings", file])
        #expect(t.status == 1)
        #expect(t.stdout.hasSuffix("findings:\n" + (try fspolicy(["lint", file]).stdout)))
        #expect(try fspolicy(["check", file]).status == 0, "without --findings the file passes")
        // JSON: under "findings", the same objects as lint's.
        let j = try fspolicy(["check", "--findings", file, "--format", "json"])
        let jd = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let jf = try #require((jd["findings"] as? [String: Any])?["findings"] as? [[String: Any]])
        #expect(jf.map { $0["fingerprint"] as? String } == lint.map { $0["fingerprint"] as? String })
        #expect(jf.map { $0["message"] as? String } == lint.map { $0["message"] as? String })
        // JUnit: one test case per rule of the file's rule set; FSL003 fails.
        let x = try fspolicy(["check", "--findings", file, "--format", "junit"])
        #expect(x.stdout.contains("<testsuite name=\"fspolicy lint\""))
        #expect(x.stdout.components(separatedBy: "<failure type=\"finding\"").count - 1 == 1)
        #expect(x.stdout.components(separatedBy: "<testcase ").count - 1 == 14, "fourteen rules apply under linux")
        #expect(x.stdout.contains("<testcase name=\"FSL003 setid-writable-by-others\" classname=\"\(file)\">"))
        if let xmllint = which("xmllint") {
            let out = try Self.tempFile(x.stdout, ext: "xml")
            defer { try? FileManager.default.removeItem(at: out) }
            #expect(try run(xmllint, ["--noout", out.path]).status == 0)
        } else {
            Issue.record("xmllint is missing (scripts/setup installs libxml2-utils): the JUnit output cannot be checked")
        }
        // SARIF: the catalog's rules after check's own, results pointing at them.
        let s = try fspolicy(["check", "--findings", file, "--format", "sarif"])
        let sd = try #require(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        let run0 = try #require((sd["runs"] as? [[String: Any]])?.first)
        let rules = try #require(((run0["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        let results = try #require(run0["results"] as? [[String: Any]])
        #expect(results.count == lint.count)
        for res in results {
            let idx = try #require(res["ruleIndex"] as? Int)
            #expect(rules[idx]["id"] as? String == res["ruleId"] as? String)
        }
        if let python = which("python3"), (try? run(python, ["-c", "import jsonschema"]))?.status == 0 {
            let out = try Self.tempFile(s.stdout, ext: "sarif")
            defer { try? FileManager.default.removeItem(at: out) }
            let v = try run(
                python,
                [
                    "-c",
                    "import json,sys; import jsonschema; jsonschema.Draft4Validator(json.load(open('Tests/Schemas/sarif-schema-2.1.0.json'))).validate(json.load(open(sys.argv[1])))",
                    out.path
                ])
            #expect(v.status == 0, "\(v.stderr)")
        }
        // --fail-on: a warning alone fails only with --fail-on warning.
        #expect(try fspolicy(["check", "--findings", "fixtures/lint/world-writable-file.yaml"]).status == 0)
        #expect(try fspolicy(["check", "--findings", "fixtures/lint/world-writable-file.yaml", "--fail-on", "warning"]).status == 1)
    }

    @Test("fmt keeps the findings: section")
    func fmtKeepsFindings() throws {
        let r = try fspolicy(["fmt", "--stdout", "fixtures/lint/findings-config.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try Self.tempFile(r.stdout)
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(r.stdout.contains("findings:"))
        let a = try Self.findings(try fspolicy(["lint", out.path, "--format", "json", "--fail-on", "note"]).stdout)
        let b = try Self.findings(try fspolicy(["lint", "fixtures/lint/findings-config.yaml", "--format", "json", "--fail-on", "note"]).stdout)
        #expect(a.map { $0["fingerprint"] as? String } == b.map { $0["fingerprint"] as? String })
        #expect(a.map { $0["severity"] as? String } == b.map { $0["severity"] as? String })
    }

    @Test("--baseline: a previous JSON or SARIF output hides what it has; only new findings are reported and fail")
    func baseline() throws {
        let file = "fixtures/lint/setid-writable-by-others.yaml"
        let json = try Self.tempFile(try fspolicy(["lint", file, "--format", "json"]).stdout, ext: "json")
        let sarif = try Self.tempFile(try fspolicy(["lint", file, "--format", "sarif"]).stdout, ext: "sarif")
        let checkJSON = try Self.tempFile(try fspolicy(["check", "--findings", file, "--format", "json"]).stdout, ext: "json")
        defer { for u in [json, sarif, checkJSON] { try? FileManager.default.removeItem(at: u) } }
        for b in [json, sarif, checkJSON] {
            let r = try fspolicy(["lint", file, "--baseline", b.path])
            #expect(r.status == 0, "\(b.lastPathComponent): \(r.stdout)")
            #expect(r.stdout == "no new findings in 1 file (4 in the baseline)\n")
        }
        // The tree changes: /srv/opt becomes world-writable. Its old finding (helper replaceable
        // by bob) changes nothing in the key; the new FSL001 on /srv/opt is all that is reported,
        // also when the file gains lines above (fingerprints do not depend on lines).
        let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        let changed = try Self.tempFile(
            text.replacingOccurrences(
                of: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0775\"}",
                with: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0777\"}"
            )
            .replacingOccurrences(of: "tree:\n", with: "tree:\n  # moved down by a comment\n  /srv/extra: {type: dir}\n"))
        defer { try? FileManager.default.removeItem(at: changed) }
        for b in [json, sarif] {
            let r = try fspolicy(["lint", changed.path, "--baseline", b.path, "--format", "json"])
            #expect(r.status == 1)
            let fs = try Self.findings(r.stdout)
            #expect(fs.map { "\($0["code"] as! String) \($0["path"] as! String)" } == ["FSL001 /srv/opt"], "\(b.lastPathComponent)")
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(doc["inBaseline"] as? Int == 4)
        }
        // check --findings takes the same baselines.
        let c = try fspolicy(["check", "--findings", changed.path, "--baseline", sarif.path])
        #expect(c.status == 1)
        #expect(c.stdout.contains("FSL001 world-writable-directory (error): 1 finding") && c.stdout.hasSuffix("1 new finding: 1 error (4 in the baseline)\n"))
        #expect(try fspolicy(["check", file, "--baseline", sarif.path]).status != 0, "--baseline needs --findings")
        // Not a lint output: invalid input.
        let bad = try Self.tempFile("{\"something\": 1}", ext: "json")
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try fspolicy(["lint", file, "--baseline", bad.path])
        #expect(r.status == 3)
        #expect(r.stderr.contains(bad.path + ": error: the baseline has no `findings` list"))
        #expect(try fspolicy(["lint", file, "--baseline", "/nonexistent/base.json"]).status == 3)
    }

    @Test("a node imported from a listing is reported at its line in the listing, in text, JSON and SARIF")
    func importedLocation() throws {
        let file = "fixtures/examples/macos-listing/policy.yaml"
        let t = try fspolicy(["lint", file])
        #expect(t.stdout.contains("  fixtures/examples/macos-listing/alice.lsle:170:1: /Users/alice/Public/Drop Box: "))
        let fs = try Self.findings(try fspolicy(["lint", file, "--format", "json"]).stdout)
        let drop = try #require(fs.first { $0["path"] as? String == "/Users/alice/Public/Drop Box" })
        #expect(drop["file"] as? String == file)
        #expect(drop["source"] as? String == "fixtures/examples/macos-listing/alice.lsle")
        #expect(drop["line"] as? Int == 170)
        let listing = try String(contentsOf: packageRoot.appendingPathComponent("fixtures/examples/macos-listing/alice.lsle"), encoding: .utf8)
        let line = listing.split(separator: "\n", omittingEmptySubsequences: false)[169]
        #expect(line.hasSuffix("Drop Box"), "line 170 of the listing is the entry: \(line)")
        let s = try fspolicy(["lint", file, "--format", "sarif"])
        #expect(s.stdout.contains("\"uri\": \"fixtures/examples/macos-listing/alice.lsle\""))
    }
}
