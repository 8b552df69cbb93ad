// Search permission on a directory of a path, and the quick answers that skip the full check.

extension Eval {
    /// Search permission on one directory of a path. Returns the denial, or nil. A sandboxed
    /// app's lookup check comes after the DAC search under macos, before it under guide.
    mutating func searchCheck(_ dir: NodeID) -> Outcome? {
        if !tracing && appBox == nil, let quick = quickSearch(dir) {
            switch quick {
            case .granted: return nil
            case .refused(let ev):
                // The refusal the general path gives (EACCES from the mode class below), built
                // without walking the layers to it.
                return Outcome.deny(.EACCES, .traversal, .searchDenied, dir, ev)
            }
        }
        if appBox != nil && sem == .guide, let d = sandboxLookup(dir) { return d }
        if tracing && sem == .linux && tracedSearchShortcut, let ev = linuxTracedSearch(dir) {
            step(.traversal, .searchGranted, .allow, dir, .search, [], ev)
            return nil
        }
        let mark = trace.count
        depth += 1
        let o = authorize(dir, parent: -1, .search, noImmutable: false)
        depth -= 1
        if o.allowed {
            if tracing {
                // The steps of the check, one or two, replaced by one (`removeSubrange` costs
                // a generic replacement on every directory of a traced path).
                while trace.count > mark { trace.removeLast() }
                step(.traversal, .searchGranted, .allow, dir, .search, [], o.evidence)
            }
            if appBox != nil && sem == .macos, let d = sandboxLookup(dir) { return d }
            return nil
        }
        let d = Outcome.deny(o.errno ?? .EACCES, .traversal, .searchDenied, dir, o.evidence)
        step(.traversal, .searchDenied, .deny, dir, .search, .search, o.evidence)
        return d
    }

    /// Under linux, the evidence of a non-root caller's search of a directory with no ACL of
    /// either kind, when its mode bits grant it: what `authorize(dir, .search)` finds on its way
    /// (`linuxAuthorizeRights` → `linuxPermission` → `linuxDAC`: the owner's bits for the owner,
    /// else the group's for a direct member, else the others'), without the steps it records and
    /// `searchCheck` then replaces by one. Nil whenever the layers must decide (root, an ACL,
    /// bits without x). A traced path walk makes one step per ancestor this way instead of
    /// evaluating each (`SearchShortcutTests` compares traced decisions with and without it).
    @inline(__always)
    func linuxTracedSearch(_ dir: NodeID) -> Evidence? {
        let node = world[dir]
        guard !subject.isRoot, node.acl < 0, node.posixACL < 0 else { return nil }
        let (cls, has) = searchClass(node)
        return has.contains(.execute) ? .mode(node: dir, cls: cls, needed: .execute, has: has) : nil
    }

    /// The caller searches every directory whatever its bits: root under macos and guide (M5),
    /// a process with CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE under linux (C1, C2).
    @inline(__always)
    var searchBypass: Bool {
        sem == .linux ? subject.caps.rawValue & Capabilities.searchAny.rawValue != 0 : subject.isRoot
    }

    /// What a search-check shortcut found: a grant, or the refusal of the caller's mode class
    /// with the evidence the general path gives for it (`modeCheck`'s).
    enum QuickSearch: Equatable {
        case granted
        case refused(Evidence)
    }

    /// The common case of a search check, answered from the mode bits alone: no ACL to read,
    /// no identity rewrite, no Data Protection. It gives the same answer as `authorize`
    /// (search is not a write, so read-only volumes and flags never matter; noexec only
    /// concerns files), a refusal with the same evidence; nil when the general path must
    /// decide. Directories with an ACL go to `quickSearchACL`.
    @inline(__always)
    func quickSearch(_ dir: NodeID) -> QuickSearch? {
        let node = world[dir]
        if node.acl >= 0 || node.posixACL >= 0 { return quickSearchACL(dir) }
        guard node.protection == .unspecified else { return nil }
        // x for every class: granted whoever asks and whichever class an identity rewrite picks
        // (the same test as the walk's inline loop, `checkAncestors`).
        if searchBypass || node.mode.rawValue & 0o111 == 0o111 { return .granted }
        let vol = world.volumeBits[Int(node.volume)]
        switch sem {
        case .macos:
            if vol.ignoreOwnership || node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID { return nil }
        case .guide:
            if vol.ignoreOwnership { return nil }
        case .linux:
            break
        }
        return modeGrantsSearch(node, dir)
    }

