import Testing
@testable import FSPolicy

// A path's index hash built name by name as a walk goes down (`PathHasher`), and what rests on
// it: the volume of each new node, found from its parent's instead of by spelling its path, and
// one deep path loaded in linear time (issue 13: 100,000 components took 32 s).

@Suite("Path hash built name by name")
struct PathHasherTests {
    @Test("the hashes of a string's prefixes, in one pass, are each prefix's hash")
    func prefixHashes() {
        var rng = Rng(s: 11)
        for length in 0..<60 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8(rng.below(256)) }
                // Some cuts, increasing, repeated at times, the ends included now and then.
                var cuts = (0..<rng.below(8)).map { _ in rng.below(length + 1) }.sorted()
                if rng.below(2) == 0 { cuts.append(length) }
                var out: [(offset: Int, hash: UInt64)] = []
                bytes.withUnsafeBufferPointer { PathHasher.prefixHashes($0, cuts: cuts, into: &out) }
                #expect(out.map(\.offset) == cuts)
                for (c, h) in out {
                    // A copy of its own: no bytes past the prefix to read.
                    let prefix = Array(bytes[0..<c])
                    #expect(h == prefix.withUnsafeBufferPointer { World.fnv($0) }, "length \(length), cut \(c)")
                }
            }
        }
    }

    @Test("every split of a byte string hashes as the whole string at once")
    func splitsAgree() {
        var rng = Rng(s: 7)
        for length in 0..<48 {
            for _ in 0..<12 {
                let bytes = (0..<length).map { _ in UInt8(rng.below(256)) }
                let whole = bytes.withUnsafeBufferPointer { World.fnv($0) }
                // Cut into pieces of random sizes, some fed byte by byte.
                var h = PathHasher()
                var i = 0
                while i < length {
                    let n = min(length - i, rng.below(11))
                    if rng.below(3) == 0 {
                        for b in bytes[i..<(i + n)] { h.append(b) }
                    } else {
                        bytes[i..<(i + n)].withUnsafeBufferPointer { h.append($0) }
                    }
                    i += n
                }
                #expect(h.finish() == whole, "length \(length)")
            }
        }
        // Different strings still hash apart (the hash is not constant).
        var a = PathHasher(), b = PathHasher()
        a.append("/srv/a")
        b.append("/srv/b")
        #expect(a.finish() != b.finish())
    }

    @Test("every byte counts, the tail's included: changing any one byte changes the hash")
    func everyByteCounts() {
        // Each word's step and the final mix are bijections of the state, so a string that
        // differs from another in one byte (or in length alone) never hashes the same. A tail
        // folded short of its last bytes, or shifted too far, fails here.
        var rng = Rng(s: 11)
        for length in 1..<40 {
            let bytes = (0..<length).map { _ in UInt8(rng.below(256)) }
            let whole = bytes.withUnsafeBufferPointer { World.fnv($0) }
            for i in 0..<length {
                var changed = bytes
                changed[i] ^= UInt8(1 + rng.below(255))
                #expect(changed.withUnsafeBufferPointer { World.fnv($0) } != whole, "length \(length), byte \(i)")
            }
            // A zero byte more is another string.
            #expect((bytes + [0]).withUnsafeBufferPointer { World.fnv($0) } != whole, "length \(length) and a zero")
        }
    }

    /// The volume of a path by the rule itself: the mount with the longest path that is the
    /// path or one of its ancestors (`/` mounts everything).
    static func expectedVolume(_ w: World, _ path: String) -> Int {
        var best = 0, bestLength = -1
        for (i, v) in w.volumes.enumerated() {
            let m = v.mountPath
            let match = m == "/" || path == m || path.hasPrefix(m.hasSuffix("/") ? m : m + "/")
            if match && m.count > bestLength { best = i; bestLength = m.count }
        }
        return best
    }

    static let paths = [
        "/mnt/x/a", "/mnt/x/b/c", "/mnt/xy/a", "/mnt/x", "/srv/deep/one/two/three/four",
        "/srv/deep/one/two/file", "/mnt", "/mnt/x/b/c/d/e", "/other/z", "/srv/deep/one/two/three/four/five"
    ]

    @Test("nodes made under mount points, mount points made implicitly, and a non-canonical mount path: the volume the path rule gives")
    func volumesOfNewNodes() {
        for mounts in [["/mnt/x", "/srv/deep/one/two/three"], ["/mnt/x", "/mnt/x/b/c"], ["/mnt/x/", "/srv"], ["/mnt/xy"]] {
            var w = World()
            for m in mounts { w.setVolume(Volume(mountPath: m)) }
            for p in PathHasherTests.paths { w.addNode(path: p, type: .file, uid: 0, gid: 0, mode: FileMode(0o644)) }
            // A second run through the sibling hint and the path-index shortcut of addNode.
            var hint = World.AddNodeHint()
            for k in 0..<5 {
                w.addNode(path: "/mnt/x/b/c/f\(k)", type: .file, uid: 0, gid: 0, mode: FileMode(0o644), acl: nil, declared: true, hint: &hint)
            }
            var checked = 0
            for i in 0..<w.nodeCount {
                let path = w.path(of: NodeID(i))
                #expect(Int(w[NodeID(i)].volume) == PathHasherTests.expectedVolume(w, path), "\(mounts): \(path)")
                checked += 1
            }
            #expect(checked > 15)
            #expect(w.volumes.count == mounts.count + 1)
        }
    }

    @Test("volumes declared after the nodes are assigned by the same rule, removed nodes included")
    func volumesAfterNodes() {
        var w = World()
        for p in PathHasherTests.paths { w.addNode(path: p, type: .file, uid: 0, gid: 0, mode: FileMode(0o644)) }
        let gone = w.lookup("/other/z")!
        w.detach(gone)
        for m in ["/mnt/x", "/srv/deep/one", "/other"] { w.setVolume(Volume(mountPath: m)) }
        for i in 0..<w.nodeCount {
            let path = w.path(of: NodeID(i))
            #expect(Int(w[NodeID(i)].volume) == PathHasherTests.expectedVolume(w, path), "\(path)")
        }
        #expect(w[w.lookup("/srv/deep/one/two/file")!].volume == 2)
        #expect(w[gone].volume == 3)
    }

    @Test("one path of 20,000 components: every ancestor made once and found through the index")
    func deepPath() {
        var w = World()
        w.setVolume(Volume(mountPath: "/d/d/d"))
        let depth = 20_000
        let path = "/" + Array(repeating: "d", count: depth).joined(separator: "/")
        let leaf = w.addNode(path: path, type: .file, uid: 0, gid: 0, mode: FileMode(0o644))
        #expect(w.nodeCount == depth + 1)
        var p = path
        #expect(p.withUTF8 { w.indexedNode($0) } == leaf)
        #expect(w.lookup(path) == leaf)
        // Each ancestor's index entry is its own path's.
        var cur = w[leaf].parent
        var ancestors = 0
        while cur != World.root {
            if ancestors % 997 == 0 {
                var q = w.path(of: cur)
                #expect(q.withUTF8 { w.indexedNode($0) } == cur)
            }
            // `/d/d/d` (depth 3) is the mount point: it and everything below are on volume 1.
            #expect(w[cur].volume == (depth - 1 - ancestors >= 3 ? 1 : 0))
            cur = w[cur].parent
            ancestors += 1
        }
        #expect(ancestors == depth - 1)
        // A rename of a directory near the top re-indexes the whole chain under it.
        let top = w.lookup("/d/d")!
        let other = w.addNode(path: "/e", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
        w.move(top, to: other, name: "moved")
        let moved = "/e/moved" + String(path.dropFirst(4))
        var m = moved
        #expect(m.withUTF8 { w.indexedNode($0) } == leaf)
        #expect(p.withUTF8 { w.indexedNode($0) } == nil)
    }
}
