/// A set of file-system rights, bit for bit the `KAUTH_VNODE_*` actions of XNU
/// (`bsd/sys/kauth.h`), which double as ACE right bits. Directory aliases share a bit:
/// `list` = `read`, `add_file` = `write`, `search` = `execute`, `add_subdirectory` = `append`.
public struct AccessRights: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `KAUTH_VNODE_READ_DATA` / `LIST_DIRECTORY` — `read`, `list`.
    public static let readData = AccessRights(rawValue: 1 << 1)
    /// `KAUTH_VNODE_WRITE_DATA` / `ADD_FILE` — `write`, `add_file`.
    public static let writeData = AccessRights(rawValue: 1 << 2)
    /// `KAUTH_VNODE_EXECUTE` / `SEARCH` — `execute`, `search`.
    public static let execute = AccessRights(rawValue: 1 << 3)
    /// `KAUTH_VNODE_DELETE` — `delete`.
    public static let delete = AccessRights(rawValue: 1 << 4)
    /// `KAUTH_VNODE_APPEND_DATA` / `ADD_SUBDIRECTORY` — `append`, `add_subdirectory`.
    public static let appendData = AccessRights(rawValue: 1 << 5)
    /// `KAUTH_VNODE_DELETE_CHILD` — `delete_child`.
    public static let deleteChild = AccessRights(rawValue: 1 << 6)
    /// `KAUTH_VNODE_READ_ATTRIBUTES` — `readattr`.
    public static let readAttributes = AccessRights(rawValue: 1 << 7)
    /// `KAUTH_VNODE_WRITE_ATTRIBUTES` — `writeattr`.
    public static let writeAttributes = AccessRights(rawValue: 1 << 8)
    /// `KAUTH_VNODE_READ_EXTATTRIBUTES` — `readextattr`.
    public static let readExtAttributes = AccessRights(rawValue: 1 << 9)
    /// `KAUTH_VNODE_WRITE_EXTATTRIBUTES` — `writeextattr`.
    public static let writeExtAttributes = AccessRights(rawValue: 1 << 10)
    /// `KAUTH_VNODE_READ_SECURITY` — `readsecurity`.
    public static let readSecurity = AccessRights(rawValue: 1 << 11)
    /// `KAUTH_VNODE_WRITE_SECURITY` — `writesecurity`.
    public static let writeSecurity = AccessRights(rawValue: 1 << 12)
    /// `KAUTH_VNODE_TAKE_OWNERSHIP` / `CHANGE_OWNER` — `chown`.
    public static let takeOwnership = AccessRights(rawValue: 1 << 13)
    /// `KAUTH_VNODE_LINKTARGET` — action only: the existing file of `link()`.
    public static let linkTarget = AccessRights(rawValue: 1 << 25)
    /// `KAUTH_VNODE_CHECKIMMUTABLE` — action only: "authorized, but refuse if immutable".
    public static let checkImmutable = AccessRights(rawValue: 1 << 26)

    public static let list = readData
    public static let addFile = writeData
    public static let search = execute
    public static let addSubdirectory = appendData

    /// `KAUTH_VNODE_WRITE_RIGHTS` (kauth.h L992).
    public static let writeRights: AccessRights = [
        .writeData, .appendData, .deleteChild, .delete, .writeAttributes, .writeExtAttributes,
        .writeSecurity, .takeOwnership, .linkTarget, .checkImmutable
    ]
    /// Every right an ACE can carry.
    public static let aceRights: AccessRights = [
        .readData, .writeData, .execute, .delete, .appendData, .deleteChild, .readAttributes,
        .writeAttributes, .readExtAttributes, .writeExtAttributes, .readSecurity, .writeSecurity,
        .takeOwnership
    ]

    @inlinable public var isEmpty: Bool { rawValue == 0 }
    @inlinable public func intersects(_ other: AccessRights) -> Bool { rawValue & other.rawValue != 0 }
}

/// The three classic permission bits, as a bit set (`r` = 4, `w` = 2, `x` = 1).
public struct RWX: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let read = RWX(rawValue: 4)
    public static let write = RWX(rawValue: 2)
    public static let execute = RWX(rawValue: 1)
    public static let all: RWX = [.read, .write, .execute]

    /// `rwx` text with dashes, e.g. `r-x`.
    public var text: String {
        switch rawValue & 7 {
        case 0: "---"
        case 1: "--x"
        case 2: "-w-"
        case 3: "-wx"
        case 4: "r--"
        case 5: "r-x"
        case 6: "rw-"
        default: "rwx"
        }
    }
}

