#if os(Linux)
    import CLibACL
    import Dispatch
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// Reads a real tree: type, owner, group, mode and inode flags (statx), access and default ACLs
    /// (their extended attributes), symlink targets (readlink), the directories from `/` down to it,
    /// the mounts met, and the host's accounts. It never follows a symlink, never opens a fifo,
    /// socket, device or regular file, and never changes anything. Problems are collected per path
    /// and the walk goes on.
    ///
    /// Every node is read through one descriptor: `openat(parent, name, O_PATH | O_NOFOLLOW)`
    /// relative to its parent directory's descriptor, then `statx` on that descriptor, `readlinkat`
    /// on it for a symlink, `getxattr` through /proc/self/fd for the ACLs (the kernel resolves that
    /// name to the descriptor's own inode), and `openat(fd, ".", O_RDONLY | O_DIRECTORY)` to list a
    /// directory. A directory swapped for a symlink between two reads is then a symlink for every
    /// read: nothing is looked up by name twice, so no other node can lend its attributes. A
    /// directory's children are read on several threads (`NodeReader.readRun`), recorded in order.
    public enum TreeScanner {
        /// The root's absolute path: `realpath`'s, or, for a root that does not resolve itself (a
        /// dangling or looping symlink), its folder's `realpath` and its own name: the link is then
        /// scanned as the link it is, at its real place, with the folders above it read as for any
        /// root (a relative path written as it was made an invalid scan file, with invented folders
        /// above it). A path whose folder does not resolve either is returned as it was given, for
        /// the walk to report that it cannot be read.
        static func absoluteRoot(_ rootPath: String) -> [UInt8] {
            func real(_ p: [UInt8]) -> [UInt8]? {
                var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let ok = (p + [0]).withUnsafeBufferPointer { b in
                    b.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress!, &resolved) != nil }
                }
                return ok ? resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } : nil
            }
            // An argument that was not UTF-8 names the folder by its real bytes.
            var bytes = RawArguments.bytes(of: rootPath)
            let given = bytes
            if let r = real(bytes) { return r }
            while bytes.count > 1 && bytes.last == 0x2f { bytes.removeLast() }
            let cut = bytes.lastIndex(of: 0x2f)
            let name = Array(bytes[(cut.map { $0 + 1 } ?? 0)...])
            guard !name.isEmpty, name != [0x2e], name != [0x2e, 0x2e] else { return given }
            let folder: [UInt8] = cut.map { $0 == 0 ? [0x2f] : Array(bytes[..<$0]) } ?? [0x2e]
            guard let dir = real(folder) else { return given }
            return (dir == [0x2f] ? [] : dir) + [0x2f] + name
        }

        public static func scan(_ rootPath: String, options: ScanOptions = ScanOptions(), progress: (@Sendable (Int) -> Void)? = nil) -> ScannedTree {
            let absolute = absoluteRoot(rootPath)
            var tree = ScannedTree(root: NameEscaping.escape(absolute))
            var walker = Walker(tree: tree, options: options, progress: progress)
            walker.scanRoot(absolute)
            walker.reader.close()
            tree = walker.tree
            walker.resolveAccounts()
            (walker.tree.linuxTunables, walker.tree.tunablesUnread) = HostFacts.linuxTunables()
            return walker.tree
        }
    }

    private struct Walker {
        var tree: ScannedTree
        let options: ScanOptions
        let progress: (@Sendable (Int) -> Void)?
        var uids: Set<UID> = []
        var gids: Set<GID> = []
        var lastUID: UID? = nil
        var lastGID: GID? = nil
        /// Reads the nodes (closed by `TreeScanner.scan` at the end).
        let reader: NodeReader
        /// Threads reading a directory's children (1: all on the calling thread).
        let threads: Int
        /// Directory descriptors held open until their directory is walked, and how many may be.
        var heldFDs = 0
        let fdBudget: Int
        /// The host's mounts by id (and by device, for kernels without `stx_mnt_id`).
        var mountsByID: [UInt64: HostFacts.MountInfo] = [:]
        var mountTable: [HostFacts.MountInfo] = []
        /// ACLs are read through /proc/self/fd; without /proc they cannot be read safely.
        let procFD: Bool

        init(tree: ScannedTree, options: ScanOptions, progress: (@Sendable (Int) -> Void)?) {
            self.tree = tree
            self.options = options
            self.progress = progress
            reader = NodeReader(root: tree.root)
            procFD = reader.acls.available
            // `FSPOLICY_SCAN_THREADS=N` in the environment sets the default (for measuring).
            let fromEnv = getenv("FSPOLICY_SCAN_THREADS").flatMap { Int(String(cString: $0)) }
            threads = max(1, options.threads ?? fromEnv ?? min(HostFacts.processorCount(), 4))
            var lim = rlimit()
            fdBudget = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim) == 0 && lim.rlim_cur < 1 << 20 ? Int(lim.rlim_cur) / 2 : 1 << 19
            if let m = HostFacts.mounts() {
                mountTable = m
                for x in m { mountsByID[x.id] = x }
            } else {
                self.tree.problems.append(
                    ScannedTree.Problem(
                        path: "/proc/self/mountinfo", message: "cannot read the mount table: mount options (read-only, noexec, nodev) are not recorded"))
            }
            if !procFD {
                self.tree.problems.append(
                    ScannedTree.Problem(
                        path: "/proc/self/fd",
                        message:
                            "/proc is not mounted: ACLs are not read (fspolicy reads them through /proc/self/fd, so that a renamed node cannot lend its ACL)"))
            }
        }

        func display(_ rel: [UInt8]) -> String {
            let rootText = tree.root
            return rel.isEmpty ? rootText : (rootText == "/" ? "" : rootText) + "/" + NameEscaping.escape(rel)
        }

        mutating func problem(_ rel: [UInt8], _ what: String, _ e: SysError) {
            tree.problems.append(ScannedTree.Problem(path: display(rel), message: what + ": " + e.message))
        }

        mutating func problemAt(_ abs: [UInt8], _ what: String, _ e: SysError) {
            tree.problems.append(ScannedTree.Problem(path: NameEscaping.escape(abs), message: what + ": " + e.message))
        }

        /// The mount a node is on, when it differs from its parent's (nil parent: always). By
        /// `stx_mnt_id`; on kernels before 5.8, by a change of device and then by path.
        func mountChange(_ st: Sys.Stat, parent: Sys.Stat?, absolute: [UInt8]) -> HostFacts.MountInfo? {
            if let id = st.mountID {
                if let p = parent, p.mountID == id { return nil }
                return mountsByID[id]
            }
            if let p = parent, p.dev == st.dev { return nil }
            return mountByPath(absolute)
        }

        mutating func addMount(_ m: HostFacts.MountInfo, absolute: [UInt8], relative: [UInt8]?) {
            let ro = m.superOptions.contains("ro")
            tree.mounts.append(
                ScannedTree.Mount(
                    path: NameEscaping.escape(absolute), relativePath: relative.map { NameEscaping.escape($0) },
                    fsType: NameEscaping.escape(m.fsType), readOnly: ro,
                    readOnlyMount: !ro && m.mountOptions.contains("ro"), noexec: m.mountOptions.contains("noexec"),
                    nosuid: m.mountOptions.contains("nosuid"), nodev: m.mountOptions.contains("nodev")))
        }

        /// The mount holding `absolute` by path (kernels before 5.8 have no `stx_mnt_id`): the
        /// last-mounted entry with the longest mount point that is a prefix of it.
        func mountByPath(_ absolute: [UInt8]) -> HostFacts.MountInfo? {
            var best: HostFacts.MountInfo? = nil
            for m in mountTable {
                let p = m.point
                let isPrefix = p == [0x2f] || absolute == p || (absolute.count > p.count && absolute.starts(with: p) && absolute[p.count] == 0x2f)
                if isPrefix && p.count >= (best?.point.count ?? -1) { best = m }
            }
            return best
        }

        /// Opens every component of the root's path from `/` without following symlinks, records
        /// the ancestors (when asked) and the root, then walks the tree.
        mutating func scanRoot(_ root: [UInt8]) {
            guard root.first == 0x2f else {
                // realpath failed (the path does not exist or cannot be resolved).
                let fd = withCString(root) { Sys.openNode(dirfd: AT_FDCWD, name: $0) }
                switch fd {
                case .failure(let e): problem([], "cannot read", e)
                case .success(let fd): visitRoot(fd: fd, parent: nil, absolute: root)
                }
                return
            }
            let comps = root.split(separator: 0x2f).map { Array($0) }
            var fd = Glibc.open("/", Sys.oPath | O_DIRECTORY | O_CLOEXEC)
            if fd < 0 { problemAt([0x2f], "cannot open", SysError(errno)); return }
            if comps.isEmpty { visitRoot(fd: fd, parent: nil, absolute: [0x2f]); return }
            var abs: [UInt8] = []
            var parentStat: Sys.Stat? = nil
            var here = [UInt8]([0x2f])
            for (i, c) in comps.enumerated() {
                // The directory `fd` holds (here) is an ancestor.
                let st: Sys.Stat
                switch Sys.stat(fd: fd) {
                case .failure(let e): problemAt(here, "cannot read", e); close(fd); return
                case .success(let s): st = s
                }
                if options.readAncestors {
                    recordAncestor(fd: fd, absolute: here, st: st)
                    if let m = mountChange(st, parent: parentStat, absolute: here) {
                        addMount(m, absolute: here, relative: nil)
                    }
                }
                parentStat = st
                abs += [0x2f] + c
                let next = withCString(c) { Sys.openNode(dirfd: fd, name: $0) }
                close(fd)
                switch next {
                case .failure(let e):
                    problemAt(abs, e.code == ENOENT ? "vanished during the scan" : "cannot open", e)
                    return
                case .success(let n): fd = n
                }
                if i < comps.count - 1 { here = abs }
            }
            visitRoot(fd: fd, parent: options.readAncestors ? parentStat : nil, absolute: abs)
        }

        mutating func recordAncestor(fd: Int32, absolute: [UInt8], st: Sys.Stat) {
            var (entry, problems) = reader.read(fd: fd, st: st) { NameEscaping.escape(absolute) }
            entry.relativePath = NameEscaping.escape(absolute)
            tree.problems += problems
            uids.insert(st.uid)
            gids.insert(st.gid)
            for a in [entry.access, entry.defaultACL].compactMap({ $0 }) {
                for u in a.users { uids.insert(u.id) }
                for g in a.groups { gids.insert(g.id) }
            }
            tree.ancestors.append(entry)
            tree.ancestorsRead = true
        }

        /// Records the root (held by `fd`, closed here) and walks below it.
        mutating func visitRoot(fd: Int32, parent: Sys.Stat?, absolute: [UInt8]) {
            let st: Sys.Stat
            switch Sys.stat(fd: fd) {
            case .failure(let e): problem([], "cannot read", e); close(fd); return
            case .success(let s): st = s
            }
            if options.readAncestors && absolute == [0x2f] { tree.ancestorsRead = true }
            // Without the ancestors the root's own mount is always recorded (it is placed at `--at`).
            if let m = mountChange(st, parent: parent, absolute: absolute) {
                addMount(m, absolute: absolute, relative: [])
            }
            visit(fd: fd, st: st, rel: [], absolute: absolute)
        }

        /// Records the node `fd` holds and, for a directory, everything below it; closes `fd`.
        mutating func visit(fd: Int32, st: Sys.Stat, rel: [UInt8], absolute: [UInt8]) {
            var (entry, problems) = reader.read(fd: fd, st: st) { display(rel) }
            entry.relativePath = NameEscaping.escape(rel)
            if st.type == .symlink && entry.target == nil { entry.unread = .denied }
            tree.problems += problems
            record(entry)
            guard st.type == .dir else { close(fd); return }
            walk(rootFD: fd, st: st, rel: rel, full: absolute)
        }

        /// One directory being walked: its names (sorted), the run of children read last and
        /// which of them is next, and its place in the shared path buffers.
        struct Frame {
            /// The directory opened for listing and for `openat` of its children (-1 once every
            /// child has been read: a chain of folders holds one descriptor, not one a level).
            var dfd: Int32
            var st: Sys.Stat
            /// The names, each followed by a NUL, and where each starts (sorted by bytes).
            var arena: [UInt8] = []
            var names: [(start: Int, maybeDir: Bool)] = []
            /// The next name to read.
            var next = 0
            /// The children read in the current run, and the next of them to record.
            var reads: [NodeReader.ChildRead] = []
            var runStarts: [Int] = []
            var readIndex = 0
            /// This directory's entry in `tree.entries`, and its path's length in `rel` and `full`.
            var entryIndex: Int
            var relCount: Int
            var fullCount: Int
            var depth: Int
        }

        /// Lists the directory that the `O_PATH` descriptor `fd` holds (closed here), or marks its
        /// entry unread when it cannot be listed. Nil when it cannot.
        mutating func openFrame(fd: Int32, st: Sys.Stat, rel: [UInt8], relCount: Int, fullCount: Int, depth: Int) -> Frame? {
            let entryIndex = tree.entries.count - 1
            let dfd = Glibc.openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            let err = errno
            close(fd)
            if dfd < 0 {
                problem(rel, "cannot open the directory", SysError(err))
                tree.entries[entryIndex].unread = err == ENOENT ? .changed : .denied
                return nil
            }
            var f = Frame(dfd: dfd, st: st, entryIndex: entryIndex, relCount: relCount, fullCount: fullCount, depth: depth)
            guard let dir = fdopendir(Glibc.dup(dfd)) else {
                problem(rel, "cannot list the directory", SysError(errno))
                tree.entries[entryIndex].unread = .denied
                close(dfd)
                return nil
            }
            defer { closedir(dir) }
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            while true {
                errno = 0
                guard let ent = readdir(dir) else {
                    if errno != 0 {
                        problem(rel, "cannot list the directory", SysError(errno))
                        tree.entries[entryIndex].unread = .denied
                    }
                    break
                }
                let name = UnsafeRawPointer(ent).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
                let len = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
                if name[0] == 0x2e && (len == 1 || (len == 2 && name[1] == 0x2e)) { continue }
                let t = ent.pointee.d_type
                f.names.append((f.arena.count, t == UInt8(DT_DIR) || t == UInt8(DT_UNKNOWN)))
                f.arena.append(contentsOf: UnsafeBufferPointer(start: name, count: len + 1))
            }
            f.arena.withUnsafeBufferPointer { a in
                guard let base = a.baseAddress else { return }
                let cbase = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                // Byte order (strcmp compares unsigned bytes, and no name holds a NUL).
                f.names.sort { strcmp(cbase + $0.start, cbase + $1.start) < 0 }
            }
            if f.names.isEmpty { close(f.dfd); f.dfd = -1 }
            return f
        }

        /// Walks below the root directory (held by the `O_PATH` descriptor `rootFD`, closed here)
        /// without recursion: a stack of frames, one per directory on the way down, each holding
        /// its sorted names, so memory grows with the depth and the width of one folder, never with
        /// the call stack. A directory's children are read in runs (by `NodeReader.readRun`, on
        /// several threads when the run is long); each child is recorded in order and a directory
        /// among them walked before the next is recorded (the order of a depth-first walk).
        mutating func walk(rootFD: Int32, st rootStat: Sys.Stat, rel rootRel: [UInt8], full rootFull: [UInt8]) {
            var rel = rootRel
            var full = rootFull == [0x2f] ? [] : rootFull
            var stack: [Frame] = []
            if let f = openFrame(fd: rootFD, st: rootStat, rel: rel, relCount: rel.count, fullCount: full.count, depth: 0) { stack.append(f) }
            while !stack.isEmpty {
                let top = stack.count - 1
                rel.removeSubrange(stack[top].relCount...)
                full.removeSubrange(stack[top].fullCount...)
                if stack[top].readIndex < stack[top].reads.count {
                    let k = stack[top].readIndex
                    stack[top].readIndex += 1
                    let r = stack[top].reads[k]
                    tree.problems += r.problems
                    guard let st = r.st, var entry = r.entry else { continue }
                    let parentStat = stack[top].st
                    // Same mount as the directory (nearly always): no absolute path needed.
                    let sameMount = st.mountID != nil ? st.mountID == parentStat.mountID : st.dev == parentStat.dev
                    if sameMount && r.fd < 0 { record(entry); continue }
                    let start = stack[top].runStarts[k]
                    let name = stack[top].arena.withUnsafeBufferPointer { a in
                        Array(
                            UnsafeBufferPointer(
                                rebasing: a[start..<(start + strlen(UnsafeRawPointer(a.baseAddress! + start).assumingMemoryBound(to: CChar.self)))]))
                    }
                    if !rel.isEmpty { rel.append(0x2f) }
                    rel.append(contentsOf: name)
                    full.append(0x2f)
                    full.append(contentsOf: name)
                    var mount: HostFacts.MountInfo? = nil
                    if !sameMount, let m = mountChange(st, parent: parentStat, absolute: full) {
                        addMount(m, absolute: full, relative: rel)
                        mount = m
                    }
                    guard r.fd >= 0 else { record(entry); continue }
                    let depth = stack[top].depth + 1
                    // Where the walk stops: the entry is recorded, its entries are not read.
                    var stop: UnreadReason? = nil
                    if full.count >= Int(PATH_MAX) {
                        stop = .long
                    } else if let max = options.maxDepth, depth > max {
                        stop = .depth
                    } else if !options.exclude.isEmpty, options.excludes(full) {
                        stop = .excluded
                    } else if !sameMount, options.oneFileSystem || (!options.pseudo && (mount.map { ScanOptions.isPseudo($0.fsType) } ?? false)) {
                        stop = .mount
                    }
                    if let why = stop {
                        entry.unread = why
                        record(entry)
                        close(r.fd)
                        heldFDs -= 1
                        continue
                    }
                    record(entry)
                    heldFDs -= 1
                    if let f = openFrame(fd: r.fd, st: st, rel: rel, relCount: rel.count, fullCount: full.count, depth: depth) {
                        stack.append(f)
                    }
                    continue
                }
                if stack[top].next < stack[top].names.count {
                    readRun(&stack[top], rel: rel)
                    continue
                }
                if stack[top].dfd >= 0 { close(stack[top].dfd) }
                stack.removeLast()
            }
        }

        /// Reads the next run of a frame's children: it ends after a few possible directories,
        /// each of whose descriptors stays open until it is walked (one when descriptors run short).
        mutating func readRun(_ f: inout Frame, rel: [UInt8]) {
            let dirLimit = heldFDs + 64 < fdBudget ? 16 : 1
            var end = f.next, dirs = 0
            while end < f.names.count && end - f.next < 8192 {
                end += 1
                if f.names[end - 1].maybeDir { dirs += 1; if dirs >= dirLimit { break } }
            }
            let run = f.names[f.next..<end].map { $0.start }
            let dfd = f.dfd
            let threads = self.threads
            let reads = f.arena.withUnsafeBufferPointer { a in
                reader.readRun(dirfd: dfd, names: UnsafeRawPointer(a.baseAddress!).assumingMemoryBound(to: CChar.self), starts: run, rel: rel, threads: threads)
            }
            heldFDs += reads.reduce(0) { $0 + ($1.fd >= 0 ? 1 : 0) }
            f.reads = reads
            f.runStarts = run
            f.readIndex = 0
            f.next = end
            if f.next == f.names.count {
                // Every child is read: the directory's descriptor is not needed any more.
                close(f.dfd)
                f.dfd = -1
            }
        }

        mutating func record(_ entry: ScannedTree.Entry) {
            // Owners repeat from one node to the next: insert only a change.
            if entry.uid != lastUID { uids.insert(entry.uid); lastUID = entry.uid }
            if entry.gid != lastGID { gids.insert(entry.gid); lastGID = entry.gid }
            if let a = entry.access {
                for u in a.users { uids.insert(u.id) }
                for g in a.groups { gids.insert(g.id) }
            }
            if let a = entry.defaultACL {
                for u in a.users { uids.insert(u.id) }
                for g in a.groups { gids.insert(g.id) }
            }
            tree.entries.append(entry)
            if let p = progress, tree.entries.count % 5000 == 0 { p(tree.entries.count) }
        }

        mutating func resolveAccounts() {
            if options.allAccounts {
                let all = HostFacts.allAccounts()
                tree.users = all.users
                tree.groups = all.groups
                tree.notes += all.notes
                tree.allAccounts = true
                return
            }
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

    extension LoaderHost {
        /// This Linux machine: its real trees (`TreeScanner`) and its account database.
        public static let linux = LoaderHost(scan: { TreeScanner.scan($0, options: $1) }, accounts: .linux)
    }

    extension HostAccounts {
        /// This machine's account database (`getpwnam`, `getgrnam`).
        public static let linux = HostAccounts(user: { Sys.userNamed($0) }, group: { Sys.groupNamed($0) })
    }

#endif
