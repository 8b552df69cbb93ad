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
        // A decision made in a service's view that replaces paths holds that view's world. Set
        // here, outside the walk: set inside it, the decision was copied on its way out, and
        // every decision cost 13.7% more instructions (callgrind, `fspolicy-bench`).
        if let b = request.subject.view?.box {
            var d = walk(&request)
            d.viewBox.box = b
            return d
        }
        return walk(&request)
    }

    /// `decide(inPlace:)` without the view world on the decision.
    @inline(never)
    func walk(_ request: inout Request) -> Decision {
        // A service whose view replaces paths (U5) walks the world as its view shows it.
        let box = request.subject.view?.box ?? self.box
        var e = Eval(box: box, sem: semantics, subject: Authorizer.borrowSubject(&request), tracing: tracing)
        e.tracedSearchShortcut = tracedSearchShortcut
        if let i = request.app, world.apps.indices.contains(i) {
            // The sandbox, TCC and Data Protection are Apple's; under linux the app is its user.
            if semantics == .linux {
                e.notes.append("linux has no App Sandbox or privacy consent: \(world.apps[i].bundleID) is decided as its user")
            } else {
                e.appBox = AppBox(world.apps[i])
                e.requestWrites = request.op == .open ? (request.openFlags ?? []).asksWrite || request.openFlags?.contains(.creat) == true : request.op.writes
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
                e.notes.append(
                    "\(list) \(paths.count == 1 ? "is" : "are") assumed, not read from the host (`assumed: true`): the owner, group and mode used are stand-ins, so this answer holds only if the real \(paths.count == 1 ? "folder matches" : "folders match")."
                )
            }
        }
        if let v = request.subject.view, v.box != nil || !v.hidden.isEmpty {
            e.notes += Authorizer.viewNotes(v, paths: [request.path, request.to ?? ""])
        }
        return outcome.decision(trace: e.trace, notes: e.notes)
    }

    /// What a view that replaces paths (U5) mounted over the request's paths, and the entries it
    /// could not apply or dropped. From the request alone, so that a decision says the same
    /// with its trace or without.
    static func viewNotes(_ v: MountView, paths: [String]) -> [String] {
        var out: [String] = []
        for e in v.entries where e.showsOther && paths.contains(where: { !$0.isEmpty && e.covers($0) }) {
            if e.source != nil {
                out.append("\(e.option) (\(e.place)) mounts \(e.phrase): the owner, mode and ACL met there are the source's (U6)")
            } else {
                out.append("\(e.option) (\(e.place)) mounts \(e.phrase): what the host has there is not seen (U5)")
            }
        }
        out += v.unapplied
        for e in v.hidden {
            out.append(
                "\(e.option) (\(e.place)) names a path inside an inaccessible path, a tmpfs or a private /tmp, which is empty: systemd does not apply it (and without `-` fails to start the unit)"
            )
        }
        return out
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
    /// first thing it does is walk the request's path (`resolve(r.path, …)`; `mknod` under macos
    /// may refuse before, and `settimes` with both times omitted, so they are left out), and it reads the
    /// path text again only when the last name is missing (to name it, or the file a create
    /// adds). So the walk is done here first, from the bytes, and the operation is handed its
    /// result; a walk that ends in a denial is that denial.
    public func decide(inPlace request: inout Request, pathBytes: UnsafeBufferPointer<UInt8>) -> Decision? {
        guard !tracing, request.app == nil, !request.op.needsTarget, request.op != .modify, request.op != .mknod, request.op != .open,
            request.op != .settimes
        else { return nil }
        // A view that replaces paths adds notes to its decisions (`decide(inPlace:)`).
        if let v = request.subject.view, v.box != nil || !v.hidden.isEmpty { return nil }
        let box = request.subject.view?.box ?? self.box
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
        World.indexedNode(
            bytes, chain: chain, walked: &walked, index: world.pathIndex, nodes: world.nodes, fold: world.foldNames,
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
        Outcome(
            allowed: false, errno: nil, layer: .traversal, rule: .notRead, node: dir,
            evidence: .unread(dir: dir, name: name, reason: reason), unknown: true)
    }

    func decision(trace: [TraceStep], notes: [String]) -> Decision {
        var d = Decision(
            allowed: allowed, errno: errno, layer: layer, rule: rule, node: node, evidence: evidence,
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
            var e = Eval(box: subject.view?.box ?? box, sem: sem, subject: sp, tracing: tracing)
            return body(&e)
        }
    }

    @inline(__always)
    mutating func step(
        _ layer: Layer, _ rule: RuleID, _ verdict: Verdict, _ node: NodeID,
        _ requested: AccessRights, _ remaining: AccessRights, _ ev: Evidence = .none
    ) {
        if tracing {
            trace.append(
                TraceStep(
                    layer: layer, rule: rule, verdict: verdict, node: node, requested: requested,
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
}
