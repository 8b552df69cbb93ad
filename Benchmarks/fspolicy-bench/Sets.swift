import FSPolicy
import FSPolicyAudit
import Foundation
#if os(Linux)
    import Glibc
#endif

// Issue 14's targets: `matrix` over a server-sized tree, `matrix` against the kernel on a real
// tree, `diff` of two large worlds that differ in a few nodes.

/// A server's tree under `prefix`: /home/uN (one per user, 0750 or 0700), /srv/gK (one shared
/// folder per group, setgid 2770), /srv/pub (readable by all), then the remaining nodes below
/// random existing folders (depth at most 7), owned like the folder they are in (a home's
/// files by its user, a group folder's by one of the group's members), with the usual modes;
/// one node in 40 carries a POSIX ACL (16 shared ones, each naming a group and a user).
struct ServerWorld {
    var world = World()
    var users: [(name: String, uid: UID, gid: GID, groups: [GID])] = []
    var groupCount: Int
    var files: [String] = []

    static let uidBase: UID = 71000
    static let gidBase: GID = 71000

    init(prefix: String, nodes: Int, users userCount: Int, groups: Int = 50, seed: UInt64 = 14, keepFiles: Bool = false) {
        groupCount = groups
        var rng = LCG(state: seed)
        for g in 0..<groups { world.addGroup(Group(name: "g\(g)", gid: ServerWorld.gidBase + GID(g))) }
        var members: [[UID]] = Array(repeating: [], count: groups)
        for u in 0..<userCount {
            let primary = u % groups
            var supp: [GID] = []
            for k in [(u * 7 + 3) % groups, (u * 13 + 5) % groups] where k != primary && !supp.contains(ServerWorld.gidBase + GID(k)) {
                supp.append(ServerWorld.gidBase + GID(k))
            }
            let uid = ServerWorld.uidBase + UID(u)
            world.addUser(User(name: "u\(u)", uid: uid, gid: ServerWorld.gidBase + GID(primary), supplementary: supp))
            users.append(("u\(u)", uid, ServerWorld.gidBase + GID(primary), supp))
            members[primary].append(uid)
            for g in supp { members[Int(g - ServerWorld.gidBase)].append(uid) }
        }
        let acls: [POSIXACL] = (0..<16).map { i in
            try! POSIXACL(
                userObj: [.read, .write], users: [POSIXACL.Entry(id: ServerWorld.uidBase + UID((i * 61) % max(userCount, 1)), perms: [.read, .write])],
                groupObj: .read, groups: [POSIXACL.Entry(id: ServerWorld.gidBase + GID((i * 7) % groups), perms: i % 2 == 0 ? .read : [.read, .write])],
                mask: i % 5 == 0 ? .read : [.read, .write], other: [])
        }
        // Directories: path, owner, group, depth.
        var dirs: [(path: String, uid: UID, gid: GID, depth: Int)] = []
        let top = prefix.isEmpty ? "/" : prefix
        let base = prefix.isEmpty ? "" : prefix
        world.addNode(path: top, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        var count = 1
        func add(_ path: String, dir: Bool, uid: UID, gid: GID, mode: UInt16, depth: Int, acl: POSIXACL? = nil) {
            var m = mode
            if let a = acl { m = (m & 0o7000) | UInt16(a.userObj.rawValue) << 6 | UInt16(a.groupClass.rawValue) << 3 | UInt16(a.other.rawValue) }
            let id = world.addNode(path: path, type: dir ? .dir : .file, uid: uid, gid: gid, mode: FileMode(m))
            if let a = acl { world.setPOSIXACL(a, on: id) }
            if dir { dirs.append((path, uid, gid, depth)) } else if keepFiles { files.append(path) }
            count += 1
        }
        add(base + "/home", dir: true, uid: 0, gid: 0, mode: 0o755, depth: 1)
        add(base + "/srv", dir: true, uid: 0, gid: 0, mode: 0o755, depth: 1)
        dirs.removeAll()
        for u in users where count < nodes {
            add(base + "/home/" + u.name, dir: true, uid: u.uid, gid: u.gid, mode: rng.below(4) == 0 ? 0o700 : 0o750, depth: 2)
        }
        for g in 0..<groups where count < nodes {
            let owner = members[g].isEmpty ? 0 : members[g][rng.below(members[g].count)]
            add(base + "/srv/g\(g)", dir: true, uid: owner, gid: ServerWorld.gidBase + GID(g), mode: 0o2770, depth: 2)
        }
        if count < nodes { add(base + "/srv/pub", dir: true, uid: 0, gid: 0, mode: 0o755, depth: 2) }
        let dirModes: [UInt16] = [0o750, 0o750, 0o755, 0o770, 0o700, 0o2770, 0o775]
        let fileModes: [UInt16] = [0o640, 0o640, 0o600, 0o644, 0o660, 0o664, 0o750, 0o755, 0o444]
        while count < nodes {
            let parent = dirs[rng.below(dirs.count)]
            let makeDir = parent.depth < 7 && rng.below(8) == 0
            let path = parent.path + "/" + (makeDir ? "d" : "f") + String(count)
            var uid = parent.uid, gid = parent.gid
            if parent.gid >= ServerWorld.gidBase && parent.uid != 0 && rng.below(3) == 0 {
                let m = members[Int(parent.gid - ServerWorld.gidBase)]
                if !m.isEmpty { uid = m[rng.below(m.count)] }
            }
            if parent.uid == 0 { uid = users.isEmpty ? 0 : users[rng.below(users.count)].uid; gid = ServerWorld.gidBase + GID(rng.below(groups)) }
            let acl = rng.below(40) == 0 ? acls[rng.below(acls.count)] : nil
            let mode = makeDir ? dirModes[rng.below(dirModes.count)] : fileModes[rng.below(fileModes.count)]
            add(path, dir: makeDir, uid: uid, gid: gid, mode: mode, depth: parent.depth + 1, acl: acl)
        }
    }

    var subjects: [Subject] { users.map { world.subject(uid: $0.uid) } }

    /// The world as `fspolicy scan` writes it (format, quoting, ACLs as getfacl entries),
    /// with the users and groups declared.
    func writeScanFile(_ path: String, root: String) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let h = FileHandle(forWritingAtPath: path) else { print("cannot write \(path)"); exit(1) }
        var buf = ""
        buf.reserveCapacity(1 << 20)
        func flush(_ force: Bool = false) {
            if force || buf.utf8.count > 1 << 20 { h.write(Data(buf.utf8)); buf.removeAll(keepingCapacity: true) }
        }
        buf += "fspolicy: 1\nsemantics: linux\ndescription: \"scanned from \(root) by fspolicy scan\"\n\ngroups:\n"
        buf += "  \"root\": {gid: 0}\n"
        for g in 0..<groupCount { buf += "  \"g\(g)\": {gid: \(ServerWorld.gidBase + GID(g))}\n" }
        buf += "\nusers:\n"
        for u in users {
            buf += "  \"\(u.name)\": {uid: \(u.uid), group: \"g\(u.gid - ServerWorld.gidBase)\""
            if !u.groups.isEmpty { buf += ", groups: [" + u.groups.map { "\"g\($0 - ServerWorld.gidBase)\"" }.joined(separator: ", ") + "]" }
            buf += "}\n"
            flush()
        }
        buf += "\nvolumes:\n  \"/\": {fsType: \"ext4\"}\n\ntree:\n"
        func uname(_ u: UID) -> String { u == 0 ? "root" : "u\(u - ServerWorld.uidBase)" }
        func gname(_ g: GID) -> String { g == 0 ? "root" : "g\(g - ServerWorld.gidBase)" }
        // In path order, as `fspolicy scan` (and `fmt`) write a tree.
        let byPath = (0..<world.nodeCount).map { (path: world.path(of: NodeID($0)), id: NodeID($0)) }.sorted { $0.path < $1.path }
        for (path, id) in byPath {
            let n = world[id]
            buf += "  \"\(path)\": {"
            if n.isDir { buf += "type: dir, " }
            buf += "owner: \"\(uname(n.uid))\", group: \"\(gname(n.gid))\", mode: \"\(n.mode.octal)\""
            if let a = world.posixACL(of: id) {
                buf +=
                    ", acl: [" + a.lines(user: { "\(uname($0))" }, group: { "\(gname($0))" }, effective: false).map { "\"\($0)\"" }.joined(separator: ", ")
                    + "]"
            }
            buf += "}\n"
            flush()
        }
        flush(true)
        try? h.close()
    }
}

