import Testing
import Foundation
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport

/// `MemoryAdvice.tuneAllocator` (called by the command line at its start).
@Suite struct MemoryAdviceTests {
    /// On Linux with glibc the setting is found and taken; a build that lost the lookup (or
    /// asked with a parameter glibc refuses) fails here rather than silently doing nothing.
    @Test func allocatorSettingIsTaken() {
        #if os(Linux) && canImport(Glibc)
            #expect(MemoryAdvice.tuneAllocator())
            // Taken twice is the same setting, and memory is still handed out and given back as before.
            #expect(MemoryAdvice.tuneAllocator())
            let strings = (0..<10_000).map { "/srv/a/path/number/\($0)" }
            #expect(strings.count == 10_000 && strings[9_999] == "/srv/a/path/number/9999")
        #else
            #expect(!MemoryAdvice.tuneAllocator())
        #endif
    }

    /// Every command has the allocator tuned but `scan` (whose threads kept more memory with it).
    @Test func everyCommandButScanIsTuned() {
        #expect(!MemoryAdvice.wanted(arguments: ["fspolicy", "scan", "/etc", "-o", "etc.yaml"]))
        for command in ["check", "validate", "can", "explain", "who", "matrix", "diff", "lint", "fmt", "report"] {
            #expect(MemoryAdvice.wanted(arguments: ["fspolicy", command, "policy.yaml"]), "\(command)")
        }
        // Only the subcommand's own place counts: a path named `scan` is not the command.
        #expect(MemoryAdvice.wanted(arguments: ["fspolicy", "validate", "scan"]))
        #expect(MemoryAdvice.wanted(arguments: ["fspolicy"]))
    }
}
