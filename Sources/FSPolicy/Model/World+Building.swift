// Building the tree: adding nodes one by one or appended in bulk, and indexing them.

extension World {
    // MARK: Building

    /// Makes room for `count` nodes in all, so a big tree is built without growing and rehashing
    /// its tables on the way (a hint: nothing changes if the room is already there).
    public mutating func reserveCapacity(nodes count: Int) {
        guard count > nodes.capacity else { return }
        nodes.reserveCapacity(count)
        childLinks.reserveCapacity(count)
        nameStart.reserveCapacity(count + 1)
        nameBytes.reserveCapacity(nameBytes.count + (count - nodes.count) * 10)
        fastChildren.reserveCapacity(count)
        pathIndex.reserveCapacity(count)
    }

    /// Creates the node at `path` (or updates the existing one), creating implied ancestor
    /// directories from the defaults. Returns its id.
    @discardableResult
    public mutating func addNode(
        path: String, type: NodeType, uid: UID, gid: GID, mode: FileMode,
        flags: FileFlags = [], acl: ACL? = nil, declared: Bool = true
    ) -> NodeID {
        var hint = AddNodeHint()
        return addNode(path: path, type: type, uid: uid, gid: gid, mode: mode, flags: flags, acl: acl, declared: declared, hint: &hint)
    }

    /// Where the previous `addNode` of a run put its node: the directory and its path as
    /// given. The next node given under the same directory (siblings come one after another
    /// in a sorted tree) starts there instead of walking down from the root again. Only for
    /// runs of `addNode` with nothing else changing the tree in between.
    public struct AddNodeHint {
        var parentPath: Substring? = nil
        var parent: NodeID = 0
        /// `parentPath` is the directory's canonical path (the path index verified it), so a
        /// path in it is the new node's path as `path(of:)` would spell it.
        var canonical = false
        public init() {}
        init(parentPath: Substring, parent: NodeID, canonical: Bool = false) {
            self.parentPath = parentPath
            self.parent = parent
            self.canonical = canonical
        }
    }

    /// `addNode(path:…)`, starting from `hint`'s directory when `path` is in it (same result).
    public mutating func addNode(
        path: String, type: NodeType, uid: UID, gid: GID, mode: FileMode,
        flags: FileFlags = [], acl: ACL?, declared: Bool, hint: inout AddNodeHint
    ) -> NodeID {
        var aclID: Int32 = -1
        if let a = acl { aclID = internACL(a) }
        // The same directory as the previous node: only the last name is new. (The walk from
        // the root would find the same directories, already made directories by that node's walk.)
        if let prev = hint.parentPath, let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex {
            let dir = path[..<slash]
            let name = path[path.utf8.index(after: slash)...]
            if !name.isEmpty && name != "." && World.sameBytes(dir, prev) {
                return addStep(
                    cur: hint.parent, comp: name, last: true, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                    aclID: aclID, declared: declared, path: hint.canonical ? path : nil)
            }
        }
        // A directory already in the tree: found with one lookup of its path in the path index
        // (which answers only for a canonical path, on a case-sensitive volume), not a walk from
        // the root. The walk would find it and its ancestors, and would leave them as they are.
        if let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex {
            let dir = path[..<slash]
            let name = path[path.utf8.index(after: slash)...]
            if !name.isEmpty && name != "." && name != "..",
                let found = dir.utf8.withContiguousStorageIfAvailable({ indexedNode($0) }), let parent = found,
                nodes[Int(parent)].type == .dir
            {
                hint = AddNodeHint(parentPath: dir, parent: parent, canonical: true)
                return addStep(
                    cur: parent, comp: name, last: true, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                    aclID: aclID, declared: declared, path: path)
            }
        }
        var cur = World.root
        // The path of `cur` as stored (empty for the root), hashed as the walk goes down: each
        // new directory extends its parent's hash by one name instead of spelling its path.
        var hasher = PathHasher()
        let comps = path.split(separator: "/").filter { $0 != "." }
        if comps.isEmpty {
            var n = nodes[0]
            n.type = .dir; n.uid = uid; n.gid = gid; n.mode = mode; n.flags = flags
            n.acl = aclID
            n.declared = declared
            nodes[0] = n
            hint = AddNodeHint()
            return 0
        }
        // Once the walk has made a directory, everything below it on the path is new too: no
        // child of a directory just made is looked up, and the nodes made after the first have
        // their index entries put in at the end, in order of slot (a path of a million names
        // makes a million nodes, and each entry was a write at a random place in a big table).
        var made = false
        var pending = PendingIndex()
        for (i, comp) in comps.enumerated() {
            let last = i == comps.count - 1
            if last {
                // Remember the directory, when the path's text before the name is exactly it.
                if let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex,
                    path[path.utf8.index(after: slash)...] == comp, !path[..<slash].hasSuffix("/"), !path.hasPrefix("//")
                {
                    hint = AddNodeHint(parentPath: path[..<slash], parent: cur)
                } else {
                    hint = AddNodeHint()
                }
            }
            let before = nodes.count
            cur = addStep(
                cur: cur, comp: comp, last: last, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                aclID: aclID, declared: declared, path: nil, parentHash: hasher, fresh: made, pending: &pending)
            if nodes.count > before { made = true }
            if !last {
                hasher.append(0x2F)
                appendName(of: cur, to: &hasher)
            }
        }
        if !pending.paths.isEmpty { index(pending) }
        return cur
    }

