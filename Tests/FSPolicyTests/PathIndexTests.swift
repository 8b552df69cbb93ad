import Testing
@testable import FSPolicy

// The whole-path index (docs/performance.md, "What the cost is made of"): a hash table whose
// matches are verified byte for byte against the ancestors' names, partly from the head word
// kept in each node record. These tests pin the cases where a shortcut could give a wrong node:
// names of every length around the eight-byte head, long names, prefixes, tag clashes, renames.

private func indexed(_ w: World, _ path: String) -> NodeID? {
    var p = path
    return p.withUTF8 { w.indexedNode($0) }
}

@Suite("Path index")
struct PathIndexTests {
    /// Names from 1 to 20 bytes, 254, 255 and 300 bytes, multi-byte UTF-8, and names that are
    /// prefixes or suffixes of each other, at several depths.
    static let names: [String] =
        (1...20).map { String(repeating: "n", count: $0 - 1) + "x" }
        + [
            String(repeating: "L", count: 254), String(repeating: "M", count: 255), String(repeating: "N", count: 300),
            "é", "日本語のファイル名", "abcdefgh", "abcdefghi", "abcdefgi", "xabcdefgh", "a", "aa", "b"
        ]

    static func world() -> World {
        var w = World()
        for top in ["/a", "/ab", "/abcdefgh", "/abcdefghij/k"] {
            for n in names {
                w.addNode(path: top + "/" + n, type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
                w.addNode(path: top + "/d" + n + "/" + n, type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
            }
        }
        return w
    }

    @Test("every node is found through the index, and is the node the component walk finds")
    func everyNodeFound() {
        let w = PathIndexTests.world()
        var checked = 0
        for i in 1..<w.nodeCount {
            let path = w.path(of: NodeID(i))
            #expect(indexed(w, path) == NodeID(i), "\(path)")
            #expect(w.lookup(path) == NodeID(i), "\(path)")
            checked += 1
        }
        #expect(checked > 200)
    }

    @Test("a path that differs from a stored one in any single byte, or by length, finds nothing or its own node")
    func nearMissesRejected() {
        let w = PathIndexTests.world()
        for i in stride(from: 1, to: w.nodeCount, by: 7) {
            let path = Array(w.path(of: NodeID(i)).utf8)
            for k in 1..<path.count where path[k] != 0x2f {
                var p = path
                p[k] = p[k] == 0x7a ? 0x79 : 0x7a
                let s = String(decoding: p, as: UTF8.self)
                // Whatever the index answers must be the node the component walk finds.
                let got = p.withUnsafeBufferPointer { w.indexedNode($0) }
                #expect(got == w.lookup(s), "\(s)")
            }
            for cut in [path.count - 1, path.count + 1] where cut > 1 {
                let p = cut < path.count ? Array(path[..<cut]) : path + [0x71]
                let got = p.withUnsafeBufferPointer { w.indexedNode($0) }
                // A trailing slash is not canonical: the index leaves it to the component walk.
                let expected = p.last == 0x2f ? nil : w.lookup(String(decoding: p, as: UTF8.self))
                #expect(got == expected, "\(String(decoding: p, as: UTF8.self))")
            }
        }
    }

    @Test("the verification of a candidate accepts exactly its own path, whatever the candidate (as after a hash clash)")
    func verificationIsExact() {
        // The index only proposes candidates; a clash of hashes may propose any node for any
        // path. Every node is asked against every node's path, and against near misses of its
        // own: a byte changed, a slash moved into or out of a name, the path cut or extended.
        let w = PathIndexTests.world()
        var paths: [[UInt8]] = (1..<w.nodeCount).map { Array(w.path(of: NodeID($0)).utf8) }
        for p in paths.prefix(120) {
            for k in 1..<p.count {
                var q = p
                q[k] = p[k] == 0x2f ? 0x61 : (k % 3 == 0 ? 0x2f : 0x7a)
                paths.append(q)
            }
            paths.append(Array(p.dropLast()))
            paths.append(p + [0x61])
            paths.append([0x2f] + p)
        }
        var compared = 0, matched = 0
        for i in 1..<w.nodeCount {
            let n = NodeID(i)
            let own = Array(w.path(of: n).utf8)
            for p in paths {
                let got = p.withUnsafeBufferPointer { w.pathMatches(n, $0) }
                #expect(got == (p == own), "node \(w.path(of: n)) against \(String(decoding: p, as: UTF8.self))")
                compared += 1
                if got { matched += 1 }
            }
        }
        #expect(matched >= w.nodeCount - 1)
        #expect(compared > 100_000)
    }

    @Test("non-canonical spellings (double slash, trailing slash, dot) are not answered by the index")
    func nonCanonical() {
        let w = PathIndexTests.world()
        for p in ["/a//x", "/a/x/", "/a/./x", "//a/x", "a/x"] {
            #expect(indexed(w, p) == nil, "\(p)")
        }
        #expect(indexed(w, "/a/x") != nil)
    }

    @Test("after a rename the old paths of the subtree are gone from the index and the new ones found")
    func renameReindexes() {
        var w = PathIndexTests.world()
        let dir = w.lookup("/a/dabcdefgh")!
        let inside = w.lookup("/a/dabcdefgh/abcdefgh")!
        w.move(dir, to: w.lookup("/ab")!, name: "renamed-directory")
        #expect(indexed(w, "/a/dabcdefgh") == nil)
        #expect(indexed(w, "/a/dabcdefgh/abcdefgh") == nil)
        #expect(indexed(w, "/ab/renamed-directory") == dir)
        #expect(indexed(w, "/ab/renamed-directory/abcdefgh") == inside)
        #expect(w.nodes[Int(dir)].nameLength == 17)
        // Renamed back under its old name, it is found there again.
        w.move(dir, to: w.lookup("/a")!, name: "dabcdefgh")
        #expect(indexed(w, "/a/dabcdefgh/abcdefgh") == inside)
        #expect(indexed(w, "/ab/renamed-directory/abcdefgh") == nil)
    }

    @Test("canonically equivalent spellings are two names, as on Linux: each found by its own bytes, also after a rename")
    func normalizationDistinct() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift's String equality would merge them
        var w = World()
        w.addUser(User(name: "u", uid: 1000, gid: 100))
        let a = w.addNode(path: "/d/" + nfc, type: .file, uid: 1000, gid: 100, mode: FileMode(0o600))
        let b = w.addNode(path: "/d/" + nfd, type: .file, uid: 0, gid: 0, mode: FileMode(0o600))
        #expect(a != b)
        #expect(Array(w.path(of: b).utf8) == Array(("/d/" + nfd).utf8))
        #expect(indexed(w, "/d/" + nfc) == a)
        #expect(indexed(w, "/d/" + nfd) == b)
        #expect(w.lookup("/d/" + nfd) == b)
        // Renamed to the other spelling's twin in a new directory: found by its own path.
        let c = w.addNode(path: "/e", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        w.move(b, to: c, name: nfc)
        #expect(indexed(w, "/e/" + nfc) == b)
        #expect(indexed(w, "/d/" + nfd) == nil)
        let s = w.subject(uid: 1000)
        for sem in Semantics.allCases {
            let auth = Authorizer(world: w, semantics: sem)
            #expect(auth.decide(Request(subject: s, op: .read, path: w.path(of: a))).allowed, "\(sem)")
            let d = auth.decide(Request(subject: s, op: .read, path: w.path(of: b)))
            #expect(!d.allowed && d.errno == .EACCES, "\(sem): \(d.rule.rawValue)")
        }
    }

    @Test("a removed subtree is not found")
    func detachUnindexes() {
        var w = PathIndexTests.world()
        let dir = w.lookup("/ab/dé")!
        w.detach(dir)
        #expect(indexed(w, "/ab/dé") == nil)
        #expect(indexed(w, "/ab/dé/é") == nil)
        #expect(indexed(w, "/ab/é") != nil)
    }

    @Test("random creations, renames and removals keep the index exact", arguments: [UInt64(11), 12, 13])
    func randomMutations(seed: UInt64) {
        var rng = Rng(s: seed)
        func below(_ n: Int) -> Int { rng.below(n) }
        let pieces = ["a", "b", "\u{E9}", "e\u{301}", "日本", "x", "abcdefgh", "-", "0"]
        func name() -> String {
            if below(20) == 0 { return String(repeating: "L", count: 250 + below(60)) }
            return (0..<(1 + below(6))).map { _ in pieces[below(pieces.count)] }.joined()
        }
        var w = World()
        var live: [NodeID] = [World.root]
        var removed: [(NodeID, String)] = []
        for step in 0..<1500 {
            let dirs = live.filter { w[$0].isDir }
            switch below(10) {
            case 0..<6:
                let parent = dirs[below(dirs.count)]
                let p = (parent == World.root ? "" : w.path(of: parent)) + "/" + name()
                let id = w.addNode(path: p, type: below(3) == 0 ? .file : .dir, uid: 0, gid: 0, mode: FileMode(0o755))
                if !live.contains(id) { live.append(id) }
            case 6..<8:
                // Move a node (not the root) under a directory that is not inside it.
                let n = live[below(live.count)]
                guard n != World.root else { continue }
                let inside = Set([n] + (w[n].isDir ? w.descendants(of: n) : []))
                let targets = dirs.filter { !inside.contains($0) }
                let to = targets[below(targets.count)]
                let newName = name()
                if w.children(of: to).contains(where: { w.name(of: $0) == newName && $0 != n }) { continue }
                w.move(n, to: to, name: newName)
            default:
                let n = live[below(live.count)]
                guard n != World.root else { continue }
                let gone = [n] + (w[n].isDir ? w.descendants(of: n) : [])
                if gone.count > 8 { continue }  // keep the tree growing
                for g in gone { removed.append((g, w.path(of: g))) }
                w.detach(n)
                live.removeAll { gone.contains($0) }
            }
            if step % 100 == 99 {
                for n in live where n != World.root {
                    #expect(indexed(w, w.path(of: n)) == n, "step \(step): \(w.path(of: n))")
                }
                for (n, path) in removed {
                    if let found = indexed(w, path) { #expect(found != n, "step \(step): removed \(path) still found") }
                }
            }
        }
        #expect(live.count > 200)
        #expect(removed.count > 50)
    }

    @Test("the table keeps every entry whose tags clash, across growth and tombstones")
    func tableTagClashes() {
        var t = PathTable()
        // Same upper 32 bits (the tag) for all: they probe the same run of slots.
        let sameTag: (Int) -> UInt64 = { UInt64(0xDEAD_BEEF) << 32 | UInt64($0) }
        for n in 0..<100 { t.insert(sameTag(n), NodeID(n + 1)) }
        func all(_ h: UInt64) -> [NodeID] {
            var seen: [NodeID] = []
            _ = t.first(h) {
                seen.append($0); return nil
            }
            return seen
        }
        #expect(Set(all(sameTag(0))) == Set((1...100).map { NodeID($0) }))
        // Removing one leaves the others reachable past its tombstone.
        t.remove(sameTag(5), 6)
        #expect(Set(all(sameTag(0))) == Set((1...100).filter { $0 != 6 }.map { NodeID($0) }))
        #expect(t.first(sameTag(0)) { $0 == 100 ? $0 : nil } == 100)
        // Inserting twice stores once; a different tag is not offered.
        t.insert(sameTag(7), 8)
        #expect(all(sameTag(0)).filter { $0 == 8 }.count == 1)
        #expect(all(UInt64(0x1234_5678) << 32).isEmpty)
        // Many more entries (several growths) stay reachable.
        for n in 0..<5000 { t.insert(UInt64(n &* 2_654_435_761) << 32, NodeID(1000 + n)) }
        for n in stride(from: 0, to: 5000, by: 97) {
            #expect(t.first(UInt64(n &* 2_654_435_761) << 32) { $0 == NodeID(1000 + n) ? $0 : nil } == NodeID(1000 + n))
        }
        #expect(t.first(sameTag(0)) { $0 == 100 ? $0 : nil } == 100)
    }
}

/// The child indexes' hash map (`IntMap`): random inserts, overwrites and removals, with keys
/// crowded into few home slots so probe runs wrap around the table's end and removals shift
/// entries back, always giving what a `Dictionary` gives.
@Test(arguments: [1, 2, 3, 4])
func intMapAgreesWithDictionary(seed: UInt64) {
    var rng = Rng(s: seed)
    var map = IntMap()
    var ref: [UInt64: Int32] = [:]
    // Few distinct keys (collisions and reuse), some of them multiples of a power of two.
    let keys: [UInt64] = (0..<300).map { i in i % 3 == 0 ? UInt64(i) << 40 : rng.next() % 5000 }
    for step in 0..<20_000 {
        let k = keys[Int(rng.next() % UInt64(keys.count))]
        switch rng.next() % 3 {
        case 0, 1:
            let v = Int32(truncatingIfNeeded: rng.next() % 1_000_000)
            map[k] = v; ref[k] = v
        default:
            map[k] = nil; ref[k] = nil
        }
        if step % 997 == 0 || step == 19_999 {
            #expect(map.count == ref.count)
            for key in keys { #expect(map[key] == ref[key], "key \(key) after \(step) steps") }
        }
    }
}

/// The child index with its keys narrowed to two bits, so nearly every insertion takes another
/// node's entry: creations, renames (also to a name differing only in case on a case-insensitive
/// volume) and removals, each followed by lookups of every name that must agree with a scan of
/// the directory's children.
@Test(arguments: [UInt64(5), 6, 7])
func childLookupsSurviveIndexClashes(seed: UInt64) {
    var rng = Rng(s: seed)
    var w = World()
    w.childKeyMask = 0b11
    var v = Volume(mountPath: "/ci")
    v.caseSensitive = false
    w.setVolume(v)
    w.addNode(path: "/ci", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
    let dirs = ["/a", "/b", "/ci"]
    for d in dirs where d != "/ci" { w.addNode(path: d, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)) }
    let names = (0..<40).map { "n\($0)" } + ["Readme", "README", "x"]
    func scan(_ dir: NodeID, _ name: String, fold: Bool) -> NodeID? {
        w.children(of: dir).first { fold ? w.name(of: $0).lowercased() == name.lowercased() : w.name(of: $0) == name }
    }
    for step in 0..<600 {
        let d = dirs[Int(rng.next() % 3)]
        let name = names[Int(rng.next() % UInt64(names.count))]
        let path = d + "/" + name
        switch rng.next() % 4 {
        case 0, 1:
            w.addNode(path: path, type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
        case 2:
            if let n = w.lookup(path) {
                let to = dirs[Int(rng.next() % 3)] + "/" + names[Int(rng.next() % UInt64(names.count))]
                let slash = to.lastIndex(of: "/")!
                if w.lookup(to) == nil, let parent = w.lookup(String(to[..<slash])), parent != n {
                    w.move(n, to: parent, name: String(to[to.index(after: slash)...]))
                }
            }
        default:
            if let n = w.lookup(path) { w.detach(n) }
        }
        for dir in dirs {
            guard let id = w.lookup(dir) else { Issue.record("\(dir) is gone"); return }
            for name in names {
                let expected = scan(id, name, fold: dir == "/ci")
                #expect(w.child(id, Substring(name)) == expected, "step \(step): \(dir)/\(name)")
                #expect(w.lookup(dir + "/" + name) == expected, "step \(step): lookup \(dir)/\(name)")
            }
        }
    }
}

/// The node record's size is part of the decision's speed (docs/performance.md, "What the cost is
/// made of"): 48 bytes, the walk's fields within its first 19 bytes.
@Test("a node record is 48 bytes, the fields of a walk up a path at its start")
func nodeRecordLayout() {
    #expect(MemoryLayout<Node>.stride == 48)
    #expect(MemoryLayout<Node>.offset(of: \Node.parent)! < 16)
    #expect(MemoryLayout<Node>.offset(of: \Node.volume)! < 24 && MemoryLayout<Node>.offset(of: \Node.nameLength)! < 24)
    // The two flags packed into one byte still read back what was set.
    var w = World()
    let n = w.addNode(path: "/a", type: .file, uid: 1, gid: 1, mode: FileMode(0o644))
    #expect(w[n].declared && !w[n].openBeforeLock)
}

// Writing a node's path in one walk up (`World.writePath(of:room:)`, used by every report), and
// reading ahead for a batch of lookups (`World.readAhead`, used by `check`).
@Suite("Path writing and reading ahead")
struct PathWritingTests {
    /// The path written by `writePath(of:room:)` into a buffer of `0xEE` bytes: the bytes it
    /// counted, and whether it wrote anything past those and the 8 bytes of slack.
    static func written(_ w: World, _ n: NodeID) -> (path: [UInt8], overran: Bool) {
        var out = [UInt8](repeating: 0xEE, count: 8192)
        var length = -1
        out.withUnsafeMutableBufferPointer { b in
            w.writePath(of: n) { k in
                length = k
                return b.baseAddress! + 16
            }
        }
        let overran = out[..<16].contains { $0 != 0xEE } || out[(16 + length + 8)...].contains { $0 != 0xEE }
        return (Array(out[16..<(16 + length)]), overran)
    }

    @Test("every node's path, root included, is the bytes path(of:) gives, with nothing written past the slack")
    func sameAsPathOf() {
        let w = PathIndexTests.world()
        for i in 0..<w.nodeCount {
            let (p, overran) = PathWritingTests.written(w, NodeID(i))
            #expect(p == Array(w.path(of: NodeID(i)).utf8), "\(w.path(of: NodeID(i)))")
            #expect(!overran)
        }
    }

    @Test("a path more than 64 directories deep (the one walk's limit) is written whole")
    func deepPath() {
        var w = World()
        for depth in [63, 64, 65, 100] {
            let path = (0..<depth).map { "d\($0 % 13)x\(depth)" }.joined(separator: "/")
            let n = w.addNode(path: "/" + path, type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
            let (p, overran) = PathWritingTests.written(w, n)
            #expect(p == Array(("/" + path).utf8))
            #expect(!overran)
        }
    }

    @Test("reading ahead takes any hash, present, absent or after a rename, and changes no lookup")
    func readAheadChangesNothing() {
        var w = PathIndexTests.world()
        w.move(w.lookup("/a/dabcdefgh")!, to: w.lookup("/ab")!, name: "renamed-directory")
        let paths = (1..<w.nodeCount).map { w.path(of: NodeID($0)) } + ["/a/dabcdefgh/abcdefgh", "/nowhere", "/a/x/"]
        let before = paths.map { indexed(w, $0) }
        var hashes = paths.map { p in
            var p = p; return p.withUTF8 { World.fnv($0) }
        }
        var rng = SystemRandomNumberGenerator()
        hashes += (0..<1000).map { _ in rng.next() }
        _ = hashes.withUnsafeMutableBufferPointer { w.readAhead($0) }
        #expect(paths.map { indexed(w, $0) } == before)
        #expect(before.contains(nil) && before.contains { $0 != nil })
    }
}

/// A tree made with `appendNewNode` and indexed at the end (`index(_:)`, each table filled in
/// order of slot) is the tree `addNode` makes one node at a time: the same nodes, the same
/// child lookups and path lookups, and the same `crowded` directories — with the child index's
/// keys narrowed to two bits, so that most entries take another's key and the order in which
/// the entries go in decides the outcome. Big enough (6,000 nodes) for the batch to be sorted
/// by slot, and with a mount point, so a new node's volume is found the same way too.
@Test(arguments: [UInt64(11), 12])
func appendedNodesIndexedAtTheEndAreAddedNodes(seed: UInt64) {
    var rng = Rng(s: seed)
    // A random tree, parents first: (parent's index or -1, name, type).
    var entries: [(parent: Int, name: String, type: NodeType)] = []
    var dirs: [Int] = [-1]
    while entries.count < 6_000 {
        let parent = dirs[rng.below(dirs.count)]
        let name = rng.chance(50) ? "mnt" : (rng.chance(3) ? "é\(rng.below(90))" : "n\(rng.below(400))")
        if entries.contains(where: { $0.parent == parent && $0.name == name }) { continue }
        let dir = rng.chance(4)
        entries.append((parent, name, dir ? .dir : .file))
        if dir { dirs.append(entries.count - 1) }
    }
    var paths: [String] = []
    for e in entries { paths.append((e.parent < 0 ? "" : paths[e.parent]) + "/" + e.name) }
    func fresh() -> World {
        var w = World()
        w.childKeyMask = 0b11
        w.setVolume(Volume(mountPath: paths[entries.firstIndex { $0.name == "mnt" && $0.type == .dir } ?? 0]))
        return w
    }
    var added = fresh(), appended = fresh()
    var pending = World.PendingIndex()
    var ids: [NodeID] = []
    for (i, e) in entries.enumerated() {
        let mode = FileMode(UInt16(0o600 + rng.below(0o177)))
        let a = added.addNode(path: paths[i], type: e.type, uid: UID(i), gid: 7, mode: mode)
        let b = appended.appendNewNode(
            under: e.parent < 0 ? World.root : ids[e.parent], path: paths[i],
            nameAt: paths[i].utf8.count - e.name.utf8.count, type: e.type, uid: UID(i), gid: 7, mode: mode, acl: nil, declared: true, pending: &pending)
        #expect(a == b)
        ids.append(b)
    }
    appended.index(pending)
    #expect(added.nodeCount == appended.nodeCount)
    #expect(added.crowded == appended.crowded && !added.crowded.isEmpty)
    for (i, id) in ids.enumerated() {
        #expect(appended.lookup(paths[i]) == id, "\(paths[i])")
        #expect(appended.path(of: id) == paths[i] && appended.volume(of: id).mountPath == added.volume(of: id).mountPath)
        let parent = entries[i].parent < 0 ? World.root : ids[entries[i].parent]
        #expect(appended.child(parent, Substring(entries[i].name)) == id)
        let x = added[id], y = appended[id]
        #expect(
            x.parent == y.parent && x.uid == y.uid && x.mode == y.mode && x.type == y.type && x.volume == y.volume
                && x.nameHead == y.nameHead && x.nameLength == y.nameLength && x.declared == y.declared)
    }
    for d in [World.root] + dirs.dropFirst().map({ ids[$0] }) {
        #expect(added.children(of: d) == appended.children(of: d))
        // Names that are not there are not found either.
        #expect(appended.child(d, "absent") == nil && appended.lookup(appended.path(of: d) + "/absent") == nil)
    }
}

/// A walk of `addNode` that makes several directories on its way (a path below nodes that do
/// not exist yet) looks nothing up below the first it makes and indexes the others at the end
/// of the call: the same nodes, lookups and `crowded` directories as making the path one name at
/// a time, with the child index's keys narrowed to two bits so that most entries take another's
/// key. (Sorting a big batch by slot is `appendedNodesIndexedAtTheEndAreAddedNodes`'s.)
@Test("addNode making a chain of new directories indexes them as one name at a time would")
func chainOfNewDirectories() {
    var rng = Rng(s: 31)
    var paths: [String] = ["/" + Array(repeating: "d", count: 300).joined(separator: "/")]
    var known = ["/a", "/b/c"]
    while paths.count < 800 {
        let base = known[rng.below(known.count)]
        let chain = (0..<(1 + rng.below(6))).map { _ in "n\(rng.below(12))" }
        let p = base + "/" + chain.joined(separator: "/")
        paths.append(p)
        if rng.chance(3) { known.append(p) }
    }
    var chained = World(), stepwise = World()
    chained.childKeyMask = 0b11
    stepwise.childKeyMask = 0b11
    for p in paths {
        chained.addNode(path: p, type: .file, uid: 1, gid: 1, mode: FileMode(0o644))
        // The same path one name at a time: each call makes at most one node.
        let names = p.split(separator: "/")
        var prefix = ""
        for k in 0..<names.count {
            prefix += "/" + names[k]
            if k < names.count - 1 {
                if stepwise.lookup(prefix) == nil {
                    stepwise.addNode(path: prefix, type: .dir, uid: 0, gid: 0, mode: FileMode(0o755), declared: false)
                }
            } else {
                stepwise.addNode(path: prefix, type: .file, uid: 1, gid: 1, mode: FileMode(0o644))
            }
        }
    }
    #expect(chained.nodeCount == stepwise.nodeCount && chained.nodeCount > 1_000)
    #expect(chained.crowded == stepwise.crowded && !chained.crowded.isEmpty)
    for i in 0..<chained.nodeCount {
        let id = NodeID(i)
        let path = chained.path(of: id)
        #expect(path == stepwise.path(of: id))
        #expect(chained.lookup(path) == id, "\(path.prefix(60))")
        if id != World.root { #expect(chained.child(chained[id].parent, Substring(chained.name(of: id))) == id) }
    }
}
