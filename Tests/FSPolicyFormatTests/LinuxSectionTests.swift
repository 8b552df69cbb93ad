import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// The `linux:` section (Linux's fs.protected_* sysctls) across imports.
@Suite("The linux: section")
struct LinuxSectionTests {
    @Test("linux: the values an imported file sets come over; the importing file's own keys win; unset keys keep the defaults")
    func linuxSectionThroughImports() throws {
        let dir = try ScaleTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "fspolicy: 1\nsemantics: linux\nlinux: {protectedSymlinks: 0, protectedRegular: 1}\n"
            .write(to: dir.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
        try "fspolicy: 1\nsemantics: linux\nimport:\n  - policy: ./base.yaml\nlinux:\n  protectedRegular: 0\n"
            .write(to: dir.appendingPathComponent("top.yaml"), atomically: true, encoding: .utf8)
        let p = PolicyLoader.load(path: dir.appendingPathComponent("top.yaml").path)
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.linux == LinuxTunables(protectedHardlinks: 1, protectedSymlinks: 0, protectedRegular: 0, protectedFifos: 1))
        // Each value's location: the line that set it, in its own file.
        #expect(p.linuxLocations["protectedSymlinks"]?.file.hasSuffix("base.yaml") == true)
        #expect(p.linuxLocations["protectedRegular"]?.line == 6)
        #expect(p.linuxLocations["protectedFifos"] == nil)
    }
}
