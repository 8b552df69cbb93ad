/// The view of the file system a systemd unit's sandbox options give a service (docs/services.md,
/// rules U1–U5 of docs/semantics.md): each option adds mounts on paths, and systemd applies them
/// in the order of src/core/namespace.c — sorted by path, a deeper path mounted after (so over)
/// a shallower one, and on one path the entry of the lower mode kept.
public struct ViewEntry: Hashable, Sendable {
    /// The mount modes fspolicy models, in namespace.c's priority order (lower wins on one path).
    public enum Mode: UInt8, Hashable, Sendable, Comparable {
        /// `InaccessiblePaths=`, `ProtectHome=yes`: an empty node of the path's type, mode 0000,
        /// owned by root, mounted read-only and noexec over the path (U5).
        case inaccessible
        /// `BindPaths=`, `BindReadOnlyPaths=`: a mount of its own, read-only for
        /// `BindReadOnlyPaths=` (U4, U1); the path bound onto itself, or (`source`) another path's
        /// subtree shown at the path (U6).
        case bind
        /// `PrivateTmp=yes`: a fresh directory, mode 1777, owned by root, bound over /tmp and /var/tmp (U5).
        case privateTmp
        case readOnly, readWrite, noexec, exec
        /// `TemporaryFileSystem=`, `ProtectHome=tmpfs`: an empty tmpfs over the path (U5).
        case tmpfs
        /// The read-write mounts `ProtectSystem=strict` leaves on /dev, /proc, /sys and the homes:
        /// every other option on the same path wins over them.
        case readWriteImplicit
        public static func < (a: Mode, b: Mode) -> Bool { a.rawValue < b.rawValue }
        /// How the mount is made: `read-only`, `read-write`, `noexec`, `exec`.
        public var word: String {
            switch self {
            case .readOnly: "read-only"
            case .readWrite, .readWriteImplicit: "read-write"
            case .noexec: "noexec"
            case .exec: "exec"
            case .inaccessible: "inaccessible"
            case .bind: "bound onto itself"
            case .privateTmp: "a private /tmp"
            case .tmpfs: "an empty tmpfs"
            }
        }
        /// The path shows another node than the host's: an empty one (U5).
        public var replaces: Bool { self == .inaccessible || self == .privateTmp || self == .tmpfs }
    }
    /// Absolute, without a trailing slash (`/` for the root).
    public var path: String
    public var mode: Mode
    /// The assignment that made it, as written (`ProtectSystem=strict`).
    public var option: String
    /// Where it was written (`units/nightly.service:11`).
    public var place: String
    /// Mounted read-only whatever the mode says (`TemporaryFileSystem=PATH:ro`, `ProtectHome=tmpfs`,
    /// or the flag of an entry on the same path it won over).
    public var ro = false
    /// The mode of the empty node a replacing entry mounts (`mode=` of a tmpfs; 0000, 1777).
    public var nodeMode: FileMode? = nil
    /// A bind's source when it is another path than `path` (`BindPaths=SRC:DST`): `path` then
    /// shows the source's node and subtree (U6).
    public var source: String? = nil
    /// A bind to another path brings the mounts below its source along (`rbind`, the default);
    /// false for `norbind`.
    public var recursive = true
    /// A directory systemd makes when the unit starts (`StateDirectory=` and its siblings, U7):
    /// it is the bind's source, or its path when it has none.
    public var creates: DirectoryCreation? = nil

    public init(
        path: String, mode: Mode, option: String, place: String, ro: Bool = false, nodeMode: FileMode? = nil, source: String? = nil,
        recursive: Bool = true
    ) {
        self.path = path
        self.mode = mode
        self.option = option
        self.place = place
        self.ro = ro
        self.nodeMode = nodeMode
        self.source = source
        self.recursive = recursive
    }

    /// The entry without where it was written.
    var unplaced: ViewEntry {
        var e = self
        e.place = ""
        return e
    }

    /// The path shows another node than the host's there: an empty one (U5) or a bind's source (U6).
    public var showsOther: Bool { mode.replaces || source != nil }

