import Testing
@testable import FSPolicy
@testable import FSPolicyAudit

// FSL019 (dead grants) decides "no possible subject uses this grant" from the classes of
// subjects the principals of the node and its ancestors tell apart, in a world holding only
// that path. Here the verdicts are compared with brute force: every subject over all of the
// world's uids (and two more) and every set of its groups, in the whole world.

/// A random world of nested directories and files with random owners, modes, macOS ACLs and
/// POSIX ACLs drawn from few principals, so that grants are often shadowed, masked or cut off.
func deadGrantWorld(seed: UInt64, nodes: Int) -> World {
    var rng = Rng(s: seed)
    var w = World()
    for g in 0..<3 { w.addGroup(Group(name: "g\(g)", gid: GID(100 + g), members: [UID(1000 + g)], nested: g == 2 ? [100] : [])) }
    for u in 0..<3 { w.addUser(User(name: "u\(u)", uid: UID(1000 + u), gid: GID(100 + u))) }
    w.addUser(User(name: "root", uid: 0, gid: 0))
    let owners: [UID] = [1000, 1001, 1002, 0]
    let groups: [GID] = [100, 101, 102, 0]
    let aceSubjects: [ACESubject] = [
        .user(1000), .user(1001), .user(1002), .group(100), .group(101), .group(102),
        .everyone, .owner, .owningGroup
    ]
    let pool: [AccessRights] = [.readData, .writeData, .execute, .delete, .appendData]
    var dirs = ["/t"]
    w.addNode(path: "/t", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
    for i in 0..<nodes {
        let parent = dirs[rng.below(dirs.count)]
        let isDir = rng.chance(2)
        let path = parent + (isDir ? "/d\(i)" : "/f\(i)")
        // Directories are mostly searchable, so that cut-off paths are the exception.
        let mode = UInt16(rng.below(0o1000)) | (isDir && !rng.chance(3) ? 0o111 : 0)
        var acl: ACL? = nil
        if rng.chance(2) {
            acl = ACL(
                (0..<(1 + rng.below(4))).map { _ in
                    var rights: AccessRights = []
                    for r in pool where rng.chance(2) { rights.insert(r) }
                    if rights.isEmpty { rights = .readData }
                    return ACE(subject: aceSubjects[rng.below(aceSubjects.count)], kind: rng.chance(3) ? .deny : .allow, rights: rights)
                })
        }
        let id = w.addNode(
            path: path, type: isDir ? .dir : .file, uid: owners[rng.below(owners.count)],
            gid: groups[rng.below(groups.count)], mode: FileMode(mode), acl: acl)
        if rng.chance(2) {
            let rwx: (Int) -> RWX = { RWX(rawValue: UInt8($0)) }
            var seen = Set<UID>(), gseen = Set<GID>()
            let users = (0..<rng.below(3)).map { _ in POSIXACL.Entry(id: UID(1000 + rng.below(3)), perms: rwx(1 + rng.below(7))) }.filter {
                seen.insert($0.id).inserted
            }
            let gs = (0..<rng.below(3)).map { _ in POSIXACL.Entry(id: GID(100 + rng.below(3)), perms: rwx(1 + rng.below(7))) }.filter {
                gseen.insert($0.id).inserted
            }
            if let a = try? POSIXACL(
                userObj: rwx(Int(mode >> 6) & 7), users: users, groupObj: rwx(rng.below(8)), groups: gs,
                mask: rwx(Int(mode >> 3) & 7), other: rwx(Int(mode) & 7))
            {
                w.setPOSIXACL(a, on: id)
            }
        }
        if isDir { dirs.append(path) }
    }
    return w
}

@Suite("Dead grants")
struct DeadGrantTests {
    /// Every non-root subject over the world's uids, the unknown 99 and one more, and every set
    /// of its groups (with `everyone` under the macOS rule sets).
    static func bruteUniverse(_ w: World, _ sem: Semantics) -> [Subject] {
        let gids: [GID] = [0, 100, 101, 102]
        var out: [Subject] = []
        for u: UID in [1000, 1001, 1002, WellKnown.unknownID, 4242] {
            for mask in 0..<(1 << gids.count) {
                var gs = gids.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
                let primary = gs.first ?? 65534
                if sem != .linux { gs.append(WellKnown.everyoneGID) }
                out.append(Subject(uid: u, gid: primary, groups: gs))
            }
        }
        return out
    }

    @Test(
        "a grant is reported dead exactly when no subject's decision depends on it (brute force)",
        arguments: [UInt64(1), 2, 3, 4, 5, 6], [DeadGrants.Kind.acl, .mode])
    func againstBruteForce(seed: UInt64, kind: DeadGrants.Kind) {
        let w = deadGrantWorld(seed: seed, nodes: 60)
        var dead = 0, live = 0, blocked = 0, mixed = 0
        for sem in Semantics.allCases {
            let brute = Self.bruteUniverse(w, sem)
            let cache = DeadGrants.Cache()
            for i in 0..<w.nodeCount {
                let n = NodeID(i)
                let gs = DeadGrants.grants(w, sem, n, kind: kind)
                if gs.isEmpty { continue }
                let verdicts = DeadGrants.find(w, sem, n, kind: kind, cache: cache)
                let reported = Dictionary(uniqueKeysWithValues: verdicts.map { ($0.grant, $0) })
                for g in gs {
                    let used = DeadGrants.isUsed(w, sem, n, g, subjects: brute, skipInapplicable: false)
                    #expect(used == (reported[g] == nil), "\(sem) \(w.path(of: n)) \(g): brute force says used=\(used)")
                    if used { live += 1 } else { dead += 1 }
                    if reported[g]?.blockedAbove == true { blocked += 1 }
                    // Blocked above: with every directory above open to everyone, someone uses it.
                    if let v = reported[g] {
                        var open = w
                        var cur = w[n].parent
                        while true {
                            open.update(cur) {
                                $0.mode = FileMode(0o777); $0.flags = []
                            }
                            open.setACL(nil, on: cur)
                            open.setPOSIXACL(nil, on: cur)
                            if cur == World.root { break }
                            cur = open[cur].parent
                        }
                        let openUsed = DeadGrants.isUsed(open, sem, n, g, subjects: brute, skipInapplicable: false)
                        #expect(v.blockedAbove == openUsed, "\(sem) \(w.path(of: n)) \(g): blocked above \(v.blockedAbove), brute force \(openUsed)")
                        // "Nobody it applies to reaches the node" only when no subject it may
                        // apply to may search every directory above.
                        if v.blockedAbove {
                            let reached = Self.reachedByGrantee(w, sem, n, g, brute)
                            #expect(v.reachedByGrantee == reached, "\(sem) \(w.path(of: n)) \(g): reached \(v.reachedByGrantee), brute force \(reached)")
                            if reached { mixed += 1 }
                        }
                    }
                }
            }
        }
        // The worlds have both kinds, and grants cut off by a directory above.
        #expect(dead > 5 && live > 5 && blocked > 0, "dead \(dead), live \(live), blocked \(blocked), mixed \(mixed)")
    }

    /// Whether some subject of `subjects` that grant `g` may apply to may search every
    /// directory above `n`, in the whole world.
    static func reachedByGrantee(_ w: World, _ sem: Semantics, _ n: NodeID, _ g: DeadGrants.Grant, _ subjects: [Subject]) -> Bool {
        let a = Authorizer(world: w, semantics: sem, tracing: false)
        var above: [NodeID] = []
        var cur = n
        while cur != World.root { cur = w[cur].parent; above.append(cur) }
        return subjects.contains { s in
            !s.isRoot && DeadGrants.mayBeGrantee(w, sem, n, g, s) && above.allSatisfy { a.searchGranted(s, dir: $0) }
        }
    }

    /// /T (group team, 0750, interns may search it through an ACE) holding f.txt (0640) whose
    /// ACL allows read to interns, to team, then to ivan, a member of interns.
    static func shadowedBehindSearchWorld() -> (World, NodeID) {
        var w = World()
        w.addGroup(Group(name: "interns", gid: 600, members: [510]))
        w.addGroup(Group(name: "team", gid: 601, members: [511]))
        w.addUser(User(name: "ivan", uid: 510, gid: 20))
        w.addUser(User(name: "tess", uid: 511, gid: 20))
        w.addNode(
            path: "/T", type: .dir, uid: 0, gid: 601, mode: FileMode(0o750),
            acl: ACL([ACE(subject: .group(600), kind: .allow, rights: [.readData, .execute])]))
        let f = w.addNode(
            path: "/T/f.txt", type: .file, uid: 0, gid: 601, mode: FileMode(0o640),
            acl: ACL([
                ACE(subject: .group(600), kind: .allow, rights: .readData),
                ACE(subject: .group(601), kind: .allow, rights: .readData),
                ACE(subject: .user(510), kind: .allow, rights: .readData)
            ]))
        return (w, f)
    }

    @Test("an ACE shadowed for those who reach the file, cut off for the rest, is not said to be unreachable")
    func shadowedBehindSearch() {
        let sem = Semantics.macos
        let (w, f) = Self.shadowedBehindSearchWorld()
        let a = Authorizer(world: w, semantics: sem, tracing: false)
        let ivan = Subject(uid: 510, gid: 20, groups: [20, 600, WellKnown.everyoneGID])
        // ivan reaches the file through /T's ACE and reads it: ACE 0 decides, not ACE 2.
        #expect(a.decide(Request(subject: ivan, op: .read, path: "/T/f.txt")).allowed)
        let v = DeadGrants.find(w, sem, f)
        #expect(v.map(\.grant) == [.ace(2)])
        // An ivan in neither group would use it, and cannot search /T: blocked above, but ivan
        // in interns reaches the file, so the reason is that earlier entries decide first.
        #expect(v.first?.blockedAbove == true)
        #expect(v.first?.reachedByGrantee == true)
        #expect(v.first?.earlierEntries == .all)
    }

    @Test("on a world read from Linux gid 12 is an ordinary group to the macOS rule sets (brute force)")
    func foreignGidTwelve() {
        var w = deadGrantWorld(seed: 7, nodes: 20)
        w.fromLinux = true
        w.addGroup(Group(name: "man", gid: 12))
        let f = w.addNode(
            path: "/t/man.db", type: .file, uid: 0, gid: 12, mode: FileMode(0o640),
            acl: ACL([ACE(subject: .group(12), kind: .allow, rights: .writeData)]))
        #expect(DeadGrants.pathWorld(w, f).0.implicitEveryone == w.implicitEveryone)
        var brute: [Subject] = []
        for u: UID in [1000, 4242] { for with12 in [false, true] { brute.append(Subject(uid: u, gid: 100, groups: with12 ? [100, 12] : [100])) } }
        var compared = 0
        for sem in [Semantics.macos, .guide] {
            for kind in [DeadGrants.Kind.acl, .mode] {
                let reported = Set(DeadGrants.find(w, sem, f, kind: kind).map(\.grant))
                for g in DeadGrants.grants(w, sem, f, kind: kind) {
                    let used = DeadGrants.isUsed(w, sem, f, g, subjects: brute, skipInapplicable: false)
                    #expect(used == !reported.contains(g), "\(sem) \(g): brute force says used=\(used)")
                    compared += 1
                }
            }
        }
        #expect(compared >= 4)
    }

    @Test("the path world decides the node as the whole world does (the rights a grant carries)")
    func pathWorld() {
        let w = deadGrantWorld(seed: 9, nodes: 80)
        for sem in Semantics.allCases {
            let a = Authorizer(world: w, semantics: sem, tracing: false)
            for i in 0..<w.nodeCount {
                let (pw, m) = DeadGrants.pathWorld(w, NodeID(i))
                #expect(pw.path(of: m) == w.path(of: NodeID(i)))
                let b = Authorizer(world: pw, semantics: sem, tracing: false)
                for s in Self.bruteUniverse(w, sem).prefix(40) {
                    // The rights a grant carries, as the dead-grant analysis asks them (`delete` as
                    // a right: the op also looks at the node's children, which this world leaves out).
                    let ops: [Operation] =
                        [.read, .write, .execute, .search]
                        + [AccessRights.readData, .writeData, .execute, .delete, .appendData]
                        .map { r in .rights(r, word: AccessRights.words.first { $0.right == r }!.word) }
                    for op in ops {
                        let r = Request(subject: s, op: op, path: w.path(of: NodeID(i)))
                        #expect(a.decide(r).allowed == b.decide(r).allowed)
                    }
                }
            }
        }
    }

    @Test("verdicts memoized by path shape (principals renamed) are the verdicts computed afresh", arguments: [UInt64(11), 12, 13])
    func shapeCache(seed: UInt64) {
        // The random tree under /t, and a copy under /u with uids 1000/1001 and gids 100/101
        // swapped: the same shapes, other ids.
        var w = deadGrantWorld(seed: seed, nodes: 120)
        func pu(_ u: UID) -> UID { u == 1000 ? 1001 : u == 1001 ? 1000 : u }
        func pg(_ g: GID) -> GID { g == 100 ? 101 : g == 101 ? 100 : g }
        let original = w
        for i in 0..<original.nodeCount {
            let n = NodeID(i)
            let path = original.path(of: n)
            guard path == "/t" || path.hasPrefix("/t/") else { continue }
            let node = original[n]
            let acl = original.acl(of: n).map { a in
                ACL(
                    a.entries.map { e in
                        var e = e
                        switch e.subject {
                        case .user(let u): e.subject = .user(pu(u))
                        case .group(let g): e.subject = .group(pg(g))
                        default: break
                        }
                        return e
                    })
            }
            let id = w.addNode(path: "/u" + path.dropFirst(2), type: node.type, uid: pu(node.uid), gid: pg(node.gid), mode: node.mode, acl: acl)
            if let p = original.posixACL(of: n),
                let q = try? POSIXACL(
                    userObj: p.userObj, users: p.users.map { .init(id: pu($0.id), perms: $0.perms) }, groupObj: p.groupObj,
                    groups: p.groups.map { .init(id: pg($0.id), perms: $0.perms) }, mask: p.mask, other: p.other)
            {
                w.setPOSIXACL(q, on: id)
            }
        }
        var hits = 0
        for sem in Semantics.allCases {
            let cache = DeadGrants.Cache()
            for i in 0..<w.nodeCount {
                let n = NodeID(i)
                let fresh = DeadGrants.find(w, sem, n)
                let cached = DeadGrants.find(w, sem, n, cache: cache)
                #expect(fresh.map(\.grant) == cached.map(\.grant), "\(sem) \(w.path(of: n))")
                #expect(fresh.map(\.blockedAbove) == cached.map(\.blockedAbove), "\(sem) \(w.path(of: n))")
                #expect(fresh.map(\.reachedByGrantee) == cached.map(\.reachedByGrantee), "\(sem) \(w.path(of: n))")
                #expect(fresh.map(\.earlierEntries) == cached.map(\.earlierEntries), "\(sem) \(w.path(of: n))")
            }
            hits += cache.hits
        }
        #expect(hits > 10, "the cache is used: \(hits) hits")
    }

    /// A world whose path names many groups: /m/d0/…/d9, directory i of group 200+i, mode 0710,
    /// owned by root; the file at the bottom has an ACL granting user 1000 and a group.
    static func manyGroupWorld(memberOfAll: Bool) -> World {
        var w = World()
        var path = "/m"
        w.addNode(path: path, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        for i in 0..<10 {
            path += "/d\(i)"
            w.addNode(path: path, type: .dir, uid: 0, gid: GID(200 + i), mode: FileMode(0o710))
        }
        // Group 205's directory is closed to its members unless `memberOfAll`: then it is 0711.
        if !memberOfAll, let d5 = w.lookup("/m/d0/d1/d2/d3/d4/d5") { w.update(d5) { $0.mode = FileMode(0o700) } }
        let f = w.addNode(
            path: path + "/f", type: .file, uid: 0, gid: 0, mode: FileMode(0o660),
            acl: ACL([
                ACE(subject: .user(1000), kind: .allow, rights: .readData),
                ACE(subject: .group(203), kind: .allow, rights: .writeData)
            ]))
        if let a = try? POSIXACL(
            userObj: .all, users: [POSIXACL.Entry(id: 1000, perms: .read)], groupObj: [],
            groups: [POSIXACL.Entry(id: 203, perms: .write)], mask: [.read, .write], other: [])
        {
            w.setPOSIXACL(a, on: f)
        }
        return w
    }

    @Test("a path naming more than 8 groups is analysed, and agrees with brute force", arguments: [false, true])
    func manyGroups(open: Bool) {
        let w = Self.manyGroupWorld(memberOfAll: open)
        let f = w.lookup("/m/d0/d1/d2/d3/d4/d5/d6/d7/d8/d9/f")!
        // Every subject over uid 1000 and one more, and every set of the ten groups plus root's.
        let gids: [GID] = (0..<10).map { GID(200 + $0) } + [0]
        for sem in Semantics.allCases {
            var brute: [Subject] = []
            for u: UID in [1000, 4242] {
                for mask in 0..<(1 << gids.count) {
                    var gs = gids.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
                    if sem != .linux { gs.append(WellKnown.everyoneGID) }
                    brute.append(Subject(uid: u, gid: 65534, groups: gs))
                }
            }
            let gs = DeadGrants.grants(w, sem, f)
            #expect(gs.count == 2)
            let verdicts = DeadGrants.find(w, sem, f)
            for g in gs {
                let used = DeadGrants.isUsed(w, sem, f, g, subjects: brute, skipInapplicable: false)
                #expect(used == !verdicts.contains { $0.grant == g }, "\(sem) \(g): brute force says used=\(used)")
                // Closed at d5 (0700, root's): nobody reaches the file; open: both grants are used.
                #expect(used == open, "\(sem) \(g)")
            }
            if !open { #expect(verdicts.allSatisfy { $0.blockedAbove }) }
        }
    }
}
