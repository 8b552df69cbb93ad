import FSPolicy

/// Who an expectation or step is about.
public enum SubjectRef: Hashable, Sendable {
    case user(UID)
    case app(String)
    /// A declared service (`services:`, `--as service:NAME`).
    case service(String)
    /// A process of a user holding exactly these capabilities (`--caps`).
    case process(UID, Capabilities)
}

/// The parts of a request a policy entry gives (shared by `expect` and `steps`).
public struct RequestSpec: Sendable {
    public var op: Operation
    public var path: String
    /// The keys most requests leave out, stored apart (none when all are unset), so that the
    /// common request, an operation and a path, is small: a file of a million expectations
    /// holds a million of them.
    private var more: [More] = []

    struct More: Sendable {
        /// The operation's extra arguments, as a `Request` carries them.
        var extras = Request.Extras()
        /// `acl` was given (under linux, an empty one removes the ACL: `posixACL` nil).
        var aclGiven = false
        /// The caller's credential for this call only: its supplementary groups, its umask.
        var groups: [GID]? = nil
        var umask: UInt16? = nil
        /// `capabilities:` of this call: the process's effective set (linux).
        var caps: Capabilities? = nil
        var isEmpty: Bool { extras.isEmpty && !aclGiven && groups == nil && umask == nil && caps == nil }
    }

    /// Changes the stored keys; a request whose keys are all unset stores none (one form for one value).
    private mutating func edit(_ body: (inout More) -> Void) {
        if more.isEmpty { more.append(More()) }
        body(&more[0])
        if more[0].isEmpty { more = [] }
    }

    /// The operation's extra arguments (what `Request.allExtras` takes).
    public var extras: Request.Extras { more.first?.extras ?? Request.Extras() }
    /// Some key besides the operation and the path is set.
    package var hasExtras: Bool { !more.isEmpty }

    public var to: String? {
        get { more.first?.extras.to }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.to = newValue } } }
    }
    public var mode: FileMode? {
        get { more.first?.extras.mode }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.mode = newValue } } }
    }
    public var owner: UID? {
        get { more.first?.extras.owner }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.owner = newValue } } }
    }
    public var group: GID? {
        get { more.first?.extras.group }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.group = newValue } } }
    }
    public var flags: FileFlags? {
        get { more.first?.extras.flags }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.flags = newValue } } }
    }
    /// `open`: its flags.
    public var openFlags: OpenFlags? {
        get { more.first?.extras.openFlags }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.openFlags = newValue } } }
    }
    public var acl: ACL? {
        get { more.first?.extras.acl }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.acl = newValue } } }
    }
    /// `settimes`: how each time is set (nil: a given time).
    public var atime: TimeChange? {
        get { more.first?.extras.atime }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.atime = newValue } } }
    }
    public var mtime: TimeChange? {
        get { more.first?.extras.mtime }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.mtime = newValue } } }
    }
    /// `mknod`: the kind of device node (nil: unsaid, `device`).
    public var deviceType: NodeType? {
        get { more.first?.extras.deviceType }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.deviceType = newValue } } }
    }
    /// `setacl` under linux: the new access ACL (nil with `aclGiven`: remove the ACL).
    public var posixACL: POSIXACL? {
        get { more.first?.extras.posixACL }
        set { if newValue != nil || !more.isEmpty { edit { $0.extras.posixACL = newValue } } }
    }
    public var aclGiven: Bool {
        get { more.first?.aclGiven ?? false }
        set { if newValue || !more.isEmpty { edit { $0.aclGiven = newValue } } }
    }
    /// `groups:` of this call: the caller's supplementary groups instead of its user's (its
    /// primary group stays), as a program that called setgroups(2) has them.
    public var groups: [GID]? {
        get { more.first?.groups }
        set { if newValue != nil || !more.isEmpty { edit { $0.groups = newValue } } }
    }
    /// `umask:` of this call: the umask instead of its user's.
    public var umask: UInt16? {
        get { more.first?.umask }
        set { if newValue != nil || !more.isEmpty { edit { $0.umask = newValue } } }
    }
    /// `capabilities:` of this call: the process holds exactly these (instead of all for uid 0
    /// and none for anyone else), as a program does after `capset(2)` or when started with them.
    public var capabilities: Capabilities? {
        get { more.first?.caps }
        set { if newValue != nil || !more.isEmpty { edit { $0.caps = newValue } } }
    }

    /// An operation on a path, nothing else (the common request: no extra argument made to be
    /// found empty and dropped).
    public init(op: Operation, path: String) {
        self.op = op
        self.path = path
    }

    public init(
        op: Operation, path: String, to: String? = nil, mode: FileMode? = nil, owner: UID? = nil,
        group: GID? = nil, flags: FileFlags? = nil, acl: ACL? = nil
    ) {
        self.op = op
        self.path = path
        let extras = Request.Extras(to: to, mode: mode, owner: owner, group: group, flags: flags, acl: acl)
        if !extras.isEmpty { more = [More(extras: extras)] }
    }
}

