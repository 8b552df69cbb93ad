/// The file type, as `stat(2)` reports it.
public enum NodeType: UInt8, Sendable, CaseIterable {
    /// `device` is a device node whose kind is not said (a file of a version that had one
    /// device type, a `mknod` without `type:`); `block` and `char` say it.
    case file, dir, symlink, fifo, socket, device
    case blockDevice, charDevice

    /// A device node of any kind: the last three cases, one comparison (`nodev` asks it on
    /// every open).
    @inlinable public var isDevice: Bool { rawValue >= NodeType.device.rawValue }

    /// Whether a node of this type is one that `type:` `t` names: `device` names every kind
    /// of device node (what it meant when there was one), any other word its own type.
    @inlinable public func isNamed(by t: NodeType) -> Bool { t == .device ? isDevice : self == t }

    public var word: String {
        switch self {
        case .file: "file"
        case .dir: "dir"
        case .symlink: "symlink"
        case .fifo: "fifo"
        case .socket: "socket"
        case .device: "device"
        case .blockDevice: "block"
        case .charDevice: "char"
        }
    }

    public init?(word: String) {
        for t in NodeType.allCases where t.word == word { self = t; return }
        return nil
    }

    /// The `ls -l` type character.
    public var lsChar: Character {
        switch self {
        case .file: "-"
        case .dir: "d"
        case .symlink: "l"
        case .fifo: "p"
        case .socket: "s"
        // A device node of an unsaid kind: `?`, as ls writes a type it does not know.
        case .device: "?"
        case .blockDevice: "b"
        case .charDevice: "c"
        }
    }
}

/// Permission bits including setuid (04000), setgid (02000) and sticky (01000).
public struct FileMode: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue & 0o7777 }

    public static let setuid: UInt16 = 0o4000
    public static let setgid: UInt16 = 0o2000
    public static let sticky: UInt16 = 0o1000

    @inlinable public var owner: RWX { RWX(rawValue: UInt8((rawValue >> 6) & 7)) }
    @inlinable public var group: RWX { RWX(rawValue: UInt8((rawValue >> 3) & 7)) }
    @inlinable public var other: RWX { RWX(rawValue: UInt8(rawValue & 7)) }
    @inlinable public var isSetuid: Bool { rawValue & FileMode.setuid != 0 }
    @inlinable public var isSetgid: Bool { rawValue & FileMode.setgid != 0 }
    @inlinable public var isSticky: Bool { rawValue & FileMode.sticky != 0 }
    /// The bits some class has (`r` when any class has `r`, …): what `ModeClass.any` evidence
    /// shows.
    @inlinable public var anyClassBits: RWX { owner.union(group).union(other) }
    /// Some x bit in any class (`S_IXUGO`).
    @inlinable public var anyExecute: Bool { rawValue & 0o111 != 0 }

    /// Four octal digits, e.g. `0755`.
    public var octal: String {
        // Four octal digits, the lowest twelve bits.
        let v = UInt32(rawValue)
        return String(unsafeUninitializedCapacity: 4) { out in
            for k in 0..<4 { out[3 - k] = UInt8(48 + ((v >> (3 * UInt32(k))) & 7)) }
            return 4
        }
    }

    public var description: String { octal }

    /// `ls -l` style, e.g. `rwxr-sr-t` (without the type character).
    public var symbolic: String {
        var c: [Character] = Array(owner.text + group.text + other.text)
        if isSetuid { c[2] = c[2] == "x" ? "s" : "S" }
        if isSetgid { c[5] = c[5] == "x" ? "s" : "S" }
        if isSticky { c[8] = c[8] == "x" ? "t" : "T" }
        return String(c)
    }

    /// Parses `"0755"`, `"755"`, `"1777"`, or symbolic `"drwxr-xr-x"` / `"rwxr-xr-x"`.
    /// Returns the mode and, for the 10-character form, the type it names.
    public static func parse(_ text: String) -> (FileMode, NodeType?)? {
        // Octal digits (the common case), read as bytes.
        let u = text.utf8
        if !u.isEmpty, u.count <= 5, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x37 }) {
            var v: UInt16 = 0
            for b in u { v = v * 8 + UInt16(b - 0x30) }
            if v > 0o7777 { return nil }
            return (FileMode(v), nil)
        }
        let chars = Array(text)
        if !chars.isEmpty, chars.count <= 5, chars.allSatisfy({ $0 >= "0" && $0 <= "7" }) {
            var v: UInt16 = 0
            for ch in chars { v = v * 8 + UInt16(ch.asciiValue! - 48) }
            if v > 0o7777 { return nil }
            return (FileMode(v), nil)
        }
        var body = chars
        var type: NodeType? = nil
        if chars.count == 10 {
            switch chars[0] {
            case "-": type = .file
            case "d": type = .dir
            case "l": type = .symlink
            case "p": type = .fifo
            case "s": type = .socket
            case "c": type = .charDevice
            case "b": type = .blockDevice
            default: return nil
            }
            body = Array(chars[1...])
        }
        guard body.count == 9 else { return nil }
        var v: UInt16 = 0
        let letters: [Character] = ["r", "w", "x"]
        for i in 0..<9 {
            let ch = body[i]
            let bit = UInt16(1) << UInt16(8 - i)
            let slot = i % 3
            if ch == "-" { continue }
            if ch == letters[slot] { v |= bit; continue }
            if slot == 2 {
                switch (i / 3, ch) {
                case (0, "s"): v |= bit | FileMode.setuid; continue
                case (0, "S"): v |= FileMode.setuid; continue
                case (1, "s"): v |= bit | FileMode.setgid; continue
                case (1, "S"): v |= FileMode.setgid; continue
                case (2, "t"): v |= bit | FileMode.sticky; continue
                case (2, "T"): v |= FileMode.sticky; continue
                default: break
                }
            }
            return nil
        }
        return (FileMode(v), type)
    }
}

