import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// `fspolicy schema`: the JSON Schema agrees with the loader, checked by a real validator.
@Suite("JSON Schema of the policy format")
struct SchemaTests {
    /// Invalid-corpus files whose mistake is one of structure (a key, a type, a value list, a
    /// required key, a rule between two keys of one mapping): the schema must reject each.
    /// The rest of the corpus is about references and content (an undeclared user, an ACE's
    /// words, a duplicate id), which a schema cannot see.
    static let structural = [
        "allowed-with-as", "app-missing-user", "app-unknown-consent", "bad-octal-mode", "bad-symbolic-mode",
        "chmod-without-mode", "device-unknown-state", "empty-file", "errno-with-allow", "expect-is-a-mapping",
        "expectation-relative-path", "missing-version", "node-is-a-list", "relative-tree-path", "rename-without-to",
        "result-word", "semantics-capitalized", "symlink-without-target", "target-on-file", "to-on-read",
        "tree-path-dotdot", "uid-is-a-name", "umask-unquoted-number", "unknown-errno", "unknown-expectation-key",
        "unknown-flag", "unknown-group-key", "unknown-layer", "unknown-node-key", "unknown-op", "unknown-semantics",
        "unknown-top-level-key", "unknown-user-key", "user-groups-not-a-list", "users-as-list",
        "version-not-a-number", "version-too-new"
    ]

    @Test("every key the loader accepts is in the schema with a type and a description, and no other")
    func keysAgree() {
        #expect(
            PolicySchema.undocumentedKeys.isEmpty,
            "keys the loader accepts but the schema does not describe (add them to PolicySchema.keyDocs): \(PolicySchema.undocumentedKeys)")
        #expect(PolicySchema.staleKeys.isEmpty, "keys the schema describes but the loader no longer accepts: \(PolicySchema.staleKeys)")
    }

    @Test("a real validator accepts every valid fixture and rejects the corpus's structural mistakes")
    func validator() throws {
        guard which("python3") != nil,
            (try? run("/usr/bin/env", ["python3", "-c", "import jsonschema, yaml"]))?.status == 0
        else {
            Issue.record("python3 with jsonschema and PyYAML is needed (scripts/setup installs them)")
            return
        }
        let schema = try fspolicy(["schema"])
        #expect(schema.status == 0)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let schemaFile = dir.appendingPathComponent("schema.json").path
        try schema.stdout.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let script = """
            import glob, json, sys, yaml, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            v = jsonschema.Draft202012Validator(schema)
            valid = sorted(glob.glob("fixtures/examples/*/*.yaml") + glob.glob("fixtures/exercises/*/*.yaml") + glob.glob("fixtures/golden/*.yaml"))
            problems = 0
            for f in valid:
                for e in list(v.iter_errors(yaml.safe_load(open(f, encoding="utf-8"))))[:3]:
                    problems += 1
                    print("VALID FILE REJECTED %s at %s: %s" % (f, "/".join(map(str, e.absolute_path)), e.message[:200]))
            for name in sys.argv[2:]:
                f = "fixtures/invalid/%s.yaml" % name
                if not list(v.iter_errors(yaml.safe_load(open(f, encoding="utf-8")))):
                    problems += 1
                    print("STRUCTURAL MISTAKE ACCEPTED %s" % f)
            print("checked %d valid files and %d invalid ones" % (len(valid), len(sys.argv) - 2))
            sys.exit(1 if problems else 0)
            """
        let py = dir.appendingPathComponent("check.py").path
        try script.write(toFile: py, atomically: true, encoding: .utf8)
        let r = try run("/usr/bin/env", ["python3", py, schemaFile] + Self.structural)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("checked "), "\(r.stdout)\(r.stderr)")
    }

    @Test("the schema names the core's word lists: ops, flags, ACE rights, errnos, layers, rule sets")
    func enums() throws {
        let text = try fspolicy(["schema"]).stdout
        for word in ["\"readwrite\"", "\"uchg\"", "\"delete_child\"", "\"file_inherit\"", "\"EROFS\"", "\"sticky\"", "\"guide\"", "draft/2020-12"] {
            #expect(text.contains(word), "the schema lacks \(word)")
        }
    }
}
