import Testing
import FSPolicyAudit
@testable import FSPolicy

// The set engine (FSPolicyAudit) answers many questions at once through subject classes, node
// signatures and per-directory search sets. Every one of its answers must be what
// `Authorizer.decide` says for that single question: these tests ask both for every subject,
// every operation and every node of random worlds, under the three rule sets.

/// `randomWorld`'s directories, plus random files, fifos, symlinks (some dangling, some to
/// directories), a file with a declared child, flags, Data Protection classes and a locked
/// device: the cases the engine takes its general path for are here too.
func randomSetWorld(seed: UInt64, dirs: Int) -> (World, [Subject]) {
    var (w, subjects) = randomWorld(seed: seed, dirs: dirs)
    var rng = Rng(s: seed &* 31 &+ 7)
    let dirIDs = (0..<w.nodeCount).map { NodeID($0) }.filter { w[$0].isDir }
    let flagPool: [FileFlags] = [[], [], [], .userImmutable, .userAppend, .systemImmutable, .systemAppend]
    var k = 0
    for d in dirIDs where rng.chance(2) {
        for _ in 0..<(1 + rng.below(3)) {
            k += 1
            let p = (d == World.root ? "" : w.path(of: d)) + "/f\(k)"
            let type: NodeType = rng.chance(12) ? .fifo : .file
            let id = w.addNode(
                path: p, type: type, uid: [UID(1000 + rng.below(6)), 0, WellKnown.unknownID][rng.below(3) == 0 ? rng.below(3) : 0],
                gid: GID(100 + rng.below(6)), mode: FileMode(UInt16(rng.below(0o10000))),
                flags: flagPool[rng.below(flagPool.count)])
            if rng.chance(8) { w.setProtection(ProtectionClass.allCases[rng.below(ProtectionClass.allCases.count)], open: rng.chance(2), on: id) }
            if rng.chance(6) {
                w.setACL(
                    ACL([
                        ACE(
                            subject: [ACESubject.user(1001), .group(102), .everyone, .owner][rng.below(4)],
                            kind: rng.chance(3) ? .deny : .allow, rights: [.readData, .writeData, .execute, .appendData][rng.below(4)])
                    ]), on: id)
            }
        }
        if rng.chance(6) {
            k += 1
            let p = (d == World.root ? "" : w.path(of: d)) + "/l\(k)"
            let id = w.addNode(path: p, type: .symlink, uid: 1000, gid: 100, mode: FileMode(0o777))
            let targets = dirIDs.map { w.path(of: $0) } + ["/nowhere", "f\(k - 1)", "../d1"]
            w.setSymlinkTarget(targets[rng.below(targets.count)], on: id)
        }
    }
    // A declared file with a declared child: a walk through it is ENOTDIR.
    w.addNode(path: "/v0/plainfile", type: .file, uid: 1000, gid: 100, mode: FileMode(0o755))
    w.addNode(path: "/v0/plainfile/below", type: .file, uid: 1000, gid: 100, mode: FileMode(0o777))
    if seed % 2 == 0 { w.device = .locked }
    return (w, subjects)
}

@Suite("Set engine")
struct SetEngineTests {
    static let ops: [Operation] = [
        .read, .write, .execute, .append, .readwrite, .truncate, .list, .search, .stat,
        .readattr, .writeattr, .readextattr, .writeextattr, .readsecurity,
        .delete, .chmod, .touch, .rights(.deleteChild, word: "delete_child"), .modify
    ]