func peakRSS() -> Int {
    #if os(Linux)
        if let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in s.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
            }
        }
    #endif
    return 0
}

func cpuSeconds() -> Double {
    var r = rusage()
    getrusage(RUSAGE_SELF.rawValue, &r)
    return Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6
}

/// `fspolicy-bench matrix NODES USERS [FILE]`: the set engine in process on a server world of
/// NODES nodes and USERS users, × read, write, execute — the sets alone, then with the CSV rows
/// formatted as `fspolicy matrix` formats them (counted, not kept). With FILE, writes the same
/// world as a scan file for `scripts/bench` to run the whole command on.
func runMatrixBench(nodes: Int, users: Int, file: String?) {
    let clock = ContinuousClock()
    var t0 = clock.now
    let s = ServerWorld(prefix: "", nodes: nodes, users: users)
    let build = nanoseconds(clock.now - t0) / 1e9
    let rssWorld = peakRSS()
    print(
        "server world: \(s.world.nodeCount) nodes, \(users) users in \(s.groupCount) groups, built in \(String(format: "%.2f", build)) s (peak RSS \(rssWorld >> 20) MiB)"
    )
    if let f = file {
        t0 = clock.now
        s.writeScanFile(f, root: "/")
        let size = (try? FileManager.default.attributesOfItem(atPath: f)[.size] as? Int) ?? 0
        print("scan file: \(f), \(size >> 20) MiB, written in \(String(format: "%.2f", nanoseconds(clock.now - t0) / 1e9)) s")
    }
    let ops: [FSPolicy.Operation] = [.read, .write, .execute]
    let subjects = s.subjects
    let names = s.users.map(\.name)
    // 1. The sets alone.
    var c0 = cpuSeconds()
    t0 = clock.now
    let engine = SetEngine(world: s.world, semantics: .linux, subjects: [s.world.subject(uid: 0)] + subjects, ops: ops)
    var cells = 0
    var allowedCells = 0
    var sizeOf: [Int32: Int] = [:]
    engine.walk { _, _, sets in
        for set in sets {
            if let k = sizeOf[set] {
                allowedCells += k
            } else {
                let k = engine.subjectIndices(set).count
                sizeOf[set] = k
                allowedCells += k
            }
        }
        cells += sets.count
        return true
    }
    let setsWall = nanoseconds(clock.now - t0) / 1e9
    let setsCPU = cpuSeconds() - c0
    print(
        "sets: \(cells) (node, op) rows × \(subjects.count + 1) users (root included) = \(cells * (subjects.count + 1)) cells, \(allowedCells) allowed; \(engine.classCount) user classes, \(engine.signatureCount) node signatures, \(engine.fastNodes) nodes by the set path, \(engine.fallbackNodes) by decide"
    )
    print("sets alone: \(String(format: "%.2f", setsWall)) s wall, \(String(format: "%.2f", setsCPU)) s CPU")
    // 2. With the rows formatted as `matrix --format csv` does (one cached field per set).
    c0 = cpuSeconds()
    t0 = clock.now
    let engine2 = SetEngine(world: s.world, semantics: .linux, subjects: [s.world.subject(uid: 0)] + subjects, ops: ops)
    let allNames = ["root"] + names
    var cache: [Int32: String] = [:]
    let words = ops.map(\.word)
    var bytes = 0
    var chunk = ""
    chunk.reserveCapacity(1 << 16)
    engine2.walk { _, path, sets in
        for (k, set) in sets.enumerated() {
            let allowed: String
            if let c = cache[set] {
                allowed = c
            } else {
                allowed = engine2.subjectIndices(set).map { allNames[$0] }.joined(separator: " ")
                cache[set] = allowed
            }
            chunk += path + "," + words[k] + "," + allowed + "\n"
            if chunk.utf8.count > 1 << 16 { bytes += chunk.utf8.count; chunk.removeAll(keepingCapacity: true) }
        }
        return true
    }
    bytes += chunk.utf8.count
    let rowsWall = nanoseconds(clock.now - t0) / 1e9
    let rowsCPU = cpuSeconds() - c0
    let rss = peakRSS()
    print(
        "sets and CSV rows (\(bytes >> 20) MiB of CSV, counted): \(String(format: "%.2f", rowsWall)) s wall, \(String(format: "%.2f", rowsCPU)) s CPU; peak RSS of the whole benchmark process \(rss >> 20) MiB"
    )
    let pass = rowsWall < 60 && rss < 2 << 30
    print(
        "target matrix in process (engine and rows, world already built) of \(s.world.nodeCount) nodes × \(users) users × 3 ops under 60 s and 2 GB: \(pass ? "PASS" : "FAIL") (\(String(format: "%.1f", rowsWall)) s, \(rss >> 20) MiB)"
    )
    withExtendedLifetime(s) {}
}

