import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `diff` of two scans of a real tree, between which a program got a set-user-ID bit, another
/// file capabilities, a new program arrived with capabilities and a directory a default ACL:
/// none of which changes a decision of today, all of which `diff` reports.
@Suite("diff: set-ID bits, file capabilities and default ACLs of a real tree", .serialized)
struct DiffPrivilegeTests {
    static func tool(_ name: String) -> String? {
        ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let isRoot = getuid() == 0
    static let haveTools = tool("setcap") != nil && tool("setfacl") != nil

    /// The temporary directory's file system takes a default ACL.
    static let aclsInTemp: Bool = {
        guard let setfacl = tool("setfacl") else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-aclprobe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return (try? run(setfacl, ["-d", "-m", "u:nobody:rwx", dir]).status) == 0
    }()

    static func must(_ name: String, _ args: [String]) throws {
        let r = try run(tool(name)!, args)
        #expect(r.status == 0, "\(name) \(args): \(r.stderr)")
    }

    @Test(
        "chmod 4755, setcap, a new setcap program and setfacl -d between two scans: each reported in words, exit 1; a diff without one reads as before",
        .enabled(if: isRoot, "needs root: setcap sets a file capability only with CAP_SETFCAP"),
        .enabled(if: haveTools, "needs setcap (libcap2-bin) and setfacl (acl); scripts/setup installs them"),
        .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
    func scansOfARealTree() throws {
        let fm = FileManager.default
        let base = fm.temporaryDirectory.appendingPathComponent("fspolicy-diffpriv-\(UUID().uuidString)").path
        let t = base + "/tree"
        try fm.createDirectory(atPath: t + "/bin", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: t + "/srv", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: base) }
        for d in [base, t, t + "/bin", t + "/srv"] { chmod(d, 0o755) }
        for p in ["mycat", "tool"] { try fm.copyItem(atPath: "/bin/cat", toPath: t + "/bin/" + p); chmod(t + "/bin/" + p, 0o755) }
        try "notes\n".write(toFile: t + "/notes.txt", atomically: false, encoding: .utf8)
        chmod(t + "/notes.txt", 0o644)
        func scan(_ name: String) throws -> String {
            let r = try fspolicy(["scan", t, "-o", base + "/" + name])
            #expect(r.status == 0, "\(r.stderr)")
            return base + "/" + name
        }
        let a = try scan("a.yaml")

        // A change of decisions only: exactly the lines diff wrote before it knew of privileges.
        chmod(t + "/notes.txt", 0o600)
        let b = try scan("b.yaml")
        let plain = try fspolicy(["diff", a, b, "--users", "nobody", "--op", "read"])
        #expect(plain.status == 1)
        #expect(plain.stdout == "\(t)/notes.txt -read: nobody\n1 change(s): 0 now allowed, 1 now denied [semantics: linux]\n")
        let same = try fspolicy(["diff", a, a])
        #expect(same.status == 0 && same.stdout == "no change [semantics: linux]\n")
        let plainJSON = try fspolicy(["diff", a, b, "--users", "nobody", "--op", "read", "--format", "json"])
        #expect(!plainJSON.stdout.contains("\"privileges\"") && plainJSON.stdout.hasSuffix("  \"unknown\": []\n}\n"))
        let plainSARIF = try fspolicy(["diff", a, b, "--format", "sarif"])
        #expect(!plainSARIF.stdout.contains("privilege-"))

        // What changes no decision of today.
        chmod(t + "/bin/mycat", 0o4755)
        try Self.must("setcap", ["cap_dac_read_search=ep", t + "/bin/tool"])
        try fm.copyItem(atPath: "/bin/cat", toPath: t + "/bin/newcap")
        chmod(t + "/bin/newcap", 0o755)
        try Self.must("setcap", ["cap_chown=ep", t + "/bin/newcap"])
        try Self.must("setfacl", ["-d", "-m", "u:nobody:rwx", t + "/srv"])
        let c = try scan("c.yaml")
        // Whether the temporary directory's mount honours set-ID bits is the host's business.
        func section(_ out: String) -> [String] {
            let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let at = lines.firstIndex(of: "privileges and inheritance:") else { return [] }
            return lines[(at + 1)...].prefix { $0.hasPrefix("  ") }.map {
                $0.replacingOccurrences(of: " (but its mount is nosuid: there it gives nothing)", with: "")
            }
        }
        let r = try fspolicy(["diff", b, c])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(
            section(r.stdout) == [
                "  \(t)/bin/mycat: set-user-ID root added (mode 0755 → 4755): anyone who may execute it runs it as root",
                "  \(t)/bin/newcap: new program with capabilities cap_chown=ep: who runs it may give any file to any owner",
                "  \(t)/bin/tool: capabilities cap_dac_read_search=ep added: who runs it may read any file and search any directory",
                "  \(t)/srv: default ACL added (user:nobody:rwx): files created here get it"
            ], "\(r.stdout)")
        #expect(r.stdout.hasSuffix("; 4 change(s) of privileges or inheritance [semantics: linux]\n"))
        // Only privileges changed for a user who sees nothing new: the exit is still 1.
        let only = try fspolicy(["diff", b, c, "--users", "nobody", "--op", "write", "--under", t + "/srv"])
        #expect(only.status == 1)
        #expect(only.stdout.hasSuffix("no change of decisions; 1 change(s) of privileges or inheritance [semantics: linux]\n"), "\(only.stdout)")

        // JSON and SARIF carry the same changes.
        let j = try fspolicy(["diff", b, c, "--format", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let privs = try #require(doc["privileges"] as? [[String: Any]])
        #expect(privs.map { $0["kind"] as? String } == ["set-user-ID", "capabilities", "capabilities", "default-acl"])
        #expect(privs.map { $0["change"] as? String } == ["added", "new", "added", "added"])
        #expect((privs[0]["mode"] as? [String: String]) == ["old": "0755", "new": "4755"])
        let s = try fspolicy(["diff", b, c, "--format", "sarif"])
        #expect(s.stdout.components(separatedBy: "\"ruleId\": \"privilege-gained\"").count == 5)

        // And back: what was added is removed; the program that is gone is left to the decisions.
        let back = try fspolicy(["diff", c, b])
        #expect(back.status == 1)
        #expect(
            section(back.stdout) == [
                "  \(t)/bin/mycat: set-user-ID root removed (mode 4755 → 0755): it no longer runs as root",
                "  \(t)/bin/tool: capabilities cap_dac_read_search=ep removed: who runs it no longer gains them",
                "  \(t)/srv: default ACL removed (user:nobody:rwx): files created here no longer get it"
            ], "\(back.stdout)")
    }
}
