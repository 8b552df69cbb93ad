import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM in the middle of a write: the real binary, started on a large input, is
/// interrupted once its temporary file or folder exists; nothing it made may be left, an
/// existing `--output` target keeps its content, and the exit status is 130 or 143.
@Suite(.serialized) struct SignalTests {
    static func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-signal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        return d
    }

    /// Whether this process ignores `sig` (its children would start ignoring it too).
    static func ignored(_ sig: Int32) -> Bool {
        var old = sigaction()
        return sigaction(sig, nil, &old) == 0 && unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Starts fspolicy in `dir`, waits until `ready` says its temporary path exists, sends
    /// `sig`, and returns how it ended; nil when the command finished before (too fast a machine).
    static func interrupt(
        _ args: [String], in dir: String, env: [String: String] = [:], signal sig: Int32,
        ready: () -> Bool
    ) throws -> (status: Int32, reason: Process.TerminationReason, stderr: String)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: fspolicyBinary())
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        var seen = false
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline {
            if ready() { seen = true; break }
            usleep(2_000)
        }
        if seen { kill(p.processIdentifier, sig) }
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return seen ? (p.terminationStatus, p.terminationReason, errText) : nil
    }

    static func entries(_ d: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []).sorted()
    }

    @Test("SIGINT and SIGTERM during check --output remove the temporary file and keep the old target")
    func interruptedCheckLeavesNothing() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        var text =
            "fspolicy: 1\nsemantics: linux\nusers:\n  bob: {uid: 1000}\ntree:\n  /srv: {type: dir, mode: \"0755\"}\n  /srv/f: {mode: \"0644\"}\nexpect:\n"
        text += String(repeating: "  - {as: bob, op: read, path: /srv/f, result: allow}\n", count: 300_000)
        try text.write(toFile: d + "/big.yaml", atomically: false, encoding: .utf8)
        for sig in [SIGINT, SIGTERM] where !Self.ignored(sig) {
            try "old\n".write(toFile: d + "/out.json", atomically: false, encoding: .utf8)
            let r = try Self.interrupt(["check", "--format", "json", "big.yaml", "--output", "out.json"], in: d, signal: sig) {
                Self.entries(d).contains { $0.hasPrefix(".out.json.fspolicy-") }
            }
            guard let r else { print("SignalTests: check finished before its temporary file was seen; signal \(sig) not tested"); continue }
            #expect(r.reason == .exit && r.status == 128 + sig, "signal \(sig): \(r.reason) \(r.status) \(r.stderr)")
            #expect(Self.entries(d) == ["big.yaml", "out.json"], "signal \(sig) left \(Self.entries(d))")
            #expect(try String(contentsOfFile: d + "/out.json", encoding: .utf8) == "old\n")
        }
    }

    @Test("SIGINT and SIGTERM while scan --oci unpacks an image archive remove the temporary folder")
    func interruptedOCIUnpackLeavesNothing() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        // An image archive (`docker save` style: a layout in a tar), with a large file beside the
        // layout so unpacking it takes a while. The temporary folder goes under our own TMPDIR.
        try FileManager.default.createDirectory(atPath: d + "/tmp", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: packageRoot.path + "/fixtures/examples/image-oci/layout", toPath: d + "/layout")
        let made = try run(
            "/bin/sh",
            [
                "-c",
                "cd \"$1/layout\" && head -c 400000000 /dev/zero > padding && tar -czf ../packed.tar.gz padding oci-layout index.json blobs && rm -rf \"$1/layout\"",
                "sh", d
            ])
        #expect(made.status == 0, "\(made.stderr)")
        for sig in [SIGINT, SIGTERM] where !Self.ignored(sig) {
            let r = try Self.interrupt(["scan", "--oci", "packed.tar.gz", "-o", "out.yaml"], in: d, env: ["TMPDIR": d + "/tmp"], signal: sig) {
                Self.entries(d + "/tmp").contains { $0.hasPrefix("fspolicy-oci-") && !Self.entries(d + "/tmp/" + $0).isEmpty }
            }
            guard let r else { print("SignalTests: scan --oci finished before its folder was seen; signal \(sig) not tested"); continue }
            #expect(r.reason == .exit && r.status == 128 + sig, "signal \(sig): \(r.reason) \(r.status) \(r.stderr)")
            #expect(Self.entries(d + "/tmp") == [], "signal \(sig) left \(Self.entries(d + "/tmp"))")
            #expect(Self.entries(d) == ["packed.tar.gz", "tmp"], "signal \(sig) left \(Self.entries(d))")
        }
    }
}
