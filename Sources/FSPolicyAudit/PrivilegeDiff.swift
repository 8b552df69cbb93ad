import FSPolicy
import FSPolicyFormat

/// A change, at one path, of what the decisions of today do not show: what running a program
/// gives (its set-user-ID or set-group-ID bit, its file capabilities) or what a directory passes
/// on to what is created in it (its default ACL, its inheritable ACEs, its set-group-ID bit).
public struct PrivilegeChange: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A program that runs as its owner (a regular file with the bit and an `x` bit).
        case setuid = "set-user-ID"
        /// A program that runs with its group (the bit and group `x`), or under linux a directory
        /// whose new entries take its group.
        case setgid = "set-group-ID"
        /// File capabilities (`security.capability`, a node's `caps:`).
        case capabilities
        /// A POSIX default ACL (Linux): what a new entry's ACL starts from.
        case defaultACL = "default-acl"
        /// macOS ACEs with `file_inherit` or `directory_inherit`: copied to new entries.
        case inheritableACEs = "inheritable-aces"
    }

    public var path: String
    public var kind: Kind
    /// The node in each world (`oldNode` nil: the path is new in NEW).
    public var oldNode: NodeID?
    public var newNode: NodeID
    /// The path is a directory in NEW.
    public var isDirectory: Bool
    /// What it was and is, in words, empty where there is none: the owner's or group's name
    /// (set-ID), getcap's text (capabilities), the entries (ACLs; for a default ACL without
    /// `default:`).
    public var before: [String]
    public var after: [String]
    /// The modes, for the set-ID kinds (`oldMode` nil for a new path).
    public var oldMode: FileMode?
    public var newMode: FileMode?
    /// The capabilities in each world (for `capabilities`).
    public var oldCaps: FileCapabilities?
    public var newCaps: FileCapabilities?
    /// NEW's mount of the path is `nosuid`: neither set-ID bits nor file capabilities apply there.
    public var nosuid: Bool
    /// For `inheritableACEs`: whether new files, new folders take the ACEs of `after` (or of
    /// `before` when none is left).
    public var reachesFiles: Bool
    public var reachesFolders: Bool

    public var isNew: Bool { oldNode == nil }
}

/// What one node passes on or gives, as `PrivilegeChange` compares it.
struct PrivilegeState: Equatable {
    var setuid: UID?
    var setgid: GID?
    var caps: FileCapabilities?
    var defaultACL: POSIXACL?
    /// The ACEs with an inherit flag (on directories).
    var inheritable: [ACE] = []

    static let none = PrivilegeState()

    /// The state of `n`; `linux`: a directory's set-group-ID bit counts (BSD gives every new
    /// entry its directory's group anyway).
    init(_ n: NodeID, _ node: Node, in w: World, linux: Bool) {
        if node.type == .file {
            if node.mode.isSetuid && node.mode.anyExecute { setuid = node.uid }
            if node.mode.isSetgid && node.mode.group.contains(.execute) { setgid = node.gid }
            if !w.fileCaps.isEmpty { caps = w.fileCaps[n] }
        } else if node.type == .dir {
            if linux && node.mode.isSetgid { setgid = node.gid }
            if node.defaultACL >= 0 { defaultACL = w.posixACLs[Int(node.defaultACL)] }
            if node.acl >= 0 {
                inheritable = w.acls[Int(node.acl)].entries.filter { !$0.flags.isDisjoint(with: [.fileInherit, .directoryInherit]) }
            }
        }
    }

    init() {}
}

extension WorldDiff {
    /// Every change of set-ID bits, file capabilities, default ACL or inheritable ACEs at or
    /// below `path`: for a path in both worlds, what differs; for a path new in NEW, what it
    /// arrives with (a directory's default ACL, inheritable ACEs or set-group-ID bit only where
    /// they are not what its new parent passed on). A path only in OLD is left to the decisions
    /// (all that was allowed there is lost). In tree order, then kind order; at most `limit`,
    /// past which it stops and says so. Nothing is decided and the trees are not walked: each
    /// world's nodes are read in a row for the few that could give or pass on anything (a
    /// set-ID bit, capabilities, a default ACL, an inheritable ACE), and only those are looked
    /// up by path on the other side; it holds only what it found.
    public func privilegeChanges(under path: String = "/", limit: Int = .max) -> (changes: [PrivilegeChange], overLimit: Bool) {
        guard let top = new.lookup(path) else { return ([], false) }
        let linux = semantics == .linux
        var out: [PrivilegeChange] = []
        // NEW's candidates, compared with the same path in OLD (or with nothing).
        let fromNew = WorldDiff.candidates(new, linux: linux)
        for b in fromNew where WorldDiff.isAt(b, or: top, in: new) {
            let bp = new.path(of: b)
            guard new.lookup(bp) == b else { continue }  // a node its steps took out of the tree
            let y = new[b]
            var t = PrivilegeState(b, y, in: new, linux: linux)
            let a = old.lookup(bp)
            let s = a.map { PrivilegeState($0, old[$0], in: old, linux: linux) } ?? .none
            if a == nil && b != World.root && y.type == .dir {
                // What a new directory's new parent gave it is said at the parent.
                let up = new[y.parent]
                if up.defaultACL >= 0 && up.defaultACL == y.defaultACL { t.defaultACL = nil }
                t.inheritable.removeAll { $0.isInherited }
                if linux && up.mode.isSetgid && up.gid == y.gid { t.setgid = nil }
            }
            guard s != t else { continue }
            for c in WorldDiff.changes(old: old, new: new, a, b, s, t) {
                if out.count >= limit { return (WorldDiff.sortedByPath(out), true) }
                out.append(c)
            }
        }
        // OLD's candidates whose path in NEW gives and passes on nothing (the others were compared above).
        let newCandidates = Set(fromNew)
        for a in WorldDiff.candidates(old, linux: linux) {
            let ap = old.path(of: a)
            guard old.lookup(ap) == a, let b = new.lookup(ap), !newCandidates.contains(b), WorldDiff.isAt(b, or: top, in: new) else { continue }
            let s = PrivilegeState(a, old[a], in: old, linux: linux)
            guard s != .none else { continue }
            for c in WorldDiff.changes(old: old, new: new, a, b, s, .none) {
                if out.count >= limit { return (WorldDiff.sortedByPath(out), true) }
                out.append(c)
            }
        }
        return (WorldDiff.sortedByPath(out), false)
    }

