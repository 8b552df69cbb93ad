/// Linux capabilities (capabilities(7)): a set, one bit per capability at the kernel's own
/// number, so that a set read from `/proc/PID/status` or a `security.capability` xattr is the
/// same 64-bit word. The file-system rules consult a handful of them (docs/semantics.md, C).
public struct Capabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let chown = Capabilities(number: 0)
    public static let dacOverride = Capabilities(number: 1)
    public static let dacReadSearch = Capabilities(number: 2)
    public static let fowner = Capabilities(number: 3)
    public static let fsetid = Capabilities(number: 4)
    public static let setgid = Capabilities(number: 6)
    public static let setuid = Capabilities(number: 7)
    public static let linuxImmutable = Capabilities(number: 9)
    public static let sysAdmin = Capabilities(number: 21)
    public static let mknod = Capabilities(number: 27)
    public static let setfcap = Capabilities(number: 31)

    @inlinable public init(number: Int) { rawValue = number >= 0 && number < 64 ? 1 << UInt64(number) : 0 }

    /// The capabilities this kernel generation defines (`CAP_LAST_CAP` 40, CAP_CHECKPOINT_RESTORE).
    public static let all = Capabilities(rawValue: (1 << UInt64(names.count)) - 1)

    /// The kernel's names, lower case, at their numbers (include/uapi/linux/capability.h).
    public static let names: [String] = [
        "cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid", "cap_kill",
        "cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable", "cap_net_bind_service",
        "cap_net_broadcast", "cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner",
        "cap_sys_module", "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace", "cap_sys_pacct",
        "cap_sys_admin", "cap_sys_boot", "cap_sys_nice", "cap_sys_resource", "cap_sys_time",
        "cap_sys_tty_config", "cap_mknod", "cap_lease", "cap_audit_write", "cap_audit_control",
        "cap_setfcap", "cap_mac_override", "cap_mac_admin", "cap_syslog", "cap_wake_alarm",
        "cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf", "cap_checkpoint_restore"
    ]

    /// Either passes every search check (C1, C2).
    public static let searchAny: Capabilities = [.dacReadSearch, .dacOverride]

    /// The capabilities the file-system rules of the linux rule set consult.
    public static let fileSystem: Capabilities = [.chown, .dacOverride, .dacReadSearch, .fowner, .fsetid, .linuxImmutable, .mknod, .sysAdmin]

    /// The capability called `word` (`cap_dac_override`, `CAP_DAC_OVERRIDE`, `dac_override`); nil
    /// for a name the kernel does not define.
    public static func named(_ word: String) -> Capabilities? {
        var w = ""
        for c in word.unicodeScalars {
            if c.value >= 0x41 && c.value <= 0x5A { w.unicodeScalars.append(Unicode.Scalar(c.value + 0x20)!) } else { w.unicodeScalars.append(c) }
        }
        if !w.hasPrefix("cap_") { w = "cap_" + w }
        guard let i = names.firstIndex(of: w) else { return nil }
        return Capabilities(number: i)
    }

    /// The names of the capabilities in the set, in the kernel's order, upper case
    /// (`CAP_DAC_OVERRIDE`), as capabilities(7) writes them; numbers past the known ones as `CAP_<n>`.
    public var upperNames: [String] {
        var out: [String] = []
        for i in 0..<64 where rawValue & (1 << UInt64(i)) != 0 {
            if i < Capabilities.names.count {
                var s = ""
                for c in Capabilities.names[i].unicodeScalars {
                    if c.value >= 0x61 && c.value <= 0x7A { s.unicodeScalars.append(Unicode.Scalar(c.value - 0x20)!) } else { s.unicodeScalars.append(c) }
                }
                out.append(s)
            } else {
                out.append("CAP_\(i)")
            }
        }
        return out
    }

    /// The lower-case names (`cap_dac_override`), as policy files and `--caps` write them.
    public var lowerNames: [String] {
        var out: [String] = []
        for i in 0..<64 where rawValue & (1 << UInt64(i)) != 0 {
            out.append(i < Capabilities.names.count ? Capabilities.names[i] : "cap_\(i)")
        }
        return out
    }
}

