@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

// A chain of files each importing the next is loaded by nested calls; a chain deep enough
// overflowed the stack (a 1,000-file chain crashed a release build, 256 a debug build). The
// chain is now bounded (`Limits.importDepth`, docs/policy-format.md "Limits").

private func chain(_ n: Int, in dir: URL) throws -> String {
    for i in 0..<n {
        var text = "fspolicy: 1\nsemantics: linux\n"
        if i + 1 < n { text += "import:\n  - policy: ./f\(i + 1).yaml\n" }
        text += "tree:\n  /l\(i)/f: {mode: \"0640\"}\n"
        try text.write(to: dir.appendingPathComponent("f\(i).yaml"), atomically: true, encoding: .utf8)
    }
    return dir.appendingPathComponent("f0.yaml").path
}

@Test("an import chain as deep as the limit loads; one file more is refused with the limit named")
func importChainDepthLimit() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-importdepth-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let n = Limits.importDepth
    let ok = PolicyLoader.load(path: try chain(n, in: dir))
    #expect(!ok.diagnostics.hasErrors, "\(ok.diagnostics.items.prefix(3).map(\.rendered))")
    #expect(ok.world.lookup("/l\(n - 1)/f") != nil, "the last file of the chain is loaded")

    let deep = dir.appendingPathComponent("deep")
    try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
    let bad = PolicyLoader.load(path: try chain(n + 1, in: deep))
    let limits = bad.diagnostics.items.filter { $0.code == "limit" }
    #expect(limits.count == 1)
    #expect(limits.first?.message.contains("more than \(n) files deep") == true)
    #expect(limits.first?.location.file.hasSuffix("f\(n - 1).yaml") == true, "reported where the chain passes the limit")

    // Far deeper chains are refused the same way, without exhausting the stack.
    let deeper = dir.appendingPathComponent("deeper")
    try FileManager.default.createDirectory(at: deeper, withIntermediateDirectories: true)
    let refused = PolicyLoader.load(path: try chain(2_000, in: deeper))
    #expect(refused.diagnostics.items.contains { $0.code == "limit" })
}

@Test("imported users and groups end as if each import were merged in turn (a later import of a name wins and moves it last), in one pass")
func importedPrincipalsMergeInOrder() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-importmerge-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let files = [
        "a": "users:\n  x: {uid: 2001}\n  y: {uid: 2002}\ngroups:\n  g1: {gid: 3001}\n",
        "b": "users:\n  y: {uid: 2012}\n  z: {uid: 2003}\ngroups:\n  g1: {gid: 3011}\n  g2: {gid: 3002}\n",
        "c": "users:\n  x: {uid: 2021}\n  w: {uid: 2004}\ngroups:\n  g3: {gid: 3003, members: [w]}\n"
    ]
    for (name, body) in files {
        try ("fspolicy: 1\nsemantics: linux\n" + body).write(to: dir.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
    }
    let order = ["a", "b", "c", "a", "b"]
    let root = dir.appendingPathComponent("root.yaml")
    try ("fspolicy: 1\nsemantics: linux\nimport:\n" + order.map { "  - policy: ./\($0).yaml\n" }.joined())
        .write(to: root, atomically: true, encoding: .utf8)
    let loaded = PolicyLoader.load(path: root.path)
    #expect(!loaded.diagnostics.hasErrors, "\(loaded.diagnostics.items.prefix(3).map(\.rendered))")

    // The rule, one import at a time, from the worlds each file loads to on its own.
    let empty = PolicyLoader.load(text: "fspolicy: 1\nsemantics: linux\n", file: "empty.yaml")
    var users = empty.world.users.map { "\($0.name):\($0.uid)" }
    var groups = empty.world.groups.map { "\($0.name):\($0.gid):\($0.members)" }
    for name in order {
        let w = PolicyLoader.load(path: dir.appendingPathComponent("\(name).yaml").path).world
        let un = Set(w.users.map(\.name)), gn = Set(w.groups.map(\.name))
        users = users.filter { !un.contains(String($0.split(separator: ":")[0])) } + w.users.map { "\($0.name):\($0.uid)" }
        groups = groups.filter { !gn.contains(String($0.split(separator: ":")[0])) } + w.groups.map { "\($0.name):\($0.gid):\($0.members)" }
    }
    #expect(loaded.world.users.map { "\($0.name):\($0.uid)" } == users)
    #expect(loaded.world.groups.map { "\($0.name):\($0.gid):\($0.members)" } == groups)
    // The last import of each name decides it: y from b (last), x from a (imported again after c).
    #expect(loaded.world.user(named: "y")?.uid == 2012)
    #expect(loaded.world.user(named: "x")?.uid == 2001)
    #expect(loaded.world.group(named: "g1")?.gid == 3011)
    #expect(loaded.world.group(named: "g3")?.members == [2004])
}
