// Checks the rule sets share: the caller's view of owner and group, volume, flags, ACL, mode bits.

extension Eval {
    // MARK: Shared pieces

    /// Owner and group of `n` as the caller sees them (`vnode_attr_handle_uid_and_gid`):
    /// ignore-ownership volumes and uid/gid 99 are rewritten for non-root callers.
    mutating func view(_ n: NodeID, record: Bool) -> (uid: UID, gid: GID) {
        let node = world[n]
        if subject.isRoot || sem != .macos { return (node.uid, node.gid) }
        var uid = node.uid
        var gid = node.gid
        let vol = world.volumeBits[Int(node.volume)]
        if vol.ignoreOwnership {
            uid = vol.fsOwner ?? WellKnown.unknownID
            gid = vol.fsGroup ?? WellKnown.unknownID
        }
        if uid == WellKnown.unknownID { uid = subject.uid }
        if gid == WellKnown.unknownID { gid = subject.gid }
        if record && (uid != node.uid || gid != node.gid) {
            let rule: RuleID = vol.ignoreOwnership ? .ignoreOwnership : .unknownOwner99
            step(
                .ownership, rule, .note, n, [], [],
                .identity(node: n, uid: uid, gid: gid, fromUID: node.uid, fromGID: node.gid))
        }
        return (uid, gid)
    }

    /// Read-only volume and noexec, the first checks of `vnode_authorize_callback_int`.
    mutating func volumeCheck(_ n: NodeID, _ rights: AccessRights) -> Outcome? {
        let node = world[n]
        let vol = world.volumeBits[Int(node.volume)]
        if vol.readOnly || (vol.noexec && rights.contains(.execute)) {
            return volumeCheckSlow(n, rights)
        }
        return nil
    }

    mutating func volumeCheckSlow(_ n: NodeID, _ rights: AccessRights) -> Outcome? {
        let node = world[n]
        let vol = world.volumes[Int(node.volume)]
        if vol.readOnly || vol.readOnlyMount {
            let writes = rights.intersects(AccessRights.writeRights)
            let fsType = node.type == .file || node.type == .dir || node.type == .symlink
            if (writes && fsType) || rights.intersects([.delete, .deleteChild]) {
                return finish(.deny(.EROFS, .volume, .readOnlyVolume, n, .volume(mountPath: vol.mountPath)), rights)
            }
        }
        if vol.noexec && rights.contains(.execute) && node.type == .file {
            return finish(.deny(.EACCES, .volume, .noexecVolume, n, .volume(mountPath: vol.mountPath)), rights)
        }
        return nil
    }

    /// `vnode_authorize_checkimmutable`: a write right on an immutable or append-only node
    /// is EPERM, root included. Returns the blocking flag, or nil.
    func blockingFlag(_ n: NodeID, _ rights: AccessRights, noImmutable: Bool) -> FileFlags? {
        let node = world[n]
        var w = rights.intersection(AccessRights.writeRights)
        if node.type == .socket || node.type == .fifo || node.type.isDevice { w.remove(.writeData) }
        if w.isEmpty || node.flags.isEmpty { return nil }
        let exempt: AccessRights =
            node.isDir
            ? [.addFile, .addSubdirectory, .writeExtAttributes]
            : [.appendData, .writeExtAttributes]
        var mask: FileFlags = w.isSubset(of: exempt) ? FileFlags.immutable : FileFlags.immutable.union(.append)
        if noImmutable {
            if world.securelevel <= 0 { mask = [] } else { mask.subtract([.userImmutable, .userAppend]) }
        }
        let hit = node.flags.intersection(mask)
        if hit.isEmpty { return nil }
        let imm = hit.intersection(.immutable)
        return imm.isEmpty ? FileFlags(rawValue: hit.rawValue & (0 &- hit.rawValue)) : FileFlags(rawValue: imm.rawValue & (0 &- imm.rawValue))
    }

