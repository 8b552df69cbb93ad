import Foundation
import Testing

/// The fuzz targets' properties (Sources/fspolicy-fuzz), checked on the seed corpus and on every
/// input a fuzzer ever found (fuzz/findings/TARGET): an ordinary build replays them, so a bug a
/// fuzzer found stays fixed. `scripts/fuzz TARGET SECONDS` does the fuzzing itself.
@Suite("Fuzz targets: seeds and past findings replayed")
struct FuzzReplayTests {
    static let corpora: [(String, [String])] = [
        ("loader", ["fixtures", "fuzz/findings/loader"]),
        ("fmt", ["fixtures", "fuzz/findings/fmt"]),
        ("ace", ["fuzz/seeds/ace", "fuzz/findings/ace"]),
        ("getfacl", ["fuzz/seeds/getfacl", "fuzz/findings/getfacl"]),
        ("scanwriter", ["fuzz/seeds/scanwriter", "fuzz/findings/scanwriter"]),
        ("tar", ["fuzz/seeds/tar", "fuzz/findings/tar"]),
        ("oci", ["fuzz/seeds/oci", "fuzz/findings/oci"]),
        ("lsle", ["fuzz/seeds/lsle", "fuzz/findings/lsle"]),
        ("plist", ["fuzz/seeds/plist", "fuzz/findings/plist"])
    ]

    /// Every folder of findings is replayed by some target (a target added without its
    /// findings' folder here would leave them unreplayed).
    @Test func everyFindingIsReplayed() throws {
        let root = packageRoot.appendingPathComponent("fuzz/findings").path
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for f in folders where !f.hasPrefix(".") {
            #expect(Self.corpora.contains { $0.1.contains("fuzz/findings/" + f) }, "fuzz/findings/\(f) is replayed by no target")
        }
    }

    static func fuzzBinary() -> String {
        URL(fileURLWithPath: fspolicyBinary()).deletingLastPathComponent().appendingPathComponent("fspolicy-fuzz").path
    }

    @Test("every property holds on the seeds and past findings", arguments: corpora.map(\.0))
    func replay(_ target: String) throws {
        let bin = Self.fuzzBinary()
        guard FileManager.default.isExecutableFile(atPath: bin) else {
            Issue.record("fspolicy-fuzz is missing at \(bin): run `swift build --build-tests`"); return
        }
        let dirs = Self.corpora.first { $0.0 == target }!.1.filter {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent($0).path)) ?? []
            return files.contains { !$0.hasPrefix(".") }
        }
        #expect(!dirs.isEmpty, "no seeds for \(target)")
        let r = try run(bin, [target] + dirs, env: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(r.status == 0 && !r.crashed, "\(target): \(r.stderr.prefix(4000))")
        #expect(r.stdout.contains("every property held"))
    }

    @Test("a misconfigured replay fails: an unknown target, an empty corpus")
    func misconfiguredReplayFails() throws {
        // So that a replay with a wrong path can never pass without reading anything.
        let bin = Self.fuzzBinary()
        let unknown = try run(bin, ["nosuch", "fixtures"])
        #expect(unknown.status == 64)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-fuzz-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try run(bin, ["loader", empty.path])
        #expect(none.status == 66, "an empty corpus must not pass: \(none.stderr)")
    }
}
