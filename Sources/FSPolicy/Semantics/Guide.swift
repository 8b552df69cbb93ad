/// `semantics: guide` — the File System Programming Guide's seven steps, literally
/// (docs/semantics.md, rules G1–G9): sandbox → ignore ownership (allows) → ACL → flags →
/// owner → group → other. Root is allowed after the flags (the guide's ACL algorithm puts root
/// right after "read-only or immutable"). Every point where this can answer differently from
/// macos records a `guide.*` rule in the trace.
extension Eval {
    mutating func guideAuthorize(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome {
        // G0 (interpretation) a read-only or noexec volume refuses first, as under macos.
        if let o = volumeCheck(n, rights) { return o }
        // G2 ignore ownership: "the request is allowed".
        if world.volumeBits[Int(world[n].volume)].ignoreOwnership {
            let vol = world.volumes[Int(world[n].volume)]
            return finish(.allow(.ownership, .guideIgnoreOwnershipAllows, n, .volume(mountPath: vol.mountPath)), rights)
        }
        var r = rights
        if r.contains(.delete) {
            let d = guideDelete(n, parent: p, noImmutable: noImmutable)
            if !d.allowed { return d }
            r.remove(.delete)
            if r.subtracting([.linkTarget, .checkImmutable]).isEmpty { return d }
        }
        return guideSimple(n, r, noImmutable: noImmutable)
    }

    /// Adds the `guide.acl-before-flags` note when an ACL step allowed something the flags
    /// would have refused (macos checks flags first).
    mutating func guideFlagsWouldDeny(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool, _ o: Outcome) -> Outcome {
        var flagged: (NodeID, FileFlags)? = nil
        if let f = blockingFlag(n, rights, noImmutable: noImmutable) {
            flagged = (n, f)
        } else if rights.contains(.delete) && p >= 0, let f = blockingFlag(p, .deleteChild, noImmutable: false) {
            flagged = (p, f)
        }
        guard let (fn, f) = flagged else { return o }
        step(.flags, .guideACLBeforeFlags, .note, fn, rights, [], .flag(node: fn, flag: f))
        var out = o
        out.rule = .guideACLBeforeFlags
        return out
    }

    mutating func guideSimple(_ n: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome {
        let node = world[n]
        let isOwner = node.uid == subject.uid
        var residual = rights.subtracting([.linkTarget, .checkImmutable])
        let acl = world.acl(of: n)
        let hasACEs = world.volumeBits[Int(node.volume)].acls && !(acl?.isEmpty ?? true)
        // G3 the ACL algorithm (only when the file has ACEs).
        if hasACEs {
            // Its step 3: the owner always has the rights to read and write the security information.
            if isOwner && residual.intersects([.readSecurity, .writeSecurity]) {
                let before = residual
                residual.subtract([.readSecurity, .writeSecurity])
                step(.ownership, .guideOwnerSecurityRights, residual.isEmpty ? .allow : .defer, n, before, residual, .node(n))
                if residual.isEmpty {
                    return guideFlagsWouldDeny(
                        n, parent: -1, rights, noImmutable: noImmutable,
                        .allow(.ownership, .guideOwnerSecurityRights, n, .node(n)))
                }
            }
            switch evaluateACL(n, residual, owner: node.uid, group: node.gid, guideOrder: true) {
            case .allow(let ev):
                var o = Outcome.allow(.acl, acl!.isCanonical ? .aclAllowComplete : .guideACLStatedOrder, n, ev)
                if residual.contains(.execute) && node.type == .file && !node.mode.anyExecute {
                    step(.acl, .guideACLExecuteWithoutX, .note, n, .execute, [], ev)
                    o.rule = .guideACLExecuteWithoutX
                }
                return guideFlagsWouldDeny(n, parent: -1, rights, noImmutable: noImmutable, o)
            case .deny(let ev):
                return Outcome.deny(.EACCES, .acl, acl!.isCanonical ? .aclDenyMatched : .guideACLStatedOrder, n, ev)
            case .defer(let rest):
                residual = rest
            case .absent:
                break
            }
        } else {
            step(.acl, acl == nil ? .aclNone : .aclEmpty, .note, n, residual, residual, .node(n))
        }
        // G4 flags.
        if let o = flagsCheck(n, parent: -1, rights, noImmutable: noImmutable) { return o }
        if residual.isEmpty { return finish(.allow(.flags, .flagsNotBlocking, n), rights) }
        // Root (the ACL algorithm's step 2; the "root user" section: any file, any operation).
        if subject.isRoot {
            if residual.contains(.execute) && node.type == .file && !node.mode.anyExecute {
                return finish(.allow(.root, .guideRootExecutesAnything, n, .node(n)), residual)
            }
            return finish(.allow(.root, .guideRootAfterFlags, n), residual)
        }
        // G5–G7 owner, group, other. The owner may change the permissions of what it owns.
        if isOwner && residual.contains(.writeSecurity) {
            let before = residual
            residual.remove(.writeSecurity)
            step(.ownership, .ownerWriteSecurity, residual.isEmpty ? .allow : .defer, n, before, residual, .node(n))
            if residual.isEmpty { return .allow(.ownership, .ownerWriteSecurity, n, .node(n)) }
        }
        let o = residualToMode(n, residual, owner: node.uid, group: node.gid)
        if !o.allowed && isOwner && residual.contains(.writeAttributes) {
            step(.ownership, .guideNoOwnerWriteAttr, .note, n, .writeAttributes, .writeAttributes, .node(n))
            var d = o
            d.rule = .guideNoOwnerWriteAttr
            return d
        }
        return o
    }

    /// Delete as the guide describes it: the object's ACEs, then the directory's (step 3),
    /// the flags (step 4), root, then the directory's w bit and the sticky bit (tables B-3, B-4).
    mutating func guideDelete(_ n: NodeID, parent p: NodeID, noImmutable: Bool) -> Outcome {
        let node = world[n]
        switch evaluateACL(n, .delete, owner: node.uid, group: node.gid, guideOrder: true) {
        case .allow(let ev):
            return guideFlagsWouldDeny(
                n, parent: p, .delete, noImmutable: noImmutable,
                retag(.allow(.acl, .deleteNodeACEAllow, n, ev)))
        case .deny(let ev): return retag(.deny(.EACCES, .acl, .deleteNodeACEDeny, n, ev))
        default: break
        }
        if p >= 0 {
            let parent = world[p]
            switch evaluateACL(p, .deleteChild, owner: parent.uid, group: parent.gid, guideOrder: true) {
            case .allow(let ev):
                return guideFlagsWouldDeny(
                    n, parent: p, .delete, noImmutable: noImmutable,
                    retag(.allow(.acl, .deleteParentACEAllow, p, ev)))
            case .deny(let ev): return retag(.deny(.EACCES, .acl, .deleteParentACEDeny, p, ev))
            default: break
            }
        }
        if let o = flagsCheck(n, parent: p, .delete, noImmutable: noImmutable) { return o }
        if subject.isRoot { return finish(.allow(.root, .guideRootAfterFlags, n), .delete) }
        guard p >= 0 else { return finish(.allow(.mode, .deleteParentWrite, n), .delete) }
        let parent = world[p]
        return parentWriteAndSticky(n, parent: p, owner: node.uid, parentOwner: parent.uid, parentGroup: parent.gid)
    }
}
