import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// Decides whole sets of questions — every subject of a list, every node of a subtree, a few
/// operations — without asking `Authorizer.decide` once per question, and with the same answers.
///
/// How (docs/audit.md):
/// - **Subject classes.** Two subjects whose uid plays the same part in the world (it is 0, or
///   owns a node, or is named by an ACL entry, or none of these) and whose memberships agree on
///   every group the world mentions are indistinguishable to every rule: they form one class,
///   decided once through a representative.
/// - **Node signatures.** Once a walk has reached a node, the operations `Authorizer.isDecidedOnNode`
///   accepts depend only on the node's own attributes. The classes allowed are computed once
///   per distinct attribute set, by splitting the classes on the few principals the node
///   mentions (root, its owner, its group, its ACL's users and groups) and deciding one
///   representative per part.
/// - **Search once per directory.** The classes that reach a node are those that reach its
///   parent and may search it; each directory's set is computed once and shared by everything
///   below. The sets are interned and their intersections memoized, so most nodes cost a few
///   table lookups.
/// - Everything else (a symlink, a node under a non-directory, a name a case-insensitive
///   volume folds onto another, an operation that looks at the parent or another path) is asked
///   of `Authorizer.decide` for each class representative.
/// - **Processes.** A subject holding other capabilities than its uid's default (a service,
///   `--caps`) is a class apart from every subject with other capabilities, and the node's
///   classes are split on them too: capabilities are read from the subject alone. A subject
///   with a mount view (a systemd unit's sandbox, U1–U5) is answered by path, not by the node's
///   attributes: it is a class of its own, left out of the shared answers, and asked of
///   `Authorizer.decide` on every node (`pathClasses`).
public final class SetEngine {
    public let world: World
    public let authorizer: Authorizer
    /// The audited subjects, in the order given.
    public let subjects: [Subject]
    public let ops: [Operation]
    /// Some volume of the world is case-insensitive (`isPlain` reads the node's volume only then).
    let foldsNames: Bool
    /// `modify` is decided on the node (`Authorizer.decideModifyReached` for a directory; for
    /// anything else, `write`, `append` or `truncate`): always under `linux`; under `macos` and
    /// `guide` when no directory has a Data Protection class, which a new file would inherit
    /// from above. Otherwise each class asks `decide`: with the default ops of `matrix` (`modify`
    /// on every directory), that took 285 s for 1,000,000 nodes × 1,000 users, 4.4 s this way.
    let modifyOnNode: Bool
    /// Subject index → class index.
    public let classOf: [Int]
    /// Class index → its representative (the first subject of the class).
    public let representatives: [Int]
    /// Class index → the subject indices of the class, ascending.
    public let classMembers: [[Int]]
    let words: Int
    /// The classes whose answers depend on the path (a subject with a mount view): asked of
    /// `decide` on every node, never shared through a node's attributes.
    public let pathClasses: [Int]
    /// The classes answered through the nodes' attributes (every class but `pathClasses`).
    var sharedSet: [UInt64]
    /// Per distinct capability set held by some class that does not hold its uid's default set
    /// (with the no-new-privileges flag): the classes holding it. Empty when every subject is a
    /// plain user's process.
    var capClasses: [[UInt64]] = []

    /// Interned sets of classes: `sets[id]` (`words` words each, back to back).
    var setWords: [UInt64] = []
    var setIndex: [[UInt64]: Int32] = [:]
    var andMemo: [UInt64: Int32] = [:]
    var sigCache: [Signature: SigResult] = [:]
    public let emptySet: Int32
    public let allSet: Int32

    /// Per relevant uid / gid: the classes with that uid, member of that group, direct member.
    var uidClasses: [UID: [UInt64]] = [:]
    var memberClasses: [GID: [UInt64]] = [:]
    var directClasses: [GID: [UInt64]] = [:]
    var rootClasses: [UInt64]

    /// Statistics of the last walks (for benchmarks and tests).
    public private(set) var fastNodes = 0
    public private(set) var fallbackNodes = 0
    public var signatureCount: Int { sigCache.count }

