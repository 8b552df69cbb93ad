/// The errno a denied request returns.
public enum Errno: String, Sendable, CaseIterable {
    case EACCES, EPERM, EROFS, ENOENT, ENOTDIR, EXDEV, ELOOP, EEXIST, EISDIR, ENOTEMPTY, EINVAL, EBUSY, ENODATA
    /// `linux`: opening a socket (rule O9).
    case ENXIO
    /// `macos`, `guide`: opening a socket (rule O9).
    case EOPNOTSUPP
    /// `linux`: setting inode flags on a FIFO or device node (rule L9).
    case ENOTTY
    /// `bind(2)` of a unix socket to a name that exists (rule O19).
    case EADDRINUSE
}

/// The layers a decision passes through. `layer` in expectations names one of these.
public enum Layer: String, Sendable, CaseIterable {
    case sandbox, tcc, protection, volume, traversal, type, flags, root, ownership, acl, mode, sticky
    /// The Keychain (docs/keychain.md): decided beside the file model, never on a path.
    case keychain
}

public enum Verdict: String, Sendable {
    /// The layer granted every right still undecided.
    case allow
    /// The layer refused.
    case deny
    /// The layer decided some rights (or none) and passed the rest on.
    case `defer`
    /// Nothing was decided; the step records a fact (an identity rewrite, a skipped ACE).
    case note
    /// The answer depends on what the world does not hold (a folder a scan did not read).
    case unknown
}

/// The mode class chosen for a caller.
public enum ModeClass: String, Sendable {
    case owner, group, other
    /// Every class at once: what none of them has (an executable with no `x` bit in any class,
    /// which even root may not run; the evidence's `has` is then the bits some class has).
    case any
}

/// What a step or a decision rests on: the policy entry that decided.
public enum Evidence: Hashable, Sendable {
    case none
    /// An ACE of `node`'s ACL: its stored index (0-based, as `ls -le` numbers them) and value.
    case ace(node: NodeID, index: Int, ace: ACE)
    /// A POSIX ACL entry (Linux): which entry, its permissions, and the mask applied.
    case posixEntry(node: NodeID, tag: POSIXACLLine.Tag, perms: RWX, mask: RWX?)
    /// The mode class of `node` that was used, the bits needed and the bits it has.
    case mode(node: NodeID, cls: ModeClass, needed: RWX, has: RWX)
    /// A file flag of `node`.
    case flag(node: NodeID, flag: FileFlags)
    /// The sticky bit of directory `node`.
    case sticky(node: NodeID)
    /// Identity as the caller sees it after a rewrite (ignore-ownership, uid 99).
    case identity(node: NodeID, uid: UID, gid: GID, fromUID: UID, fromGID: GID)
    /// A volume's mount path.
    indirect case volume(mountPath: String)
    /// A node, with no finer entry.
    case node(NodeID)
    /// A name looked up in directory `dir` that does not exist there.
    indirect case missing(dir: NodeID, name: String)
    /// A name looked up in folder `dir` whose entries were not all read (or, with `name` nil,
    /// a folder whose emptiness or a symlink whose target was not read), and why.
    indirect case unread(dir: NodeID, name: String?, reason: UnreadReason)
    /// What the sandbox or TCC looked at on `node` for an app.
    indirect case app(node: NodeID, AppFact)
    /// A file's Data Protection class against the device state (`open`: a handle opened before the lock).
    case protection(node: NodeID, ProtectionClass, DeviceState, open: Bool)
    /// A regular file about to be created in `dir` at `path`: the class it would get, where that
    /// class comes from, and the device state.
    indirect case newFileProtection(dir: NodeID, path: String, ProtectionClass, DeviceState, from: ProtectionSource)
    /// A Linux `fs.protected_*` sysctl and its value, applied to `node` (the symlink, the file
    /// opened with O_CREAT, the link's source) in directory `dir` (-1 when no directory matters).
    case tunable(node: NodeID, dir: NodeID, LinuxTunable, value: UInt8)
    /// Linux capabilities consulted on `node`: held (in the effective set, and used) or not held
    /// (uid 0 without them, refused like anyone else).
    case capability(node: NodeID, cap: Capabilities, held: Bool)
    /// A mount of a service's sandbox (U1–U3): the unit option that made it, on `node`.
    indirect case view(node: NodeID, ViewEntry)
}

