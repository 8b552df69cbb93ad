import Testing
@testable import FSPolicy

/// `Authorizer.decide(inPlace:pathBytes:)` walks the path from its bytes before the operation
/// runs and hands the operation the result. Whenever it answers, it must answer exactly as
/// `decide(inPlace:)` with the path set; these tests ask both for every operation, rule set and
/// subject of random worlds, on paths that exist, are missing, go through or end in symlinks,
/// or are not canonical.
@Suite("Decisions on a path given as bytes")
struct PathBytesDecisionTests {
    @Test("the bytes way answers as the string way, or leaves the question to it", arguments: [UInt64(7), 8])
    func agrees(seed: UInt64) {
        var (w, subjects) = randomWorld(seed: seed, dirs: 150)
        var rng = Rng(s: seed)
        var dirs: [String] = []
        for i in 0..<w.nodeCount where w[NodeID(i)].isDir && i > 0 { dirs.append(w.path(of: NodeID(i))) }
        var paths: [String] = dirs.filter { _ in rng.chance(3) }
        for d in dirs where rng.chance(3) {
            let p = d + "/f"
            w.addNode(
                path: p, type: .file, uid: UID(1000 + rng.below(6)), gid: GID(100 + rng.below(6)),
                mode: FileMode(UInt16(rng.below(0o1000))))
            paths.append(p)
            // A symlink to the file and one to its directory: at the end of a path and on the way.
            let l = w.addNode(path: d + "/lf", type: .symlink, uid: 0, gid: 0, mode: FileMode(0o777))
            w.setSymlinkTarget("f", on: l)
            let ld = w.addNode(path: d + "/ld", type: .symlink, uid: 0, gid: 0, mode: FileMode(0o777))
            w.setSymlinkTarget(d, on: ld)
            paths += [d + "/lf", d + "/ld", d + "/ld/f", d + "/missing", d + "/f/under-a-file", d + "//f", d + "/./f", d + "/f/"]
        }
        paths += ["/", "/nowhere/x", "relative"]
        let ops = Operation.words.map(\.1).filter { !$0.needsTarget }
        var decided = 0, left = 0, denied = 0
        for sem in Semantics.allCases {
            let auth = Authorizer(world: w, semantics: sem, tracing: false)
            for s in subjects {
                for (k, p) in paths.enumerated() {
                    let op = ops[(k + Int(s.uid)) % ops.count]
                    var r = Request(subject: s, op: op, path: "/stale")
                    let quick = Array(p.utf8).withUnsafeBufferPointer { auth.decide(inPlace: &r, pathBytes: $0) }
                    r.path = p
                    let full = auth.decide(inPlace: &r)
                    guard let quick else { left += 1; continue }
                    decided += 1
                    if !full.allowed { denied += 1 }
                    #expect(quick == full, "\(sem) uid \(s.uid) \(op.word) \(p): \(quick.rule.rawValue) vs \(full.rule.rawValue)")
                }
            }
        }
        // Both ways are exercised, and the bytes way decides denials as well as grants.
        #expect(decided > 3000)
        #expect(left > 2000)
        #expect(denied > 1000 && denied < decided)
        // A traced authorizer and an app leave the question to the string way.
        var r = Request(subject: subjects[1], op: .read, path: paths[0])
        #expect(Array(paths[0].utf8).withUnsafeBufferPointer { Authorizer(world: w, semantics: .macos).decide(inPlace: &r, pathBytes: $0) } == nil)
    }
}
