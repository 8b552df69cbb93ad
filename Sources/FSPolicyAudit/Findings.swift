import FSPolicy
import FSPolicyFormat
import FSPolicyRender

extension Evaluator {
    /// A subject's credential in the world after `after`: what every request of that subject
    /// carries (a program asking many questions prepares it once); nil for an unknown app.
    public func credential(_ subject: SubjectRef, after: Int? = nil) -> Credential? {
        var views = ViewWorlds()
        return credential(subject, after: after, views: &views)
    }

    /// `credential(_:after:)`, a service's view world taken from `views` when one with the same
    /// changes was made in the same world (`ViewWorlds`).
    func credential(_ subject: SubjectRef, after: Int?, views: inout ViewWorlds) -> Credential? {
        let w = world(after: after)
        switch subject {
        case .user(let uid): return Credential(subject: w.subject(uid: uid), app: nil)
        case .app(let id):
            guard let i = w.appIndex(id) else { return nil }
            return Credential(subject: w.subject(app: i), app: i)
        case .service(let name):
            guard let i = w.serviceIndex(name) else { return nil }
            return Credential(subject: w.subject(service: i, views: &views), app: nil)
        case .process(let uid, let caps):
            return Credential(subject: w.subject(uid: uid, caps: caps), app: nil)
        }
    }

    /// The request a subject (a user or an app) makes; nil for an app the world does not know.
    public func request(_ spec: RequestSpec, subject: SubjectRef, after: Int? = nil) -> Request? {
        credential(subject, after: after).map { request(spec, credential: $0) }
    }

    /// The request a credential makes: `decide(_:credential:after:tracing:)` is
    /// `authorizer(after:tracing:).decide(request(spec, credential:))`. A program asking many
    /// questions may make both once and change the request's `op` and `path` (`can --batch`).
    public func request(_ spec: RequestSpec, credential c: Credential) -> Request {
        var r = Evaluator.makeRequest(spec, subject: c.subject)
        r.app = c.app
        return r
    }

    /// What decides requests in the world after `after` (see `request(_:credential:)`).
    public func authorizer(after: Int?, tracing: Bool? = nil) -> Authorizer {
        var a = authorizer
        if let t = tracing { a.tracing = t }
        if after == nil || after! >= worlds.count - 1 { return a }
        return Authorizer(world: world(after: after), semantics: semantics, tracing: a.tracing)
    }

    /// `decide(_:subject:after:)` with the subject's credential prepared.
    public func decide(_ spec: RequestSpec, credential c: Credential, after: Int? = nil, tracing: Bool? = nil) -> Decision {
        // Decided where it is made (`decide(_:)` would copy the request first).
        var r = request(spec, credential: c)
        return authorizer(after: after, tracing: tracing).decide(inPlace: &r)
    }

    /// The decision for a user or an app (nil for an unknown app).
    public func decide(_ spec: RequestSpec, subject: SubjectRef, after: Int? = nil) -> Decision? {
        credential(subject, after: after).map { decide(spec, credential: $0, after: after) }
    }

    /// Every declared service, in declaration order, with the uid it runs as and its decision.
    public func whoServices(_ spec: RequestSpec, after: Int? = nil) -> [(name: String, uid: UID, decision: Decision)] {
        // Services whose units change the same paths share one view world.
        var views = ViewWorlds()
        return policy.world.services.compactMap { svc in
            guard let c = credential(.service(svc.name), after: after, views: &views) else { return nil }
            return ("service:" + svc.name, svc.uid, decide(spec, credential: c, after: after))
        }
    }

    /// Every declared app, in declaration order, with the uid it runs as and its decision.
    public func whoApps(_ spec: RequestSpec, after: Int? = nil) -> [(name: String, uid: UID, decision: Decision)] {
        policy.appIDs.compactMap { id in
            guard let i = policy.world.appIndex(id),
                let d = decide(spec, subject: .app(id), after: after)
            else { return nil }
            return (id, policy.world.apps[i].uid, d)
        }
    }
}

/// Warnings about apps that no expectation fails on but a reviewer should see (docs/sandbox.md,
/// "Findings"): missing purpose strings, temporary exceptions, unbalanced or stale bookmarks,
/// and entitlements that grant more than the expectations use. `check` and `validate` print
/// them; JSON and SARIF carry them as warnings.
public enum Findings {
    /// One line per finding code (SARIF rule descriptions).
    public static let summaries: [String: String] = [
        "missing-purpose-string": "An app reaches a privacy-protected location without the Info.plist purpose string",
        "temporary-exception": "An app uses a temporary-exception entitlement, which App Review asks to justify",
        "unbalanced-bookmark": "A security-scoped bookmark's start and stop calls do not balance",
        "stale-bookmark": "A security-scoped bookmark resolved as stale and should be renewed",
        "unused-entitlement": "An entitlement grants more than the expectations use"
    ]

