#if os(Linux)
import CLibACL
import FSPolicy
import FSPolicyFormat
import Glibc

/// Reads a real tree: type, owner, group, mode and inode flags (statx), access and default ACLs
/// (libacl), symlink targets (readlink). It never follows a symlink, never opens a fifo, socket
/// or device, and never changes anything. Problems are collected per path and the walk goes on.
public enum TreeScanner {
    /// Installs the scanner and the host account lookups into the policy loader.
    public static func install() {
        PolicyLoader.scanner = { TreeScanner.scan($0) }
        PolicyLoader.hostUser = { Sys.userNamed($0) }
        PolicyLoader.hostGroup = { Sys.groupNamed($0) }
    }

    public static func scan(_ rootPath: String, progress: (@Sendable (Int) -> Void)? = nil) -> ScannedTree {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let absolute: String
        if realpath(rootPath, &resolved) != nil { absolute = String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) } else { absolute = rootPath }
        var tree = ScannedTree(root: absolute)
        var walker = Walker(tree: tree, progress: progress)
        walker.scanRoot(Array(absolute.utf8))
        tree = walker.tree
        walker.resolveAccounts()
        return walker.tree
    }
}

private struct Walker {
    var tree: ScannedTree
    let progress: (@Sendable (Int) -> Void)?
    var uids: Set<UID> = []
    var gids: Set<GID> = []

    init(tree: ScannedTree, progress: (@Sendable (Int) -> Void)?) {
        self.tree = tree
        self.progress = progress
    }

    func display(_ rel: [UInt8]) -> String {
        let rootText = tree.root
        return rel.isEmpty ? rootText : (rootText == "/" ? "" : rootText) + "/" + NameEscaping.escape(rel).replacingSlashesEscaped
    }

    mutating func problem(_ rel: [UInt8], _ what: String, _ e: SysError) {
        tree.problems.append(ScannedTree.Problem(path: display(rel), message: what + ": " + e.message))
    }

    mutating func scanRoot(_ root: [UInt8]) {
        let st: Sys.Stat
        switch withCString(root, { Sys.stat(dirfd: AT_FDCWD, name: $0) }) {
        case .failure(let e): problem([], "cannot read", e); return
        case .success(let s): st = s
        }
        record(rel: [], full: root, st: st, dirfd: AT_FDCWD, name: root)
        if st.type == .dir {
            let fd = withCString(root) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            if fd < 0 { problem([], "cannot open the directory", SysError(errno)); return }
            walk(fd: fd, rel: [], full: root)
        }
    }

    /// Reads one directory (and below), then closes `fd`.
    mutating func walk(fd: Int32, rel: [UInt8], full: [UInt8]) {
        guard let dir = fdopendir(fd) else {
            problem(rel, "cannot list the directory", SysError(errno))
            close(fd)
            return
        }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let ent = readdir(dir) else {
                if errno != 0 { problem(rel, "cannot list the directory", SysError(errno)) }
                break
            }
            let name: [UInt8] = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let len = bytes.firstIndex(of: 0) ?? bytes.count
                return Array(bytes[0..<len])
            }
            if name == [0x2e] || name == [0x2e, 0x2e] { continue }
            names.append(name)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        let dfd = dirfd(dir)
        for name in names {
            let childRel = rel.isEmpty ? name : rel + [0x2f] + name
            let childFull = (full == [0x2f] ? [] : full) + [0x2f] + name
            let st: Sys.Stat
            switch withCString(name, { Sys.stat(dirfd: dfd, name: $0) }) {
            case .failure(let e):
                problem(childRel, e.code == ENOENT ? "vanished during the scan" : "cannot stat", e)
                continue
            case .success(let s): st = s
            }
            record(rel: childRel, full: childFull, st: st, dirfd: dfd, name: name)
            if st.type == .dir {
                let cfd = withCString(name) { Glibc.openat(dfd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                if cfd < 0 {
                    let e = SysError(errno)
                    problem(childRel, e.code == ENOENT ? "vanished during the scan" : "cannot open the directory", e)
                    continue
                }
                walk(fd: cfd, rel: childRel, full: childFull)
            }
        }
    }

    mutating func record(rel: [UInt8], full: [UInt8], st: Sys.Stat, dirfd: Int32, name: [UInt8]) {
        var entry = ScannedTree.Entry(relativePath: NameEscaping.escape(rel).replacingSlashesEscaped, type: st.type, uid: st.uid, gid: st.gid, mode: st.mode, flags: st.flags)
        uids.insert(st.uid)
        gids.insert(st.gid)
        if st.type == .symlink {
            switch withCString(name, { Sys.readlink(dirfd: dirfd, name: $0) }) {
            case .success(let t): entry.target = NameEscaping.escape(t).replacingSlashesEscaped
            case .failure(let e): problem(rel, "cannot read the link", e)
            }
        } else {
            switch withCString(full, { Sys.acl(path: $0, isDefault: false) }) {
            case .success(let a): entry.access = a
            case .failure(let e): problem(rel, e.code == ENOENT ? "vanished during the scan" : "cannot read the ACL", e)
            }
            if st.type == .dir {
                switch withCString(full, { Sys.acl(path: $0, isDefault: true) }) {
                case .success(let a): entry.defaultACL = a
                case .failure(let e): problem(rel, "cannot read the default ACL", e)
                }
            }
        }
        for a in [entry.access, entry.defaultACL].compactMap({ $0 }) {
            for u in a.users { uids.insert(u.id) }
            for g in a.groups { gids.insert(g.id) }
        }
        tree.entries.append(entry)
        if let p = progress, tree.entries.count % 5000 == 0 { p(tree.entries.count) }
    }

    mutating func resolveAccounts() {
        var groupIDs = gids
        for uid in uids.sorted() {
            if let u = Sys.userInfo(uid) {
                tree.users.append(u)
                groupIDs.insert(u.gid)
                for g in u.groups { groupIDs.insert(g) }
            }
        }
        for gid in groupIDs.sorted() {
            if let n = Sys.groupName(gid) { tree.groups.append((n, gid)) }
        }
    }
}

private func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    (bytes + [0]).withUnsafeBufferPointer { p in
        p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { body($0) }
    }
}

extension String {
    /// Names are escaped byte by byte; a `/` inside a joined relative path stays a separator.
    var replacingSlashesEscaped: String { self }
}
#endif
