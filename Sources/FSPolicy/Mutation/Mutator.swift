/// What a step did.
public struct StepOutcome: Sendable {
    /// The authorization decision (the step is applied only when allowed).
    public var decision: Decision
    public var applied: Bool
    /// The node created (create, mkdir, link).
    public var created: NodeID?
    /// Nodes whose attributes or ACL changed.
    public var changed: [NodeID] = []
}

/// Applies steps to a world: each request is authorized first, then performed with the rule
/// set's creation and attribute semantics (docs/inheritance.md).
public enum Mutator {
    public static func apply(_ r: Request, to world: inout World, semantics: Semantics, tracing: Bool = true) -> StepOutcome {
        let decision = Authorizer(world: world, semantics: semantics, tracing: tracing).decide(r)
        var out = StepOutcome(decision: decision, applied: false)
        guard decision.allowed else { return out }
        out.applied = true
        let walk = world.resolveUnchecked(r.path, followTrailing: r.op.followsTrailingSymlink && !(r.op == .link && semantics == .linux))
        switch r.op {
        case .create, .mkdir, .creat:
            // creat on an existing name opens it: nothing changes.
            guard let parent = walk.parent, walk.node == nil else { return out }
            let id = create(in: parent, name: walk.name, type: r.op == .mkdir ? .dir : .file, request: r, world: &world, semantics: semantics)
            // D5: a new regular file takes the class it was created with (not under linux).
            if (r.op == .create || r.op == .creat) && semantics != .linux,
                let (cls, _) = world.newFileProtection(in: parent, app: r.app.flatMap { world.apps.indices.contains($0) ? world.apps[$0] : nil })
            {
                world.setProtection(cls, open: false, on: id)
            }
            out.created = id
        case .open:
            // O_CREAT of a missing name makes a file, as `creat`; O_TRUNC of an existing regular
            // file truncates it (O20); anything else (O_PATH included) changes nothing.
            let f = semantics == .linux ? (r.openFlags ?? []).linuxEffective : (r.openFlags ?? [])
            if f.contains(.path) { return out }
            if f.contains(.creat), walk.node == nil, let parent = walk.parent {
                out.created = create(in: parent, name: walk.name, type: .file, request: r, world: &world, semantics: semantics)
                if semantics != .linux, let id = out.created,
                    let (cls, _) = world.newFileProtection(in: parent, app: r.app.flatMap { world.apps.indices.contains($0) ? world.apps[$0] : nil })
                {
                    world.setProtection(cls, open: false, on: id)
                }
            } else if f.contains(.trunc), let n = walk.node {
                var t = r
                t.op = .truncate
                guard let m = modeAfterWrite(n, t, world: world, semantics: semantics) else { return out }
                world.update(n) { $0.mode = m }
                out.changed = [n]
            }
        case .symlink, .mkfifo, .mknod, .socket:
            guard let parent = walk.parent, walk.node == nil, let made = r.op.newNodeType else { return out }
            // mknod makes the kind of device `type:` says (O17).
            let type = r.op == .mknod ? r.deviceType : made
            let id = create(in: parent, name: walk.name, type: type, request: r, world: &world, semantics: semantics)
            if type == .symlink { world.setSymlinkTarget(r.to ?? "", on: id) }
            out.created = id
        case .write, .append, .truncate:
            guard let n = walk.node, let m = modeAfterWrite(n, r, world: world, semantics: semantics) else { return out }
            world.update(n) { $0.mode = m }
            out.changed = [n]
        case .delete, .unlink, .rmdir:
            if let n = walk.node { world.detach(n) }
        case .rename:
            guard let s = walk.node, let to = r.to else { return out }
            let dst = world.resolveUnchecked(to, followTrailing: false)
            guard let tp = dst.parent, s != dst.node else { return out }
            // Another name of the same file: rename does nothing (O10).
            if let t = dst.node, world.sameFile(s, t) { return out }
            if let t = dst.node { world.detach(t) }
            world.move(s, to: tp, name: dst.name)
        case .link:
            // A new name of the same file: later changes through any name show through all (O10).
            guard let s = walk.node, let to = r.to else { return out }
            let dst = world.resolveUnchecked(to, followTrailing: false)
            guard let tp = dst.parent, dst.node == nil else { return out }
            let src = world[s]
            let id = world.createChild(tp, name: dst.name, type: src.type, uid: src.uid, gid: src.gid, mode: src.mode)
            world.addHardLink(id, to: s)
            out.created = id
        case .chmod, .lchmod:
            // lchmod under linux is refused for a symlink, so it gets here for anything else.
            guard let n = walk.node, let m = r.mode else { return out }
            chmod(n, m, world: &world, subject: r.subject, semantics: semantics)
            out.changed = [n]
        case .chown, .lchown, .chgrp:
            guard let n = walk.node else { return out }
            let node = world[n]
            var mode = node.mode.rawValue
            let isChown = r.op == .chown || r.op == .lchown
            // chown(2) changes the ids it is given (-1: no change, O27); chgrp its group.
            let newOwner = isChown ? r.owner : nil
            let newGroup = isChown || r.op == .chgrp ? r.group : nil
            if node.type != .dir {
                // linux (chown_common): setuid always, even for chown(-1, -1); macos: with an owner.
                if (isChown && semantics == .linux) || newOwner != nil { mode &= ~FileMode.setuid }
                if semantics == .linux || newGroup != nil {
                    // linux (setattr_should_drop_sgid): with group execute, or when the caller is
                    // neither in the file's group nor holds CAP_FSETID.
                    let linuxDrops = node.mode.group.contains(.execute) || (!r.subject.has(.fsetid) && !r.subject.isDirectMember(node.gid))
                    if semantics != .linux || linuxDrops { mode &= ~FileMode.setgid }
                }
                if semantics == .linux && r.op == .chgrp { mode &= ~FileMode.setuid }
            }
            let vol = world.volumeBits[Int(node.volume)]
            world.update(n) { x in
                // Ignore-ownership volumes silently drop owner and group changes (kpi_vfs.c L3089).
                if !(semantics != .linux && vol.ignoreOwnership) {
                    if let u = newOwner { x.uid = u }
                    if let g = newGroup { x.gid = g }
                }
                x.mode = FileMode(mode)
            }
            out.changed = [n]
        case .chflags:
            guard let n = walk.node, let f = r.flags else { return out }
            world.update(n) { $0.flags = f }
            out.changed = [n]
        case .setacl:
            guard let n = walk.node else { return out }
            if semantics == .linux {
                // Setting the access ACL also sets the mode's owner, group-class and other bits.
                let acl = r.posixACL
                world.setPOSIXACL(acl.flatMap { $0.isMinimal ? nil : $0 }, on: n)
                if let a = acl {
                    world.update(n) { x in
                        x.mode = FileMode(
                            (x.mode.rawValue & 0o7000) | UInt16(a.userObj.rawValue) << 6 | UInt16(a.groupClass.rawValue) << 3 | UInt16(a.other.rawValue))
                    }
                }
            } else {
                world.setACL(r.acl, on: n)
            }
            out.changed = [n]
        case .propagate:
            guard let n = walk.node else { return out }
            for d in world.descendants(of: n) { reinherit(d, world: &world, semantics: semantics); out.changed.append(d) }
        case .inheritACL:
            guard let n = walk.node, n != World.root else { return out }
            reinherit(n, world: &world, semantics: semantics)
            out.changed = [n]
        case .makeExplicit:
            guard let n = walk.node else { return out }
            for d in [n] + world.descendants(of: n) {
                guard let acl = world.acl(of: d) else { continue }
                world.setACL(
                    ACL(
                        acl.entries.map {
                            var e = $0; e.flags.remove(.inherited); return e
                        }), on: d)
                out.changed.append(d)
            }
        case .removeACLs:
            guard let n = walk.node else { return out }
            for d in [n] + world.descendants(of: n) {
                // Like `setfacl -b`: the base entries stay, so the group bits become `group::`'s.
                if let a = world.posixACL(of: d) {
                    world.update(d) { x in x.mode = FileMode((x.mode.rawValue & ~0o070) | UInt16(a.groupObj.rawValue) << 3) }
                }
                world.setACL(nil, on: d)
                world.setPOSIXACL(nil, on: d)
                world.setDefaultPOSIXACL(nil, on: d)
                out.changed.append(d)
            }
        case .copyPermissions:
            guard let n = walk.node else { return out }
            let src = world[n]
            for d in world.descendants(of: n) {
                world.update(d) { x in
                    x.uid = src.uid; x.gid = src.gid; x.mode = src.mode
                }
                out.changed.append(d)
            }
        default:
            break
        }
        // A file's attributes are the same through every name (hard links, O10).
        if !world.linkGroupOf.isEmpty { for n in out.changed { world.syncLinks(from: n) } }
        return out
    }

