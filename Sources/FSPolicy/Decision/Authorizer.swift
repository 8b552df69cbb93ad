/// Decides requests in a world under one rule set. A pure function of its inputs: it reads
/// nothing else and prints nothing.
public struct Authorizer: Sendable {
    /// The world, shared (not copied) by every evaluation.
    let box: WorldBox
    public var world: World { box.world }
    public let semantics: Semantics
    /// Record the trace (turn off for bulk questions where only the answer matters).
    public var tracing: Bool
    /// A traced search check answered from the mode bits where that gives the step the layers
    /// would (`Eval.linuxTracedSearch`); off only for the test that compares the two.
    var tracedSearchShortcut = true

    public init(world: World, semantics: Semantics, tracing: Bool = true) {
        self.box = WorldBox(world)
        self.semantics = semantics
        self.tracing = tracing
    }

    /// `World.readAhead` in this world.
    public func readAhead(_ hashes: UnsafeMutableBufferPointer<UInt64>) -> Int32 { box.world.readAhead(hashes) }

    public func decide(_ request: borrowing Request) -> Decision {
        var r = copy request
        return decide(inPlace: &r)
    }

    /// The same for a request the caller holds in a variable of its own: it is read where it
    /// is, not copied (a copy retains and releases its subject's groups and its path, which a
    /// program asking many questions pays on every one). The request is not changed.
    public func decide(inPlace request: inout Request) -> Decision {
        var e = Eval(box: box, sem: semantics, subject: Authorizer.borrowSubject(&request), tracing: tracing)
        e.tracedSearchShortcut = tracedSearchShortcut
        if let i = request.app, world.apps.indices.contains(i) {
            // The sandbox, TCC and Data Protection are Apple's; under linux the app is its user.
            if semantics == .linux {
                e.notes.append("linux has no App Sandbox or privacy consent: \(world.apps[i].bundleID) is decided as its user")
            } else {
                e.appBox = AppBox(world.apps[i])
                e.requestWrites = request.op.writes
            }
        }
        let outcome: Outcome
        switch semantics {
        case .macos, .guide:
            outcome = e.decideBSD(request)
        case .linux:
            outcome = e.decideLinux(request)
        }
        // What the macOS rule sets assume of identities on a world read from another system.
        if tracing && semantics != .linux, let note = world.foreignIdentityNote { e.notes.append(note) }
        if tracing && !world.assumedNodes.isEmpty {
            // Every assumed node the decision looked at, in the order it did.
            var seen: Set<NodeID> = []
            var paths: [String] = []
            for n in e.trace.map(\.node) + [outcome.node] where world.assumedNodes.contains(n) && seen.insert(n).inserted {
                paths.append(world.path(of: n))
            }
            if !paths.isEmpty {
                let list = paths.joined(separator: ", ")
                e.notes.append("\(list) \(paths.count == 1 ? "is" : "are") assumed, not read from the host (`assumed: true`): the owner, group and mode used are stand-ins, so this answer holds only if the real \(paths.count == 1 ? "folder matches" : "folders match").")
            }
        }
        return outcome.decision(trace: e.trace, notes: e.notes)
    }

    /// Where the subject of `request`, an `inout` argument of the caller, is: the evaluation
    /// reads it there instead of copying it (a copy retains and releases its two lists of
    /// groups, 4.6% of the instructions of a decision in the kernel comparison's questions).
    /// An `inout` argument stays at one address for the whole call it is passed to (the
    /// caller's variable, or a temporary that outlives the call), and nothing writes to it
    /// while the evaluation runs: the pointer is read only within that call.
    @inline(__always)
    static func borrowSubject(_ request: inout Request) -> UnsafePointer<Subject> {
        withUnsafeMutablePointer(to: &request.subject) { UnsafePointer($0) }
    }

    /// Decides a request whose path is given as its UTF-8 bytes (`request.path` is not read),
    /// without making a `String` of them, when the path names an existing node that the path
    /// index finds (canonical, no symlink on the way or at the end, not on a case-insensitive
    /// volume, at most 32 levels): the same decision as `decide(inPlace:)` with `request.path`
    /// set to those bytes. Nil, with nothing decided, for anything else (a missing name, whose
    /// denial names it; an app; an operation with a second path; a traced authorizer): the
    /// caller then sets the path and asks `decide(inPlace:)`. For programs asking many
    /// questions (`can --batch`), which would otherwise make and free a string per question.
    ///
    /// It rests on one fact of every operation's code below: for a request without an app, the
    /// first thing it does is walk the request's path (`resolve(r.path, …)`), and it reads the
    /// path text again only when the last name is missing (to name it, or the file a create
    /// adds). So the walk is done here first, from the bytes, and the operation is handed its
    /// result; a walk that ends in a denial is that denial.
    public func decide(inPlace request: inout Request, pathBytes: UnsafeBufferPointer<UInt8>) -> Decision? {
        guard !tracing, request.app == nil, !request.op.needsTarget, request.op != .modify else { return nil }
        var e = Eval(box: box, sem: semantics, subject: Authorizer.borrowSubject(&request), tracing: false)
        let outcome: Outcome
        switch e.resolveIndexed(bytes: pathBytes, followTrailing: true) {
        case nil: return nil
        case .failure(let denied)?: outcome = denied
        case .success(let r)?:
            guard let node = r.node else { return nil }
            e.presolved = (r.parent, node)
            outcome = semantics == .linux ? e.decideLinux(request) : e.decideBSD(request)
            assert(e.presolved == nil, "the operation did not begin by walking its path")
        }
        return outcome.decision(trace: e.trace, notes: e.notes)
    }
}

