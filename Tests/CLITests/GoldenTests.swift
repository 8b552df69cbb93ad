import Foundation
import Testing

/// Every output format, compared byte for byte with files in fixtures/golden/ (re-record on
/// purpose with FSPOLICY_RECORD=1), and the machine formats checked against their schemas.
@Suite("Golden outputs")
struct GoldenTests {
    static let passing = "fixtures/examples/team-share/policy.yaml"
    static let drifting = "fixtures/golden/drift.yaml"
    static let apps = "fixtures/examples/sandboxed-editor/policy.yaml"

    struct Case: CustomTestStringConvertible, Sendable {
        let golden: String
        let args: [String]
        let status: Int32
        var testDescription: String { golden }
    }

    static let cases: [Case] = [
        Case(golden: "check-pass.txt", args: ["check", passing], status: 0),
        Case(golden: "check-drift.txt", args: ["check", drifting], status: 1),
        Case(golden: "check-drift.json", args: ["check", "--format", "json", drifting], status: 1),
        Case(golden: "check-drift-all-traces.json", args: ["check", "--format", "json", "--all-traces", drifting], status: 1),
        Case(golden: "check-drift.junit.xml", args: ["check", "--format", "junit", drifting], status: 1),
        Case(golden: "check-drift.sarif.json", args: ["check", "--format", "sarif", drifting], status: 1),
        Case(golden: "check-two-files.txt", args: ["check", passing, drifting], status: 1),
        Case(golden: "can-deny.txt", args: ["can", passing, "--as", "carol", "--op", "write", "/Shared/Design/brief.txt"], status: 2),
        Case(golden: "can-allow.txt", args: ["can", passing, "--as", "bob", "--op", "delete", "/Shared/Design/brief.txt"], status: 0),
        Case(golden: "can-deny.json", args: ["can", passing, "--format", "json", "--as", "dave", "--op", "read", "/Shared/Design/logo.svg"], status: 2),
        Case(golden: "explain-sticky.txt", args: ["explain", passing, "--as", "dave", "--op", "delete", "/Shared/Dropbox/bob-notes.txt"], status: 2),
        Case(
            golden: "explain-compare-flags.txt",
            args: ["explain", "fixtures/examples/flags/policy.yaml", "--as", "bob", "--op", "write", "/Users/alice/contract.pdf", "--compare"], status: 2),
        Case(
            golden: "explain-compare-flags.json",
            args: [
                "explain", "fixtures/examples/flags/policy.yaml", "--format", "json", "--as", "bob", "--op", "write", "/Users/alice/contract.pdf", "--compare"
            ], status: 2),
        Case(golden: "who-delete.txt", args: ["who", passing, "--op", "delete", "/Shared/Design/brief.txt"], status: 0),
        Case(golden: "who-delete.json", args: ["who", passing, "--format", "json", "--op", "delete", "/Shared/Design/brief.txt"], status: 0),
        Case(golden: "validate.txt", args: ["validate", passing, "fixtures/examples/flags/guide.yaml"], status: 0),
        // Apps: the sandbox, TCC and the findings about them.
        Case(golden: "check-apps.txt", args: ["check", apps], status: 0),
        Case(golden: "check-apps.sarif.json", args: ["check", "--format", "sarif", apps], status: 0),
        Case(golden: "validate-apps.txt", args: ["validate", apps], status: 0),
        Case(
            golden: "explain-tcc.txt", args: ["explain", apps, "--as", "com.example.Editor", "--op", "read", "/Users/alice/Documents/Notes/ideas.txt"],
            status: 2),
        Case(golden: "can-sandbox.txt", args: ["can", apps, "--as", "com.example.Editor", "--op", "read", "/Users/alice/Pictures/cat.jpg"], status: 2),
        Case(
            golden: "can-sandbox.json", args: ["can", apps, "--format", "json", "--as", "com.example.Editor", "--op", "read", "/Users/alice/Archive/2023.txt"],
            status: 2),
        Case(golden: "who-apps.txt", args: ["who", apps, "--op", "read", "/Users/alice/Desktop/todo.txt"], status: 0),
        Case(golden: "who-apps.json", args: ["who", apps, "--format", "json", "--op", "write", "/Users/alice/Desktop/todo.txt"], status: 0),
        Case(golden: "simulate-figure-b1.txt", args: ["simulate", "fixtures/examples/figure-b1/policy.yaml"], status: 0),
        Case(
            golden: "simulate-figure-b1-stage2.txt",
            args: ["simulate", "fixtures/examples/figure-b1/policy.yaml", "--after", "9", "--path", "/Directory 0/Subdirectory 2"], status: 0),
        Case(golden: "simulate-linux.txt", args: ["simulate", "fixtures/examples/linux-default-acl/policy.yaml"], status: 0),
        Case(golden: "simulate-linux.json", args: ["simulate", "--format", "json", "fixtures/examples/linux-default-acl/policy.yaml"], status: 0),
        Case(
            golden: "explain-after-step.txt",
            args: [
                "explain", "fixtures/examples/figure-b1/policy.yaml", "--after", "7", "--as", "ann", "--op", "delete",
                "/Directory 0/Subdirectory 2/Subdirectory 4/File 2"
            ], status: 2)
    ]

