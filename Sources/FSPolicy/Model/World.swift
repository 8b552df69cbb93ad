/// Everything a decision depends on: principals, volumes and the node tree, as plain values.
/// Paths and names are interned to integers once, so decisions do no string building.
public struct World: Sendable {
    public private(set) var users: [User] = []
    public private(set) var groups: [Group] = []
    public internal(set) var volumes: [Volume] = []
    public internal(set) var nodes: [Node] = []
    public internal(set) var acls: [ACL] = []
    public internal(set) var posixACLs: [POSIXACL] = []
    public internal(set) var symlinkTargets: [NodeID: String] = [:]
    /// Principal indexes (first declaration wins, as a scan of the lists would find it).
    private var userByName: [String: Int] = [:]
    private var userByUID: [UID: Int] = [:]
    private var groupByName: [String: Int] = [:]
    private var groupByGID: [GID: Int] = [:]
    /// uid → gids of the groups listing it in `members`; gid → gids of the groups nesting it.
    private var memberOf: [UID: [GID]] = [:]
    private var nestedIn: [GID: [GID]] = [:]

    var aclIndex: [ACL: Int32] = [:]
    var posixIndex: [POSIXACL: Int32] = [:]
    /// The UTF-8 bytes of every interned name, back to back (`nameStart[i]..<nameStart[i+1]`),
    /// so path verification compares bytes without touching `String`s.
    var nameBytes: [UInt8] = []
    var nameStart: [Int32] = [0]
    /// Per volume: case-insensitive lookup needed (kept apart so lookups copy no strings).
    var foldNames: [Bool] = [false]
    /// Some volume folds names (case-insensitive): the path index's walk checks each record's.
    var anyFolding = false
    public internal(set) var volumeBits: [VolumeBits] = [VolumeBits(Volume(mountPath: "/"))]

    /// The decision-relevant flags of `node`'s volume.
    @inlinable public func volumeBits(of node: NodeID) -> VolumeBits { volumeBits[Int(self[node].volume)] }
    /// (parent, index hash of the name's UTF-8 bytes, case-folded on case-insensitive volumes)
    /// → child: the one child index. A hit is verified against the stored name; a miss is
    /// certain unless the directory is in `crowded`.
    var fastChildren = IntMap()
    /// Directories one of whose children lost its index entry to another node with the same
    /// key (a hash clash): lookups there that the index cannot answer scan the children.
    var crowded: Set<NodeID> = []
    /// Index hash of a node's full path → the node (verified against the path on use), so a
    /// lookup costs one hash of the path instead of one per component.
    var pathIndex = PathTable()
    /// Hash of each volume's mount path (except `/`) → the volume, when every mount path is
    /// canonical and no two hashes clash (`mountsCanonical`); otherwise new nodes find their
    /// volume by comparing their path with each mount path.
    var mountByHash: [UInt64: UInt16] = [:]
    var mountsCanonical = true
    /// Kept for listing children in a stable order.
    var childLinks = ChildLinks()

    /// The BSD securelevel (`kern.securelevel`); XNU's default is 0.
    public var securelevel: Int = 0
    /// Apps that can ask as subjects (`Request.app` indexes this list; docs/sandbox.md).
    public var apps: [App] = []
    /// Linux processes that ask as subjects, with capabilities (`services:`; docs/services.md).
    public var services: [Service] = []
    /// Programs with file capabilities (their `security.capability`; the `caps:` key of a node).
    public var fileCaps: [NodeID: FileCapabilities] = [:]
    /// The Data Protection state of the device (gates files with a `protection` class).
    public var device: DeviceState = .unlocked
    /// Nodes whose macOS ACL was mapped from a POSIX ACL (lossy; explanations say so).
    public var mappedACLNodes: Set<NodeID> = []
    /// Nodes whose owner, group and mode are stand-ins, not facts (`assumed: true`: the folders
    /// above a tree scanned with `--at`). Decisions use them as they are; traces say so.
    public var assumedNodes: Set<NodeID> = []
    /// Folders whose entries were not all read (and symlinks whose target was not), with why:
    /// a name missing from one of them is unknown, not absent (`unread:`; docs/semantics.md P6).
    public var unread: [NodeID: UnreadReason] = [:]
    /// What a file whose name marks it as possibly secret holds, when that was read (tree key
    /// `content:`; `ContentKind`). Lint's FSL012 leaves public material alone.
    public var contentKinds: [NodeID: ContentKind] = [:]
    /// Hard links: the names of one file (one inode), each group listed once; a node's group.
    /// Their attributes are the file's, the same through every name (`Model/HardLinks.swift`).
    public internal(set) var linkGroups: [[NodeID]] = []
    public internal(set) var linkGroupOf: [NodeID: Int32] = [:]
    /// In a service's view (U5–U7): the host's record of a node something was mounted over. The
    /// walk meets the mounted node, but unlinking or renaming the name checks the inode under
    /// it (its owner against a sticky folder, its immutable and append-only flags: may_delete).
    public internal(set) var underneath: [NodeID: Node] = [:]
    /// Linux's `fs.protected_*` sysctls (the `linux:` section; docs/semantics.md L12).
    public var linux = LinuxTunables()
    /// The world describes a Linux system: its file declares `semantics: linux`, as every
    /// `fspolicy scan` output does. Gid 12 is then no `everyone` (`implicitEveryone`).
    public var fromLinux = false
    /// Linux `fs.protected_hardlinks` as a switch (`linux.protectedHardlinks != 0`).
    public var protectedHardlinks: Bool {
        get { linux.protectedHardlinks != 0 }
        set { linux.protectedHardlinks = newValue ? 1 : 0 }
    }
    /// Defaults for implied directories.
    public var defaultOwner: UID = 0
    public var defaultGroup: GID = 0
    public var defaultDirMode = FileMode(0o755)
    public var defaultFileMode = FileMode(0o644)