/// The app a request is asked as.
final class AppBox: Sendable {
    let app: App
    init(_ app: App) { self.app = app }
}

/// Holds a world so that evaluations borrow it instead of copying its storage.
final class WorldBox: Sendable {
    let world: World
    init(_ world: World) { self.world = world }

    /// `World.indexedNode(_:chain:walked:)` asked of the held world, its tables passed one by
    /// one: called on the `World` itself through the box, the whole `World` (312 bytes) was
    /// copied to the stack first, on every decision.
    @inline(__always)
    func indexedNode(_ bytes: UnsafeBufferPointer<UInt8>, chain: UnsafeMutableBufferPointer<NodeID>?, walked: inout Int) -> NodeID? {
        World.indexedNode(bytes, chain: chain, walked: &walked, index: world.pathIndex, nodes: world.nodes, fold: world.foldNames,
                          folding: world.anyFolding, names: world.nameBytes, starts: world.nameStart)
    }
}

/// What a layer or a whole request comes to.
struct Outcome: Error {
    var allowed: Bool
    var errno: Errno?
    var layer: Layer
    var rule: RuleID
    var node: NodeID
    var evidence: Evidence
    /// Neither allowed nor denied (P6): `allowed` false, `errno` nil.
    var unknown = false

    static func allow(_ layer: Layer, _ rule: RuleID, _ node: NodeID, _ ev: Evidence = .none) -> Outcome {
        Outcome(allowed: true, errno: nil, layer: layer, rule: rule, node: node, evidence: ev)
    }
    static func deny(_ errno: Errno, _ layer: Layer, _ rule: RuleID, _ node: NodeID, _ ev: Evidence = .none) -> Outcome {
        Outcome(allowed: false, errno: errno, layer: layer, rule: rule, node: node, evidence: ev)
    }

    /// The answer depends on folder `dir`, whose entries were not read (P6).
    static func unknown(_ dir: NodeID, name: String?, _ reason: UnreadReason) -> Outcome {
        Outcome(allowed: false, errno: nil, layer: .traversal, rule: .notRead, node: dir,
                evidence: .unread(dir: dir, name: name, reason: reason), unknown: true)
    }

    func decision(trace: [TraceStep], notes: [String]) -> Decision {
        var d = Decision(allowed: allowed, errno: errno, layer: layer, rule: rule, node: node, evidence: evidence,
                         trace: trace, notes: notes)
        d.unknown = unknown
        return d
    }
}

/// A file about to be created, with the Data Protection class it would get.
struct NewFile {
    var path: String
    var cls: ProtectionClass
    var source: ProtectionSource
}

/// The result of walking a path.
struct Resolved {
    /// The directory the last component was looked up in.
    var parent: NodeID
    /// The node, or nil when the last component does not exist.
    var node: NodeID?
    /// The last component's name when it does not exist, when the walk followed a symlink or
    /// `..` (the fast walks take neither: there the name is the request path's last component).
    var missing: String? = nil
    /// 1 when the path's last component was `.`, 2 when it was `..` (after any symlink the walk
    /// followed), else 0; `dotDir` is then the directory that name was looked up in (`parent`
    /// is the found directory's own parent, as for any name).
    var dots: UInt8 = 0
    var dotDir: NodeID = -1

    /// The directory the last name was looked up in: `dotDir` for `.` and `..`, else `parent`.
    var lookupDir: NodeID { dots == 0 ? parent : dotDir }

    /// ENOENT for a last component that does not exist, naming it.
    func notFoundEvidence(_ requested: String) -> Evidence {
        .missing(dir: parent, name: missing ?? requested.split(separator: "/").last.map(String.init) ?? "")
    }
}

/// The rarely set state of an evaluation (see `Eval.rare`).
final class EvalRare {
    var notes: [String] = []
    /// Boxed so that an evaluation without an app carries one nil pointer, not a large struct.
    var appBox: AppBox? = nil
    var newPath: String? = nil
    var newFile: NewFile? = nil
    var grantCache: [SandboxGrant]? = nil
    var notedUnsandboxed = false
    var lookupTarget: String? = nil
    var requestWrites = false

    init() {}
    init(copying o: EvalRare) {
        notes = o.notes; appBox = o.appBox; newPath = o.newPath; newFile = o.newFile
        grantCache = o.grantCache; notedUnsandboxed = o.notedUnsandboxed
        lookupTarget = o.lookupTarget; requestWrites = o.requestWrites
    }
}

