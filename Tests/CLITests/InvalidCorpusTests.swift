import Foundation
import Testing

/// The corpus of user mistakes in fixtures/invalid/: each `<name>.yaml` is run through the BUILT
/// `fspolicy validate` (working directory: the package root) and its stderr must equal
/// `<name>.expected` byte for byte. Re-record a case on purpose with `FSPOLICY_RECORD=1`.
///
/// The binary is `$FSPOLICY_BIN`, else the `fspolicy` built next to the test runner, else
/// `.build/debug/fspolicy` (see `fspolicyBinary()` in Support.swift). A missing binary is a test
/// failure telling you to run `swift build`, never a silent skip.
@Suite("Invalid-input corpus")
struct InvalidCorpusTests {
    static let corpusDir = "fixtures/invalid"

    /// In `.expected` files, the package root's absolute path is written as this placeholder so
    /// the corpus does not depend on where the checkout lives.
    static let rootPlaceholder = "$ROOT/"

    /// Every `*.yaml` directly in fixtures/invalid (helper files live in subfolders), sorted.
    static func caseNames() -> [String] {
        let dir = packageRoot.appendingPathComponent(corpusDir)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) }.sorted()
    }

    /// `fixtures/invalid/<file>:<line>:<column>: error: <message>`
    static func isDiagnosticLine(_ s: String) -> Bool { s.wholeMatch(of: #/fixtures/invalid/[^:]+:\d+:\d+: error: .*/#) != nil }
    /// `  help: <hint>`
    static func isHelpLine(_ s: String) -> Bool { s.wholeMatch(of: #/  help: .+/#) != nil }

    @Test("the corpus is there and every case has its expected output")
    func corpusIsComplete() throws {
        let names = Self.caseNames()
        #expect(names.count >= 30, "fixtures/invalid holds \(names.count) cases; expected at least 30")
        for n in names {
            let expected = packageRoot.appendingPathComponent("\(Self.corpusDir)/\(n).expected").path
            #expect(FileManager.default.fileExists(atPath: expected), "\(Self.corpusDir)/\(n).yaml has no \(n).expected")
        }
        let readme = packageRoot.appendingPathComponent("\(Self.corpusDir)/README.md")
        let text = (try? String(contentsOf: readme, encoding: .utf8)) ?? ""
        for n in names {
            #expect(text.contains("`\(n)`"), "\(Self.corpusDir)/README.md does not list `\(n)`")
        }
    }

    @Test("validate reports the expected diagnostics", arguments: caseNames())
    func invalidCase(_ name: String) throws {
        let input = "\(Self.corpusDir)/\(name).yaml"
        let expectedPath = "\(Self.corpusDir)/\(name).expected"
        let r = try fspolicy(["validate", input])

        #expect(!r.crashed, "fspolicy validate \(input) was killed by a signal (status \(r.status)); stderr:\n\(r.stderr)")
        #expect(r.status == 3, "fspolicy validate \(input) exited \(r.status), expected 3 (invalid input); stderr:\n\(r.stderr)")
        #expect(r.stdout.isEmpty, "fspolicy validate \(input) printed on stdout:\n\(r.stdout)")

        // Exact stderr, with the checkout's absolute path folded back into the placeholder.
        var actual = r.stderr
        for root in Set([packageRoot.path, packageRoot.resolvingSymlinksInPath().path]) {
            actual = actual.replacingOccurrences(of: root + "/", with: Self.rootPlaceholder)
        }
        let expectedURL = packageRoot.appendingPathComponent(expectedPath)
        if ProcessInfo.processInfo.environment["FSPOLICY_RECORD"] == "1" {
            try actual.write(to: expectedURL, atomically: true, encoding: .utf8)
            Issue.record("recorded \(expectedPath); run again without FSPOLICY_RECORD")
            return
        }
        guard let expected = try? String(contentsOf: expectedURL, encoding: .utf8) else {
            Issue.record("missing \(expectedPath) (record it with FSPOLICY_RECORD=1, then review it)")
            return
        }
        #expect(
            actual == expected,
            "stderr of `fspolicy validate \(input)` differs from \(expectedPath) (binary: \(fspolicyBinary()); rebuild with `swift build` if it is stale)")

        // Every line is a diagnostic about a corpus file, or its help line.
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "stderr does not end with a newline")
        let body = lines.dropLast()
        #expect(!body.isEmpty, "no diagnostics at all for \(input)")
        let checkLines = {
            let first = body.first.map(String.init) ?? "<none>"
            #expect(Self.isDiagnosticLine(first), "the first stderr line is not a `fixtures/invalid/…:L:C: error: …` diagnostic: \(first)")
            let bad = body.map(String.init).filter { !Self.isDiagnosticLine($0) && !Self.isHelpLine($0) }
            #expect(bad.isEmpty, "lines that are neither `fixtures/invalid/…:L:C: error: …` nor `  help: …`:\n\(bad.joined(separator: "\n"))")
        }
        checkLines()
    }

    /// 200 deterministic random mutations of a valid example: a crash (signal), a hang or an exit
    /// code other than 0 (valid) or 3 (invalid) is a failure.
    @Test("validate never crashes on mutated input")
    func mutationsNeverCrash() throws {
        let bin = fspolicyBinary()
        guard FileManager.default.isExecutableFile(atPath: bin) else {
            Issue.record("the fspolicy binary is missing at \(bin): run `swift build` first (or set FSPOLICY_BIN)")
            return
        }
        let sourcePath = "fixtures/examples/team-share/policy.yaml"
        let original = try String(contentsOf: packageRoot.appendingPathComponent(sourcePath), encoding: .utf8)

        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("fspolicy-mutations-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        var rng = SplitMix64(seed: 0x5EED_F5B0_11C7)
        var counts: [Int32: Int] = [:]
        for i in 0..<200 {
            let (mutated, what) = Self.mutate(original, using: &rng)
            let file = dir.appendingPathComponent(String(format: "mutation-%03d.yaml", i))
            try mutated.write(to: file, atomically: true, encoding: .utf8)
            let r = try Self.runWithTimeout(bin, ["validate", file.path], seconds: 30)
            counts[r.status, default: 0] += 1
            let ok = !r.timedOut && !r.crashed && (r.status == 0 || r.status == 3)
            if !ok {
                // The temp file is removed afterwards, so the failing input is printed here.
                Issue.record(
                    """
                    mutation \(i) (\(what)) of \(sourcePath): \(r.timedOut ? "timed out" : r.crashed ? "crashed with signal \(r.status)" : "exited \(r.status)")
                    stderr:
                    \(r.stderr)
                    input:
                    \(mutated)
                    """)
            }
        }
        // The mutations must exercise both outcomes, or they are not testing much.
        #expect(counts[3, default: 0] > 0, "no mutation was invalid: \(counts)")
    }

    // MARK: Mutations

    static func mutate(_ text: String, using rng: inout SplitMix64) -> (String, String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch rng.next() % 3 {
        case 0:
            var chars = Array(text)
            guard !chars.isEmpty else { return (text, "nothing to delete") }
            let at = Int(rng.next() % UInt64(chars.count))
            let removed = chars.remove(at: at)
            return (String(chars), "deleted character \(at) \(String(reflecting: String(removed)))")
        case 1:
            let at = Int(rng.next() % UInt64(lines.count))
            lines.insert(lines[at], at: at)
            return (lines.joined(separator: "\n"), "duplicated line \(at + 1)")
        default:
            let a = Int(rng.next() % UInt64(lines.count)), b = Int(rng.next() % UInt64(lines.count))
            lines.swapAt(a, b)
            return (lines.joined(separator: "\n"), "swapped lines \(a + 1) and \(b + 1)")
        }
    }

    struct TimedRun {
        var status: Int32
        var crashed: Bool
        var timedOut: Bool
        var stderr: String
    }

    /// Runs a program (package root as working directory), killing it after `seconds`.
    static func runWithTimeout(_ executable: String, _ args: [String], seconds: Double) throws -> TimedRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.currentDirectoryURL = packageRoot
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        p.environment = env
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-mutation-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errH = try FileHandle(forWritingTo: errURL)
        defer { try? errH.close() }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = errH
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(seconds)
        var timedOut = false
        while p.isRunning {
            if Date() > deadline {
                p.terminate()
                timedOut = true
                break
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        p.waitUntilExit()
        let err = (try? Data(contentsOf: errURL)) ?? Data()
        return TimedRun(
            status: p.terminationStatus, crashed: !timedOut && p.terminationReason == .uncaughtSignal,
            timedOut: timedOut, stderr: String(decoding: err, as: UTF8.self))
    }
}

/// A small deterministic generator (SplitMix64), so the mutations are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
