/// The kernel's binary form of a POSIX ACL, as stored in the `system.posix_acl_access` and
/// `system.posix_acl_default` extended attributes (and copied into tar archives as
/// `SCHILY.xattr.system.posix_acl_*`): little-endian, a 4-byte version (2), then 8 bytes per
/// entry — a 2-byte tag, 2-byte permissions (read 4, write 2, execute 1) and a 4-byte user or
/// group id, meaningful for named entries only. The one decoder of that form: the scanner's
/// cross-check against libacl and the tar reader both use it.
public enum POSIXACLXattr {
    /// The only version the kernel writes (`POSIX_ACL_XATTR_VERSION`).
    public static let version: UInt32 = 2
    /// The bytes before the first entry, and the bytes of each entry.
    public static let headerSize = 4
    public static let entrySize = 8

    /// The tag numbers of the form (`ACL_USER_OBJ` … `ACL_OTHER`).
    public enum TagCode {
        public static let userObj: UInt16 = 0x01
        public static let user: UInt16 = 0x02
        public static let groupObj: UInt16 = 0x04
        public static let group: UInt16 = 0x08
        public static let mask: UInt16 = 0x10
        public static let other: UInt16 = 0x20
    }

    /// Why bytes are not an ACL.
    public enum DecodeError: Error, Hashable, Sendable {
        /// Fewer than 4 bytes, or a length that is not 4 plus a multiple of 8.
        case badLength(Int)
        /// A version word other than 2.
        case badVersion(UInt32)
        /// An entry whose tag is none of the six the kernel knows.
        case unknownTag(UInt16)
        /// Entries the kernel would never store together (a missing or repeated base entry,
        /// named entries without a mask, a user or group named twice).
        case invalid(String)

        public var message: String {
            switch self {
            case .badLength(let n): "the ACL attribute is not in the kernel's format: \(n) bytes is not 4 plus 8 per entry"
            case .badVersion(let v): "the ACL attribute is not in the kernel's format: version \(v), not 2"
            case .unknownTag(let t): "the ACL attribute has an entry of unknown kind \(t)"
            case .invalid(let m): "the ACL attribute is not a valid ACL: " + m
            }
        }
    }

    /// The entries of `bytes`, in their stored order, marked `isDefault`.
    public static func lines(_ bytes: UnsafeRawBufferPointer, isDefault: Bool) -> Result<[POSIXACLLine], DecodeError> {
        guard bytes.count >= headerSize, (bytes.count - headerSize) % entrySize == 0 else { return .failure(.badLength(bytes.count)) }
        let v = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        guard v == version else { return .failure(.badVersion(v)) }
        var out: [POSIXACLLine] = []
        out.reserveCapacity((bytes.count - headerSize) / entrySize)
        var o = headerSize
        while o < bytes.count {
            let tag = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt16.self))
            let bits = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 2, as: UInt16.self))
            let id = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self))
            o += entrySize
            var perms: RWX = []
            if bits & 4 != 0 { perms.insert(.read) }
            if bits & 2 != 0 { perms.insert(.write) }
            if bits & 1 != 0 { perms.insert(.execute) }
            let t: POSIXACLLine.Tag
            switch tag {
            case TagCode.userObj: t = .userObj
            case TagCode.user: t = .user(id)
            case TagCode.groupObj: t = .groupObj
            case TagCode.group: t = .group(id)
            case TagCode.mask: t = .mask
            case TagCode.other: t = .other
            default: return .failure(.unknownTag(tag))
            }
            out.append(POSIXACLLine(tag: t, perms: perms, isDefault: isDefault, effective: nil))
        }
        return .success(out)
    }

    public static func lines(_ bytes: [UInt8], isDefault: Bool) -> Result<[POSIXACLLine], DecodeError> {
        bytes.withUnsafeBytes { lines($0, isDefault: isDefault) }
    }

    /// The ACL `bytes` hold, as a node records it: nil for no entries, and nil for an access
    /// ACL of only the three base entries (it repeats the mode); a default ACL is kept even
    /// then (it is what new children inherit).
    public static func decode(_ bytes: UnsafeRawBufferPointer, isDefault: Bool) -> Result<POSIXACL?, DecodeError> {
        switch lines(bytes, isDefault: isDefault) {
        case .failure(let e): return .failure(e)
        case .success(let ls): return recorded(ls, isDefault: isDefault)
        }
    }

    public static func decode(_ bytes: [UInt8], isDefault: Bool) -> Result<POSIXACL?, DecodeError> {
        bytes.withUnsafeBytes { decode($0, isDefault: isDefault) }
    }

    /// Entries as a node records them (see `decode`): whatever read them, from this form,
    /// libacl or an archive's text.
    public static func recorded(_ lines: [POSIXACLLine], isDefault: Bool) -> Result<POSIXACL?, DecodeError> {
        if lines.isEmpty { return .success(nil) }
        switch POSIXACL.build(lines) {
        case .success(let a): return .success(a.isMinimal && !isDefault ? nil : a)
        case .failure(let e): return .failure(.invalid(e.message))
        }
    }

    /// The bytes of `acl` in this form, in the kernel's order (base and named entries by tag,
    /// named ones by id); the ids of unnamed entries are `ACL_UNDEFINED_ID` (all ones).
    public static func encode(_ acl: POSIXACL) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + entrySize * (4 + acl.users.count + acl.groups.count))
        func put32(_ x: UInt32) { for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) } }
        func put16(_ x: UInt16) { out.append(UInt8(truncatingIfNeeded: x)); out.append(UInt8(truncatingIfNeeded: x >> 8)) }
        func entry(_ tag: UInt16, _ p: RWX, _ id: UInt32 = .max) {
            put16(tag)
            put16((p.contains(.read) ? 4 : 0) | (p.contains(.write) ? 2 : 0) | (p.contains(.execute) ? 1 : 0))
            put32(id)
        }
        put32(version)
        entry(TagCode.userObj, acl.userObj)
        for u in acl.users { entry(TagCode.user, u.perms, u.id) }
        entry(TagCode.groupObj, acl.groupObj)
        for g in acl.groups { entry(TagCode.group, g.perms, g.id) }
        if let m = acl.mask { entry(TagCode.mask, m) }
        entry(TagCode.other, acl.other)
        return out
    }
}
