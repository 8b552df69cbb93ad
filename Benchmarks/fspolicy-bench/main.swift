import FSPolicy

// fspolicy-bench: nanoseconds per decision on a synthetic world.
// Usage: swift run -c release fspolicy-bench [nodes] [decisions] [repeats]
// World: `nodes` nodes, depth up to 8, ACLs on a fifth of them (drawn from a few shared ACLs),
// 50 users in 10 groups; requests: the common operations on random paths, tracing off.

struct LCG {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 33
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

let args = CommandLine.arguments
let nodeTarget = args.count > 1 ? Int(args[1]) ?? 100_000 : 100_000
let decisions = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
let repeats = args.count > 3 ? Int(args[3]) ?? 5 : 5

var rng = LCG(state: 42)
var world = World()
for g in 0..<10 { world.addGroup(Group(name: "g\(g)", gid: GID(1000 + g))) }
for u in 0..<50 {
    world.addUser(User(name: "u\(u)", uid: UID(2000 + u), gid: GID(1000 + u % 10), supplementary: [GID(1000 + (u * 7) % 10)]))
}

// A handful of shared ACLs, like real trees where most files carry the same few.
func makeACL(_ i: Int) -> ACL {
    let deny = ACE(subject: .group(GID(1000 + i)), kind: .deny, rights: [.writeData, .delete])
    let allowUser = ACE(subject: .user(UID(2000 + i * 3)), kind: .allow, rights: [.readData, .writeData, .execute, .appendData])
    let inheritFlags: ACEFlags = [.fileInherit, .directoryInherit]
    let allowGroup = ACE(subject: .group(GID(1000 + (i + 3) % 10)), kind: .allow,
                         rights: [.readData, .execute, .deleteChild, .addFile], flags: inheritFlags)
    let everyone = ACE(subject: .everyone, kind: .allow, rights: [.readAttributes, .readSecurity])
    return ACL([deny, allowUser, allowGroup, everyone])
}
let sharedACLs: [ACL] = (0..<8).map(makeACL)

var dirs: [String] = ["/"]
var dirDepth: [Int] = [0]
var files: [String] = []
var count = 1
// Mostly traversable directories, as on real systems, so most requests walk the whole path.
let modes: [UInt16] = [0o755, 0o755, 0o755, 0o775, 0o775, 0o711, 0o1777, 0o750, 0o700]
let fileModes: [UInt16] = [0o644, 0o640, 0o600, 0o664, 0o755, 0o444]
while count < nodeTarget {
    let pi = rng.below(dirs.count)
    let parent = dirs[pi]
    let depth = dirDepth[pi]
    let makeDir = depth < 7 && rng.below(6) == 0
    let name = (makeDir ? "d" : "f") + String(count)
    let path = parent == "/" ? "/" + name : parent + "/" + name
    let owner = UID(2000 + rng.below(50))
    let group = GID(1000 + rng.below(10))
    let acl: ACL? = rng.below(5) == 0 ? sharedACLs[rng.below(sharedACLs.count)] : nil
    if makeDir {
        world.addNode(path: path, type: .dir, uid: owner, gid: group, mode: FileMode(modes[rng.below(modes.count)]), acl: acl)
        dirs.append(path)
        dirDepth.append(depth + 1)
    } else {
        world.addNode(path: path, type: .file, uid: owner, gid: group, mode: FileMode(fileModes[rng.below(fileModes.count)]), acl: acl)
        files.append(path)
    }
    count += 1
}

let ops: [Operation] = [.read, .write, .stat, .execute, .delete, .append]
let subjects = (0..<50).map { world.subject(uid: UID(2000 + $0)) }
var requests: [Request] = []
requests.reserveCapacity(10_000)
for _ in 0..<10_000 {
    let useDir = rng.below(5) == 0
    let op: Operation
    let path: String
    if useDir {
        path = dirs[rng.below(dirs.count)]
        op = [.list, .search, .stat][rng.below(3)]
    } else if rng.below(10) == 0 {
        path = dirs[rng.below(dirs.count)] + "/new" + String(rng.below(1000))
        op = .create
    } else {
        path = files[rng.below(files.count)]
        op = ops[rng.below(ops.count)]
    }
    requests.append(Request(subject: subjects[rng.below(50)], op: op, path: path))
}

let maxDepth = dirDepth.max() ?? 0
print("world: \(world.nodeCount) nodes (\(dirs.count) directories, depth up to \(maxDepth + 1)), \(world.acls.count) distinct ACLs on a fifth of the nodes, 50 users")
print("requests: \(requests.count) distinct (read, write, stat, execute, delete, append, list, search, create), \(decisions) decisions per repeat, median of \(repeats)")

// The linux rule set reads POSIX ACLs: give the same fifth of the nodes one of a few shared ones.
let posixACLs: [POSIXACL] = (0..<8).map { i in
    try! POSIXACL(userObj: .all, users: [POSIXACL.Entry(id: UID(2000 + i * 3), perms: [.read, .write])], groupObj: [.read, .execute],
                  groups: [POSIXACL.Entry(id: GID(1000 + i), perms: [.read])], mask: .all, other: [.read, .execute])
}
var linuxWorld = world
for i in 0..<linuxWorld.nodeCount where linuxWorld[NodeID(i)].acl >= 0 {
    let acl = posixACLs[i % posixACLs.count]
    linuxWorld.setPOSIXACL(acl, on: NodeID(i))
    linuxWorld.update(NodeID(i)) { n in n.mode = FileMode((n.mode.rawValue & ~0o070) | UInt16(acl.groupClass.rawValue) << 3) }
}

for sem in [Semantics.macos, .guide, .linux] {
    let auth = Authorizer(world: sem == .linux ? linuxWorld : world, semantics: sem, tracing: false)
    var samples: [Double] = []
    var allowed = 0
    for _ in 0..<repeats {
        let clock = ContinuousClock()
        var a = 0
        let start = clock.now
        var i = 0
        while i < decisions {
            if auth.decide(requests[i % requests.count]).allowed { a += 1 }
            i += 1
        }
        let elapsed = clock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(ns / Double(decisions))
        allowed = a
    }
    samples.sort()
    let median = samples[samples.count / 2]
    let perSecond = 1e9 / median
    print("\(sem.rawValue): \(String(Int(median + 0.5))) ns/decision (median), \(Int(perSecond)) decisions/s, \(allowed * 100 / decisions)% allowed")
}

// With traces, for comparison (what explain and check pay).
do {
    let auth = Authorizer(world: world, semantics: .macos, tracing: true)
    let clock = ContinuousClock()
    let n = decisions / 4
    let start = clock.now
    var a = 0
    for i in 0..<n where auth.decide(requests[i % requests.count]).allowed { a += 1 }
    let e = clock.now - start
    let ns = (Double(e.components.seconds) * 1e9 + Double(e.components.attoseconds) / 1e9) / Double(n)
    print("macos with traces: \(Int(ns + 0.5)) ns/decision (\(a >= 0 ? "single run" : ""))")
}
