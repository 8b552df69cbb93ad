/// The Keychain beside the file model (docs/keychain.md, rules K1–K24): items as securityd
/// stores them, the device state their class keys depend on, and the apps that ask. Nothing
/// here reads a real keychain; it is the model the four calls are decided against.

/// An item's class (`kSecClass`), by the short name securityd's tables use.
public enum KeychainClass: String, Sendable, CaseIterable {
    case genp, inet, cert, keys, idnt

    /// The attributes that, with the access group and `sync`, make an item's identity (K14).
    /// An identity is a certificate paired with its key; its identity is the certificate's.
    public var primaryKey: [String] {
        switch self {
        case .genp: ["acct", "svce"]
        case .inet: ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path"]
        case .cert, .idnt: ["ctyp", "issr", "slnr"]
        case .keys: ["kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "sdat", "edat"]
        }
    }

    /// Attributes of the primary key that are numbers: missing, they count as 0, not "".
    public static let numericAttributes: Set<String> = ["port", "ctyp", "kcls", "crtr", "type", "bsiz", "esiz"]

    /// Attributes an item of this class may carry besides its primary key.
    public var otherAttributes: [String] { ["labl", "desc", "icmt", "gena", "crtr", "type"].filter { !primaryKey.contains($0) } }

    public var label: String {
        switch self {
        case .genp: "generic password"
        case .inet: "internet password"
        case .cert: "certificate"
        case .keys: "key"
        case .idnt: "identity"
        }
    }

    /// The policy words for attributes, as an app writes them (`kSecAttrService` → `service`).
    public static let attributeWords: [(word: String, attr: String)] = [
        ("account", "acct"), ("service", "svce"), ("securityDomain", "sdmn"), ("server", "srvr"), ("protocol", "ptcl"),
        ("authenticationType", "atyp"), ("port", "port"), ("path", "path"), ("certificateType", "ctyp"),
        ("issuer", "issr"), ("serialNumber", "slnr"), ("keyClass", "kcls"), ("applicationLabel", "klbl"),
        ("applicationTag", "atag"), ("creator", "crtr"), ("keyType", "type"), ("keySizeInBits", "bsiz"),
        ("effectiveKeySize", "esiz"), ("startDate", "sdat"), ("endDate", "edat"), ("label", "labl"),
        ("description", "desc"), ("comment", "icmt"), ("generic", "gena")
    ]
    public static func attribute(forWord w: String) -> String? { attributeWords.first { $0.word == w }?.attr }
    public static func word(forAttribute a: String) -> String { attributeWords.first { $0.attr == a }?.word ?? a }
}

/// `kSecAttrAccessible`: when the item's class key is available (K6–K8), and whether it may
/// leave the device.
public enum KeychainAccessibility: String, Sendable, CaseIterable {
    case whenUnlocked, whenUnlockedThisDeviceOnly, whenPasscodeSetThisDeviceOnly
    case afterFirstUnlock, afterFirstUnlockThisDeviceOnly, always, alwaysThisDeviceOnly

    /// securityd's `pdmn` value.
    public var code: String {
        switch self {
        case .whenUnlocked: "ak"
        case .whenUnlockedThisDeviceOnly: "aku"
        case .whenPasscodeSetThisDeviceOnly: "akpu"
        case .afterFirstUnlock: "ck"
        case .afterFirstUnlockThisDeviceOnly: "cku"
        case .always: "dk"
        case .alwaysThisDeviceOnly: "dku"
        }
    }

    /// The Data Protection class of its key: A, C or D.
    public var protectionClass: Character {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: "A"
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: "C"
        case .always, .alwaysThisDeviceOnly: "D"
        }
    }

    public var thisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly: true
        default: false
        }
    }

    /// Whether the class key is there in this lock state (K6, K7).
    public func available(in state: DeviceState) -> Bool {
        switch (protectionClass, state) {
        case ("D", _), (_, .unlocked): true
        case ("C", .locked): true
        default: false
        }
    }

    /// The default for a new item of `cls` (K6): certificates `always`, everything else `whenUnlocked`.
    public static func `default`(for cls: KeychainClass) -> KeychainAccessibility { cls == .cert ? .always : .whenUnlocked }
}

/// `SecAccessControlCreateFlags` that the model knows.
public enum AccessControlFlag: String, Sendable, CaseIterable {
    case userPresence, biometryAny, biometryCurrentSet, devicePasscode, applicationPassword, privateKeyUsage

    public var isBiometry: Bool { self == .biometryAny || self == .biometryCurrentSet }
    /// A constraint that needs the user (K11); applicationPassword and privateKeyUsage do not.
    public var isConstraint: Bool { self != .applicationPassword && self != .privateKeyUsage }
}

