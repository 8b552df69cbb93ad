/// A numeric user id (`uid_t`).
public typealias UID = UInt32
/// A numeric group id (`gid_t`).
public typealias GID = UInt32

/// A declared user account.
public struct User: Hashable, Sendable {
    public var name: String
    public var uid: UID
    /// The primary group (`egid` of the user's processes).
    public var gid: GID
    /// Supplementary groups as declared (`groups:`).
    public var supplementary: [GID]
    /// The umask applied to objects this user creates (default `022`).
    public var umask: UInt16
    public var home: String?

    public init(name: String, uid: UID, gid: GID, supplementary: [GID] = [], umask: UInt16 = 0o022, home: String? = nil) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.supplementary = supplementary
        self.umask = umask
        self.home = home
    }
}

/// A declared group. `members` are uids; `nested` are groups whose members belong too
/// (macOS resolves nested groups through opendirectoryd; Linux does not).
public struct Group: Hashable, Sendable {
    public var name: String
    public var gid: GID
    public var members: [UID]
    public var nested: [GID]

    public init(name: String, gid: GID, members: [UID] = [], nested: [GID] = []) {
        self.name = name
        self.gid = gid
        self.members = members
        self.nested = nested
    }
}

/// The credential a request is decided for: the effective uid, the effective gid and the full
/// set of groups the caller is a member of (sorted, deduplicated). Build it with
/// `World.subject(uid:)`, which resolves membership once.
public struct Subject: Hashable, Sendable {
    public var uid: UID
    public var gid: GID
    /// Sorted, including `gid`.
    public var groups: [GID]
    /// Groups of `groups` that come only through nesting (used by linux, which ignores them).
    public var nestedOnly: [GID]
    public var umask: UInt16
    /// The effective capability set (Linux; docs/semantics.md, C). A user's process has root's
    /// full set for uid 0 and none otherwise; a service or `--caps` says otherwise. The macos and
    /// guide rule sets never read it.
    public var caps: Capabilities
    /// The process has `no_new_privs` set: an execve gains no capabilities and no set-user-ID
    /// identity (C9).
    public var noNewPrivileges: Bool
    /// The mounts a systemd unit's sandbox options give the process (U1–U5); nil: the host's.
    public var view: MountView? = nil

    public init(
        uid: UID, gid: GID, groups: [GID], nestedOnly: [GID] = [], umask: UInt16 = 0o022,
        caps: Capabilities? = nil, noNewPrivileges: Bool = false
    ) {
        self.uid = uid
        self.caps = caps ?? (uid == 0 ? .all : [])
        self.noNewPrivileges = noNewPrivileges
        self.gid = gid
        var g = groups
        if !g.contains(gid) { g.append(gid) }
        g.sort()
        var dedup: [GID] = []
        for x in g where dedup.last != x { dedup.append(x) }
        self.groups = dedup
        self.nestedOnly = nestedOnly.sorted()
        self.umask = umask
    }

    @inlinable public var isRoot: Bool { uid == 0 }

    /// The capability `c` is in the effective set (what `capable()` asks under linux).
    @inlinable public func has(_ c: Capabilities) -> Bool { caps.rawValue & c.rawValue == c.rawValue }

    /// The caller's capabilities are those a process of its uid has by default (all for uid 0,
    /// none otherwise): the shortcuts that treat uid 0 as the capable caller hold.
    @inlinable public var defaultCaps: Bool { caps == (uid == 0 ? .all : []) }

    /// Member of `gid`, nested groups included.
    @inlinable public func isMember(_ g: GID) -> Bool {
        if g == gid { return true }
        for x in groups where x == g { return true }
        return false
    }

    /// Member of `gid` the way Linux sees it: egid or the supplementary list, no nesting.
    @inlinable public func isDirectMember(_ g: GID) -> Bool {
        if !isMember(g) { return false }
        for x in nestedOnly where x == g { return g == gid }
        return true
    }
}

extension World {
    /// Every user is a member of gid 12, macOS's `everyone`, without being listed: true for a
    /// macOS world; false when the world was read from Linux (`fromLinux`) or names another
    /// group with gid 12 (Debian's `man`), whose rights such a membership would hand to
    /// everyone (docs/semantics.md, "Identities on a world from another system").
    public var implicitEveryone: Bool {
        if fromLinux { return false }
        guard let g = group(gid: WellKnown.everyoneGID) else { return true }
        return g.name == "everyone"
    }

    /// The note a macos or guide decision carries on a world where `implicitEveryone` is off,
    /// nil elsewhere.
    public var foreignIdentityNote: String? {
        guard !implicitEveryone else { return nil }
        let twelve = group(gid: WellKnown.everyoneGID).map { "gid 12 is the group `\($0.name)`" } ?? "gid 12 is no group"
        let whence = fromLinux ? "this world was read from Linux, where \(twelve)" : "in this world \(twelve)"
        return
            "\(whence), not macOS's `everyone`: the macOS rule sets give its users only the groups it lists (and the groups nesting those), never gid 12 unasked; an ACE for `everyone` still applies to every user"
    }
}

/// The well-known macOS group ids.
public enum WellKnown {
    /// `everyone` (`ABCDEFAB-CDEF-ABCD-EFAB-CDEF0000000C`).
    public static let everyoneGID: GID = 12
    /// `_unknown`: uid/gid 99, which a non-root caller sees as itself.
    public static let unknownID: UInt32 = 99
}
