import Foundation
import Testing

/// Binary property lists are checked before Foundation reads them: a `set` object (which no
/// property list holds) crashed the loader inside Foundation with a segmentation fault (the
/// `plist` fuzz target's finding, fuzz/findings/plist/binary-plist-with-a-set-crashed-foundation).
@Suite("binary property lists")
struct PlistCheckTests {
    @Test func malformedBinaryPlistsAreRefusedValidOnesRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let policy = dir.appendingPathComponent("p.yaml").path
        try """
        fspolicy: 1
        semantics: macos
        users:
          alice: {uid: 501, group: staff}
        apps:
          com.example.A:
            user: alice
            entitlements: ./app.plist
        """.write(toFile: policy, atomically: true, encoding: .utf8)
        let plist = dir.appendingPathComponent("app.plist")
        let finding = packageRoot.appendingPathComponent("fuzz/findings/plist/binary-plist-with-a-set-crashed-foundation")
        try Data(contentsOf: finding).write(to: plist)
        let bad = try fspolicy(["validate", policy])
        #expect(bad.status == 3 && !bad.crashed, "\(bad.stderr)")
        #expect(bad.stderr.contains("is not a property list: a set, which no property list holds"), "\(bad.stderr)")
        // An array that holds itself: object 0 is an array of one reference, to object 0.
        var cyclic: [UInt8] = Array("bplist00".utf8) + [0xA1, 0x00]  // array of 1, ref 0
        cyclic += [0x08]  // offset table: object 0 at 8
        cyclic += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1]  // sizes; 1 object
        cyclic += [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]  // top 0; table at 10
        try Data(cyclic).write(to: plist)
        let loop = try fspolicy(["validate", policy])
        #expect(loop.status == 3 && loop.stderr.contains("an object contains itself"), "\(loop.stderr)")
        // A binary plist as Python's plistlib writes it is read.
        let seed = packageRoot.appendingPathComponent("fuzz/seeds/plist/02-binary.plist")
        try? FileManager.default.removeItem(at: plist)
        try FileManager.default.copyItem(at: seed, to: plist)
        let good = try fspolicy(["validate", policy])
        #expect(good.status == 0, "\(good.stderr)")
    }
}