public struct Expectation: Sendable {
    public var index: Int
    public var location: SourceLocation
    /// The `as` text as written.
    public var asText: String?
    public var subject: SubjectRef?
    public var request: RequestSpec
    /// `result`: true = allow.
    public var result: Bool?
    public var errno: Errno?
    public var layer: Layer?
    /// The keys most expectations leave out, stored apart (none when all are unset): the
    /// common expectation is small (a file may hold a million).
    private var more: [More] = []

    struct More: Sendable {
        var name: String?
        var allowed: [String]?
        var after: Int?
        var quiz = false
        var topic: String?
        var hint: String?
        var state: NodeState?
        var subjects: SubjectSet?
        var glob: PathGlob?
        var nodeType: NodeType?
        var isEmpty: Bool {
            name == nil && allowed == nil && after == nil && !quiz && topic == nil && hint == nil && state == nil && subjects == nil
                && glob == nil && nodeType == nil
        }
    }

    public init(index: Int, location: SourceLocation, request: RequestSpec) {
        self.index = index
        self.location = location
        self.request = request
    }

    /// Changes the stored keys; an expectation whose rarer keys are all unset stores none.
    private mutating func edit(_ body: (inout More) -> Void) {
        if more.isEmpty { more.append(More()) }
        body(&more[0])
        if more[0].isEmpty { more = [] }
    }

    public var name: String? {
        get { more.first?.name }
        set { if newValue != nil || !more.isEmpty { edit { $0.name = newValue } } }
    }
    /// `allowed`: the exhaustive list, as written.
    public var allowed: [String]? {
        get { more.first?.allowed }
        set { if newValue != nil || !more.isEmpty { edit { $0.allowed = newValue } } }
    }
    public var after: Int? {
        get { more.first?.after }
        set { if newValue != nil || !more.isEmpty { edit { $0.after = newValue } } }
    }
    public var quiz: Bool {
        get { more.first?.quiz ?? false }
        set { if newValue || !more.isEmpty { edit { $0.quiz = newValue } } }
    }
    /// The rule number (docs/semantics.md, sandbox.md) of the idea a quiz question tests, when
    /// that is not the rule that decides it: the topic `fspolicy quiz` suggests when it is missed.
    public var topic: String? {
        get { more.first?.topic }
        set { if newValue != nil || !more.isEmpty { edit { $0.topic = newValue } } }
    }
    public var hint: String? {
        get { more.first?.hint }
        set { if newValue != nil || !more.isEmpty { edit { $0.hint = newValue } } }
    }
    /// `state:` — the node at `path` must look like this.
    public var state: NodeState? {
        get { more.first?.state }
        set { if newValue != nil || !more.isEmpty { edit { $0.state = newValue } } }
    }
    /// Quantified subjects: `as: group:NAME`, `as: "*"` or `users: [...]`, minus `except:`.
    public var subjects: SubjectSet? {
        get { more.first?.subjects }
        set { if newValue != nil || !more.isEmpty { edit { $0.subjects = newValue } } }
    }
    /// A `path:` pattern (`*`, `**`, `{a,b}`); `request.path` then holds the pattern as written.
    public var glob: PathGlob? {
        get { more.first?.glob }
        set { if newValue != nil || !more.isEmpty { edit { $0.glob = newValue } } }
    }
    /// `type:` — only nodes of this type (with a pattern).
    public var nodeType: NodeType? {
        get { more.first?.nodeType }
        set { if newValue != nil || !more.isEmpty { edit { $0.nodeType = newValue } } }
    }
    /// The expectation must hold for every (subject, path) pair.
    public var isQuantified: Bool { subjects != nil || glob != nil }
    /// One subject's one request (`as:`), the only kind whose decision has a trace to ask for:
    /// not quantified, not `allowed:`, not `state:`.
    public var decidesOneRequest: Bool { !isQuantified && state == nil && allowed == nil }

