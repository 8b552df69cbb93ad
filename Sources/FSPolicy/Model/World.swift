/// Everything a decision depends on: principals, volumes and the node tree, as plain values.
/// Paths and names are interned to integers once, so decisions do no string building.
public struct World: Sendable {
    public private(set) var users: [User] = []
    public private(set) var groups: [Group] = []
    public private(set) var volumes: [Volume] = []
    public private(set) var nodes: [Node] = []
    public private(set) var acls: [ACL] = []
    public private(set) var posixACLs: [POSIXACL] = []
    public private(set) var symlinkTargets: [NodeID: String] = [:]
    /// Principal indexes (first declaration wins, as a scan of the lists would find it).
    private var userByName: [String: Int] = [:]
    private var userByUID: [UID: Int] = [:]
    private var groupByName: [String: Int] = [:]
    private var groupByGID: [GID: Int] = [:]
    /// uid → gids of the groups listing it in `members`; gid → gids of the groups nesting it.
    private var memberOf: [UID: [GID]] = [:]
    private var nestedIn: [GID: [GID]] = [:]

    private var aclIndex: [ACL: Int32] = [:]
    private var posixIndex: [POSIXACL: Int32] = [:]
    /// The UTF-8 bytes of every interned name, back to back (`nameStart[i]..<nameStart[i+1]`),
    /// so path verification compares bytes without touching `String`s.
    private(set) var nameBytes: [UInt8] = []
    private(set) var nameStart: [Int32] = [0]
    /// Per volume: case-insensitive lookup needed (kept apart so lookups copy no strings).
    private(set) var foldNames: [Bool] = [false]
    /// Some volume folds names (case-insensitive): the path index's walk checks each record's.
    private(set) var anyFolding = false
    public private(set) var volumeBits: [VolumeBits] = [VolumeBits(Volume(mountPath: "/"))]

