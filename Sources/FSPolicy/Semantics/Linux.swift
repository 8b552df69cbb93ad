/// `semantics: linux` — what the Linux kernel decides (docs/semantics.md, rules L1–L12):
/// per inode, read-only file system → immutable → DAC (owner bits; the POSIX ACL when the mode's
/// group bits are not `---`; else group or other bits) → root's capabilities. Namespace
/// operations add the directory rules of `may_delete`/`may_create` and the sticky bit (EPERM).
extension Eval {
    // MARK: inode_permission

    @inline(__always) func rights(_ want: RWX) -> AccessRights {
        var r: AccessRights = []
        if want.contains(.read) { r.insert(.readData) }
        if want.contains(.write) { r.insert(.writeData) }
        if want.contains(.execute) { r.insert(.execute) }
        return r
    }

    /// `inode_permission(inode, want)`: EROFS, immutable, DAC, then root's capabilities.
    mutating func linuxPermission(_ n: NodeID, _ want: RWX) -> Outcome {
        let node = world[n]
        let vol = world.volumeBits[Int(node.volume)]
        let asked = rights(want)
        if want.contains(.write) {
            // sb_permission: only a read-only file system; a read-only bind mount is refused
            // later, by the syscall (mnt_want_write or the open itself).
            if vol.superblockReadOnly && (node.type == .file || node.type == .dir || node.type == .symlink) {
                return finish(.deny(.EROFS, .volume, .readOnlyVolume, n, .volume(mountPath: world.volumes[Int(node.volume)].mountPath)), asked)
            }
            let imm = node.flags.intersection(.immutable)
            if !imm.isEmpty { return finish(.deny(.EPERM, .flags, .immutable, n, .flag(node: n, flag: imm)), asked) }
        }
        let dac = linuxDAC(n, want)
        if dac.allowed || (subject.caps.isEmpty && !subject.isRoot) { return dac }
        return capabilityOverride(n, want, dac)
    }

    /// `generic_permission` after the bits refused (`dac`): CAP_DAC_READ_SEARCH reads a file and
    /// reads or searches a directory (C1); CAP_DAC_OVERRIDE grants anything else, but executes a
    /// file only when some `x` bit is set (C2). A caller without the capability keeps `dac`; for
    /// uid 0 `explain` notes the capability it lacks.
    mutating func capabilityOverride(_ n: NodeID, _ want: RWX, _ dac: Outcome) -> Outcome {
        let node = world[n]
        let asked = rights(want)
        let plain = subject.defaultCaps
        func ev(_ c: Capabilities) -> Evidence { plain ? .none : .capability(node: n, cap: c, held: true) }
        var wanted: Capabilities = []
        if node.isDir {
            if !want.contains(.write) {
                if subject.has(.dacReadSearch) { return finish(.allow(.root, .linuxCapReadSearch, n, ev(.dacReadSearch)), asked) }
                wanted.insert(.dacReadSearch)
            }
            if subject.has(.dacOverride) { return finish(.allow(.root, .linuxCapOverride, n, ev(.dacOverride)), asked) }
            wanted.insert(.dacOverride)
        } else {
            if want == .read {
                if subject.has(.dacReadSearch) { return finish(.allow(.root, .linuxCapReadSearch, n, ev(.dacReadSearch)), asked) }
                wanted.insert(.dacReadSearch)
            }
            if !want.contains(.execute) || node.mode.anyExecute {
                if subject.has(.dacOverride) { return finish(.allow(.root, .linuxCapOverride, n, ev(.dacOverride)), asked) }
                wanted.insert(.dacOverride)
            } else if subject.has(.dacOverride) {
                return finish(.deny(.EACCES, .root, .linuxCapExecNeedsX, n, .mode(node: n, cls: .any, needed: .execute, has: node.mode.anyClassBits)), asked)
            }
        }
        capabilityMissing(n, wanted, asked)
        return dac
    }

    /// For uid 0 without the capabilities `wanted` (root without them is refused like anyone
    /// else), a note in the trace naming them.
    mutating func capabilityMissing(_ n: NodeID, _ wanted: Capabilities, _ asked: AccessRights) {
        guard tracing && subject.isRoot && !wanted.isEmpty else { return }
        step(.root, .linuxCapNotHeld, .note, n, asked, [], .capability(node: n, cap: wanted, held: false))
    }

