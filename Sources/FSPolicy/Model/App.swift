/// Apps as subjects: what a macOS or iOS app brings with it besides its user's credential —
/// entitlements, Info.plist purpose strings, the items its user picked, security-scoped
/// bookmarks and privacy (TCC) consents. docs/sandbox.md describes how each is used.

/// An entitlement value as a property list gives it.
public enum EntitlementValue: Hashable, Sendable {
    case bool(Bool)
    case string(String)
    case strings([String])
    /// Anything else (numbers, dictionaries, data): kept, never a grant.
    case other(String)

    /// The strings of a string or an array of strings (temporary exceptions take either).
    public var stringList: [String] {
        switch self {
        case .string(let s): [s]
        case .strings(let a): a
        default: []
        }
    }
}

/// The entitlement keys the file-system layers read (Apple's Entitlements reference).
public enum Entitlement {
    public static let appSandbox = "com.apple.security.app-sandbox"
    public static let userSelectedReadOnly = "com.apple.security.files.user-selected.read-only"
    public static let userSelectedReadWrite = "com.apple.security.files.user-selected.read-write"
    public static let userSelectedExecutable = "com.apple.security.files.user-selected.executable"
    public static let downloadsReadOnly = "com.apple.security.files.downloads.read-only"
    public static let downloadsReadWrite = "com.apple.security.files.downloads.read-write"
    public static let picturesReadOnly = "com.apple.security.assets.pictures.read-only"
    public static let picturesReadWrite = "com.apple.security.assets.pictures.read-write"
    public static let musicReadOnly = "com.apple.security.assets.music.read-only"
    public static let musicReadWrite = "com.apple.security.assets.music.read-write"
    public static let moviesReadOnly = "com.apple.security.assets.movies.read-only"
    public static let moviesReadWrite = "com.apple.security.assets.movies.read-write"
    public static let bookmarksAppScope = "com.apple.security.files.bookmarks.app-scope"
    public static let bookmarksDocumentScope = "com.apple.security.files.bookmarks.document-scope"
    public static let absolutePathReadOnly = "com.apple.security.temporary-exception.files.absolute-path.read-only"
    public static let absolutePathReadWrite = "com.apple.security.temporary-exception.files.absolute-path.read-write"
    public static let homeRelativeReadOnly = "com.apple.security.temporary-exception.files.home-relative-path.read-only"
    public static let homeRelativeReadWrite = "com.apple.security.temporary-exception.files.home-relative-path.read-write"
    public static let applicationGroups = "com.apple.security.application-groups"
    public static let ubiquityContainers = "com.apple.developer.ubiquity-container-identifiers"
    public static let iCloudContainers = "com.apple.developer.icloud-container-identifiers"
    public static let ubiquityKVStore = "com.apple.developer.ubiquity-kvstore-identifier"
    public static let filesAll = "com.apple.security.files.all"
    /// iOS: the Data Protection class of the files the app creates, unless a directory or the
    /// call says otherwise (`NSFileProtectionComplete`, …; docs/sandbox.md, Data Protection).
    public static let defaultDataProtection = "com.apple.developer.default-data-protection"

    /// Keys whose value is a Bool.
    public static let booleans: [String] = [
        appSandbox, userSelectedReadOnly, userSelectedReadWrite, userSelectedExecutable,
        downloadsReadOnly, downloadsReadWrite, picturesReadOnly, picturesReadWrite, musicReadOnly, musicReadWrite,
        moviesReadOnly, moviesReadWrite, bookmarksAppScope, bookmarksDocumentScope, filesAll
    ]
    /// Keys whose value is a string or an array of strings.
    public static let stringOrArray: [String] = [absolutePathReadOnly, absolutePathReadWrite, homeRelativeReadOnly, homeRelativeReadWrite]
    /// Keys whose value is an array of strings.
    public static let arrays: [String] = [applicationGroups, ubiquityContainers, iCloudContainers]
    /// Every key this model knows (others are kept and ignored).
    public static var known: [String] { booleans + stringOrArray + arrays + [ubiquityKVStore, defaultDataProtection] }

    /// The four standard folders with their read-only and read-write keys, relative to the home.
    public static let standardFolders: [(folder: String, readOnly: String, readWrite: String)] = [
        ("Downloads", downloadsReadOnly, downloadsReadWrite),
        ("Pictures", picturesReadOnly, picturesReadWrite),
        ("Music", musicReadOnly, musicReadWrite),
        ("Movies", moviesReadOnly, moviesReadWrite)
    ]

    /// `…read-only` → `…read-write` (and back); nil for keys without a pair.
    public static func counterpart(_ key: String) -> String? {
        if key.hasSuffix(".read-only") { return String(key.dropLast(".read-only".count)) + ".read-write" }
        if key.hasSuffix(".read-write") { return String(key.dropLast(".read-write".count)) + ".read-only" }
        return nil
    }
}