    public static let root: NodeID = 0

    public init() {
        volumes = [Volume(mountPath: "/")]
        _ = intern("")
        nodes.append(
            Node(
                type: .dir, uid: 0, gid: 0, mode: FileMode(0o755), flags: [], acl: -1, posixACL: -1,
                defaultACL: -1, parent: 0, name: 0, volume: 0, protection: .unspecified,
                openBeforeLock: false, declared: false))
        childLinks.addNode()
    }

    // MARK: Principals

    public mutating func addGroup(_ g: Group) {
        let i = groups.count
        groups.append(g)
        if groupByName[g.name] == nil { groupByName[g.name] = i }
        if groupByGID[g.gid] == nil { groupByGID[g.gid] = i }
        for u in g.members { memberOf[u, default: []].append(g.gid) }
        for n in g.nested { nestedIn[n, default: []].append(g.gid) }
    }
    /// Makes room for this many users and groups in all (a hint: a big `users:` or `groups:`
    /// section is read without growing and rehashing the indexes on the way).
    public mutating func reservePrincipals(users u: Int, groups g: Int) {
        users.reserveCapacity(u)
        userByName.reserveCapacity(u)
        userByUID.reserveCapacity(u)
        groups.reserveCapacity(g)
        groupByName.reserveCapacity(g)
        groupByGID.reserveCapacity(g)
    }

    /// Replaces every user (the groups, the tree and all else stay).
    public mutating func setUsers(_ list: [User]) {
        users = []
        userByName = [:]
        userByUID = [:]
        reservePrincipals(users: list.count, groups: groups.count)
        for u in list { addUser(u) }
    }

    /// Replaces every group (the users, the tree and all else stay).
    public mutating func setGroups(_ list: [Group]) {
        groups = []
        groupByName = [:]
        groupByGID = [:]
        memberOf = [:]
        nestedIn = [:]
        reservePrincipals(users: users.count, groups: list.count)
        for g in list { addGroup(g) }
    }

    /// Replaces the groups' `members` and `nested` lists (the groups themselves, their names
    /// and gids, stay as they are, in the same order) and the indexes built from them.
    public mutating func setGroupLinks(_ links: [(members: [UID], nested: [GID])]) {
        precondition(links.count == groups.count, "one entry per group")
        memberOf = [:]
        nestedIn = [:]
        for (i, l) in links.enumerated() {
            groups[i].members = l.members
            groups[i].nested = l.nested
            for u in l.members { memberOf[u, default: []].append(groups[i].gid) }
            for n in l.nested { nestedIn[n, default: []].append(groups[i].gid) }
        }
    }

    public mutating func addUser(_ u: User) {
        let i = users.count
        users.append(u)
        if userByName[u.name] == nil { userByName[u.name] = i }
        if userByUID[u.uid] == nil { userByUID[u.uid] = i }
    }
    public mutating func replaceUser(at i: Int, with u: User) {
        users[i] = u
        userByName = [:]
        userByUID = [:]
        for (j, x) in users.enumerated() {
            if userByName[x.name] == nil { userByName[x.name] = j }
            if userByUID[x.uid] == nil { userByUID[x.uid] = j }
        }
    }

    public func user(named name: String) -> User? { userByName[name].map { users[$0] } }
    public func user(uid: UID) -> User? { userByUID[uid].map { users[$0] } }
    public func group(named name: String) -> Group? { groupByName[name].map { groups[$0] } }
    /// The index in `groups` of the first group called `name`.
    public func groupIndex(named name: String) -> Int? { groupByName[name] }
    public func group(gid: GID) -> Group? { groupByGID[gid].map { groups[$0] } }

    public func userName(_ uid: UID) -> String { user(uid: uid)?.name ?? String(uid) }
    public func groupName(_ gid: GID) -> String {
        if let g = group(gid: gid) { return g.name }
        if gid == WellKnown.everyoneGID { return "everyone" }
        return String(gid)
    }

    /// The credential of `uid`: primary group, supplementary groups, groups listing the user as a
    /// member, and (transitively) groups that nest any of those.
    public func subject(uid: UID) -> Subject {
        guard let u = user(uid: uid) else { return Subject(uid: uid, gid: uid == 0 ? 0 : 65534, groups: []) }
        var direct: Set<GID> = [u.gid]
        for g in u.supplementary { direct.insert(g) }
        for g in memberOf[uid] ?? [] { direct.insert(g) }
        // Groups nesting a group the user is in, transitively: a walk over the reverse index
        // (each group visited once, however long the chain).
        var all = direct
        var queue = Array(direct)
        while let g = queue.popLast() {
            for outer in nestedIn[g] ?? [] where all.insert(outer).inserted { queue.append(outer) }
        }
        // `everyone` (gid 12) is a macOS notion: on Linux gid 12 is an ordinary group, so it
        // counts as a direct membership only when declared, and a world read from another
        // system puts nobody in it unasked (`implicitEveryone`).
        if implicitEveryone { all.insert(WellKnown.everyoneGID) }
        let nestedOnly = all.subtracting(direct)
        return Subject(uid: uid, gid: u.gid, groups: Array(all), nestedOnly: Array(nestedOnly), umask: u.umask)
    }

    /// All ones; tests narrow it to make index keys clash on purpose (`crowded` directories).
    var childKeyMask: UInt64 = .max

    /// (Inlinable: a renderer reads a field or two of a node for every step it writes, and a
    /// call that returned the whole record cost more than the reading.)
    @inlinable public subscript(id: NodeID) -> Node {
        get { nodes[Int(id)] }
    }

    public var nodeCount: Int { nodes.count }
}