    @Test("every answer of a walk is Authorizer.decide's, for every subject, op and node", arguments: [UInt64(11), 12])
    func walkAgrees(seed: UInt64) {
        let (w, subjects) = randomSetWorld(seed: seed, dirs: 40)
        var compared = 0, allowed = 0
        for sem in Semantics.allCases {
            let engine = SetEngine(world: w, semantics: sem, subjects: subjects, ops: SetEngineTests.ops)
            let single = Authorizer(world: w, semantics: sem, tracing: false)
            var visited = 0
            engine.walk { n, path, sets in
                visited += 1
                #expect(path == w.path(of: n))
                for (k, op) in SetEngineTests.ops.enumerated() {
                    for (i, s) in subjects.enumerated() {
                        let d = single.decide(Request(subject: s, op: op, path: path))
                        let e = engine.contains(sets[k], subject: i)
                        compared += 1
                        if d.allowed { allowed += 1 }
                        #expect(e == d.allowed, "\(sem) uid \(s.uid) \(op.word) \(path): engine \(e), decide \(d.rule.rawValue)")
                    }
                }
                return true
            }
            #expect(visited == w.nodeCount)
            // Most nodes take the shortcut; the general path is exercised too.
            #expect(engine.fastNodes > engine.fallbackNodes)
            #expect(engine.fallbackNodes > 0)
        }
        // Both answers are common: the comparison is not between two constants.
        #expect(allowed > compared / 10)
        #expect(allowed < compared * 9 / 10)
    }

    @Test("subjects that meet the world identically share a class; others do not")
    func classes() {
        var w = World()
        w.addGroup(Group(name: "staff", gid: 20, members: [501, 502]))
        for (i, u) in [501, 502, 503, 504].enumerated() { w.addUser(User(name: "u\(i)", uid: UID(u), gid: 20)) }
        w.addUser(User(name: "root", uid: 0, gid: 0))
        w.addNode(path: "/srv/a", type: .file, uid: 503, gid: 20, mode: FileMode(0o640))
        let subjects = [501, 502, 503, 504, 0].map { w.subject(uid: UID($0)) }
        let engine = SetEngine(world: w, semantics: .macos, subjects: subjects, ops: [.read])
        // 501 and 502: not owners of anything, members of staff; 504 also in staff (primary gid)
        // and owns nothing: one class. 503 owns /srv/a; root is root.
        #expect(engine.classOf[0] == engine.classOf[1])
        #expect(engine.classOf[0] == engine.classOf[3])
        #expect(engine.classOf[2] != engine.classOf[0])
        #expect(engine.classOf[4] != engine.classOf[0] && engine.classOf[4] != engine.classOf[2])
        #expect(engine.classCount == 3)
    }

    @Test("a walk from a subtree gives the same answers as the walk from the root", arguments: [UInt64(14)])
    func subtreeWalk(seed: UInt64) {
        let (w, subjects) = randomSetWorld(seed: seed, dirs: 40)
        let ops: [Operation] = [.read, .write, .execute]
        for sem in Semantics.allCases {
            var full: [NodeID: [[Int]]] = [:]
            let a = SetEngine(world: w, semantics: sem, subjects: subjects, ops: ops)
            a.walk { n, _, sets in
                full[n] = sets.map { a.subjectIndices($0) }; return true
            }
            let deep = (0..<w.nodeCount).map { NodeID($0) }.filter { w[$0].isDir && w.path(of: $0).split(separator: "/").count >= 3 }
            #expect(!deep.isEmpty)
            for start in deep.prefix(5) {
                let b = SetEngine(world: w, semantics: sem, subjects: subjects, ops: ops)
                var seen = 0
                b.walk(from: start) { n, _, sets in
                    seen += 1
                    #expect(sets.map { b.subjectIndices($0) } == full[n], "\(sem) \(w.path(of: n))")
                    return true
                }
                #expect(seen == 1 + w.descendants(of: start).count)
            }
        }
    }

    /// Every (subject, op, path) whose answer differs, asked of `decide` one by one.
    static func bruteDiff(_ a: World, _ b: World, _ sem: Semantics, _ sa: [Subject], _ sb: [Subject], _ ops: [Operation]) -> Set<String> {
        let da = Authorizer(world: a, semantics: sem, tracing: false), db = Authorizer(world: b, semantics: sem, tracing: false)
        var paths = Set<String>()
        for i in 0..<a.nodeCount where i == 0 || a.path(of: NodeID(i)) != "/" { paths.insert(a.path(of: NodeID(i))) }
        for i in 0..<b.nodeCount { paths.insert(b.path(of: NodeID(i))) }
        var out = Set<String>()
        for p in paths {
            let inA = a.lookup(p) != nil && a.descendants(of: World.root).contains(a.lookup(p)!) || p == "/"
            let inB = b.lookup(p) != nil && b.descendants(of: World.root).contains(b.lookup(p)!) || p == "/"
            for (k, op) in ops.enumerated() {
                for i in sa.indices {
                    let x = inA && da.decide(Request(subject: sa[i], op: op, path: p)).allowed
                    let y = inB && db.decide(Request(subject: sb[i], op: op, path: p)).allowed
                    if x != y { out.insert("\(i) \(k) \(p) \(y ? "+" : "-")") }
                }
            }
        }
        return out
    }

