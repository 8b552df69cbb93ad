// Mutation primitives (used by `Mutator`; no permission checks here) and their index upkeep.

extension World {
    private mutating func unindexSubtree(_ node: NodeID) {
        for (n, h) in pathHashes(from: node) { pathIndex.remove(h, n) }
    }

    private mutating func indexSubtree(_ node: NodeID) {
        for (n, h) in pathHashes(from: node) { pathIndex.insert(h, n) }
    }

    /// `node` and every node below it with the index hash of its path: the node's path is
    /// spelled once, each descendant's hash extended from its parent's by one name.
    private func pathHashes(from node: NodeID) -> [(NodeID, UInt64)] {
        var top = PathHasher()
        if node != World.root { top.append(path(of: node)) }
        var out: [(NodeID, UInt64)] = [(node, top.finish())]
        var stack: [(NodeID, PathHasher)] = [(node, top)]
        while let (dir, state) = stack.popLast() {
            for c in childLinks.children(of: dir) {
                var s = state
                s.append(0x2F)
                appendName(of: c, to: &s)
                out.append((c, s.finish()))
                stack.append((c, s))
            }
        }
        return out
    }

    mutating func detachStorage(_ node: NodeID) {
        guard node != World.root else { return }
        unindexSubtree(node)
        let parent = nodes[Int(node)].parent
        let fk = fastKey(parent, keyHash(Substring(name(of: node)), in: parent))
        // Only its own entry goes: a node that lost the key to this one is found by scanning
        // its directory (which is `crowded` since then).
        if fastChildren[fk] == node { fastChildren[fk] = nil }
        childLinks.remove(node, from: parent)
    }

    mutating func moveStorage(_ node: NodeID, to newParent: NodeID, name newName: String) {
        detachStorage(node)
        let nameID = intern(newName)
        nodes[Int(node)].parent = newParent
        nodes[Int(node)].name = nameID
        (nodes[Int(node)].nameHead, nodes[Int(node)].nameLength) = World.nameHead(newName.utf8)
        index(node, under: newParent, hash: keyHash(Substring(newName), in: newParent))
        indexSubtree(node)
        childLinks.append(node, to: newParent)
    }

    /// Creates a new child `name` of directory `parent` and returns its id.
    public mutating func createChild(_ parent: NodeID, name: String, type: NodeType, uid: UID, gid: GID, mode: FileMode) -> NodeID {
        let p = parent == World.root ? "/" + name : path(of: parent) + "/" + name
        return addNode(path: p, type: type, uid: uid, gid: gid, mode: mode, flags: [], acl: nil)
    }

    /// Removes `node` (and, for a directory, everything below it) from the tree.
    public mutating func detach(_ node: NodeID) {
        detachStorage(node)
    }

    /// Moves `node` to `newParent` under `newName` (a replaced entry must be detached first).
    public mutating func move(_ node: NodeID, to newParent: NodeID, name newName: String) {
        moveStorage(node, to: newParent, name: newName)
    }

    /// Every node below `dir`, parents before children, in name order.
    public func descendants(of dir: NodeID) -> [NodeID] {
        var out: [NodeID] = []
        var stack = children(of: dir).sorted { name(of: $0) > name(of: $1) }
        while let n = stack.popLast() {
            out.append(n)
            stack.append(contentsOf: children(of: n).sorted { name(of: $0) > name(of: $1) })
        }
        return out
    }
}
