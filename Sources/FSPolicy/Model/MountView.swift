/// The view of the file system a systemd unit's sandbox options give a service (docs/services.md,
/// rules U1–U3 of docs/semantics.md): each option adds mounts on paths, and systemd applies them
/// in the order of src/core/namespace.c — sorted by path, a deeper path mounted after (so over)
/// a shallower one, and on one path the entry of the lower mode kept.
public struct ViewEntry: Hashable, Sendable {
    /// The mount modes fspolicy models, in namespace.c's priority order (lower wins on one path).
    public enum Mode: UInt8, Hashable, Sendable, Comparable {
        case readOnly, readWrite, noexec, exec
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
            }
        }
    }
    /// Absolute, without a trailing slash (`/` for the root).
    public var path: String
    public var mode: Mode
    /// The assignment that made it, as written (`ProtectSystem=strict`).
    public var option: String
    /// Where it was written (`units/nightly.service:11`).
    public var place: String

    public init(path: String, mode: Mode, option: String, place: String) {
        self.path = path
        self.mode = mode
        self.option = option
        self.place = place
    }

    /// `path` is this entry's path or below it.
    public func covers(_ p: String) -> Bool {
        if path == "/" { return p.hasPrefix("/") }
        if p == path { return true }
        return p.hasPrefix(path) && p.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "/")
    }

    var isWriteMode: Bool { mode == .readOnly || mode == .readWrite || mode == .readWriteImplicit }
    var isExecMode: Bool { mode == .noexec || mode == .exec }
}

public struct MountView: Hashable, Sendable {
    /// Sorted by path, duplicates dropped (namespace.c's sort and drop_duplicates).
    public private(set) var entries: [ViewEntry]

    public init(_ list: [ViewEntry]) {
        // A stable sort: path, then mode; on one path the first (lowest mode, then the first
        // written) is kept.
        let sorted = list.enumerated().sorted { a, b in
            if a.element.path != b.element.path { return MountView.pathLess(a.element.path, b.element.path) }
            if a.element.mode != b.element.mode { return a.element.mode < b.element.mode }
            return a.offset < b.offset
        }.map(\.element)
        var out: [ViewEntry] = []
        for e in sorted {
            // Read-only/read-write and noexec/exec are separate passes of namespace.c: a
            // duplicate is one of the same pass on the same path.
            if out.contains(where: { $0.path == e.path && $0.isWriteMode == e.isWriteMode }) { continue }
            out.append(e)
        }
        entries = out
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
        guard let b = best, b.mode == .readOnly else { return nil }
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
        guard let b = best, b.mode == .noexec else { return nil }
        return b
    }
}