    /// `acl_permission_check`: owner bits for the owner; the ACL when there is one and the
    /// group bits are not `---`; else group bits for a member of the owning group, or other bits.
    mutating func linuxDAC(_ n: NodeID, _ want: RWX) -> Outcome {
        let node = world[n]
        let mode = node.mode
        let asked = rights(want)
        if tracing && node.acl >= 0 && !world.mappedACLNodes.contains(n) {
            let note = "Linux has no macOS-style ACLs: the ACEs of \(world.path(of: n)) are ignored by the linux rule set"
            if !notes.contains(note) { notes.append(note) }
        }
        if node.uid == subject.uid {
            return modeCheck(n, want, owner: node.uid, group: node.gid, requested: asked)
        }
        if node.posixACL >= 0 && world.volumeBits[Int(node.volume)].acls {
            if !mode.group.isEmpty {
                return posixACLPermission(n, world.posixACLs[Int(node.posixACL)], want)
            }
            step(.acl, .linuxMaskEmptySkipsACL, .note, n, asked, asked, .mode(node: n, cls: .group, needed: [], has: []))
        }
        let member = subject.isDirectMember(node.gid)
        let cls: ModeClass = member ? .group : .other
        let has = member ? mode.group : mode.other
        let ev = Evidence.mode(node: n, cls: cls, needed: want, has: has)
        if has.isSuperset(of: want) {
            return finish(.allow(.mode, member ? .groupBitsGrant : .otherBitsGrant, n, ev), asked)
        }
        return finish(.deny(.EACCES, .mode, member ? .groupBitsMissing : .otherBitsMissing, n, ev), asked)
    }

    /// `posix_acl_permission` (the owner was handled by the caller).
    mutating func posixACLPermission(_ n: NodeID, _ acl: POSIXACL, _ want: RWX) -> Outcome {
        let node = world[n]
        let asked = rights(want)
        let mask = acl.mask ?? .all
        for u in acl.users where u.id == subject.uid {
            let ev = Evidence.posixEntry(node: n, tag: .user(u.id), perms: u.perms, mask: acl.mask)
            if u.perms.intersection(mask).isSuperset(of: want) { return finish(.allow(.acl, .linuxNamedUser, n, ev), asked) }
            return finish(.deny(.EACCES, .acl, .linuxNamedUser, n, ev), asked)
        }
        var foundGroup = false
        var firstGroup: Evidence = .none
        if subject.isDirectMember(node.gid) {
            foundGroup = true
            let ev = Evidence.posixEntry(node: n, tag: .groupObj, perms: acl.groupObj, mask: acl.mask)
            firstGroup = ev
            if acl.groupObj.isSuperset(of: want) {
                if acl.groupObj.intersection(mask).isSuperset(of: want) { return finish(.allow(.acl, .linuxGroupEntry, n, ev), asked) }
                return finish(.deny(.EACCES, .acl, .linuxGroupEntry, n, ev), asked)
            }
        }
        for g in acl.groups where subject.isDirectMember(g.id) {
            let ev = Evidence.posixEntry(node: n, tag: .group(g.id), perms: g.perms, mask: acl.mask)
            if !foundGroup { firstGroup = ev }
            foundGroup = true
            if g.perms.isSuperset(of: want) {
                if g.perms.intersection(mask).isSuperset(of: want) { return finish(.allow(.acl, .linuxGroupEntry, n, ev), asked) }
                return finish(.deny(.EACCES, .acl, .linuxGroupEntry, n, ev), asked)
            }
        }
        if foundGroup { return finish(.deny(.EACCES, .acl, .linuxNoGroupEntryCovers, n, firstGroup), asked) }
        let ev = Evidence.posixEntry(node: n, tag: .other, perms: acl.other, mask: nil)
        if acl.other.isSuperset(of: want) { return finish(.allow(.acl, .linuxACLOther, n, ev), asked) }
        return finish(.deny(.EACCES, .acl, .linuxACLOther, n, ev), asked)
    }

