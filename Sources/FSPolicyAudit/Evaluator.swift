// Asking questions of a loaded policy: the evaluator, its credentials and the worlds between steps.

import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import Foundation
import Synchronization

/// Each subject's credential, made once while many expectations are checked (making one walks
/// the subject's groups).
public struct CredentialCache {
    var made: [Key: Credential?] = [:]
    /// Services' view worlds, by the step after which they were made (-1: after all).
    var views: [Int: ViewWorlds] = [:]
    struct Key: Hashable {
        var subject: SubjectRef
        var after: Int
    }
    /// Users' credentials in the world after all steps (the common expectation's), by uid in
    /// 64 slots, each the last uid that fell in it: found without hashing a `Key`.
    var users = [(uid: UID, credential: Credential?)?](repeating: nil, count: 64)
    /// A request of each user in the world after all steps, in 64 slots like `users`, its
    /// operation and path changed for each question (`withRequest`).
    let requests = RequestSlots()
    public init() {}

    /// `body` with the request of user `uid` in the world after all steps, its operation and
    /// path those of `spec` (which has no other argument): what `Evaluator.request(spec,
    /// credential:)` makes of the user's credential, made once and changed in place.
    mutating func withRequest<R>(user uid: UID, _ spec: RequestSpec, in ev: Evaluator, _ body: (inout Request) -> R) -> R? {
        let slot = Int(truncatingIfNeeded: uid & 63)
        let r = requests.requests + slot
        if requests.users[slot] != Int64(uid) {
            guard let c = credential(.user(uid), after: nil, in: ev) else { return nil }
            let made = ev.request(RequestSpec(op: spec.op, path: spec.path), credential: c)
            if requests.users[slot] >= 0 { r.pointee = made } else { r.initialize(to: made) }
            requests.users[slot] = Int64(uid)
        }
        r.pointee.op = spec.op
        r.pointee.path = spec.path
        return body(&r.pointee)
    }

    /// `requests`' slots: the requests where they are (an array's element is checked for
    /// uniqueness each time it is changed) and the user of each, -1 for an empty slot. One
    /// thread uses a cache (each rendering thread has its own).
    final class RequestSlots {
        let requests = UnsafeMutablePointer<Request>.allocate(capacity: 64)
        let users = UnsafeMutablePointer<Int64>.allocate(capacity: 64)
        init() { users.initialize(repeating: -1, count: 64) }
        deinit {
            for k in 0..<64 where users[k] >= 0 { (requests + k).deinitialize(count: 1) }
            requests.deallocate()
            users.deallocate()
        }
    }

    mutating func credential(_ s: SubjectRef, after: Int?, in ev: Evaluator) -> Credential? {
        if after == nil, case .user(let uid) = s {
            let slot = Int(truncatingIfNeeded: uid & 63)
            if let u = users[slot], u.uid == uid { return u.credential }
            let c = ev.credential(s, after: nil)
            users[slot] = (uid, c)
            return c
        }
        let k = Key(subject: s, after: after ?? -1)
        if let c = made[k] { return c }
        let c = ev.credential(s, after: after, views: &views[after ?? -1, default: ViewWorlds()])
        made[k] = c
        return c
    }
}

/// Everything needed to ask questions of one loaded policy.
public struct Evaluator: Sendable {
    public let policy: Policy
    /// Decides in the world after all steps.
    public let authorizer: Authorizer
    public let semantics: Semantics
    /// `worlds[k]` is the world after the first k steps (`worlds[0]` is the file's tree). Only
    /// the first, the last and those expectations ask for are kept; the others are made again
    /// from the nearest kept one when asked for, so steps do not each hold a copy of the world.
    public let worlds: StepWorlds
    /// What each step did (authorized, then applied when allowed).
    public let stepOutcomes: [StepOutcome]
    /// How many counterexamples of a quantified expectation are reported with their
    /// explanation (`check --max-examples`); all are counted.
    public var maxExamples = 5