    static func reinherit(_ n: NodeID, world: inout World, semantics: Semantics) {
        let parent = world[n].parent
        let pacl = world.volumeBits[Int(world[parent].volume)].acls ? world.acl(of: parent) : nil
        world.setACL(Inheritance.reinherit(current: world.acl(of: n), parent: pacl, isDirectory: world[n].isDir, semantics: semantics), on: n)
    }

    static func chmod(_ n: NodeID, _ m: FileMode, world: inout World, subject: Subject, semantics: Semantics) {
        var mode = m.rawValue
        let node = world[n]
        if semantics == .linux {
            // setattr_prepare: setgid is dropped when the caller is not in the group and lacks CAP_FSETID (C5).
            if mode & FileMode.setgid != 0 && !subject.has(.fsetid) && !subject.isDirectMember(node.gid) { mode &= ~FileMode.setgid }
            // chmod writes the owner and other bits into user:: and other::, the group bits into
            // the mask (or group:: without one); named entries stay as they are.
            if let a = world.posixACL(of: n) {
                let nm = FileMode(mode)
                let updated = try? POSIXACL(
                    userObj: nm.owner, users: a.users, groupObj: a.mask == nil ? nm.group : a.groupObj,
                    groups: a.groups, mask: a.mask == nil ? nil : nm.group, other: nm.other)
                world.setPOSIXACL(updated, on: n)
            }
        }
        world.update(n) { $0.mode = FileMode(mode) }
    }