public enum AppPlatform: String, Sendable, CaseIterable {
    case macos, ios
}

/// A privacy consent as TCC stores it.
public enum Consent: String, Sendable, CaseIterable {
    case granted, denied, notDetermined
}

/// The TCC services that gate files (`tcc:` keys of format v1).
public enum TCCService: String, Sendable, CaseIterable {
    case desktop, documents, downloads, removableVolumes, networkVolumes, appData, pictures, music, movies

    /// The Info.plist key whose purpose string the consent prompt shows; nil where Apple
    /// documents none (then no purpose string is required).
    public var purposeKey: String? {
        switch self {
        case .desktop: "NSDesktopFolderUsageDescription"
        case .documents: "NSDocumentsFolderUsageDescription"
        case .downloads: "NSDownloadsFolderUsageDescription"
        case .removableVolumes: "NSRemovableVolumesUsageDescription"
        case .networkVolumes: "NSNetworkVolumesUsageDescription"
        case .appData: "NSAppDataUsageDescription"
        case .pictures, .music, .movies: nil
        }
    }

    /// The folder under the home that the service protects, if it is one.
    public var homeFolder: String? {
        switch self {
        case .desktop: "Desktop"
        case .documents: "Documents"
        case .downloads: "Downloads"
        case .pictures: "Pictures"
        case .music: "Music"
        case .movies: "Movies"
        case .removableVolumes, .networkVolumes, .appData: nil
        }
    }

    /// How System Settings names it (Privacy & Security › Files and Folders, …).
    public var label: String {
        switch self {
        case .desktop: "Desktop Folder"
        case .documents: "Documents Folder"
        case .downloads: "Downloads Folder"
        case .removableVolumes: "Removable Volumes"
        case .networkVolumes: "Network Volumes"
        case .appData: "other apps' data"
        case .pictures: "Pictures Folder"
        case .music: "Music Folder"
        case .movies: "Movies Folder"
        }
    }
}

/// A security-scoped bookmark the app resolved (format v1 `bookmarks:`).
public struct Bookmark: Hashable, Sendable {
    public enum Scope: String, Sendable, CaseIterable {
        case app, document
        /// The entitlement a macOS app needs to create or resolve such a bookmark.
        public var entitlement: String { self == .app ? Entitlement.bookmarksAppScope : Entitlement.bookmarksDocumentScope }
    }
    public var path: String
    public var scope: Scope
    /// Created with "allow only read access".
    public var readOnly: Bool
    /// Resolution reported `bookmarkDataIsStale`: it still resolves; the app should re-create it.
    public var stale: Bool
    /// Successful `startAccessingSecurityScopedResource()` calls so far.
    public var started: Int
    /// `stopAccessingSecurityScopedResource()` calls so far.
    public var stopped: Int

    public init(path: String, scope: Scope = .app, readOnly: Bool = false, stale: Bool = false, started: Int = 0, stopped: Int = 0) {
        self.path = path
        self.scope = scope
        self.readOnly = readOnly
        self.stale = stale
        self.started = started
        self.stopped = stopped
    }

    /// Access lasts while the starts outnumber the stops (a reference count, not a flag).
    public var isAccessing: Bool { started > stopped }
}

/// The device's Data Protection state (format v1 `device: {state: …}`).
public enum DeviceState: String, Sendable, CaseIterable {
    case unlocked, locked, beforeFirstUnlock
}

/// One declared app. It runs as `uid`; everything else narrows or widens what that user's
/// process may do in the layers in front of the file system.
public struct App: Hashable, Sendable {
    public var bundleID: String
    public var uid: UID
    /// The umask of files it creates (nil: its user's).
    public var umask: UInt16?
    public var platform: AppPlatform
    public var entitlements: [String: EntitlementValue]
    /// Info.plist keys with string values (purpose strings).
    public var info: [String: String]
    /// Items the user picked in an Open/Save panel or document picker, or dropped on the app.
    public var selected: [String]
    public var bookmarks: [Bookmark]
    /// Privacy consents; a service not listed is `notDetermined`.
    public var tcc: [TCCService: Consent]
    /// Full Disk Access (`kTCCServiceSystemPolicyAllFiles`), granted by the user in System Settings.
    public var fullDiskAccess: Bool
    /// The home of the app's user.
    public var home: String
    /// macOS: `<home>/Library/Containers/<id>/Data`; iOS: the data container.
    public var container: String
    /// iOS: the app bundle (read-only).
    public var bundle: String
    /// Where app-group containers live (docs/sandbox.md: an assumption, configurable).
    public var groupContainers: String
    /// Locations every sandboxed app may read (the sandbox's built-in allowlist; configurable).
    public var systemReadable: [String]

