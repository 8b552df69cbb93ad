/// How each `op` becomes path lookups and rights on nodes (docs/semantics.md, rules O1–O12),
/// for the macos and guide rule sets.
extension Eval {
    mutating func decideBSD(_ r: Request) -> Outcome {
        switch r.op {
        case .create, .mkdir, .symlink, .mkfifo, .mknod, .socket:
            return createLike(r)
        case .creat:
            // open(O_WRONLY|O_CREAT) follows a trailing symlink; a missing name is created
            // (add_file on the directory), an existing one opened for writing (XNU vn_open_auth).
            switch resolveNamed(r.path, followTrailing: true) {
            case .failure(let o): return o
            case .success(let res):
                if let n = res.node { return decideBSDOn(.write, n, parent: res.parent) }
                if Eval.namesDirectory(r.path) { return trailingSlashCreation(res, r.path) }
                return createIn(res, r)
            }
        case .delete, .unlink, .rmdir:
            return deleteOp(r)
        case .rename:
            return renameOp(r)
        case .link:
            return linkOp(r)
        case .settimes where r.atime == .omit && r.mtime == .omit:
            // Whether XNU even looks the path up is not in the reference facts (O26).
            return settimesOmitUnknown(World.root)
        case .chmod, .lchmod, .chown, .lchown, .chgrp, .chflags, .setacl, .settimes, .touch:
            return attributeOp(r)
        case .modify:
            return decideModify(r)
        case .open:
            return bsdOpen(r)
        default:
            break
        }
        let res: Resolved
        switch resolveNamed(r.path, followTrailing: r.op.followsTrailingSymlink) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        guard let n = res.node else {
            return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), [])
        }
        // lstat: stat of the name itself (O16).
        return decideBSDOn(r.op == .lstat ? .stat : r.op, n, parent: res.parent)
    }

    /// The part of `decideBSD` after the walk, for the operations that end in rights on the
    /// node the path names (`n`, found in `parent`).
    mutating func decideBSDOn(_ op: Operation, _ n: NodeID, parent: NodeID) -> Outcome {
        let node = world[n]
        // vn_authorize_open_existing: a socket cannot be opened, before MAC and kauth (O9).
        if node.type == .socket && op.opensNode {
            return finish(.deny(.EOPNOTSUPP, .type, .openSocket, n, .node(n)), [])
        }
        let rights: AccessRights
        switch op {
        case .read: rights = .readData
        case .write, .truncate, .append, .readwrite:
            if node.isDir { return finish(.deny(.EISDIR, .type, .isDirectory, n, .node(n)), []) }
            rights = op == .append ? .appendData : op == .readwrite ? [.readData, .writeData] : .writeData
        case .execute:
            // exec_check_permissions: a regular file with some x bit
            // (kern_exec.c; noexec is enforced later, inside vnode_authorize)
            if node.type != .file { return finish(.deny(.EACCES, .type, .notRegularExec, n, .node(n)), .execute) }
            if sem == .macos && !node.mode.anyExecute {
                return finish(
                    .deny(
                        .EACCES, .mode, .execNeedsXBit, n,
                        .mode(node: n, cls: .any, needed: .execute, has: node.mode.anyClassBits)), .execute)
            }
            rights = .execute
        case .list:
            if !node.isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, n, .node(n)), []) }
            rights = .list
        case .search:
            if !node.isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, n, .node(n)), []) }
            rights = .search
        case .stat: rights = [.readAttributes, .readSecurity]
        case .readattr: rights = .readAttributes
        case .writeattr: rights = .writeAttributes
        case .readextattr: rights = .readExtAttributes
        case .writeextattr: rights = .writeExtAttributes
        case .readsecurity: rights = .readSecurity
        case .rights(let x, let word):
            if let o = directoryRightOnFile(word, n) { return o }
            rights = x
        case .propagate, .copyPermissions, .inheritACL, .makeExplicit, .removeACLs: rights = .writeSecurity
        default: rights = []
        }
        return authorize(n, parent: parent, rights, noImmutable: false)
    }

    /// O42: a right word only directories have (`add_file`, `add_subdirectory`,
    /// `delete_child`, `list`, `search`) asked of anything else is ENOTDIR, as every call that
    /// would add, list or remove entries under a non-directory is.
    mutating func directoryRightOnFile(_ word: String, _ n: NodeID) -> Outcome? {
        guard !world[n].isDir, let w = AccessRights.words.first(where: { $0.word == word }), !w.onFiles else { return nil }
        return finish(.deny(.ENOTDIR, .type, .directoryRightOnFile, n, .node(n)), [])
    }

    /// `open(O_CREAT)` of a new file needs `add_file` on the parent; `mkdir` needs
    /// `add_subdirectory`. An existing name is EEXIST (checked before permission).
    /// `symlink`, `mkfifo`, `mknod` and `socket` (bind) are creations of a name too (O17–O19):
    /// `add_file` on the parent; `mknod` of a device needs the superuser before the lookup
    /// (XNU `mknodat`), and an existing name for `bind` is EADDRINUSE (XNU `unp_bind`).
    mutating func createLike(_ r: Request) -> Outcome {
        if r.op == .mknod && !subject.isRoot {
            return finish(.deny(.EPERM, .root, .mknodNeedsPrivilege, World.root, .none), .addFile)
        }
        let res: Resolved
        // A new file's name with a trailing slash: the name is looked up as a directory's
        // (`resolveNamed`), an existing one is EEXIST as ever, a missing one cannot be made.
        let slash = r.op != .mkdir && Eval.namesDirectory(r.path)
        switch slash ? resolveNamed(r.path, followTrailing: true) : resolve(r.path, followTrailing: false) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        if let n = res.node {
            if r.op == .socket { return finish(.deny(.EADDRINUSE, .traversal, .socketAddressInUse, n, .node(n)), []) }
            return finish(.deny(.EEXIST, .traversal, .exists, n, .node(n)), [])
        }
        if slash { return trailingSlashCreation(res, r.path) }
        let o = createIn(res, r)
        if o.allowed && r.op == .mkfifo, let u = newNodeSetIDUnknown(res.parent, r) { return u }
        return o
    }

    /// A new regular file named with a trailing slash (`create` or `creat` of `/d/new/`):
    /// XNU's `lookup_validate_creation_path` refuses to create anything but a directory there,
    /// ENOENT (P2).
    mutating func trailingSlashCreation(_ res: Resolved, _ path: String) -> Outcome {
        finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(path)), [])
    }

    /// `add_file` (`add_subdirectory` for mkdir) on the directory a new name goes in.
    mutating func createIn(_ res: Resolved, _ r: Request) -> Outcome {
        let right: AccessRights = r.op == .mkdir ? .addSubdirectory : .addFile
        newPath = addedPath(res.parent, r.path)
        // D5: a new regular file's key is wrapped with its class's key (a directory has no
        // contents to protect: mkdir is not gated). Never under linux.
        if (r.op == .create || r.op == .creat || r.op == .open) && sem != .linux, let (cls, source) = world.newFileProtection(in: res.parent, app: app) {
            newFile = NewFile(path: newName(res.parent, r.path), cls: cls, source: source)
        }
        defer { newPath = nil; newFile = nil }
        return authorize(res.parent, parent: -1, right, noImmutable: false)
    }

    mutating func deleteOp(_ r: Request) -> Outcome {
        let res: Resolved
        switch resolveNamed(r.path, followTrailing: false) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
        if r.op != .delete { return unlinkOrRmdir(r, res, n) }
        if Eval.endsInDot(r.path) || res.dots == 1 { return finish(.deny(.EINVAL, .type, .removeDot, n, .node(n)), []) }
        if n == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, n, .node(n)), []) }
        // unlinkat_internal, rmdirat_internal: the root of a mounted volume, before any check (O8).
        if world.isMountPoint(n) {
            return finish(.deny(.EBUSY, .type, .busyMountPoint, n, .volume(mountPath: world.volumes[Int(world[n].volume)].mountPath)), [])
        }
        // A last `..`: the directory it names, as a name of the directory it was looked up in
        // (rmdirat_internal takes the vnode and its parent as the lookup returned them), O13.
        if res.dots == 2 {
            let o = authorize(n, parent: res.dotDir, .delete, noImmutable: false)
            if !o.allowed { return o }
            return finish(.deny(.ENOTEMPTY, .type, .removeDotDot, n, .node(res.dotDir)), .delete)
        }
        let o = authorize(n, parent: res.parent, .delete, noImmutable: false)
        if o.allowed, let e = notEmpty(n, .delete) { return e }
        return o
    }

    /// XNU's `unlink` and `rmdir` (unlinkat_internal, rmdirat_internal): the root of a volume
    /// is EBUSY; then `vn_authorize_unlink` refuses a directory (EPERM, O14), and
    /// `vn_authorize_rmdir` anything else (ENOTDIR, O15) and `.` (EINVAL, O6), before the
    /// delete right; a directory left with entries is ENOTEMPTY.
    mutating func unlinkOrRmdir(_ r: Request, _ res: Resolved, _ n: NodeID) -> Outcome {
        if n == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, n, .node(n)), []) }
        if world.isMountPoint(n) {
            return finish(.deny(.EBUSY, .type, .busyMountPoint, n, .volume(mountPath: world.volumes[Int(world[n].volume)].mountPath)), [])
        }
        let dir = res.lookupDir
        if r.op == .unlink {
            if world[n].isDir { return finish(.deny(.EPERM, .type, .unlinkDirectory, n, .node(n)), []) }
            return authorize(n, parent: dir, .delete, noImmutable: false)
        }
        if !world[n].isDir { return finish(.deny(.ENOTDIR, .type, .rmdirNotDirectory, n, .node(n)), []) }
        if Eval.endsInDot(r.path) || res.dots == 1 { return finish(.deny(.EINVAL, .type, .removeDot, n, .node(n)), []) }
        let o = authorize(n, parent: dir, .delete, noImmutable: false)
        if !o.allowed { return o }
        if res.dots == 2 { return finish(.deny(.ENOTEMPTY, .type, .removeDotDot, n, .node(dir)), .delete) }
        return notEmpty(n, .delete) ?? o
    }

    /// For an app: the path a new name will have (`parent` resolved, plus the last component).
    func addedPath(_ parent: NodeID, _ requested: String) -> String? {
        guard app != nil else { return nil }
        return newName(parent, requested)
    }

    /// The path a new name will have: `parent` resolved, plus the last component.
    func newName(_ parent: NodeID, _ requested: String) -> String {
        let name = requested.split(separator: "/").last.map(String.init) ?? ""
        let base = world.path(of: parent)
        return base == "/" ? "/" + name : base + "/" + name
    }

    /// EXDEV when `a` and `b` are on different volumes (checked before permissions).
    mutating func crossDevice(_ a: NodeID, _ b: NodeID) -> Outcome? {
        let va = world.volumes[Int(world[a].volume)].mountPath
        let vb = world.volumes[Int(world[b].volume)].mountPath
        if va != vb { return finish(.deny(.EXDEV, .volume, .crossDevice, b, .volume(mountPath: vb)), []) }
        // U4: each path a service's unit names is a mount of its own.
        if let v = subject.view {
            let ma = v.mountEntry(for: world.path(of: a)), mb = v.mountEntry(for: world.path(of: b))
            if ma?.path != mb?.path, let e = mb ?? ma {
                return finish(.deny(.EXDEV, .volume, .unitCrossMount, b, .view(node: b, e)), [])
            }
        }
        return nil
    }

    /// EINVAL when directory `s` would move into itself or below itself.
    mutating func movesIntoItself(_ s: NodeID, newParent tp: NodeID) -> Outcome? {
        var a = tp
        while true {
            if a == s { return finish(.deny(.EINVAL, .type, .renameIntoSelf, s, .node(s)), []) }
            if a == World.root { return nil }
            a = world[a].parent
        }
    }

    /// ENOTEMPTY when a replaced directory has entries (after the permission checks).
    mutating func replacedNotEmpty(_ t: NodeID?) -> Outcome? {
        guard let t else { return nil }
        return notEmpty(t, [])
    }

    mutating func resolvePair(_ r: Request) -> Result<(src: Resolved, dst: Resolved), Outcome> {
        let src: Resolved
        // link() follows a trailing symlink in the existing path (AT_SYMLINK_FOLLOW); rename does not.
        switch resolve(r.path, followTrailing: r.op == .link && sem != .linux) {
        case .failure(let o): return .failure(o)
        case .success(let x): src = x
        }
        guard src.node != nil else {
            // Linux walks both parents before it looks the source's last name up: a failure of
            // the second walk, or a last `.` or `..` there (O11), comes first.
            if sem == .linux && r.op == .rename {
                switch resolve(r.to ?? "", followTrailing: false) {
                case .failure(let o): return .failure(o)
                case .success(let dst) where dst.dots != 0:
                    if let o = crossDevice(src.parent, dst.lookupDir) { return .failure(o) }
                    return .failure(finish(.deny(.EBUSY, .type, .renameDot, dst.node ?? dst.parent, .node(dst.dotDir)), []))
                case .success(let dst):
                    // do_renameat2 compares the parents' mounts and takes the source's for writing
                    // before it looks the source's name up.
                    if let o = crossDevice(src.parent, dst.parent) { return .failure(o) }
                    if let o = readOnlyCheck(src.parent) { return .failure(o) }
                }
            }
            return .failure(finish(.deny(.ENOENT, .traversal, .notFound, src.parent, src.notFoundEvidence(r.path)), []))
        }
        let dst: Resolved
        switch resolve(r.to ?? "", followTrailing: false) {
        case .failure(let o): return .failure(o)
        case .success(let x): dst = x
        }
        return .success((src, dst))
    }

    /// rename: `delete` on the source (and `add_subdirectory` on it when it is a directory,
    /// even within one parent), then `add_file` or `add_subdirectory` on the destination
    /// directory (on a replaced directory itself), then `delete` on a replaced file.
    mutating func renameOp(_ r: Request) -> Outcome {
        let pair: (src: Resolved, dst: Resolved)
        switch resolvePair(r) {
        case .failure(let o): return o
        case .success(let x): pair = x
        }
        let s = pair.src.node!
        // A source `.` or `..`: the vnode and the directory the lookup found it in (O11).
        let sp = pair.src.lookupDir
        let tp = pair.dst.parent
        let sNode = world[s]
        if s == World.root { return finish(.deny(.EBUSY, .type, .busyRoot, s, .node(s)), []) }
        if let t = pair.dst.node, t == s { return finish(.allow(.type, .nothingToChange, s, .node(s)), []) }
        if let o = mountPointRename(s, pair.src.parent, pair.dst) { return o }
        // Two names of one file on a case-sensitive volume: renameat_internal skips the
        // authorization and does nothing (O10).
        if let t = pair.dst.node, world.sameFile(t, s), world.volume(of: s).caseSensitive {
            return finish(.allow(.type, .sameFile, s, .node(t)), [])
        }
        if let t = pair.dst.node {
            if sNode.isDir && !world[t].isDir { return finish(.deny(.ENOTDIR, .type, .notADirectory, t, .node(t)), []) }
            if !sNode.isDir && world[t].isDir { return finish(.deny(.EISDIR, .type, .isDirectory, t, .node(t)), []) }
        }
        if sNode.isDir, let o = movesIntoItself(s, newParent: tp) { return o }
        // vn_authorize_renamex_with_paths: the source, then the add right, then a replaced file.
        let srcRights: AccessRights = sNode.isDir ? [.delete, .addSubdirectory] : .delete
        var o = authorize(s, parent: sp, srcRights, noImmutable: false)
        if !o.allowed { return o }
        let addOn: NodeID
        if let t = pair.dst.node, world[t].isDir, t != sp { addOn = t } else { addOn = tp }
        newPath = addedPath(tp, r.to ?? "")
        o = authorize(addOn, parent: -1, sNode.isDir ? .addSubdirectory : .addFile, noImmutable: false)
        newPath = nil
        if !o.allowed { return o }
        if let t = pair.dst.node, !world[t].isDir {
            o = authorize(t, parent: tp, .delete, noImmutable: false)
            if !o.allowed { return o }
        }
        // The checks above do not look at the source's name; the file system refuses `.` and
        // `..` (O11).
        if pair.src.dots != 0 { return finish(.deny(.EINVAL, .type, .renameDot, s, .node(sp)), srcRights) }
        return replacedNotEmpty(pair.dst.node) ?? o
    }

    /// renameat_internal's cross-device check (P5), with its mount-point case (O8): the source,
    /// its directory, the new directory and a replaced name must all be on one volume; but a
    /// mounted directory renamed to a new name of the same directory moves its volume (the
    /// covered directory is renamed), and is then judged as any rename. Nil to go on.
    mutating func mountPointRename(_ s: NodeID, _ sp: NodeID, _ dst: Resolved) -> Outcome? {
        if world.isMountPoint(s) {
            if world[s].isDir && dst.node == nil && dst.parent == sp {
                step(.type, .renameMountPoint, .note, s, [], [], .volume(mountPath: world.volumes[Int(world[s].volume)].mountPath))
                return nil
            }
            return finish(.deny(.EXDEV, .volume, .crossDevice, s, .volume(mountPath: world.volumes[Int(world[s].volume)].mountPath)), [])
        }
        if let o = crossDevice(s, dst.parent) { return o }
        if let t = dst.node, let o = crossDevice(s, t) { return o }
        return nil
    }

    /// link: the existing file may not be a directory (EPERM); `linktarget` on it (only the
    /// read-only and immutability checks); the new name must not exist (EEXIST) and must be on
    /// the same volume (EXDEV); then `add_file` on the new parent.
    mutating func linkOp(_ r: Request) -> Outcome {
        let pair: (src: Resolved, dst: Resolved)
        switch resolvePair(r) {
        case .failure(let o): return o
        case .success(let x): pair = x
        }
        let s = pair.src.node!
        if world[s].isDir { return finish(.deny(.EPERM, .type, .linkDirectory, s, .node(s)), []) }
        // linkat_internal: LINKTARGET on the file, then EEXIST, EXDEV, and ADD_FILE.
        let o = authorize(s, parent: -1, .linkTarget, noImmutable: false)
        if !o.allowed { return o }
        if let t = pair.dst.node { return finish(.deny(.EEXIST, .traversal, .exists, t, .node(t)), []) }
        let tp = pair.dst.parent
        if let o = crossDevice(s, tp) { return o }
        newPath = addedPath(tp, r.to ?? "")
        defer { newPath = nil }
        return authorize(tp, parent: -1, .addFile, noImmutable: false)
    }

    /// chmod, chown, chgrp, chflags, setacl, settimes, touch: the `vnode_authattr` preflight,
    /// then the rights it computed, then the syscall's errno rewrite.
    mutating func attributeOp(_ r: Request) -> Outcome {
        let res: Resolved
        // lchown, lchmod: the trailing symlink itself (O16, O25).
        switch resolveNamed(r.path, followTrailing: r.op != .lchown && r.op != .lchmod) {
        case .failure(let o): return o
        case .success(let x): res = x
        }
        guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
        let node = world[n]
        let (ouid, ogid) = view(n, record: false)
        let isOwner = ouid == subject.uid
        let root = subject.isRoot
        var rights: AccessRights = []
        var noImmutable = false
        var eaccesToEPERM = false
        var op = r.op
        // Both times UTIME_NOW: utimes(NULL), as `touch` (A4); a time omitted: not in the
        // reference facts (O26).
        if op == .settimes {
            if r.atime == .omit || r.mtime == .omit { return settimesOmitUnknown(n) }
            if r.atime == .now && r.mtime == .now { op = .touch }
        }
        switch op {
        case .chmod, .lchmod:
            eaccesToEPERM = true
            let m = r.mode ?? node.mode
            // Only a real change is authorized (vnode_authattr: ova.va_mode != va_mode).
            if m == node.mode { break }
            if root { rights = .checkImmutable; break }
            rights.insert(.writeSecurity)
            if m.isSetgid && !subject.isMember(ogid) {
                return finish(.deny(.EPERM, .ownership, .setgidNotMember, n, .node(n)), .writeSecurity)
            }
            if m.isSetuid && !isOwner {
                return finish(.deny(.EPERM, .ownership, .setuidNotOwner, n, .node(n)), .writeSecurity)
            }
            rights.insert(.checkImmutable)
        case .chown, .lchown:
            eaccesToEPERM = true
            // chown(-1, -1): no id is active, vnode_authattr computes nothing (O27).
            if r.owner == nil && r.group == nil { return finish(.allow(.ownership, .chownNoIDs, n, .node(n)), []) }
            var changesOwner = false
            if let u = r.owner, u != ouid {
                if !root && u != subject.uid {
                    return finish(.deny(.EPERM, .ownership, .chownToOther, n, .node(n)), .takeOwnership)
                }
                changesOwner = true
            }
            var changesGroup = false
            if let g = r.group, g != ogid {
                if !root && !subject.isMember(g) {
                    return finish(.deny(.EPERM, .ownership, .chgrpNotMember, n, .node(n)), .writeSecurity)
                }
                changesGroup = true
            }
            // A new owner asks take-ownership; a new group alone, writesecurity (A1, A2).
            if root && (changesOwner || changesGroup) {
                rights = .checkImmutable
            } else if changesOwner {
                rights = .takeOwnership
            } else if changesGroup {
                rights = .writeSecurity
            }
        case .chgrp:
            eaccesToEPERM = true
            let g = r.group ?? ogid
            if g == ogid { break }
            if root { rights = .checkImmutable; break }
            if !subject.isMember(g) {
                return finish(.deny(.EPERM, .ownership, .chgrpNotMember, n, .node(n)), .writeSecurity)
            }
            rights = .writeSecurity
        case .setacl:
            eaccesToEPERM = true
            let cur = world.acl(of: n)
            if cur == r.acl { break }
            rights = root ? .checkImmutable : .writeSecurity
        case .chflags:
            let newFlags = r.flags ?? node.flags
            let changed = FileFlags(rawValue: newFlags.rawValue ^ node.flags.rawValue)
            if sem == .guide && !root && !isOwner {
                return finish(.deny(.EPERM, .ownership, .guideChflagsOwnerOnly, n, .node(n)), .writeSecurity)
            }
            let settable: FileFlags = root ? FileFlags.userSettable.union(.systemSettable) : .userSettable
            if !changed.isSubset(of: settable) {
                let bad = changed.subtracting(settable)
                return finish(.deny(.EPERM, .ownership, .chflagsSystemFlag, n, .flag(node: n, flag: bad)), .writeSecurity)
            }
            if changed.isEmpty { break }
            rights = .writeSecurity
            noImmutable = true
        case .settimes:
            eaccesToEPERM = true
            if sem == .guide {
                if !isOwner && !root { step(.ownership, .guideSettimesByWriteAttr, .note, n, .writeAttributes, .writeAttributes, .node(n)) }
                rights = [.writeAttributes, .checkImmutable]
            } else if isOwner || root {
                rights = [.writeAttributes, .checkImmutable]
            } else {
                return finish(.deny(.EPERM, .ownership, .settimesNotOwner, n, .node(n)), .writeAttributes)
            }
        case .touch:
            rights = (isOwner || root) ? [.writeAttributes, .checkImmutable] : .writeAttributes
        default:
            break
        }
        if rights.isEmpty { return finish(.allow(.ownership, .nothingToChange, n, .node(n)), []) }
        var o = authorize(n, parent: res.parent, rights, noImmutable: noImmutable)
        if eaccesToEPERM && o.errno == .EACCES { o.errno = .EPERM }
        return o
    }
}