    @Test("diff finds exactly the answers that differ after random edits", arguments: [UInt64(21), 22, 23])
    func diffAgrees(seed: UInt64) {
        let (a, subjects) = randomSetWorld(seed: seed, dirs: 30)
        var b = a
        var rng = Rng(s: seed &* 7)
        let ids = (1..<a.nodeCount).map { NodeID($0) }.filter { a.lookup(a.path(of: $0)) == $0 }
        for _ in 0..<6 {
            let n = ids[rng.below(ids.count)]
            switch rng.below(5) {
            case 0: b.update(n) { $0.mode = FileMode(UInt16(rng.below(0o1000))) }
            case 1: b.update(n) { $0.uid = UID(1000 + rng.below(6)) }
            case 2:
                b.setACL(
                    ACL([
                        ACE(
                            subject: .group(GID(100 + rng.below(6))), kind: rng.chance(2) ? .allow : .deny,
                            rights: [.readData, .writeData, .search, .delete, .deleteChild][rng.below(5)])
                    ]), on: n)
            case 3: if b[n].isDir { b.addNode(path: b.path(of: n) + "/new\(rng.below(100))", type: .file, uid: 1001, gid: 101, mode: FileMode(0o666)) }
            default: if n != World.root && b.lookup(b.path(of: n)) == n { b.detach(n) }
            }
        }
        let ops: [Operation] = [.read, .write, .execute, .delete, .search]
        var total = 0
        for sem in Semantics.allCases {
            var d = WorldDiff(old: a, new: b, semantics: sem, oldSubjects: subjects, newSubjects: subjects, ops: ops)
            let got = Set(d.run().map { "\($0.subject) \($0.op) \($0.path) \($0.gained ? "+" : "-")" })
            let want = SetEngineTests.bruteDiff(a, b, sem, subjects, subjects, ops)
            #expect(got == want, "\(sem): extra \(got.subtracting(want).sorted().prefix(5)), missing \(want.subtracting(got).sorted().prefix(5))")
            // Most of the tree is compared, not decided again.
            #expect(d.skipped > 0)
            total += want.count
        }
        #expect(total > 0)
    }