    // MARK: Building a big tree: appended nodes, indexed at the end

    /// The index entries of nodes made by `appendNewNode`, kept apart until `index(_:)` puts
    /// them in the child index and the path index in one pass each.
    public struct PendingIndex: Sendable {
        var children: [(key: UInt64, node: NodeID)] = []
        var paths: [(hash: UInt64, node: NodeID)] = []
        public init(capacity: Int = 0) {
            children.reserveCapacity(capacity)
            paths.reserveCapacity(capacity)
        }
        /// Node `node`'s two entries: its child-index key and its path's hash.
        mutating func add(_ node: NodeID, childKey: UInt64, pathHash: UInt64) {
            children.append((childKey, node))
            paths.append((pathHash, node))
        }
    }

    /// Whether some volume is case-insensitive (two different names may be one child there).
    public var foldsNames: Bool { anyFolding }

    /// Makes the node at `path`, whose name is its bytes from `nameAt` on, in the directory
    /// `parent`, with no lookup: the node `addNode(path:…)` would make, when the caller knows
    /// what `addNode` would find out — `parent` is a directory, the node at `path` is new,
    /// `path` is canonical and is `parent`'s path, `/` and the name, and no volume folds names
    /// (`foldsNames`). Its index entries go to `pending`, and no lookup finds it until
    /// `index(pending)` is called: a tree compiler that has already found every parent
    /// (`Compiler.buildTree`) gives each node its two index entries in two passes over the
    /// tables in order of slot at the end, where `addNode` inserts each in a random place of a
    /// table of a million entries (a cache miss each) after a lookup that misses (another).
    public mutating func appendNewNode(
        under parent: NodeID, path: String, nameAt: Int, type: NodeType, uid: UID, gid: GID,
        mode: FileMode, flags: FileFlags = [], acl: ACL?, declared: Bool,
        pending: inout PendingIndex
    ) -> NodeID {
        var aclID: Int32 = -1
        if let a = acl { aclID = internACL(a) }
        let id = NodeID(nodes.count)
        let nameID = NameID(nameStart.count - 1)
        // Everything from the path's bytes (its name is the bytes from `nameAt` on): the
        // name's bytes into the arena, the two index hashes, the record's copy of the name's start.
        var text = path
        let (keyHash, pathHash, head) = text.withUTF8 { u -> (UInt64, UInt64, (UInt64, UInt8)) in
            let name = UnsafeBufferPointer(rebasing: u[nameAt...])
            nameBytes.append(contentsOf: name)
            nameStart.append(Int32(nameBytes.count))
            return (World.fnv(name), World.fnv(u), World.nameHead(name))
        }
        let volume = volumeForNew(under: parent, hash: pathHash) { path }
        var node = Node(
            type: type, uid: uid, gid: gid, mode: mode, flags: flags, acl: aclID, posixACL: -1, defaultACL: -1,
            parent: parent, name: nameID, volume: volume, protection: .unspecified,
            openBeforeLock: false, declared: declared)
        (node.nameHead, node.nameLength) = head
        nodes.append(node)
        childLinks.addNode()
        childLinks.append(id, to: parent)
        pending.add(id, childKey: fastKey(parent, keyHash), pathHash: pathHash)
        return id
    }

    /// Puts the index entries of `appendNewNode`'s nodes in the indexes, as `addNode` would
    /// have put them one by one in the order they were made (a later node taking an earlier
    /// one's child-index key marks the earlier one's directory `crowded`, as `index` does).
    public mutating func index(_ pending: consuming PendingIndex) {
        let lost = fastChildren.insertAll(pending.children)
        for node in lost { crowded.insert(nodes[Int(node)].parent) }
        pathIndex.insertAll(pending.paths)
    }

