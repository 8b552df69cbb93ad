import FSPolicy
@testable import FSPolicyFormat
import Foundation
import Testing

/// `PolicyLoader.readASCIIText` reads a regular ASCII file straight into the string; every other
/// file goes through `Data` as before. Both ways give the same text, or the same diagnostics.
@Suite("reading a policy file's text")
struct ReadTextTests {
    static func outcome(_ r: PolicyLoader.TextOrFailure) -> String {
        switch r {
        case .text(let t): return "text \(t.utf8.count) bytes: " + t
        case .failed(let p, _): return "failed: " + p.diagnostics.sorted.map { "\($0.code) \($0.rendered)" }.joined(separator: "\n")
        }
    }

    @Test("ASCII, UTF-8, invalid UTF-8, empty, a directory and a missing file: the same outcome both ways")
    func sameBothWays() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-readtext-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ascii = "fspolicy: 1\nsemantics: linux\nexpect:\n  - {as: root, op: read, path: /, result: allow}\n"
        let cases: [(String, [UInt8]?)] = [
            ("ascii.yaml", Array(ascii.utf8)),
            // Lengths around the eight-byte steps of the ASCII check.
            ("short.yaml", Array("fspolicy: 1\n".utf8)),
            ("seven.yaml", Array("x: 1234".utf8)),
            ("utf8.yaml", Array((ascii + "description: caf\u{E9}\n").utf8)),
            ("late-utf8.yaml", Array((ascii + String(repeating: "# pad\n", count: 40) + "# \u{E9}\n").utf8)),
            ("invalid.yaml", Array("fspolicy: 1\ndescription: \"a".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)),
            ("bom.yaml", [0xEF, 0xBB, 0xBF] + Array(ascii.utf8)),
            ("empty.yaml", []),
            ("dir", nil)
        ]
        for (name, bytes) in cases {
            let path = dir.appendingPathComponent(name).path
            if let b = bytes {
                #expect(FileManager.default.createFile(atPath: path, contents: Data(b)))
            } else {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
        }
        for (name, bytes) in cases + [("missing.yaml", nil)] {
            let path = dir.appendingPathComponent(name).path
            let direct = Self.outcome(PolicyLoader.readText(path)), viaData = Self.outcome(PolicyLoader.readText(path, direct: false))
            #expect(direct == viaData, "\(name): read directly: \(direct.prefix(200))\nthrough Data: \(viaData.prefix(200))")
            // Only regular, non-empty ASCII files are read directly.
            let isASCII = bytes.map { !$0.isEmpty && $0.allSatisfy { $0 < 0x80 } } ?? false
            #expect((PolicyLoader.readASCIIText(path) != nil) == isASCII, "\(name)")
            // Read in parts (as a big file is, one a thread), each checked: the same text.
            for parts in [2, 3, 7] {
                #expect(PolicyLoader.readASCIIText(path, parts: parts) == PolicyLoader.readASCIIText(path), "\(name) in \(parts) parts")
            }
        }
        #expect(Self.outcome(PolicyLoader.readText(dir.appendingPathComponent("invalid.yaml").path)).contains("not-utf8"))
        #expect(PolicyLoader.readASCIIText(dir.appendingPathComponent("ascii.yaml").path) == ascii)
    }

    @Test func invalidUTF8IsReportedByTheLoaderBeforeTheReader() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("yaml-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.yaml")
        try Data([0x61, 0x3A, 0x20, 0xC3, 0x28, 0x0A]).write(to: file)
        let p = PolicyLoader.load(path: file.path)
        #expect(p.diagnostics.items.first?.code == "not-utf8", "\(p.diagnostics.items.map(\.rendered))")
    }
}
