import FSPolicy
import FSPolicyAudit
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// `lint` over a world of `nodes` nodes and `userCount` users (issue 15's target: 1,000,000
/// nodes, 1,000 users, under 30 s and 2 GB), under each rule set: the world is the benchmarks'
/// synthetic tree (ACLs on a fifth of the nodes: macOS ACEs, POSIX ACLs for linux) with, in
/// addition, homes for the users, setuid programs, files named like secrets, and a service
/// directory; the users are in 50 groups.
func runLintBench(nodes: Int, userCount: Int) {
    func peakRSS() -> Int {
        #if os(Linux)
            if let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
                for line in s.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                    let kb = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                    return kb * 1024
                }
            }
        #endif
        return 0
    }
    let clock = ContinuousClock()
    let t0 = clock.now
    var s = Synthetic(prefix: "", nodes: nodes, questionCount: 0)
    var rng = LCG(state: 7)
    // More users, in 50 groups; homes and a few risky nodes.
    var extraUsers: [User] = []
    for g in 10..<50 { s.world.addGroup(Group(name: "g\(g)", gid: GID(1000 + g))); s.linuxWorld.addGroup(Group(name: "g\(g)", gid: GID(1000 + g))) }
    for u in 50..<userCount {
        let user = User(name: "u\(u)", uid: UID(2000 + u), gid: GID(1000 + u % 50), supplementary: [GID(1000 + (u * 7) % 50)], home: "/home/u\(u)")
        extraUsers.append(user)
    }
    for u in extraUsers { s.world.addUser(u); s.linuxWorld.addUser(u) }
    for i in 0..<userCount {
        let uid = UID(2000 + i)
        let mode: UInt16 = rng.below(20) == 0 ? 0o775 : 0o750
        for w in [0, 1] {
            if w == 0 {
                s.world.addNode(path: "/home/u\(i)", type: .dir, uid: uid, gid: GID(1000 + i % 50), mode: FileMode(mode))
            } else {
                s.linuxWorld.addNode(path: "/home/u\(i)", type: .dir, uid: uid, gid: GID(1000 + i % 50), mode: FileMode(mode))
            }
        }
        let keyMode: UInt16 = rng.below(10) == 0 ? 0o640 : 0o600
        s.world.addNode(path: "/home/u\(i)/id_ed25519", type: .file, uid: uid, gid: GID(1000 + i % 50), mode: FileMode(keyMode))
        s.linuxWorld.addNode(path: "/home/u\(i)/id_ed25519", type: .file, uid: uid, gid: GID(1000 + i % 50), mode: FileMode(keyMode))
    }
    for i in 0..<200 {
        let mode: UInt16 = i % 4 == 0 ? 0o4775 : 0o4755
        s.world.addNode(path: "/usr/bin/tool\(i)", type: .file, uid: 0, gid: GID(1000 + i % 50), mode: FileMode(mode))
        s.linuxWorld.addNode(path: "/usr/bin/tool\(i)", type: .file, uid: 0, gid: GID(1000 + i % 50), mode: FileMode(mode))
    }
    let built = clock.now - t0
    let users = (0..<userCount).map { (name: "u\($0)", uid: UID(2000 + $0)) }
    print(
        "world: \(s.world.nodeCount) nodes, \(userCount) users in 50 groups, ACLs on a fifth of the nodes (built in \(String(format: "%.1f", Double(built.components.seconds) + Double(built.components.attoseconds) / 1e18)) s)"
    )
    var worst = 0.0
    for sem in [Semantics.macos, .guide, .linux] {
        let world = sem == .linux ? s.linuxWorld : s.world
        let subjects = users.map { (name: $0.name, subject: world.subject(uid: $0.uid)) }
        let start = clock.now
        var options = LintOptions()
        options.disabled = []  // every rule, the ones off by default too
        if ProcessInfo.processInfo.environment["FSPOLICY_BENCH_NO_DEAD"] != nil { options.disabled = ["FSL019", "FSL020"] }
        // Rules to leave out, by code, comma-separated (FSL020 is off by default in `lint`).
        if let off = ProcessInfo.processInfo.environment["FSPOLICY_BENCH_DISABLE"] { options.disabled.formUnion(off.split(separator: ",").map(String.init)) }
        let findings = Linter.run(world: world, semantics: sem, subjects: subjects, options: options)
        let d = clock.now - start
        let secs = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        worst = max(worst, secs)
        var byCode: [String: Int] = [:]
        for f in findings { byCode[f.code, default: 0] += 1 }
        print(
            "\(sem.rawValue): lint \(String(format: "%.1f", secs)) s, \(findings.count) findings ("
                + byCode.keys.sorted().map { "\($0) \(byCode[$0]!)" }.joined(separator: ", ") + ")")
    }
    let rss = peakRSS()
    print("peak resident memory: \(rss / (1 << 20)) MiB")
    print(
        "target lint of \(s.world.nodeCount) nodes, \(userCount) users under 30 s and 2 GB: \(worst < 30 && rss < 2 << 30 ? "PASS" : "FAIL") (slowest rule set \(String(format: "%.1f", worst)) s, \(rss / (1 << 20)) MiB)"
    )
}
