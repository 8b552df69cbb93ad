#if os(Linux)
    import CLibACL
    import FSPolicy
    import Glibc

    /// POSIX ACLs as libacl reads them (`acl_get_file`, then `acl_get_entry`, `acl_get_tag_type`,
    /// `acl_get_qualifier`, `acl_get_permset` and `acl_get_perm` per entry): the reference the
    /// scanner's own reading of the ACL attributes is held to.
    enum LibACL {
        /// The entries of the access or default ACL of `path`, in libacl's order. For a node
        /// without an ACL attribute libacl gives the three base entries of the mode (access) or no
        /// entries (default); a file system without ACLs gives no entries.
        static func lines(path: UnsafePointer<CChar>, isDefault: Bool) -> Result<[POSIXACLLine], SysError> {
            let type = acl_type_t(isDefault ? clibacl_type_default() : clibacl_type_access())
            guard let acl = acl_get_file(path, type) else {
                let e = errno
                return e == ENOTSUP ? .success([]) : .failure(SysError(e))
            }
            defer { acl_free(UnsafeMutableRawPointer(acl)) }
            var out: [POSIXACLLine] = []
            var entry: acl_entry_t? = nil
            var which = ACL_FIRST_ENTRY
            while true {
                let r = acl_get_entry(acl, which, &entry)
                if r == 0 { break }
                guard r > 0, let e = entry else { return .failure(SysError(errno, detail: "libacl cannot list the ACL's entries")) }
                which = ACL_NEXT_ENTRY
                var tag: acl_tag_t = 0
                var set: acl_permset_t? = nil
                guard acl_get_tag_type(e, &tag) == 0, acl_get_permset(e, &set) == 0, let permset = set else {
                    return .failure(SysError(errno, detail: "libacl cannot read an entry of the ACL"))
                }
                var perms: RWX = []
                if acl_get_perm(permset, acl_perm_t(ACL_READ)) == 1 { perms.insert(.read) }
                if acl_get_perm(permset, acl_perm_t(ACL_WRITE)) == 1 { perms.insert(.write) }
                if acl_get_perm(permset, acl_perm_t(ACL_EXECUTE)) == 1 { perms.insert(.execute) }
                let t: POSIXACLLine.Tag
                switch tag {
                case ACL_USER_OBJ: t = .userObj
                case ACL_GROUP_OBJ: t = .groupObj
                case ACL_MASK: t = .mask
                case ACL_OTHER: t = .other
                case ACL_USER, ACL_GROUP:
                    guard let q = acl_get_qualifier(e) else { return .failure(SysError(errno, detail: "libacl gives no id for a named entry")) }
                    let id = q.load(as: UInt32.self)
                    acl_free(q)
                    t = tag == ACL_USER ? .user(id) : .group(id)
                default:
                    return .failure(SysError(EINVAL, detail: "libacl gives an entry of unknown kind \(tag)"))
                }
                out.append(POSIXACLLine(tag: t, perms: perms, isDefault: isDefault, effective: nil))
            }
            return .success(out)
        }

        /// The ACL of `path` as a node records it (`POSIXACLXattr.recorded`).
        static func acl(path: UnsafePointer<CChar>, isDefault: Bool) -> Result<POSIXACL?, SysError> {
            switch lines(path: path, isDefault: isDefault) {
            case .failure(let e): return .failure(e)
            case .success(let ls):
                switch POSIXACLXattr.recorded(ls, isDefault: isDefault) {
                case .success(let a): return .success(a)
                case .failure(let e): return .failure(SysError(EINVAL, detail: e.message))
                }
            }
        }

        /// The ACL of the node the `O_PATH` descriptor `fd` holds, named /proc/self/fd/N (libacl
        /// reads through `fgetxattr`, which the kernel refuses on an `O_PATH` descriptor).
        static func acl(fd: Int32, isDefault: Bool) -> Result<POSIXACL?, SysError> {
            Sys.withProcPath(fd: fd) { path, _ in acl(path: path, isDefault: isDefault) }
        }

        static func acl(path: String, isDefault: Bool) -> Result<POSIXACL?, SysError> {
            path.withCString { acl(path: $0, isDefault: isDefault) }
        }
    }
#endif