    /// A label for reports: the name, or `as op path`.
    public var label: String {
        if let n = name { return n }
        if state != nil { return "state of " + request.path + (after.map { " after step \($0)" } ?? "") }
        var s = ""
        if let a = asText { s += a + " " } else { s += "who can " }
        s += request.op.word + " " + request.path
        if let t = request.to { s += " → " + t }
        return s
    }

    /// What the expectation asks for, as a report prints it after `expected:` (`deny EACCES
    /// [layer acl]`, `allowed: bob, carol`, …).
    public var expectedText: String {
        if let a = allowed { return "allowed: " + (a.isEmpty ? PrincipalName.noOne : a.joined(separator: ", ")) }
        if state != nil { return "the state given at line \(location.line)" }
        var s = result == true ? "allow" : "deny"
        if let er = errno { s += " " + er.rawValue }
        if let l = layer { s += " [layer \(l.rawValue)]" }
        return s
    }

    /// `label` appended to `b`.
    public func appendLabel(to b: inout ByteBuffer) {
        guard name == nil, state == nil else { b.append(string: label); return }
        if let a = asText { b.append(string: a); b.append(0x20) } else { b.append("who can ") }
        b.append(string: request.op.word)
        b.append(0x20)
        b.append(string: request.path)
        if let t = request.to { b.append(" → "); b.append(string: t) }
    }
}

/// The subjects of a quantified expectation.
public struct SubjectSet: Sendable, Hashable {
    public enum Base: Sendable, Hashable {
        /// `as: "*"`: every declared user, root included.
        case everyone
        /// `as: group:NAME`: every declared user who is a member (nested membership counts
        /// under macos and guide, as the rule sets themselves count it; not under linux).
        case group(String, GID)
        /// `users: [...]`.
        case users([String])
    }
    public var base: Base
    public var except: [String] = []

    public init(base: Base, except: [String] = []) {
        self.base = base
        self.except = except
    }

    /// The declared users it stands for, in declaration order.
    public func members(of policy: Policy, world: World, semantics: Semantics) -> [(name: String, uid: UID)] {
        var out: [(name: String, uid: UID)] = []
        let names: [String]
        if case .users(let list) = base { names = list } else { names = policy.userOrder }
        for n in names where !except.contains(n) {
            guard let u = world.user(named: n) ?? policy.world.user(named: n) else { continue }
            switch base {
            case .everyone, .users: out.append((n, u.uid))
            case .group(_, let gid):
                let s = world.subject(uid: u.uid)
                if semantics == .linux ? s.isDirectMember(gid) : s.isMember(gid) { out.append((n, u.uid)) }
            }
        }
        return out
    }

    /// As written: `*`, `group:staff`, `users: [a, b]`, with ` except [c]`.
    public var text: String {
        var s: String
        switch base {
        case .everyone: s = "*"
        case .group(let n, _): s = "group:" + n
        case .users(let l): s = "users [" + l.joined(separator: ", ") + "]"
        }
        if !except.isEmpty { s += " except [" + except.joined(separator: ", ") + "]" }
        return s
    }
}

public struct Step: Sendable {
    public var location: SourceLocation
    public var asText: String
    public var subject: SubjectRef?
    public var request: RequestSpec
    public var expectDeny: Bool
    public var name: String?
    public var errno: Errno?
    public var layer: Layer?

    public var label: String {
        if let n = name { return n }
        var s = asText + " " + request.op.word + " " + request.path
        if let t = request.to { s += " → " + t }
        return s
    }
}