/// `kSecAttrAccessControl`: flags joined by `or` or `and` (none: and).
public struct KeychainAccessControl: Hashable, Sendable {
    public enum Operator: String, Sendable, CaseIterable { case and, or }
    public var flags: [AccessControlFlag]
    /// The operators given (normally none or one; both is a parameter error, K10).
    public var operators: [Operator]

    public init(flags: [AccessControlFlag], operators: [Operator] = []) {
        self.flags = flags
        self.operators = operators
    }

    public var constraints: [AccessControlFlag] { flags.filter(\.isConstraint) }
    public var isOr: Bool { operators == [.or] }
    /// Whether using the item needs the user to authenticate.
    public var needsAuthentication: Bool { !constraints.isEmpty }

    /// Why the system refuses to create it (K10), or nil.
    public var parameterProblem: String? {
        if operators.count > 1 { return "both `or` and `and` are set" }
        if flags.filter(\.isBiometry).count > 1 { return "more than one biometry flag" }
        if flags.contains(.userPresence), flags.contains(where: { $0 != .userPresence && $0 != .applicationPassword && $0 != .privateKeyUsage }) {
            return "`userPresence` combines only with `applicationPassword` or `privateKeyUsage`"
        }
        return nil
    }

    public var text: String {
        flags.map(\.rawValue).joined(separator: isOr ? " or " : " and ")
    }
}

/// Where an item lives on macOS (K22, K23); iOS has only the data protection keychain.
public enum KeychainStoreKind: String, Sendable, CaseIterable {
    case dataProtection, fileBased
}

/// One item.
public struct KeychainItem: Hashable, Sendable {
    /// Its position in the policy (1-based) or the order it was added: how answers name it.
    public var id: Int
    public var cls: KeychainClass
    /// Attribute values by securityd name (`acct`, `svce`, …).
    public var attributes: [String: String]
    public var group: String
    public var accessible: KeychainAccessibility
    public var synchronizable: Bool
    public var accessControl: KeychainAccessControl?
    /// The app that created it (the file-based keychain trusts it, K23).
    public var creator: String?
    /// The biometry enrolment it was bound to (K13): the device's generation when written.
    public var biometryGeneration: Int
    public var store: KeychainStoreKind
    /// Apps the file-based keychain's ACL trusts besides the creator (K23).
    public var trustedApps: [String]

    public init(
        id: Int, cls: KeychainClass, attributes: [String: String] = [:], group: String = "",
        accessible: KeychainAccessibility? = nil, synchronizable: Bool = false,
        accessControl: KeychainAccessControl? = nil, creator: String? = nil, biometryGeneration: Int = 0,
        store: KeychainStoreKind = .dataProtection, trustedApps: [String] = []
    ) {
        self.id = id
        self.cls = cls
        self.attributes = attributes
        self.group = group
        self.accessible = accessible ?? .default(for: cls)
        self.synchronizable = synchronizable
        self.accessControl = accessControl
        self.creator = creator
        self.biometryGeneration = biometryGeneration
        self.store = store
        self.trustedApps = trustedApps
    }

    /// The value of a primary-key attribute, with a missing one as "" or 0 (K14).
    public func keyValue(_ attr: String) -> String {
        attributes[attr] ?? (KeychainClass.numericAttributes.contains(attr) ? "0" : "")
    }

    /// The item's identity: class, primary key, group and sync (K14).
    public var identity: [String] {
        [cls.rawValue, group, synchronizable ? "1" : "0"] + cls.primaryKey.map(keyValue)
    }

    /// How answers name it: `#2 genp svce=s acct=a`.
    public var name: String {
        let shown = cls.primaryKey.compactMap { a in attributes[a].map { "\(KeychainClass.word(forAttribute: a))=\($0)" } }
        return (["#\(id)", cls.rawValue] + shown).joined(separator: " ")
    }
}

/// The device as the keychain sees it.
public struct KeychainDevice: Hashable, Sendable {
    public var platform: AppPlatform
    public var lock: DeviceState
    public var passcode: Bool
    public var biometryEnrolled: Bool
    /// Bumped by every enrolment change (a finger or face added or removed).
    public var biometryGeneration: Int
    public var iCloudKeychain: Bool

    public init(
        platform: AppPlatform = .ios, lock: DeviceState = .unlocked, passcode: Bool = true,
        biometryEnrolled: Bool = true, biometryGeneration: Int = 0, iCloudKeychain: Bool = false
    ) {
        self.platform = platform
        self.lock = lock
        self.passcode = passcode
        self.biometryEnrolled = biometryEnrolled
        self.biometryGeneration = biometryGeneration
        self.iCloudKeychain = iCloudKeychain
    }

    /// The lock state the class keys follow: without a passcode the device counts as always
    /// unlocked (K7, an assumption that `assumptions.noPasscodeUnlocked` can turn off).
    public func effectiveLock(_ a: KeychainAssumptions) -> DeviceState {
        (!passcode && a.noPasscodeUnlocked) ? .unlocked : lock
    }
}

