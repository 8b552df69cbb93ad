import FSPolicy

struct LCG {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 33
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// One benchmark question: a user, an access mode (R_OK 4, W_OK 2, X_OK 1, F_OK 0) and a path.
struct Question {
    var user: Int
    var op: Operation
    var access: Int32
    var path: String
}

/// The synthetic world of the benchmarks: `nodes` nodes below `prefix`, directories up to 8
/// levels deep (mostly traversable), ACLs on a fifth of the nodes drawn from 8 shared ACLs
/// (macOS ACEs in `world`, POSIX ACLs in `linuxWorld`), 50 users in 10 groups.
struct Synthetic {
    var world = World()
    var linuxWorld = World()
    var dirs: [String] = []
    var files: [String] = []
    var subjects: [Subject] = []
    var users: [(uid: UID, gid: GID, groups: [GID])] = []
    var posixACLs: [POSIXACL] = []
    var questions: [Question] = []

    static let dirModes: [UInt16] = [0o755, 0o755, 0o755, 0o775, 0o775, 0o711, 0o1777, 0o750, 0o700]
    static let fileModes: [UInt16] = [0o644, 0o640, 0o600, 0o664, 0o755, 0o444]

    init(prefix: String, nodes: Int, questionCount: Int = 10_000, seed: UInt64 = 42, linuxView: Bool = true) {
        var rng = LCG(state: seed)
        for g in 0..<10 { world.addGroup(Group(name: "g\(g)", gid: GID(1000 + g))) }
        for u in 0..<50 {
            let user = User(name: "u\(u)", uid: UID(2000 + u), gid: GID(1000 + u % 10), supplementary: [GID(1000 + (u * 7) % 10)])
            world.addUser(user)
            users.append((user.uid, user.gid, user.supplementary))
        }
        let shared: [ACL] = (0..<8).map { i in
            let inherit: ACEFlags = [.fileInherit, .directoryInherit]
            return ACL([
                ACE(subject: .group(GID(1000 + i)), kind: .deny, rights: [.writeData, .delete]),
                ACE(subject: .user(UID(2000 + i * 3)), kind: .allow, rights: [.readData, .writeData, .execute, .appendData]),
                ACE(subject: .group(GID(1000 + (i + 3) % 10)), kind: .allow, rights: [.readData, .execute, .deleteChild, .addFile], flags: inherit),
                ACE(subject: .everyone, kind: .allow, rights: [.readAttributes, .readSecurity])
            ])
        }
        posixACLs = (0..<8).map { i in
            try! POSIXACL(
                userObj: .all, users: [POSIXACL.Entry(id: UID(2000 + i * 3), perms: [.read, .write])], groupObj: [.read, .execute],
                groups: [POSIXACL.Entry(id: GID(1000 + i), perms: .read)], mask: .all, other: [.read, .execute])
        }
        let top = prefix.isEmpty ? "/" : prefix
        world.addNode(path: top, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        dirs = [top]
        var depth = [0]
        var aclOf: [Int: Int] = [:]
        var count = 1
        while count < nodes {
            let pi = rng.below(dirs.count)
            let parent = dirs[pi]
            let makeDir = depth[pi] < 7 && rng.below(6) == 0
            let name = (makeDir ? "d" : "f") + String(count)
            let path = parent == "/" ? "/" + name : parent + "/" + name
            let owner = UID(2000 + rng.below(50))
            let group = GID(1000 + rng.below(10))
            let acl = rng.below(5) == 0 ? rng.below(shared.count) : -1
            let mode = makeDir ? Synthetic.dirModes[rng.below(Synthetic.dirModes.count)] : Synthetic.fileModes[rng.below(Synthetic.fileModes.count)]
            let id = world.addNode(
                path: path, type: makeDir ? .dir : .file, uid: owner, gid: group, mode: FileMode(mode),
                acl: acl >= 0 ? shared[acl] : nil)
            if acl >= 0 { aclOf[Int(id)] = acl }
            if makeDir { dirs.append(path); depth.append(depth[pi] + 1) } else if questionCount > 0 { files.append(path) }
            count += 1
        }
        // The Linux view: the same tree, POSIX ACLs on the same nodes (mode group bits = mask).
        linuxWorld = world
        for (id, k) in aclOf where linuxView {
            let a = posixACLs[k]
            linuxWorld.setACL(nil, on: NodeID(id))
            linuxWorld.setPOSIXACL(a, on: NodeID(id))
            // With an ACL the mode's base bits are the ACL's (user::, the mask, other::), as on disk.
            linuxWorld.update(NodeID(id)) { n in
                n.mode = FileMode((n.mode.rawValue & 0o7000) | UInt16(a.userObj.rawValue) << 6 | UInt16(a.groupClass.rawValue) << 3 | UInt16(a.other.rawValue))
            }
        }
        subjects = users.map { world.subject(uid: $0.uid) }
        for _ in 0..<questionCount {
            let user = rng.below(50)
            if rng.below(5) == 0 {
                let d = dirs[rng.below(dirs.count)]
                switch rng.below(3) {
                case 0: questions.append(Question(user: user, op: .list, access: 4, path: d))
                case 1: questions.append(Question(user: user, op: .search, access: 1, path: d))
                default: questions.append(Question(user: user, op: .stat, access: 0, path: d))
                }
            } else {
                let f = files[rng.below(files.count)]
                switch rng.below(5) {
                case 0, 1: questions.append(Question(user: user, op: .read, access: 4, path: f))
                case 2: questions.append(Question(user: user, op: .write, access: 2, path: f))
                case 3: questions.append(Question(user: user, op: .execute, access: 1, path: f))
                default: questions.append(Question(user: user, op: .stat, access: 0, path: f))
                }
            }
        }
    }

    /// Question indices per user: what each kernel worker process asks (in this order).
    func perUser() -> [[Int]] {
        var lists: [[Int]] = Array(repeating: [], count: users.count)
        for (i, q) in questions.enumerated() { lists[q.user].append(i) }
        return lists
    }

    /// The questions as requests, each path a copy of its own made in question order: as the
    /// kernel's worker holds its questions (`strdup` of each line in turn) and as a program
    /// reading questions holds them. Sharing the strings of `dirs` and `files` instead, made in
    /// the tree's order, scattered the paths over the heap; cycling through all the questions
    /// then read each path's bytes from a line of its own (interleaved 970–1,150 ns against
    /// 690–880 with copies, alternating runs).
    func requests(linux: Bool) -> [Request] {
        let subs = linux ? users.map { linuxWorld.subject(uid: $0.uid) } : subjects
        return questions.map { Request(subject: subs[$0.user], op: $0.op, path: String(decoding: Array($0.path.utf8), as: UTF8.self)) }
    }
}
