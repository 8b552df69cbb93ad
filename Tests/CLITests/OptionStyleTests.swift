import Foundation
import Testing

/// One option style across commands: `-o` wherever a command writes a file, `--format` help
/// that lists the command's own values, colour in every text report under one rule.
@Suite("One option style")
struct OptionStyleTests {
    static let policy = "fixtures/examples/team-share/policy.yaml"

    /// Every command that writes its output to a file, with arguments that give output.
    static let writers: [[String]] = [
        ["check", policy], ["validate", policy], ["simulate", "fixtures/examples/figure-b1/policy.yaml"],
        ["can", policy, "--as", "carol", "--op", "read", "/Shared/Design/brief.txt"],
        ["explain", policy, "--as", "carol", "--op", "read", "/Shared/Design/brief.txt"],
        ["who", policy, "--op", "read", "/Shared/Design/brief.txt"],
        ["access", policy, "--as", "carol"], ["matrix", policy], ["report", policy],
        ["lint", "fixtures/lint/world-writable-directory.yaml"],
        ["diff", "fixtures/examples/audit/before.yaml", "fixtures/examples/audit/after.yaml"],
        ["schema"]
    ]

    @Test("-o FILE writes what standard output would have had", arguments: writers)
    func shortOutput(_ args: [String]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-o-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let toFile = try fspolicy(args + ["-o", out], env: ["NO_COLOR": "1"])
        let toStdout = try fspolicy(args, env: ["NO_COLOR": "1"])
        #expect(toFile.status == toStdout.status, "\(args): \(toFile.stderr)")
        #expect(toFile.status != 64, "\(args) refused -o: \(toFile.stderr)")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!written.isEmpty)
        #expect(written == toStdout.stdout, "\(args): -o wrote other text than standard output got")
    }

    /// Each command's `--format` values, as its help must list them.
    static let formats: [(String, [String])] = [
        ("check", ["text", "json", "junit", "sarif"]), ("can", ["text", "json", "jsonl"]),
        ("explain", ["text", "json"]), ("who", ["text", "json"]), ("simulate", ["text", "json"]),
        ("validate", ["text", "json"]), ("fmt", ["text", "json"]), ("diff", ["text", "json", "sarif"]),
        ("lint", ["text", "json", "sarif"]), ("access", ["text", "json", "csv"]), ("matrix", ["csv", "jsonl"])
    ]
    static let allFormats = ["text", "json", "junit", "sarif", "jsonl", "csv"]

    @Test("--format help lists the command's own values, and another command's value is refused", arguments: formats)
    func formatHelp(_ command: String, _ values: [String]) throws {
        let help = try fspolicy([command, "--help"], env: ["COLUMNS": "400"])
        let line = try #require(
            help.stdout.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--format <format>") },
            "\(command) --help has no --format")
        let listed = line.range(of: "values: ").map { line[$0.upperBound...].prefix { $0 != ";" && $0 != ")" } }
        let words = try #require(listed, "\(command): \(line)").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(words == values, "\(command) --help lists \(words)")
        for other in Self.allFormats where !values.contains(other) {
            let r = try fspolicy([command, "--format", other, "x.yaml"])
            #expect(r.status == 64, "\(command) --format \(other) should be refused: \(r.stderr)")
        }
    }

    static let colored: [[String]] = [
        ["lint", "fixtures/lint/world-writable-directory.yaml"],
        ["access", policy, "--as", "carol"],
        ["who", policy, "--op", "read", "/Shared/Design/brief.txt"],
        ["diff", "fixtures/examples/audit/before.yaml", "fixtures/examples/audit/after.yaml"]
    ]

    @Test("lint, access, who and diff colour as explain does: FORCE_COLOR on, NO_COLOR and --no-color off, same text", arguments: colored)
    func colour(_ args: [String]) throws {
        let forced = try fspolicy(args, env: ["NO_COLOR": "", "FORCE_COLOR": "1"])
        #expect(TerminalTests.hasEscape(forced.stdout), "\(args) is not coloured: \(forced.stdout)")
        let plain = try fspolicy(args, env: ["NO_COLOR": "1", "FORCE_COLOR": "1"])
        #expect(!TerminalTests.hasEscape(plain.stdout))
        let flag = try fspolicy(args + ["--no-color"], env: ["NO_COLOR": "", "FORCE_COLOR": "1"])
        #expect(!TerminalTests.hasEscape(flag.stdout))
        #expect(TerminalTests.stripEscapes(forced.stdout) == plain.stdout)
        #expect(forced.status == plain.status)
    }

    @Test("a name with an escape code cannot colour or move the terminal, coloured or not")
    func hostileNameStaysEscaped() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-colour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml").path
        try """
        fspolicy: 1
        semantics: linux
        users:
          alice: {uid: 1000}
        tree:
          "/srv": {type: dir, mode: "0777"}
          "/srv/\\e[31mred\\uFDD0\\uFDD1": {mode: "0666", owner: alice}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        for args in [["lint", file], ["access", file, "--as", "alice", "--op", "write"]] {
            let forced = try fspolicy(args, env: ["NO_COLOR": "", "FORCE_COLOR": "1"])
            #expect(forced.status != 3, "\(args): \(forced.stderr)")
            #expect(forced.stdout.contains("red"), "\(args): the file is not in the output: \(forced.stdout)")
            #expect(!forced.stdout.contains("\u{1B}[31mred"), "\(args): \(forced.stdout)")
            #expect(!forced.stdout.unicodeScalars.contains { $0.value == 0xFDD0 || $0.value == 0xFDD1 })
        }
    }
}