/// Evaluation state for one request.
struct Eval {
    let box: WorldBox
    /// The world, borrowed from the box (no copy of its storage).
    var world: World {
        @inline(__always) _read { yield box.world }
    }
    let sem: Semantics
    /// The subject, read where its caller holds it for the evaluation's life (one call): a
    /// copy would retain and release its two lists of groups on every decision.
    let subjectAt: UnsafePointer<Subject>
    var subject: Subject {
        @inline(__always) _read { yield subjectAt.pointee }
    }
    let tracing: Bool
    /// `Authorizer.tracedSearchShortcut`.
    var tracedSearchShortcut = true
    var trace: [TraceStep] = []
    var depth: UInt8 = 0
    /// Where the request's path led, found before the operation asked: the first `resolve`
    /// returns it instead of walking its `path` argument (see `decide(inPlace:pathBytes:)`).
    var presolved: (parent: NodeID, node: NodeID)? = nil
    /// What most evaluations never set, behind one reference (nil until something is set), so
    /// that making and dropping an Eval retains and releases one pointer for all of it.
    var rare: EvalRare? = nil

    /// `rare`, made or copied (an Eval is a value: a copy must not see another's writes) so
    /// that it may be written.
    @inline(__always)
    mutating func editRare(_ body: (EvalRare) -> Void) {
        if rare == nil { rare = EvalRare() } else if !isKnownUniquelyReferenced(&rare) { rare = EvalRare(copying: rare!) }
        body(rare!)
    }

    /// Notes for the reader (a linux app decided as its user, assumed folders, …).
    var notes: [String] {
        get { rare?.notes ?? [] }
        set { if !newValue.isEmpty || rare != nil { editRare { $0.notes = newValue } } }
    }
    /// The app asking, if any (never under linux): its sandbox and TCC stand in front.
    var appBox: AppBox? {
        get { rare?.appBox }
        set { if newValue != nil || rare != nil { editRare { $0.appBox = newValue } } }
    }
    var app: App? { rare?.appBox?.app }
    /// The path a create, rename or link adds (the sandbox and TCC judge the new name, not
    /// its parent); set around that authorization only.
    var newPath: String? {
        get { rare?.newPath }
        set { if newValue != nil || rare != nil { editRare { $0.newPath = newValue } } }
    }
    /// The regular file a `create` makes, with the Data Protection class it would get (D5);
    /// set around that authorization only, when a class applies.
    var newFile: NewFile? {
        get { rare?.newFile }
        set { if newValue != nil || rare != nil { editRare { $0.newFile = newValue } } }
    }
    var grantCache: [SandboxGrant]? {
        get { rare?.grantCache }
        set { if newValue != nil || rare != nil { editRare { $0.grantCache = newValue } } }
    }
    var notedUnsandboxed: Bool {
        get { rare?.notedUnsandboxed ?? false }
        set { if newValue || rare != nil { editRare { $0.notedUnsandboxed = newValue } } }
    }
    /// The path being resolved, and whether the request writes: for explaining a sandbox
    /// refusal during its lookup.
    var lookupTarget: String? {
        get { rare?.lookupTarget }
        set { if newValue != nil || rare != nil { editRare { $0.lookupTarget = newValue } } }
    }
    var requestWrites: Bool {
        get { rare?.requestWrites ?? false }
        set { if newValue || rare != nil { editRare { $0.requestWrites = newValue } } }
    }

    init(box: WorldBox, sem: Semantics, subject: UnsafePointer<Subject>, tracing: Bool) {
        self.box = box
        self.sem = sem
        self.subjectAt = subject
        self.tracing = tracing
        // A traced decision takes a step per ancestor and a few more: room made once.
        if tracing { trace.reserveCapacity(12) }
    }

    /// An evaluation of `subject` for the length of `body`, which reads the subject where it is.
    static func with<R>(box: WorldBox, sem: Semantics, subject: Subject, tracing: Bool, _ body: (inout Eval) -> R) -> R {
        withUnsafePointer(to: subject) { sp in
            var e = Eval(box: box, sem: sem, subject: sp, tracing: tracing)
            return body(&e)
        }
    }

    @inline(__always)
    mutating func step(_ layer: Layer, _ rule: RuleID, _ verdict: Verdict, _ node: NodeID,
                       _ requested: AccessRights, _ remaining: AccessRights, _ ev: Evidence = .none) {
        if tracing {
            trace.append(TraceStep(layer: layer, rule: rule, verdict: verdict, node: node, requested: requested,
                                   remaining: remaining, evidence: ev, depth: depth))
        }
    }

    /// Renames the rule of the last recorded step (the ACL step that decided a delete) and
    /// returns the outcome without adding a step.
    mutating func retag(_ o: Outcome) -> Outcome {
        if tracing, !trace.isEmpty { trace[trace.count - 1].rule = o.rule }
        return o
    }

    /// Records the final verdict of an outcome as a step and returns it.
    mutating func finish(_ o: Outcome, _ requested: AccessRights) -> Outcome {
        step(o.layer, o.rule, o.allowed ? .allow : o.unknown ? .unknown : .deny, o.node, requested, o.allowed ? [] : requested, o.evidence)
        return o
    }

