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
}
