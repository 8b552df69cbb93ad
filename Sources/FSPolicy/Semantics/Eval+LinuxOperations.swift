// Linux: how each operation decides (`decideLinux`), the path walk and checks it makes in the kernel's order.

extension Eval {
    // MARK: Operations

    mutating func decideLinux(_ r: Request) -> Outcome {
        switch r.op {
        case .create, .mkdir:
            switch resolve(r.path, followTrailing: false) {
            case .failure(let o): return o
            case .success(let res):
                // open(O_CREAT) of a name with a trailing slash: EISDIR once the walk has
                // reached its directory, whether the name exists or not (open_last_lookups).
                if r.op == .create && Eval.namesDirectory(r.path) { return trailingSlashOpen(res) }
                if let n = res.node { return finish(.deny(.EEXIST, .traversal, .exists, n, .node(n)), []) }
                return linuxCreateIn(res.parent)
            }
        case .symlink, .mkfifo, .mknod, .socket:
            return linuxMakeNode(r)
        case .delete:
            switch resolveNamed(r.path, followTrailing: false) {
            case .failure(let o): return o
            case .success(let res):
                guard let n = res.node else {
                    // do_unlinkat and do_rmdir take the mount for writing before they look the name up.
                    if let o = readOnlyCheck(res.parent) { return o }
                    return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), [])
                }
                if Eval.endsInDot(r.path) || res.dots == 1 { return finish(.deny(.EINVAL, .type, .removeDot, n, .node(n)), []) }
                // do_rmdir: a last `..` is ENOTEMPTY before anything else is checked (O13).
                if res.dots == 2 { return finish(.deny(.ENOTEMPTY, .type, .removeDotDot, n, .node(res.dotDir)), []) }
                if n == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, n, .node(n)), []) }
                if let o = readOnlyCheck(res.parent) { return o }
                let o = mayDelete(res.parent, n)
                // vfs_rmdir, vfs_unlink: a mount point is busy once may_delete passed (O8).
                if o.allowed && isLinuxMountPoint(n) { return mountPointBusy(n) }
                if o.allowed, let e = notEmpty(n, .delete) { return e }
                return o
            }
        case .unlink, .rmdir: return linuxUnlinkOrRmdir(r)
        case .settimes where r.atime == .omit && r.mtime == .omit:
            // sys_utimensat returns before the path is looked up (O26).
            return finish(.allow(.traversal, .settimesOmitBoth, World.root, .none), [])
        case .rename: return linuxRename(r)
        case .link: return linuxLink(r)
        case .modify: return decideModify(r)
        case .open: return linuxOpen(r)
        case .creat:
            // open(O_WRONLY|O_CREAT): the trailing symlink is followed; a missing name is
            // created (lookup_open: the mount is taken first, then may_o_create), an existing
            // one opened for writing (do_open).
            // (With a trailing slash the last name is not followed: the refusal comes first.)
            let slash = Eval.namesDirectory(r.path)
            switch resolve(r.path, followTrailing: !slash) {
            case .failure(let o): return o
            case .success(let res):
                if slash { return trailingSlashOpen(res) }
                guard let n = res.node else {
                    if let o = readOnlyCheck(res.parent) { return o }
                    return linuxPermission(res.parent, [.write, .execute])
                }
                return decideLinuxOn(r, n, parent: res.parent)
            }
        default: break
        }
        let res: Resolved
        // lstat, lchown: the trailing symlink itself (O16).
        switch resolveNamed(r.path, followTrailing: r.op.followsTrailingSymlink) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
        return decideLinuxOn(r, n, parent: res.parent)
    }

    /// `create` and `mkdir` of a name directory `dir` does not hold, once the walk has looked
    /// it up there: EROFS, then `may_create` (w and x on the directory).
    mutating func linuxCreateIn(_ dir: NodeID) -> Outcome {
        if let o = readOnlyCheck(dir) { return o }
        return linuxPermission(dir, [.write, .execute])
    }

    /// `symlink`, `mkfifo`, `mknod` and `bind` of a unix socket (`filename_create`, then
    /// `vfs_symlink` or `vfs_mknod`): a name that exists is EEXIST (`bind`: EADDRINUSE, O19),
    /// a missing one written with a trailing slash ENOENT, then EROFS, then `may_create` (w and
    /// x on the directory); a device node then needs CAP_MKNOD (O18).
    mutating func linuxMakeNode(_ r: Request) -> Outcome {
        let res: Resolved
        switch resolve(r.path, followTrailing: false) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        if let n = res.node {
            if r.op == .socket { return finish(.deny(.EADDRINUSE, .traversal, .socketAddressInUse, n, .node(n)), []) }
            return finish(.deny(.EEXIST, .traversal, .exists, n, .node(n)), [])
        }
        if Eval.namesDirectory(r.path) { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
        if let o = readOnlyCheck(res.parent) { return o }
        let o = linuxPermission(res.parent, [.write, .execute])
        guard o.allowed, r.op == .mknod else { return o }
        if subject.has(.mknod) {
            return finish(
                .allow(.root, .mknodNeedsPrivilege, res.parent, subject.defaultCaps ? .none : .capability(node: res.parent, cap: .mknod, held: true)),
                .addFile)
        }
        capabilityMissing(res.parent, .mknod, .addFile)
        return finish(.deny(.EPERM, .root, .mknodNeedsPrivilege, res.parent, .node(res.parent)), .addFile)
    }

    /// open(O_CREAT) of a path that ends in a slash (`create`, `creat` of `/d/f/`): EISDIR,
    /// on the name when it exists, else on its directory (Linux `open_last_lookups`: "trailing
    /// slashes?" before the name is looked up or made; rule O1).
    mutating func trailingSlashOpen(_ res: Resolved) -> Outcome {
        let at = res.node ?? res.parent
        return finish(.deny(.EISDIR, .type, .isDirectory, at, .node(at)), [])
    }

    /// The part of `decideLinux` after the walk (for every operation but create, mkdir,
    /// delete, rename and link): `n` is the node the path names, found in `parent`.
    mutating func decideLinuxOn(_ r: Request, _ n: NodeID, parent: NodeID) -> Outcome {
        let node = world[n]
        switch r.op {
        case .read:
            if let o = nodevCheck(n) { return o }
            return socketOpen(n, linuxPermission(n, .read))
        case .write, .truncate, .append, .readwrite, .creat:
            if node.isDir { return finish(.deny(.EISDIR, .type, .isDirectory, n, .node(n)), []) }
            // do_open: O_CREAT on an existing name, before may_open.
            if r.op == .creat, let o = mayCreateInSticky(n, in: parent) { return o }
            // O_TRUNC takes the mount for writing before may_open (do_open).
            if r.op == .truncate && node.type == .file, let o = readOnlyCheck(n) { return o }
            if let o = nodevCheck(n) { return o }
            let o = linuxPermission(n, r.op == .readwrite ? [.read, .write] : .write)
            if !o.allowed { return o }
            let app = node.flags.intersection(.append)
            if !app.isEmpty && r.op != .append {
                return finish(.deny(.EPERM, .flags, .linuxAppendNeedsOAppend, n, .flag(node: n, flag: app)), .writeData)
            }
            return socketOpen(n, openForWriteCheck(n, o))
        case .execute:
            if node.type != .file { return finish(.deny(.EACCES, .type, .notRegularExec, n, .node(n)), .execute) }
            if world.volumeBits[Int(node.volume)].noexec {
                return finish(.deny(.EACCES, .volume, .noexecVolume, n, .volume(mountPath: world.volumes[Int(node.volume)].mountPath)), .execute)
            }
            // U3: a noexec path of the service's sandbox.
            if let v = subject.view, let e = v.noexecEntry(for: world.path(of: n)) {
                return finish(.deny(.EACCES, .volume, .unitNoexec, n, .view(node: n, e)), .execute)
            }
            return linuxPermission(n, .execute)
        case .list:
            if !node.isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, n, .node(n)), []) }
            return linuxPermission(n, .read)
        case .search:
            if !node.isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, n, .node(n)), []) }
            return linuxPermission(n, .execute)
        case .stat, .lstat, .readattr, .readsecurity:
            return finish(.allow(.traversal, .linuxStatNeedsSearchOnly, n, .node(n)), [])
        case .readextattr:
            if node.type != .file && !node.isDir { return finish(.deny(.ENODATA, .type, .linuxUserXattrType, n, .node(n)), .readExtAttributes) }
            return linuxPermission(n, .read)
        case .writeextattr:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            if node.type != .file && !node.isDir { return finish(.deny(.EPERM, .type, .linuxUserXattrType, n, .node(n)), .writeExtAttributes) }
            if node.isDir && node.mode.isSticky && !ownerOrFowner(n) {
                return finish(.deny(.EPERM, .sticky, .linuxUserXattrSticky, n, .sticky(node: n)), .writeExtAttributes)
            }
            return linuxPermission(n, .write)
        case .lchmod:
            // fchmodat2(AT_SYMLINK_NOFOLLOW): a symlink's mode cannot change (O25), once the
            // mount was taken for writing; anything else is chmod.
            if let o = readOnlyCheck(n) { return o }
            if node.type == .symlink { return finish(.deny(.EOPNOTSUPP, .type, .lchmodSymlink, n, .node(n)), .writeSecurity) }
            if let o = attributeFlags(n) { return o }
            return ownerOrRoot(n, .writeSecurity)
        case .settimes where r.atime == .now && r.mtime == .now:
            // Both UTIME_NOW: vfs_utimes asks it as a touch (times NULL), O26.
            return linuxTouch(n)
        case .chmod, .settimes, .writeattr, .setacl:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            let o = ownerOrRoot(n, r.op == .chmod || r.op == .setacl ? .writeSecurity : .writeAttributes)
            // C5: allowed, but the set-group-ID bit asked for is not kept.
            if tracing, o.allowed, r.op == .chmod, let m = r.mode, m.isSetgid, !subject.isDirectMember(node.gid), !subject.has(.fsetid) {
                step(.ownership, .linuxChmodDropsSetgid, .note, n, .writeSecurity, [], .capability(node: n, cap: .fsetid, held: false))
            }
            return o
        case .touch:
            return linuxTouch(n)
        case .chown, .lchown:
            if let o = readOnlyCheck(n) { return o }
            // chown(-1, -1): no id to change (O27).
            if r.owner == nil && r.group == nil { return linuxChownNoIDs(n) }
            if let o = attributeFlags(n) { return o }
            var capUsed = false
            // chown_ok: the owner "changing" to itself, else CAP_CHOWN (C4).
            if let u = r.owner, !(u == node.uid && node.uid == subject.uid) {
                if !subject.has(.chown) {
                    capabilityMissing(n, .chown, .takeOwnership)
                    return finish(.deny(.EPERM, .ownership, .linuxChownNeedsCap, n, .node(n)), .takeOwnership)
                }
                capUsed = true
            }
            // chgrp_ok, when a group is given too (chown(2) with both ids).
            if let g = r.group, !(node.uid == subject.uid && (g == node.gid || subject.isDirectMember(g))) {
                if !subject.has(.chown) {
                    capabilityMissing(n, .chown, .takeOwnership)
                    return finish(.deny(.EPERM, .ownership, .linuxChgrpNotAllowed, n, .node(n)), .takeOwnership)
                }
                capUsed = true
            }
            if let o = chownClearsSetID(n, .takeOwnership) { return o }
            if capUsed {
                return finish(
                    .allow(.root, .linuxChownNeedsCap, n, subject.defaultCaps ? .none : .capability(node: n, cap: .chown, held: true)), .takeOwnership)
            }
            return finish(.allow(.ownership, .nothingToChange, n, .node(n)), [])
        case .chgrp:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            let g = r.group ?? node.gid
            // chgrp_ok: the owner to a group it is in (or the same group), else CAP_CHOWN (C4).
            if node.uid == subject.uid && (g == node.gid || subject.isDirectMember(g)) {
                return finish(.allow(.ownership, .linuxChgrpNotAllowed, n, .node(n)), .writeSecurity)
            }
            if subject.has(.chown) {
                if let o = chownClearsSetID(n, .writeSecurity) { return o }
                return finish(
                    .allow(.root, .linuxChownNeedsCap, n, subject.defaultCaps ? .none : .capability(node: n, cap: .chown, held: true)), .writeSecurity)
            }
            capabilityMissing(n, .chown, .writeSecurity)
            return finish(.deny(.EPERM, .ownership, .linuxChgrpNotAllowed, n, .node(n)), .writeSecurity)
        case .chflags:
            return linuxChflags(n, r.flags ?? node.flags)
        case .propagate, .copyPermissions, .inheritACL, .makeExplicit, .removeACLs:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            return ownerOrRoot(n, .writeSecurity)
        case .rights(let x, let word):
            if let o = directoryRightOnFile(word, n) { return o }
            if x.contains(.delete) {
                if n == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, n, .node(n)), []) }
                return mayDelete(parent, n)
            }
            return linuxAuthorizeRights(n, x)
        default:
            return finish(.allow(.traversal, .linuxStatNeedsSearchOnly, n), [])
        }
    }
}