    /// The mode a write to `n`'s data (`write`, `append`, `truncate`) leaves when it clears a
    /// setuid or setgid bit, nil when it changes nothing (O20). linux (`file_remove_privs`,
    /// `setattr_should_drop_suidgid`): a regular file and a writer without CAP_FSETID; setuid
    /// goes, and setgid when the group has execute or the writer is not in the file's group.
    /// macos and guide (HFS+ `hfs_vnop_write`): a write of data by anyone but the superuser
    /// clears both; XNU's truncation by `open(O_TRUNC)` (a size change through
    /// `vnode_setattr`) clears neither.
    static func modeAfterWrite(_ n: NodeID, _ r: Request, world: World, semantics: Semantics) -> FileMode? {
        let node = world[n]
        guard node.type == .file, node.mode.isSetuid || node.mode.isSetgid else { return nil }
        var m = node.mode.rawValue
        switch semantics {
        case .linux:
            if r.subject.has(.fsetid) { return nil }
            m &= ~FileMode.setuid
            if node.mode.group.contains(.execute) || !r.subject.isDirectMember(node.gid) { m &= ~FileMode.setgid }
        case .macos, .guide:
            if r.op == .truncate || r.subject.isRoot { return nil }
            m &= ~(FileMode.setuid | FileMode.setgid)
        }
        return m == node.mode.rawValue ? nil : FileMode(m)
    }

