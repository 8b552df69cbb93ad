// Volumes: which volume a node is on, and setting them.

extension World {
    // MARK: Volumes

    /// Adds or replaces the volume at `v.mountPath`. Call before adding nodes.
    public mutating func setVolume(_ v: Volume) {
        if let i = volumes.firstIndex(where: { $0.mountPath == v.mountPath }) { volumes[i] = v } else { volumes.append(v) }
        reassignVolumes()
    }

    public func volume(of node: NodeID) -> Volume { volumes[Int(nodes[Int(node)].volume)] }

    /// The volume of a new node under `parent` whose path hashes to `hash`: the parent's, unless
    /// the node is itself a mount point (same as `volumeIndex(forPath:)`, without spelling the
    /// path, which would make a deep path quadratic). `path` spells it when it must be checked.
    func volumeForNew(under parent: NodeID, hash: UInt64, path: () -> String) -> UInt16 {
        if volumes.count <= 1 { return 0 }
        guard mountsCanonical else { return volumeIndex(forPath: path()) }
        if let i = mountByHash[hash], volumes[Int(i)].mountPath == path() { return i }
        return nodes[Int(parent)].volume
    }

    /// `path` is absolute and canonical: no empty, `.` or `..` component, no trailing slash.
    static func isCanonical(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        return !path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    private func volumeIndex(forPath path: String) -> UInt16 {
        if volumes.count <= 1 { return 0 }  // the one volume (the loop below would say the same)
        var best = 0
        var bestLen = -1
        for (i, v) in volumes.enumerated() {
            let m = v.mountPath
            let matches = m == "/" || path == m || path.hasPrefix(m.hasSuffix("/") ? m : m + "/")
            if matches && m.count > bestLen { best = i; bestLen = m.count }
        }
        return UInt16(best)
    }

    private mutating func reassignVolumes() {
        foldNames = volumes.map { !$0.caseSensitive }
        anyFolding = foldNames.contains(true)
        volumeBits = volumes.map(VolumeBits.init)
        mountByHash = [:]
        mountsCanonical = true
        for (i, v) in volumes.enumerated() where v.mountPath != "/" {
            guard World.isCanonical(v.mountPath) else { mountsCanonical = false; continue }
            let h = World.fnv(v.mountPath)
            if mountByHash[h] != nil { mountsCanonical = false }
            mountByHash[h] = UInt16(i)
        }
        guard mountsCanonical, nodes.count > 1 else {
            for i in nodes.indices { nodes[i].volume = volumeIndex(forPath: path(of: NodeID(i))) }
            return
        }
        // Parents before children, each path's hash extended from its parent's: a node is on
        // its parent's volume unless it is a mount point itself.
        var reached = [Bool](repeating: false, count: nodes.count)
        nodes[0].volume = volumeIndex(forPath: "/")
        reached[0] = true
        var stack: [(NodeID, PathHasher)] = [(World.root, PathHasher())]
        while let (dir, state) = stack.popLast() {
            for c in childLinks.children(of: dir) where !reached[Int(c)] {
                reached[Int(c)] = true
                var s = state
                s.append(0x2F)
                appendName(of: c, to: &s)
                let h = s.finish()
                if let i = mountByHash[h], volumes[Int(i)].mountPath == path(of: c) {
                    nodes[Int(c)].volume = i
                } else {
                    nodes[Int(c)].volume = nodes[Int(dir)].volume
                }
                stack.append((c, s))
            }
        }
        // Nodes no longer in the tree (removed by a step) keep the rule by path.
        for i in nodes.indices where !reached[i] { nodes[i].volume = volumeIndex(forPath: path(of: NodeID(i))) }
    }
}
