@testable import FSPolicyFormat
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