    /// The x bit of the caller's mode class (owner, else group — direct membership under
    /// linux — else other) of `dir`: granted when it is set, else the class's refusal.
    @inline(__always)
    func modeGrantsSearch(_ node: Node, _ dir: NodeID) -> QuickSearch {
        let (cls, bits) = searchClass(node)
        return bits.contains(.execute) ? .granted : .refused(.mode(node: dir, cls: cls, needed: .execute, has: bits))
    }

    /// The caller's mode class of `node` and its bits, as a search check reads them: the owner,
    /// else the group (a direct member under linux, nested membership counting elsewhere), else
    /// the others.
    @inline(__always)
    func searchClass(_ node: Node) -> (ModeClass, RWX) {
        if node.uid == subject.uid { return (.owner, node.mode.owner) }
        if sem == .linux ? subject.isDirectMember(node.gid) : subject.isMember(node.gid) { return (.group, node.mode.group) }
        return (.other, node.mode.other)
    }

    /// `quickSearch` for a directory with an ACL, under macos (its ACEs, then the mode: M5, M8,
    /// M9 for the single right `search`) and linux (`acl_permission_check` for `x`). Same rules as
    /// `macSimple`/`evaluateACL` and `linuxDAC`/`posixACLPermission`, reduced to one right and
    /// to the grant, or to the mode bits' refusal when no entry decided: nil whenever an entry
    /// could refuse or the case is not plain (guide, an identity rewrite, Data Protection, ACLs
    /// off on the volume, the other kind of ACL).
    /// `SearchShortcutTests` checks it against `authorize` on every directory of random worlds.
    func quickSearchACL(_ dir: NodeID) -> QuickSearch? {
        let node = world[dir]
        guard node.protection == .unspecified, sem != .guide else { return nil }
        let vol = world.volumeBits[Int(node.volume)]
        guard vol.acls else { return nil }
        if sem == .macos {
            guard node.posixACL < 0 else { return nil }
            // M5: root may search any directory (the x-bit rule is for files).
            if subject.isRoot { return .granted }
            if vol.ignoreOwnership || node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID { return nil }
            // M8: the first ACE (stored order, inherit-only ones skipped) that names `search`
            // and applies decides; a deny means the general path must explain the refusal.
            for ace in world.acls[Int(node.acl)].entries where !ace.flags.contains(.onlyInherit) && ace.rights.contains(.search) {
                if applies(ace.subject, owner: node.uid, group: node.gid) { return ace.kind == .allow ? .granted : nil }
            }
        } else {
            guard node.acl < 0 else { return nil }
            // CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE: search any directory (C1, C2).
            if searchBypass { return .granted }
            if node.uid == subject.uid { return node.mode.owner.contains(.execute) ? .granted : nil }
            if !node.mode.group.isEmpty {
                // posix_acl_permission: a named user entry, else the group entries (any one that
                // grants, masked), else other.
                let acl = world.posixACLs[Int(node.posixACL)]
                let mask = acl.mask ?? .all
                for u in acl.users where u.id == subject.uid {
                    return u.perms.intersection(mask).contains(.execute) ? .granted : nil
                }
                var inGroupClass = false
                if subject.isDirectMember(node.gid) {
                    inGroupClass = true
                    if acl.groupObj.contains(.execute) { return mask.contains(.execute) ? .granted : nil }
                }
                for g in acl.groups where subject.isDirectMember(g.id) {
                    inGroupClass = true
                    if g.perms.contains(.execute) { return mask.contains(.execute) ? .granted : nil }
                }
                if inGroupClass { return nil }
                return acl.other.contains(.execute) ? .granted : nil
            }
        }
        // No ACE decided (macos), or the group class is `---` so the ACL is skipped (linux):
        // the mode bits, as for a directory without an ACL.
        return modeGrantsSearch(node, dir)
    }
}
