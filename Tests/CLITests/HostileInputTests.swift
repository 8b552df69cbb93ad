import Foundation
import Testing

/// Input files that say more than the tool they claim to come from can say: each is an error
/// at its line and column, never a tree with impossible names.
@Suite struct HostileInputTests {
    static func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-hostile-in-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        return d
    }

    static func block(_ path: String) -> String {
        "# file: \(path)\n# owner: root\n# group: root\nuser::rwx\ngroup::r-x\nother::r-x\n\n"
    }

    @Test("a getfacl dump's `.` and `..` components, and escapes for NUL, `/` or no byte, are errors at their column")
    func getfaclPathsAreTakenApartSafely() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        try "fspolicy: 1\nsemantics: linux\nimport:\n  - getfacl: dump.txt\n".write(toFile: d + "/p.yaml", atomically: false, encoding: .utf8)
        let cases: [(String, String)] = [
            ("srv/x/../../etc/passwd", "dump.txt:8:15: error: the path `srv/x/../../etc/passwd` has a `..` component, which names no file of the tree"),
            ("srv/x/./y", "dump.txt:8:15: error: the path `srv/x/./y` has a `.` component"),
            ("srv/x/a\\400b", "dump.txt:8:16: error: the escape `\\400` in the path `srv/x/a\\400b` stands for no byte"),
            ("srv/x/a\\000b", "dump.txt:8:16: error: the escape `\\000` in the path `srv/x/a\\000b` stands for NUL"),
            ("srv/x/etc\\057passwd", "dump.txt:8:18: error: the escape `\\057` in the path `srv/x/etc\\057passwd` stands for `/`")
        ]
        for (path, message) in cases {
            try (Self.block("srv/x") + Self.block(path)).write(toFile: d + "/dump.txt", atomically: false, encoding: .utf8)
            let r = try fspolicy(["validate", d + "/p.yaml"])
            #expect(r.status == 3, "\(path): \(r.status) \(r.stdout)")
            #expect(r.stderr.contains(message), "\(path): \(r.stderr)")
            #expect(r.stderr.contains("help: the path should be exactly what `getfacl -R DIR` prints"), "\(path): \(r.stderr)")
        }
        // A backslash written `\\` and an ordinary escape (`\303\251`, é) are names as before.
        try (Self.block("srv/x") + Self.block("srv/x/a\\\\057") + Self.block("srv/x/caf\\303\\251")).write(
            toFile: d + "/dump.txt", atomically: false, encoding: .utf8)
        let ok = try fspolicy(["validate", d + "/p.yaml"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