/// What the sandbox or TCC decided on: in words, the key that decided (an entitlement, an
/// Info.plist key, a `tcc` service) and, for a denial, what would have allowed it.
public struct AppFact: Hashable, Sendable {
    public var app: String
    /// One phrase, e.g. "inside the container /Users/alice/Library/Containers/com.example.Notes/Data".
    public var text: String
    /// The entitlement, Info.plist key or consent that decided, if any.
    public var key: String?
    /// The entry of an array-valued entitlement (an app group, a container id, an exception path).
    public var entry: String?
    /// For denials: what would have allowed the request, each as one phrase.
    public var wouldAllow: [String]

    public init(app: String, text: String, key: String? = nil, entry: String? = nil, wouldAllow: [String] = []) {
        self.app = app
        self.text = text
        self.key = key
        self.entry = entry
        self.wouldAllow = wouldAllow
    }
}

/// One layer consulted: which rule fired, on which node, with which verdict, and the rights
/// before and after.
public struct TraceStep: Hashable, Sendable {
    public var layer: Layer
    public var rule: RuleID
    public var verdict: Verdict
    public var node: NodeID
    /// Rights asked of this layer.
    public var requested: AccessRights
    /// Rights still undecided after it.
    public var remaining: AccessRights
    public var evidence: Evidence
    /// Nesting depth (0 for the request; 1 for checks inside a path lookup).
    public var depth: UInt8

    public init(
        layer: Layer, rule: RuleID, verdict: Verdict, node: NodeID, requested: AccessRights,
        remaining: AccessRights, evidence: Evidence, depth: UInt8 = 0
    ) {
        self.layer = layer
        self.rule = rule
        self.verdict = verdict
        self.node = node
        self.requested = requested
        self.remaining = remaining
        self.evidence = evidence
        self.depth = depth
    }
}

/// The answer: result, errno, the deciding layer and rule, the entry that decided, and the
/// trace of every layer consulted. Rendering is done elsewhere.
/// Where a decision's nodes are, when not in the authorizer's world. Not part of what a decision
/// says: two decisions that say the same are equal whichever world object they were made in.
struct ViewWorldRef: Hashable, Sendable {
    var box: WorldBox? = nil
    static func == (a: ViewWorldRef, b: ViewWorldRef) -> Bool { true }
    func hash(into h: inout Hasher) {}
}

public struct Decision: Hashable, Sendable {
    public var allowed: Bool
    public var errno: Errno?
    public var layer: Layer
    public var rule: RuleID
    /// The node the deciding rule looked at (-1 if none).
    public var node: NodeID
    public var evidence: Evidence
    public var trace: [TraceStep]
    /// Caveats about the answer (e.g. a lossy ACL mapping).
    public var notes: [String]
    /// Neither allowed nor denied: the answer depends on something the world does not hold
    /// (`allowed` is then false and `errno` nil; docs/semantics.md P6).
    public var unknown: Bool = false
    /// The world the decision walked when it is not the authorizer's: a service's view that
    /// replaces or binds paths (U5). Its nodes are the ones the decision's node ids name.
    var viewBox: ViewWorldRef = ViewWorldRef()
    /// The world as the subject's view shows it, when the decision was made in one: renderers
    /// read the decision's nodes (owner, mode, path) there.
    public var viewWorld: World? { viewBox.box?.world }

    public init(
        allowed: Bool, errno: Errno?, layer: Layer, rule: RuleID, node: NodeID, evidence: Evidence,
        trace: [TraceStep] = [], notes: [String] = []
    ) {
        self.allowed = allowed
        self.errno = errno
        self.layer = layer
        self.rule = rule
        self.node = node
        self.evidence = evidence
        self.trace = trace
        self.notes = notes
    }
}
