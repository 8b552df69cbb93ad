import Foundation
import Testing

/// `--quiet` says only what went wrong; the exit code is the same as without it. And the
/// `# yaml-language-server: $schema=…` first line that `scan` writes and `fmt` manages.
@Suite("--quiet and the schema comment")
struct QuietAndSchemaCommentTests {
    static let passing = "fixtures/examples/team-share/policy.yaml"
    static let failing = "fixtures/golden/drift.yaml"

    @Test("check --quiet: nothing for files that pass, the failures of those that do not, same exit codes")
    func checkQuiet() throws {
        let ok = try fspolicy(["check", "--quiet", Self.passing])
        #expect(ok.status == 0)
        #expect(ok.stdout == "", "a passing check printed \(ok.stdout)")
        let loud = try fspolicy(["check", Self.passing])
        #expect(loud.stdout.contains("passed"), "without --quiet the summary is printed")

        let bad = try fspolicy(["check", "-q", Self.passing, Self.failing])
        let badLoud = try fspolicy(["check", Self.passing, Self.failing])
        #expect(bad.status == 1 && badLoud.status == 1)
        #expect(!bad.stdout.contains(Self.passing + ":"), "the passing file's summary is left out")
        #expect(bad.stdout.contains("FAIL"), "failures are still printed: \(bad.stdout)")
        // Every line quiet prints is a line of the full output.
        let all = Set(badLoud.stdout.split(separator: "\n"))
        for line in bad.stdout.split(separator: "\n") { #expect(all.contains(line), "unexpected line \(line)") }

        // Machine formats are documents: unchanged by --quiet.
        for format in ["json", "junit", "sarif"] {
            let q = try fspolicy(["check", "-q", "--format", format, Self.failing])
            let l = try fspolicy(["check", "--format", format, Self.failing])
            #expect(q.stdout == l.stdout && q.status == l.status, "--quiet changed --format \(format)")
        }
    }

    @Test("validate, can, explain, who, simulate --quiet")
    func otherCommands() throws {
        let v = try fspolicy(["validate", "-q", Self.passing])
        #expect(v.status == 0 && v.stdout == "")
        let inv = try fspolicy(["validate", "-q", "fixtures/invalid/unknown-op.yaml"])
        #expect(inv.status == 3 && inv.stderr.contains("error"), "errors are still reported")

        let allow = try fspolicy(["can", "-q", Self.passing, "--as", "carol", "--op", "write", "/Shared/Design/brief.txt"])
        let allowLoud = try fspolicy(["can", Self.passing, "--as", "carol", "--op", "write", "/Shared/Design/brief.txt"])
        #expect(allow.stdout == "" && allow.status == allowLoud.status && !allowLoud.stdout.isEmpty)
        let deny = try fspolicy(["explain", "--quiet", Self.passing, "--as", "dave", "--op", "delete", "/Shared/Dropbox/bob-notes.txt"])
        let denyLoud = try fspolicy(["explain", Self.passing, "--as", "dave", "--op", "delete", "/Shared/Dropbox/bob-notes.txt"])
        #expect(deny.stdout == "" && deny.status == denyLoud.status)
        let who = try fspolicy(["who", "-q", Self.passing, "--op", "delete", "/Shared/Design/brief.txt"])
        #expect(who.stdout == "" && who.status == 0)

        let sim = try fspolicy(["simulate", "-q", "fixtures/examples/figure-b1/policy.yaml"])
        let simLoud = try fspolicy(["simulate", "fixtures/examples/figure-b1/policy.yaml"])
        #expect(sim.status == simLoud.status)
        #expect(sim.stdout.split(separator: "\n").allSatisfy { $0.contains("UNEXPECTED") }, "only unexpected steps: \(sim.stdout)")
    }

    func temporaryDirectory() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-schema-comment-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    @Test("fmt keeps, adds, replaces and removes the schema comment, and --quiet prints nothing")
    func fmtSchemaComment() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml").path
        try FileManager.default.copyItem(atPath: Self.passing, toPath: file)
        let original = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!original.hasPrefix("# yaml-language-server:"))

        // Default: kept as it is (here: none), so a canonical file stays canonical.
        #expect(try fspolicy(["fmt", "--check", file]).status == 0)

        let add = try fspolicy(["fmt", "--quiet", "--schema-comment", "fspolicy-1.schema.json", file])
        #expect(add.status == 0 && add.stdout == "")
        let added = try String(contentsOfFile: file, encoding: .utf8)
        #expect(added == "# yaml-language-server: $schema=fspolicy-1.schema.json\n" + original)
        #expect(try fspolicy(["fmt", "--check", file]).status == 0, "the comment is canonical once there")
        #expect(try fspolicy(["validate", file]).status == 0)

        _ = try fspolicy(["fmt", "--schema-comment", "https://example.org/fspolicy.json", file])
        let replaced = try String(contentsOfFile: file, encoding: .utf8)
        #expect(replaced == "# yaml-language-server: $schema=https://example.org/fspolicy.json\n" + original, "replaced, not added twice")

        let check = try fspolicy(["fmt", "--check", "--quiet", "--no-schema-comment", file])
        #expect(check.status == 1 && check.stdout == "", "--check --quiet: exit 1, nothing printed")
        _ = try fspolicy(["fmt", "--no-schema-comment", file])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == original)

        let both = try fspolicy(["fmt", "--schema-comment", "x.json", "--no-schema-comment", file])
        #expect(both.status == 64)
        let broken = try fspolicy(["fmt", "--schema-comment", "a\nb", file])
        #expect(broken.status == 64, "a URL with a line break would end the comment")
    }

    @Test("scan writes the schema comment first (unless --no-schema-comment), fmt keeps it")
    func scanSchemaComment() throws {
        #if os(Linux)
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let tree = dir.appendingPathComponent("tree")
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            try Data("x\n".utf8).write(to: tree.appendingPathComponent("a.txt"))
            let out = dir.appendingPathComponent("scan.yaml").path
            let r = try fspolicy(["scan", tree.path, "--accounts", "owners", "-q", "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            let text = try String(contentsOfFile: out, encoding: .utf8)
            #expect(text.hasPrefix("# yaml-language-server: $schema=fspolicy-1.schema.json\n# Scanned from "))
            #expect(try fspolicy(["validate", out]).status == 0)
            let formatted = try fspolicy(["fmt", "--stdout", out])
            #expect(formatted.stdout.hasPrefix("# yaml-language-server: $schema=fspolicy-1.schema.json\n"), "fmt keeps the line first")

            let custom = try fspolicy(["scan", tree.path, "--accounts", "owners", "--schema-comment", "/usr/share/fspolicy/fspolicy-1.schema.json"])
            #expect(custom.stdout.hasPrefix("# yaml-language-server: $schema=/usr/share/fspolicy/fspolicy-1.schema.json\n"))
            let none = try fspolicy(["scan", tree.path, "--accounts", "owners", "--no-schema-comment"])
            #expect(none.stdout.hasPrefix("# Scanned from "))
        #endif
    }
}
