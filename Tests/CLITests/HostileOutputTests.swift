import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Outputs that a hostile input must not turn against their reader or against the inputs: CSV
/// cells a spreadsheet would run as formulas, an output that names an input, an interrupted
/// write.
@Suite struct HostileOutputTests {
    static func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-hostile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        return d
    }
    static func cleanup(_ d: String) { try? FileManager.default.removeItem(atPath: d) }

    /// Users whose names a spreadsheet reads as formulas, and one that is only quoted.
    static let formulaPolicy = """
        fspolicy: 1
        semantics: linux
        users:
          "=1+2": {uid: 601}
          "+cmd": {uid: 602}
          "-x": {uid: 603}
          "@sum": {uid: 604}
          plain: {uid: 606}
        tree:
          /srv: {type: dir, mode: "0755"}
          /srv/f: {owner: root, mode: "0644"}

        """

    @Test("a CSV cell that starts like a formula gets a quote in front and is quoted")
    func csvCellsAreNeverFormulas() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        try Self.formulaPolicy.write(toFile: d + "/p.yaml", atomically: false, encoding: .utf8)
        let cases: [(String, String)] = [
            ("=1+2", "\"'=1+2\""), ("+cmd", "\"'+cmd\""), ("-x", "\"'-x\""),
            ("@sum", "\"'@sum\""), ("plain", "plain")
        ]
        for (user, cell) in cases {
            let r = try fspolicy(["matrix", d + "/p.yaml", "--users=" + user, "--op", "read", "--under", "/srv/f"])
            #expect(r.status == 0, "\(user): \(r.stderr)")
            #expect(r.stdout == "path,op,allowed\n/srv/f,read,\(cell)\n", "\(user): \(r.stdout)")
        }
        // Only the first character matters; JSON Lines keeps the names as they are.
        let all = try fspolicy(["matrix", d + "/p.yaml", "--users=plain,=1+2", "--op", "read", "--under", "/srv/f"])
        #expect(all.stdout == "path,op,allowed\n/srv/f,read,plain =1+2\n", "\(all.stdout)")
        let jsonl = try fspolicy(["matrix", d + "/p.yaml", "--users==1+2", "--op", "read", "--under", "/srv/f", "--format", "jsonl"])
        #expect(jsonl.stdout == "{\"path\":\"/srv/f\",\"op\":\"read\",\"allowed\":[\"=1+2\"]}\n", "\(jsonl.stdout)")
    }
}

extension HostileOutputTests {
    /// Every file of `d` with its bytes, to show nothing changed and nothing was left behind.
    static func snapshot(_ d: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: d) {
            out[name] = FileManager.default.contents(atPath: d + "/" + name) ?? Data()
        }
        return out
    }

    @Test("an output that is an input, through any name, is refused before anything is written")
    func outputThatIsAnInputIsRefused() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        let fm = FileManager.default
        try fm.copyItem(atPath: packageRoot.path + "/fixtures/examples/team-share/policy.yaml", toPath: d + "/p.yaml")
        try fm.copyItem(atPath: packageRoot.path + "/fixtures/examples/image/image.tar.gz", toPath: d + "/img.tar.gz")
        try fm.copyItem(atPath: packageRoot.path + "/fixtures/examples/image-oci/layout", toPath: d + "/layout")
        try fm.createSymbolicLink(atPath: d + "/link.yaml", withDestinationPath: "p.yaml")
        try fm.linkItem(atPath: d + "/p.yaml", toPath: d + "/hard.yaml")
        try "fspolicy: 1\nimport:\n  - policy: p.yaml\n".write(toFile: d + "/imports.yaml", atomically: false, encoding: .utf8)
        try "fspolicy: 1\nimport:\n  - tar: img.tar.gz\n".write(toFile: d + "/tar.yaml", atomically: false, encoding: .utf8)
        try "bob\tread\t/Shared\n".write(toFile: d + "/q.tsv", atomically: false, encoding: .utf8)
        let before = try Self.snapshot(d)
        let cases: [([String], String)] = [
            (["check", "p.yaml", "--output", "p.yaml"], "the output `p.yaml` is the same file as the policy file `p.yaml`"),
            (
                ["check", "p.yaml", "--format", "json", "--output", "link.yaml", "--follow-symlinks"],
                "the output `link.yaml` is the same file as the policy file `p.yaml`"
            ),
            (["matrix", "p.yaml", "--output", d + "/hard.yaml"], "the output `\(d)/hard.yaml` is the same file as the policy file `p.yaml`"),
            (["validate", "imports.yaml", "--output", "p.yaml"], "the same file as the output `p.yaml`"),
            (["check", "imports.yaml", "--output", "hard.yaml"], "the same file as the output `hard.yaml`"),
            (["can", "p.yaml", "--batch", "q.tsv", "--output", "q.tsv"], "the output `q.tsv` is the same file as the batch file `q.tsv`"),
            (["lint", "p.yaml", "--baseline", "p.yaml", "--output", "./p.yaml"], "is the same file as the policy file `p.yaml`"),
            (["diff", "imports.yaml", "p.yaml", "--output", "hard.yaml"], "is the same file as the policy file `p.yaml`"),
            (["report", "p.yaml", "-o", "p.yaml"], "is the same file as the policy file `p.yaml`"),
            (["scan", "--tar", "img.tar.gz", "-o", "img.tar.gz"], "the output `img.tar.gz` is the same file as the archive `img.tar.gz`"),
            (["validate", "tar.yaml", "--output", "img.tar.gz"], "the same file as the output `img.tar.gz`"),
            (["scan", "--oci", "layout", "-o", "layout/index.json"], "the output `layout/index.json` is inside the image `layout`")
        ]
        for (args, message) in cases {
            let r = try run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", d, fspolicyBinary()] + args)
            #expect(r.status == 3, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("help: write the output to another file"), "\(args): \(r.stderr)")
            #expect(try Self.snapshot(d) == before, "\(args) changed or left files in \(d)")
        }
        // The batch questions from standard input redirected from the output file.
        let stdin = try run("/bin/sh", ["-c", "cd \"$1\" && \"$2\" can p.yaml --batch - --output q.tsv < q.tsv", "sh", d, fspolicyBinary()])
        #expect(stdin.status == 3 && stdin.stderr.contains("is the same file as the batch file `-`"), "\(stdin.stderr)")
        #expect(try Self.snapshot(d) == before)
        // Another file is written as usual.
        let ok = try run("/bin/sh", ["-c", "cd \"$1\" && \"$2\" check p.yaml --output out.txt", "sh", d, fspolicyBinary()])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
