import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
import Foundation
import Testing

/// A decision taken in a service's view is rendered with the view's nodes: the owner, mode and
/// path every output shows are those the service meets (a regression: `decidedBy.mode` gave the
/// host's mode of a path the view replaces).
@Suite("systemd sandbox: every output shows the view's node")
struct UnitViewOutputTests {
    /// The tree these tests and `UnitBindTests` ask about, with one service `a` read from `a.service`.
    static let tree = """
        fspolicy: 1
        semantics: linux
        users:
          svc: {uid: 900}
          other: {uid: 901}
        tree:
          /data: {type: dir, owner: root, mode: "0755"}
          /data/secret: {type: dir, owner: root, mode: "0700"}
          /data/secret/key: {owner: root, mode: "0600"}
          /data/pub: {type: dir, owner: svc, mode: "0755"}
          /data/pub/f: {owner: svc, mode: "0644"}
          /data/pubfile: {owner: svc, mode: "0600"}
          /mnt: {type: dir, owner: root, mode: "0755"}
          /mnt/x: {type: dir, owner: root, mode: "0755"}
          /mnt/x/old: {owner: root, mode: "0644"}
          /mnt/y: {owner: root, mode: "0644"}
          /mnt/locked: {owner: root, mode: "0644", flags: [immutable]}
          /etc: {type: dir, owner: root, mode: "0755"}
          /etc/conf: {owner: root, mode: "0644"}
          /var: {type: dir, owner: root, mode: "0755"}
          /var/lib: {type: dir, owner: root, mode: "0755"}
          /var/lib/old: {type: dir, owner: other, mode: "0700"}
          /var/lib/old/f: {owner: other, mode: "0600"}
          /run: {type: dir, owner: root, mode: "0755"}
        services:
          a: {unit: a.service}
        """

    func load(_ unit: String) throws -> Policy {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-viewout-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ("[Service]\n" + unit + "\n").write(toFile: dir + "/a.service", atomically: true, encoding: .utf8)
        try Self.tree.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        return PolicyLoader.load(path: dir + "/p.yaml")
    }

    @Test("every output shows the view's node: decidedBy.mode of a replaced, inaccessible or bound path is the view's (regression)")
    func viewNodeInOutputs() throws {
        for (unit, path, mode) in [
            ("User=svc\nInaccessiblePaths=/etc/conf", "/etc/conf", "0000"), ("User=svc\nBindPaths=/data/secret:/mnt/x", "/mnt/x/key", "0700"),
            ("User=svc\nTemporaryFileSystem=/mnt/x:mode=0700", "/mnt/x/n", "0700")
        ] {
            let p = try load(unit)
            let spec = RequestSpec(op: .read, path: path)
            let d = try #require(Evaluator(policy: p).decide(spec, subject: .service("a")))
            #expect(!d.allowed && d.viewWorld != nil)
            let t = TextRenderer(policy: p)
            let json = t.json(d, spec: spec, who: "service:a", semantics: .linux).render()
            #expect(json.contains("\"mode\": \"\(mode)\""), "\(unit): \(json)")
            // The text says the same bits, and the trace's path is the view's.
            #expect(t.oneLine(d).contains("---") || t.oneLine(d).contains("lack"), "\(t.oneLine(d))")
        }
        // A node that exists only in the view (a copy of the source's) renders with its path.
        let p = try load("User=other\nBindPaths=/data/pub:/mnt/x")
        let spec = RequestSpec(op: .write, path: "/mnt/x/f")
        let d = try #require(Evaluator(policy: p).decide(spec, subject: .service("a")))
        #expect(d.errno == .EACCES && Int(d.node) >= p.world.nodes.count, "\(d.node)")
        let t = TextRenderer(policy: p)
        let json = t.json(d, spec: spec, who: "service:a", semantics: .linux).render()
        #expect(json.contains("\"/mnt/x/f\"") && json.contains("\"0644\""), "\(json)")
        #expect(t.trace(d).joined(separator: "\n").contains("/mnt/x/f"), "\(t.trace(d))")
    }
}
