#if os(Linux)
    import CLibACL
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// Typed Swift wrappers over the C interfaces the scanner needs (statx, the ACL extended
    /// attributes, readlink, the account database).
    enum Sys {
        struct Stat: Sendable {
            var type: NodeType
            var mode: FileMode
            var uid: UID
            var gid: GID
            var flags: FileFlags
            /// The mount the node is on (`stx_mnt_id`), or nil when the kernel does not report it.
            var mountID: UInt64?
            var dev: UInt64
            /// The inode number and how many names it has (hard links).
            var ino: UInt64 = 0
            var nlink: UInt32 = 1
        }

        static let oPath = clibacl_o_path()
        static let oNoATime = clibacl_o_noatime()

        /// `openat(dirfd, name, O_PATH | O_NOFOLLOW)`: a descriptor for the node itself (a symlink
        /// stays a symlink), which opens nothing for I/O and needs no permission on the node.
        static func openNode(dirfd: Int32, name: UnsafePointer<CChar>) -> Result<Int32, SysError> {
            let fd = Glibc.openat(dirfd, name, oPath | O_NOFOLLOW | O_CLOEXEC)
            return fd < 0 ? .failure(SysError(errno)) : .success(fd)
        }

        /// `statx(fd, "", AT_EMPTY_PATH)`: type, mode, owner, the immutable, append and nodump
        /// attributes and the mount id of exactly the node `fd` holds.
        static func stat(fd: Int32) -> Result<Stat, SysError> {
            var st = clibacl_statx()
            let r = clibacl_statx(
                fd, "", Int32(CLIBACL_AT_EMPTY_PATH | CLIBACL_AT_SYMLINK_NOFOLLOW | CLIBACL_AT_NO_AUTOMOUNT),
                CLIBACL_STATX_BASIC_STATS | CLIBACL_STATX_MNT_ID, &st)
            if r != 0 { return .failure(SysError(errno)) }
            // S_IFMT and the S_IF* values (octal, as in <sys/stat.h>).
            let type: NodeType
            switch UInt32(st.stx_mode) & 0o170000 {
            case 0o040000: type = .dir
            case 0o120000: type = .symlink
            case 0o010000: type = .fifo
            case 0o140000: type = .socket
            case 0o020000: type = .charDevice
            case 0o060000: type = .blockDevice
            default: type = .file
            }
            var flags: FileFlags = []
            let attrs = st.stx_attributes & st.stx_attributes_mask
            if attrs & UInt64(CLIBACL_ATTR_IMMUTABLE) != 0 { flags.insert(.systemImmutable) }
            if attrs & UInt64(CLIBACL_ATTR_APPEND) != 0 { flags.insert(.systemAppend) }
            if attrs & UInt64(CLIBACL_ATTR_NODUMP) != 0 { flags.insert(.userNoDump) }
            let mnt: UInt64? = st.stx_mask & CLIBACL_STATX_MNT_ID != 0 ? st.stx_mnt_id : nil
            return .success(
                Stat(
                    type: type, mode: FileMode(st.stx_mode & 0o7777), uid: st.stx_uid, gid: st.stx_gid, flags: flags,
                    mountID: mnt, dev: UInt64(st.stx_dev_major) << 32 | UInt64(st.stx_dev_minor),
                    ino: st.stx_ino, nlink: st.stx_nlink))
        }

        /// Reads the ACLs of nodes held by `O_PATH` descriptors. The kernel reads no extended
        /// attribute through an `O_PATH` descriptor (EBADF), so the node is named through
        /// /proc/self/fd/N, which reaches exactly the descriptor's inode (the kernel follows the
        /// descriptor, it does not look the old name up again). With `getxattrat` (Linux 6.13) the
        /// name is looked up relative to a descriptor of /proc/self/fd opened once: one name to
        /// look up instead of four; on older kernels, the whole path.
        struct ACLReader: Sendable {
            /// An `O_PATH` descriptor of /proc/self/fd, or -1.
            let procDir: Int32
            /// The kernel has `getxattrat`.
            private let useAt: Bool

            init() {
                procDir = Glibc.open("/proc/self/fd", Sys.oPath | O_DIRECTORY | O_CLOEXEC)
                // Any answer but ENOSYS (no such attribute, most likely) means the call exists.
                useAt = procDir >= 0 && (clibacl_getxattrat(procDir, ".", 0, "user.fspolicy-probe", nil, 0) >= 0 || errno != ENOSYS)
            }

            /// /proc/self/fd can be read (without /proc the ACLs are not read at all).
            var available: Bool { procDir >= 0 }

            /// Closes the /proc/self/fd descriptor; the reader is not used after this.
            func close() {
                if procDir >= 0 { _ = Glibc.close(procDir) }
            }

            /// The access or default ACL of the node `fd` holds, or nil when it has no extended ACL
            /// (no attribute, or an access ACL that only repeats the mode).
            func acl(fd: Int32, isDefault: Bool) -> Result<POSIXACL?, SysError> {
                let attr = isDefault ? "system.posix_acl_default" : "system.posix_acl_access"
                // Most nodes have no ACL, and an ACL of a few entries fits in the first buffer: one
                // system call either way (4 bytes of header and 8 per entry).
                let first: Result<POSIXACL?, SysError>? = withUnsafeTemporaryAllocation(byteCount: 512, alignment: 8) { buf in
                    let n = read(fd: fd, attr: attr, into: buf.baseAddress, size: buf.count)
                    if n >= 0 { return Sys.parseACL(UnsafeRawBufferPointer(rebasing: buf[0..<n]), isDefault: isDefault) }
                    return errno == ERANGE ? nil : Sys.noACL(errno)
                }
                if let r = first { return r }
                // Larger: ask for the size, then read (again if it grew in between).
                for _ in 0..<4 {
                    let size = read(fd: fd, attr: attr, into: nil, size: 0)
                    if size < 0 { return Sys.noACL(errno) }
                    var bytes = [UInt8](repeating: 0, count: size)
                    let n = bytes.withUnsafeMutableBytes { read(fd: fd, attr: attr, into: $0.baseAddress, size: $0.count) }
                    if n >= 0 { return bytes.withUnsafeBytes { Sys.parseACL(UnsafeRawBufferPointer(rebasing: $0[0..<n]), isDefault: isDefault) } }
                    if errno != ERANGE { return Sys.noACL(errno) }
                }
                return .failure(SysError(ERANGE, detail: "the ACL kept changing size while it was read"))
            }

            /// The file capabilities (`security.capability`) of the node `fd` holds: nil when it has
            /// none; a failure for a value that is not a version 2 or 3 one.
            func fileCaps(fd: Int32) -> Result<FileCapabilities?, SysError> {
                withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buf in
                    let n = read(fd: fd, attr: "security.capability", into: buf.baseAddress, size: buf.count)
                    if n < 0 {
                        let e = errno
                        return e == ENODATA || e == ENOTSUP ? .success(nil) : .failure(SysError(e))
                    }
                    let bytes = Array(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
                    guard let fc = FileCapabilities.decode(bytes) else {
                        return .failure(SysError(EINVAL, detail: "security.capability holds \(n) bytes that are not a version 2 or 3 value"))
                    }
                    return .success(fc)
                }
            }

            /// `getxattr` of the node `fd` holds: the number of bytes, or -1 and errno.
            private func read(fd: Int32, attr: String, into value: UnsafeMutableRawPointer?, size: Int) -> Int {
                Sys.withProcPath(fd: fd) { path, number in
                    useAt ? clibacl_getxattrat(procDir, number, 0, attr, value, size) : getxattr(path, attr, value, size)
                }
            }
        }

        /// `body` with "/proc/self/fd/N" for the descriptor `fd`, NUL-terminated, and its last
        /// name `N` (a pointer into the same string).
        static func withProcPath<T>(fd: Int32, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> T) -> T {
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { p in
                let prefix = "/proc/self/fd/"
                var i = 0
                for b in prefix.utf8 { p[i] = CChar(bitPattern: b); i += 1 }
                var digits = 0, n = Int(fd)
                repeat { digits += 1; n /= 10 } while n > 0
                n = Int(fd)
                for k in stride(from: i + digits - 1, through: i, by: -1) { p[k] = CChar(48 + n % 10); n /= 10 }
                p[i + digits] = 0
                return body(p.baseAddress!, p.baseAddress! + i)
            }
        }

        /// No ACL (ENODATA: no attribute; ENOTSUP: the file system has none) or a failure.
        static func noACL(_ e: Int32) -> Result<POSIXACL?, SysError> {
            e == ENODATA || e == ENOTSUP ? .success(nil) : .failure(SysError(e))
        }

        /// An ACL from the kernel's extended-attribute form (`POSIXACLXattr`); nil for none.
        static func parseACL(_ bytes: UnsafeRawBufferPointer, isDefault: Bool) -> Result<POSIXACL?, SysError> {
            switch POSIXACLXattr.decode(bytes, isDefault: isDefault) {
            case .success(let a): return .success(a)
            case .failure(let e): return .failure(SysError(EINVAL, detail: e.message))
            }
        }

        /// `readlinkat(fd, "")`: the target of the symlink an `O_PATH | O_NOFOLLOW` descriptor holds.
        static func readlink(fd: Int32) -> Result<[UInt8], SysError> {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { Glibc.readlinkat(fd, "", $0, p.count) }
            }
            if n < 0 { return .failure(SysError(errno)) }
            return .success(Array(buf[0..<n]))
        }

        static func userInfo(_ uid: UID) -> ScannedTree.HostUser? {
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buf = [CChar](repeating: 0, count: 16384)
            guard getpwuid_r(uid, &pw, &buf, buf.count, &result) == 0, result != nil, let namePtr = pw.pw_name else { return nil }
            let name = NameEscaping.escape(HostFacts.bytes(namePtr))
            var count: Int32 = 64
            var groups = [gid_t](repeating: 0, count: 64)
            if getgrouplist(namePtr, pw.pw_gid, &groups, &count) == -1 {
                groups = [gid_t](repeating: 0, count: Int(count))
                _ = getgrouplist(namePtr, pw.pw_gid, &groups, &count)
            }
            return ScannedTree.HostUser(
                name: name, uid: uid, gid: pw.pw_gid, groups: Array(groups.prefix(Int(max(count, 0)))).filter { $0 != pw.pw_gid }.sorted())
        }

        static func userNamed(_ name: String) -> ScannedTree.HostUser? {
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buf = [CChar](repeating: 0, count: 16384)
            guard getpwnam_r(name, &pw, &buf, buf.count, &result) == 0, result != nil else { return nil }
            return userInfo(pw.pw_uid)
        }

        static func groupNamed(_ name: String) -> GID? {
            var gr = group()
            var result: UnsafeMutablePointer<group>? = nil
            var buf = [CChar](repeating: 0, count: 16384)
            guard getgrnam_r(name, &gr, &buf, buf.count, &result) == 0, result != nil else { return nil }
            return gr.gr_gid
        }

        static func groupName(_ gid: GID) -> String? {
            var gr = group()
            var result: UnsafeMutablePointer<group>? = nil
            var buf = [CChar](repeating: 0, count: 16384)
            guard getgrgid_r(gid, &gr, &buf, buf.count, &result) == 0, result != nil, let n = gr.gr_name else { return nil }
            return NameEscaping.escape(HostFacts.bytes(n))
        }
    }

    struct SysError: Error {
        var code: Int32
        var detail: String?
        init(_ code: Int32, detail: String? = nil) { self.code = code; self.detail = detail }
        var message: String { detail ?? String(cString: strerror(code)) }
    }
#endif
