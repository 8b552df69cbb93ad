/// Where TCC looks for removable and network media.
public enum VolumeKind: String, Sendable, CaseIterable {
    case `internal`, removable, network
}

/// A mounted volume. The longest mount-path prefix of a path decides which volume it is on.
public struct Volume: Hashable, Sendable {
    public var mountPath: String
    /// `MNT_RDONLY`: write rights → EROFS. Under linux: the file system itself (its superblock)
    /// is read-only, so `inode_permission` refuses writes before anything else.
    public var readOnly: Bool = false
    /// Linux: only this mount is read-only (`MNT_READONLY` on a bind mount), its file system is
    /// writable elsewhere. Calls that take the mount for writing first (create, delete, rename,
    /// attribute changes, truncate) are EROFS at once; opening a file for writing is EROFS only
    /// after the permission checks passed. Under macos and guide it is `readOnly`.
    public var readOnlyMount: Bool = false
    /// Linux `nodev`: opening a device node is EACCES.
    public var nodev: Bool = false
    /// Linux `nosuid`: set-user-ID and set-group-ID bits are ignored by `execve` (recorded; no
    /// access decision depends on it).
    public var nosuid: Bool = false
    /// The file-system type as the host reports it (`ext4`, `tmpfs`, …); informational.
    public var fsType: String = ""
    /// `MNT_NOEXEC`: execute on a regular file → EACCES.
    public var noexec: Bool = false
    /// `MNT_IGNORE_OWNERSHIP` ("Ignore ownership on this volume").
    public var ignoreOwnership: Bool = false
    /// ACLs stored and evaluated (`MNT_EXTENDED_SECURITY`; `acl` mount option on Linux).
    public var acls: Bool = true
    /// `mnt_fsowner` / `mnt_fsgroup`, used with ignoreOwnership (default 99).
    public var fsOwner: UID? = nil
    public var fsGroup: GID? = nil
    public var caseSensitive: Bool = true
    public var kind: VolumeKind = .internal

    public init(mountPath: String) { self.mountPath = mountPath }
}

/// The flags of a volume that decisions read, without its strings (cheap to copy).
public struct VolumeBits: Sendable {
    /// Read-only in any way (the file system or only the mount): `mnt_want_write` fails.
    public var readOnly: Bool
    /// The file system itself is read-only (`sb_rdonly`, checked by `inode_permission`).
    public var superblockReadOnly: Bool
    public var nodev: Bool
    public var noexec: Bool
    public var ignoreOwnership: Bool
    public var acls: Bool
    public var fsOwner: UID?
    public var fsGroup: GID?
    init(_ v: Volume) {
        readOnly = v.readOnly || v.readOnlyMount; superblockReadOnly = v.readOnly; nodev = v.nodev; noexec = v.noexec; ignoreOwnership = v.ignoreOwnership;
        acls = v.acls
        fsOwner = v.fsOwner; fsGroup = v.fsGroup
    }
}

/// iOS Data Protection classes.
public enum ProtectionClass: UInt8, Sendable, CaseIterable {
    case unspecified, complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none
    public var word: String {
        switch self {
        case .unspecified: ""
        case .complete: "complete"
        case .completeUnlessOpen: "completeUnlessOpen"
        case .completeUntilFirstUserAuthentication: "completeUntilFirstUserAuthentication"
        case .none: "none"
        }
    }

    /// The guide's letter for the class (A–D).
    public var letter: String {
        switch self {
        case .unspecified: "-"
        case .complete: "A"
        case .completeUnlessOpen: "B"
        case .completeUntilFirstUserAuthentication: "C"
        case .none: "D"
        }
    }

    /// The Foundation constant (`NSFileProtectionComplete`, …), as the Data Protection
    /// entitlement spells a class.
    public var foundationName: String {
        switch self {
        case .unspecified: ""
        case .complete: "NSFileProtectionComplete"
        case .completeUnlessOpen: "NSFileProtectionCompleteUnlessOpen"
        case .completeUntilFirstUserAuthentication: "NSFileProtectionCompleteUntilFirstUserAuthentication"
        case .none: "NSFileProtectionNone"
        }
    }
}

/// Where the class of a file about to be created comes from (docs/sandbox.md, rule D5).
public enum ProtectionSource: Hashable, Sendable {
    /// The nearest directory on the way up from the new file's parent that has a class.
    case directory(NodeID)
    /// The creating iOS app's `com.apple.developer.default-data-protection` entitlement.
    case entitlement
    /// An iOS app without the entitlement: class C, the default for third-party app data.
    case platformDefault
}

