import Foundation
import Testing

/// `explain` names every symlink the walk follows (P7), in the order it meets them.
@Suite("explain through symlinks")
struct ExplainSymlinkTests {
    @Test("each hop of a chain of symlinks is a step naming the link and its target")
    func hops() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-hops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml").path
        try """
        fspolicy: 1
        semantics: linux
        users:
          alice: {uid: 1000}
        tree:
          /etc: {type: dir, mode: "0755"}
          /etc/x: {type: symlink, target: ../srv/y}
          /srv: {type: dir, mode: "0755"}
          /srv/y: {type: symlink, target: /data/z}
          /data: {type: dir, mode: "0755"}
          /data/z: {mode: "0644"}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try fspolicy(["explain", file, "--as", "alice", "--op", "read", "/etc/x"], env: ["NO_COLOR": "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let steps = r.stdout.split(separator: "\n").filter { $0.contains("[traversal.symlink-followed]") }
        #expect(steps.count == 2, "\(r.stdout)")
        #expect(steps.first?.contains("symlink /etc/x -> ../srv/y") == true)
        #expect(steps.last?.contains("symlink /srv/y -> /data/z") == true)
        // Not followed when the operation acts on the link itself: no hop.
        let d = try fspolicy(["explain", file, "--as", "root", "--op", "delete", "/etc/x"], env: ["NO_COLOR": "1"])
        #expect(!d.stdout.contains("symlink-followed"), "\(d.stdout)")
    }
}
