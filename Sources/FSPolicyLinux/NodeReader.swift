#if os(Linux)
    import Dispatch
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// Reads single nodes through their `O_PATH` descriptors: statx, the symlink target, the ACLs.
    /// Immutable once made, so several threads can read with it at once.
    struct NodeReader: @unchecked Sendable {
        let acls: Sys.ACLReader
        /// The scanned root as written (for the paths of problems).
        let root: String

        init(root: String) {
            acls = Sys.ACLReader()
            self.root = root
        }

        func close() { acls.close() }

        func display(_ rel: [UInt8]) -> String {
            rel.isEmpty ? root : (root == "/" ? "" : root) + "/" + NameEscaping.escape(rel)
        }

        /// The entry for the node `fd` holds (its path left empty) and the problems met reading
        /// it; `path` names it in those problems.
        func read(fd: Int32, st: Sys.Stat, path: () -> String) -> (ScannedTree.Entry, [ScannedTree.Problem]) {
            var entry = ScannedTree.Entry(relativePath: "", type: st.type, uid: st.uid, gid: st.gid, mode: st.mode, flags: st.flags)
            // A file with several names: its identity, so that the names are one file (O8).
            if st.nlink > 1 && st.type != .dir { entry.inode = ScannedTree.Inode(dev: st.dev, ino: st.ino) }
            var problems: [ScannedTree.Problem] = []
            func report(_ what: String, _ e: SysError) { problems.append(ScannedTree.Problem(path: path(), message: what + ": " + e.message)) }
            if st.type == .symlink {
                switch Sys.readlink(fd: fd) {
                case .success(let t): entry.target = NameEscaping.escape(t)
                case .failure(let e): report("cannot read the link", e); entry.unread = e.code == ENOENT ? .changed : .denied
                }
                return (entry, problems)
            }
            guard acls.available else { return (entry, problems) }
            // The ACL attributes are read as the kernel stores them and decoded by
            // `POSIXACLXattr`, not through libacl: `acl_get_fd` is `fgetxattr`, which the kernel
            // refuses on an `O_PATH` descriptor, so libacl needs the whole /proc/self/fd/N path
            // (`acl_get_file`) instead of one `getxattrat`, and for a node without an ACL it adds a
            // `stat` to make one from the mode. On 100,000 files (a tenth with ACLs) that made
            // `scan` about 30% slower (CPU 1.72 s against 2.24 s, wall 2.8 s against 3.9 s,
            // medians; 27% and 60% on a tree without ACLs). `LibACLTests` holds this reading to
            // libacl's (`LibACL`) on every node of a scanned tree with random ACLs.
            switch acls.acl(fd: fd, isDefault: false) {
            case .success(let a): entry.access = a
            case .failure(let e): report("cannot read the ACL", e)
            }
            if st.type == .file {
                switch acls.fileCaps(fd: fd) {
                case .success(let c): entry.caps = c
                case .failure(let e): report("cannot read the file capabilities", e)
                }
            }
            if st.type == .dir {
                switch acls.acl(fd: fd, isDefault: true) {
                case .success(let a): entry.defaultACL = a
                case .failure(let e): report("cannot read the default ACL", e)
                }
            }
            return (entry, problems)
        }

        /// What the regular file `name` in `dirfd` holds (`ContentKind`), from its first
        /// `ContentKind.readLimit` bytes; nil when it cannot be read as it was stat'ed. Opened with
        /// `O_NOATIME`, so reading leaves its access time alone: where that is refused (a file of
        /// another user, without CAP_FOWNER) it is not read at all, and FSL012 takes it for a secret.
        /// Never a FIFO or a device (`O_NONBLOCK`, and the type checked on the descriptor).
        func content(dirfd: Int32, name: UnsafePointer<CChar>, st: Sys.Stat) -> ContentKind? {
            let fd = Glibc.openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | Sys.oNoATime)
            guard fd >= 0 else { return nil }
            defer { Glibc.close(fd) }
            // The file stat'ed, not one renamed into its place since.
            guard case .success(let now) = Sys.stat(fd: fd), now.type == .file, now.dev == st.dev, now.ino == st.ino else { return nil }
            let limit = ContentKind.readLimit
            var bytes = [UInt8](repeating: 0, count: limit + 1)
            var got = 0
            while got < bytes.count {
                let n = bytes.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
                if n < 0 { if errno == EINTR { continue }; return nil }
                if n == 0 { break }
                got += n
            }
            let complete = got <= limit
            bytes.removeSubrange(min(got, limit)...)
            return ContentKind.classify(bytes, complete: complete)
        }

        /// What was read of one child of a directory.
        struct ChildRead: Sendable {
            var st: Sys.Stat? = nil
            var entry: ScannedTree.Entry? = nil
            /// The child's `O_PATH` descriptor, kept open for a directory (-1 otherwise).
            var fd: Int32 = -1
            var problems: [ScannedTree.Problem] = []
        }

        /// Reads the children named at `starts` (offsets of C strings in `names`) of the directory
        /// `dirfd`, whose path below the root is `rel`: each opened `O_PATH | O_NOFOLLOW` relative
        /// to `dirfd`, then read through that descriptor. Results in the order of `starts`.
        func readRun(dirfd: Int32, names: UnsafePointer<CChar>, starts: [Int], rel: [UInt8], threads: Int) -> [ChildRead] {
            var out = [ChildRead](repeating: ChildRead(), count: starts.count)
            let block = 64
            let blocks = (starts.count + block - 1) / block
            out.withUnsafeMutableBufferPointer { buf in
                let sink = Sink(buf: buf, names: names)
                let work: @Sendable (Int) -> Void = { b in
                    var childRel = rel
                    if !rel.isEmpty { childRel.append(0x2f) }
                    let prefix = childRel.count
                    for k in (b * block)..<min(starts.count, (b + 1) * block) {
                        childRel.removeSubrange(prefix...)
                        let name = sink.names + starts[k]
                        childRel.append(contentsOf: UnsafeBufferPointer(start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name)))
                        sink.buf[k] = readChild(dirfd: dirfd, name: name, rel: childRel)
                    }
                }
                if threads > 1 && blocks > 1 {
                    DispatchQueue.concurrentPerform(iterations: blocks, execute: work)
                } else {
                    for b in 0..<blocks { work(b) }
                }
            }
            return out
        }

        /// The buffers `readRun`'s threads share: each writes only its own indices.
        private struct Sink: @unchecked Sendable {
            let buf: UnsafeMutableBufferPointer<ChildRead>
            let names: UnsafePointer<CChar>
        }

        func readChild(dirfd: Int32, name: UnsafePointer<CChar>, rel: [UInt8]) -> ChildRead {
            var r = ChildRead()
            let fd = Glibc.openat(dirfd, name, Sys.oPath | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                let e = SysError(errno)
                var p = ScannedTree.Problem(path: display(rel), message: (e.code == ENOENT ? "vanished during the scan" : "cannot stat") + ": " + e.message)
                p.vanished = e.code == ENOENT
                r.problems.append(p)
                return r
            }
            switch Sys.stat(fd: fd) {
            case .failure(let e):
                r.problems.append(ScannedTree.Problem(path: display(rel), message: "cannot stat: " + e.message))
                Glibc.close(fd)
                return r
            case .success(let st):
                var (entry, problems) = read(fd: fd, st: st) { display(rel) }
                entry.relativePath = NameEscaping.escape(rel)
                if st.type == .file, ContentKind.isSensitiveName(UnsafeRawBufferPointer(start: name, count: strlen(name))) {
                    entry.content = content(dirfd: dirfd, name: name, st: st)
                }
                r.st = st
                r.entry = entry
                r.problems = problems
                if st.type == .dir { r.fd = fd } else { Glibc.close(fd) }
                return r
            }
        }
    }
#endif