    /// The decision-relevant flags of `node`'s volume.
    @inlinable public func volumeBits(of node: NodeID) -> VolumeBits { volumeBits[Int(self[node].volume)] }
    /// (parent, index hash of the name's UTF-8 bytes, case-folded on case-insensitive volumes)
    /// → child: the one child index. A hit is verified against the stored name; a miss is
    /// certain unless the directory is in `crowded`.
    private var fastChildren = IntMap()
    /// Directories one of whose children lost its index entry to another node with the same
    /// key (a hash clash): lookups there that the index cannot answer scan the children.
    private(set) var crowded: Set<NodeID> = []
    /// Index hash of a node's full path → the node (verified against the path on use), so a
    /// lookup costs one hash of the path instead of one per component.
    private(set) var pathIndex = PathTable()
    /// Hash of each volume's mount path (except `/`) → the volume, when every mount path is
    /// canonical and no two hashes clash (`mountsCanonical`); otherwise new nodes find their
    /// volume by comparing their path with each mount path.
    private var mountByHash: [UInt64: UInt16] = [:]
    private var mountsCanonical = true
    /// Kept for listing children in a stable order.
    private var childLinks = ChildLinks()

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
        nodes.append(Node(type: .dir, uid: 0, gid: 0, mode: FileMode(0o755), flags: [], acl: -1, posixACL: -1,
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

    // MARK: Volumes

    /// Adds or replaces the volume at `v.mountPath`. Call before adding nodes.
    public mutating func setVolume(_ v: Volume) {
        if let i = volumes.firstIndex(where: { $0.mountPath == v.mountPath }) { volumes[i] = v } else { volumes.append(v) }
        reassignVolumes()
    }

    public func volume(of node: NodeID) -> Volume { volumes[Int(nodes[Int(node)].volume)] }

    /// The volume of a new node under `parent` whose path hashes to `hash`: the parent's, unless
    /// the node is itself a mount point (same as `volumeIndex(forPath:)`, without spelling the
    /// path, which would make a deep path quadratic). `path` spells it when it must be checked.
    private func volumeForNew(under parent: NodeID, hash: UInt64, path: () -> String) -> UInt16 {
        if volumes.count <= 1 { return 0 }
        guard mountsCanonical else { return volumeIndex(forPath: path()) }
        if let i = mountByHash[hash], volumes[Int(i)].mountPath == path() { return i }
        return nodes[Int(parent)].volume
    }

    /// `path` is absolute and canonical: no empty, `.` or `..` component, no trailing slash.
    static func isCanonical(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        return !path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    private func volumeIndex(forPath path: String) -> UInt16 {
        if volumes.count <= 1 { return 0 }   // the one volume (the loop below would say the same)
        var best = 0
        var bestLen = -1
        for (i, v) in volumes.enumerated() {
            let m = v.mountPath
            let matches = m == "/" || path == m || path.hasPrefix(m.hasSuffix("/") ? m : m + "/")
            if matches && m.count > bestLen { best = i; bestLen = m.count }
        }
        return UInt16(best)
    }

    private mutating func reassignVolumes() {
        foldNames = volumes.map { !$0.caseSensitive }
        anyFolding = foldNames.contains(true)
        volumeBits = volumes.map(VolumeBits.init)
        mountByHash = [:]
        mountsCanonical = true
        for (i, v) in volumes.enumerated() where v.mountPath != "/" {
            guard World.isCanonical(v.mountPath) else { mountsCanonical = false; continue }
            let h = World.fnv(v.mountPath)
            if mountByHash[h] != nil { mountsCanonical = false }
            mountByHash[h] = UInt16(i)
        }
        guard mountsCanonical, nodes.count > 1 else {
            for i in nodes.indices { nodes[i].volume = volumeIndex(forPath: path(of: NodeID(i))) }
            return
        }
        // Parents before children, each path's hash extended from its parent's: a node is on
        // its parent's volume unless it is a mount point itself.
        var reached = [Bool](repeating: false, count: nodes.count)
        nodes[0].volume = volumeIndex(forPath: "/")
        reached[0] = true
        var stack: [(NodeID, PathHasher)] = [(World.root, PathHasher())]
        while let (dir, state) = stack.popLast() {
            for c in childLinks.children(of: dir) where !reached[Int(c)] {
                reached[Int(c)] = true
                var s = state
                s.append(0x2F)
                appendName(of: c, to: &s)
                let h = s.finish()
                if let i = mountByHash[h], volumes[Int(i)].mountPath == path(of: c) {
                    nodes[Int(c)].volume = i
                } else {
                    nodes[Int(c)].volume = nodes[Int(dir)].volume
                }
                stack.append((c, s))
            }
        }
        // Nodes no longer in the tree (removed by a step) keep the rule by path.
        for i in nodes.indices where !reached[i] { nodes[i].volume = volumeIndex(forPath: path(of: NodeID(i))) }
    }

    /// Appends `node`'s stored name (not a lookup's spelling of it) to a path hash.
    private func appendName(of node: NodeID, to hasher: inout PathHasher) {
        let id = Int(nodes[Int(node)].name)
        let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
        nameBytes.withUnsafeBufferPointer { arena in
            hasher.append(UnsafeBufferPointer(rebasing: arena[from..<to]))
        }
    }

    // MARK: Names and lookup

    /// Stores a name's bytes in the arena (each node its own entry: nothing is looked up by
    /// name id, so equal names need not share one).
    private mutating func intern<S: StringProtocol>(_ s: S) -> NameID {
        let id = NameID(nameStart.count - 1)
        nameBytes.append(contentsOf: s.utf8)
        nameStart.append(Int32(nameBytes.count))
        return id
    }

    public func name(of node: NodeID) -> String {
        let id = Int(nodes[Int(node)].name)
        let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
        return nameBytes.withUnsafeBufferPointer { a in String(decoding: UnsafeBufferPointer(rebasing: a[from..<to]), as: UTF8.self) }
    }

    /// A read-only view of the nodes, their names and the links between directories and
    /// their children, for a walk that changes nothing (`withNamesAndLinks`): what it reads
    /// goes straight to the tables, where a method of the world called on a world held in
    /// another value may copy the world's 312 bytes and retain every table for each call.
    public struct NamesAndLinks {
        @usableFromInline let nodes: UnsafeBufferPointer<Node>
        let starts: UnsafeBufferPointer<Int32>
        let bytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let links: ChildLinks.View

        /// `dir`'s first child (in the order they were added), or -1 when it has none.
        @inlinable public func firstChild(of dir: NodeID) -> NodeID { links.firstChild(of: dir) }
        /// The child added after `child` to its directory, or -1 when it is the last.
        @inlinable public func nextSibling(of child: NodeID) -> NodeID { links.nextSibling(of: child) }
        /// The record of `node`.
        @inlinable public func node(_ node: NodeID) -> Node { nodes[Int(node)] }

        /// Whether `node`'s name here and `otherNode`'s name in `other` are the same bytes.
        public func sameName(_ node: NodeID, as otherNode: NodeID, in other: NamesAndLinks) -> Bool {
            let x = nodes[Int(node)], y = other.nodes[Int(otherNode)]
            guard x.nameHead == y.nameHead, x.nameLength == y.nameLength else { return false }
            // The first eight bytes and the length agree: a name of eight bytes or fewer is the same.
            if x.nameLength <= 8 { return true }
            let i = Int(x.name), j = Int(y.name)
            let from = Int(starts[i]), n = Int(starts[i + 1]) - from
            let otherFrom = Int(other.starts[j])
            guard n == Int(other.starts[j + 1]) - otherFrom else { return false }
            var k = 8
            while k < n && bytes[from + k] == other.bytes[otherFrom + k] { k += 1 }
            return k == n
        }
    }

    /// Calls `body` with a view of the nodes, names and child links (valid during the call).
    public func withNamesAndLinks<R>(_ body: (NamesAndLinks) -> R) -> R {
        nodes.withUnsafeBufferPointer { n in
            nameStart.withUnsafeBufferPointer { s in
                nameBytes.withUnsafeBufferPointer { b in
                    childLinks.withView { l in body(NamesAndLinks(nodes: n, starts: s, bytes: b, links: l)) }
                }
            }
        }
    }

    private func folded(_ name: Substring, in dir: NodeID) -> String {
        foldNames[Int(nodes[Int(dir)].volume)] ? name.lowercased() : String(name)
    }

    /// The child called `name` in directory `dir`, without any permission check.
    public func child(_ dir: NodeID, _ name: Substring) -> NodeID? {
        var key = folded(name, in: dir)
        return key.withUTF8 { exactChild(dir, $0, hash: World.fnv($0)) }
    }

    /// The child of `dir` whose index key (its name, case-folded on a case-insensitive volume)
    /// is exactly `key`, whose hash is `hash`: from the index, or by scanning the children
    /// when the index cannot tell.
    private func exactChild(_ dir: NodeID, _ key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> NodeID? {
        if let c = fastChildren[fastKey(dir, hash)], keyMatches(c, of: dir, key) { return c }
        guard crowded.contains(dir) else { return nil }
        for c in childLinks.children(of: dir) where keyMatches(c, of: dir, key) { return c }
        return nil
    }

    /// `node` is a child of `dir` whose index key is exactly `key`.
    private func keyMatches(_ node: NodeID, of dir: NodeID, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = nodes[Int(node)]
        guard n.parent == dir, node != World.root else { return false }
        if foldNames[Int(nodes[Int(dir)].volume)] {
            var k = name(of: node).lowercased()
            return k.withUTF8 { $0.elementsEqual(key) }
        }
        return nameEquals(n, key)
    }

    // MARK: Byte-level lookup (the hot path)

    @inline(__always)
    static func memEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        // Eight bytes at a time, then a tail of four, two and one.
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= n {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        if n - i >= 4 {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt32.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt32.self) { return false }
            i += 4
        }
        if n - i >= 2 {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt16.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt16.self) { return false }
            i += 2
        }
        return i == n || a[i] == b[i]
    }

    /// The index hash of a path or name: FNV-style over eight-byte words, then the tail (the
    /// last one to seven bytes, zero-padded, as one more word), then the length and a final mix.
    /// Every key is verified byte for byte after lookup, so the hash only has to spread keys,
    /// never to prove equality. (The tail was folded a byte at a time: up to seven dependent
    /// multiplications more before a lookup could load its index slot.)
    @inline(__always)
    public static func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = fnvSeed
        let n = bytes.count
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                h = (h ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* fnvPrime
                i += 8
            }
            let rest = n &- i
            if rest > 0 {
                var tail: UInt64 = 0
                if n >= 8 {
                    // The eight bytes ending at the end, shifted down to the tail's first byte.
                    tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) &>> (UInt64(8 &- rest) &* 8)
                } else {
                    for k in 0..<rest { tail |= UInt64(base[k]) &<< (UInt64(k) &* 8) }
                }
                h = (h ^ tail) &* fnvPrime
            }
        }
        return fnvFinish(h, length: n)
    }

    static let fnvSeed: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x100_0000_01b3

    /// `fnv`'s last step (shared with `PathHasher`): the length, then a mix of the bits.
    @inline(__always)
    static func fnvFinish(_ state: UInt64, length: Int) -> UInt64 {
        var h = state ^ UInt64(length)
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 32
        return h
    }

    static func fnv(_ s: String) -> UInt64 {
        var s = s
        return s.withUTF8 { fnv($0) }
    }

    @inline(__always)
    func fastKey(_ parent: NodeID, _ hash: UInt64) -> UInt64 {
        ((hash &* 0x9e37_79b9_7f4a_7c15) ^ UInt64(UInt32(bitPattern: parent))) & childKeyMask
    }

    /// All ones; tests narrow it to make index keys clash on purpose (`crowded` directories).
    var childKeyMask: UInt64 = .max

    private func keyHash(_ name: Substring, in dir: NodeID) -> UInt64 {
        World.fnv(folded(name, in: dir))
    }

    /// The node whose path is exactly `bytes` (canonical: `/`-separated, no empty, `.` or `..`
    /// components, no trailing slash), verified segment by segment against its ancestors'
    /// names; nil when absent or not canonical. Not used on case-insensitive volumes.
    func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>) -> NodeID? {
        var walked = 0
        return indexedNode(bytes, chain: nil, walked: &walked)
    }

    /// The same; with `chain`, also the nodes the verification walked through, the node first,
    /// up to the root (not included): `walked` is set to how many there were (more than
    /// `chain.count` when they did not all fit). A search of the path's directories then needs
    /// no second walk up (`Eval.resolveIndexed`).
    func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>, chain: UnsafeMutableBufferPointer<NodeID>?, walked: inout Int) -> NodeID? {
        World.indexedNode(bytes, chain: chain, walked: &walked, index: pathIndex, nodes: nodes, fold: foldNames, folding: anyFolding,
                          names: nameBytes, starts: nameStart)
    }

    /// The lookup itself, on the tables it reads, passed one by one: `WorldBox` asks it of the
    /// world it holds this way, because a method of that `World` called through the box had the
    /// whole `World` (312 bytes) copied to the stack first, on every decision.
    @inline(__always)
    static func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>, chain: UnsafeMutableBufferPointer<NodeID>?, walked: inout Int,
                            index: PathTable, nodes: [Node], fold: [Bool], folding: Bool, names: [UInt8], starts: [Int32]) -> NodeID? {
        guard let base = bytes.baseAddress else { return nil }
        let total = bytes.count
        // (`folding` is checked once, not at every level, in the common world with no
        // case-insensitive volume.) The chain's room (none without one), and the count kept in
        // a register until the end.
        let slots = chain?.baseAddress
        let room = chain?.count ?? 0
        var count = 0
        defer { walked = count }
        return nodes.withUnsafeBufferPointer { all in
            fold.withUnsafeBufferPointer { fold in
                index.first(World.fnv(bytes)) { n in
                    verify(n, base, total, all, fold, folding: folding, names: names, starts: starts, slots: slots, room: room, count: &count) ? n : nil
                }
            }
        }
    }

    /// Whether `n`'s path is exactly `bytes` (the index's verification of a candidate, alone:
    /// `PathIndexTests` asks it of every node against every path).
    func pathMatches(_ n: NodeID, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, n >= 0, Int(n) < nodes.count else { return false }
        var count = 0
        return nodes.withUnsafeBufferPointer { all in
            foldNames.withUnsafeBufferPointer { fold in
                World.verify(n, base, bytes.count, all, fold, folding: anyFolding, names: nameBytes, starts: nameStart, slots: nil, room: 0, count: &count)
            }
        }
    }

    /// Verifies from the end that `base[0..<total]` is `n`'s path: each segment must be exactly
    /// the name of the next ancestor, preceded by a slash. A segment sits at a known length
    /// before the previous slash, so there is no scanning, only one comparison. The nodes passed
    /// are recorded in `slots` (up to `room`) and counted in `count`; false on a case-folding
    /// volume when `folding`.
    @inline(__always)
    private static func verify(_ n: NodeID, _ base: UnsafePointer<UInt8>, _ total: Int, _ all: UnsafeBufferPointer<Node>,
                               _ fold: UnsafeBufferPointer<Bool>, folding: Bool, names: [UInt8], starts: [Int32],
                               slots: UnsafeMutablePointer<NodeID>?, room: Int, count: inout Int) -> Bool {
        let raw = UnsafeRawPointer(base)
        var end = total
        var cur = n
        count = 0
        while cur != World.root {
            if count < room { slots.unsafelyUnwrapped[count] = cur }
            count &+= 1
            let node = all[Int(cur)]
            if folding && fold[Int(node.volume)] { return false }
            var length = Int(node.nameLength)
            if length <= 7 && end >= 8 {
                // The common segment, in one comparison: the eight bytes ending at
                // its end, shifted down to the slash before it, are that slash and
                // then the name (`nameHead` is zero above the name's bytes). The
                // slash is at `end - length - 1 >= end - 8 >= 0`.
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end &- 8, as: UInt64.self))
                guard length > 0, word &>> (UInt64(7 &- length) &* 8) == (node.nameHead &<< 8) | 0x2f else { return false }
                end = end &- length &- 1
                cur = node.parent
                continue
            }
            if length == 255 { length = World.nameByteCount(node.name, starts: starts) }
            let start = end - length
            guard length > 0, start > 0, base[start - 1] == 0x2f else { return false }
            if length == 8 && end >= 8 {
                // Eight bytes (shorter names were checked above): the word ending at the
                // segment's end is the name's head, its slash checked apart.
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
                guard word == node.nameHead else { return false }
            } else if end < 8 && total >= 8 {
                // A short segment in the path's first eight bytes: those bytes,
                // shifted down to the segment and cut to its length.
                let word = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
                let mask: UInt64 = (1 << (UInt64(length) &* 8)) &- 1
                guard (word >> (UInt64(start) &* 8)) & mask == node.nameHead else { return false }
            } else {
                guard nameEquals(node, UnsafeBufferPointer(start: base + start, count: length), names: names, starts: starts) else { return false }
            }
            end = start - 1
            cur = node.parent
        }
        return end == 0
    }

    /// Reads ahead, for a batch of path lookups, what they will read: each path's first index
    /// slot (`hashes` holds each path's `World.fnv`), then the record of the node found there,
    /// then its parent's, and so on up to the root, one level at a time across the whole batch.
    /// The loads of one level do not wait for each other, so their cache misses overlap, where
    /// a lookup on its own waits for each in turn (the parent's number is in the child's
    /// record); the lookups that follow find those lines in the cache. Changes nothing in the
    /// world; `hashes` is scratch space and is overwritten. The result only folds what was read,
    /// so that the loads are kept.
    public func readAhead(_ hashes: UnsafeMutableBufferPointer<UInt64>) -> Int32 {
        var live = 0
        for i in hashes.indices {
            let n = pathIndex.firstProbe(hashes[i])
            if n > 0 && Int(n) < nodes.count { hashes[live] = UInt64(n); live += 1 }
        }
        return nodes.withUnsafeBufferPointer { all in
            var sink: Int32 = 0
            var depth = 0
            // A level per round; a path deeper than 64 is read ahead only so far.
            while live > 0 && depth < 64 {
                var next = 0
                for i in 0..<live {
                    let p = all[Int(hashes[i])].parent
                    sink ^= p
                    if p != World.root { hashes[next] = UInt64(UInt32(bitPattern: p)); next += 1 }
                }
                live = next
                depth += 1
            }
            return sink
        }
    }

    /// `node`'s name is exactly `bytes`: the head and length from the record, the rest (names
    /// longer than eight bytes) from the arena.
    func nameEquals(_ node: Node, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        World.nameEquals(node, bytes, names: nameBytes, starts: nameStart)
    }

    /// The same on the name arena and its offsets, passed in.
    static func nameEquals(_ node: Node, _ bytes: UnsafeBufferPointer<UInt8>, names: [UInt8], starts: [Int32]) -> Bool {
        let n = bytes.count
        if n > 8 {
            // The head is the first eight bytes as they are (one load, not a loop).
            let head = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self))
            guard head == node.nameHead, Int(node.nameLength) == min(n, 255) else { return false }
        } else {
            guard n > 0, World.nameHead(bytes) == (node.nameHead, node.nameLength) else { return false }
            return true
        }
        let id = Int(node.name)
        let from = Int(starts[id])
        guard Int(starts[id + 1]) - from == n else { return false }
        return names.withUnsafeBufferPointer { arena in
            memEqual(arena.baseAddress! + from + 8, bytes.baseAddress! + 8, n - 8)
        }
    }

    private func nameByteCount(_ id: NameID) -> Int { World.nameByteCount(id, starts: nameStart) }

    /// The length in bytes of name `id`, from the arena's offsets.
    @inline(__always)
    private static func nameByteCount(_ id: NameID, starts: [Int32]) -> Int { Int(starts[Int(id) + 1] - starts[Int(id)]) }

    /// The head and length fields of a node whose name has these UTF-8 bytes (see `Node.nameHead`).
    static func nameHead<C: Collection>(_ bytes: C) -> (head: UInt64, length: UInt8) where C.Element == UInt8 {
        var head: UInt64 = 0
        for (i, b) in bytes.prefix(8).enumerated() { head |= UInt64(b) << (UInt64(i) &* 8) }
        return (head, UInt8(min(bytes.count, 255)))
    }

    /// The child of `dir` whose name is exactly `bytes`, or nil when there is none or the fast
    /// index cannot tell (a hash clash, a case-insensitive volume): callers then use `child`.
    @inline(__always)
    func fastChild(_ dir: NodeID, _ bytes: UnsafeBufferPointer<UInt8>) -> (found: NodeID?, certain: Bool) {
        if foldNames[Int(nodes[Int(dir)].volume)] { return (nil, false) }
        guard let c = fastChildren[fastKey(dir, World.fnv(bytes))] else { return (nil, !crowded.contains(dir)) }
        let node = nodes[Int(c)]
        guard node.parent == dir, nameEquals(node, bytes) else { return (nil, false) }
        return (c, true)
    }

    func foldNamesAt(_ dir: NodeID) -> Bool { foldNames[Int(nodes[Int(dir)].volume)] }

    public func children(of dir: NodeID) -> [NodeID] { Array(childLinks.children(of: dir)) }

    /// The node at an absolute path, without permission checks or symlink resolution.
    public func lookup(_ path: String) -> NodeID? {
        // A canonical path of a node the index holds: one hashed probe, verified name by name.
        var p = path
        if let n = p.withUTF8({ indexedNode($0) }) { return n }
        var cur = World.root
        for comp in path.split(separator: "/") where comp != "." {
            guard let c = child(cur, comp) else { return nil }
            cur = c
        }
        return cur
    }

    public func path(of node: NodeID) -> String {
        if node == World.root { return "/" }
        let length = pathByteCount(of: node)
        return String(unsafeUninitializedCapacity: length) { out in
            writePath(of: node, length: length, into: out)
            return length
        }
    }

    /// The number of bytes of `path(of: node)`, without making it.
    public func pathByteCount(of node: NodeID) -> Int {
        if node == World.root { return 1 }
        var length = 0
        var cur = node
        while cur != World.root {
            length += 1 + nameByteCount(nodes[Int(cur)].name)
            cur = nodes[Int(cur)].parent
        }
        return length
    }

    /// Writes the bytes of `path(of: node)` at the start of `out`, which holds at least `length`
    /// bytes, `length` being `pathByteCount(of: node)` (the names' bytes from the arena, written
    /// from the end).
    public func writePath(of node: NodeID, length: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        if node == World.root { out[0] = 0x2F; return }
        precondition(out.count >= length)
        nameBytes.withUnsafeBufferPointer { arena in
            var end = length
            var cur = node
            while cur != World.root {
                let id = Int(nodes[Int(cur)].name)
                let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
                end -= to - from
                for k in 0..<(to - from) { out[end + k] = arena[from + k] }
                end -= 1
                out[end] = 0x2F
                cur = nodes[Int(cur)].parent
            }
        }
    }

    /// Writes `path(of: node)` after one walk up: `room(length)` says where, with room for the
    /// path's `length` bytes and 8 more that may be written over but are not part of it (a name
    /// of up to eight bytes is written with one store of its head from the node's record, so
    /// the arena is read only for longer names). A path more than 64 deep is counted, then
    /// written from the end (`writePath(of:length:into:)`).
    public func writePath(of node: NodeID, room: (Int) -> UnsafeMutablePointer<UInt8>) {
        if node == World.root { room(1)[0] = 0x2F; return }
        withUnsafeTemporaryAllocation(of: NodeID.self, capacity: 64) { chain in
            nodes.withUnsafeBufferPointer { all in
                var depth = 0, length = 0, cur = node
                while cur != World.root && depth < 64 {
                    chain[depth] = cur
                    let r = all[Int(cur)]
                    length += 1 + (r.nameLength < 255 ? Int(r.nameLength) : nameByteCount(r.name))
                    cur = r.parent
                    depth += 1
                }
                if cur != World.root {
                    let n = pathByteCount(of: node)
                    writePath(of: node, length: n, into: UnsafeMutableBufferPointer(start: room(n), count: n))
                    return
                }
                let p = room(length)
                var at = 0
                nameBytes.withUnsafeBufferPointer { arena in
                    for k in stride(from: depth - 1, through: 0, by: -1) {
                        let r = all[Int(chain[k])]
                        p[at] = 0x2F
                        at += 1
                        if r.nameLength <= 8 {
                            UnsafeMutableRawPointer(p + at).storeBytes(of: r.nameHead.littleEndian, as: UInt64.self)
                            at += Int(r.nameLength)
                        } else {
                            let id = Int(r.name)
                            let from = Int(nameStart[id]), n = Int(nameStart[id + 1]) - from
                            UnsafeMutableRawPointer(p + at).copyMemory(from: arena.baseAddress! + from, byteCount: n)
                            at += n
                        }
                    }
                }
            }
        }
    }

    /// (Inlinable: a renderer reads a field or two of a node for every step it writes, and a
    /// call that returned the whole record cost more than the reading.)
    @inlinable public subscript(id: NodeID) -> Node {
        get { nodes[Int(id)] }
    }

    public var nodeCount: Int { nodes.count }

    // MARK: Building

    /// Makes room for `count` nodes in all, so a big tree is built without growing and rehashing
    /// its tables on the way (a hint: nothing changes if the room is already there).
    public mutating func reserveCapacity(nodes count: Int) {
        guard count > nodes.capacity else { return }
        nodes.reserveCapacity(count)
        childLinks.reserveCapacity(count)
        nameStart.reserveCapacity(count + 1)
        nameBytes.reserveCapacity(nameBytes.count + (count - nodes.count) * 10)
        fastChildren.reserveCapacity(count)
        pathIndex.reserveCapacity(count)
    }

    /// Creates the node at `path` (or updates the existing one), creating implied ancestor
    /// directories from the defaults. Returns its id.
    @discardableResult
    public mutating func addNode(path: String, type: NodeType, uid: UID, gid: GID, mode: FileMode,
                                 flags: FileFlags = [], acl: ACL? = nil, declared: Bool = true) -> NodeID {
        var hint = AddNodeHint()
        return addNode(path: path, type: type, uid: uid, gid: gid, mode: mode, flags: flags, acl: acl, declared: declared, hint: &hint)
    }

    /// Where the previous `addNode` of a run put its node: the directory and its path as
    /// given. The next node given under the same directory (siblings come one after another
    /// in a sorted tree) starts there instead of walking down from the root again. Only for
    /// runs of `addNode` with nothing else changing the tree in between.
    public struct AddNodeHint {
        var parentPath: Substring? = nil
        var parent: NodeID = 0
        /// `parentPath` is the directory's canonical path (the path index verified it), so a
        /// path in it is the new node's path as `path(of:)` would spell it.
        var canonical = false
        public init() {}
        init(parentPath: Substring, parent: NodeID, canonical: Bool = false) {
            self.parentPath = parentPath
            self.parent = parent
            self.canonical = canonical
        }
    }

    /// `addNode(path:…)`, starting from `hint`'s directory when `path` is in it (same result).
    public mutating func addNode(path: String, type: NodeType, uid: UID, gid: GID, mode: FileMode,
                                 flags: FileFlags = [], acl: ACL?, declared: Bool, hint: inout AddNodeHint) -> NodeID {
        var aclID: Int32 = -1
        if let a = acl { aclID = internACL(a) }
        // The same directory as the previous node: only the last name is new. (The walk from
        // the root would find the same directories, already made directories by that node's walk.)
        if let prev = hint.parentPath, let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex {
            let dir = path[..<slash]
            let name = path[path.utf8.index(after: slash)...]
            if !name.isEmpty && name != "." && World.sameBytes(dir, prev) {
                return addStep(cur: hint.parent, comp: name, last: true, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                               aclID: aclID, declared: declared, path: hint.canonical ? path : nil)
            }
        }
        // A directory already in the tree: found with one lookup of its path in the path index
        // (which answers only for a canonical path, on a case-sensitive volume), not a walk from
        // the root. The walk would find it and its ancestors, and would leave them as they are.
        if let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex {
            let dir = path[..<slash]
            let name = path[path.utf8.index(after: slash)...]
            if !name.isEmpty && name != "." && name != "..",
               let found = dir.utf8.withContiguousStorageIfAvailable({ indexedNode($0) }), let parent = found,
               nodes[Int(parent)].type == .dir {
                hint = AddNodeHint(parentPath: dir, parent: parent, canonical: true)
                return addStep(cur: parent, comp: name, last: true, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                               aclID: aclID, declared: declared, path: path)
            }
        }
        var cur = World.root
        // The path of `cur` as stored (empty for the root), hashed as the walk goes down: each
        // new directory extends its parent's hash by one name instead of spelling its path.
        var hasher = PathHasher()
        let comps = path.split(separator: "/").filter { $0 != "." }
        if comps.isEmpty {
            var n = nodes[0]
            n.type = .dir; n.uid = uid; n.gid = gid; n.mode = mode; n.flags = flags
            n.acl = aclID
            n.declared = declared
            nodes[0] = n
            hint = AddNodeHint()
            return 0
        }
        // Once the walk has made a directory, everything below it on the path is new too: no
        // child of a directory just made is looked up, and the nodes made after the first have
        // their index entries put in at the end, in order of slot (a path of a million names
        // makes a million nodes, and each entry was a write at a random place in a big table).
        var made = false
        var pending = PendingIndex()
        for (i, comp) in comps.enumerated() {
            let last = i == comps.count - 1
            if last {
                // Remember the directory, when the path's text before the name is exactly it.
                if let slash = path.utf8.lastIndex(of: 0x2F), slash != path.utf8.startIndex,
                   path[path.utf8.index(after: slash)...] == comp, !path[..<slash].hasSuffix("/"), !path.hasPrefix("//") {
                    hint = AddNodeHint(parentPath: path[..<slash], parent: cur)
                } else { hint = AddNodeHint() }
            }
            let before = nodes.count
            cur = addStep(cur: cur, comp: comp, last: last, type: type, uid: uid, gid: gid, mode: mode, flags: flags,
                          aclID: aclID, declared: declared, path: nil, parentHash: hasher, fresh: made, pending: &pending)
            if nodes.count > before { made = true }
            if !last {
                hasher.append(0x2F)
                appendName(of: cur, to: &hasher)
            }
        }
        if !pending.paths.isEmpty { index(pending) }
        return cur
    }

    // MARK: Building a big tree: appended nodes, indexed at the end

    /// The index entries of nodes made by `appendNewNode`, kept apart until `index(_:)` puts
    /// them in the child index and the path index in one pass each.
    public struct PendingIndex: Sendable {
        var children: [(key: UInt64, node: NodeID)] = []
        var paths: [(hash: UInt64, node: NodeID)] = []
        public init(capacity: Int = 0) {
            children.reserveCapacity(capacity)
            paths.reserveCapacity(capacity)
        }
        /// Node `node`'s two entries: its child-index key and its path's hash.
        mutating func add(_ node: NodeID, childKey: UInt64, pathHash: UInt64) {
            children.append((childKey, node))
            paths.append((pathHash, node))
        }
    }

    /// Whether some volume is case-insensitive (two different names may be one child there).
    public var foldsNames: Bool { anyFolding }

    /// Makes the node at `path`, whose name is its bytes from `nameAt` on, in the directory
    /// `parent`, with no lookup: the node `addNode(path:…)` would make, when the caller knows
    /// what `addNode` would find out — `parent` is a directory, the node at `path` is new,
    /// `path` is canonical and is `parent`'s path, `/` and the name, and no volume folds names
    /// (`foldsNames`). Its index entries go to `pending`, and no lookup finds it until
    /// `index(pending)` is called: a tree compiler that has already found every parent
    /// (`Compiler.buildTree`) gives each node its two index entries in two passes over the
    /// tables in order of slot at the end, where `addNode` inserts each in a random place of a
    /// table of a million entries (a cache miss each) after a lookup that misses (another).
    public mutating func appendNewNode(under parent: NodeID, path: String, nameAt: Int, type: NodeType, uid: UID, gid: GID,
                                       mode: FileMode, flags: FileFlags = [], acl: ACL?, declared: Bool,
                                       pending: inout PendingIndex) -> NodeID {
        var aclID: Int32 = -1
        if let a = acl { aclID = internACL(a) }
        let id = NodeID(nodes.count)
        let nameID = NameID(nameStart.count - 1)
        // Everything from the path's bytes (its name is the bytes from `nameAt` on): the
        // name's bytes into the arena, the two index hashes, the record's copy of the name's start.
        var text = path
        let (keyHash, pathHash, head) = text.withUTF8 { u -> (UInt64, UInt64, (UInt64, UInt8)) in
            let name = UnsafeBufferPointer(rebasing: u[nameAt...])
            nameBytes.append(contentsOf: name)
            nameStart.append(Int32(nameBytes.count))
            return (World.fnv(name), World.fnv(u), World.nameHead(name))
        }
        let volume = volumeForNew(under: parent, hash: pathHash) { path }
        var node = Node(type: type, uid: uid, gid: gid, mode: mode, flags: flags, acl: aclID, posixACL: -1, defaultACL: -1,
                        parent: parent, name: nameID, volume: volume, protection: .unspecified,
                        openBeforeLock: false, declared: declared)
        (node.nameHead, node.nameLength) = head
        nodes.append(node)
        childLinks.addNode()
        childLinks.append(id, to: parent)
        pending.add(id, childKey: fastKey(parent, keyHash), pathHash: pathHash)
        return id
    }

    /// Puts the index entries of `appendNewNode`'s nodes in the indexes, as `addNode` would
    /// have put them one by one in the order they were made (a later node taking an earlier
    /// one's child-index key marks the earlier one's directory `crowded`, as `index` does).
    public mutating func index(_ pending: consuming PendingIndex) {
        let lost = fastChildren.insertAll(pending.children)
        for node in lost { crowded.insert(nodes[Int(node)].parent) }
        pathIndex.insertAll(pending.paths)
    }

    public static func sameBytes(_ a: Substring, _ b: Substring) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let same = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                var i = p.count
                while i > 0 { i -= 1; if p[i] != q[i] { return false } }   // from the end: siblings share the start
                return true
            }
        }
        if let r = same ?? nil { return r }
        return x.elementsEqual(y)
    }

    /// One name of `addNode`'s walk: the child `comp` of `cur`, found (and made a directory if
    /// it is an undeclared node on the way) or made; the last one gets the node's settings.
    /// `path`: the new node's canonical path when the caller has it; `parentHash`: the hash
    /// state of `cur`'s stored path when the caller has that (else the path is spelled here).
    private mutating func addStep(cur: NodeID, comp: Substring, last: Bool, type: NodeType, uid: UID, gid: GID, mode: FileMode,
                                  flags: FileFlags, aclID: Int32, declared: Bool, path given: String? = nil,
                                  parentHash: PathHasher? = nil) -> NodeID {
        var unused = PendingIndex()
        return addStep(cur: cur, comp: comp, last: last, type: type, uid: uid, gid: gid, mode: mode, flags: flags, aclID: aclID,
                       declared: declared, path: given, parentHash: parentHash, fresh: false, pending: &unused)
    }

    /// The same; `fresh`: `cur` was made by this walk, so the child is new (not looked up) and
    /// its index entries go to `pending`, for `index(_:)`.
    private mutating func addStep(cur: NodeID, comp: Substring, last: Bool, type: NodeType, uid: UID, gid: GID, mode: FileMode,
                                  flags: FileFlags, aclID: Int32, declared: Bool, path given: String?,
                                  parentHash: PathHasher?, fresh: Bool, pending: inout PendingIndex) -> NodeID {
        // The index key (the name, case-folded on a case-insensitive volume) is made and hashed
        // once, for the lookup and the insertion.
        var key = folded(comp, in: cur)
        let keyHash = key.withUTF8 { World.fnv($0) }
        if !fresh, let c = key.withUTF8({ exactChild(cur, $0, hash: keyHash) }) {
            if last {
                var n = nodes[Int(c)]
                n.type = type; n.uid = uid; n.gid = gid; n.mode = mode; n.flags = flags
                n.acl = aclID
                n.declared = declared
                nodes[Int(c)] = n
            } else if nodes[Int(c)].type != .dir && !nodes[Int(c)].declared {
                nodes[Int(c)].type = .dir
            }
            return c
        }
        let nameID = intern(comp)
        let id = NodeID(nodes.count)
        var text = given
        let pathHash: UInt64
        if given == nil, var s = parentHash {
            s.append(0x2F)
            s.append(comp)
            pathHash = s.finish()
        } else {
            if text == nil { text = spelled(comp, under: cur) }
            pathHash = World.fnv(text!)
        }
        let volume = volumeForNew(under: cur, hash: pathHash) { text ?? spelled(comp, under: cur) }
        var node = Node(type: last ? type : .dir, uid: last ? uid : defaultOwner, gid: last ? gid : defaultGroup,
                        mode: last ? mode : defaultDirMode, flags: last ? flags : [],
                        acl: last ? aclID : -1, posixACL: -1, defaultACL: -1,
                        parent: cur, name: nameID, volume: volume, protection: .unspecified,
                        openBeforeLock: false, declared: last ? declared : false)
        (node.nameHead, node.nameLength) = World.nameHead(comp.utf8)
        nodes.append(node)
        childLinks.addNode()
        if fresh {
            pending.add(id, childKey: fastKey(cur, keyHash), pathHash: pathHash)
        } else {
            index(id, under: cur, hash: keyHash)
            pathIndex.insert(pathHash, id)
        }
        childLinks.append(id, to: cur)
        return id
    }

    private func spelled(_ name: Substring, under dir: NodeID) -> String {
        dir == World.root ? "/" + name : path(of: dir) + "/" + name
    }

    /// Puts `node` in the child index under `dir` at its key's `hash`. A different node already
    /// there (two keys with one 64-bit index key: a hash clash) loses the entry, and its
    /// directory is marked `crowded` so that lookups there can still find it.
    private mutating func index(_ node: NodeID, under dir: NodeID, hash: UInt64) {
        let k = fastKey(dir, hash)
        if let other = fastChildren[k], other != node {
            crowded.insert(nodes[Int(other)].parent)
        }
        fastChildren[k] = node
    }

    public mutating func internACL(_ acl: ACL) -> Int32 {
        if let i = aclIndex[acl] { return i }
        let i = Int32(acls.count)
        acls.append(acl)
        aclIndex[acl] = i
        return i
    }

    public mutating func internPOSIXACL(_ acl: POSIXACL) -> Int32 {
        if let i = posixIndex[acl] { return i }
        let i = Int32(posixACLs.count)
        posixACLs.append(acl)
        posixIndex[acl] = i
        return i
    }

    private mutating func unindexSubtree(_ node: NodeID) {
        for (n, h) in pathHashes(from: node) { pathIndex.remove(h, n) }
    }

    private mutating func indexSubtree(_ node: NodeID) {
        for (n, h) in pathHashes(from: node) { pathIndex.insert(h, n) }
    }

    /// `node` and every node below it with the index hash of its path: the node's path is
    /// spelled once, each descendant's hash extended from its parent's by one name.
    private func pathHashes(from node: NodeID) -> [(NodeID, UInt64)] {
        var top = PathHasher()
        if node != World.root { top.append(path(of: node)) }
        var out: [(NodeID, UInt64)] = [(node, top.finish())]
        var stack: [(NodeID, PathHasher)] = [(node, top)]
        while let (dir, state) = stack.popLast() {
            for c in childLinks.children(of: dir) {
                var s = state
                s.append(0x2F)
                appendName(of: c, to: &s)
                out.append((c, s.finish()))
                stack.append((c, s))
            }
        }
        return out
    }

    mutating func detachStorage(_ node: NodeID) {
        guard node != World.root else { return }
        unindexSubtree(node)
        let parent = nodes[Int(node)].parent
        let fk = fastKey(parent, keyHash(Substring(name(of: node)), in: parent))
        // Only its own entry goes: a node that lost the key to this one is found by scanning
        // its directory (which is `crowded` since then).
        if fastChildren[fk] == node { fastChildren[fk] = nil }
        childLinks.remove(node, from: parent)
    }

    mutating func moveStorage(_ node: NodeID, to newParent: NodeID, name newName: String) {
        detachStorage(node)
        let nameID = intern(newName)
        nodes[Int(node)].parent = newParent
        nodes[Int(node)].name = nameID
        (nodes[Int(node)].nameHead, nodes[Int(node)].nameLength) = World.nameHead(newName.utf8)
        index(node, under: newParent, hash: keyHash(Substring(newName), in: newParent))
        indexSubtree(node)
        childLinks.append(node, to: newParent)
    }

    public func acl(of node: NodeID) -> ACL? {
        let i = nodes[Int(node)].acl
        return i < 0 ? nil : acls[Int(i)]
    }

    public func posixACL(of node: NodeID) -> POSIXACL? {
        let i = nodes[Int(node)].posixACL
        return i < 0 ? nil : posixACLs[Int(i)]
    }

    public func defaultPOSIXACL(of node: NodeID) -> POSIXACL? {
        let i = nodes[Int(node)].defaultACL
        return i < 0 ? nil : posixACLs[Int(i)]
    }

    public mutating func setACL(_ acl: ACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internACL(a) }
        nodes[Int(node)].acl = i
    }
    public mutating func setPOSIXACL(_ acl: POSIXACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internPOSIXACL(a) }
        nodes[Int(node)].posixACL = i
    }
    public mutating func setDefaultPOSIXACL(_ acl: POSIXACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internPOSIXACL(a) }
        nodes[Int(node)].defaultACL = i
    }
    public mutating func setSymlinkTarget(_ target: String, on node: NodeID) { symlinkTargets[node] = target }
    public mutating func setProtection(_ p: ProtectionClass, open: Bool, on node: NodeID) {
        nodes[Int(node)].protection = p
        nodes[Int(node)].openBeforeLock = open
    }
    public mutating func update(_ node: NodeID, _ body: (inout Node) -> Void) { body(&nodes[Int(node)]) }

    /// ACE subject names for text (`user:alice`, `group:staff`, `everyone`, `owner@`, `group@`).
    public func subjectText(_ s: ACESubject) -> String {
        switch s {
        case .user(let u): "user:" + userName(u)
        case .group(let g): "group:" + groupName(g)
        case .everyone: "group:everyone"
        case .owner: "owner@"
        case .owningGroup: "group@"
        }
    }

    public func aceText(_ ace: ACE, forDirectory: Bool?) -> String {
        ace.text(names: subjectText, forDirectory: forDirectory)
    }
}

