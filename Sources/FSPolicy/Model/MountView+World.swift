/// The world as a service's view shows it (U5): what a replacing entry mounts over a path is an
/// empty node of its own, so the path's children are gone and the node has the owner, group and
/// mode of what systemd mounts there. Node ids stay those of the host's world (a replaced node
/// keeps its id, its children are detached), so decisions render against either.
extension World {
    /// Replaces the paths `view`'s replacing entries name; returns the entries it could not apply,
    /// each with why.
    mutating func replacePaths(of view: MountView) -> [String] {
        var unapplied: [String] = []
        for e in view.entries where e.showsOther {
            if e.source != nil {
                if let why = bind(e) { unapplied.append(why) }
                continue
            }
            guard let n = lookup(e.path) else {
                // systemd skips a missing home of ProtectHome= and a path written with `-`.
                if e.option.hasPrefix("ProtectHome=") || e.option.contains("=-") { continue }
                unapplied.append("\(e.option) names \(e.path), which is not in the tree: the view leaves it out")
                continue
            }
            let type = nodes[Int(n)].type
            if type == .symlink {
                unapplied.append("\(e.option) names \(e.path), a symlink (systemd follows it; fspolicy does not): the view leaves it out")
                continue
            }
            if e.mode != .inaccessible && type != .dir {
                unapplied.append("\(e.option) names \(e.path), which is not a directory (systemd cannot mount there): the view leaves it out")
                continue
            }
            if underneath[n] == nil { underneath[n] = nodes[Int(n)] }
            for c in children(of: n) { detach(c) }
            let mode: FileMode
            switch e.mode {
            case .inaccessible: mode = FileMode(0)
            case .privateTmp: mode = FileMode(0o1777)
            default: mode = e.nodeMode ?? FileMode(0o755)
            }
            nodes[Int(n)].uid = 0
            nodes[Int(n)].gid = 0
            nodes[Int(n)].mode = mode
            nodes[Int(n)].flags = []
            nodes[Int(n)].acl = -1
            nodes[Int(n)].posixACL = -1
            nodes[Int(n)].defaultACL = -1
            nodes[Int(n)].protection = .unspecified
            fileCaps[n] = nil
            unread[n] = nil
            assumedNodes.remove(n)
            contentKinds[n] = nil
            linkGroupOf[n] = nil
            if e.mode == .tmpfs {
                // A file system of its own: none of the host mount's flags.
                var v = Volume(mountPath: e.path)
                v.fsType = "tmpfs"
                v.nodev = true
                setVolume(v)
            }
        }
        return unapplied
    }

    /// Shows a bind's source at its path (U6): the path's node takes the source's owner, group,
    /// mode, flags, ACLs and file capabilities, its children are replaced by copies of the
    /// source's subtree, and the mount is a volume of its own with the source mount's options
    /// (a bind mount starts with the flags of the mount it copies); with `rbind` the mounts below
    /// the source come along. Nil when applied, else why the view leaves it out.
    mutating func bind(_ e: ViewEntry) -> String? {
        guard let src = e.source else { return nil }
        guard let s = lookup(src) else {
            if e.option.contains("=-") { return nil }  // `-`: a missing source is ignored
            return "\(e.option) binds \(src), which is not in the tree (systemd fails to start the unit): the view leaves it out"
        }
        func under(_ a: String, _ b: String) -> Bool { b == "/" || a == b || a.hasPrefix(b + "/") }
        if under(src, e.path) || under(e.path, src) {
            return "\(e.option) binds a path onto one inside it or above it, which is not modelled: the view leaves it out"
        }
        let below = volumes.filter { $0.mountPath != src && under($0.mountPath, src) }
        if !e.recursive && !below.isEmpty {
            return "\(e.option) does not bring the mounts below \(src) along (norbind): what lies under them is not known, and the view leaves it out"
        }
        if nodes[Int(s)].type == .symlink {
            return "\(e.option) names a symlink (systemd follows it; fspolicy does not): the view leaves it out"
        }
        // A missing destination is made, as systemd makes a mount point: its missing folders
        // root's, mode 0755, and a node of the source's kind (covered at once by the bind).
        if lookup(e.path) == nil {
            var at = ""
            for c in e.path.split(separator: "/") {
                at += "/" + c
                if let n = lookup(at) {
                    if nodes[Int(n)].isDir { continue }
                    return "\(e.option) binds onto \(e.path), below \(at), which is not a directory: the view leaves it out"
                }
                let last = at == e.path
                _ = addNode(path: at, type: last && !nodes[Int(s)].isDir ? .file : .dir, uid: 0, gid: 0, mode: FileMode(0o755))
            }
        }
        guard let d = lookup(e.path) else { return "\(e.option) binds onto \(e.path), which cannot be made: the view leaves it out" }
        if nodes[Int(d)].type == .symlink {
            return "\(e.option) names a symlink (systemd follows it; fspolicy does not): the view leaves it out"
        }
        if nodes[Int(s)].isDir != nodes[Int(d)].isDir {
            return
                "\(e.option) binds \(nodes[Int(s)].isDir ? "a directory onto a file" : "a file onto a directory"), which mount(2) refuses: the view leaves it out"
        }
        var mount = volume(of: s)
        if underneath[d] == nil { underneath[d] = nodes[Int(d)] }
        for c in children(of: d) { detach(c) }
        copyAttributes(from: s, to: d)
        var stack: [(NodeID, String)] = [(s, e.path)]
        while let (from, at) = stack.popLast() {
            for c in children(of: from) {
                let p = (at == "/" ? "" : at) + "/" + name(of: c)
                let n = addNode(path: p, type: nodes[Int(c)].type, uid: 0, gid: 0, mode: FileMode(0))
                copyAttributes(from: c, to: n)
                if nodes[Int(c)].isDir { stack.append((c, p)) }
            }
        }
        mount.mountPath = e.path
        setVolume(mount)
        for v in below {
            var w = v
            w.mountPath = e.path + v.mountPath.dropFirst(src.count)
            setVolume(w)
        }
        return nil
    }

