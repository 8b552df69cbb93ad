// Linux: chflags, unlink/rmdir, rename and link, with their directory and sticky-bit rules.

extension Eval {
    /// FS_IOC_SETFLAGS: the ioctl needs an open file (read; a socket cannot be opened), then
    /// the mount for writing; a FIFO or device node has no inode flags to set (ENOTTY); then the
    /// owner or CAP_FOWNER; toggling immutable or append-only needs CAP_LINUX_IMMUTABLE; ext4
    /// freezes the other flags while immutable stays set.
    mutating func linuxChflags(_ n: NodeID, _ newFlags: FileFlags) -> Outcome {
        let node = world[n]
        // The ioctl needs an open file first, then takes the mount for writing.
        if let o = nodevCheck(n) { return o }
        let opened = socketOpen(n, linuxPermission(n, .read))
        if !opened.allowed { return opened }
        if let o = readOnlyCheck(n) { return o }
        // vfs_fileattr_set: no fileattr operations for special inodes, before the owner check.
        if node.type == .fifo || node.type.isDevice {
            return finish(.deny(.ENOTTY, .type, .linuxChflagsSpecialFile, n, .node(n)), .writeSecurity)
        }
        let owner = ownerOrRoot(n, .writeSecurity)
        if !owner.allowed { return owner }
        let linuxRelevant: FileFlags = FileFlags.immutable.union(.append).union(.userNoDump)
        func norm(_ f: FileFlags) -> FileFlags {
            var out = f.intersection(.userNoDump)
            if f.intersects(.immutable) { out.insert(.systemImmutable) }
            if f.intersects(.append) { out.insert(.systemAppend) }
            return out
        }
        let old = norm(node.flags.intersection(linuxRelevant))
        let new = norm(newFlags.intersection(linuxRelevant))
        let changed = FileFlags(rawValue: old.rawValue ^ new.rawValue)
        if changed.isEmpty { return finish(.allow(.ownership, .nothingToChange, n, .node(n)), []) }
        if changed.intersects([.systemImmutable, .systemAppend]) && !subject.has(.linuxImmutable) {
            capabilityMissing(n, .linuxImmutable, .writeSecurity)
            return finish(
                .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable, n, .capability(node: n, cap: .linuxImmutable, held: false)),
                .writeSecurity)
        }
        if old.contains(.systemImmutable) && new.contains(.systemImmutable) {
            return finish(.deny(.EPERM, .flags, .linuxImmutableFreezesFlags, n, .flag(node: n, flag: .systemImmutable)), .writeSecurity)
        }
        return owner
    }

    /// `unlink(2)` and `rmdir(2)` (do_unlinkat, do_rmdir): a last `.`, `..` or `/` is refused
    /// after the walk (unlink: EISDIR; rmdir: EINVAL, ENOTEMPTY, EBUSY), then EROFS, then a
    /// missing name (ENOENT); unlink of a name with a trailing slash is EISDIR (a directory) or
    /// ENOTDIR, rmdir takes no notice of one; then `may_delete`, the
    /// type (unlink of a directory EISDIR, O14; rmdir of anything else ENOTDIR, O15), a mount
    /// point (EBUSY, O8) and, for rmdir, the entries (ENOTEMPTY).
    mutating func linuxUnlinkOrRmdir(_ r: Request) -> Outcome {
        // The walk stops before a trailing slash: the name itself (a symlink too) is looked
        // up after EROFS; unlink then refuses the slash, rmdir takes no notice of it.
        var path = Substring(r.path)
        while path.utf8.count > 1 && path.utf8.last == 0x2f { path = path.dropLast() }
        let slash = path.utf8.count != r.path.utf8.count
        let res: Resolved
        switch resolve(String(path), followTrailing: false) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        let unlink = r.op == .unlink
        guard let n = res.node else {
            if let o = readOnlyCheck(res.parent) { return o }
            return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(String(path))), [])
        }
        let dotted = res.dots != 0 || Eval.endsInDot(r.path)
        if unlink && (dotted || n == World.root) { return finish(.deny(.EISDIR, .type, .unlinkDirectory, n, .node(n)), []) }
        if !unlink {
            if res.dots == 2 { return finish(.deny(.ENOTEMPTY, .type, .removeDotDot, n, .node(res.dotDir)), []) }
            if dotted { return finish(.deny(.EINVAL, .type, .removeDot, n, .node(n)), []) }
            if n == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, n, .node(n)), []) }
        }
        if let o = readOnlyCheck(res.parent) { return o }
        if unlink && slash {
            if world[n].isDir { return finish(.deny(.EISDIR, .type, .unlinkDirectory, n, .node(n)), []) }
            return finish(.deny(.ENOTDIR, .traversal, .notADirectory, n, .node(n)), [])
        }
        let o = mayDelete(res.parent, n)
        if !o.allowed { return o }
        if unlink && world[n].isDir { return finish(.deny(.EISDIR, .type, .unlinkDirectory, n, .node(n)), .delete) }
        if !unlink && !world[n].isDir { return finish(.deny(.ENOTDIR, .type, .rmdirNotDirectory, n, .node(n)), .delete) }
        if world.isMountPoint(n) { return mountPointBusy(n) }
        if !unlink, let e = notEmpty(n, .delete) { return e }
        return o
    }

    mutating func linuxRename(_ r: Request) -> Outcome {
        let pair: (src: Resolved, dst: Resolved)
        switch resolvePair(r) {
        case .failure(let o): return o
        case .success(let x): pair = x
        }
        let s = pair.src.node!
        let sp = pair.src.parent
        let tp = pair.dst.parent
        // A last `.` or `..` on either side: the walks' directories are compared for EXDEV,
        // then the rename is EBUSY, before anything else (do_renameat2, O11).
        if pair.src.dots != 0 || pair.dst.dots != 0 {
            if let o = crossDevice(pair.src.lookupDir, pair.dst.lookupDir) { return o }
            let (n, d) = pair.src.dots != 0 ? (s, pair.src.dotDir) : (pair.dst.node ?? tp, pair.dst.dotDir)
            return finish(.deny(.EBUSY, .type, .renameDot, n, .node(d)), [])
        }
        if s == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, s, .node(s)), []) }
        // do_renameat2 compares the mounts of the two parents: a mount point's own volume is
        // not the one its name lives in.
        if let o = crossDevice(sp, tp) { return o }
        if let o = readOnlyCheck(sp) { return o }
        // Two names of one file (or the same name): vfs_rename returns 0 before any permission check (O10).
        if let t = pair.dst.node, world.sameFile(t, s) { return finish(.allow(.type, t == s ? .nothingToChange : .sameFile, s, .node(t)), []) }
        let isDir = world[s].isDir
        if isDir, let o = movesIntoItself(s, newParent: tp) { return o }
        var o = mayDelete(sp, s)
        if !o.allowed { return o }
        if let t = pair.dst.node {
            o = mayDelete(tp, t)
            if !o.allowed { return o }
            if isDir && !world[t].isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, t, .node(t)), []) }
            if !isDir && world[t].isDir { return finish(.deny(.EISDIR, .type, .isDirectory, t, .node(t)), []) }
        } else {
            o = linuxPermission(tp, [.write, .execute])
            if !o.allowed { return o }
        }
        if isDir && tp != sp {
            step(.mode, .linuxMoveDirNeedsWrite, .note, s, .writeData, .writeData, .node(s))
            o = linuxPermission(s, .write)
            if !o.allowed { return o }
        }
        // vfs_rename: a mount point, as the source or the replaced name, is busy (O8).
        if isLinuxMountPoint(s) { return mountPointBusy(s) }
        if let t = pair.dst.node, isLinuxMountPoint(t) { return mountPointBusy(t) }
        return replacedNotEmpty(pair.dst.node) ?? o
    }

    mutating func linuxLink(_ r: Request) -> Outcome {
        let pair: (src: Resolved, dst: Resolved)
        switch resolvePair(r) {
        case .failure(let o): return o
        case .success(let x): pair = x
        }
        let s = pair.src.node!
        let node = world[s]
        let tp = pair.dst.parent
        if let t = pair.dst.node { return finish(.deny(.EEXIST, .traversal, .exists, t, .node(t)), []) }
        // filename_create takes the new name's mount for writing before the EXDEV check.
        if let o = readOnlyCheck(tp) { return o }
        if let o = crossDevice(s, tp) { return o }
        // may_linkat: fs.protected_hardlinks (CAP_FOWNER, i.e. root, is exempt).
        let hardlinks = world.linux.protectedHardlinks
        if (hardlinks != 0 || tracing) && !ownerOrFowner(s) {
            var safe = node.type == .file && !node.mode.isSetuid && !(node.mode.isSetgid && node.mode.group.contains(.execute))
            if safe {
                let mark = trace.count
                let rw = linuxPermission(s, [.read, .write])
                if tracing { trace.removeSubrange(mark...) }
                safe = rw.allowed
            }
            if !safe {
                let ev = Evidence.tunable(node: s, dir: -1, .protectedHardlinks, value: hardlinks)
                if hardlinks != 0 { return finish(.deny(.EPERM, .ownership, .linuxProtectedHardlinks, s, ev), .linkTarget) }
                step(.ownership, .linuxProtectedHardlinks, .note, s, .linkTarget, [], ev)
            }
        }
        let o = linuxPermission(tp, [.write, .execute])
        if !o.allowed { return o }
        if let b = attributeFlags(s) { return b }
        if node.isDir { return finish(.deny(.EPERM, .type, .linkDirectory, s, .node(s)), []) }
        return o
    }
}
