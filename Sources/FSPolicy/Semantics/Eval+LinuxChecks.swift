// Linux checks the operations share: read-only mounts, open for write, ownership, `may_delete`, fs.protected_* (L12).

extension Eval {
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
        if node.type.isDevice && world.volumeBits[Int(node.volume)].nodev {
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
        if subject.has(.fowner) {
            return finish(.allow(.root, .linuxCapFowner, n, subject.defaultCaps ? .none : .capability(node: n, cap: .fowner, held: true)), r)
        }
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
        guard chownClearsBits(n), !ownerOrFowner(n) else { return nil }
        capabilityMissing(n, .fowner, r)
        return finish(.deny(.EPERM, .ownership, .linuxChownClearsSetID, n, .node(n)), r)
    }

    /// Whether a chown of `n` by the caller clears a bit: setuid on anything but a directory,
    /// setgid where `setattr_should_drop_sgid` says (group `x`, or a caller neither in the
    /// file's group nor holding CAP_FSETID).
    func chownClearsBits(_ n: NodeID) -> Bool {
        let node = world[n]
        guard !node.isDir else { return false }
        return node.mode.isSetuid
            || (node.mode.isSetgid && (node.mode.group.contains(.execute) || (!subject.isDirectMember(node.gid) && !subject.has(.fsetid))))
    }

    /// `may_delete(dir, victim)`.
    mutating func mayDelete(_ dir: NodeID, _ victim: NodeID) -> Outcome {
        let o = linuxPermission(dir, [.write, .execute])
        if !o.allowed { return o }
        let d = world[dir]
        // A name something is mounted over in a service's view: the kernel checks the inode
        // under the mount, which the view keeps (U5).
        let v = world.underneath[victim] ?? world[victim]
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
}