    struct Signature: Hashable {
        var type: NodeType
        var uid: UID
        var gid: GID
        var mode: UInt16
        var flags: UInt32
        var acl: Int32
        var posixACL: Int32
        var volume: UInt16
        var protection: ProtectionClass
        var open: Bool
        init(_ n: Node) {
            type = n.type; uid = n.uid; gid = n.gid; mode = n.mode.rawValue; flags = n.flags.rawValue
            acl = n.acl; posixACL = n.posixACL; volume = n.volume; protection = n.protection; open = n.openBeforeLock
        }
    }

    struct SigResult {
        /// Per op: the classes allowed once the node is reached (-1: op not decided on the node).
        var permitted: [Int32]
        /// For a directory: the classes that may search it.
        var search: Int32
    }

    public init(world: World, semantics: Semantics, subjects: [Subject], ops: [Operation]) {
        self.world = world
        self.authorizer = Authorizer(world: world, semantics: semantics, tracing: false)
        self.subjects = subjects
        self.ops = ops
        self.foldsNames = world.foldsNames

        // The principals the world mentions.
        var uids: Set<UID> = [0, WellKnown.unknownID]
        var gids: Set<GID> = [0, WellKnown.everyoneGID, WellKnown.unknownID]
        // (Each owner and group inserted when it differs from the previous node's: runs of
        // one owner are the rule in a real tree, and a million hashed inserts are not free.)
        var protectedDirectory = false
        world.withNamesAndLinks { view in
            var lastUID: UID? = nil, lastGID: GID? = nil
            for i in 0..<world.nodeCount {
                let n = view.node(NodeID(i))
                if n.uid != lastUID { uids.insert(n.uid); lastUID = n.uid }
                if n.gid != lastGID { gids.insert(n.gid); lastGID = n.gid }
                if n.protection != .unspecified && n.type == .dir { protectedDirectory = true }
            }
        }
        self.modifyOnNode = semantics == .linux || !protectedDirectory
        for acl in world.acls {
            for ace in acl.entries {
                switch ace.subject {
                case .user(let u): uids.insert(u)
                case .group(let g): gids.insert(g)
                default: break
                }
            }
        }
        for p in world.posixACLs {
            for u in p.users { uids.insert(u.id) }
            for g in p.groups { gids.insert(g.id) }
        }
        for v in world.volumeBits {
            if let u = v.fsOwner { uids.insert(u) }
            if let g = v.fsGroup { gids.insert(g) }
        }
        let gidList = gids.sorted()

        // Classes: the uid if it matters, and the membership (none, nested only, direct) in
        // every group that matters.
        // A process with other capabilities than its uid's adds them to its key (a user's key is
        // as it was), and one with a mount view adds its own index: it shares a class with nobody.
        var keyIndex: [[UInt32]: Int] = [:]
        var classOf: [Int] = []
        var reps: [Int] = []
        var members: [[Int]] = []
        for (i, s) in subjects.enumerated() {
            var key: [UInt32] = [uids.contains(s.uid) ? 1 : 0, uids.contains(s.uid) ? s.uid : 0]
            for g in gidList { key.append(s.isDirectMember(g) ? 2 : s.isMember(g) ? 1 : 0) }
            if !s.defaultCaps || s.noNewPrivileges {
                key += [3, UInt32(truncatingIfNeeded: s.caps.rawValue), UInt32(truncatingIfNeeded: s.caps.rawValue >> 32), s.noNewPrivileges ? 1 : 0]
            }
            if s.view != nil { key += [4, UInt32(i)] }
            if let c = keyIndex[key] {
                classOf.append(c)
                members[c].append(i)
            } else {
                keyIndex[key] = reps.count
                classOf.append(reps.count)
                reps.append(i)
                members.append([i])
            }
        }
        self.classOf = classOf
        self.representatives = reps
        self.classMembers = members
        let words = max(1, (reps.count + 63) / 64)
        self.words = words

        func bits(_ pred: (Subject) -> Bool) -> [UInt64] {
            var b = [UInt64](repeating: 0, count: words)
            for (c, r) in reps.enumerated() where pred(subjects[r]) { b[c >> 6] |= 1 << UInt64(c & 63) }
            return b
        }
        rootClasses = bits { $0.isRoot }
        self.pathClasses = reps.indices.filter { subjects[reps[$0]].view != nil }
        var shared = [UInt64](repeating: 0, count: words)
        for c in 0..<reps.count where subjects[reps[c]].view == nil { shared[c >> 6] |= 1 << UInt64(c & 63) }
        self.sharedSet = shared
        var capSets: [Capabilities: Bool] = [:]
        for r in reps where !subjects[r].defaultCaps || subjects[r].noNewPrivileges {
            capSets[subjects[r].caps] = true
        }
        for c in capSets.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            capClasses.append(bits { (!$0.defaultCaps || $0.noNewPrivileges) && $0.caps == c })
        }
        if reps.contains(where: { subjects[$0].noNewPrivileges }) { capClasses.append(bits { $0.noNewPrivileges }) }
        for u in uids { uidClasses[u] = bits { $0.uid == u } }
        for g in gidList {
            memberClasses[g] = bits { $0.isMember(g) }
            directClasses[g] = bits { $0.isDirectMember(g) }
        }
        var all = [UInt64](repeating: 0, count: words)
        for c in 0..<reps.count { all[c >> 6] |= 1 << UInt64(c & 63) }
        emptySet = 0
        allSet = 1
        _ = intern([UInt64](repeating: 0, count: words))
        let a = intern(all)
        precondition(a == 1 || reps.isEmpty)
    }

    public var classCount: Int { representatives.count }

    // MARK: Interned sets

    func intern(_ b: [UInt64]) -> Int32 {
        if let id = setIndex[b] { return id }
        let id = Int32(setIndex.count)
        setIndex[b] = id
        setWords.append(contentsOf: b)
        return id
    }

    public func words(of set: Int32) -> ArraySlice<UInt64> {
        let s = Int(set) * words
        return setWords[s..<(s + words)]
    }

    /// Whether class `c` is in `set`.
    @inline(__always)
    public func contains(_ set: Int32, class c: Int) -> Bool {
        setWords[Int(set) * words + (c >> 6)] & (1 << UInt64(c & 63)) != 0
    }

    /// Whether subject `i` (an index into `subjects`) is in `set`.
    @inline(__always)
    public func contains(_ set: Int32, subject i: Int) -> Bool { contains(set, class: classOf[i]) }

    public func isEmpty(_ set: Int32) -> Bool { set == emptySet }

    /// The subject indices in `set`, ascending.
    public func subjectIndices(_ set: Int32) -> [Int] {
        var out: [Int] = []
        for i in subjects.indices where contains(set, subject: i) { out.append(i) }
        return out
    }

    func and(_ a: Int32, _ b: Int32) -> Int32 {
        if a == emptySet || b == emptySet { return emptySet }
        if a == b || b == allSet { return a }
        if a == allSet { return b }
        let key = UInt64(UInt32(min(a, b))) << 32 | UInt64(UInt32(max(a, b)))
        if let r = andMemo[key] { return r }
        var out = [UInt64](repeating: 0, count: words)
        let sa = Int(a) * words, sb = Int(b) * words
        for w in 0..<words { out[w] = setWords[sa + w] & setWords[sb + w] }
        let r = intern(out)
        andMemo[key] = r
        return r
    }

    // MARK: One node

    /// The classes allowed each op (and, for a directory, search) once `n` is reached.
    func signatureResult(_ n: NodeID) -> SigResult {
        let node = world[n]
        let sig = Signature(node)
        if let r = sigCache[sig] { return r }
        // Split the classes on every principal the node's rules can look at.
        var splits: [[UInt64]] = [rootClasses]
        var uids: [UID] = [node.uid]
        var gids: [GID] = [node.gid]
        let vb = world.volumeBits[Int(node.volume)]
        if let u = vb.fsOwner { uids.append(u) }
        if let g = vb.fsGroup { gids.append(g) }
        uids.append(WellKnown.unknownID)
        if let acl = world.acl(of: n) {
            for ace in acl.entries {
                switch ace.subject {
                case .user(let u): uids.append(u)
                case .group(let g): gids.append(g)
                default: break
                }
            }
        }
        if let p = world.posixACL(of: n) {
            for u in p.users { uids.append(u.id) }
            for g in p.groups { gids.append(g.id) }
        }
        for u in uids { if let b = uidClasses[u] { splits.append(b) } }
        for g in gids {
            if let b = memberClasses[g] { splits.append(b) }
            if let b = directClasses[g] { splits.append(b) }
        }
        splits += capClasses
        // The classes answered by path are not represented here: their bits stay clear.
        var atoms: [[UInt64]] = pathClasses.isEmpty ? [Array(words(of: allSet))] : [sharedSet]
        for s in splits {
            var next: [[UInt64]] = []
            for a in atoms {
                var inside = a, outside = a
                var anyIn = false, anyOut = false
                for w in 0..<words {
                    inside[w] = a[w] & s[w]
                    outside[w] = a[w] & ~s[w]
                    if inside[w] != 0 { anyIn = true }
                    if outside[w] != 0 { anyOut = true }
                }
                if anyIn { next.append(inside) }
                if anyOut { next.append(outside) }
            }
            atoms = next
        }
        var permitted = [[UInt64]](repeating: [UInt64](repeating: 0, count: words), count: ops.count)
        var search = [UInt64](repeating: 0, count: words)
        let isDir = node.type == .dir
        for a in atoms {
            var c = 0
            for w in 0..<words where a[w] != 0 { c = w * 64 + a[w].trailingZeroBitCount; break }
            let rep = subjects[representatives[c]]
            for (k, op) in ops.enumerated() where decidedOnNode(op) {
                if allowedOnNode(rep, op, n, isDir: isDir) {
                    for w in 0..<words { permitted[k][w] |= a[w] }
                }
            }
            if isDir && authorizer.searchGranted(rep, dir: n) {
                for w in 0..<words { search[w] |= a[w] }
            }
        }
        var r = SigResult(permitted: [], search: emptySet)
        for (k, op) in ops.enumerated() {
            r.permitted.append(decidedOnNode(op) ? intern(permitted[k]) : -1)
        }
        r.search = intern(search)
        sigCache[sig] = r
        return r
    }

    /// Whether the engine decides `op` from a node's signature once the walk has reached it.
    func decidedOnNode(_ op: Operation) -> Bool {
        SetEngine.isModify(op) ? modifyOnNode : Authorizer.isDecidedOnNode(op)
    }

    static func isModify(_ op: Operation) -> Bool {
        if case .modify = op { return true }
        return false
    }

    /// Whether `subject` is allowed `op` on `n` once the walk has reached it (for an op
    /// `decidedOnNode` accepts).
    func allowedOnNode(_ subject: Subject, _ op: Operation, _ n: NodeID, isDir: Bool) -> Bool {
        guard SetEngine.isModify(op) else { return authorizer.decideReached(subject, op, node: n) }
        if isDir { return authorizer.decideModifyReached(subject, dir: n) }
        return [Operation.write, .append, .truncate].contains { authorizer.decideReached(subject, $0, node: n) }
    }

    /// Every class representative asks `decide` (the general path).
    func fallback(_ n: NodeID, path: String, op: Operation) -> Int32 {
        var b = [UInt64](repeating: 0, count: words)
        for (c, r) in representatives.enumerated() {
            if authorizer.decide(Request(subject: subjects[r], op: op, path: path)).allowed {
                b[c >> 6] |= 1 << UInt64(c & 63)
            }
        }
        return intern(b)
    }

    /// `set` with each class of `pathClasses` that `decide` allows `op` on `path`.
    func addingPathClasses(_ set: Int32, path: String, op: Operation) -> Int32 {
        var b = Array(words(of: set))
        var changed = false
        for c in pathClasses where authorizer.decide(Request(subject: subjects[representatives[c]], op: op, path: path)).allowed {
            b[c >> 6] |= 1 << UInt64(c & 63)
            changed = true
        }
        return changed ? intern(b) : set
    }

    // MARK: Walks

    /// What a walk knows about a node when it visits it.
    struct Reach {
        /// Classes whose walk reaches the node (every directory above grants search).
        var set: Int32
        /// The node's own path leads back to it through directories only, so the set engine's
        /// shortcut applies; false below a non-directory or a case-folded clash.
        var plain: Bool
    }

    /// The reach of `n` computed from the root down its ancestors.
    func reach(of n: NodeID) -> Reach {
        var chain: [NodeID] = []
        var cur = n
        while cur != World.root { chain.append(cur); cur = world[cur].parent }
        var r = Reach(set: allSet, plain: true)
        var parent = World.root
        for c in chain.reversed() {
            r = childReach(parent, r)
            r.plain = r.plain && isPlain(c)
            parent = c
        }
        return r
    }

    @inline(__always)
    func isPlain(_ n: NodeID) -> Bool {
        let node = world[n]
        if node.type == .symlink { return false }
        // `.`, `..` and the empty name, from the name's length and first bytes in the node's
        // own record (the name's bytes elsewhere are not read).
        if node.nameLength == 0 || (node.nameLength == 1 && node.nameHead == 0x2E) || (node.nameLength == 2 && node.nameHead == 0x2E2E) {
            return false
        }
        if foldsNames && !world.volumes[Int(node.volume)].caseSensitive {
            return world.child(node.parent, Substring(world.name(of: n))) == n
        }
        return true
    }

    /// The reach of the children of `dir`, whose own reach is `r`.
    func childReach(_ dir: NodeID, _ r: Reach) -> Reach {
        let node = world[dir]
        guard r.plain && node.type == .dir else { return Reach(set: emptySet, plain: false) }
        return Reach(set: and(r.set, signatureResult(dir).search), plain: true)
    }

    /// The sets of classes allowed each op on `n`, given its reach.
    func decide(_ n: NodeID, _ r: Reach, path: () -> String, into out: inout [Int32]) {
        if r.plain {
            fastNodes += 1
            let sr = signatureResult(n)
            // A directory whose entries were not read: a new name looked up in it may exist
            // (P6), so `modify` there is asked as a whole.
            let unread = !world.unread.isEmpty && world.unread[n] != nil
            for k in ops.indices {
                let onNode = sr.permitted[k] >= 0 && !(unread && SetEngine.isModify(ops[k]))
                out[k] = onNode ? and(r.set, sr.permitted[k]) : fallback(n, path: path(), op: ops[k])
            }
            // The classes answered by path (clear in the shared sets; `fallback` asked them already).
            if !pathClasses.isEmpty {
                let p = path()
                for k in ops.indices where sr.permitted[k] >= 0 { out[k] = addingPathClasses(out[k], path: p, op: ops[k]) }
            }
        } else {
            fallbackNodes += 1
            let p = path()
            for k in ops.indices { out[k] = fallback(n, path: p, op: ops[k]) }
        }
    }

    /// Visits `start` and every node below it, parents before children, siblings in the byte
    /// order of their names, with the set of classes allowed each op (`ops` order) and the
    /// node's path. `body` returns false to skip a node's children.
    public func walk(from start: NodeID = World.root, _ body: (NodeID, String, [Int32]) -> Bool) {
        var stack: [(NodeID, Reach, String)] = [(start, reach(of: start), world.path(of: start))]
        var out = [Int32](repeating: 0, count: ops.count)
        while let (n, r, p) = stack.popLast() {
            decide(n, r, path: { p }, into: &out)
            guard body(n, p, out) else { continue }
            let kids = world.children(of: n)
            if kids.isEmpty { continue }
            let cr = childReach(n, r)
            let sorted = SetEngine.sortedByName(kids, world)
            let prefix = p == "/" ? "/" : p + "/"
            for c in sorted.reversed() {
                var rc = cr
                if rc.plain && !isPlain(c) { rc.plain = false }
                // Below a non-directory the walk cannot go through the parent: decide is asked.
                if world[n].type != .dir { rc = Reach(set: emptySet, plain: false) }
                stack.append((c, rc, prefix + world.name(of: c)))
            }
        }
    }

    static func sortedByName(_ nodes: [NodeID], _ world: World) -> [NodeID] {
        if nodes.count < 2 { return nodes }
        let named = nodes.map { (world.name(of: $0), $0) }
        return named.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }.map(\.1)
    }
}