    /// What the entry mounts, for an explanation: `/etc read-only`, `an empty tmpfs over /srv, read-only`.
    public var phrase: String {
        switch mode {
        case .inaccessible: return "an inaccessible node over \(path) (mode 0000, owned by root, read-only, noexec)"
        case .privateTmp: return "a private directory over \(path) (mode 1777, owned by root\(ro ? ", read-only" : ""))"
        case .tmpfs:
            let m = nodeMode.map { String($0.rawValue, radix: 8) } ?? "755"
            return "an empty tmpfs over \(path) (mode \(String(repeating: "0", count: max(0, 4 - m.count)) + m), owned by root\(ro ? ", read-only" : ""))"
        case .bind:
            if let s = source { return "\(s) bound over \(path)\(recursive ? "" : " (norbind)")\(ro ? ", read-only" : "")" }
            return "\(path) bound onto itself\(ro ? ", read-only" : "")"
        default: return "\(path) \(ro && !isReadOnlyMode ? "read-only" : mode.word)"
        }
    }
    private var isReadOnlyMode: Bool { mode == .readOnly }

    /// `path` is this entry's path or below it.
    public func covers(_ p: String) -> Bool {
        if path == "/" { return p.hasPrefix("/") }
        if p == path { return true }
        return p.hasPrefix(path) && p.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "/")
    }

    /// Takes part in the read-only pass: every mode but noexec and exec (unless it carries the ro flag).
    var isWriteMode: Bool { !(mode == .noexec || mode == .exec) || ro }
    /// Takes part in the noexec pass: noexec, exec, and the inaccessible node (always noexec).
    var isExecMode: Bool { mode == .noexec || mode == .exec || mode == .inaccessible }
    /// The mount is read-only: a read-only or inaccessible entry, or one with the ro flag.
    public var isReadOnly: Bool { mode == .readOnly || mode == .inaccessible || ro }
    /// The mount is noexec.
    var isNoexec: Bool { mode == .noexec || mode == .inaccessible }
}

/// What systemd does to a directory of `StateDirectory=`, `CacheDirectory=`, `LogsDirectory=`,
/// `RuntimeDirectory=` or `ConfigurationDirectory=` when the unit starts (U7): it makes it and
/// any missing parent (root's, mode 0755), gives it to the service's user and group unless the
/// option is `ConfigurationDirectory=` (an existing one owned by someone else is given over with
/// everything below it), and sets its mode.
public struct DirectoryCreation: Hashable, Sendable {
    public var uid: UID
    public var gid: GID
    public var mode: FileMode
    /// The directory is given to `uid`/`gid` (false for `ConfigurationDirectory=`: root keeps it).
    public var chown: Bool
    /// With `DynamicUser=yes`: the folder of private directories (`/var/lib/private`), made mode 0700.
    public var privateParent: String?

    public init(uid: UID, gid: GID, mode: FileMode, chown: Bool, privateParent: String? = nil) {
        self.uid = uid
        self.gid = gid
        self.mode = mode
        self.chown = chown
        self.privateParent = privateParent
    }
}

/// The worlds of views made over one world, by the changes that made them: services whose units
/// change the same paths in the same way (`PrivateTmp=yes`, `ProtectHome=yes`, …) share one copy
/// of the tree instead of one each.
public struct ViewWorlds {
    struct Key: Hashable {
        var made: [ViewEntry]
        var shown: [ViewEntry]
    }
    var made: [Key: (WorldBox, [String])] = [:]
    public init() {}
}

public struct MountView: Hashable, Sendable {
    /// Sorted by path, duplicates dropped (namespace.c's sort and drop_duplicates), and nothing
    /// below an inaccessible path, a tmpfs or a private /tmp.
    public private(set) var entries: [ViewEntry]
    /// Entries dropped because they name a path inside an inaccessible path, a tmpfs or a private
    /// /tmp, which is empty (systemd drops those under an inaccessible path, and fails to start
    /// the unit for the others unless the path has a `-`).
    public private(set) var hidden: [ViewEntry] = []
    /// The world as the view shows it, when an entry replaces what a path shows (U5): made by
    /// `init(_:over:)`, and what decisions of a subject with this view walk.
    var box: WorldBox? = nil
    /// Replacing entries that could not be applied to the world, and why (the path is missing, or
    /// is not a directory where a directory is mounted).
    public private(set) var unapplied: [String] = []