    public static func sameBytes(_ a: Substring, _ b: Substring) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let same = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                var i = p.count
                while i > 0 { i -= 1; if p[i] != q[i] { return false } }  // from the end: siblings share the start
                return true
            }
        }
        if let r = same ?? nil { return r }
        return x.elementsEqual(y)
    }

    /// One name of `addNode`'s walk: the child `comp` of `cur`, found (and made a directory if
    /// it is an undeclared node on the way) or made; the last one gets the node's settings.
    /// `path`: the new node's canonical path when the caller has it; `parentHash`: the hash
    /// state of `cur`'s stored path when the caller has that (else the path is spelled here).
    private mutating func addStep(
        cur: NodeID, comp: Substring, last: Bool, type: NodeType, uid: UID, gid: GID, mode: FileMode,
        flags: FileFlags, aclID: Int32, declared: Bool, path given: String? = nil,
        parentHash: PathHasher? = nil
    ) -> NodeID {
        var unused = PendingIndex()
        return addStep(
            cur: cur, comp: comp, last: last, type: type, uid: uid, gid: gid, mode: mode, flags: flags, aclID: aclID,
            declared: declared, path: given, parentHash: parentHash, fresh: false, pending: &unused)
    }

    /// The same; `fresh`: `cur` was made by this walk, so the child is new (not looked up) and
    /// its index entries go to `pending`, for `index(_:)`.
    private mutating func addStep(
        cur: NodeID, comp: Substring, last: Bool, type: NodeType, uid: UID, gid: GID, mode: FileMode,
        flags: FileFlags, aclID: Int32, declared: Bool, path given: String?,
        parentHash: PathHasher?, fresh: Bool, pending: inout PendingIndex
    ) -> NodeID {
        // The index key (the name, case-folded on a case-insensitive volume) is made and hashed
        // once, for the lookup and the insertion.
        var key = folded(comp, in: cur)
        let keyHash = key.withUTF8 { World.fnv($0) }
        if !fresh, let c = key.withUTF8({ exactChild(cur, $0, hash: keyHash) }) {
            if last {
                var n = nodes[Int(c)]
                n.type = type; n.uid = uid; n.gid = gid; n.mode = mode; n.flags = flags
                n.acl = aclID
                n.declared = declared
                nodes[Int(c)] = n
            } else if nodes[Int(c)].type != .dir && !nodes[Int(c)].declared {
                nodes[Int(c)].type = .dir
            }
            return c
        }
        let nameID = intern(comp)
        let id = NodeID(nodes.count)
        var text = given
        let pathHash: UInt64
        if given == nil, var s = parentHash {
            s.append(0x2F)
            s.append(comp)
            pathHash = s.finish()
        } else {
            if text == nil { text = spelled(comp, under: cur) }
            pathHash = World.fnv(text!)
        }
        let volume = volumeForNew(under: cur, hash: pathHash) { text ?? spelled(comp, under: cur) }
        var node = Node(
            type: last ? type : .dir, uid: last ? uid : defaultOwner, gid: last ? gid : defaultGroup,
            mode: last ? mode : defaultDirMode, flags: last ? flags : [],
            acl: last ? aclID : -1, posixACL: -1, defaultACL: -1,
            parent: cur, name: nameID, volume: volume, protection: .unspecified,
            openBeforeLock: false, declared: last ? declared : false)
        (node.nameHead, node.nameLength) = World.nameHead(comp.utf8)
        nodes.append(node)
        childLinks.addNode()
        if fresh {
            pending.add(id, childKey: fastKey(cur, keyHash), pathHash: pathHash)
        } else {
            index(id, under: cur, hash: keyHash)
            pathIndex.insert(pathHash, id)
        }
        childLinks.append(id, to: cur)
        return id
    }

    private func spelled(_ name: Substring, under dir: NodeID) -> String {
        dir == World.root ? "/" + name : path(of: dir) + "/" + name
    }

    /// Puts `node` in the child index under `dir` at its key's `hash`. A different node already
    /// there (two keys with one 64-bit index key: a hash clash) loses the entry, and its
    /// directory is marked `crowded` so that lookups there can still find it.
    mutating func index(_ node: NodeID, under dir: NodeID, hash: UInt64) {
        let k = fastKey(dir, hash)
        if let other = fastChildren[k], other != node {
            crowded.insert(nodes[Int(other)].parent)
        }
        fastChildren[k] = node
    }
}
