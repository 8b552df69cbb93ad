import FSPolicy

/// How the cost of a decision grows: with the size of the tree, the depth of the path and the
/// length of the ACL that has to be walked. Three small tables for docs/performance.md.
func runGrowth(decisions: Int, repeats: Int) {
    print("ns per decision (median of \(repeats) runs of \(decisions) decisions, tracing off)")

    print("\n-- tree size (the synthetic world, 10,000 questions cycled, users interleaved)")
    print("| nodes | macos | linux |")
    print("|---|---|---|")
    for nodes in [10_000, 100_000, 1_000_000] {
        let s = Synthetic(prefix: "", nodes: nodes)
        let mac = measureSimulator(s.world, s.requests(linux: false), semantics: .macos, decisions: decisions, repeats: repeats).ns
        let lin = measureSimulator(s.linuxWorld, s.requests(linux: true), semantics: .linux, decisions: decisions, repeats: repeats).ns
        print("| \(nodes) | \(Int(mac + 0.5)) | \(Int(lin + 0.5)) |")
    }

    print("\n-- path depth (the 100,000-node world; reads of files at each depth)")
    print("| depth of the file | questions | macos | linux |")
    print("|---|---|---|---|")
    let s = Synthetic(prefix: "", nodes: 100_000)
    let mac = s.requests(linux: false), lin = s.requests(linux: true)
    for depth in 1...8 {
        let idx = s.questions.indices.filter { s.questions[$0].op == .read && s.questions[$0].path.split(separator: "/").count == depth }
        guard idx.count >= 20 else { continue }
        let m = measureSimulator(s.world, idx.map { mac[$0] }, semantics: .macos, decisions: decisions, repeats: repeats).ns
        let l = measureSimulator(s.linuxWorld, idx.map { lin[$0] }, semantics: .linux, decisions: decisions, repeats: repeats).ns
        print("| \(depth) | \(idx.count) | \(Int(m + 0.5)) | \(Int(l + 0.5)) |")
    }

    print("\n-- ACL length (one file /d/f, read by a user the ACL does not name: every entry is walked)")
    print("| entries | macos (ACEs) | linux (named users) |")
    print("|---|---|---|")
    for k in [0, 4, 16, 64, 256] {
        var w = World()
        w.addGroup(Group(name: "g", gid: 100))
        w.addUser(User(name: "reader", uid: 1, gid: 100, supplementary: []))
        var macW = w, linW = w
        let aces = (0..<k).map { ACE(subject: .user(UID(1000 + $0)), kind: .allow, rights: [.readData, .writeData]) }
        macW.addNode(path: "/d", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        macW.addNode(path: "/d/f", type: .file, uid: 0, gid: 0, mode: FileMode(0o644), acl: k > 0 ? ACL(aces) : nil)
        linW.addNode(path: "/d", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        let f = linW.addNode(path: "/d/f", type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
        if k > 0 {
            let users = (0..<k).map { POSIXACL.Entry(id: UInt32(1000 + $0), perms: [.read, .write]) }
            linW.setPOSIXACL(try! POSIXACL(userObj: [.read, .write], users: users, groupObj: .read, mask: [.read, .write], other: .read), on: f)
        }
        let m = measureSimulator(
            macW, [Request(subject: macW.subject(uid: 1), op: .read, path: "/d/f")], semantics: .macos, decisions: decisions, repeats: repeats
        ).ns
        let l = measureSimulator(
            linW, [Request(subject: linW.subject(uid: 1), op: .read, path: "/d/f")], semantics: .linux, decisions: decisions, repeats: repeats
        ).ns
        print("| \(k) | \(Int(m + 0.5)) | \(Int(l + 0.5)) |")
    }
}