    public init(_ list: [ViewEntry]) {
        // A stable sort: path, then mode; on one path the first (lowest mode, then the first
        // written) is kept.
        let sorted = list.enumerated().sorted { a, b in
            if a.element.path != b.element.path { return MountView.pathLess(a.element.path, b.element.path) }
            if a.element.mode != b.element.mode { return a.element.mode < b.element.mode }
            return a.offset < b.offset
        }.map(\.element)
        var out: [ViewEntry] = []
        var i = 0
        while i < sorted.count {
            var j = i
            while j < sorted.count && sorted[j].path == sorted[i].path { j += 1 }
            let group = sorted[i..<j]
            var kept: [ViewEntry] = []
            for e in group {
                // A tmpfs loses to any entry of a lower mode on its path (it is dropped, not mounted).
                if e.mode == .tmpfs && group.contains(where: { $0.mode < .tmpfs }) { continue }
                // Read-only/read-write and noexec/exec are separate passes of namespace.c: a
                // duplicate is one of the same pass on the same path.
                if kept.contains(where: { ($0.isWriteMode && e.isWriteMode) || ($0.isExecMode && e.isExecMode) }) { continue }
                kept.append(e)
            }
            // The kept entry takes the read-only flag of those it won over (drop_duplicates).
            if group.contains(where: \.isReadOnly), !kept.contains(where: \.isReadOnly) {
                let k = kept.firstIndex(where: \.isWriteMode) ?? 0
                kept[k].ro = true
            }
            out += kept
            i = j
        }
        // Nothing below a path whose contents are replaced by an empty node.
        var shown: [ViewEntry] = []
        for e in out {
            if shown.contains(where: { $0.mode.replaces && $0.path != e.path && $0.covers(e.path) }) {
                hidden.append(e)
                continue
            }
            shown.append(e)
        }
        entries = shown
    }

    /// The view, with the world as it shows it when an entry replaces a path (U5).
    public init(_ list: [ViewEntry], over world: World) {
        var views = ViewWorlds()
        self.init(list, over: world, shared: &views)
    }

    /// The view, its world taken from `shared` when a view with the same changes was made over
    /// `world` before, else made and kept there.
    public init(_ list: [ViewEntry], over world: World, shared: inout ViewWorlds) {
        self.init(list)
        // Directories already as systemd makes them change nothing.
        let made = list.filter { $0.creates != nil && world.creationChanges($0) }
        let shown = entries.filter(\.showsOther)
        guard !shown.isEmpty || !made.isEmpty else { return }
        // Where an entry was written changes nothing in the world it makes.
        let key = ViewWorlds.Key(made: made.map(\.unplaced), shown: shown.map(\.unplaced))
        if let (b, u) = shared.made[key] {
            box = b
            unapplied = u
            return
        }
        var w = world
        unapplied = w.createDirectories(made)
        unapplied += w.replacePaths(of: self)
        box = WorldBox(w)
        shared.made[key] = (box!, unapplied)
    }

    /// Two views are the same when their entries are.
    public static func == (a: MountView, b: MountView) -> Bool { a.entries == b.entries && a.hidden == b.hidden }
    public func hash(into h: inout Hasher) {
        h.combine(entries)
        h.combine(hidden)
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Component-wise, as systemd's path_compare: `/a` before `/a/b` before `/a-b`.
    static func pathLess(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: "/"), y = b.split(separator: "/")
        for (p, q) in zip(x, y) where p != q { return p < q }
        return x.count < y.count
    }

    /// The deepest read-only or read-write entry over `path`, when it makes `path` read-only (U1).
    public func readOnlyEntry(for path: String) -> ViewEntry? {
        var best: ViewEntry?
        for e in entries where e.isWriteMode && e.covers(path) {
            if best == nil || e.path.utf8.count >= best!.path.utf8.count { best = e }
        }
        guard let b = best, b.isReadOnly else { return nil }
        return b
    }

    /// The deepest entry of any mode over `path`: the mount `path` lives on (nil: the host's).
    public func mountEntry(for path: String) -> ViewEntry? {
        var best: ViewEntry?
        for e in entries where e.covers(path) {
            if best == nil || e.path.utf8.count > best!.path.utf8.count { best = e }
        }
        return best
    }

    /// The deepest noexec or exec entry over `path`, when it makes `path` noexec (U3).
    public func noexecEntry(for path: String) -> ViewEntry? {
        var best: ViewEntry?
        for e in entries where e.isExecMode && e.covers(path) {
            if best == nil || e.path.utf8.count >= best!.path.utf8.count { best = e }
        }
        guard let b = best, b.isNoexec else { return nil }
        return b
    }
}