    public init(policy: Policy, semantics: Semantics? = nil, tracing: Bool = true) {
        self.policy = policy
        let sem = semantics ?? policy.semantics
        self.semantics = sem
        var wanted = Set(policy.expectations.compactMap(\.after))
        wanted.insert(0)
        var kept: [Int: World] = [0: policy.world]
        var outcomes: [StepOutcome] = []
        var w = policy.world
        for (i, step) in policy.steps.enumerated() {
            if let o = StepWorlds.apply(step, to: &w, semantics: sem, tracing: tracing) { outcomes.append(o) }
            if wanted.contains(i + 1) { kept[i + 1] = w }
        }
        kept[policy.steps.count] = w
        self.worlds = StepWorlds(policy: policy, semantics: sem, tracing: tracing, kept: kept)
        self.stepOutcomes = outcomes
        self.authorizer = Authorizer(world: w, semantics: sem, tracing: tracing)
    }

    static func makeRequest(_ spec: RequestSpec, subject: Subject) -> Request {
        var r = Request(subject: subject, op: spec.op, path: spec.path)
        // Most requests have no extra argument: nothing to copy or look at.
        if spec.hasExtras {
            r.allExtras = spec.extras
            // A credential of this call only (`groups:`, `umask:`).
            if let g = spec.groups { r.subject = Subject(uid: subject.uid, gid: subject.gid, groups: g, umask: subject.umask) }
            if let m = spec.umask { r.subject.umask = m }
            if let c = spec.capabilities { r.subject.caps = c }
        }
        return r
    }

    /// The world after the first `after` steps (all of them when nil).
    public func world(after: Int?) -> World { worlds[min(after ?? worlds.count - 1, worlds.count - 1)] }

    public func request(_ spec: RequestSpec, uid: UID, after: Int? = nil) -> Request {
        Evaluator.makeRequest(spec, subject: world(after: after).subject(uid: uid))
    }

    public func decide(_ spec: RequestSpec, uid: UID, after: Int? = nil) -> Decision {
        if after == nil || after! >= worlds.count - 1 { return authorizer.decide(request(spec, uid: uid)) }
        return Authorizer(world: world(after: after), semantics: semantics, tracing: authorizer.tracing).decide(request(spec, uid: uid, after: after))
    }

    /// Every declared user (root included), in declaration order, with their decision.
    public func who(_ spec: RequestSpec, after: Int? = nil) -> [(name: String, uid: UID, decision: Decision)] {
        policy.userOrder.compactMap { name in
            guard let u = policy.world.user(named: name) else { return nil }
            return (name, u.uid, decide(spec, uid: u.uid, after: after))
        }
    }

    /// A node's state against the expected one: one line per difference.
    public func stateMismatches(_ st: NodeState, path: String, after: Int?) -> [String] {
        let w = world(after: after)
        let t = TextRenderer(policy: policy, world: w)
        guard let n = w.lookup(path) else {
            return st.exists ? ["\(path) does not exist"] : []
        }
        if !st.exists { return ["\(path) exists"] }
        let node = w[n]
        var out: [String] = []
        if let x = st.type, !node.type.isNamed(by: x) { out.append("type: expected \(x.word), got \(node.type.word)") }
        if let x = st.owner, x != node.uid { out.append("owner: expected \(w.userName(x)), got \(w.userName(node.uid))") }
        if let x = st.group, x != node.gid { out.append("group: expected \(w.groupName(x)), got \(w.groupName(node.gid))") }
        if let x = st.mode, x != node.mode { out.append("mode: expected \(x.octal), got \(node.mode.octal)") }
        if let x = st.flags, x != node.flags {
            out.append("flags: expected [\(t.flagNames(x).joined(separator: ", "))], got [\(t.flagNames(node.flags).joined(separator: ", "))]")
        }
        if st.aclGiven {
            if semantics == .linux || st.posixACL != nil {
                let actual = w.posixACL(of: n)
                if actual != st.posixACL {
                    func show(_ a: POSIXACL?) -> String { a.map { t.posixLines($0).joined(separator: ", ") } ?? "none" }
                    out.append("acl: expected [\(show(st.posixACL))], got [\(show(actual))]")
                }
            } else {
                let actual = w.acl(of: n)
                if actual != st.acl {
                    func show(_ a: ACL?) -> String {
                        a.map { $0.entries.map { "\"" + w.aceText($0, forDirectory: nil) + "\"" }.joined(separator: ", ") } ?? "none"
                    }
                    out.append("acl: expected [\(show(st.acl))], got [\(show(actual))]")
                }
            }
        }
        if st.defaultACLGiven, w.defaultPOSIXACL(of: n) != st.defaultACL {
            func show(_ a: POSIXACL?) -> String { a.map { t.posixLines($0).joined(separator: ", ") } ?? "none" }
            out.append("defaultAcl: expected [\(show(st.defaultACL))], got [\(show(w.defaultPOSIXACL(of: n)))]")
        }
        return out
    }

