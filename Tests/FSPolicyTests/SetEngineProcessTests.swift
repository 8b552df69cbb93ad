import Testing
import FSPolicyAudit
@testable import FSPolicy

// Services and other processes in the set engine (`matrix`, `access`, `diff`, `lint`,
// `report`): a subject holding capabilities its uid would not hold, or one with a systemd
// unit's mount view, must get exactly `Authorizer.decide`'s answers, and must never share a
// class with a user it differs from.

@Suite("Set engine: processes with capabilities and mount views")
struct SetEngineProcessTests {
    /// The random subjects, then processes of the same uids with random capabilities (some the
    /// uid's default, some not), root with reduced sets, and processes with mount views.
    static func processes(_ w: World, _ users: [Subject], seed: UInt64) -> [Subject] {
        var rng = Rng(s: seed &* 977 &+ 5)
        let pool: [Capabilities] = [.dacReadSearch, .dacOverride, .fowner, .chown, .linuxImmutable]
        var out = users
        for s in users {
            var p = s
            p.caps = []
            for c in pool where rng.chance(2) { p.caps.insert(c) }
            out.append(p)
        }
        var root = w.subject(uid: 0)
        root.caps = [.fowner]
        out.append(root)
        root.caps = []
        out.append(root)
        // Views: the directories of the world named read-only, noexec, inaccessible, a tmpfs.
        let dirs = (0..<w.nodeCount).map { NodeID($0) }.filter { w[$0].isDir && $0 != World.root }.map { w.path(of: $0) }
        let modes: [ViewEntry.Mode] = [.readOnly, .noexec, .inaccessible, .tmpfs, .readWrite, .bind]
        for k in 0..<3 {
            var entries: [ViewEntry] = []
            for _ in 0..<(2 + rng.below(3)) {
                let m = modes[rng.below(modes.count)]
                entries.append(ViewEntry(path: dirs[rng.below(dirs.count)], mode: m, option: "Test\(k)=", place: "test:\(k)", ro: m == .bind && rng.chance(2)))
            }
            var s = users[rng.below(users.count)]
            if k == 2 { s = w.subject(uid: 0) }
            if k == 1 { s.caps = [.dacReadSearch] }
            s.view = MountView(entries, over: w)
            out.append(s)
        }
        return out
    }

    @Test("every answer of a walk is Authorizer.decide's, for users, processes with capabilities and processes with views", arguments: [UInt64(31), 32])
    func walkAgrees(seed: UInt64) {
        let (w, users) = randomSetWorld(seed: seed, dirs: 30)
        let subjects = Self.processes(w, users, seed: seed)
        var compared = 0, allowed = 0
        for sem in Semantics.allCases {
            let engine = SetEngine(world: w, semantics: sem, subjects: subjects, ops: SetEngineTests.ops)
            let single = Authorizer(world: w, semantics: sem, tracing: false)
            // Each process with a view is a class of its own, answered by path.
            #expect(engine.pathClasses.count == 3)
            engine.walk { n, path, sets in
                for (k, op) in SetEngineTests.ops.enumerated() {
                    for (i, s) in subjects.enumerated() {
                        let d = single.decide(Request(subject: s, op: op, path: path))
                        let e = engine.contains(sets[k], subject: i)
                        compared += 1
                        if d.allowed { allowed += 1 }
                        #expect(
                            e == d.allowed,
                            "\(sem) uid \(s.uid) caps \(s.caps.lowerNames) view \(s.view != nil) \(op.word) \(path): engine \(e), decide \(d.rule.rawValue)")
                    }
                }
                return true
            }
        }
        #expect(allowed > compared / 10)
        #expect(allowed < compared * 9 / 10)
    }

    @Test("a process with capabilities its uid lacks, or with a view, never shares a class with the user; one with the uid's own set does")
    func classes() {
        var w = World()
        w.addUser(User(name: "backup", uid: 34, gid: 34))
        w.addUser(User(name: "root", uid: 0, gid: 0))
        w.addNode(path: "/etc/shadow", type: .file, uid: 0, gid: 42, mode: FileMode(0o640))
        let user = w.subject(uid: 34)
        var capable = user
        capable.caps = [.dacReadSearch]
        var sandboxed = user
        sandboxed.view = MountView([ViewEntry(path: "/etc", mode: .readOnly, option: "ProtectSystem=full", place: "x:1")], over: w)
        var same = user
        same.caps = []
        let root = w.subject(uid: 0)
        var rootNothing = root
        rootNothing.caps = []
        let engine = SetEngine(world: w, semantics: .linux, subjects: [user, capable, sandboxed, same, root, rootNothing], ops: [.read])
        #expect(engine.classOf[0] == engine.classOf[3])
        #expect(Set(engine.classOf).count == 5)
        #expect(engine.pathClasses == [engine.classOf[2]])
        var reads: [Int] = []
        engine.walk { _, path, sets in
            if path == "/etc/shadow" { reads = engine.subjectIndices(sets[0]) }
            return true
        }
        // root without capabilities still owns the file: its owner bits grant read.
        #expect(reads == [1, 4, 5])
    }
}