/// What a node must look like (`state:` in an expectation). Only the fields given are checked.
public struct NodeState: Sendable {
    public var exists: Bool = true
    public var type: NodeType?
    public var owner: UID?
    public var group: GID?
    public var mode: FileMode?
    public var flags: FileFlags?
    public var aclGiven = false
    public var acl: ACL?
    public var posixACL: POSIXACL?
    public var defaultACLGiven = false
    public var defaultACL: POSIXACL?
    public init() {}
}

/// Where each node of a world was declared: a table by node id (a million-node scan file keeps
/// 12 bytes a node and hashes no path), the file names kept once.
public struct NodeLocations: Sendable {
    struct Entry { var file: UInt32 = 0; var line: UInt32 = 0; var column: UInt32 = 0 }  // file 0: none
    private var files: [String] = []
    private var fileIndex: [String: UInt32] = [:]
    private var table: [Entry] = []
    private var lastFile: (String, UInt32)? = nil

    public init() {}

    public mutating func reserveCapacity(_ nodes: Int) { table.reserveCapacity(nodes) }

    public subscript(node: NodeID) -> SourceLocation? {
        get {
            let i = Int(node)
            guard i >= 0, i < table.count, table[i].file > 0 else { return nil }
            let e = table[i]
            return SourceLocation(file: files[Int(e.file) - 1], line: Int(e.line), column: Int(e.column))
        }
        set {
            let i = Int(node)
            guard i >= 0 else { return }
            if i >= table.count { table.append(contentsOf: repeatElement(Entry(), count: i + 1 - table.count)) }
            guard let l = newValue else { table[i] = Entry(); return }
            let f: UInt32
            if let (name, k) = lastFile, name == l.file {
                f = k
            } else {
                if let k = fileIndex[l.file] { f = k } else { files.append(l.file); f = UInt32(files.count); fileIndex[l.file] = f }
                lastFile = (l.file, f)
            }
            table[i] = Entry(file: f, line: UInt32(clamping: l.line), column: UInt32(clamping: l.column))
        }
    }

    /// The nodes that have a location, in id order.
    public var nodes: [NodeID] { table.indices.filter { table[$0].file > 0 }.map { NodeID($0) } }
}

/// A loaded policy file: the world it describes, its expectations, and every problem found.
public struct Policy: Sendable {
    public var file: String
    public var semantics: Semantics
    public var semanticsLocation: SourceLocation?
    public var world: World
    public var expectations: [Expectation] = []
    public var steps: [Step] = []
    public var diagnostics = DiagnosticBag()
    /// Where each declared tree node was written, by node (`nodeLocation(_:)` by path).
    public var nodeLocations = NodeLocations()
    /// Where the node at `path` was declared, if it was.
    public func nodeLocation(_ path: String) -> SourceLocation? { world.lookup(path).flatMap { nodeLocations[$0] } }
    /// Where each key of the `linux:` section was written (by key; an import's line for values a
    /// scan read or an imported file set).
    public var linuxLocations: [String: SourceLocation] = [:]
    /// Where each ACE of a declared node was written (by path, in stored order).
    public var aceLocations: [String: [SourceLocation]] = [:]
    /// Declared user names, in declaration order (root first unless redefined).
    public var userOrder: [String] = []
    public var appIDs: [String] = []
    /// Where each app (by bundle id) and its settings were written.
    public var appSources: [String: AppSource] = [:]
    /// Where each service is declared (`services:`).
    public var serviceLocations: [String: SourceLocation] = [:]
    public var description: String?
    /// The `findings:` section (lint configuration), when the file has one.
    public var findings: FindingsConfig?
    /// The `keychain:` section (docs/keychain.md), when the file has one.
    public var keychain: KeychainPolicy?
    /// The device as the keychain sees it (`device:` passcode, biometry, iCloud Keychain).
    public var keychainDevice = KeychainDevice()
    /// Each app's `team` and `provisioned` (docs/keychain.md, K1).
    public var keychainTeams: [String: (team: String?, provisioned: Bool)] = [:]

    public init(file: String) {
        self.file = file
        self.semantics = .macos
        self.world = World()
    }
}