    /// Steps as checks: each must be allowed (or denied, when it says `result: deny`).
    public func checkSteps() -> [ExpectationOutcome] {
        var outs: [ExpectationOutcome] = []
        for (i, step) in policy.steps.enumerated() where i < stepOutcomes.count {
            var e = Expectation(index: -1 - i, location: step.location, request: step.request)
            e.name = "step \(i + 1): " + step.label
            e.asText = step.asText
            e.subject = step.subject
            e.result = !step.expectDeny
            e.errno = step.errno
            e.layer = step.layer
            let d = stepOutcomes[i].decision
            var o = ExpectationOutcome(expectation: e, passed: true, decision: d)
            if d.allowed == step.expectDeny {
                o.mismatches.append(
                    step.expectDeny
                        ? "the step was expected to be denied, but it was allowed (and applied)"
                        : "the step was denied, so it was not applied")
            }
            if let x = step.errno, x != d.errno { o.mismatches.append("errno: expected \(x.rawValue), got \(d.errno?.rawValue ?? "none")") }
            if let x = step.layer, x != d.layer { o.mismatches.append("layer: expected \(x.rawValue), got \(d.layer.rawValue)") }
            o.passed = o.mismatches.isEmpty
            outs.append(o)
        }
        return outs
    }

    public func check(_ e: Expectation) -> ExpectationOutcome {
        var credentials = CredentialCache()
        return check(e, credentials: &credentials)
    }

    /// `tracing: false`: the decision has no trace (the verdict, errno, layer and rule are the
    /// same); for counting.
    public func check(_ e: Expectation, tracing: Bool? = nil, credentials: inout CredentialCache) -> ExpectationOutcome {
        if e.isQuantified { return checkQuantified(e) }
        if let st = e.state {
            var out = ExpectationOutcome(expectation: e, passed: true)
            out.mismatches = stateMismatches(st, path: e.request.path, after: e.after)
            out.passed = out.mismatches.isEmpty
            return out
        }
        if let allowed = e.allowed {
            var out = ExpectationOutcome(expectation: e, passed: true)
            // Apps count only when the list names one (format v1).
            let apps = allowed.contains(where: policy.appIDs.contains) ? whoApps(e.request, after: e.after) : []
            let actual = (who(e.request, after: e.after) + apps).filter { $0.decision.allowed }.map(\.name)
            out.actualAllowed = actual
            out.unexpectedlyAllowed = actual.filter { !allowed.contains($0) }
            out.unexpectedlyDenied = allowed.filter { !actual.contains($0) }
            if !out.unexpectedlyAllowed.isEmpty { out.mismatches.append("also allowed: " + out.unexpectedlyAllowed.joined(separator: ", ")) }
            if !out.unexpectedlyDenied.isEmpty { out.mismatches.append("not allowed: " + out.unexpectedlyDenied.joined(separator: ", ")) }
            out.passed = out.mismatches.isEmpty
            return out
        }
        guard let subject = e.subject, let d = decide(e, subject, tracing: tracing, credentials: &credentials) else {
            return ExpectationOutcome(expectation: e, passed: false, mismatches: ["unknown subject `\(e.asText ?? "?")`"])
        }
        let mismatches = Evaluator.mismatches(e, d)
        // The outcome made once, the decision moved into it (a copy retains its trace).
        return ExpectationOutcome(expectation: e, passed: mismatches.isEmpty, decision: consume d, mismatches: mismatches)
    }