/// `fspolicy-bench diff NODES USERS CHANGES`: two server worlds that differ in CHANGES nodes
/// (modes, owners, groups, ACLs; spread over the tree), compared by `WorldDiff` for every
/// user × read, write, execute.
func runDiffBench(nodes: Int, users: Int, changes: Int) {
    let clock = ContinuousClock()
    let s = ServerWorld(prefix: "", nodes: nodes, users: users)
    var new = s.world
    var rng = LCG(state: 99)
    var changed: Set<Int> = []
    while changed.count < changes {
        let i = 1 + rng.below(s.world.nodeCount - 1)
        guard changed.insert(i).inserted else { continue }
        let id = NodeID(i)
        switch changed.count % 4 {
        case 0: new.update(id) { $0.mode = FileMode($0.mode.rawValue ^ 0o004) }
        case 1: new.update(id) { $0.uid = ServerWorld.uidBase + UID(rng.below(max(users, 1))) }
        case 2: new.update(id) { $0.gid = ServerWorld.gidBase + GID(rng.below(s.groupCount)) }
        default:
            let a = try! POSIXACL(
                userObj: [.read, .write], users: [POSIXACL.Entry(id: ServerWorld.uidBase + UID(rng.below(max(users, 1))), perms: .read)],
                groupObj: .read, groups: [], mask: .read, other: [])
            new.setPOSIXACL(a, on: id)
            new.update(id) { $0.mode = FileMode(($0.mode.rawValue & 0o7000) | 0o640) }
        }
    }
    let subjects = [s.world.subject(uid: 0)] + s.subjects
    let newSubjects = [new.subject(uid: 0)] + s.users.map { new.subject(uid: $0.uid) }
    var samples: [Double] = []
    var found = 0
    var redecided = 0
    var cpu: [Double] = []
    var privilegeSamples: [Double] = []
    var privilegeCount = 0
    for _ in 0..<3 {
        let c0 = cpuSeconds()
        let t0 = clock.now
        var d = WorldDiff(old: s.world, new: new, semantics: .linux, oldSubjects: subjects, newSubjects: newSubjects, ops: [.read, .write, .execute])
        found = d.run().count
        redecided = d.redecided
        samples.append(nanoseconds(clock.now - t0) / 1e9)
        cpu.append(cpuSeconds() - c0)
        // The walk for set-ID bits, file capabilities and inherited ACLs that `fspolicy diff` adds.
        let t1 = clock.now
        privilegeCount = d.privilegeChanges().changes.count
        privilegeSamples.append(nanoseconds(clock.now - t1) / 1e9)
    }
    privilegeSamples.sort()
    samples.sort()
    cpu.sort()
    let t = samples[1]
    print(
        "diff: two worlds of \(s.world.nodeCount) nodes differing in \(changes) nodes, \(users + 1) users × 3 ops: \(found) changed decisions, \(redecided) nodes decided again; \(String(format: "%.3f", t)) s wall, \(String(format: "%.3f", cpu[1])) s CPU (medians of 3; worlds already built), peak RSS \(peakRSS() >> 20) MiB; \(privilegeCount) changes of set-ID bits, capabilities or inherited ACLs found in \(String(format: "%.3f", privilegeSamples[1])) s"
    )
    print(
        "target diff in process of two \(s.world.nodeCount)-node worlds differing in \(changes) nodes under 5 s: \(t < 5 ? "PASS" : "FAIL") (\(String(format: "%.3f", t)) s)"
    )
}
