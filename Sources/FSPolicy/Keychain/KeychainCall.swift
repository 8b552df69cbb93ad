/// The four calls an app makes (`SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate`,
/// `SecItemDelete`), the query it passes, and the answer: an OSStatus, the items it touched,
/// and the steps that led there, each with its rule (docs/keychain.md).

public enum KeychainCall: String, Sendable, CaseIterable {
    case add, copy, update, delete

    public var function: String {
        switch self {
        case .add: "SecItemAdd"
        case .copy: "SecItemCopyMatching"
        case .update: "SecItemUpdate"
        case .delete: "SecItemDelete"
        }
    }
}

/// `kSecAttrSynchronizable` in a query: absent (only non-sync items), yes, no, or any.
public enum SyncQuery: String, Sendable, CaseIterable {
    case unset, yes, no, any
}

/// What the user does when the system asks them to authenticate (K11).
public enum PromptAnswer: String, Sendable, CaseIterable {
    /// Face ID, Touch ID or the passcode succeeds.
    case authenticate
    /// The user taps Cancel.
    case cancel
    /// Authentication fails (wrong passcode, lockout, a face not recognised).
    case fail
}

/// How the query treats authentication UI (`kSecUseAuthenticationUI`).
public enum AuthenticationUI: String, Sendable, CaseIterable {
    /// The default: the system may prompt.
    case allow
    /// `kSecUseAuthenticationUIFail` (or an `LAContext` with `interactionNotAllowed`).
    case fail
    /// `kSecUseAuthenticationUISkip`: items that need authentication are silently left out.
    case skip
}

public struct KeychainQuery: Hashable, Sendable {
    public var app: String
    public var call: KeychainCall
    public var cls: KeychainClass
    /// Attributes to match (for Add: the new item's).
    public var attributes: [String: String] = [:]
    /// `kSecAttrAccessGroup`, or nil.
    public var group: String?
    public var sync: SyncQuery = .unset
    /// Add: the accessibility, or nil for the default.
    public var accessible: KeychainAccessibility?
    public var accessControl: KeychainAccessControl?
    /// `kSecMatchLimitAll` (else One, the default).
    public var limitAll = false
    /// `kSecMatchLimitOne` given explicitly (Delete refuses it, K19).
    public var limitOneGiven = false
    /// A `kSecReturn…` key (Update refuses them, K20).
    public var returnKeys = false
    /// Only attributes asked (`kSecReturnAttributes` without data).
    public var attributesOnly = false
    public var ui: AuthenticationUI = .allow
    public var prompt: PromptAnswer = .authenticate
    /// Update: the new values (attribute words already mapped to securityd names; unknown names kept).
    public var update: [String: String] = [:]
    /// Update: a new group.
    public var updateGroup: String?
    public var updateAccessible: KeychainAccessibility?
    /// macOS: `kSecUseDataProtectionKeychain`.
    public var dataProtection = false

    public init(app: String, call: KeychainCall, cls: KeychainClass) {
        self.app = app
        self.call = call
        self.cls = cls
    }

    /// Whether an item matches the class, attributes and sync part of this query.
    public func matches(_ item: KeychainItem) -> Bool {
        guard item.cls == cls else { return false }
        switch sync {
        case .unset, .no: if item.synchronizable { return false }
        case .yes: if !item.synchronizable { return false }
        case .any: break
        }
        return attributes.allSatisfy { item.attributes[$0.key] == $0.value }
    }
}

/// One step of the keychain layer.
public struct KeychainStep: Hashable, Sendable {
    public var rule: RuleID
    public var verdict: Verdict
    /// One phrase: what was looked at and found.
    public var text: String

    public init(_ rule: RuleID, _ verdict: Verdict, _ text: String) {
        self.rule = rule
        self.verdict = verdict
        self.text = text
    }
}

public struct KeychainAnswer: Hashable, Sendable {
    public var query: KeychainQuery
    public var status: KeychainStatus
    /// The rule that decided.
    public var rule: RuleID
    /// Read: the items returned; Delete: the items gone; Add: the new item; Update: the items changed.
    public var items: [KeychainItem] = []
    public var steps: [KeychainStep] = []
    /// The uncertain points (⚠) the answer rests on, each as a phrase naming its setting.
    public var assumptions: [String] = []
    /// Whether the system would have shown an authentication prompt.
    public var prompted = false

    public var allowed: Bool { status == .success }
}