    /// The nodes of `w` that could give or pass on something, in node order: a regular file
    /// with a set-ID bit or capabilities, a directory with a default ACL, an inheritable ACE or
    /// (`linux`) the set-group-ID bit. A read of the node table, with no path made.
    static func candidates(_ w: World, linux: Bool) -> [NodeID] {
        let inheritable = w.acls.map { acl in acl.entries.contains { !$0.flags.isDisjoint(with: [.fileInherit, .directoryInherit]) } }
        var out: [NodeID] = []
        for i in 0..<w.nodeCount {
            let n = NodeID(i)
            let node = w[n]
            switch node.type {
            case .file: if node.mode.rawValue & 0o6000 != 0 && node.mode.anyExecute { out.append(n) }
            case .dir:
                if node.defaultACL >= 0 || (node.acl >= 0 && inheritable[Int(node.acl)]) || (linux && node.mode.isSetgid) { out.append(n) }
            default: break
            }
        }
        // Capabilities on a file without a set-ID bit.
        for (n, _) in w.fileCaps where Int(n) < w.nodeCount && w[n].type == .file && (w[n].mode.rawValue & 0o6000 == 0 || !w[n].mode.anyExecute) {
            out.append(n)
        }
        return out
    }

    /// `n` is `top` or below it.
    static func isAt(_ n: NodeID, or top: NodeID, in w: World) -> Bool {
        if top == World.root { return true }
        var cur = n
        while true {
            if cur == top { return true }
            if cur == World.root { return false }
            cur = w[cur].parent
        }
    }

    /// Tree order of the paths (as `sorted`), then kind order.
    static func sortedByPath(_ changes: [PrivilegeChange]) -> [PrivilegeChange] {
        let order = Dictionary(uniqueKeysWithValues: PrivilegeChange.Kind.allCases.enumerated().map { ($1, $0) })
        let keyed = changes.map { c in (c.path.utf8.map { $0 == 0x2f ? 0 : $0 }, order[c.kind]!, c) }
        return keyed.sorted { x, y in
            if x.0 != y.0 { return x.0.lexicographicallyPrecedes(y.0) }
            return x.1 < y.1
        }.map(\.2)
    }

    /// The changes between two states of one path (`a` nil: new in NEW).
    static func changes(old: World, new: World, _ a: NodeID?, _ b: NodeID, _ x: PrivilegeState, _ y: PrivilegeState) -> [PrivilegeChange] {
        let node = new[b]
        let path = new.path(of: b)
        let nosuid = new.volumes[Int(node.volume)].nosuid
        let oldMode = a.map { old[$0].mode }
        func change(_ kind: PrivilegeChange.Kind, _ before: [String], _ after: [String]) -> PrivilegeChange {
            PrivilegeChange(
                path: path, kind: kind, oldNode: a, newNode: b, isDirectory: node.type == .dir, before: before, after: after,
                oldMode: nil, newMode: nil, oldCaps: nil, newCaps: nil, nosuid: nosuid, reachesFiles: false, reachesFolders: false)
        }
        var out: [PrivilegeChange] = []
        if x.setuid != y.setuid {
            var c = change(.setuid, x.setuid.map { [old.userName($0)] } ?? [], y.setuid.map { [new.userName($0)] } ?? [])
            c.oldMode = oldMode; c.newMode = node.mode
            out.append(c)
        }
        if x.setgid != y.setgid {
            var c = change(.setgid, x.setgid.map { [old.groupName($0)] } ?? [], y.setgid.map { [new.groupName($0)] } ?? [])
            c.oldMode = oldMode; c.newMode = node.mode
            out.append(c)
        }
        if x.caps != y.caps {
            var c = change(.capabilities, x.caps.map { [$0.text] } ?? [], y.caps.map { [$0.text] } ?? [])
            c.oldCaps = x.caps; c.newCaps = y.caps
            out.append(c)
        }
        if x.defaultACL != y.defaultACL {
            func lines(_ acl: POSIXACL?, _ w: World) -> [String] {
                acl?.lines(user: { w.userName($0) }, group: { w.groupName($0) }, effective: false) ?? []
            }
            out.append(change(.defaultACL, lines(x.defaultACL, old), lines(y.defaultACL, new)))
        }
        if x.inheritable != y.inheritable {
            let olds = a.map { a in x.inheritable.map { old.aceText($0, forDirectory: old[a].isDir) } } ?? []
            var c = change(.inheritableACEs, olds, y.inheritable.map { new.aceText($0, forDirectory: node.isDir) })
            let flags = (y.inheritable.isEmpty ? x.inheritable : y.inheritable).reduce(ACEFlags()) { $0.union($1.flags) }
            c.reachesFiles = flags.contains(.fileInherit)
            c.reachesFolders = flags.contains(.directoryInherit)
            out.append(c)
        }
        return out
    }
}
