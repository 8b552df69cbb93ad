import Testing
@testable import FSPolicy

// The search-check shortcuts (`quickSearch`, `quickSearchACL` and the inline loop of
// `searchAncestors`) answer the commonest question of a path walk without the layer-by-layer
// evaluation. They grant only where `authorize` grants, and refuse only where it refuses, with
// its errno and evidence. These tests ask both on every directory of random worlds, for every
// subject and rule set.

/// A small seeded generator for the randomized tests of this target (same seed, same run).
struct Rng {
    var s: UInt64
    mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s >> 33 }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ k: Int) -> Bool { below(k) == 0 }
}

/// `randomWorld` with a file `f` (random owner, group and mode) in about one directory in
/// `oneIn`, and the files' paths.
func randomWorldWithFiles(seed: UInt64, dirs: Int, oneIn: Int) -> (World, [Subject], [String]) {
    var (w, subjects) = randomWorld(seed: seed, dirs: dirs)
    var files: [String] = []
    var rng = Rng(s: seed)
    for i in 0..<w.nodeCount where w[NodeID(i)].isDir && rng.chance(oneIn) {
        let p = w.path(of: NodeID(i)) + "/f"
        w.addNode(
            path: p, type: .file, uid: UID(1000 + rng.below(6)), gid: GID(100 + rng.below(6)),
            mode: FileMode(UInt16(rng.below(0o1000))))
        files.append(p)
    }
    return (w, subjects, files)
}

/// A world of `dirs` directories under /v0 (plain), /v1 (ignore ownership, owner 501), /v2
/// (ACLs off) and /v3 (read-only, noexec), with random owners (some the unknown 99), modes,
/// macOS ACLs, POSIX ACLs and Data Protection classes, and users in nested and direct groups
/// (one in gid 12 on purpose).
func randomWorld(seed: UInt64, dirs: Int) -> (World, [Subject]) {
    var rng = Rng(s: seed)
    var w = World()
    for g in 0..<6 {
        // Group 5 nests group 4: its members are in 5 only through nesting (macOS counts them).
        w.addGroup(Group(name: "g\(g)", gid: GID(100 + g), members: g == 2 ? [1003] : [], nested: g == 5 ? [104] : []))
    }
    for u in 0..<6 {
        w.addUser(
            User(
                name: "u\(u)", uid: UID(1000 + u), gid: GID(100 + u % 5),
                supplementary: u % 2 == 0 ? [GID(100 + (u + 1) % 5)] : (u == 3 ? [WellKnown.everyoneGID] : [])))
    }
    w.addUser(User(name: "root", uid: 0, gid: 0))
    var v1 = Volume(mountPath: "/v1"); v1.ignoreOwnership = true; v1.fsOwner = 1001
    var v2 = Volume(mountPath: "/v2"); v2.acls = false
    var v3 = Volume(mountPath: "/v3"); v3.readOnly = true; v3.noexec = true
    w.setVolume(Volume(mountPath: "/v0"))
    w.setVolume(v1)
    w.setVolume(v2)
    w.setVolume(v3)
    let owners: [UID] = [1000, 1001, 1002, 1003, 1004, 1005, 0, WellKnown.unknownID]
    let groups: [GID] = [100, 101, 102, 103, 104, 105, 0, WellKnown.unknownID]
    let subjects: [ACESubject] = [
        .user(1000), .user(1001), .user(1003), .group(100), .group(101), .group(105),
        .everyone, .owner, .owningGroup, .group(WellKnown.everyoneGID), .user(WellKnown.unknownID)
    ]
    let pool: [AccessRights] = [.search, .readData, .writeData, .delete, .readAttributes, .addFile]
    var paths = ["/v0", "/v1", "/v2", "/v3"]
    for p in paths { w.addNode(path: p, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)) }
    for i in 0..<dirs {
        let parent = paths[rng.below(paths.count)]
        let path = parent + "/d\(i)"
        let mode = UInt16(rng.below(0o1000)) | (rng.chance(8) ? 0o1000 : 0)
        // Which ACLs: a macOS one, a POSIX one, both (each rule set then ignores one), or none.
        let kinds = rng.below(8)
        var acl: ACL? = nil
        if kinds <= 2 || kinds == 6 {
            acl = ACL(
                (0..<rng.below(5)).map { _ in
                    var rights: AccessRights = []
                    for r in pool where rng.chance(2) { rights.insert(r) }
                    return ACE(
                        subject: subjects[rng.below(subjects.count)], kind: rng.chance(3) ? .deny : .allow, rights: rights,
                        flags: rng.chance(5) ? .onlyInherit : (rng.chance(5) ? .inherited : []))
                })
        }
        let id = w.addNode(
            path: path, type: .dir, uid: owners[rng.below(owners.count)], gid: groups[rng.below(groups.count)],
            mode: FileMode(mode), acl: acl)
        if (3...6).contains(kinds) {
            let rwx: (Int) -> RWX = { RWX(rawValue: UInt8($0)) }
            let users = (0..<rng.below(3)).map { _ in POSIXACL.Entry(id: UID(1000 + rng.below(6)), perms: rwx(rng.below(8))) }
            var seen = Set<UID>()
            let named = users.filter { seen.insert($0.id).inserted }
            let gentries = (0..<rng.below(3)).map { _ in POSIXACL.Entry(id: GID(100 + rng.below(6)), perms: rwx(rng.below(8))) }
            var gseen = Set<GID>()
            let ng = gentries.filter { gseen.insert($0.id).inserted }
            let needsMask = !named.isEmpty || !ng.isEmpty
            if let a = try? POSIXACL(
                userObj: rwx(Int(mode >> 6) & 7), users: named, groupObj: rwx(rng.below(8)), groups: ng,
                mask: needsMask || rng.chance(2) ? rwx(Int(mode >> 3) & 7) : nil, other: rwx(Int(mode) & 7))
            {
                w.setPOSIXACL(a, on: id)
            }
        }
        if rng.chance(10) {
            w.setProtection(ProtectionClass.allCases[rng.below(ProtectionClass.allCases.count)], open: rng.chance(2), on: id)
        }
        paths.append(path)
    }
    // Root, the six users, and two uids with no user entry (99, the unknown owner, among them).
    let subs = ([0] + (1000...1005).map { UID($0) } + [WellKnown.unknownID, 4242]).map { w.subject(uid: $0) }
    return (w, subs)
}