    /// The built-in allowlist assumed for macOS (docs/sandbox.md).
    public static let macOSSystemReadable = [
        "/System", "/usr/lib", "/usr/share", "/usr/bin", "/usr/sbin", "/bin", "/sbin",
        "/Library/Frameworks", "/Applications", "/private/etc"
    ]

    public init(
        bundleID: String, uid: UID, home: String, platform: AppPlatform = .macos,
        entitlements: [String: EntitlementValue] = [:], info: [String: String] = [:],
        selected: [String] = [], bookmarks: [Bookmark] = [], tcc: [TCCService: Consent] = [:],
        fullDiskAccess: Bool = false, umask: UInt16? = nil, container: String? = nil, bundle: String? = nil,
        groupContainers: String? = nil, systemReadable: [String]? = nil
    ) {
        self.bundleID = bundleID
        self.uid = uid
        self.home = home
        self.platform = platform
        self.entitlements = entitlements
        self.info = info
        self.selected = selected
        self.bookmarks = bookmarks
        self.tcc = tcc
        self.fullDiskAccess = fullDiskAccess
        self.umask = umask
        let last = bundleID.split(separator: ".").last.map(String.init) ?? bundleID
        switch platform {
        case .macos:
            self.container = container ?? App.join(home, "Library/Containers/\(bundleID)/Data")
            self.bundle = bundle ?? "/Applications/\(last).app"
            self.groupContainers = groupContainers ?? App.join(home, "Library/Group Containers")
            self.systemReadable = systemReadable ?? App.macOSSystemReadable
        case .ios:
            self.container = container ?? "/var/mobile/Containers/Data/Application/\(bundleID)"
            self.bundle = bundle ?? "/var/containers/Bundle/Application/\(bundleID)/\(last).app"
            self.groupContainers = groupContainers ?? "/var/mobile/Containers/Shared/AppGroup"
            self.systemReadable = systemReadable ?? []
        }
    }

    /// iOS apps are always sandboxed; a macOS app only with `com.apple.security.app-sandbox: true`.
    public var isSandboxed: Bool { platform == .ios || flag(Entitlement.appSandbox) }

    public func flag(_ key: String) -> Bool { entitlements[key] == .bool(true) }

    public func strings(_ key: String) -> [String] { entitlements[key]?.stringList ?? [] }

    /// A purpose string is present when the key holds non-blank text.
    public func hasPurposeString(_ key: String) -> Bool {
        guard let s = info[key] else { return false }
        return s.contains { !$0.isWhitespace }
    }

    /// The folder of a home-relative name (`Desktop` → `/Users/alice/Desktop`).
    public func inHome(_ rel: String) -> String { App.join(home, rel) }

    /// Where an iCloud container listed in the ubiquity entitlement is kept locally
    /// (`iCloud.com.example.Notes` → `~/Library/Mobile Documents/iCloud~com~example~Notes`).
    public func ubiquityPath(_ id: String) -> String {
        let dir = String(id.map { $0 == "." ? "~" : $0 })
        let root = platform == .ios ? "/var/mobile/Library/Mobile Documents" : App.join(home, "Library/Mobile Documents")
        return root + "/" + dir
    }

    /// The container id a Mobile Documents folder name stands for (`~` back to `.`).
    public static func ubiquityID(folder: String) -> String { String(folder.map { $0 == "~" ? "." : $0 }) }

    /// `base` + "/" + `rel`, with single slashes and no trailing slash (except for `/`).
    public static func join(_ base: String, _ rel: String) -> String {
        normalize(base + "/" + rel)
    }

    /// Collapses repeated slashes and drops `.` and a trailing slash.
    public static func normalize(_ p: String) -> String {
        let parts = p.split(separator: "/").filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` is `base` or lies below it.
    @inlinable public static func isWithin(_ path: String, _ base: String) -> Bool {
        if base == "/" || path == base { return true }
        let pu = path.utf8, bu = base.utf8
        return pu.count > bu.count && pu.starts(with: bu) && pu[pu.index(pu.startIndex, offsetBy: bu.count)] == UInt8(ascii: "/")
    }
}

extension World {
    /// The index of the app with this bundle id in `apps`.
    public func appIndex(_ bundleID: String) -> Int? { apps.firstIndex { $0.bundleID == bundleID } }

    /// The credential an app's process runs with: its user's, with the app's umask if it has one.
    public func subject(app i: Int) -> Subject {
        var s = subject(uid: apps[i].uid)
        if let m = apps[i].umask { s.umask = m }
        return s
    }
}