    /// What differs between the decision `d` and what the expectation `e` of one request says.
    static func mismatches(_ e: Expectation, _ d: Decision) -> [String] {
        // Neither allowed nor denied (P6): whatever it expects, the expectation cannot hold.
        if d.unknown {
            let want = e.result.map { $0 ? "allow" : "deny" } ?? e.errno.map { "deny \($0.rawValue)" } ?? e.layer.map { "layer \($0.rawValue)" } ?? "an answer"
            return ["result: expected \(want), got unknown"]
        }
        // The common failure, the verdict alone: one of two lists made once (not a list a failure).
        if let want = e.result, want != d.allowed, e.errno == nil || e.errno == d.errno, e.layer == nil || e.layer == d.layer {
            return want ? expectedAllow : expectedDeny
        }
        var mismatches: [String] = []
        if let want = e.result, want != d.allowed {
            mismatches.append(want ? expectedAllow[0] : expectedDeny[0])
        }
        if let want = e.errno, want != d.errno {
            mismatches.append("errno: expected \(want.rawValue), got \(d.errno?.rawValue ?? "none")")
        }
        if let want = e.layer, want != d.layer {
            mismatches.append("layer: expected \(want.rawValue), got \(d.layer.rawValue)")
        }
        return mismatches
    }

    static let expectedAllow = ["result: expected allow, got deny"]
    static let expectedDeny = ["result: expected deny, got allow"]

    /// Whether the decision `d` is what the expectation `e` of one request says.
    @inline(__always) static func holds(_ e: Expectation, _ d: Decision) -> Bool {
        if d.unknown { return false }
        if let want = e.result, want != d.allowed { return false }
        if let want = e.errno, want != d.errno { return false }
        if let want = e.layer, want != d.layer { return false }
        return true
    }

    /// `check(e, tracing: passTrace ? nil : false, …)` for a report that decides each
    /// expectation as it is written, a failure decided again with its trace when `failTrace`
    /// (a pass decided without it, unless `passTrace`: see `StreamedFileReport.render`). An
    /// expectation of one subject's request makes one outcome (and one list of mismatches),
    /// however often it is decided.
    public func checkForReport(_ e: Expectation, passTrace: Bool, failTrace: Bool, credentials: inout CredentialCache) -> ExpectationOutcome {
        guard e.decidesOneRequest, let subject = e.subject,
            let d = decide(e, subject, tracing: passTrace ? nil : false, credentials: &credentials)
        else {
            return check(e, tracing: passTrace ? nil : false, credentials: &credentials)
        }
        if Evaluator.holds(e, d) { return ExpectationOutcome(expectation: e, passed: true, decision: consume d) }
        // The verdict, errno, layer and rule of a traced decision are the untraced one's.
        if failTrace && !passTrace, let traced = decide(e, subject, tracing: nil, credentials: &credentials) {
            let mismatches = Evaluator.mismatches(e, traced)
            return ExpectationOutcome(expectation: e, passed: false, decision: consume traced, mismatches: mismatches)
        }
        let mismatches = Evaluator.mismatches(e, d)
        return ExpectationOutcome(expectation: e, passed: false, decision: consume d, mismatches: mismatches)
    }