/// BSD file flags (`st_flags`, `sys/stat.h`), the values XNU uses. Linux inode flags map onto
/// them: `immutable` (`FS_IMMUTABLE_FL`, chattr `i`) = `schg`, `append` (`FS_APPEND_FL`) = `sappnd`,
/// `nodump` = `nodump`.
public struct FileFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `UF_NODUMP` — `nodump`.
    public static let userNoDump = FileFlags(rawValue: 0x1)
    /// `UF_IMMUTABLE` — shown by `ls -lO` as `uchg`.
    public static let userImmutable = FileFlags(rawValue: 0x2)
    /// `UF_APPEND` — `uappnd`.
    public static let userAppend = FileFlags(rawValue: 0x4)
    /// `UF_OPAQUE` — `opaque`.
    public static let userOpaque = FileFlags(rawValue: 0x8)
    /// `UF_HIDDEN` — `hidden`.
    public static let userHidden = FileFlags(rawValue: 0x8000)
    /// `SF_ARCHIVED` — `arch`.
    public static let systemArchived = FileFlags(rawValue: 0x10000)
    /// `SF_IMMUTABLE` — `schg`.
    public static let systemImmutable = FileFlags(rawValue: 0x20000)
    /// `SF_APPEND` — `sappnd`.
    public static let systemAppend = FileFlags(rawValue: 0x40000)

    @inlinable public func intersects(_ other: FileFlags) -> Bool { rawValue & other.rawValue != 0 }

    public static let immutable: FileFlags = [.userImmutable, .systemImmutable]
    public static let append: FileFlags = [.userAppend, .systemAppend]
    /// `UF_SETTABLE`: what a non-root owner may change.
    public static let userSettable = FileFlags(rawValue: 0x0000_ffff)
    /// `SF_SETTABLE`.
    public static let systemSettable = FileFlags(rawValue: 0x3fff_0000)

    /// Canonical names, in `ls -lO` order.
    public static let names: [(String, FileFlags)] = [
        ("arch", .systemArchived), ("opaque", .userOpaque), ("nodump", .userNoDump),
        ("sappnd", .systemAppend), ("schg", .systemImmutable), ("uappnd", .userAppend),
        ("uchg", .userImmutable), ("hidden", .userHidden)
    ]
    /// Every accepted spelling (BSD aliases and the Linux names).
    public static let aliases: [(String, FileFlags)] =
        names + [
            ("archived", .systemArchived), ("dump", []), ("sappend", .systemAppend),
            ("schange", .systemImmutable), ("simmutable", .systemImmutable), ("uappend", .userAppend),
            ("uchange", .userImmutable), ("uimmutable", .userImmutable),
            ("immutable", .systemImmutable), ("append", .systemAppend)
        ]

    /// The flags Linux has (`chattr` `i`, `a`, `d`), as the `linux` rule set names them.
    public static let linuxNames: [(String, FileFlags)] = [("immutable", .systemImmutable), ("append", .systemAppend), ("nodump", .userNoDump)]

    /// Why a flag word names nothing on Linux (a macOS name), with the Linux name to use if
    /// there is one; nil for the Linux names.
    public static func linuxProblem(_ word: String) -> (message: String, help: String)? {
        if word == "dump" || linuxNames.contains(where: { $0.0 == word }) { return nil }
        let known = "the linux rule set knows `immutable`, `append` and `nodump`"
        guard let f = named(word) else { return ("Linux has no such flag", known) }
        if f.intersects(.immutable) { return ("Linux has one immutable flag (`chattr +i`)", "write `immutable`") }
        if f.intersects(.append) { return ("Linux has one append-only flag (`chattr +a`)", "write `append`") }
        return ("Linux has no such flag", known)
    }

    public static func named(_ word: String) -> FileFlags? {
        for (n, f) in aliases where n == word { return f }
        return nil
    }

    public var names: [String] {
        FileFlags.names.filter { contains($0.1) }.map(\.0)
    }

    /// The first canonical name among `self`.
    public var firstName: String { names.first ?? "-" }
}