    /// What `authorize` means under linux (search checks during lookup, raw right requests).
    mutating func linuxAuthorizeRights(_ n: NodeID, _ r: AccessRights) -> Outcome {
        if r.intersects([.writeSecurity, .takeOwnership]) { return ownerOrRoot(n, r) }
        var want = r.posixFallback
        if r.contains(.execute) { want.insert(.execute) }
        if r.intersects([.delete]) { want.insert(.write) }
        if want.isEmpty { return finish(.allow(.traversal, .linuxStatNeedsSearchOnly, n), r) }
        return linuxPermission(n, want)
    }

    // MARK: Shared checks

    /// `mnt_want_write`: the syscalls that change a name or an inode's attributes take the
    /// mount for writing before any permission check, whatever the node's type, and fail with
    /// EROFS on a read-only file system or a read-only mount.
    mutating func readOnlyCheck(_ n: NodeID) -> Outcome? {
        let node = world[n]
        let vol = world.volumeBits[Int(node.volume)]
        if vol.readOnly {
            return finish(.deny(.EROFS, .volume, .readOnlyVolume, n, .volume(mountPath: world.volumes[Int(node.volume)].mountPath)), [])
        }
        // U1: a read-only path of the service's sandbox is a read-only bind mount.
        if let v = subject.view, let e = v.readOnlyEntry(for: world.path(of: n)) {
            return finish(.deny(.EROFS, .volume, .unitReadOnly, n, .view(node: n, e)), [])
        }
        return nil
    }

    /// `do_dentry_open`: opening a regular file for writing takes the mount for writing after
    /// `may_open` passed (special files are exempt). Only a read-only bind mount gets here: a
    /// read-only file system was refused by `inode_permission`.
    mutating func openForWriteCheck(_ n: NodeID, _ o: Outcome) -> Outcome {
        let node = world[n]
        let vol = world.volumeBits[Int(node.volume)]
        if o.allowed && vol.readOnly && node.type == .file {
            return finish(.deny(.EROFS, .volume, .readOnlyMountOpen, n, .volume(mountPath: world.volumes[Int(node.volume)].mountPath)), .writeData)
        }
        // U2: the same after the checks passed, on a read-only path of the service's sandbox.
        if o.allowed && node.type == .file, let v = subject.view, let e = v.readOnlyEntry(for: world.path(of: n)) {
            return finish(.deny(.EROFS, .volume, .unitReadOnlyOpen, n, .view(node: n, e)), .writeData)
        }
        return o
    }

    /// `do_dentry_open`: once `may_open` passed (`o` allowed), a socket's open is refused with
    /// ENXIO, root included (O9).
    mutating func socketOpen(_ n: NodeID, _ o: Outcome) -> Outcome {
        guard o.allowed && world[n].type == .socket else { return o }
        return finish(.deny(.ENXIO, .type, .openSocket, n, .node(n)), [])
    }

    /// `may_open`: a device node on a `nodev` mount cannot be opened (EACCES), root included.
    mutating func nodevCheck(_ n: NodeID) -> Outcome? {
        let node = world[n]
        if node.type == .device && world.volumeBits[Int(node.volume)].nodev {
            return finish(.deny(.EACCES, .volume, .nodevVolume, n, .volume(mountPath: world.volumes[Int(node.volume)].mountPath)), [])
        }
        return nil
    }

    /// Immutable or append-only blocks attribute changes (`notify_change`), root included.
    mutating func attributeFlags(_ n: NodeID, appendBlocks: Bool = true) -> Outcome? {
        let f = world[n].flags
        let imm = f.intersection(.immutable)
        if !imm.isEmpty { return finish(.deny(.EPERM, .flags, .immutable, n, .flag(node: n, flag: imm)), []) }
        let app = f.intersection(.append)
        if appendBlocks && !app.isEmpty { return finish(.deny(.EPERM, .flags, .appendOnly, n, .flag(node: n, flag: app)), []) }
        return nil
    }

