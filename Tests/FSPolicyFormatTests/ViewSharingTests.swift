@testable import FSPolicy
@testable import FSPolicyAudit
@testable import FSPolicyFormat
import Foundation
import Testing

/// Services whose units change the same paths in the same way share one view world, and a unit
/// whose directories are already as systemd makes them shares the host's storage: a host with many
/// sandboxed services does not hold a copy of its tree for each.
@Suite("systemd sandbox: service views share their worlds")
struct ViewSharingTests {
    static let units: [(String, String)] = [
        ("a", "User=svc\nPrivateTmp=yes\nInaccessiblePaths=/mnt/x"),
        // The same changes, written in another order and another unit file.
        ("b", "User=other\nInaccessiblePaths=/mnt/x\nPrivateTmp=yes\nProtectSystem=strict"),
        ("c", "User=svc\nInaccessiblePaths=/mnt/y"),
        // Its configuration directory exists, root's, with the mode systemd gives it.
        ("d", "User=other\nConfigurationDirectory=app"),
        ("e", "User=svc\nStateDirectory=app"),
        // a's changes, and a state directory already as systemd makes it (owner, group, 0755).
        ("f", "User=svc\nPrivateTmp=yes\nInaccessiblePaths=/mnt/x\nStateDirectory=mine")
    ]

    func load() throws -> Policy {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-share-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The tree of UnitViewOutputTests, with a /tmp and services of its own.
        var text = String(try #require(UnitViewOutputTests.tree.components(separatedBy: "services:").first))
        text += "  /tmp: {type: dir, owner: root, mode: \"1777\"}\n  /tmp/t: {owner: svc, mode: \"0644\"}\n"
        text += "  /etc/app: {type: dir, owner: root, mode: \"0755\"}\n  /var/lib/mine: {type: dir, owner: svc, group: 100, mode: \"0755\"}\nservices:\n"
        for (name, unit) in Self.units {
            try ("[Service]\n" + unit + "\n").write(toFile: dir + "/\(name).service", atomically: true, encoding: .utf8)
            text += "  \(name): {unit: \(name).service}\n"
        }
        try text.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        let p = PolicyLoader.load(path: dir + "/p.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        return p
    }

    static func storage(_ w: World) -> UnsafeRawPointer? { w.nodes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }

    @Test("equal changes share one world; other changes, or none, do not copy it twice")
    func sharing() throws {
        let p = try load()
        let w = p.world
        let s = w.serviceSubjects()
        #expect(s.count == Self.units.count)
        let boxes = s.map { $0.view?.box }
        let (a, b, c, d, e) = (boxes[0], boxes[1], boxes[2], boxes[3], boxes[4])
        #expect(a != nil && a === b, "a and b change the same paths")
        #expect(c != nil && c !== a)
        #expect(e != nil && e !== a && e !== c)
        #expect(boxes[5] === a, "f's state directory changes nothing")
        // d's directory is already as systemd makes it: its view changes no node, and its
        // decisions walk the host's world.
        #expect(d == nil && s[3].view != nil)
        #expect(Self.storage(try #require(e).world) != Self.storage(w), "e's directory is made")
        // Made one by one, each view is the same.
        for i in s.indices {
            #expect(w.subject(service: i).view == s[i].view)
            #expect(w.subject(service: i).view?.unapplied == s[i].view?.unapplied)
        }
    }

    @Test("a shared view decides as one made alone")
    func sameAnswers() throws {
        let p = try load()
        let w = p.world
        let shared = w.serviceSubjects()
        let auth = Evaluator(policy: p).authorizer
        let paths = ["/tmp/t", "/mnt/x/old", "/mnt/y", "/var/lib/old/f", "/var/lib/app", "/etc/app", "/var/lib/mine", "/etc/conf", "/data/pub/f"]
        var asked = 0
        for i in shared.indices {
            for path in paths {
                for op in [FSPolicy.Operation.read, .write, .create] {
                    let spec = RequestSpec(op: op, path: op == .create ? path + "/n" : path)
                    var alone = Evaluator.makeRequest(spec, subject: w.subject(service: i))
                    var together = Evaluator.makeRequest(spec, subject: shared[i])
                    let x = auth.decide(inPlace: &alone)
                    let y = auth.decide(inPlace: &together)
                    #expect(x == y, "service \(Self.units[i].0) \(op) \(spec.path)")
                    asked += 1
                }
            }
        }
        #expect(asked == Self.units.count * paths.count * 3)
    }
}