extension Eval {
    /// utimensat with the times NULL or both `UTIME_NOW` (`ATTR_TOUCH`, `may_setattr`): EROFS,
    /// the immutable flag (an append-only file may), then the owner, CAP_FOWNER or write
    /// permission (L8).
    mutating func linuxTouch(_ n: NodeID) -> Outcome {
        if let o = readOnlyCheck(n) { return o }
        if let o = attributeFlags(n, appendBlocks: false) { return o }
        if ownerOrFowner(n) { return ownerOrRoot(n, .writeAttributes) }
        step(.mode, .linuxTouchNeedsWrite, .note, n, .writeAttributes, .writeAttributes, .node(n))
        return linuxPermission(n, .write)
    }

    /// chown(2) with -1 for both ids (`chown_common`, after EROFS): no `ATTR_UID` or `ATTR_GID`,
    /// so neither `chown_ok` nor `chgrp_ok` is asked; ext4's setattr still refuses an immutable
    /// inode, and an append-only one when a bit is cleared (tmpfs refuses neither); clearing
    /// setuid or setgid (as any chown does) is a mode change, which needs the owner or
    /// CAP_FOWNER (O27).
    mutating func linuxChownNoIDs(_ n: NodeID) -> Outcome {
        let f = world[n].flags
        let imm = f.intersection(.immutable)
        let app = chownClearsBits(n) ? f.intersection(.append) : []
        if !imm.isEmpty || !app.isEmpty {
            // The flags are the file system's own check (measured: ext4 refuses, tmpfs does
            // not); on any other, or one the world does not name, the answer is unknown.
            let vol = world.volumes[Int(world[n].volume)]
            switch vol.fsType {
            case "ext4":
                if !imm.isEmpty { return finish(.deny(.EPERM, .flags, .immutable, n, .flag(node: n, flag: imm)), []) }
                return finish(.deny(.EPERM, .flags, .appendOnly, n, .flag(node: n, flag: app)), [])
            case "tmpfs": break
            default:
                return finish(
                    Outcome(
                        allowed: false, errno: nil, layer: .flags, rule: .chownNoIDs, node: n, evidence: .volume(mountPath: vol.mountPath), unknown: true),
                    [])
            }
        }
        if let o = chownClearsSetID(n, .writeSecurity) { return o }
        return finish(.allow(.ownership, .chownNoIDs, n, .node(n)), [])
    }
}