/// The points the sources leave uncertain (⚠ in docs/keychain.md), each a setting. An answer
/// that rests on one names it.
public struct KeychainAssumptions: Hashable, Sendable {
    /// A device without a passcode is treated as always unlocked.
    public var noPasscodeUnlocked = true
    /// A `biometryCurrentSet` item read after an enrolment change: −25300 (purged) or −25293.
    public var biometryChangedStatus: KeychainStatus = .itemNotFound
    /// `biometryAny` survives enrolment changes.
    public var biometryAnySurvives = true
    /// An attributes-only read of an item with access control asks for authentication too.
    public var attributesOnlyAuthenticates = true
    /// A `ThisDeviceOnly` item that is also synchronizable is refused with −50.
    public var syncThisDeviceOnlyRefused = true
    /// Deleting while locked succeeds (no class key is needed to drop a row).
    public var deleteWhileLocked = true
    /// A query that matches no row gives −25300 even while locked.
    public var noMatchWhileLockedNotFound = true
    /// The file-based keychain's status when the user denies the prompt (unknown in the sources).
    public var fileBasedDenyStatus: KeychainStatus = .authFailed

    public init() {}

    /// The setting names, as policies write them under `keychain.assumptions`.
    public static let names = [
        "noPasscodeUnlocked", "biometryChangedStatus", "biometryAnySurvives", "attributesOnlyAuthenticates",
        "syncThisDeviceOnlyRefused", "deleteWhileLocked", "noMatchWhileLockedNotFound", "fileBasedDenyStatus"
    ]
}

/// OSStatus values the calls return.
public enum KeychainStatus: Int, Sendable, CaseIterable {
    case success = 0
    case param = -50
    case userCanceled = -128
    case authFailed = -25293
    case duplicateItem = -25299
    case itemNotFound = -25300
    case noSuchAttr = -25303
    case interactionNotAllowed = -25308
    case missingEntitlement = -34018
    case restrictedAPI = -34020

    public var name: String {
        switch self {
        case .success: "errSecSuccess"
        case .param: "errSecParam"
        case .userCanceled: "errSecUserCanceled"
        case .authFailed: "errSecAuthFailed"
        case .duplicateItem: "errSecDuplicateItem"
        case .itemNotFound: "errSecItemNotFound"
        case .noSuchAttr: "errSecNoSuchAttr"
        case .interactionNotAllowed: "errSecInteractionNotAllowed"
        case .missingEntitlement: "errSecMissingEntitlement"
        case .restrictedAPI: "errSecRestrictedAPI"
        }
    }

    /// `errSecInteractionNotAllowed (-25308)`.
    public var text: String { "\(name) (\(rawValue))" }

    /// By name (`errSecItemNotFound`, or without the prefix) or by number.
    public init?(word: String) {
        if let n = Int(word), let s = KeychainStatus(rawValue: n) { self = s; return }
        let w = word.hasPrefix("errSec") ? word : "errSec" + word.prefix(1).uppercased() + word.dropFirst()
        guard let s = KeychainStatus.allCases.first(where: { $0.name == w }) else { return nil }
        self = s
    }
}

/// An app as the keychain sees it: its bundle id, platform, team and entitlements.
public struct KeychainApp: Hashable, Sendable {
    public var bundleID: String
    public var platform: AppPlatform
    public var team: String?
    /// macOS: whether a provisioning profile validates its app ID and app groups (K1).
    public var provisioned: Bool
    public var entitlements: [String: EntitlementValue]

    public static let accessGroupsKey = "keychain-access-groups"
    public static let applicationIdentifierKey = "application-identifier"
    public static let tokenGroup = "com.apple.token"

    public init(
        bundleID: String, platform: AppPlatform, team: String? = nil, provisioned: Bool = true,
        entitlements: [String: EntitlementValue] = [:]
    ) {
        self.bundleID = bundleID
        self.platform = platform
        self.team = team
        self.provisioned = provisioned
        self.entitlements = entitlements
    }

    /// The app ID: the `application-identifier` entitlement, else `TEAM.bundleID` when the team is known.
    public var applicationIdentifier: String? {
        if case .string(let s)? = entitlements[Self.applicationIdentifierKey] { return s }
        if let team { return "\(team).\(bundleID)" }
        return nil
    }

    /// The access groups in securityd's order (K1): keychain-access-groups, then the app ID,
    /// then the app groups; on macOS the last two only with a provisioning profile.
    public func accessGroups(on platform: AppPlatform) -> [String] {
        var out = entitlements[Self.accessGroupsKey]?.stringList ?? []
        let validated = platform == .ios || provisioned
        if validated, let id = applicationIdentifier { out.append(id) }
        if validated { out += entitlements[Entitlement.applicationGroups]?.stringList ?? [] }
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }
}
