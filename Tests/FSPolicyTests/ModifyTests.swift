import Testing
import FSPolicy

// Rules O40–O42 (docs/semantics.md): `modify` is any of its ways, each decided as that op;
// directory-only right words asked of a file are ENOTDIR.

let modifyRows: [Row] = [
    Row(
        "bob modifies a uappnd file: write is EPERM, append is allowed", .bob, .modify, "/fl/uapp", .allow(.mode, .otherBitsGrant),
        traceHas: .modifyFile),
    Row(
        "bob modifies a uchg file: every way is EPERM, the write denial shown", .bob, .modify, "/fl/uchg",
        .deny(.EPERM, .flags, .immutable)),
    Row(
        "bob modifies a uappnd 0777 dir: a new entry is allowed", .bob, .modify, "/fl/adir", .allow(.mode, .otherBitsGrant),
        traceHas: .modifyDirectory),
    Row("bob modifies a uchg 0777 dir: EPERM", .bob, .modify, "/fl/idir", .deny(.EPERM, .flags, .immutable)),
    Row(
        "bob asks add_file of a regular file: ENOTDIR", .bob, .rights(.addFile, word: "add_file"), "/fl/nodump",
        .deny(.ENOTDIR, .type, .directoryRightOnFile)),
    Row(
        "bob asks delete_child of a regular file: ENOTDIR", .bob, .rights(.deleteChild, word: "delete_child"), "/fl/nodump",
        .deny(.ENOTDIR, .type, .directoryRightOnFile))
]

@Suite("O40–O42: modify, directory rights on files")
struct ModifyTests {
    @Test("O40/O41 modify is any of its ways; O42 add_file on a file is ENOTDIR", arguments: modifyRows)
    func rows(_ row: Row) { check(row) }

    /// Every user, every node of the fixture world, every rule set: `modify` is allowed exactly
    /// when one of its ways, asked as its own request, is.
    @Test("modify agrees with its ways on every node, user and rule set")
    func agreesWithWays() {
        let world = Fixture.world
        var compared = 0, allowed = 0
        for sem in Semantics.allCases {
            let auth = Authorizer(world: world, semantics: sem, tracing: false)
            for who in [Who.root, .alice, .bob, .carol, .dave] {
                let s = world.subject(uid: who.uid)
                for i in 0..<world.nodeCount {
                    let n = NodeID(i)
                    if world[n].type == .symlink { continue }
                    let path = world.path(of: n)
                    let m = auth.decide(Request(subject: s, op: .modify, path: path))
                    let ways: [Request]
                    if world[n].isDir {
                        var name = ".fspolicy-new"
                        var k = 0
                        while world.child(n, Substring(name)) != nil { k += 1; name = ".fspolicy-new\(k)" }
                        let inside = (path == "/" ? "/" : path + "/") + name
                        ways = [Request(subject: s, op: .create, path: inside), Request(subject: s, op: .mkdir, path: inside)]
                    } else {
                        ways = [.write, .append, .truncate].map { Request(subject: s, op: $0, path: path) }
                    }
                    let any = ways.contains { auth.decide($0).allowed }
                    // delete_child may add an allowance on a directory, never take one away.
                    if world[n].isDir && !any {
                        #expect(!m.allowed || sem != .linux, "[\(sem.rawValue)] \(who) modify \(path): allowed by delete_child under linux")
                    } else {
                        #expect(m.allowed == any, "[\(sem.rawValue)] \(who) modify \(path): \(m.allowed) but its ways say \(any)")
                    }
                    compared += 1
                    if m.allowed { allowed += 1 }
                }
            }
        }
        print("modify: \(compared) decisions compared with their ways, \(allowed) allowed")
        #expect(compared > 500)
        #expect(allowed > 0 && allowed < compared)
    }
}