@Suite("Search-check shortcuts")
struct SearchShortcutTests {
    @Test("a shortcut's answer is the full evaluation's: the grant, or the refusal with its evidence", arguments: [UInt64(1), 2, 3, 4])
    func shortcutAgrees(seed: UInt64) {
        let (w, subjects) = randomWorld(seed: seed, dirs: 300)
        let box = WorldBox(w)
        var withACL = 0, quickGrants = 0, quickACLGrants = 0, quickRefusals = 0, quickACLRefusals = 0
        for sem in Semantics.allCases {
            for s in subjects {
                Eval.with(box: box, sem: sem, subject: s, tracing: false) { e in
                    for i in 0..<w.nodeCount where w[NodeID(i)].isDir {
                        let n = NodeID(i)
                        e.depth = 1
                        let full = e.authorize(n, parent: -1, .search, noImmutable: false)
                        e.depth = 0
                        let quick = e.quickSearch(n)
                        let hasACL = w[n].acl >= 0 || w[n].posixACL >= 0
                        if hasACL { withACL += 1 }
                        // A shortcut grant is the full path's grant; a shortcut refusal is its
                        // refusal, with the same errno and evidence (what a denial reports).
                        switch quick {
                        case .granted?:
                            quickGrants += 1
                            if hasACL { quickACLGrants += 1 }
                            #expect(full.allowed, "\(sem) uid \(s.uid) \(w.path(of: n)): shortcut grants, \(full.rule.rawValue) refuses")
                        case .refused(let ev)?:
                            quickRefusals += 1
                            if hasACL { quickACLRefusals += 1 }
                            #expect(
                                !full.allowed && full.errno == .EACCES && full.evidence == ev,
                                "\(sem) uid \(s.uid) \(w.path(of: n)): shortcut refuses with \(ev), full path: \(full.rule.rawValue) \(full.evidence)")
                        case nil:
                            break
                        }
                    }
                }
            }
        }
        // The worlds exercise the ACL shortcut, not only the plain one.
        #expect(withACL > 1000)
        #expect(quickACLGrants > 100)
        #expect(quickGrants > quickACLGrants)
        #expect(quickACLRefusals > 50)
        #expect(quickRefusals > quickACLRefusals)
    }

    @Test("a plain directory with x for owner, group and other is searchable by everyone, under every rule set", arguments: [UInt64(7), 8])
    func allExecuteBitsGrantSearch(seed: UInt64) {
        // The walk's first test (`checkAncestors`, `quickSearch`) grants such a directory without
        // looking at the subject: the full evaluation must agree for every subject, on every
        // volume (ignored ownership, ACLs off, read-only and noexec) and owner (99 included).
        let (w, subjects) = randomWorld(seed: seed, dirs: 1000)
        let box = WorldBox(w)
        var checked = 0
        for sem in Semantics.allCases {
            for s in subjects {
                Eval.with(box: box, sem: sem, subject: s, tracing: false) { e in
                    for i in 0..<w.nodeCount where w[NodeID(i)].isDir {
                        let n = NodeID(i), node = w[n]
                        guard node.acl < 0, node.posixACL < 0, node.protection == .unspecified,
                            node.mode.rawValue & 0o111 == 0o111
                        else { continue }
                        e.depth = 1
                        let full = e.authorize(n, parent: -1, .search, noImmutable: false)
                        #expect(full.allowed, "\(sem) uid \(s.uid) \(w.path(of: n)) mode \(node.mode.octal): \(full.rule.rawValue) refuses")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 200)
    }

    @Test("path walks give the same decisions with and without the shortcuts (tracing turns them off)", arguments: [UInt64(5), 6])
    func walksAgree(seed: UInt64) {
        let (w, subjects, files) = randomWorldWithFiles(seed: seed, dirs: 200, oneIn: 3)
        var compared = 0
        for sem in Semantics.allCases {
            let fast = Authorizer(world: w, semantics: sem, tracing: false)
            let traced = Authorizer(world: w, semantics: sem, tracing: true)
            for s in subjects {
                for (k, p) in files.enumerated() {
                    let op: Operation = [.read, .write, .stat, .execute, .delete][k % 5]
                    let a = fast.decide(Request(subject: s, op: op, path: p))
                    let b = traced.decide(Request(subject: s, op: op, path: p))
                    #expect(
                        a.allowed == b.allowed && a.errno == b.errno && a.rule == b.rule && a.node == b.node && a.layer == b.layer && a.evidence == b.evidence,
                        "\(sem) uid \(s.uid) \(op.word) \(p): \(a.rule.rawValue) vs traced \(b.rule.rawValue)")
                    compared += 1
                }
            }
        }
        #expect(compared > 1000)
    }

    @Test("a traced linux walk's search steps are the same with and without the traced shortcut", arguments: [UInt64(9), 10, 11, 12, 13, 14])
    func tracedLinuxWalksAgree(seed: UInt64) {
        let (w, subjects, files) = randomWorldWithFiles(seed: seed, dirs: 300, oneIn: 2)
        let shortcut = Authorizer(world: w, semantics: .linux, tracing: true)
        var layers = shortcut
        layers.tracedSearchShortcut = false
        var compared = 0, granted = 0
        for s in subjects {
            for (k, p) in files.enumerated() {
                let op: Operation = [.read, .write, .stat, .execute, .delete, .create][k % 6]
                let path = op == .create ? p + "-new" : p
                let a = shortcut.decide(Request(subject: s, op: op, path: path))
                let b = layers.decide(Request(subject: s, op: op, path: path))
                // The whole decision: verdict, evidence, every step of the trace, the notes.
                #expect(a == b, "uid \(s.uid) \(op.word) \(path): \(a.rule.rawValue) vs \(b.rule.rawValue)")
                granted += a.trace.count { $0.rule == .searchGranted }
                compared += 1
            }
        }
        #expect(compared > 1000)
        #expect(granted > 2000)
    }
}