    @Test("diff pairs children by their whole names: long names that differ only after the eighth byte")
    func diffLongNames() {
        /// /d holding a 0644 file and a 0600 one, by these names.
        func world(_ first: String, _ second: String) -> World {
            var w = World()
            w.addGroup(Group(name: "g", gid: 100))
            w.addUser(User(name: "u", uid: 1000, gid: 100, supplementary: []))
            w.addNode(path: "/d", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
            w.addNode(path: "/d/" + first, type: .file, uid: 1000, gid: 100, mode: FileMode(0o644))
            w.addNode(path: "/d/" + second, type: .file, uid: 1000, gid: 100, mode: FileMode(0o600))
            return w
        }
        // Same first eight bytes, same length; the old and the new world list them in the
        // same places, so a comparison of the heads alone would pair them by position.
        let a = world("report-2026-a.txt", "report-2026-b.txt")
        let b = world("report-2026-a.txt", "report-2026-c.txt")
        let s = [a.subject(uid: 1000), a.subject(uid: 0)]
        let ns = [b.subject(uid: 1000), b.subject(uid: 0)]
        for sem in Semantics.allCases {
            var d = WorldDiff(old: a, new: b, semantics: sem, oldSubjects: s, newSubjects: ns, ops: [.read, .write])
            let got = Set(d.run().map { "\($0.subject) \($0.op) \($0.path) \($0.gained ? "+" : "-")" })
            let want = SetEngineTests.bruteDiff(a, b, sem, s, ns, [.read, .write])
            #expect(got == want, "\(sem): extra \(got.subtracting(want).sorted()), missing \(want.subtracting(got).sorted())")
            #expect(want.contains("0 0 /d/report-2026-c.txt +") && want.contains("0 0 /d/report-2026-b.txt -"), "\(sem): \(want.sorted())")
        }
    }

    @Test("diff decides again a node whose ACL is, on one side only, mapped from a POSIX ACL, and nothing else")
    func diffMappedACL() {
        var a = World()
        a.addGroup(Group(name: "g", gid: 100))
        a.addUser(User(name: "u", uid: 1000, gid: 100, supplementary: []))
        a.addNode(path: "/d", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        for i in 0..<20 { a.addNode(path: "/d/f\(i)", type: .file, uid: 1000, gid: 100, mode: FileMode(0o640)) }
        let f = a.lookup("/d/f7")!
        a.setACL(ACL([ACE(subject: .group(100), kind: .allow, rights: [.readData])]), on: f)
        var b = a
        b.mappedACLNodes.insert(f)
        let s = [a.subject(uid: 1000)]
        for (x, y) in [(a, b), (b, a)] {
            var d = WorldDiff(old: x, new: y, semantics: .macos, oldSubjects: s, newSubjects: s, ops: [.read])
            _ = d.run()
            #expect(d.redecided == 1, "the flag differs on one node: \(d.redecided) decided again")
        }
        var same = WorldDiff(old: b, new: b, semantics: .macos, oldSubjects: s, newSubjects: s, ops: [.read])
        _ = same.run()
        #expect(same.redecided == 0)
    }

    @Test("diff: a credential change (a new group member) re-decides everything and is found")
    func diffCredentials() {
        let (a, subjects) = randomSetWorld(seed: 24, dirs: 30)
        var b = a
        b.replaceUser(at: 0, with: User(name: "u0", uid: 1000, gid: 100, supplementary: [102, 103, 104]))
        let newSubjects = subjects.map { b.subject(uid: $0.uid) }
        for sem in Semantics.allCases {
            var d = WorldDiff(old: a, new: b, semantics: sem, oldSubjects: subjects, newSubjects: newSubjects, ops: [.read, .write])
            let got = Set(d.run().map { "\($0.subject) \($0.op) \($0.path) \($0.gained ? "+" : "-")" })
            let want = SetEngineTests.bruteDiff(a, b, sem, subjects, newSubjects, [.read, .write])
            #expect(!want.isEmpty)
            #expect(got == want)
        }
    }

    @Test("diff lists its changes in tree order: component by component, a folder before what is below it, then by bytes")
    func diffOrder() {
        var a = World()
        a.addGroup(Group(name: "g", gid: 100))
        a.addUser(User(name: "u", uid: 1000, gid: 100, supplementary: []))
        let paths = ["/ab", "/a.b", "/a", "/a-x", "/a/b", "/a/b/c", "/a/a"]
        for p in paths.sorted(by: { $0.count < $1.count }) {
            let dir = p == "/a" || p == "/a/b"
            a.addNode(path: p, type: dir ? .dir : .file, uid: 0, gid: 0, mode: FileMode(dir ? 0o711 : 0o600))
        }
        var b = a
        for p in paths {
            let n = b.lookup(p)!
            let dir = b[n].isDir
            b.update(n) { $0.mode = FileMode(dir ? 0o755 : 0o644) }
        }
        let s = [a.subject(uid: 1000)]
        var d = WorldDiff(old: a, new: b, semantics: .linux, oldSubjects: s, newSubjects: [b.subject(uid: 1000)], ops: [.read])
        let got = d.run().map(\.path)
        #expect(got == ["/a", "/a/a", "/a/b", "/a/b/c", "/a-x", "/a.b", "/ab"], "\(got)")
    }
}