/// File capabilities: the `security.capability` xattr of a program (capabilities(7), "File
/// capabilities"; the layout is `struct vfs_ns_cap_data` of include/uapi/linux/capability.h).
public struct FileCapabilities: Hashable, Sendable {
    public var permitted: Capabilities
    public var inheritable: Capabilities
    /// The effective bit: the permitted set is raised into the effective set at execve.
    public var effective: Bool
    /// A version-3 xattr's root uid: the capabilities apply only in the user namespace whose
    /// root is that uid (nil for version 2, which applies in the initial namespace).
    public var rootUID: UInt32?

    public init(permitted: Capabilities, inheritable: Capabilities = [], effective: Bool, rootUID: UInt32? = nil) {
        self.permitted = permitted
        self.inheritable = inheritable
        self.effective = effective
        self.rootUID = rootUID
    }

    /// Decodes the xattr's bytes (little-endian words: magic and flags, then permitted and
    /// inheritable low words, then their high words, then for version 3 the root uid); nil for
    /// anything that is not a version 2 or 3 value of the right size.
    public static func decode(_ bytes: [UInt8]) -> FileCapabilities? {
        func word(_ i: Int) -> UInt32 {
            UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
        }
        guard bytes.count >= 20 else { return nil }
        let magic = word(0)
        let version = magic & 0xFF00_0000
        let v2: UInt32 = 0x0200_0000, v3: UInt32 = 0x0300_0000
        guard (version == v2 && bytes.count == 20) || (version == v3 && bytes.count == 24) else { return nil }
        let prm = UInt64(word(4)) | UInt64(word(12)) << 32
        let inh = UInt64(word(8)) | UInt64(word(16)) << 32
        return FileCapabilities(
            permitted: Capabilities(rawValue: prm), inheritable: Capabilities(rawValue: inh),
            effective: magic & 1 != 0, rootUID: version == v3 ? word(20) : nil)
    }

    /// Reads the text `text` writes: clauses `NAMES=FLAGS` separated by spaces, the names
    /// comma-separated, the flags from `e`, `i`, `p` (`e` applies to the whole value), and
    /// `[rootid=N]` for a version-3 value; nil for anything else.
    public static func parse(_ s: String) -> FileCapabilities? {
        var out = FileCapabilities(permitted: [], effective: false)
        var any = false
        for clause in s.split(separator: " ", omittingEmptySubsequences: true) {
            if clause.hasPrefix("[rootid=") && clause.hasSuffix("]") {
                guard out.rootUID == nil, let r = UInt32(clause.dropFirst(8).dropLast()) else { return nil }
                out.rootUID = r
                continue
            }
            let parts = clause.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            var set: Capabilities = []
            for name in parts[0].split(separator: ",", omittingEmptySubsequences: false) {
                guard let c = Capabilities.named(String(name)) else { return nil }
                set.insert(c)
            }
            for f in parts[1] {
                switch f {
                case "e": out.effective = true
                case "i": out.inheritable.formUnion(set)
                case "p": out.permitted.formUnion(set)
                default: return nil
                }
            }
            any = true
        }
        return any ? out : nil
    }

    /// The `getcap`-style text: `cap_dac_read_search=ep`, `cap_chown,cap_fowner=ip`.
    public var text: String {
        var parts: [String] = []
        let both = permitted.intersection(inheritable)
        let pOnly = permitted.subtracting(inheritable)
        let iOnly = inheritable.subtracting(permitted)
        let e = effective ? "e" : ""
        if !both.isEmpty { parts.append(both.lowerNames.joined(separator: ",") + "=\(e)ip") }
        if !pOnly.isEmpty { parts.append(pOnly.lowerNames.joined(separator: ",") + "=\(e)p") }
        if !iOnly.isEmpty { parts.append(iOnly.lowerNames.joined(separator: ",") + "=i") }
        var s = parts.joined(separator: " ")
        if let r = rootUID { s += " [rootid=\(r)]" }
        return s
    }
}
