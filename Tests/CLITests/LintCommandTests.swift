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
        Case(fixture: "setid-writable-by-others", codes: ["FSL003": 2], paths: ["/srv/bin/tool", "/srv/opt/helper"]),
        Case(fixture: "setid-writable-by-others.near-miss", codes: [:], paths: []),
        // An ACL entry counts as much as a mode bit; a named entry masked to read does not.
        Case(fixture: "setid-writable-by-others.acl", codes: ["FSL003": 1], paths: ["/srv/bin/tool"]),
        Case(fixture: "setid-on-nosuid-volume", codes: ["FSL004": 1], paths: ["/mnt/usb/tool"]),
        Case(fixture: "setid-on-nosuid-volume.near-miss", codes: [:], paths: []),
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
    ]

    static func findings(_ stdout: String) throws -> [[String: Any]] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        return try #require(doc["findings"] as? [[String: Any]])
    }

    @Test("each fixture triggers exactly its rule; each near miss triggers nothing; under every rule set",
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
        let fs = try Self.findings(r.stdout)
        let byPath = Dictionary(uniqueKeysWithValues: fs.map { ($0["path"] as! String, $0) })
        #expect(byPath["/srv/bin/tool"]?["affected"] as? [String] == ["bob"])
        #expect((byPath["/srv/bin/tool"]?["message"] as? String ?? "").contains("bob may modify it"))
        #expect(byPath["/srv/opt/helper"]?["affected"] as? [String] == ["bob"])
        #expect((byPath["/srv/opt/helper"]?["message"] as? String ?? "").contains("bob may replace it"))
        // Widening the directory to everyone makes every user, declared or not, a replacer.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lint-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let text = try String(contentsOf: packageRoot.appendingPathComponent("fixtures/lint/setid-writable-by-others.yaml"), encoding: .utf8)
        try text.replacingOccurrences(of: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0775\"}",
                                      with: "/srv/opt: {type: dir, owner: root, group: staff, mode: \"0777\"}")
            .write(to: tmp, atomically: true, encoding: .utf8)
        let wide = try Self.findings(try fspolicy(["lint", tmp.path, "--format", "json"]).stdout)
        let helper = try #require(wide.first { $0["path"] as? String == "/srv/opt/helper" })
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
        #expect(headers == ["FSL001 world-writable-directory (error): 1 finding",
                            "FSL002 world-writable-file (warning): 1 finding",
                            "FSL003 setid-writable-by-others (error): 2 findings",
                            "4 findings: 3 errors, 1 warning"])
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
        #expect(results.count == 3)
        for res in results {
            let idx = try #require(res["ruleIndex"] as? Int)
            #expect(rules[idx]["id"] as? String == res["ruleId"] as? String)
        }
        if let python = which("python3"), (try? run(python, ["-c", "import jsonschema"]))?.status == 0 {
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lint-\(UUID().uuidString).sarif")
            defer { try? FileManager.default.removeItem(at: tmp) }
            try r.stdout.write(to: tmp, atomically: true, encoding: .utf8)
            let v = try run(python, ["-c", "import json,sys,jsonschema; jsonschema.Draft4Validator(json.load(open('Tests/Schemas/sarif-schema-2.1.0.json'))).validate(json.load(open(sys.argv[1])))", tmp.path])
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
}