    /// `to` takes `from`'s attributes (owner, group, mode, flags, ACLs, file capabilities, what
    /// was not read of it, its content kind and symlink target).
    mutating func copyAttributes(from: NodeID, to: NodeID) {
        let f = nodes[Int(from)]
        nodes[Int(to)].uid = f.uid
        nodes[Int(to)].gid = f.gid
        nodes[Int(to)].mode = f.mode
        nodes[Int(to)].flags = f.flags
        nodes[Int(to)].acl = f.acl
        nodes[Int(to)].posixACL = f.posixACL
        nodes[Int(to)].defaultACL = f.defaultACL
        nodes[Int(to)].protection = f.protection
        fileCaps[to] = fileCaps[from]
        unread[to] = unread[from]
        if assumedNodes.contains(from) { assumedNodes.insert(to) } else { assumedNodes.remove(to) }
        contentKinds[to] = contentKinds[from]
        linkGroupOf[to] = nil
        if let t = symlinkTargets[from] { symlinkTargets[to] = t } else { symlinkTargets[to] = nil }
    }

    /// `createDirectories([e])` would change the world: a directory (or the private folder) is
    /// missing, or has another owner, group or mode than systemd gives it. A host scanned after
    /// its services ran has them as systemd left them, and a view changing nothing else shares
    /// the host's world.
    func creationChanges(_ e: ViewEntry) -> Bool {
        guard let c = e.creates else { return false }
        func isDir(_ p: String) -> NodeID? { lookup(p).flatMap { nodes[Int($0)].isDir ? $0 : nil } }
        if let p = c.privateParent {
            guard let n = isDir(p), nodes[Int(n)].mode == FileMode(0o700) else { return true }
        }
        guard let n = isDir(e.source ?? e.path), nodes[Int(n)].mode == c.mode else { return true }
        if c.chown && (nodes[Int(n)].uid != c.uid || nodes[Int(n)].gid != c.gid) { return true }
        return e.source != nil && isDir(e.path) == nil
    }

    /// Makes the directories systemd makes when the unit starts (U7), before any mount: each
    /// one's missing parents (root's, mode 0755), the directory itself (its owner, mode), an
    /// existing one given over with all below it when its owner or group differs, and with
    /// `DynamicUser=yes` the private folder (mode 0700) and, for the bind, its visible path.
    mutating func createDirectories(_ list: [ViewEntry]) -> [String] {
        var unapplied: [String] = []
        func makeDir(_ path: String, uid: UID, gid: GID, mode: FileMode) -> NodeID? {
            if let n = lookup(path) { return nodes[Int(n)].isDir ? n : nil }
            var at = ""
            var last: NodeID? = World.root
            for c in path.split(separator: "/") {
                at += "/" + c
                if let n = lookup(at) {
                    guard nodes[Int(n)].isDir else { return nil }
                    last = n
                    continue
                }
                let mine = at == path
                last = addNode(path: at, type: .dir, uid: mine ? uid : 0, gid: mine ? gid : 0, mode: mine ? mode : FileMode(0o755))
            }
            return last
        }
        for e in list {
            guard let c = e.creates else { continue }
            if let p = c.privateParent {
                guard let n = makeDir(p, uid: 0, gid: 0, mode: FileMode(0o700)) else {
                    unapplied.append("\(e.option) needs the folder \(p), which is not a directory in the tree: the view leaves it out")
                    continue
                }
                // Only what differs is written: an unchanged world shares the host's storage.
                if nodes[Int(n)].mode != FileMode(0o700) { nodes[Int(n)].mode = FileMode(0o700) }
            }
            let path = e.source ?? e.path
            let existed = lookup(path) != nil
            guard let n = makeDir(path, uid: c.chown ? c.uid : 0, gid: c.chown ? c.gid : 0, mode: c.mode) else {
                unapplied.append("\(e.option) names \(path), which is not a directory in the tree (systemd fails to start the unit): the view leaves it out")
                continue
            }
            if existed && c.chown && (nodes[Int(n)].uid != c.uid || nodes[Int(n)].gid != c.gid) {
                var stack = [n]
                while let d = stack.popLast() {
                    nodes[Int(d)].uid = c.uid
                    nodes[Int(d)].gid = c.gid
                    if nodes[Int(d)].isDir { stack += children(of: d) }
                }
            }
            if nodes[Int(n)].mode != c.mode { nodes[Int(n)].mode = c.mode }
            if e.source != nil, lookup(e.path) == nil, makeDir(e.path, uid: 0, gid: 0, mode: FileMode(0o755)) == nil {
                unapplied.append("\(e.option) cannot show \(path) at \(e.path), which is not a directory in the tree: the view leaves it out")
            }
        }
        return unapplied
    }
}