    @Test("output matches its golden file", arguments: cases)
    func golden(_ c: Case) throws {
        let r = try fspolicy(c.args)
        #expect(r.status == c.status, "exit status of fspolicy \(c.args.joined(separator: " ")); stderr: \(r.stderr)")
        #expect(!r.crashed)
        try assertGolden(r.stdout, "fixtures/golden/" + c.golden)
    }

    @Test("--all-traces is for JSON only: the other formats refuse it (usage error)")
    func allTracesNeedsJSON() throws {
        for format in ["text", "junit", "sarif"] {
            let r = try fspolicy(["check", "--format", format, "--all-traces", Self.drifting])
            #expect(r.status == 64, "\(format): \(r.stderr)")
            #expect(r.stderr.contains("--all-traces"), "\(format): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test("the same input gives byte-identical output")
    func deterministic() throws {
        for args in [
            ["check", "--format", "json", Self.drifting], ["check", "--format", "sarif", Self.drifting],
            ["who", Self.passing, "--op", "write", "/Shared/Design/logo.svg"]
        ] {
            let a = try fspolicy(args), b = try fspolicy(args)
            #expect(a.stdout == b.stdout)
        }
    }

    @Test("JUnit output validates against junit-10.xsd (xmllint)")
    func junitSchema() throws {
        guard let xmllint = which("xmllint") else {
            Issue.record("xmllint is not installed: run scripts/setup (Debian package libxml2-utils)")
            return
        }
        for file in [Self.passing, Self.drifting] {
            let r = try fspolicy(["check", "--format", "junit", file])
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-junit-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: tmp) }
            try r.stdout.write(to: tmp, atomically: true, encoding: .utf8)
            let v = try run(xmllint, ["--noout", "--schema", "Tests/Schemas/junit-10.xsd", tmp.path])
            #expect(v.status == 0, "xmllint: \(v.stderr)")
        }
    }

    @Test("SARIF output validates against the SARIF 2.1.0 schema (python jsonschema)")
    func sarifSchema() throws {
        guard let python = which("python3") else {
            Issue.record("python3 is not installed: it runs the jsonschema validator")
            return
        }
        let check = try run(python, ["-c", "import jsonschema"])
        guard check.status == 0 else {
            Issue.record("python jsonschema is not installed: run scripts/setup (pip install jsonschema)")
            return
        }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open('Tests/Schemas/sarif-schema-2.1.0.json'))
            doc = json.load(open(sys.argv[1]))
            jsonschema.Draft4Validator.check_schema(schema)
            jsonschema.Draft4Validator(schema).validate(doc)
            assert doc['runs'][0]['results'] is not None
            print(len(doc['runs'][0]['results']))
            """
        for (file, expectedResults) in [(Self.passing, 0), (Self.drifting, 3), (Self.apps, 5)] {
            let r = try fspolicy(["check", "--format", "sarif", file])
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-sarif-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: tmp) }
            try r.stdout.write(to: tmp, atomically: true, encoding: .utf8)
            let v = try run(python, ["-c", script, tmp.path])
            #expect(v.status == 0, "jsonschema: \(v.stderr)")
            #expect(v.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(expectedResults))
        }
    }
}
