import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// Input shapes that used to cost time or memory out of proportion to their size (issue 13's
/// blow-ups, issue 20's quadratic stages). Each would take minutes or hours with the old
/// algorithm; the assertions check that the answers stay right with the new one.
@Suite("Scale: shapes that must stay linear")
struct ScaleTests {
    /// A temporary directory, removed by the caller.
    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    @Test("each imported file is compiled once: 20 levels, each importing the next twice")
    func importDiamonds() throws {
        let dir = try ScaleTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let levels = 20
        for i in 0..<levels {
            var text = "fspolicy: 1\nsemantics: linux\n"
            if i + 1 < levels { text += "import:\n  - policy: ./f\(i + 1).yaml\n  - policy: ./f\(i + 1).yaml\n" }
            text += "tree:\n  /l\(i): {type: dir, mode: \"0750\"}\n"
            try text.write(to: dir.appendingPathComponent("f\(i).yaml"), atomically: true, encoding: .utf8)
        }
        let p = PolicyLoader.load(path: dir.appendingPathComponent("f0.yaml").path)
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        for i in 0..<levels {
            let n = try #require(p.world.lookup("/l\(i)"))
            #expect(p.world[n].mode == FileMode(0o750))
        }
    }

    @Test("an import cycle reached by two paths is still reported")
    func cycleThroughTwoPaths() throws {
        let dir = try ScaleTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "fspolicy: 1\nimport:\n  - policy: ./b.yaml\n  - policy: ./c.yaml\n".write(
            to: dir.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try "fspolicy: 1\nimport:\n  - policy: ./c.yaml\n".write(to: dir.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        try "fspolicy: 1\nimport:\n  - policy: ./b.yaml\n".write(to: dir.appendingPathComponent("c.yaml"), atomically: true, encoding: .utf8)
        let p = PolicyLoader.load(path: dir.appendingPathComponent("a.yaml").path)
        let cycles = p.diagnostics.items.filter { $0.code == "import-cycle" }
        #expect(cycles.count == 2, "\(cycles.map(\.message))")
    }

    @Test("a chain of 3,000 nested groups: the user is in every one of them, the next group's user in none but its own")
    func nestedGroupChain() {
        let n = 3_000
        var text = "fspolicy: 1\nsemantics: linux\ngroups:\n"
        for i in 0..<n {
            text += "  g\(i): {gid: \(10_000 + i)" + (i > 0 ? ", groups: [g\(i - 1)]" : "") + "}\n"
        }
        text += "users:\n  u: {uid: 500, group: g0}\n  v: {uid: 501, group: g\(n - 1)}\n"
        let p = PolicyLoader.load(text: text, file: "chain.yaml")
        #expect(!p.diagnostics.hasErrors)
        let s = p.world.subject(uid: 500)
        // A world read from Linux puts nobody in gid 12 (`everyone` is macOS's).
        #expect(s.groups.count == n, "every group of the chain")
        #expect(s.nestedOnly.count == n - 1, "all but the primary group come by nesting")
        let v = p.world.subject(uid: 501)
        #expect(Set(v.groups) == [GID(10_000 + n - 1)])
    }

    @Test("5,000 users: declared users replace builtin ones by name or uid, in declaration order")
    func manyUsers() {
        let n = 5_000
        var text = "fspolicy: 1\nsemantics: linux\nusers:\n  toor: {uid: 0}\n"
        for i in 0..<n { text += "  u\(i): {uid: \(1000 + i)}\n" }
        text += "tree:\n  /srv/f: {owner: u\(n - 1), mode: \"0600\"}\n"
        let p = PolicyLoader.load(text: text, file: "users.yaml")
        #expect(!p.diagnostics.hasErrors)
        #expect(p.world.user(named: "root") == nil, "uid 0 declared as toor replaces root")
        #expect(p.world.user(uid: 0)?.name == "toor")
        #expect(p.userOrder.count == n + 1)
        #expect(p.userOrder.first == "toor" && p.userOrder.last == "u\(n - 1)")
        let ev = Evaluator(policy: p)
        let allowed = ev.who(RequestSpec(op: .read, path: "/srv/f")).filter { $0.decision.allowed }.map(\.name)
        #expect(allowed == ["toor", "u\(n - 1)"])
    }

    @Test("20,000 tree entries in any order: implied directories, types and duplicates as before")
    func manyEntries() {
        var text = "fspolicy: 1\nsemantics: linux\ntree:\n"
        // Deepest first, so every parent is declared after its children.
        for d in (0..<100).reversed() {
            for f in 0..<200 { text += "  /srv/d\(d)/f\(f): {mode: \"0600\"}\n" }
            text += "  /srv/d\(d): {mode: \"0700\"}\n"
        }
        text += "  /srv/d7/f3: {mode: \"0644\"}\n"
        let p = PolicyLoader.load(text: text, file: "tree.yaml")
        let dups = p.diagnostics.items.filter { $0.code == "duplicate-key" }
        #expect(dups.count == 1 && dups.first?.location.line == 3 + 100 * 201 + 1)
        #expect(p.world.nodeCount == 1 + 1 + 100 + 100 * 200)
        if let d = p.world.lookup("/srv/d23") {
            #expect(p.world[d].type == .dir && p.world[d].mode == FileMode(0o700))
        } else {
            Issue.record("/srv/d23 missing")
        }
        if let f = p.world.lookup("/srv/d23/f199") { #expect(p.world[f].type == .file) } else { Issue.record("file missing") }
    }

    @Test("steps keep no world per step: every world between 120 steps is made again exactly, in any order")
    func stepWorlds() {
        var text = "fspolicy: 1\nsemantics: linux\nusers:\n  u: {uid: 500}\ntree:\n  /tmp: {type: dir, mode: \"1777\"}\nsteps:\n"
        for k in 0..<120 {
            text += k % 3 == 2 ? "  - {as: u, op: chmod, path: /tmp/f\(k - 1), mode: \"0600\"}\n" : "  - {as: u, op: create, path: /tmp/f\(k)}\n"
        }
        text += "expect:\n  - {as: u, op: read, path: /tmp/f0, result: allow, after: 17}\n"
        let p = PolicyLoader.load(text: text, file: "steps.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        #expect(ev.worlds.count == 121 && ev.stepOutcomes.allSatisfy(\.decision.allowed))
        var order = Array(0...120)
        var g = SystemRandomNumberGenerator()
        order.shuffle(using: &g)
        for k in order + [5, 6, 7, 120, 0, 17, 16] {
            let w = ev.world(after: k)
            // After k steps: files f(j) for every create among the first k steps, chmodded when
            // the chmod after it ran too.
            for j in 0..<120 where j % 3 != 2 {
                let n = w.lookup("/tmp/f\(j)")
                #expect((n != nil) == (j < k), "after \(k) steps, /tmp/f\(j)")
                if let n, j % 3 == 1 { #expect(w[n].mode == FileMode(j + 1 < k ? 0o600 : 0o644), "after \(k): mode of f\(j)") }
            }
        }
    }
}