// MARK: - Mutation primitives (used by `Mutator`; no permission checks here)

extension World {
    /// Creates a new child `name` of directory `parent` and returns its id.
    public mutating func createChild(_ parent: NodeID, name: String, type: NodeType, uid: UID, gid: GID, mode: FileMode) -> NodeID {
        let p = parent == World.root ? "/" + name : path(of: parent) + "/" + name
        return addNode(path: p, type: type, uid: uid, gid: gid, mode: mode, flags: [], acl: nil)
    }

    /// Removes `node` (and, for a directory, everything below it) from the tree.
    public mutating func detach(_ node: NodeID) {
        detachStorage(node)
    }

    /// Moves `node` to `newParent` under `newName` (a replaced entry must be detached first).
    public mutating func move(_ node: NodeID, to newParent: NodeID, name newName: String) {
        moveStorage(node, to: newParent, name: newName)
    }

    /// Every node below `dir`, parents before children, in name order.
    public func descendants(of dir: NodeID) -> [NodeID] {
        var out: [NodeID] = []
        var stack = children(of: dir).sorted { name(of: $0) > name(of: $1) }
        while let n = stack.popLast() {
            out.append(n)
            stack.append(contentsOf: children(of: n).sorted { name(of: $0) > name(of: $1) })
        }
        return out
    }
}