    /// Creates a node of `type` with the rule set's creation semantics: owner, group, mode
    /// (the request's, else 0666 for a file, FIFO or device, 0777 for a directory; a socket's
    /// and a symlink's are 0777, less the umask where the kernel applies it) and ACL.
    static func create(in parent: NodeID, name: String, type: NodeType, request r: Request, world: inout World, semantics: Semantics) -> NodeID {
        let isDirectory = type == .dir
        let s = r.subject
        let p = world[parent]
        let requested = (type == .socket || type == .symlink) ? FileMode(0o777) : r.mode ?? FileMode(isDirectory ? 0o777 : 0o666)
        let vol = world.volumeBits[Int(p.volume)]
        switch semantics {
        case .macos, .guide:
            // vnode_authattr_new_internal: owner = caller (fsowner on ignore-ownership volumes);
            // group = the parent's (fsgroup there). The guide says a new object takes the
            // directory's group only when the directory is setgid (table B-4).
            var uid = s.uid
            var gid = semantics == .guide ? (p.mode.isSetgid ? p.gid : s.gid) : p.gid
            if vol.ignoreOwnership {
                uid = vol.fsOwner ?? uid
                gid = vol.fsGroup ?? gid
            }
            // open: mode & ~umask & 0777; mkdir: (mode & 0777) & ~umask — setuid, setgid, sticky
            // dropped. mkfifo, mknod: mode & 07777 & ~umask; symlink, bind: 0777 & ~umask.
            let keep: UInt16 = type == .fifo || type.isDevice ? 0o7777 : 0o777
            let mode = FileMode(requested.rawValue & keep & ~s.umask)
            let id = world.createChild(parent, name: name, type: type, uid: uid, gid: gid, mode: mode)
            // vn_create inherits the parent's ACEs; symlinkat_internal makes the link without it.
            if vol.acls && type != .symlink {
                let inherited = Inheritance.inheritedACEs(from: world.acl(of: parent), childIsDirectory: isDirectory, semantics: semantics)
                if !inherited.isEmpty { world.setACL(ACL(inherited), on: id) }
            }
            return id
        case .linux:
            let gid = p.mode.isSetgid ? p.gid : s.gid
            // A symlink is always 0777 and takes no ACL (shmem_symlink, ext4_symlink).
            if type == .symlink { return world.createChild(parent, name: name, type: .symlink, uid: s.uid, gid: gid, mode: FileMode(0o777)) }
            // bind: the socket inode's 0777 less the umask (unix_bind_bsd), then as mknod.
            var m = type == .socket ? 0o777 & ~(s.umask & 0o777) : requested.rawValue & (isDirectory ? 0o1777 : 0o7777)
            // mode_strip_sgid: a setgid+group-x file in a setgid directory whose group the caller
            // is not in loses setgid.
            if !isDirectory && m & FileMode.setgid != 0 && m & 0o010 != 0 && p.mode.isSetgid && !s.has(.fsetid) && !s.isDirectMember(p.gid) {
                m &= ~FileMode.setgid
            }
            let def = vol.acls ? world.defaultPOSIXACL(of: parent) : nil
            let made = Inheritance.linuxCreate(defaultACL: def, requested: FileMode(m), umask: s.umask & 0o777, isDirectory: isDirectory)
            var mode = made.mode.rawValue
            if isDirectory && p.mode.isSetgid { mode |= FileMode.setgid }
            let id = world.createChild(parent, name: name, type: type, uid: s.uid, gid: gid, mode: FileMode(mode))
            world.setPOSIXACL(made.access, on: id)
            world.setDefaultPOSIXACL(made.defaultACL, on: id)
            return id
        }
    }
}

extension World {
    /// Walks `path` as root would (no permission checks): the directory the last name is in,
    /// the node if it exists, and the last name.
    public func resolveUnchecked(_ path: String, followTrailing: Bool) -> (parent: NodeID?, node: NodeID?, name: String) {
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return Eval.with(box: WorldBox(self), sem: .macos, subject: Subject(uid: 0, gid: 0, groups: []), tracing: false) { e in
            switch e.resolve(path, followTrailing: followTrailing) {
            case .success(let r):
                let name = r.node.map { self.name(of: $0) } ?? r.missing ?? last
                return (r.parent, r.node, name.isEmpty ? last : name)
            case .failure: return (nil, nil, last)
            }
        }
    }
}