    /// What a walk that found no `name` in `dir` comes to when `dir`'s entries were not read:
    /// unknown (P6), with its step; nil when they were (the name is then missing).
    mutating func unreadLookup(_ dir: NodeID, _ name: String?) -> Outcome? {
        guard let why = world.unread[dir] else { return nil }
        return finish(.unknown(dir, name: name, why), [])
    }

    /// ENOTEMPTY for directory `n` when it has an entry; unknown when it has none the world
    /// knows of but its entries were not read; nil when it is empty.
    mutating func notEmpty(_ n: NodeID, _ requested: AccessRights) -> Outcome? {
        guard world[n].isDir else { return nil }
        if !world.children(of: n).isEmpty { return finish(.deny(.ENOTEMPTY, .type, .notEmpty, n, .node(n)), requested) }
        if let why = world.unread[n] { return finish(.unknown(n, name: nil, why), requested) }
        return nil
    }

    var maxSymlinks: Int { sem == .linux ? 40 : 32 }

    // MARK: Path lookup

    /// Walks `path` from `/`, checking search on every directory it looks a name up in.
    /// Intermediate symlinks are always followed; the last one only if `followTrailing`.
    mutating func resolve(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        if let p = presolved {
            // The request's path, walked already from its bytes (`Authorizer.decide(inPlace:pathBytes:)`).
            presolved = nil
            return .success(Resolved(parent: p.parent, node: p.node))
        }
        if appBox != nil { lookupTarget = path }
        if let fast = resolveBytes(path, followTrailing: followTrailing) { return fast }
        var comps = path.split(separator: "/", omittingEmptySubsequences: true)
        var cur = World.root
        if comps.isEmpty { return .success(Resolved(parent: World.root, node: World.root)) }
        var i = 0
        var links = 0
        while i < comps.count {
            let comp = comps[i]
            let isLast = i == comps.count - 1
            if world[cur].type != .dir {
                return .failure(finish(.deny(.ENOTDIR, .traversal, .notADirectory, cur, .node(cur)), []))
            }
            if let denied = searchCheck(cur) { return .failure(denied) }
            if comp == "." {
                if isLast { return .success(Resolved(parent: world[cur].parent, node: cur, dots: 1, dotDir: cur)) }
                i += 1
                continue
            }
            if comp == ".." {
                // Physically: the parent of the directory the walk is in, wherever the symlinks
                // before it led (O12); `..` of `/` is `/`.
                let from = cur
                cur = world[cur].parent
                step(.traversal, .dotDot, .note, from, [], [], .node(cur))
                if isLast { return .success(Resolved(parent: world[cur].parent, node: cur, dots: 2, dotDir: from)) }
                i += 1
                continue
            }
            guard let c = world.child(cur, comp) else {
                // Not found where not every name was read: it may exist (P6).
                if let o = unreadLookup(cur, String(comp)) { return .failure(o) }
                if isLast { return .success(Resolved(parent: cur, node: nil, missing: String(comp))) }
                return .failure(finish(.deny(.ENOENT, .traversal, .notFound, cur, .missing(dir: cur, name: String(comp))), []))
            }
            if world[c].type == .symlink && (!isLast || followTrailing) {
                links += 1
                if links > maxSymlinks {
                    return .failure(finish(.deny(.ELOOP, .traversal, .symlinkLoop, c, .node(c)), []))
                }
                // fs.protected_symlinks: only the last component's symlink (WALK_TRAILING).
                if isLast && sem == .linux, let o = mayFollowLink(c, in: cur) { return .failure(o) }
                let target = world.symlinkTargets[c] ?? ""
                if target.isEmpty {
                    // A link whose target a scan could not read (P6).
                    if let o = unreadLookup(c, nil) { return .failure(o) }
                    return .failure(finish(.deny(.ENOENT, .traversal, .notFound, c, .node(c)), []))
                }
                // A step of its own: the walk leaves the path as written here (P7).
                step(.traversal, .symlinkFollowed, .note, c, [], [], .node(c))
                let tcomps = target.split(separator: "/", omittingEmptySubsequences: true)
                if target.hasPrefix("/") { cur = World.root }
                comps = Array(tcomps) + comps[(i + 1)...]
                i = 0
                if comps.isEmpty { return .success(Resolved(parent: world[cur].parent, node: cur)) }
                continue
            }
            if isLast { return .success(Resolved(parent: cur, node: c)) }
            cur = c
            i += 1
        }
        return .success(Resolved(parent: world[cur].parent, node: cur))
    }

    /// Whether `path` ends in a slash after a name (`/srv/f/`): the name must then be a
    /// directory (`resolveNamed`). The request readers keep that slash (a last `.` stays
    /// `/.`, a name of its own: `endsInDot`); `/` alone is not such a path.
    @inline(__always)
    static func namesDirectory(_ path: String) -> Bool {
        // On the bytes where they are (the generic `last` of a UTF-8 view cost more than a
        // decision's path check); a slash at the end is rare, the rest is read only then.
        if let ends = path.utf8.withContiguousStorageIfAvailable({ $0.count > 1 && $0[$0.count - 1] == 0x2f }) {
            return ends && path.utf8.contains { $0 != 0x2f }
        }
        let u = path.utf8
        return u.count > 1 && u.last == 0x2f && u.contains { $0 != 0x2f }
    }

