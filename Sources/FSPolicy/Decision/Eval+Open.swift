// `open(2)` with its flags (docs/semantics.md O21–O24), in each kernel's order. Linux: build_open_flags,
// the walk, open_last_lookups, do_open, may_open, do_dentry_open; XNU: vn_open_auth.

extension Eval {
    /// `open` under linux.
    mutating func linuxOpen(_ r: Request) -> Outcome {
        // build_open_how: O_PATH keeps only O_DIRECTORY and O_NOFOLLOW.
        let f = (r.openFlags ?? []).linuxEffective
        if f.contains(.path) { return linuxOpenPath(r, f) }
        // build_open_flags refuses O_CREAT with O_DIRECTORY before anything is looked up.
        if f.isSuperset(of: [.creat, .directory]) {
            return finish(.deny(.EINVAL, .type, .openCreatDirectory, World.root, .none), [])
        }
        let slash = Eval.namesDirectory(r.path)
        guard f.contains(.creat) else {
            // A name written with a trailing slash is followed and must be a directory
            // (open_last_lookups sets LOOKUP_FOLLOW and LOOKUP_DIRECTORY), O_NOFOLLOW or not.
            switch resolveNamed(r.path, followTrailing: !f.noFollow || slash) {
            case .failure(let o): return o
            case .success(let res):
                guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
                return linuxOpenExisting(f, n)
            }
        }
        // O_CREAT: the trailing symlink is followed unless O_EXCL or O_NOFOLLOW says not.
        switch resolve(r.path, followTrailing: !slash && !f.noFollow) {
        case .failure(let o): return o
        case .success(let res):
            // open_last_lookups: a trailing slash is EISDIR before the last name is looked up.
            if slash { return trailingSlashOpen(res) }
            guard let n = res.node else {
                // lookup_open: the mount is taken for writing, then may_o_create.
                if let o = readOnlyCheck(res.parent) { return o }
                return linuxPermission(res.parent, [.write, .execute])
            }
            // do_open on a name that exists: EEXIST for O_EXCL, EISDIR for a directory, then
            // fs.protected_regular and fs.protected_fifos (L12).
            if f.contains(.excl) { return finish(.deny(.EEXIST, .traversal, .exists, n, .node(n)), []) }
            if world[n].isDir { return finish(.deny(.EISDIR, .type, .isDirectory, n, .node(n)), []) }
            if let o = mayCreateInSticky(n, in: res.parent) { return o }
            return linuxOpenExisting(f, n)
        }
    }

    /// The open of the existing node `n` with flags `f`, after the lookup: do_open's
    /// O_DIRECTORY check and O_TRUNC's mount, may_open, then do_dentry_open.
    mutating func linuxOpenExisting(_ flags: OpenFlags, _ n: NodeID) -> Outcome {
        let node = world[n]
        var f = flags
        if f.contains(.directory) && !node.isDir { return finish(.deny(.ENOTDIR, .type, .openDirectoryNotDir, n, .node(n)), []) }
        // do_open: O_TRUNC of a regular file takes the mount for writing before may_open.
        if f.contains(.trunc) && node.type == .file, let o = readOnlyCheck(n) { return o }
        // may_open, by the node's type.
        if node.type == .symlink { return finish(.deny(.ELOOP, .type, .openNoFollow, n, .node(n)), []) }
        if node.isDir && f.asksWrite { return finish(.deny(.EISDIR, .type, .isDirectory, n, .node(n)), []) }
        if let o = nodevCheck(n) { return o }
        // A FIFO, socket or device is never truncated, but O_TRUNC still asks for `w`.
        if node.type != .file && node.type != .dir { f.remove(.trunc) }
        var want: RWX = []
        if f.reads { want.insert(.read) }
        if flags.asksWrite { want.insert(.write) }
        let o = linuxPermission(n, want)
        if !o.allowed { return o }
        // An append-only inode: written only with O_APPEND, never truncated.
        let app = node.flags.intersection(.append)
        if !app.isEmpty && ((f.writesData && !f.contains(.append)) || f.contains(.trunc)) {
            return finish(.deny(.EPERM, .flags, .linuxAppendNeedsOAppend, n, .flag(node: n, flag: app)), .writeData)
        }
        // do_dentry_open: an open for writing takes the mount (a read-only bind mount), then a
        // socket's open refuses (O9).
        return socketOpen(n, f.writesData ? openForWriteCheck(n, o) : o)
    }

    /// `open(O_PATH)` (O24): the walk and O_DIRECTORY only; no check on the node itself.
    mutating func linuxOpenPath(_ r: Request, _ f: OpenFlags) -> Outcome {
        let slash = Eval.namesDirectory(r.path)
        switch resolveNamed(r.path, followTrailing: !f.contains(.nofollow) || slash) {
        case .failure(let o): return o
        case .success(let res):
            guard let n = res.node else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
            if f.contains(.directory) && !world[n].isDir { return finish(.deny(.ENOTDIR, .type, .openDirectoryNotDir, n, .node(n)), []) }
            return finish(.allow(.traversal, .openPath, n, .node(n)), [])
        }
    }
}

extension Eval {
    /// `open` under macos and guide (XNU `vn_open_auth`, `vn_authorize_open_existing`).
    mutating func bsdOpen(_ r: Request) -> Outcome {
        let f = r.openFlags ?? []
        // XNU has no O_PATH (O24).
        if f.contains(.path) { return finish(.deny(.EINVAL, .type, .openPath, World.root, .none), []) }
        // vn_open_auth: O_CREAT with O_DIRECTORY, before the lookup (O21).
        if f.isSuperset(of: [.creat, .directory]) { return finish(.deny(.EINVAL, .type, .openCreatDirectory, World.root, .none), []) }
        let slash = Eval.namesDirectory(r.path)
        switch resolveNamed(r.path, followTrailing: !f.noFollow || slash) {
        case .failure(let o): return o
        case .success(let res):
            if let n = res.node {
                if f.contains(.creat) && f.contains(.excl) { return finish(.deny(.EEXIST, .traversal, .exists, n, .node(n)), []) }
                return bsdOpenExisting(f, n, parent: res.parent)
            }
            guard f.contains(.creat) else { return finish(.deny(.ENOENT, .traversal, .notFound, res.parent, res.notFoundEvidence(r.path)), []) }
            if slash { return trailingSlashCreation(res, r.path) }
            return createIn(res, r)
        }
    }

    /// `vn_authorize_open_existing`: O_DIRECTORY, a socket, O_NOFOLLOW on a symlink, a
    /// directory opened to write, then READ_DATA for a read and WRITE_DATA (APPEND_DATA with
    /// O_APPEND and without O_TRUNC) for a write or O_TRUNC.
    mutating func bsdOpenExisting(_ f: OpenFlags, _ n: NodeID, parent: NodeID) -> Outcome {
        let node = world[n]
        if f.contains(.directory) && !node.isDir { return finish(.deny(.ENOTDIR, .type, .openDirectoryNotDir, n, .node(n)), []) }
        if node.type == .socket { return finish(.deny(.EOPNOTSUPP, .type, .openSocket, n, .node(n)), []) }
        if node.type == .symlink { return finish(.deny(.ELOOP, .type, .openNoFollow, n, .node(n)), []) }
        if node.isDir && f.asksWrite { return finish(.deny(.EISDIR, .type, .isDirectory, n, .node(n)), []) }
        var rights: AccessRights = []
        if f.reads { rights.insert(.readData) }
        if f.asksWrite { rights.insert(f.contains(.append) && !f.contains(.trunc) ? .appendData : .writeData) }
        return authorize(n, parent: parent, rights, noImmutable: false)
    }
}
