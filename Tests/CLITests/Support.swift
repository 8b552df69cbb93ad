import Foundation
import Testing

/// The package root (two levels above this file's folder).
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The built `fspolicy` binary: `$FSPOLICY_BIN`, else next to the test runner, else `.build/debug`.
func fspolicyBinary() -> String {
    if let b = ProcessInfo.processInfo.environment["FSPOLICY_BIN"], !b.isEmpty { return b }
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let cand = dir.appendingPathComponent("fspolicy").path
            if FileManager.default.isExecutableFile(atPath: cand) { return cand }
            dir = dir.deletingLastPathComponent()
        }
    }
    return packageRoot.appendingPathComponent(".build/debug/fspolicy").path
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var crashed: Bool
}

/// Runs a program with the package root as working directory.
func run(_ executable: String, _ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    p.currentDirectoryURL = packageRoot
    var e = ProcessInfo.processInfo.environment
    e["NO_COLOR"] = "1"
    for (k, v) in env { e[k] = v }
    p.environment = e
    // Output goes to temporary files, so large outputs can never block the child.
    let dir = FileManager.default.temporaryDirectory
    let outURL = dir.appendingPathComponent("fspolicy-test-\(UUID().uuidString).out")
    let errURL = dir.appendingPathComponent("fspolicy-test-\(UUID().uuidString).err")
    precondition(FileManager.default.createFile(atPath: outURL.path, contents: nil), "could not create \(outURL.path)")
    precondition(FileManager.default.createFile(atPath: errURL.path, contents: nil), "could not create \(errURL.path)")
    defer {
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }
    let outH = try FileHandle(forWritingTo: outURL), errH = try FileHandle(forWritingTo: errURL)
    let inp = Pipe()
    p.standardOutput = outH
    p.standardError = errH
    p.standardInput = inp
    try p.run()
    if let s = stdin { inp.fileHandleForWriting.write(Data(s.utf8)) }
    try? inp.fileHandleForWriting.close()
    p.waitUntilExit()
    try? outH.close()
    try? errH.close()
    let outData = (try? Data(contentsOf: outURL)) ?? Data()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return RunResult(
        status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), crashed: p.terminationReason == .uncaughtSignal)
}

/// Runs the built fspolicy; fails the test with a clear message when it is missing.
func fspolicy(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> RunResult {
    let bin = fspolicyBinary()
    guard FileManager.default.isExecutableFile(atPath: bin) else {
        Issue.record("the fspolicy binary is missing at \(bin): run `swift build` first (or set FSPOLICY_BIN)")
        throw CancellationError()
    }
    return try run(bin, args, stdin: stdin, env: env)
}

/// Compares `actual` with the golden file; `FSPOLICY_RECORD=1` rewrites it and fails on purpose.
func assertGolden(_ actual: String, _ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = packageRoot.appendingPathComponent(relativePath)
    if ProcessInfo.processInfo.environment["FSPOLICY_RECORD"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded \(relativePath); run again without FSPOLICY_RECORD", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("missing golden file \(relativePath) (record it with FSPOLICY_RECORD=1)", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "output differs from \(relativePath)", sourceLocation: sourceLocation)
}

/// Finds a tool on PATH.
func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: p) { return p }
    }
    return nil
}
