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
        let cases: [(String, String)] = [("=1+2", "\"'=1+2\""), ("+cmd", "\"'+cmd\""), ("-x", "\"'-x\""),
                                         ("@sum", "\"'@sum\""), ("plain", "plain")]
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
