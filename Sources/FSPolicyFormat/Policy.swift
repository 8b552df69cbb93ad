import FSPolicy

/// Who an expectation or step is about.
public enum SubjectRef: Hashable, Sendable {
    case user(UID)
    case app(String)
}

/// The parts of a request a policy entry gives (shared by `expect` and `steps`).
public struct RequestSpec: Sendable {
    public var op: Operation
    public var path: String
    public var to: String?
    public var mode: FileMode?
    public var owner: UID?
    public var group: GID?
    public var flags: FileFlags?
    public var acl: ACL?
    /// `setacl` under linux: the new access ACL (nil with `aclGiven`: remove the ACL).
    public var posixACL: POSIXACL?
    public var aclGiven = false

    public init(op: Operation, path: String, to: String? = nil, mode: FileMode? = nil, owner: UID? = nil,
                group: GID? = nil, flags: FileFlags? = nil, acl: ACL? = nil) {
        self.op = op
        self.path = path
        self.to = to
        self.mode = mode
        self.owner = owner
        self.group = group
        self.flags = flags
        self.acl = acl
    }
}

public struct Expectation: Sendable {
    public var index: Int
    public var location: SourceLocation
    public var name: String?
    /// The `as` text as written.
    public var asText: String?
    public var subject: SubjectRef?
    public var request: RequestSpec
    /// `result`: true = allow.
    public var result: Bool?
    public var errno: Errno?
    public var layer: Layer?
    /// `allowed`: the exhaustive list, as written.
    public var allowed: [String]?
    public var after: Int?
    public var quiz: Bool = false
    public var hint: String?
    /// `state:` — the node at `path` must look like this.
    public var state: NodeState?

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

/// A loaded policy file: the world it describes, its expectations, and every problem found.
public struct Policy: Sendable {
    public var file: String
    public var semantics: Semantics
    public var semanticsLocation: SourceLocation?
    public var world: World
    public var expectations: [Expectation] = []
    public var steps: [Step] = []
    public var diagnostics = DiagnosticBag()
    /// Where each declared tree path was written.
    public var nodeLocations: [String: SourceLocation] = [:]
    /// Where each ACE of a declared node was written (by path, in stored order).
    public var aceLocations: [String: [SourceLocation]] = [:]
    /// Declared user names, in declaration order (root first unless redefined).
    public var userOrder: [String] = []
    public var appIDs: [String] = []
    /// Where each app (by bundle id) and its settings were written.
    public var appSources: [String: AppSource] = [:]
    public var description: String?

    public init(file: String) {
        self.file = file
        self.semantics = .macos
        self.world = World()
    }
}
