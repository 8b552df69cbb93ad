// Path lookup: walking a request's path from `/`, with a search check on every directory.

extension Eval {
    // MARK: Path lookup

    /// Walks `path` from `/`, checking search on every directory it looks a name up in.
    /// Intermediate symlinks are always followed; the last one only if `followTrailing`.
    mutating func resolve(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        if let p = presolved {
            // The request's path, walked already from its bytes (`Authorizer.decide(inPlace:pathBytes:)`).
            presolved = nil
            return .success(Resolved(parent: p.parent, node: p.node))
        }
        if appBox != nil { lookupTarget = path }
        if let fast = resolveBytes(path, followTrailing: followTrailing) { return fast }
        var comps = path.split(separator: "/", omittingEmptySubsequences: true)
        var cur = World.root
        if comps.isEmpty { return .success(Resolved(parent: World.root, node: World.root)) }
        var i = 0
        var links = 0
        while i < comps.count {
            let comp = comps[i]
            let isLast = i == comps.count - 1
            if world[cur].type != .dir {
                return .failure(finish(.deny(.ENOTDIR, .traversal, .notADirectory, cur, .node(cur)), []))
            }
            if let denied = searchCheck(cur) { return .failure(denied) }
            if comp == "." {
                if isLast { return .success(Resolved(parent: world[cur].parent, node: cur, dots: 1, dotDir: cur)) }
                i += 1
                continue
            }
            if comp == ".." {
                // Physically: the parent of the directory the walk is in, wherever the symlinks
                // before it led (O12); `..` of `/` is `/`.
                let from = cur
                cur = world[cur].parent
                step(.traversal, .dotDot, .note, from, [], [], .node(cur))
                if isLast { return .success(Resolved(parent: world[cur].parent, node: cur, dots: 2, dotDir: from)) }
                i += 1
                continue
            }
            guard let c = world.child(cur, comp) else {
                // Not found where not every name was read: it may exist (P6).
                if let o = unreadLookup(cur, String(comp)) { return .failure(o) }
                if isLast { return .success(Resolved(parent: cur, node: nil, missing: String(comp))) }
                return .failure(finish(.deny(.ENOENT, .traversal, .notFound, cur, .missing(dir: cur, name: String(comp))), []))
            }
            if world[c].type == .symlink && (!isLast || followTrailing) {
                links += 1
                if links > maxSymlinks {
                    return .failure(finish(.deny(.ELOOP, .traversal, .symlinkLoop, c, .node(c)), []))
                }
                // fs.protected_symlinks: only the last component's symlink (WALK_TRAILING).
                if isLast && sem == .linux, let o = mayFollowLink(c, in: cur) { return .failure(o) }
                let target = world.symlinkTargets[c] ?? ""
                if target.isEmpty {
                    // A link whose target a scan could not read (P6).
                    if let o = unreadLookup(c, nil) { return .failure(o) }
                    return .failure(finish(.deny(.ENOENT, .traversal, .notFound, c, .node(c)), []))
                }
                // A step of its own: the walk leaves the path as written here (P7).
                step(.traversal, .symlinkFollowed, .note, c, [], [], .node(c))
                let tcomps = target.split(separator: "/", omittingEmptySubsequences: true)
                if target.hasPrefix("/") { cur = World.root }
                comps = Array(tcomps) + comps[(i + 1)...]
                i = 0
                if comps.isEmpty { return .success(Resolved(parent: world[cur].parent, node: cur)) }
                continue
            }
            if isLast { return .success(Resolved(parent: cur, node: c)) }
            cur = c
            i += 1
        }
        return .success(Resolved(parent: world[cur].parent, node: cur))
    }

    /// Whether `path` ends in a slash after a name (`/srv/f/`): the name must then be a
    /// directory (`resolveNamed`). The request readers keep that slash (a last `.` stays
    /// `/.`, a name of its own: `endsInDot`); `/` alone is not such a path.
    @inline(__always)
    static func namesDirectory(_ path: String) -> Bool {
        // On the bytes where they are (the generic `last` of a UTF-8 view cost more than a
        // decision's path check); a slash at the end is rare, the rest is read only then.
        if let ends = path.utf8.withContiguousStorageIfAvailable({ $0.count > 1 && $0[$0.count - 1] == 0x2f }) {
            return ends && path.utf8.contains { $0 != 0x2f }
        }
        let u = path.utf8
        return u.count > 1 && u.last == 0x2f && u.contains { $0 != 0x2f }
    }

    /// Whether `path`'s last component is `.` (`/srv/d/.`): the walk looks `.` up in the
    /// directory before it (search on it, and it must be one), and removing it is EINVAL.
    static func endsInDot(_ path: String) -> Bool {
        let u = path.utf8
        guard u.count >= 2, u.last == 0x2e else { return false }
        return u[u.index(u.endIndex, offsetBy: -2)] == 0x2f
    }

    /// `resolve` for an operation on the object a path names, with what a trailing slash
    /// means (P2): the name is looked up as if `.` followed it, so a trailing symlink is
    /// followed whatever the operation (Linux path_resolution(7): "a pathname with a trailing
    /// slash" is resolved as a directory; XNU `lookup_handle_found_vnode` treats
    /// NAMEI_TRAILINGSLASH like FOLLOW), and what is found must be a directory, else ENOTDIR
    /// ("bogus trailing slashes" there; Linux's walk ends in `LOOKUP_DIRECTORY`). With
    /// `followTrailing` false, an operation on the name itself (delete), a trailing symlink is
    /// not followed; the link is not a directory, so ENOTDIR (Linux `do_unlinkat`/`do_rmdir`).
    /// A missing name is returned as such, for the operation to answer.
    @inline(__always)
    mutating func resolveNamed(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        guard Eval.namesDirectory(path) else { return resolve(path, followTrailing: followTrailing) }
        return resolveSlashed(path, followTrailing: followTrailing)
    }

    /// `resolveNamed` of a path that ends in a slash after a name.
    mutating func resolveSlashed(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        var base = Substring(path)
        while base.utf8.last == 0x2f { base = base.dropLast() }
        switch resolve(String(base), followTrailing: followTrailing) {
        case .failure(let o): return .failure(o)
        case .success(let res):
            if let n = res.node, world[n].type != .dir {
                return .failure(finish(.deny(.ENOTDIR, .traversal, .notADirectory, n, .node(n)), []))
            }
            return .success(res)
        }
    }
}