extension Eval {
    /// `settimes` with a time `UTIME_OMIT` under `macos` and `guide`: the reference facts give
    /// XNU's `setutimes` for a given time and for `utimes(NULL)` only, so the answer is
    /// unknown, never a guess (O26).
    mutating func settimesOmitUnknown(_ n: NodeID) -> Outcome {
        finish(
            Outcome(allowed: false, errno: nil, layer: .ownership, rule: .settimesOmitUnknown, node: n, evidence: .node(n), unknown: true),
            .writeAttributes)
    }
}

extension Eval {
    /// `mkfifo` (and `mknod`, which only the superuser reaches) keeps setuid and setgid in the
    /// new node's mode (`mode & 07777 & ~umask`), but whether `vnode_authattr_new_internal`
    /// then refuses or strips a bit the caller could not set with chmod (setuid on a node not
    /// its own, setgid with a group it is not in) is not in the reference facts: unknown (O28).
    mutating func newNodeSetIDUnknown(_ parent: NodeID, _ r: Request) -> Outcome? {
        guard !subject.isRoot else { return nil }
        let m = (r.mode ?? FileMode(0o666)).rawValue & ~subject.umask
        guard m & (FileMode.setuid | FileMode.setgid) != 0 else { return nil }
        let p = world[parent]
        let vol = world.volumeBits[Int(p.volume)]
        var uid = subject.uid
        var gid = sem == .guide ? (p.mode.isSetgid ? p.gid : subject.gid) : p.gid
        if vol.ignoreOwnership {
            uid = vol.fsOwner ?? uid
            gid = vol.fsGroup ?? gid
        }
        guard (m & FileMode.setuid != 0 && uid != subject.uid) || (m & FileMode.setgid != 0 && !subject.isMember(gid)) else { return nil }
        return finish(
            Outcome(
                allowed: false, errno: nil, layer: .ownership, rule: .newNodeSetIDUnknown, node: parent, evidence: .node(parent), unknown: true),
            .addFile)
    }
}