    /// Whether `path`'s last component is `.` (`/srv/d/.`): the walk looks `.` up in the
    /// directory before it (search on it, and it must be one), and removing it is EINVAL.
    static func endsInDot(_ path: String) -> Bool {
        let u = path.utf8
        guard u.count >= 2, u.last == 0x2e else { return false }
        return u[u.index(u.endIndex, offsetBy: -2)] == 0x2f
    }

    /// `resolve` for an operation on the object a path names, with what a trailing slash
    /// means (P2): the name is looked up as if `.` followed it, so a trailing symlink is
    /// followed whatever the operation (Linux path_resolution(7): "a pathname with a trailing
    /// slash" is resolved as a directory; XNU `lookup_handle_found_vnode` treats
    /// NAMEI_TRAILINGSLASH like FOLLOW), and what is found must be a directory, else ENOTDIR
    /// ("bogus trailing slashes" there; Linux's walk ends in `LOOKUP_DIRECTORY`). With
    /// `followTrailing` false, an operation on the name itself (delete), a trailing symlink is
    /// not followed; the link is not a directory, so ENOTDIR (Linux `do_unlinkat`/`do_rmdir`).
    /// A missing name is returned as such, for the operation to answer.
    @inline(__always)
    mutating func resolveNamed(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        guard Eval.namesDirectory(path) else { return resolve(path, followTrailing: followTrailing) }
        return resolveSlashed(path, followTrailing: followTrailing)
    }