    /// `inode_owner_or_capable`: the owner (the fsuid is the inode's uid), else CAP_FOWNER
    /// (C3); EPERM otherwise.
    mutating func ownerOrRoot(_ n: NodeID, _ r: AccessRights) -> Outcome {
        if world[n].uid == subject.uid { return finish(.allow(.ownership, .linuxOwnerOrFowner, n, .node(n)), r) }
        if subject.has(.fowner) { return finish(.allow(.root, .linuxCapFowner, n, subject.defaultCaps ? .none : .capability(node: n, cap: .fowner, held: true)), r) }
        capabilityMissing(n, .fowner, r)
        return finish(.deny(.EPERM, .ownership, .linuxOwnerOrFowner, n, .node(n)), r)
    }

    /// `inode_owner_or_capable` as a test, without a step.
    func ownerOrFowner(_ n: NodeID) -> Bool { world[n].uid == subject.uid || subject.has(.fowner) }

    /// `chown_common` asks to clear set-user-ID on anything but a directory, and set-group-ID
    /// where `setattr_should_drop_sgid` says (with group `x`; without it, when the caller is
    /// neither in the file's group nor holds CAP_FSETID): that is a mode change, which
    /// `setattr_prepare` grants only to the owner or CAP_FOWNER. So a CAP_CHOWN holder that is
    /// neither is refused (EPERM) on such a file (C4).
    mutating func chownClearsSetID(_ n: NodeID, _ r: AccessRights) -> Outcome? {
        let node = world[n]
        guard !node.isDir, !ownerOrFowner(n) else { return nil }
        let clears = node.mode.isSetuid
            || (node.mode.isSetgid && (node.mode.group.contains(.execute) || (!subject.isDirectMember(node.gid) && !subject.has(.fsetid))))
        guard clears else { return nil }
        capabilityMissing(n, .fowner, r)
        return finish(.deny(.EPERM, .ownership, .linuxChownClearsSetID, n, .node(n)), r)
    }

    /// `may_delete(dir, victim)`.
    mutating func mayDelete(_ dir: NodeID, _ victim: NodeID) -> Outcome {
        let o = linuxPermission(dir, [.write, .execute])
        if !o.allowed { return o }
        let d = world[dir]
        let v = world[victim]
        let dApp = d.flags.intersection(.append)
        if !dApp.isEmpty { return finish(.deny(.EPERM, .flags, .parentAppendOnly, dir, .flag(node: dir, flag: dApp)), .delete) }
        if d.mode.isSticky && !subject.has(.fowner) && v.uid != subject.uid && d.uid != subject.uid {
            return finish(.deny(.EPERM, .sticky, .linuxStickyNotOwner, dir, .sticky(node: dir)), .delete)
        }
        let vImm = v.flags.intersection(.immutable)
        if !vImm.isEmpty { return finish(.deny(.EPERM, .flags, .immutable, victim, .flag(node: victim, flag: vImm)), .delete) }
        let vApp = v.flags.intersection(.append)
        if !vApp.isEmpty { return finish(.deny(.EPERM, .flags, .appendOnly, victim, .flag(node: victim, flag: vApp)), .delete) }
        if d.mode.isSticky {
            // Past the sticky bit through CAP_FOWNER alone (C3): the note names it.
            if !subject.defaultCaps && v.uid != subject.uid && d.uid != subject.uid {
                step(.root, .linuxCapFowner, .note, dir, .delete, [], .capability(node: dir, cap: .fowner, held: true))
            } else {
                step(.sticky, .stickyOwner, .note, dir, .delete, [], .sticky(node: dir))
            }
        }
        return o
    }

    // MARK: fs.protected_* (L12)

    /// `may_follow_link` (fs.protected_symlinks), for the symlink `link` met as the last
    /// component of a walk, in directory `dir`: in a sticky, world-writable directory it is
    /// followed only by its owner or when the directory's owner owns it. The check compares uids
    /// only: root is not exempt. With the sysctl at 0, a note says the check was skipped.
    mutating func mayFollowLink(_ link: NodeID, in dir: NodeID) -> Outcome? {
        let d = world[dir]
        let l = world[link]
        guard d.mode.isSticky && d.mode.other.contains(.write), l.uid != subject.uid, l.uid != d.uid else { return nil }
        let v = world.linux.protectedSymlinks
        let ev = Evidence.tunable(node: link, dir: dir, .protectedSymlinks, value: v)
        if v == 0 {
            step(.sticky, .linuxProtectedSymlinks, .note, link, [], [], ev)
            return nil
        }
        return finish(.deny(.EACCES, .sticky, .linuxProtectedSymlinks, link, ev), [])
    }

