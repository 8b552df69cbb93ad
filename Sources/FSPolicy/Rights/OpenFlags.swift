/// The flags of an `open(2)` call that change what the kernel checks (docs/semantics.md O21):
/// the access mode (`O_RDONLY` is neither `wronly` nor `rdwr`), and the flags that change the
/// rights asked, the lookup of the last name, or the answer. Flags that change neither
/// (`O_CLOEXEC`, `O_NONBLOCK`, …) are not kept: `OpenFlags.ignoredWords` names them.
public struct OpenFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let wronly = OpenFlags(rawValue: 1 << 0)
    public static let rdwr = OpenFlags(rawValue: 1 << 1)
    public static let creat = OpenFlags(rawValue: 1 << 2)
    public static let excl = OpenFlags(rawValue: 1 << 3)
    public static let trunc = OpenFlags(rawValue: 1 << 4)
    public static let append = OpenFlags(rawValue: 1 << 5)
    public static let directory = OpenFlags(rawValue: 1 << 6)
    public static let nofollow = OpenFlags(rawValue: 1 << 7)
    /// Linux only: a descriptor that names the node without opening it.
    public static let path = OpenFlags(rawValue: 1 << 8)

    /// The words of the format, in the order a policy writes them (`O_RDONLY` is the empty set).
    public static let words: [(String, OpenFlags)] = [
        ("O_RDONLY", []), ("O_WRONLY", .wronly), ("O_RDWR", .rdwr), ("O_CREAT", .creat), ("O_EXCL", .excl),
        ("O_TRUNC", .trunc), ("O_APPEND", .append), ("O_DIRECTORY", .directory), ("O_NOFOLLOW", .nofollow), ("O_PATH", .path)
    ]

    /// Flags that change nothing the kernel checks for permission: a trace shows them, a
    /// policy leaves them out. (`O_NONBLOCK` on a FIFO opened write-only decides whether the
    /// call waits for a reader or fails with ENXIO: about other processes, not permission.)
    /// Not among them, and not read either: `O_NOATIME` (EPERM for a caller who is neither the
    /// owner nor holds CAP_FOWNER), `O_DIRECT` (EINVAL where the file system has no direct
    /// I/O), `O_TMPFILE`.
    public static let ignoredWords: [String] = [
        "O_CLOEXEC", "O_NONBLOCK", "O_NDELAY", "O_NOCTTY", "O_LARGEFILE", "O_SYNC", "O_DSYNC", "O_RSYNC", "O_ASYNC"
    ]

    /// The flag a word names (`O_RDONLY`: the empty set); nil for an unknown word.
    public static func named(_ word: String) -> OpenFlags? {
        words.first { $0.0 == word }?.1
    }

    /// The flags as the words of the format, the access mode first.
    public var words: [String] {
        var out = [contains(.rdwr) ? "O_RDWR" : contains(.wronly) ? "O_WRONLY" : "O_RDONLY"]
        for (w, f) in OpenFlags.words.dropFirst(3) where contains(f) { out.append(w) }
        return out
    }

    /// The access mode reads the data (`O_RDONLY`, `O_RDWR`).
    public var reads: Bool { !contains(.wronly) || contains(.rdwr) }
    /// The access mode writes the data (`O_WRONLY`, `O_RDWR`).
    public var writesData: Bool { contains(.wronly) || contains(.rdwr) }
    /// The open asks for write permission: the access mode writes, or `O_TRUNC` (Linux
    /// `build_open_flags`; XNU `vn_authorize_open_existing`: FWRITE or O_TRUNC).
    public var asksWrite: Bool { writesData || contains(.trunc) }
    /// The trailing symlink is not followed: `O_NOFOLLOW`, or `O_CREAT|O_EXCL` (both kernels).
    public var noFollow: Bool { contains(.nofollow) || isSuperset(of: [.creat, .excl]) }

    /// What Linux keeps of `O_PATH`: only `O_DIRECTORY` and `O_NOFOLLOW` (`build_open_how`).
    public var linuxEffective: OpenFlags {
        contains(.path) ? intersection([.path, .directory, .nofollow]) : self
    }

    /// The open that the ops `read`, `write`, `readwrite`, `append`, `truncate` and `creat` stand
    /// for, as their probes make it.
    public static func of(_ op: Operation) -> OpenFlags? {
        switch op {
        case .read: []
        case .write: .wronly
        case .readwrite: .rdwr
        case .append: [.wronly, .append]
        case .truncate: [.wronly, .trunc]
        case .creat: [.wronly, .creat]
        default: nil
        }
    }
}
