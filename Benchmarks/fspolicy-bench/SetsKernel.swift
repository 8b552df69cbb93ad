#if os(Linux)
import FSPolicy
import Foundation
import Glibc

/// Runs a program; returns its status, output and the CPU seconds it used (user + system).
func runTimed(_ exe: String, _ args: [String]) -> (status: Int32, output: String, wall: Double, cpu: Double) {
    var before = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let clock = ContinuousClock()
    let t0 = clock.now
    let (st, out) = run(exe, args)
    let wall = nanoseconds(clock.now - t0) / 1e9
    var after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    func secs(_ r: rusage) -> Double {
        Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6
    }
    return (st, out, wall, secs(after) - secs(before))
}

/// `fspolicy-bench matrix-kernel NODES USERS FSPOLICY`: a server tree of NODES nodes written to
/// disk (owners and groups among USERS uids the benchmark makes up, modes, POSIX ACLs),
/// scanned with `fspolicy scan`; `fspolicy matrix` on a policy file that imports the scan and
/// declares the users, against the kernel: one process per user (and one for root) asking
/// `faccessat(AT_EACCESS)` R_OK, W_OK and X_OK for every file. Every cell is compared.
func runMatrixKernel(nodes: Int, userCount: Int, fspolicy: String) {
    guard getuid() == 0 else { print("the matrix kernel comparison needs root (it creates files owned by \(userCount) uids and runs a process as each)"); exit(2) }
    for u in 0..<userCount where getpwuid(ServerWorld.uidBase + UID(u)) != nil {
        print("uid \(ServerWorld.uidBase + UID(u)) is a host account: the benchmark's made-up uids would get its name; not run"); exit(2)
    }
    for g in 0..<50 where getgrgid(ServerWorld.gidBase + GID(g)) != nil {
        print("gid \(ServerWorld.gidBase + GID(g)) is a host group; not run"); exit(2)
    }
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-mkbench-\(getpid())").path
    let prefix = base + "/tree"
    mkdir(base, 0o755)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let s = ServerWorld(prefix: prefix, nodes: nodes, users: userCount, keepFiles: true)
    let w = s.world
    let withACL = materialize(w, under: prefix)
    print("tree on disk: \(w.nodeCount) nodes (\(s.files.count) files) under \(prefix), \(withACL) with POSIX ACLs; \(userCount) users in \(s.groupCount) groups (uids \(ServerWorld.uidBase)…, made up: no account is added)")

    // The scan, then a policy file that imports it and declares the users and their groups.
    let scanFile = base + "/scan.yaml"
    let scan = runTimed(fspolicy, ["scan", prefix, "--accounts", "owners", "-o", scanFile])
    guard scan.status == 0 else { print("fspolicy scan failed: \(scan.output)"); exit(1) }
    var policy = "fspolicy: 1\nsemantics: linux\nimport:\n  - policy: scan.yaml\ngroups:\n"
    for g in 0..<s.groupCount { policy += "  g\(g): {gid: \(ServerWorld.gidBase + GID(g))}\n" }
    policy += "users:\n"
    for u in s.users {
        policy += "  \(u.name): {uid: \(u.uid), group: g\(u.gid - ServerWorld.gidBase)"
        if !u.groups.isEmpty { policy += ", groups: [" + u.groups.map { "g\($0 - ServerWorld.gidBase)" }.joined(separator: ", ") + "]" }
        policy += "}\n"
    }
    try? policy.write(toFile: base + "/policy.yaml", atomically: true, encoding: .utf8)
    let matrixFile = base + "/matrix.csv"
    let m = runTimed(fspolicy, ["matrix", base + "/policy.yaml", "--under", prefix, "--output", matrixFile])
    guard m.status == 0 else { print("fspolicy matrix failed: \(m.output)"); exit(1) }
    let csvSize = (try? FileManager.default.attributesOfItem(atPath: matrixFile)[.size] as? Int) ?? 0
    print("fspolicy scan: \(String(format: "%.2f", scan.wall)) s wall, \(String(format: "%.2f", scan.cpu)) s CPU")
    print("fspolicy matrix (whole process: load the file and the scan, decide, write \(csvSize >> 20) MiB of CSV): \(String(format: "%.2f", m.wall)) s wall, \(String(format: "%.2f", m.cpu)) s CPU")

    // The kernel: one question file, one process per user (and root).
    let qFile = base + "/questions.txt"
    var lines = ""
    for f in s.files { lines += "4\t\(f)\n2\t\(f)\n1\t\(f)\n" }
    try? lines.write(toFile: qFile, atomically: true, encoding: .utf8)
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let subjects: [(name: String, uid: UID, gid: GID, groups: [GID])] = [("root", 0, 0, [])] + s.users
    var kernelNS = 0.0
    var kernelCPU = 0.0
    let clock = ContinuousClock()
    let t0 = clock.now
    var answers: [String: [UInt8]] = [:]
    for u in subjects {
        let args = u.uid == 0 ? [me, "worker", qFile, "1"]
            : ["--reuid=\(u.uid)", "--regid=\(u.gid)", "--groups=" + ([u.gid] + u.groups).map(String.init).joined(separator: ","), me, "worker", qFile, "1"]
        let (_, out) = run(u.uid == 0 ? me : "/usr/bin/setpriv", u.uid == 0 ? Array(args.dropFirst()) : args)
        guard let nsField = out.split(separator: " ").first(where: { $0.hasPrefix("ns=") }),
              let ansField = out.split(separator: " ").first(where: { $0.hasPrefix("answers=") }) else {
            print("worker for uid \(u.uid) failed: \(out)"); exit(1)
        }
        kernelNS += Double(nsField.dropFirst(3))!
        if let c = out.split(separator: " ").first(where: { $0.hasPrefix("cpu=") }) { kernelCPU += Double(c.dropFirst(4))! }
        answers[u.name] = Array(ansField.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    }
    let kernelWall = nanoseconds(clock.now - t0) / 1e9
    let calls = subjects.count * s.files.count * 3
    print("kernel: \(subjects.count) processes × \(s.files.count * 3) faccessat calls = \(calls) calls; their timed loops sum to \(String(format: "%.2f", kernelNS / 1e9)) s wall, \(String(format: "%.2f", kernelCPU / 1e9)) s CPU (\(Int(kernelNS / Double(calls) + 0.5)) ns a call by the wall clock, \(Int(kernelCPU / Double(calls) + 0.5)) by CPU time; each process also made one untimed pass first); \(String(format: "%.1f", kernelWall)) s wall for all the processes")

    // Every cell: the matrix's CSV against the kernel's answers.
    guard let csv = try? String(contentsOfFile: matrixFile, encoding: .utf8) else { print("cannot read \(matrixFile)"); exit(1) }
    var allowedBy: [String: Set<String>] = [:]
    for row in csv.split(separator: "\n").dropFirst() {
        let f = row.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard f.count == 3 else { continue }
        allowedBy[f[0] + "," + f[1]] = Set(f[2].split(separator: " ").map(String.init))
    }
    var agree = 0, differ = 0
    var shown = 0
    let opWords = ["read", "write", "execute"]
    for u in subjects {
        let a = answers[u.name]!
        for (i, f) in s.files.enumerated() {
            for k in 0..<3 {
                let kernel = a[i * 3 + k] == 49
                let matrix = allowedBy[f + "," + opWords[k]]?.contains(u.name) ?? false
                if kernel == matrix { agree += 1 } else {
                    differ += 1
                    if shown < 5 { shown += 1; print("  differs: \(u.name) \(opWords[k]) \(f): kernel \(kernel ? "allow" : "deny"), matrix \(matrix ? "allow" : "deny")") }
                }
            }
        }
    }
    let ratio = kernelNS / 1e9 / m.wall
    print("cells compared: \(agree + differ), agreeing: \(agree) (\(String(format: "%.4f", Double(agree) * 100 / Double(max(agree + differ, 1))))%)")
    let cpuRatio = kernelCPU / 1e9 / m.cpu
    print("matrix's whole run is \(String(format: "%.1f", ratio))x faster than the kernel's timed sum by the wall clock, \(String(format: "%.1f", cpuRatio))x by CPU time (\(String(format: "%.1f", kernelWall / m.wall))x against the kernel processes' whole wall time, start-up included)")
    print("target matrix (whole process) at least 20x faster than the kernel's sum on \(s.files.count) files × \(subjects.count) users × 3 ops, 100% agreement: \(ratio >= 20 && differ == 0 ? "PASS" : "FAIL") (\(String(format: "%.1f", ratio))x, \(differ) cells differ)")
}
#endif
