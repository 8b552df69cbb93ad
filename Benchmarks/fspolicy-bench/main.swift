import FSPolicy
import Foundation

// fspolicy-bench — speed and size figures for docs/performance.md.
//   fspolicy-bench [nodes] [decisions] [repeats]      the simulator (default 100000 1000000 5)
//   fspolicy-bench kernel [nodes] [repeats] [FSPOLICY] the same questions to the Linux kernel (root); with FSPOLICY, also `can --batch`
//   fspolicy-bench memory [nodes]                     bytes per node of a world (default 1000000)
//   fspolicy-bench growth [decisions] [repeats]       cost by tree size, path depth, ACL length
//   fspolicy-bench matrix [nodes] [users] [scanfile]  the set engine: every node × user × read/write/execute
//   fspolicy-bench matrix-kernel nodes users FSPOLICY [KERNEL_USERS]
//                                                     `fspolicy matrix` against the kernel on a real tree (root);
//                                                     the kernel asked for root and KERNEL_USERS users (default: all)
//   fspolicy-bench diff [nodes] [users] [changes]     WorldDiff of two worlds differing in a few nodes
//   fspolicy-bench worker FILE REPEATS                (internal: one user's faccessat loop)
//   fspolicy-bench matrix-worker FILE                 (internal: one user's faccessat pass for matrix-kernel)

func nanoseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
}

/// The kernel workers' pattern, in process: user after user, one untimed pass over that user's
/// questions (the worker's answer pass), then `repeats` timed passes. The figure is the timed
/// total over the timed decisions; the median of `rounds` rounds.
func measurePerUser(_ world: World, _ blocks: [[Request]], semantics: Semantics, repeats: Int, rounds: Int) -> Double {
    let auth = Authorizer(world: world, semantics: semantics, tracing: false)
    let clock = ContinuousClock()
    var samples: [Double] = []
    var sink = 0
    for _ in 0..<rounds {
        var total = 0.0
        var count = 0
        for block in blocks where !block.isEmpty {
            // Borrowed from the buffer, as in `measureSimulator`: the harness does not copy (and
            // retain) each request; the kernel's worker does not copy its questions either.
            // Each request decided where it is (`decide(inPlace:)`), as the kernel's worker reads
            // its questions where they are: the harness does not copy (and retain) them.
            var block = block
            for i in block.indices where auth.decide(inPlace: &block[i]).allowed { sink += 1 }
            let start = clock.now
            for _ in 0..<repeats {
                for i in block.indices where auth.decide(inPlace: &block[i]).allowed { sink += 1 }
            }
            total += nanoseconds(clock.now - start)
            count += block.count * repeats
        }
        samples.append(total / Double(count))
    }
    withExtendedLifetime(sink) {}
    samples.sort()
    return samples[samples.count / 2]
}

/// Median ns per decision over `repeats` runs of `decisions` decisions, tracing off.
func measureSimulator(_ world: World, _ requests: [Request], semantics: Semantics, decisions: Int, repeats: Int) -> (ns: Double, allowed: Int) {
    let auth = Authorizer(world: world, semantics: semantics, tracing: false)
    var samples: [Double] = []
    var allowed = 0
    // Each request decided where it is (`decide(inPlace:)`): the harness does not copy (and
    // retain) it. The array is made the harness's own once, before any timing.
    var requests = requests
    requests.withUnsafeMutableBufferPointer { _ in }
    for _ in 0..<repeats {
        let clock = ContinuousClock()
        var a = 0
        let start = clock.now
        var i = 0
        let n = requests.count
        requests.withUnsafeMutableBufferPointer { buf in
            while i < decisions {
                if auth.decide(inPlace: &buf[i % n]).allowed { a += 1 }
                i += 1
            }
        }
        samples.append(nanoseconds(clock.now - start) / Double(decisions))
        allowed = a
    }
    samples.sort()
    return (samples[samples.count / 2], allowed)
}

let args = Array(CommandLine.arguments.dropFirst())
let mode = args.first.flatMap { Int($0) == nil ? $0 : nil } ?? "simulator"
let rest = mode == "simulator" ? args : Array(args.dropFirst())