    mutating func flagsCheck(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome? {
        if let f = blockingFlag(n, rights, noImmutable: noImmutable) {
            let rule: RuleID = f.isSubset(of: .immutable) ? .immutable : .appendOnly
            return finish(.deny(.EPERM, .flags, rule, n, .flag(node: n, flag: f)), rights)
        }
        if rights.contains(.delete) && p >= 0, let f = blockingFlag(p, .deleteChild, noImmutable: false) {
            let rule: RuleID = f.isSubset(of: .immutable) ? .parentImmutable : .parentAppendOnly
            return finish(.deny(.EPERM, .flags, rule, p, .flag(node: p, flag: f)), rights)
        }
        return nil
    }

    enum ACLResult {
        case absent
        case allow(Evidence)
        case deny(Evidence)
        /// Rights still ungranted after the whole list.
        case `defer`(AccessRights)
    }

    /// `kauth_acl_evaluate`: walk the ACEs in `order`; an allow removes its rights from the
    /// residual, a deny naming any requested right denies at once.
    mutating func evaluateACL(_ n: NodeID, _ requested: AccessRights, owner: UID, group: GID, guideOrder: Bool) -> ACLResult {
        let node = world[n]
        guard node.acl >= 0 else { return .absent }
        if !world.volumeBits[Int(node.volume)].acls {
            let vol = world.volumes[Int(node.volume)]
            step(.acl, .aclDisabled, .note, n, requested, requested, .volume(mountPath: vol.mountPath))
            return .absent
        }
        let acl = world.acls[Int(node.acl)]
        if tracing && world.mappedACLNodes.contains(n) {
            let note = "the ACL of \(world.path(of: n)) is a POSIX ACL mapped to ACEs for this rule set; the mapping is lossy (docs/semantics.md, L11)"
            if !notes.contains(note) { notes.append(note) }
        }
        if acl.isEmpty {
            step(.acl, .aclEmpty, .defer, n, requested, requested, .node(n))
            return .defer(requested)
        }
        var residual = requested
        let stated = guideOrder && !acl.isCanonical
        var k = 0
        let count = acl.entries.count
        let order = stated ? acl.guideOrder : []
        while k < count {
            let idx = stated ? order[k] : k
            k += 1
            let ace = acl.entries[idx]
            if ace.flags.contains(.onlyInherit) {
                if tracing && (ace.kind == .allow ? ace.rights.intersects(residual) : ace.rights.intersects(requested))
                    && applies(ace.subject, owner: owner, group: group)
                {
                    step(.acl, .aclOnlyInheritSkipped, .note, n, residual, residual, .ace(node: n, index: idx, ace: ace))
                }
                continue
            }
            switch ace.kind {
            case .allow:
                if !ace.rights.intersects(residual) { continue }
                if !applies(ace.subject, owner: owner, group: group) { continue }
                let before = residual
                residual.subtract(ace.rights)
                let ev = Evidence.ace(node: n, index: idx, ace: ace)
                if residual.isEmpty {
                    step(.acl, stated ? .guideACLStatedOrder : .aclAllowComplete, .allow, n, before, [], ev)
                    return .allow(ev)
                }
                step(.acl, .aclPartial, .defer, n, before, residual, ev)
            case .deny:
                if !ace.rights.intersects(requested) { continue }
                if !applies(ace.subject, owner: owner, group: group) { continue }
                let ev = Evidence.ace(node: n, index: idx, ace: ace)
                step(.acl, stated ? .guideACLStatedOrder : .aclDenyMatched, .deny, n, residual, residual, ev)
                return .deny(ev)
            }
        }
        step(.acl, residual == requested ? .aclNoMatch : .aclPartial, .defer, n, requested, residual, .node(n))
        return .defer(residual)
    }

    @inline(__always)
    func applies(_ s: ACESubject, owner: UID, group: GID) -> Bool {
        switch s {
        case .user(let u): return u == subject.uid
        case .group(let g): return subject.isMember(g)
        case .everyone: return true
        case .owner: return owner == subject.uid
        case .owningGroup: return subject.isMember(group)
        }
    }

    /// Best-match class: owner bits for the owner, else group bits for a member of the owning
    /// group, else other bits (`vnode_authorize_posix`).
    func modeClass(_ mode: FileMode, owner: UID, group: GID) -> (ModeClass, RWX) {
        if owner == subject.uid { return (.owner, mode.owner) }
        if subject.isMember(group) { return (.group, mode.group) }
        return (.other, mode.other)
    }

    /// Checks `bits` against one mode class of `n`.
    mutating func modeCheck(_ n: NodeID, _ bits: RWX, owner: UID, group: GID, requested: AccessRights) -> Outcome {
        let (cls, has) = modeClass(world[n].mode, owner: owner, group: group)
        let ev = Evidence.mode(node: n, cls: cls, needed: bits, has: has)
        if has.isSuperset(of: bits) {
            let rule: RuleID = cls == .owner ? .ownerBitsGrant : cls == .group ? .groupBitsGrant : .otherBitsGrant
            return finish(.allow(.mode, rule, n, ev), requested)
        }
        let rule: RuleID = cls == .owner ? .ownerBitsMissing : cls == .group ? .groupBitsMissing : .otherBitsMissing
        return finish(.deny(.EACCES, .mode, rule, n, ev), requested)
    }
}
