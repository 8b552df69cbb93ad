import Foundation
import Testing

@Suite("Commands, exit codes and the bundled examples")
struct CommandTests {
    static let examples: [String] = {
        let dir = packageRoot.appendingPathComponent("fixtures/examples")
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        var files: [String] = []
        for f in folders.sorted() {
            let sub = dir.appendingPathComponent(f)
            for y in ((try? FileManager.default.contentsOfDirectory(atPath: sub.path)) ?? []).sorted() where y.hasSuffix(".yaml") {
                files.append("fixtures/examples/\(f)/\(y)")
            }
        }
        return files
    }()

    @Test("there are bundled examples, each with a README")
    func examplesExist() {
        #expect(Self.examples.count >= 3)
        for f in Self.examples {
            let readme = packageRoot.appendingPathComponent(f).deletingLastPathComponent().appendingPathComponent("README.md")
            #expect(FileManager.default.fileExists(atPath: readme.path), "\(f) has no README.md beside it")
        }
    }

    @Test("every bundled example passes check, with nothing on stderr", arguments: examples)
    func examplePasses(_ file: String) throws {
        let r = try fspolicy(["check", file])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.isEmpty)
        #expect(r.stdout.contains(" passed, 0 failed"))
    }

    @Test("every bundled example is in canonical form (fmt --check)", arguments: examples)
    func exampleFormatted(_ file: String) throws {
        let r = try fspolicy(["fmt", "--check", file])
        #expect(r.status == 0, "fmt --check: \(r.stdout)\(r.stderr)")
    }

    @Test("fmt is idempotent and keeps what the file says", arguments: examples + ["fixtures/golden/drift.yaml"])
    func fmtIdempotent(_ file: String) throws {
        let once = try fspolicy(["fmt", "--stdout", file])
        #expect(once.status == 0)
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-fmt-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: tmp) }
        try once.stdout.write(to: tmp, atomically: true, encoding: .utf8)
        let twice = try fspolicy(["fmt", "--stdout", tmp.path])
        #expect(twice.stdout == once.stdout)
        // Same decisions before and after formatting (imports and an app's plist files resolve
        // relative to the file: skip those).
        let original = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        if !original.contains("import:") && !original.contains(".entitlements") && !original.contains(".plist") {
            func results(_ path: String) throws -> [String] {
                try fspolicy(["check", "--format", "json", path]).stdout.split(separator: "\n")
                    .map(String.init)
                    .filter { !$0.contains("\"location\"") && !$0.contains("\"source\"") && !$0.contains("\"file\"") }
            }
            #expect(try results(file) == results(tmp.path), "decisions changed after fmt")
        }
        // Every comment line survives.
        let comments = original.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        for c in comments { #expect(once.stdout.contains(c.trimmingCharacters(in: .whitespaces)), "lost comment: \(c)") }
    }

    @Test("fmt --check reports a file that is not canonical, and leaves it alone")
    func fmtCheckFails() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-fmt-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let text = "expect: []\nfspolicy: 1\n"
        try text.write(to: tmp, atomically: true, encoding: .utf8)
        let r = try fspolicy(["fmt", "--check", tmp.path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("would change"))
        #expect(try String(contentsOf: tmp, encoding: .utf8) == text)
    }

    static let commands = ["check", "can", "explain", "who", "validate", "fmt"]

    @Test("every command has --help with examples and exit codes", arguments: commands)
    func help(_ cmd: String) throws {
        let r = try fspolicy([cmd, "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Examples:"))
        #expect(r.stdout.contains("Exit codes:"))
        #expect(r.stdout.contains("USAGE: fspolicy \(cmd)"))
    }

    struct ExitCase: CustomTestStringConvertible, Sendable {
        let args: [String]
        let status: Int32
        let stderrHas: String
        var testDescription: String { args.joined(separator: " ") }
    }

    static let share = "fixtures/examples/team-share/policy.yaml"
    static let apps = "fixtures/examples/sandboxed-editor/policy.yaml"
    static let exitCases: [ExitCase] = [
        ExitCase(args: ["can", share, "--as", "bbo", "--op", "read", "/Shared"], status: 3, stderrHas: "did you mean `bob`?"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "raed", "/Shared"], status: 3, stderrHas: "did you mean `read`?"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "read", "Shared"], status: 3, stderrHas: "is not an absolute path"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "rename", "/Shared/Design/brief.txt"], status: 64, stderrHas: "`--op rename` needs `--to`"),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "chmod", "/Shared/Design/brief.txt"], status: 64,
            stderrHas: "`--op chmod` needs the new mode: `--mode 0640`"),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "read", "--mode", "0644", "/Shared/Design/brief.txt"], status: 3,
            stderrHas: "`--mode` has no meaning for `read`"),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "read", "--type", "block", "/Shared/Design/brief.txt"], status: 3,
            stderrHas: "`--type` has no meaning for `read`"),
        ExitCase(args: ["who", share, "--op", "write", "--type", "char", "/Shared/Design/brief.txt"], status: 3, stderrHas: "`--type` goes with `mknod`"),
        ExitCase(
            args: ["can", "fixtures/examples/host-groups/policy.yaml", "--as", "alice", "--op", "chflags", "--flags", "hidden", "/srv/www/index.html"],
            status: 3, stderrHas: "`hidden` is a macOS file flag; Linux has no such flag"),
        ExitCase(
            args: ["can", "fixtures/examples/host-groups/policy.yaml", "--as", "alice", "--op", "chflags", "--flags", "uchg", "/srv/www/index.html"],
            status: 3, stderrHas: "help: write `immutable`"),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "chown", "--type", "char", "/Shared/Design/brief.txt"],
            status: 3, stderrHas: "help: `--type` goes with `mknod`"),
        ExitCase(
            args: ["can", "fixtures/examples/image/image.tar.gz", "--as", "root", "--op", "read", "/"], status: 3,
            stderrHas: "it is a gzip-compressed file, not a policy file\n  help: read an archive as a tree with `fspolicy scan --tar image.tar.gz"),
        ExitCase(
            args: ["lint", "fixtures/lint/default-acl-on-file.tar"], status: 3, stderrHas: "it is a tar archive, not a policy file"),
        ExitCase(args: ["scan", "--tar", "fixtures/examples"], status: 3, stderrHas: "`fixtures/examples` is a folder, not a tar archive"),
        ExitCase(
            args: ["scan", "--tar", "fixtures/lint/default-acl-on-file.tar", "-o", "fixtures/no-such-folder/x.yaml"], status: 3,
            stderrHas: "(the folder `fixtures/no-such-folder` does not exist: make it first)"),
        ExitCase(args: ["can", "fixtures/does-not-exist.yaml", "--as", "bob", "--op", "read", "/x"], status: 3, stderrHas: "cannot read"),
        ExitCase(args: ["can", share, "--op", "read", "/x"], status: 64, stderrHas: "--as"),
        ExitCase(args: ["check"], status: 64, stderrHas: "Missing expected argument"),
        ExitCase(args: ["frobnicate"], status: 64, stderrHas: "Unexpected argument"),
        ExitCase(args: ["check", "--format", "yaml", share], status: 64, stderrHas: "yaml"),
        ExitCase(args: ["can", share, "--as", "1003", "--op", "read", "/Shared/Dropbox/bob-notes.txt"], status: 0, stderrHas: ""),
        ExitCase(args: ["can", share, "--as", "dave", "--op", "chflags", "--flags", "uchg", "/Shared/Dropbox/bob-notes.txt"], status: 2, stderrHas: ""),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "chflags", "--none", "/Shared/Dropbox/bob-notes.txt"], status: 0, stderrHas: ""),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "setacl", "--acl", "user:dave allow read", "/Shared/Dropbox/bob-notes.txt"], status: 0, stderrHas: ""),
        ExitCase(
            args: ["can", share, "--as", "bob", "--op", "setacl", "--acl", "user:dave allow raed", "/Shared/Dropbox/bob-notes.txt"], status: 3,
            stderrHas: "did you mean `read`?"),
        ExitCase(args: ["who", share, "--op", "write", "/Shared/Design/logo.svg"], status: 0, stderrHas: ""),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "chflags", "/Shared/Dropbox/bob-notes.txt"], status: 64, stderrHas: "`--op chflags` needs"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "setacl", "/Shared/Dropbox/bob-notes.txt"], status: 64, stderrHas: "`--op setacl` needs"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "read", "--none", "/Shared/Dropbox/bob-notes.txt"], status: 64, stderrHas: "`--none` goes with"),
        ExitCase(
            args: ["can", share, "--format", "junit", "--as", "bob", "--op", "read", "/Shared"], status: 64,
            stderrHas: "Please provide one of 'text', 'json' or 'jsonl'"),
        ExitCase(args: ["who", share, "--format", "sarif", "--op", "read", "/Shared"], status: 64, stderrHas: "Please provide one of 'text' and 'json'"),
        ExitCase(args: ["validate", "--format", "json", "fixtures/invalid/bad-octal-mode.yaml"], status: 3, stderrHas: "is not an octal digit"),
        ExitCase(args: ["can", share, "--as", "bob", "--op", "read", "/Shared/nothing/here"], status: 2, stderrHas: ""),
        ExitCase(args: ["validate", "fixtures/golden/drift.yaml"], status: 0, stderrHas: ""),
        ExitCase(args: ["explain", share, "--as", "bob", "--op", "list", "/Shared/Design"], status: 0, stderrHas: ""),
        ExitCase(args: ["can", apps, "--as", "com.example.Editor", "--op", "write", "/Users/alice/Desktop/todo.txt"], status: 0, stderrHas: ""),
        ExitCase(args: ["can", apps, "--as", "com.example.Editor", "--op", "list", "/Users/alice/Desktop"], status: 2, stderrHas: ""),
        ExitCase(
            args: ["explain", apps, "--as", "com.example.Backup", "--op", "read", "/Users/alice/Desktop/private.txt", "--compare"], status: 2, stderrHas: ""),
        ExitCase(args: ["can", apps, "--as", "com.example.Edtor", "--op", "read", "/Users"], status: 3, stderrHas: "did you mean `com.example.Editor`?")
    ]

    @Test("exit codes and messages for good and bad requests", arguments: exitCases)
    func exitCodes(_ c: ExitCase) throws {
        let r = try fspolicy(c.args)
        #expect(r.status == c.status, "stdout: \(r.stdout) stderr: \(r.stderr)")
        #expect(!r.crashed)
        if c.stderrHas.isEmpty {
            #expect(r.stderr.isEmpty, "unexpected stderr: \(r.stderr)")
        } else {
            #expect(r.stderr.contains(c.stderrHas), "stderr was: \(r.stderr)")
        }
    }

    @Test("--output writes the report to a file and nothing to stdout")
    func outputFile() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-out-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let r = try fspolicy(["check", "--format", "junit", "--output", tmp.path, Self.share])
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        let written = try String(contentsOf: tmp, encoding: .utf8)
        #expect(written.hasPrefix("<?xml"))
        #expect(written.contains("tests=\"16\""))
    }

    @Test("--semantics overrides the file's rule set")
    func semanticsOverride() throws {
        let f = "fixtures/examples/flags/policy.yaml"
        let mac = try fspolicy(["can", f, "--as", "bob", "--op", "write", "/Users/alice/contract.pdf"])
        let guide = try fspolicy(["can", f, "--semantics", "guide", "--as", "bob", "--op", "write", "/Users/alice/contract.pdf"])
        #expect(mac.status == 2)
        #expect(mac.stdout == "deny EPERM (flags: flag uchg)\n")
        #expect(guide.status == 0)
        #expect(guide.stdout == "allow\n")
    }

    @Test("no color escapes when NO_COLOR is set or stdout is not a terminal")
    func noColor() throws {
        for env in [["NO_COLOR": "1"], ["NO_COLOR": ""]] {
            let r = try fspolicy(["explain", Self.share, "--as", "dave", "--op", "delete", "/Shared/Dropbox/bob-notes.txt"], env: env)
            #expect(!r.stdout.contains("\u{1B}["))
        }
    }

    @Test("check of several files prints a total line")
    func total() throws {
        let r = try fspolicy(["check"] + Self.examples)
        #expect(r.status == 0)
        let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("total: "))
        #expect(last.hasSuffix(" failed"))
    }
}
