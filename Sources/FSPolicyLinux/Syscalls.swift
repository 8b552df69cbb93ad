#if os(Linux)
import CLibACL
import FSPolicy
import FSPolicyFormat
import Glibc

/// Typed Swift wrappers over the C interfaces the scanner needs (statx, libacl, readlink,
/// the account database). Every `acl_t` is freed in a `defer` right after it is obtained.
enum Sys {
    struct Stat {
        var type: NodeType
        var mode: FileMode
        var uid: UID
        var gid: GID
        var flags: FileFlags
        /// The mount the node is on (`stx_mnt_id`), or nil when the kernel does not report it.
        var mountID: UInt64?
        var dev: UInt64
    }

    static let oPath = clibacl_o_path()

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
        let r = clibacl_statx(fd, "", Int32(CLIBACL_AT_EMPTY_PATH | CLIBACL_AT_SYMLINK_NOFOLLOW | CLIBACL_AT_NO_AUTOMOUNT),
                              CLIBACL_STATX_BASIC_STATS | CLIBACL_STATX_MNT_ID, &st)
        if r != 0 { return .failure(SysError(errno)) }
        // S_IFMT and the S_IF* values (octal, as in <sys/stat.h>).
        let type: NodeType
        switch UInt32(st.stx_mode) & 0o170000 {
        case 0o040000: type = .dir
        case 0o120000: type = .symlink
        case 0o010000: type = .fifo
        case 0o140000: type = .socket
        case 0o020000, 0o060000: type = .device
        default: type = .file
        }
        var flags: FileFlags = []
        let attrs = st.stx_attributes & st.stx_attributes_mask
        if attrs & UInt64(CLIBACL_ATTR_IMMUTABLE) != 0 { flags.insert(.systemImmutable) }
        if attrs & UInt64(CLIBACL_ATTR_APPEND) != 0 { flags.insert(.systemAppend) }
        if attrs & UInt64(CLIBACL_ATTR_NODUMP) != 0 { flags.insert(.userNoDump) }
        let mnt: UInt64? = st.stx_mask & CLIBACL_STATX_MNT_ID != 0 ? st.stx_mnt_id : nil
        return .success(Stat(type: type, mode: FileMode(st.stx_mode & 0o7777), uid: st.stx_uid, gid: st.stx_gid, flags: flags,
                             mountID: mnt, dev: UInt64(st.stx_dev_major) << 32 | UInt64(st.stx_dev_minor)))
    }

    /// `/proc/self/fd/N`: naming a descriptor's node this way reaches exactly that inode (the
    /// kernel follows the descriptor, it does not look the old name up again).
    static func withFDPath<T>(_ fd: Int32, _ body: (UnsafePointer<CChar>) -> T) -> T {
        var buf = [CChar](repeating: 0, count: 32)
        let prefix = Array("/proc/self/fd/".utf8)
        var digits: [UInt8] = []
        var n = Int(fd)
        repeat { digits.append(UInt8(48 + n % 10)); n /= 10 } while n > 0
        let bytes = prefix + digits.reversed()
        for (i, b) in bytes.enumerated() { buf[i] = CChar(bitPattern: b) }
        return buf.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The access or default ACL of the node `fd` holds (an `O_PATH` descriptor), through
    /// libacl on `/proc/self/fd/N`, or nil when it has no extended ACL (libacl synthesizes a
    /// 3-entry ACL from the mode, or an empty default ACL).
    static func acl(fd: Int32, isDefault: Bool) -> Result<POSIXACL?, SysError> {
        let type = acl_type_t(isDefault ? clibacl_type_default() : clibacl_type_access())
        // Most nodes have no ACL: ask for the attribute's size first. (On ENODATA libacl
        // would stat the node to build an ACL from its mode, which is thrown away anyway.)
        let attr = isDefault ? "system.posix_acl_default" : "system.posix_acl_access"
        let size: Int = withFDPath(fd) { p in getxattr(p, attr, UnsafeMutableRawPointer(bitPattern: 0), 0) }
        if size < 0 {
            let e = errno
            if e == ENODATA || e == ENOTSUP { return .success(nil) }
            return .failure(SysError(e))
        }
        guard let acl = withFDPath(fd, { acl_get_file($0, type) }) else {
            let e = errno
            if e == ENOTSUP || e == ENODATA { return .success(nil) }
            return .failure(SysError(e))
        }
        defer { acl_free(UnsafeMutableRawPointer(acl)) }
        var lines: [POSIXACLLine] = []
        var entry: acl_entry_t? = nil
        var r = acl_get_entry(acl, ACL_FIRST_ENTRY, &entry)
        while r == 1, let e = entry {
            var tag: acl_tag_t = 0
            acl_get_tag_type(e, &tag)
            var ps: acl_permset_t? = nil
            acl_get_permset(e, &ps)
            var perms: RWX = []
            if acl_get_perm(ps, acl_perm_t(ACL_READ)) == 1 { perms.insert(.read) }
            if acl_get_perm(ps, acl_perm_t(ACL_WRITE)) == 1 { perms.insert(.write) }
            if acl_get_perm(ps, acl_perm_t(ACL_EXECUTE)) == 1 { perms.insert(.execute) }
            var qualifier: UInt32 = clibacl_undefined_id()
            if tag == ACL_USER || tag == ACL_GROUP, let q = acl_get_qualifier(e) {
                qualifier = q.load(as: UInt32.self)
                acl_free(q)
            }
            let t: POSIXACLLine.Tag
            switch tag {
            case ACL_USER_OBJ: t = .userObj
            case ACL_USER: t = .user(qualifier)
            case ACL_GROUP_OBJ: t = .groupObj
            case ACL_GROUP: t = .group(qualifier)
            case ACL_MASK: t = .mask
            default: t = .other
            }
            lines.append(POSIXACLLine(tag: t, perms: perms, isDefault: isDefault, effective: nil))
            r = acl_get_entry(acl, ACL_NEXT_ENTRY, &entry)
        }
        if lines.isEmpty { return .success(nil) }
        switch POSIXACL.build(lines) {
        case .success(let a): return .success(a.isMinimal && !isDefault ? nil : a)
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
        return ScannedTree.HostUser(name: name, uid: uid, gid: pw.pw_gid, groups: Array(groups.prefix(Int(max(count, 0)))).filter { $0 != pw.pw_gid }.sorted())
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
