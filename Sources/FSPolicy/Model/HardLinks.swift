/// Hard links: several directory entries for one file. The world keeps one node per name, and
/// these groups say which names are one file; a change of the file's attributes through one
/// name is made on every name of its group (`syncLinks`), so every name always shows the same
/// owner, group, mode, flags and ACLs, as one inode does (docs/semantics.md O10).
extension World {
    /// Whether `a` and `b` name the same file: the same node, or two names of one hard-linked file.
    @inlinable public func sameFile(_ a: NodeID, _ b: NodeID) -> Bool {
        if a == b { return true }
        guard !linkGroupOf.isEmpty, let g = linkGroupOf[a] else { return false }
        return linkGroupOf[b] == g
    }

    /// The other names of the file `n` names (empty when it has one name).
    public func otherNames(of n: NodeID) -> [NodeID] {
        guard let g = linkGroupOf[n] else { return [] }
        return linkGroups[Int(g)].filter { $0 != n }
    }

    /// Makes `name` another name of the file `file` names (its attributes copied from it).
    public mutating func addHardLink(_ name: NodeID, to file: NodeID) {
        guard name != file, !sameFile(name, file) else { return }
        let g: Int32
        if let existing = linkGroupOf[file] {
            g = existing
        } else {
            g = Int32(linkGroups.count)
            linkGroups.append([file])
            linkGroupOf[file] = g
        }
        linkGroups[Int(g)].append(name)
        linkGroupOf[name] = g
        syncLinks(from: file)
    }

    /// Copies the file attributes of `n` (type, owner, group, mode, flags, ACLs) to every other
    /// name of its file, after a change made through `n`.
    public mutating func syncLinks(from n: NodeID) {
        guard !linkGroupOf.isEmpty else { return }
        let others = otherNames(of: n)
        if others.isEmpty { return }
        let src = self[n]
        let posix = posixACL(of: n)
        let mac = acl(of: n)
        let target = symlinkTargets[n]
        for o in others {
            update(o) { x in
                x.type = src.type; x.uid = src.uid; x.gid = src.gid; x.mode = src.mode; x.flags = src.flags
            }
            setACL(mac, on: o)
            setPOSIXACL(posix, on: o)
            if let target { setSymlinkTarget(target, on: o) }
        }
    }
}