    /// Whether `e` holds: `check(e, tracing: false, …).passed`, without writing the words of
    /// its mismatches for the common expectation of one subject's request (for counting).
    public func passes(_ e: Expectation, credentials: inout CredentialCache) -> Bool {
        guard !e.isQuantified, e.state == nil, e.allowed == nil, let subject = e.subject,
            let d = decide(e, subject, tracing: false, credentials: &credentials)
        else {
            return check(e, tracing: false, credentials: &credentials).passed
        }
        return Evaluator.holds(e, d)
    }

    /// The decision of the request of `e`, asked by `subject` (its own), nil for an unknown
    /// subject. The common question, a user's in the world after all steps with no argument
    /// but the path, is asked with the user's request kept in `credentials` and changed in
    /// place: making a request copies the credential's subject, retaining and releasing its
    /// lists of groups, on every expectation of a file.
    func decide(_ e: Expectation, _ subject: SubjectRef, tracing: Bool?, credentials: inout CredentialCache) -> Decision? {
        if e.after == nil, case .user(let uid) = subject, !e.request.hasExtras {
            let a = authorizer(after: nil, tracing: tracing)
            return credentials.withRequest(user: uid, e.request, in: self) { a.decide(inPlace: &$0) }
        }
        guard let c = credentials.credential(subject, after: e.after, in: self) else { return nil }
        return decide(e.request, credential: c, after: e.after, tracing: tracing)
    }

    public func checkAll() -> FileReport {
        FileReport(policy: policy, outcomes: checkSteps() + policy.expectations.map(check), worlds: (0..<worlds.count).map { worlds[$0] })
    }
}

/// The worlds between steps, without a copy per step: the kept ones (the file's tree, the final
/// world, those expectations name with `after`) and one more, the last made again on demand by
/// replaying steps from the nearest kept world before it (asked in order, as reports do, each
/// step is replayed once).
public final class StepWorlds: @unchecked Sendable {
    let policy: Policy
    let semantics: Semantics
    let tracing: Bool
    let kept: [Int: World]
    private var recent: (index: Int, world: World)? = nil
    private let lock = NSLock()

    init(policy: Policy, semantics: Semantics, tracing: Bool, kept: [Int: World]) {
        self.policy = policy
        self.semantics = semantics
        self.tracing = tracing
        self.kept = kept
    }

    /// How many worlds there are: one more than there are steps.
    public var count: Int { policy.steps.count + 1 }
    public var last: World? { self[count - 1] }

    public subscript(k: Int) -> World {
        if let w = kept[k] { return w }
        lock.lock()
        defer { lock.unlock() }
        var start = kept.keys.filter { $0 < k }.max() ?? 0
        var w = kept[start]!
        if let r = recent, r.index <= k, r.index >= start { start = r.index; w = r.world }
        recent = nil
        for i in start..<k { _ = StepWorlds.apply(policy.steps[i], to: &w, semantics: semantics, tracing: false) }
        recent = (k, w)
        return w
    }

    /// Applies one step (authorized first); nil when its subject is unknown.
    static func apply(_ step: Step, to w: inout World, semantics: Semantics, tracing: Bool) -> StepOutcome? {
        var r: Request? = nil
        switch step.subject {
        case .user(let uid)?: r = Evaluator.makeRequest(step.request, subject: w.subject(uid: uid))
        case .app(let id)?:
            // An app's step passes its sandbox and TCC first, and creates with its umask.
            if let i = w.appIndex(id) { r = Evaluator.makeRequest(step.request, subject: w.subject(app: i)); r?.app = i }
        case .service(let name)?:
            if let i = w.serviceIndex(name) { r = Evaluator.makeRequest(step.request, subject: w.subject(service: i)) }
        case .process(let uid, let caps)?:
            r = Evaluator.makeRequest(step.request, subject: w.subject(uid: uid, caps: caps))
        case nil: break
        }
        guard let r else { return nil }
        return Mutator.apply(r, to: &w, semantics: semantics, tracing: tracing)
    }
}
