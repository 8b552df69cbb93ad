/// The world as a service's view shows it (U5): what a replacing entry mounts over a path is an
/// empty node of its own, so the path's children are gone and the node has the owner, group and
/// mode of what systemd mounts there. Node ids stay those of the host's world (a replaced node
/// keeps its id, its children are detached), so decisions render against either.
extension World {
    /// Replaces the paths `view`'s replacing entries name; returns the entries it could not apply,
    /// each with why.
    mutating func replacePaths(of view: MountView) -> [String] {
        var unapplied: [String] = []
        for e in view.entries where e.mode.replaces {
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
}