extension AccessRights {
    /// The mode bits a residual right falls back to (`vnode_authorize_simple`, vfs_subr.c ~L9690).
    /// `readAttributes`, `readSecurity` map to nothing (granted unless an ACE denies them);
    /// `writeSecurity`, `takeOwnership` never come from mode bits and are handled before this.
    @inlinable public var posixFallback: RWX {
        var bits: RWX = []
        if intersects([.readData, .readExtAttributes]) { bits.insert(.read) }
        if intersects([.writeData, .appendData, .deleteChild, .writeAttributes, .writeExtAttributes]) {
            bits.insert(.write)
        }
        if intersects(.execute) { bits.insert(.execute) }
        return bits
    }
}

/// One `chmod(1)` right word and the bit it names.
public struct RightWord: Sendable {
    public let word: String
    public let right: AccessRights
    /// Shown for files (`f`), directories (`d`) or both, as `ls -le` prints them.
    public let onFiles: Bool
    public let onDirectories: Bool
}

extension AccessRights {
    /// The 17 permission words of `chmod(1)`, in `ls -le` order.
    public static let words: [RightWord] = [
        RightWord(word: "read", right: .readData, onFiles: true, onDirectories: false),
        RightWord(word: "list", right: .readData, onFiles: false, onDirectories: true),
        RightWord(word: "write", right: .writeData, onFiles: true, onDirectories: false),
        RightWord(word: "add_file", right: .writeData, onFiles: false, onDirectories: true),
        RightWord(word: "execute", right: .execute, onFiles: true, onDirectories: false),
        RightWord(word: "search", right: .execute, onFiles: false, onDirectories: true),
        RightWord(word: "delete", right: .delete, onFiles: true, onDirectories: true),
        RightWord(word: "append", right: .appendData, onFiles: true, onDirectories: false),
        RightWord(word: "add_subdirectory", right: .appendData, onFiles: false, onDirectories: true),
        RightWord(word: "delete_child", right: .deleteChild, onFiles: false, onDirectories: true),
        RightWord(word: "readattr", right: .readAttributes, onFiles: true, onDirectories: true),
        RightWord(word: "writeattr", right: .writeAttributes, onFiles: true, onDirectories: true),
        RightWord(word: "readextattr", right: .readExtAttributes, onFiles: true, onDirectories: true),
        RightWord(word: "writeextattr", right: .writeExtAttributes, onFiles: true, onDirectories: true),
        RightWord(word: "readsecurity", right: .readSecurity, onFiles: true, onDirectories: true),
        RightWord(word: "writesecurity", right: .writeSecurity, onFiles: true, onDirectories: true),
        RightWord(word: "chown", right: .takeOwnership, onFiles: true, onDirectories: true)
    ]

    public static func named(_ word: String) -> AccessRights? {
        for w in words where w.word == word { return w.right }
        return nil
    }

    /// Comma-joined words; `forDirectory` picks the directory aliases (`list`, `add_file`, …).
    /// `nil` prints the file words.
    public func text(forDirectory: Bool?) -> String {
        var out = ""
        forEachWord(forDirectory: forDirectory) { w in
            if !out.isEmpty { out += "," }
            out += w
        }
        return out
    }

    /// The words of `text(forDirectory:)`, one at a time, in order. The rights' bits rise in
    /// the order of `words` (`ls -le`'s), one word per bit on files and one on directories, so
    /// the set bits are visited in order instead of every word being tried.
    public func forEachWord(forDirectory: Bool?, _ body: (String) -> Void) {
        let dir = forDirectory ?? false
        let table = AccessRights.wordsByBit
        var bits = rawValue & AccessRights.aceRights.rawValue
        while bits != 0 {
            let bit = bits.trailingZeroBitCount
            bits &= bits &- 1
            if let w = dir ? table[bit].directory : table[bit].file { body(w) }
        }
        if contains(.linkTarget) { body("linktarget") }
        if contains(.checkImmutable) { body("checkimmutable") }
    }

    /// `words` by the bit of their right: its word on a file and on a directory (nil where it
    /// has none, `delete_child` on a file).
    static let wordsByBit: [(file: String?, directory: String?)] = {
        var t = [(file: String?, directory: String?)](repeating: (nil, nil), count: 32)
        for w in words {
            let bit = w.right.rawValue.trailingZeroBitCount
            if w.onFiles { t[bit].file = w.word }
            if w.onDirectories { t[bit].directory = w.word }
        }
        return t
    }()
}
