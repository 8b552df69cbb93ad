// Names: the name arena, a node's name, children by name and lookup of a path.

extension World {
    /// Appends `node`'s stored name (not a lookup's spelling of it) to a path hash.
    func appendName(of node: NodeID, to hasher: inout PathHasher) {
        let id = Int(nodes[Int(node)].name)
        let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
        nameBytes.withUnsafeBufferPointer { arena in
            hasher.append(UnsafeBufferPointer(rebasing: arena[from..<to]))
        }
    }

    // MARK: Names and lookup

    /// Stores a name's bytes in the arena (each node its own entry: nothing is looked up by
    /// name id, so equal names need not share one).
    mutating func intern<S: StringProtocol>(_ s: S) -> NameID {
        let id = NameID(nameStart.count - 1)
        nameBytes.append(contentsOf: s.utf8)
        nameStart.append(Int32(nameBytes.count))
        return id
    }

    public func name(of node: NodeID) -> String {
        let id = Int(nodes[Int(node)].name)
        let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
        return nameBytes.withUnsafeBufferPointer { a in String(decoding: UnsafeBufferPointer(rebasing: a[from..<to]), as: UTF8.self) }
    }

    /// A read-only view of the nodes, their names and the links between directories and
    /// their children, for a walk that changes nothing (`withNamesAndLinks`): what it reads
    /// goes straight to the tables, where a method of the world called on a world held in
    /// another value may copy the world's 312 bytes and retain every table for each call.
    public struct NamesAndLinks {
        @usableFromInline let nodes: UnsafeBufferPointer<Node>
        let starts: UnsafeBufferPointer<Int32>
        let bytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let links: ChildLinks.View

        /// `dir`'s first child (in the order they were added), or -1 when it has none.
        @inlinable public func firstChild(of dir: NodeID) -> NodeID { links.firstChild(of: dir) }
        /// The child added after `child` to its directory, or -1 when it is the last.
        @inlinable public func nextSibling(of child: NodeID) -> NodeID { links.nextSibling(of: child) }
        /// The record of `node`.
        @inlinable public func node(_ node: NodeID) -> Node { nodes[Int(node)] }

        /// Whether `node`'s name here and `otherNode`'s name in `other` are the same bytes.
        public func sameName(_ node: NodeID, as otherNode: NodeID, in other: NamesAndLinks) -> Bool {
            let x = nodes[Int(node)], y = other.nodes[Int(otherNode)]
            guard x.nameHead == y.nameHead, x.nameLength == y.nameLength else { return false }
            // The first eight bytes and the length agree: a name of eight bytes or fewer is the same.
            if x.nameLength <= 8 { return true }
            let i = Int(x.name), j = Int(y.name)
            let from = Int(starts[i]), n = Int(starts[i + 1]) - from
            let otherFrom = Int(other.starts[j])
            guard n == Int(other.starts[j + 1]) - otherFrom else { return false }
            var k = 8
            while k < n && bytes[from + k] == other.bytes[otherFrom + k] { k += 1 }
            return k == n
        }
    }

    /// Calls `body` with a view of the nodes, names and child links (valid during the call).
    public func withNamesAndLinks<R>(_ body: (NamesAndLinks) -> R) -> R {
        nodes.withUnsafeBufferPointer { n in
            nameStart.withUnsafeBufferPointer { s in
                nameBytes.withUnsafeBufferPointer { b in
                    childLinks.withView { l in body(NamesAndLinks(nodes: n, starts: s, bytes: b, links: l)) }
                }
            }
        }
    }

    func folded(_ name: Substring, in dir: NodeID) -> String {
        foldNames[Int(nodes[Int(dir)].volume)] ? name.lowercased() : String(name)
    }

    /// The child called `name` in directory `dir`, without any permission check.
    public func child(_ dir: NodeID, _ name: Substring) -> NodeID? {
        var key = folded(name, in: dir)
        return key.withUTF8 { exactChild(dir, $0, hash: World.fnv($0)) }
    }

    /// The child of `dir` whose index key (its name, case-folded on a case-insensitive volume)
    /// is exactly `key`, whose hash is `hash`: from the index, or by scanning the children
    /// when the index cannot tell.
    func exactChild(_ dir: NodeID, _ key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> NodeID? {
        if let c = fastChildren[fastKey(dir, hash)], keyMatches(c, of: dir, key) { return c }
        guard crowded.contains(dir) else { return nil }
        for c in childLinks.children(of: dir) where keyMatches(c, of: dir, key) { return c }
        return nil
    }

    /// `node` is a child of `dir` whose index key is exactly `key`.
    private func keyMatches(_ node: NodeID, of dir: NodeID, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = nodes[Int(node)]
        guard n.parent == dir, node != World.root else { return false }
        if foldNames[Int(nodes[Int(dir)].volume)] {
            var k = name(of: node).lowercased()
            return k.withUTF8 { $0.elementsEqual(key) }
        }
        return nameEquals(n, key)
    }

    func foldNamesAt(_ dir: NodeID) -> Bool { foldNames[Int(nodes[Int(dir)].volume)] }

    public func children(of dir: NodeID) -> [NodeID] { Array(childLinks.children(of: dir)) }

    /// The node at an absolute path, without permission checks or symlink resolution.
    public func lookup(_ path: String) -> NodeID? {
        // A canonical path of a node the index holds: one hashed probe, verified name by name.
        var p = path
        if let n = p.withUTF8({ indexedNode($0) }) { return n }
        var cur = World.root
        for comp in path.split(separator: "/") where comp != "." {
            guard let c = child(cur, comp) else { return nil }
            cur = c
        }
        return cur
    }
}