/// A POSIX.1e access or default ACL (Linux). Entries are kept in canonical order; a value
/// without `user::`, `group::`, `other::`, or with named entries but no `mask::`, cannot be built.
public struct POSIXACL: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var id: UInt32
        public var perms: RWX
        public init(id: UInt32, perms: RWX) { self.id = id; self.perms = perms }
    }
    public private(set) var userObj: RWX
    public private(set) var users: [Entry]
    public private(set) var groupObj: RWX
    public private(set) var groups: [Entry]
    public private(set) var mask: RWX?
    public private(set) var other: RWX

    public enum Invalid: Error, Hashable, Sendable {
        case missingMask, duplicateUser(UInt32), duplicateGroup(UInt32)
    }

    public init(userObj: RWX, users: [Entry] = [], groupObj: RWX, groups: [Entry] = [], mask: RWX? = nil, other: RWX) throws(Invalid) {
        if (!users.isEmpty || !groups.isEmpty) && mask == nil { throw .missingMask }
        let us = users.sorted { $0.id < $1.id }
        let gs = groups.sorted { $0.id < $1.id }
        for i in us.indices.dropFirst() where us[i].id == us[i - 1].id { throw .duplicateUser(us[i].id) }
        for i in gs.indices.dropFirst() where gs[i].id == gs[i - 1].id { throw .duplicateGroup(gs[i].id) }
        self.userObj = userObj
        self.users = us
        self.groupObj = groupObj
        self.groups = gs
        self.mask = mask
        self.other = other
    }

    /// The three base entries of a mode.
    public init(mode: FileMode) {
        userObj = mode.owner; users = []; groupObj = mode.group; groups = []; mask = nil; other = mode.other
    }

    /// Only the three base entries (equivalent to a mode).
    public var isMinimal: Bool { users.isEmpty && groups.isEmpty && mask == nil }
    /// The group-class bits `st_mode` shows: the mask if present, else `group::`.
    public var groupClass: RWX { mask ?? groupObj }
}

public typealias NodeID = Int32
public typealias NameID = Int32

/// One file-system object. Small and flat: ACLs live in a shared table of the world.
///
/// 48 bytes, the fields a walk up a path reads (the name's head and length, the parent, the
/// volume) first, then those a permission check reads: four records share three cache lines,
/// and a walk's fields sit in one line (they were spread over a 56-byte record, most of whose
/// records crossed a line).
public struct Node: Sendable {
    /// The name's first eight UTF-8 bytes, zero-padded, the first byte in the lowest bits, and
    /// (`nameLength`) its length in bytes, 255 for 255 or more: the path index verifies a match
    /// against these, in the node's own record, without reaching the name arena.
    public internal(set) var nameHead: UInt64 = 0
    public internal(set) var parent: NodeID
    public internal(set) var name: NameID
    public internal(set) var volume: UInt16
    public internal(set) var nameLength: UInt8 = 0
    public var type: NodeType
    public var uid: UID
    public var gid: GID
    public var flags: FileFlags
    /// Index into `World.acls`, or -1 for no ACL.
    public var acl: Int32
    /// Index into `World.posixACLs` (Linux access ACL), or -1.
    public var posixACL: Int32
    /// Index into `World.posixACLs` (Linux default ACL, directories), or -1.
    public var defaultACL: Int32
    public var mode: FileMode
    public var protection: ProtectionClass
    /// `openBeforeLock` and `declared`, one bit each.
    private var bits: UInt8 = 0
    /// A file handle was open before the device locked (`completeUnlessOpen`).
    public var openBeforeLock: Bool {
        get { bits & 1 != 0 }
        set { bits = newValue ? bits | 1 : bits & ~1 }
    }
    /// Declared in the input (false for implied ancestors).
    public var declared: Bool {
        get { bits & 2 != 0 }
        set { bits = newValue ? bits | 2 : bits & ~2 }
    }

    init(
        type: NodeType, uid: UID, gid: GID, mode: FileMode, flags: FileFlags, acl: Int32, posixACL: Int32, defaultACL: Int32,
        parent: NodeID, name: NameID, volume: UInt16, protection: ProtectionClass, openBeforeLock: Bool, declared: Bool
    ) {
        self.type = type
        self.uid = uid
        self.gid = gid
        self.mode = mode
        self.flags = flags
        self.acl = acl
        self.posixACL = posixACL
        self.defaultACL = defaultACL
        self.parent = parent
        self.name = name
        self.volume = volume
        self.protection = protection
        self.openBeforeLock = openBeforeLock
        self.declared = declared
    }

    @inlinable public var isDir: Bool { type == .dir }
}

extension World {
    /// `n` is a mount point: the root of a volume mounted on a name of another volume's
    /// directory (not `/`). Removing or renaming it is refused (rule O8).
    @inlinable public func isMountPoint(_ n: NodeID) -> Bool {
        n != World.root && self[n].volume != self[self[n].parent].volume
    }
}