    public static func analyze(_ policy: Policy) -> [Diagnostic] {
        guard !policy.world.apps.isEmpty else { return [] }
        var bag = DiagnosticBag()
        let ev = Evaluator(policy: policy)
        // What the app expectations decide (an `allowed` list naming an app decides every app).
        var decisions: [String: [(Expectation, Decision)]] = [:]
        for e in policy.expectations where e.state == nil {
            if case .app(let id)? = e.subject, let d = ev.decide(e.request, subject: .app(id), after: e.after) {
                decisions[id, default: []].append((e, d))
            } else if let names = e.allowed, names.contains(where: policy.appIDs.contains) {
                for row in ev.whoApps(e.request, after: e.after) { decisions[row.name, default: []].append((e, row.decision)) }
            }
        }
        for app in policy.world.apps {
            guard let src = policy.appSources[app.bundleID] else { continue }
            let id = app.bundleID
            let mine = decisions[id] ?? []
            purposeStrings(app, src, mine, into: &bag)
            for key in [
                Entitlement.absolutePathReadOnly, Entitlement.absolutePathReadWrite,
                Entitlement.homeRelativeReadOnly, Entitlement.homeRelativeReadWrite
            ] {
                for entry in app.strings(key) {
                    bag.warning(
                        src.entitlements[key] ?? src.location, code: "temporary-exception",
                        "app `\(id)` uses the temporary exception `\(entry)` (`\(key)`)",
                        help: "App Review asks for a justification of each; prefer items the user picks, or security-scoped bookmarks")
                }
            }
            for (i, b) in app.bookmarks.enumerated() {
                let loc = i < src.bookmarks.count ? src.bookmarks[i] : src.location
                if b.stopped > b.started {
                    bag.warning(
                        loc, code: "unbalanced-bookmark",
                        "the bookmark to \(b.path) of app `\(id)` is stopped \(b.stopped) time(s) but started only \(b.started)",
                        help: "call `stopAccessingSecurityScopedResource()` once for each successful start, and only then")
                } else if b.started - b.stopped > 1 {
                    bag.warning(
                        loc, code: "unbalanced-bookmark",
                        "the bookmark to \(b.path) of app `\(id)` has \(b.started - b.stopped) starts without a stop",
                        help: "balance every successful `startAccessingSecurityScopedResource()` with a stop; leaked starts hold kernel resources")
                }
                if b.stale {
                    bag.warning(
                        loc, code: "stale-bookmark", "the bookmark to \(b.path) of app `\(id)` is stale: it still resolves, but should be renewed",
                        help: "when resolution reports `bookmarkDataIsStale`, create a new bookmark from the resolved URL and save it")
                }
            }
            if policy.semantics != .linux && !mine.isEmpty { unusedEntitlements(app, src, mine, into: &bag) }
        }
        keychainFindings(policy, into: &bag)
        return bag.sorted
    }

    /// A purpose string missing for a service the app's consents name or its decisions needed.
    static func purposeStrings(_ app: App, _ src: AppSource, _ mine: [(Expectation, Decision)], into bag: inout DiagnosticBag) {
        guard app.platform == .macos else { return }
        var lines: [String: [Int]] = [:]
        for (e, d) in mine {
            for s in d.trace where s.rule == .tccMissingPurposeString {
                if case .app(_, let f) = s.evidence, let k = f.key { lines[k, default: []].append(e.location.line) }
            }
        }
        for service in TCCService.allCases {
            guard let key = service.purposeKey, !app.hasPurposeString(key) else { continue }
            let used = lines[key] ?? []
            guard app.tcc[service] != nil || !used.isEmpty else { continue }
            var msg = "app `\(app.bundleID)` has no `\(key)` in its Info.plist"
            if !used.isEmpty {
                let l = Array(Set(used)).sorted().map(String.init).joined(separator: ", ")
                msg += ", so its access to the \(service.label) is refused (expectation line \(l))"
            } else {
                msg += ", yet its `tcc` consents name `\(service.rawValue)`"
            }
            bag.warning(
                src.info ?? src.tcc[service.rawValue] ?? src.location, code: "missing-purpose-string", msg,
                help: "add `\(key)` with one sentence saying why the app needs it; without it the system terminates the app and App Review rejects it")
        }
    }

    /// Widening entitlements no expectation's decision went through, or went through only to read.
    static func unusedEntitlements(_ app: App, _ src: AppSource, _ mine: [(Expectation, Decision)], into bag: inout DiagnosticBag) {
        var used: [String: Bool] = [:]  // "key\u{0}entry" → wrote
        // A grant counts as used when a decision passed the sandbox through it, even if TCC or
        // the file system then refused: the expectation needed it to get that far.
        for (_, d) in mine {
            for s in d.trace where s.layer == .sandbox && s.verdict == .defer && s.rule != .sandboxLookup {
                guard case .app(_, let f) = s.evidence, let k = f.key else { continue }
                let id = k + "\u{0}" + (App.findingEntry(key: k, entry: f.entry) ?? "")
                used[id] = (used[id] ?? false) || s.requested.intersects(AccessRights.writeRights)
            }
        }
        for g in app.wideningEntitlements {
            let id = g.key + "\u{0}" + (g.entry ?? "")
            let what = "`\(g.key)`" + (g.entry.map { " entry `\($0)`" } ?? "")
            let loc = src.entitlements[g.key] ?? src.location
            guard let wrote = used[id] else {
                bag.warning(
                    loc, code: "unused-entitlement", "\(what) of app `\(app.bundleID)` is used by no expectation",
                    help: "remove it if the app does not need it, or add an expectation that shows why it does")
                continue
            }
            if g.write && !wrote, let ro = Entitlement.counterpart(g.key) {
                bag.warning(
                    loc, code: "unused-entitlement", "\(what) of app `\(app.bundleID)` is used only for reading",
                    help: "`\(ro)` would do, unless an expectation shows the app writing there")
            }
        }
    }
}

/// Who asks, as every request of a subject carries it (`Evaluator.credential`).
public struct Credential: Sendable {
    public var subject: Subject
    public var app: Int?
}