switch mode {
case "worker":
    #if os(Linux)
        runWorker(rest)
    #endif
case "matrix-worker":
    #if os(Linux)
        runMatrixWorker(rest)
    #endif
case "kernel":
    #if os(Linux)
        runKernelComparison(
            nodes: rest.count > 0 ? Int(rest[0]) ?? 100_000 : 100_000, repeats: rest.count > 1 ? Int(rest[1]) ?? 5 : 5,
            fspolicy: rest.count > 2 ? rest[2] : nil)
    #else
        print("the kernel comparison needs Linux")
    #endif
case "matrix":
    runMatrixBench(
        nodes: rest.count > 0 ? Int(rest[0]) ?? 1_000_000 : 1_000_000, users: rest.count > 1 ? Int(rest[1]) ?? 1000 : 1000,
        file: rest.count > 2 ? rest[2] : nil)
case "matrix-kernel":
    #if os(Linux)
        runMatrixKernel(
            nodes: rest.count > 0 ? Int(rest[0]) ?? 10_000 : 10_000, userCount: rest.count > 1 ? Int(rest[1]) ?? 1000 : 1000,
            fspolicy: rest.count > 2 ? rest[2] : ".build/release/fspolicy", kernelUsers: rest.count > 3 ? Int(rest[3]) : nil)
    #else
        print("the kernel comparison needs Linux")
    #endif
case "diff":
    runDiffBench(
        nodes: rest.count > 0 ? Int(rest[0]) ?? 1_000_000 : 1_000_000, users: rest.count > 1 ? Int(rest[1]) ?? 1000 : 1000,
        changes: rest.count > 2 ? Int(rest[2]) ?? 100 : 100)
case "growth":
    runGrowth(decisions: rest.count > 0 ? Int(rest[0]) ?? 500_000 : 500_000, repeats: rest.count > 1 ? Int(rest[1]) ?? 3 : 3)
case "memory":
    runMemory(nodes: rest.count > 0 ? Int(rest[0]) ?? 1_000_000 : 1_000_000)
case "lint":
    runLintBench(nodes: rest.count > 0 ? Int(rest[0]) ?? 1_000_000 : 1_000_000, userCount: rest.count > 1 ? Int(rest[1]) ?? 1_000 : 1_000)
default:
    let nodes = rest.count > 0 ? Int(rest[0]) ?? 100_000 : 100_000
    let decisions = rest.count > 1 ? Int(rest[1]) ?? 1_000_000 : 1_000_000
    let repeats = rest.count > 2 ? Int(rest[2]) ?? 5 : 5
    // FSPOLICY_BENCH_PREFIX puts the world below a directory, as the kernel comparison does.
    // FSPOLICY_BENCH_ORDER=kernel|mixed measures one question order only (for profilers).
    let prefix = ProcessInfo.processInfo.environment["FSPOLICY_BENCH_PREFIX"] ?? ""
    let s = Synthetic(prefix: prefix, nodes: nodes)
    print("world: \(s.world.nodeCount) nodes (\(s.dirs.count) directories, depth up to 8), ACLs on a fifth of the nodes (8 shared), 50 users")
    print("questions: \(s.questions.count) distinct (read, write, execute, stat, list, search), \(decisions) decisions per repeat, median of \(repeats)")
    let blocks = s.perUser()
    print(
        "in the kernel comparison's pattern (user after user: one untimed pass over the user's questions, then 5 timed passes; median of \(repeats) rounds), then interleaved (cycling through all 10,000, users mixed, \(decisions) decisions, median of \(repeats)):"
    )
    // FSPOLICY_BENCH_SEMANTICS=macos|guide|linux measures one rule set only (for profilers).
    let onlySem = ProcessInfo.processInfo.environment["FSPOLICY_BENCH_SEMANTICS"]
    for sem in [Semantics.macos, .guide, .linux] where onlySem == nil || onlySem == sem.rawValue {
        let world = sem == .linux ? s.linuxWorld : s.world
        let reqs = s.requests(linux: sem == .linux)
        let only = ProcessInfo.processInfo.environment["FSPOLICY_BENCH_ORDER"]
        let ns = only == "mixed" ? 0 : measurePerUser(world, blocks.map { $0.map { reqs[$0] } }, semantics: sem, repeats: 5, rounds: repeats)
        let (mixed, allowed) = only == "kernel" ? (0, 0) : measureSimulator(world, reqs, semantics: sem, decisions: decisions, repeats: repeats)
        var line = "\(sem.rawValue):"
        if ns > 0 { line += " \(Int(ns + 0.5)) ns/decision (median), \(Int(1e9 / ns)) decisions/s;" }
        if mixed > 0 { line += " interleaved \(Int(mixed + 0.5)) ns/decision, \(Int(1e9 / mixed)) decisions/s, \(allowed * 100 / decisions)% allowed" }
        print(line)
    }
}
