/// The four sysctls of Linux's `fs.` namespace that change a permission decision (the `linux:`
/// section of a policy file; docs/semantics.md L12). They are per host, not per mount.
///
/// Each holds the value as the kernel stores it. The defaults are the values Debian ships in
/// `/usr/lib/sysctl.d/protect-links.conf` (procps): hardlinks 1, symlinks 1, regular 2, fifos 1.
/// The kernel's own built-in values are all 0; systemd's `50-default.conf` sets 1, 1, 1, 1.
public struct LinuxTunables: Hashable, Sendable {
    /// `fs.protected_hardlinks`: 0 or 1 (`may_linkat`).
    public var protectedHardlinks: UInt8
    /// `fs.protected_symlinks`: 0 or 1 (`may_follow_link`).
    public var protectedSymlinks: UInt8
    /// `fs.protected_regular`: 0, 1 or 2 (`may_create_in_sticky`).
    public var protectedRegular: UInt8
    /// `fs.protected_fifos`: 0, 1 or 2 (`may_create_in_sticky`).
    public var protectedFifos: UInt8

    public init(protectedHardlinks: UInt8 = 1, protectedSymlinks: UInt8 = 1, protectedRegular: UInt8 = 2, protectedFifos: UInt8 = 1) {
        self.protectedHardlinks = protectedHardlinks
        self.protectedSymlinks = protectedSymlinks
        self.protectedRegular = protectedRegular
        self.protectedFifos = protectedFifos
    }

    /// Every value the kernel accepts for `t` is `0...max(t)`.
    public static func max(_ t: LinuxTunable) -> UInt8 {
        switch t {
        case .protectedHardlinks, .protectedSymlinks: 1
        case .protectedRegular, .protectedFifos: 2
        }
    }

    public subscript(_ t: LinuxTunable) -> UInt8 {
        get {
            switch t {
            case .protectedHardlinks: protectedHardlinks
            case .protectedSymlinks: protectedSymlinks
            case .protectedRegular: protectedRegular
            case .protectedFifos: protectedFifos
            }
        }
        set {
            switch t {
            case .protectedHardlinks: protectedHardlinks = newValue
            case .protectedSymlinks: protectedSymlinks = newValue
            case .protectedRegular: protectedRegular = newValue
            case .protectedFifos: protectedFifos = newValue
            }
        }
    }
}

/// One of the `fs.protected_*` sysctls. The raw value is the key of the `linux:` section.
public enum LinuxTunable: String, CaseIterable, Hashable, Sendable {
    case protectedHardlinks, protectedSymlinks, protectedRegular, protectedFifos

    /// The sysctl's name, as `sysctl` prints it (`fs.protected_symlinks`).
    public var sysctl: String {
        switch self {
        case .protectedHardlinks: "fs.protected_hardlinks"
        case .protectedSymlinks: "fs.protected_symlinks"
        case .protectedRegular: "fs.protected_regular"
        case .protectedFifos: "fs.protected_fifos"
        }
    }

    /// Its file under `/proc/sys`.
    public var procPath: String { "/proc/sys/" + sysctl.replacingDots() }
}

extension String {
    fileprivate func replacingDots() -> String {
        String(self.map { $0 == "." ? "/" : $0 })
    }
}