    /// `may_create_in_sticky` (fs.protected_regular, fs.protected_fifos): opening the existing
    /// `n` with O_CREAT in the sticky directory `dir` is refused (EACCES) when neither the
    /// caller nor the directory's owner owns it and the directory is world-writable (value 1 or
    /// 2) or group-writable (value 2). Sockets and devices are refused in a world-writable sticky
    /// directory whatever the values. Uids only: root is not exempt.
    mutating func mayCreateInSticky(_ n: NodeID, in dir: NodeID) -> Outcome? {
        let d = world[dir]
        let node = world[n]
        guard d.mode.isSticky, node.uid != d.uid, node.uid != subject.uid else { return nil }
        let worldWritable = d.mode.other.contains(.write)
        let groupWritable = d.mode.group.contains(.write)
        let tunable: LinuxTunable
        let rule: RuleID
        switch node.type {
        case .file: tunable = .protectedRegular; rule = .linuxProtectedRegular
        case .fifo: tunable = .protectedFifos; rule = .linuxProtectedFifos
        default:
            if worldWritable { return finish(.deny(.EACCES, .sticky, .linuxStickyCreateOther, dir, .sticky(node: dir)), .writeData) }
            return nil
        }
        // The smallest value of the sysctl that refuses here, if any.
        let refusesFrom: UInt8? = worldWritable ? 1 : groupWritable ? 2 : nil
        guard let from = refusesFrom else { return nil }
        let v = world.linux[tunable]
        let ev = Evidence.tunable(node: n, dir: dir, tunable, value: v)
        if v >= from { return finish(.deny(.EACCES, .sticky, rule, n, ev), .writeData) }
        step(.sticky, rule, .note, n, .writeData, .writeData, ev)
        return nil
    }

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
                if let o = readOnlyCheck(res.parent) { return o }
                return linuxPermission(res.parent, [.write, .execute])
            }
        case .delete:
            switch resolveNamed(r.path, followTrailing: false) {
            case .failure(let o): return o
            case .success(let res):
                guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
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
        case .rename: return linuxRename(r)
        case .link: return linuxLink(r)
        case .modify: return decideModify(r)
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
        case .chmod, .settimes, .writeattr, .setacl:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            return ownerOrRoot(n, r.op == .chmod || r.op == .setacl ? .writeSecurity : .writeAttributes)
        case .touch:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n, appendBlocks: false) { return o }
            if ownerOrFowner(n) { return ownerOrRoot(n, .writeAttributes) }
            step(.mode, .linuxTouchNeedsWrite, .note, n, .writeAttributes, .writeAttributes, .node(n))
            return linuxPermission(n, .write)
        case .chown, .lchown:
            if let o = readOnlyCheck(n) { return o }
            if let o = attributeFlags(n) { return o }
            let u = r.owner ?? node.uid
            // chown_ok: the owner "changing" to itself, else CAP_CHOWN (C4).
            if u == node.uid && node.uid == subject.uid { return finish(.allow(.ownership, .nothingToChange, n, .node(n)), []) }
            if subject.has(.chown) {
                if let o = chownClearsSetID(n, .takeOwnership) { return o }
                return finish(.allow(.root, .linuxChownNeedsCap, n, subject.defaultCaps ? .none : .capability(node: n, cap: .chown, held: true)), .takeOwnership)
            }
            capabilityMissing(n, .chown, .takeOwnership)
            return finish(.deny(.EPERM, .ownership, .linuxChownNeedsCap, n, .node(n)), .takeOwnership)
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
                return finish(.allow(.root, .linuxChownNeedsCap, n, subject.defaultCaps ? .none : .capability(node: n, cap: .chown, held: true)), .writeSecurity)
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
        if node.type == .fifo || node.type == .device {
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
            return finish(.deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable, n, .flag(node: n, flag: changed.intersection([.systemImmutable, .systemAppend]))), .writeSecurity)
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