    /// `resolveNamed` of a path that ends in a slash after a name.
    mutating func resolveSlashed(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome> {
        var base = Substring(path)
        while base.utf8.last == 0x2f { base = base.dropLast() }
        switch resolve(String(base), followTrailing: followTrailing) {
        case .failure(let o): return .failure(o)
        case .success(let res):
            if let n = res.node, world[n].type != .dir {
                return .failure(finish(.deny(.ENOTDIR, .traversal, .notADirectory, n, .node(n)), []))
            }
            return .success(res)
        }
    }

    /// Search permission on one directory of a path. Returns the denial, or nil. A sandboxed
    /// app's lookup check comes after the DAC search under macos, before it under guide.
    mutating func searchCheck(_ dir: NodeID) -> Outcome? {
        if !tracing && appBox == nil, let quick = quickSearch(dir) {
            switch quick {
            case .granted: return nil
            case .refused(let ev):
                // The refusal the general path gives (EACCES from the mode class below), built
                // without walking the layers to it.
                return Outcome.deny(.EACCES, .traversal, .searchDenied, dir, ev)
            }
        }
        if appBox != nil && sem == .guide, let d = sandboxLookup(dir) { return d }
        if tracing && sem == .linux && tracedSearchShortcut, let ev = linuxTracedSearch(dir) {
            step(.traversal, .searchGranted, .allow, dir, .search, [], ev)
            return nil
        }
        let mark = trace.count
        depth += 1
        let o = authorize(dir, parent: -1, .search, noImmutable: false)
        depth -= 1
        if o.allowed {
            if tracing {
                // The steps of the check, one or two, replaced by one (`removeSubrange` costs
                // a generic replacement on every directory of a traced path).
                while trace.count > mark { trace.removeLast() }
                step(.traversal, .searchGranted, .allow, dir, .search, [], o.evidence)
            }
            if appBox != nil && sem == .macos, let d = sandboxLookup(dir) { return d }
            return nil
        }
        let d = Outcome.deny(o.errno ?? .EACCES, .traversal, .searchDenied, dir, o.evidence)
        step(.traversal, .searchDenied, .deny, dir, .search, .search, o.evidence)
        return d
    }

    /// Under linux, the evidence of a non-root caller's search of a directory with no ACL of
    /// either kind, when its mode bits grant it: what `authorize(dir, .search)` finds on its way
    /// (`linuxAuthorizeRights` → `linuxPermission` → `linuxDAC`: the owner's bits for the owner,
    /// else the group's for a direct member, else the others'), without the steps it records and
    /// `searchCheck` then replaces by one. Nil whenever the layers must decide (root, an ACL,
    /// bits without x). A traced path walk makes one step per ancestor this way instead of
    /// evaluating each (`SearchShortcutTests` compares traced decisions with and without it).
    @inline(__always)
    func linuxTracedSearch(_ dir: NodeID) -> Evidence? {
        let node = world[dir]
        guard !subject.isRoot, node.acl < 0, node.posixACL < 0 else { return nil }
        let (cls, has) = searchClass(node)
        return has.contains(.execute) ? .mode(node: dir, cls: cls, needed: .execute, has: has) : nil
    }

    /// The caller searches every directory whatever its bits: root under macos and guide (M5),
    /// a process with CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE under linux (C1, C2).
    @inline(__always)
    var searchBypass: Bool {
        sem == .linux ? subject.caps.rawValue & Capabilities.searchAny.rawValue != 0 : subject.isRoot
    }

    /// What a search-check shortcut found: a grant, or the refusal of the caller's mode class
    /// with the evidence the general path gives for it (`modeCheck`'s).
    enum QuickSearch: Equatable {
        case granted
        case refused(Evidence)
    }

    /// The common case of a search check, answered from the mode bits alone: no ACL to read,
    /// no identity rewrite, no Data Protection. It gives the same answer as `authorize`
    /// (search is not a write, so read-only volumes and flags never matter; noexec only
    /// concerns files), a refusal with the same evidence; nil when the general path must
    /// decide. Directories with an ACL go to `quickSearchACL`.
    @inline(__always)
    func quickSearch(_ dir: NodeID) -> QuickSearch? {
        let node = world[dir]
        if node.acl >= 0 || node.posixACL >= 0 { return quickSearchACL(dir) }
        guard node.protection == .unspecified else { return nil }
        // x for every class: granted whoever asks and whichever class an identity rewrite picks
        // (the same test as the walk's inline loop, `checkAncestors`).
        if searchBypass || node.mode.rawValue & 0o111 == 0o111 { return .granted }
        let vol = world.volumeBits[Int(node.volume)]
        switch sem {
        case .macos:
            if vol.ignoreOwnership || node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID { return nil }
        case .guide:
            if vol.ignoreOwnership { return nil }
        case .linux:
            break
        }
        return modeGrantsSearch(node, dir)
    }

    /// The x bit of the caller's mode class (owner, else group — direct membership under
    /// linux — else other) of `dir`: granted when it is set, else the class's refusal.
    @inline(__always)
    func modeGrantsSearch(_ node: Node, _ dir: NodeID) -> QuickSearch {
        let (cls, bits) = searchClass(node)
        return bits.contains(.execute) ? .granted : .refused(.mode(node: dir, cls: cls, needed: .execute, has: bits))
    }

    /// The caller's mode class of `node` and its bits, as a search check reads them: the owner,
    /// else the group (a direct member under linux, nested membership counting elsewhere), else
    /// the others.
    @inline(__always)
    func searchClass(_ node: Node) -> (ModeClass, RWX) {
        if node.uid == subject.uid { return (.owner, node.mode.owner) }
        if sem == .linux ? subject.isDirectMember(node.gid) : subject.isMember(node.gid) { return (.group, node.mode.group) }
        return (.other, node.mode.other)
    }

    /// `quickSearch` for a directory with an ACL, under macos (its ACEs, then the mode: M5, M8,
    /// M9 for the single right `search`) and linux (`acl_permission_check` for `x`). Same rules as
    /// `macSimple`/`evaluateACL` and `linuxDAC`/`posixACLPermission`, reduced to one right and
    /// to the grant, or to the mode bits' refusal when no entry decided: nil whenever an entry
    /// could refuse or the case is not plain (guide, an identity rewrite, Data Protection, ACLs
    /// off on the volume, the other kind of ACL).
    /// `SearchShortcutTests` checks it against `authorize` on every directory of random worlds.
    func quickSearchACL(_ dir: NodeID) -> QuickSearch? {
        let node = world[dir]
        guard node.protection == .unspecified, sem != .guide else { return nil }
        let vol = world.volumeBits[Int(node.volume)]
        guard vol.acls else { return nil }
        if sem == .macos {
            guard node.posixACL < 0 else { return nil }
            // M5: root may search any directory (the x-bit rule is for files).
            if subject.isRoot { return .granted }
            if vol.ignoreOwnership || node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID { return nil }
            // M8: the first ACE (stored order, inherit-only ones skipped) that names `search`
            // and applies decides; a deny means the general path must explain the refusal.
            for ace in world.acls[Int(node.acl)].entries where !ace.flags.contains(.onlyInherit) && ace.rights.contains(.search) {
                if applies(ace.subject, owner: node.uid, group: node.gid) { return ace.kind == .allow ? .granted : nil }
            }
        } else {
            guard node.acl < 0 else { return nil }
            // CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE: search any directory (C1, C2).
            if searchBypass { return .granted }
            if node.uid == subject.uid { return node.mode.owner.contains(.execute) ? .granted : nil }
            if !node.mode.group.isEmpty {
                // posix_acl_permission: a named user entry, else the group entries (any one that
                // grants, masked), else other.
                let acl = world.posixACLs[Int(node.posixACL)]
                let mask = acl.mask ?? .all
                for u in acl.users where u.id == subject.uid {
                    return u.perms.intersection(mask).contains(.execute) ? .granted : nil
                }
                var inGroupClass = false
                if subject.isDirectMember(node.gid) {
                    inGroupClass = true
                    if acl.groupObj.contains(.execute) { return mask.contains(.execute) ? .granted : nil }
                }
                for g in acl.groups where subject.isDirectMember(g.id) {
                    inGroupClass = true
                    if g.perms.contains(.execute) { return mask.contains(.execute) ? .granted : nil }
                }
                if inGroupClass { return nil }
                return acl.other.contains(.execute) ? .granted : nil
            }
        }
        // No ACE decided (macos), or the group class is `---` so the ACL is skipped (linux):
        // the mode bits, as for a directory without an ACL.
        return modeGrantsSearch(node, dir)
    }

    // MARK: One node

    /// `vnode_authorize(node, parent, rights)` under the current rule set.
    mutating func authorize(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome {
        // The layers in front of the file system: for the object of a request, not for lookups.
        if depth == 0 && sem != .linux && (appBox != nil || newFile != nil || protectionApplies(n, rights)) {
            let path = newPath ?? world.path(of: n)
            if let o = sandboxCheck(n, path: path, rights) { return o }
            if let o = tccCheck(n, path: path, rights) { return o }
            if let o = protectionCheck(n, rights) { return o }
            if let o = protectionCreateCheck(n, rights) { return o }
        }
        switch sem {
        case .macos: return macAuthorize(n, parent: p, rights, noImmutable: noImmutable)
        case .guide: return guideAuthorize(n, parent: p, rights, noImmutable: noImmutable)
        case .linux: return linuxAuthorizeRights(n, rights)
        }
    }

    // MARK: Shared pieces

    /// Owner and group of `n` as the caller sees them (`vnode_attr_handle_uid_and_gid`):
    /// ignore-ownership volumes and uid/gid 99 are rewritten for non-root callers.
    mutating func view(_ n: NodeID, record: Bool) -> (uid: UID, gid: GID) {
        let node = world[n]
        if subject.isRoot || sem != .macos { return (node.uid, node.gid) }
        var uid = node.uid
        var gid = node.gid
        let vol = world.volumeBits[Int(node.volume)]
        if vol.ignoreOwnership {
            uid = vol.fsOwner ?? WellKnown.unknownID
            gid = vol.fsGroup ?? WellKnown.unknownID
        }
        if uid == WellKnown.unknownID { uid = subject.uid }
        if gid == WellKnown.unknownID { gid = subject.gid }
        if record && (uid != node.uid || gid != node.gid) {
            let rule: RuleID = vol.ignoreOwnership ? .ignoreOwnership : .unknownOwner99
            step(.ownership, rule, .note, n, [], [],
                 .identity(node: n, uid: uid, gid: gid, fromUID: node.uid, fromGID: node.gid))
        }
        return (uid, gid)
    }

    /// Read-only volume and noexec, the first checks of `vnode_authorize_callback_int`.
    mutating func volumeCheck(_ n: NodeID, _ rights: AccessRights) -> Outcome? {
        let node = world[n]
        let vol = world.volumeBits[Int(node.volume)]
        if vol.readOnly || (vol.noexec && rights.contains(.execute)) {
            return volumeCheckSlow(n, rights)
        }
        return nil
    }

    mutating func volumeCheckSlow(_ n: NodeID, _ rights: AccessRights) -> Outcome? {
        let node = world[n]
        let vol = world.volumes[Int(node.volume)]
        if vol.readOnly || vol.readOnlyMount {
            let writes = rights.intersects(AccessRights.writeRights)
            let fsType = node.type == .file || node.type == .dir || node.type == .symlink
            if (writes && fsType) || rights.intersects([.delete, .deleteChild]) {
                return finish(.deny(.EROFS, .volume, .readOnlyVolume, n, .volume(mountPath: vol.mountPath)), rights)
            }
        }
        if vol.noexec && rights.contains(.execute) && node.type == .file {
            return finish(.deny(.EACCES, .volume, .noexecVolume, n, .volume(mountPath: vol.mountPath)), rights)
        }
        return nil
    }

    /// `vnode_authorize_checkimmutable`: a write right on an immutable or append-only node
    /// is EPERM, root included. Returns the blocking flag, or nil.
    func blockingFlag(_ n: NodeID, _ rights: AccessRights, noImmutable: Bool) -> FileFlags? {
        let node = world[n]
        var w = rights.intersection(AccessRights.writeRights)
        if node.type == .socket || node.type == .fifo || node.type == .device { w.remove(.writeData) }
        if w.isEmpty || node.flags.isEmpty { return nil }
        let exempt: AccessRights = node.isDir ? [.addFile, .addSubdirectory, .writeExtAttributes]
                                              : [.appendData, .writeExtAttributes]
        var mask: FileFlags = w.isSubset(of: exempt) ? FileFlags.immutable : FileFlags.immutable.union(.append)
        if noImmutable {
            if world.securelevel <= 0 { mask = [] } else { mask.subtract([.userImmutable, .userAppend]) }
        }
        let hit = node.flags.intersection(mask)
        if hit.isEmpty { return nil }
        let imm = hit.intersection(.immutable)
        return imm.isEmpty ? FileFlags(rawValue: hit.rawValue & (0 &- hit.rawValue)) : FileFlags(rawValue: imm.rawValue & (0 &- imm.rawValue))
    }

    mutating func flagsCheck(_ n: NodeID, parent p: NodeID, _ rights: AccessRights, noImmutable: Bool) -> Outcome? {
        if let f = blockingFlag(n, rights, noImmutable: noImmutable) {
            let rule: RuleID = f.isSubset(of: .immutable) ? .immutable : .appendOnly
            return finish(.deny(.EPERM, .flags, rule, n, .flag(node: n, flag: f)), rights)
        }
        if rights.contains(.delete) && p >= 0, let f = blockingFlag(p, .deleteChild, noImmutable: false) {
            let rule: RuleID = f.isSubset(of: .immutable) ? .parentImmutable : .parentAppendOnly
            return finish(.deny(.EPERM, .flags, rule, p, .flag(node: p, flag: f)), rights)
        }
        return nil
    }

    enum ACLResult {
        case absent
        case allow(Evidence)
        case deny(Evidence)
        /// Rights still ungranted after the whole list.
        case `defer`(AccessRights)
    }

    /// `kauth_acl_evaluate`: walk the ACEs in `order`; an allow removes its rights from the
    /// residual, a deny naming any requested right denies at once.
    mutating func evaluateACL(_ n: NodeID, _ requested: AccessRights, owner: UID, group: GID, guideOrder: Bool) -> ACLResult {
        let node = world[n]
        guard node.acl >= 0 else { return .absent }
        if !world.volumeBits[Int(node.volume)].acls {
            let vol = world.volumes[Int(node.volume)]
            step(.acl, .aclDisabled, .note, n, requested, requested, .volume(mountPath: vol.mountPath))
            return .absent
        }
        let acl = world.acls[Int(node.acl)]
        if tracing && world.mappedACLNodes.contains(n) {
            let note = "the ACL of \(world.path(of: n)) is a POSIX ACL mapped to ACEs for this rule set; the mapping is lossy (docs/semantics.md, L11)"
            if !notes.contains(note) { notes.append(note) }
        }
        if acl.isEmpty {
            step(.acl, .aclEmpty, .defer, n, requested, requested, .node(n))
            return .defer(requested)
        }
        var residual = requested
        let stated = guideOrder && !acl.isCanonical
        var k = 0
        let count = acl.entries.count
        let order = stated ? acl.guideOrder : []
        while k < count {
            let idx = stated ? order[k] : k
            k += 1
            let ace = acl.entries[idx]
            if ace.flags.contains(.onlyInherit) {
                if tracing && (ace.kind == .allow ? ace.rights.intersects(residual) : ace.rights.intersects(requested)) && applies(ace.subject, owner: owner, group: group) {
                    step(.acl, .aclOnlyInheritSkipped, .note, n, residual, residual, .ace(node: n, index: idx, ace: ace))
                }
                continue
            }
            switch ace.kind {
            case .allow:
                if !ace.rights.intersects(residual) { continue }
                if !applies(ace.subject, owner: owner, group: group) { continue }
                let before = residual
                residual.subtract(ace.rights)
                let ev = Evidence.ace(node: n, index: idx, ace: ace)
                if residual.isEmpty {
                    step(.acl, stated ? .guideACLStatedOrder : .aclAllowComplete, .allow, n, before, [], ev)
                    return .allow(ev)
                }
                step(.acl, .aclPartial, .defer, n, before, residual, ev)
            case .deny:
                if !ace.rights.intersects(requested) { continue }
                if !applies(ace.subject, owner: owner, group: group) { continue }
                let ev = Evidence.ace(node: n, index: idx, ace: ace)
                step(.acl, stated ? .guideACLStatedOrder : .aclDenyMatched, .deny, n, residual, residual, ev)
                return .deny(ev)
            }
        }
        step(.acl, residual == requested ? .aclNoMatch : .aclPartial, .defer, n, requested, residual, .node(n))
        return .defer(residual)
    }

    @inline(__always)
    func applies(_ s: ACESubject, owner: UID, group: GID) -> Bool {
        switch s {
        case .user(let u): return u == subject.uid
        case .group(let g): return subject.isMember(g)
        case .everyone: return true
        case .owner: return owner == subject.uid
        case .owningGroup: return subject.isMember(group)
        }
    }

    /// Best-match class: owner bits for the owner, else group bits for a member of the owning
    /// group, else other bits (`vnode_authorize_posix`).
    func modeClass(_ mode: FileMode, owner: UID, group: GID) -> (ModeClass, RWX) {
        if owner == subject.uid { return (.owner, mode.owner) }
        if subject.isMember(group) { return (.group, mode.group) }
        return (.other, mode.other)
    }

    /// Checks `bits` against one mode class of `n`.
    mutating func modeCheck(_ n: NodeID, _ bits: RWX, owner: UID, group: GID, requested: AccessRights) -> Outcome {
        let (cls, has) = modeClass(world[n].mode, owner: owner, group: group)
        let ev = Evidence.mode(node: n, cls: cls, needed: bits, has: has)
        if has.isSuperset(of: bits) {
            let rule: RuleID = cls == .owner ? .ownerBitsGrant : cls == .group ? .groupBitsGrant : .otherBitsGrant
            return finish(.allow(.mode, rule, n, ev), requested)
        }
        let rule: RuleID = cls == .owner ? .ownerBitsMissing : cls == .group ? .groupBitsMissing : .otherBitsMissing
        return finish(.deny(.EACCES, .mode, rule, n, ev), requested)
    }
}
