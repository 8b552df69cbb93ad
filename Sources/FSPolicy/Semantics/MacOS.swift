/// `semantics: macos` — XNU's order (docs/semantics.md, rules M1–M9):
/// read-only volume → noexec → root's read fast path → flags on the node (and the parent for
/// delete) → root → delete logic → owner's writesecurity → ACL in stored order → owner's
/// writeattr → residual rights to one mode class.
extension Eval {
    mutating func macAuthorize(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome {
        // M1, M2 (vnode_authorize_callback_int L10186, L10198)
        if let o = volumeCheck(n, rights) { return o }
        // M3 root fast path (L10239): nothing to execute, nothing to write.
        if subject.isRoot && !rights.intersects(AccessRights.writeRights.union(.execute)) {
            return finish(.allow(.root, .rootReadFastPath, n), rights)
        }
        let (ouid, ogid) = view(n, record: true)
        // M4 immutability of the node, then of the parent for delete (vnode_attr_authorize_internal)
        if let o = flagsCheck(n, parent: p, rights, noImmutable: noImmutable) { return o }
        let r = rights.subtracting([.linkTarget, .checkImmutable])
        if r.isEmpty { return finish(.allow(.flags, .flagsNotBlocking, n), rights) }
        // M5 root: allowed, except executing a file with no x bit.
        if subject.isRoot {
            if r.contains(.execute) && world[n].type == .file && !world[n].mode.anyExecute {
                return finish(.deny(.EPERM, .root, .rootExecNeedsX, n, .mode(node: n, cls: .owner, needed: .execute, has: [])), r)
            }
            return finish(.allow(.root, .rootAllowed, n), r)
        }
        // M6 delete (vnode_authorize_delete)
        if r.contains(.delete) {
            let d = macDelete(n, parent: p, owner: ouid)
            if !d.allowed || r == .delete { return d }
        }
        // M7–M9 everything else (vnode_authorize_simple)
        return macSimple(n, r, owner: ouid, group: ogid, preauthorized: r.contains(.delete) ? .delete : [])
    }

    /// `vnode_authorize_delete`: node ACE > parent ACE > parent w bit > sticky bit.
    mutating func macDelete(_ n: NodeID, parent p: NodeID, owner ouid: UID) -> Outcome {
        let (_, ogid) = view(n, record: false)
        switch evaluateACL(n, .delete, owner: ouid, group: ogid, guideOrder: false) {
        case .allow(let ev): return retag(.allow(.acl, .deleteNodeACEAllow, n, ev))
        case .deny(let ev): return retag(.deny(.EACCES, .acl, .deleteNodeACEDeny, n, ev))
        default: break
        }
        guard p >= 0 else { return finish(.allow(.mode, .deleteParentWrite, n), .delete) }
        let (puid, pgid) = view(p, record: true)
        switch evaluateACL(p, .deleteChild, owner: puid, group: pgid, guideOrder: false) {
        case .allow(let ev): return retag(.allow(.acl, .deleteParentACEAllow, p, ev))
        case .deny(let ev): return retag(.deny(.EACCES, .acl, .deleteParentACEDeny, p, ev))
        default: break
        }
        return parentWriteAndSticky(n, parent: p, owner: ouid, parentOwner: puid, parentGroup: pgid)
    }

    /// Delete's last two steps, shared by macos and guide: the parent's w bit for the caller's
    /// class, then the sticky bit (EACCES unless the caller owns the file or the directory).
    mutating func parentWriteAndSticky(_ n: NodeID, parent p: NodeID, owner ouid: UID, parentOwner puid: UID, parentGroup pgid: GID) -> Outcome {
        let (cls, has) = modeClass(world[p].mode, owner: puid, group: pgid)
        let ev = Evidence.mode(node: p, cls: cls, needed: .write, has: has)
        if !has.contains(.write) {
            return finish(.deny(.EACCES, .mode, .deleteParentWriteMissing, p, ev), .delete)
        }
        step(.mode, .deleteParentWrite, .defer, p, .delete, .delete, ev)
        if world[p].mode.isSticky {
            if ouid != subject.uid && puid != subject.uid {
                return finish(.deny(.EACCES, .sticky, .stickyNotOwner, p, .sticky(node: p)), .delete)
            }
            return finish(.allow(.sticky, .stickyOwner, p, .sticky(node: p)), .delete)
        }
        return finish(.allow(.mode, .deleteParentWrite, p, ev), .delete)
    }

    /// `vnode_authorize_simple`.
    mutating func macSimple(
        _ n: NodeID, _ rights: AccessRights, owner ouid: UID, group ogid: GID,
        preauthorized: AccessRights
    ) -> Outcome {
        var r = rights
        let isOwner = ouid == subject.uid
        // M7 the owner's writesecurity is removed before the ACL: no ACE can take it away.
        if isOwner && r.contains(.writeSecurity) {
            r.remove(.writeSecurity)
            step(.ownership, .ownerWriteSecurity, r.isEmpty ? .allow : .defer, n, rights, r, .node(n))
        }
        if r.contains(.takeOwnership) && r.contains(.writeSecurity) { r.remove(.writeSecurity) }
        if r.isEmpty { return Outcome.allow(.ownership, .ownerWriteSecurity, n, .node(n)) }
        // M8 the ACL, in stored order.
        var residual = r
        var lastLayer = Outcome.allow(.acl, .aclAllowComplete, n)
        switch evaluateACL(n, r, owner: ouid, group: ogid, guideOrder: false) {
        case .allow(let ev):
            return Outcome.allow(.acl, .aclAllowComplete, n, ev)
        case .deny(let ev):
            return Outcome.deny(.EACCES, .acl, .aclDenyMatched, n, ev)
        case .defer(let rest):
            residual = rest
        case .absent:
            step(.acl, .aclNone, .note, n, r, r, .node(n))
        }
        residual.subtract(preauthorized)
        if residual.isEmpty { return finish(lastLayer, r) }
        // M9 the owner's writeattr comes after the ACL: an ACE can deny it.
        if isOwner && residual.contains(.writeAttributes) {
            let before = residual
            residual.remove(.writeAttributes)
            lastLayer = .allow(.ownership, .ownerWriteAttr, n, .node(n))
            step(.ownership, .ownerWriteAttr, residual.isEmpty ? .allow : .defer, n, before, residual, .node(n))
            if residual.isEmpty { return lastLayer }
        }
        return residualToMode(n, residual, owner: ouid, group: ogid)
    }

    /// Rights left by the ACL go to one mode class. `writesecurity` and `chown` never come from
    /// mode bits; `readattr` and `readsecurity` have no bit and are granted.
    mutating func residualToMode(_ n: NodeID, _ residual: AccessRights, owner: UID, group: GID) -> Outcome {
        if residual.contains(.takeOwnership) {
            return finish(.deny(.EACCES, .mode, .neverTakeOwnership, n, .node(n)), residual)
        }
        if residual.contains(.writeSecurity) {
            return finish(.deny(.EACCES, .mode, .neverWriteSecurity, n, .node(n)), residual)
        }
        let bits = residual.posixFallback
        if bits.isEmpty { return finish(.allow(.mode, .unmappedGranted, n, .node(n)), residual) }
        return modeCheck(n, bits, owner: owner, group: group, requested: residual)
    }
}
