import FSPolicy

/// The outcome of one expectation.
public struct ExpectationOutcome: Sendable {
    public var expectation: Expectation
    public var passed: Bool
    /// The decision (for `as` expectations).
    public var decision: Decision?
    /// For `allowed` expectations: who is actually allowed, and the differences.
    public var actualAllowed: [String]?
    public var unexpectedlyAllowed: [String] = []
    public var unexpectedlyDenied: [String] = []
    /// One line per mismatch, e.g. "result: expected deny, got allow".
    public var mismatches: [String] = []
}

public struct FileReport: Sendable {
    public var policy: Policy
    public var outcomes: [ExpectationOutcome]
    public init(policy: Policy, outcomes: [ExpectationOutcome]) {
        self.policy = policy
        self.outcomes = outcomes
    }
    public var passed: Int { outcomes.filter(\.passed).count }
    public var failed: Int { outcomes.count - passed }
}

/// Everything needed to ask questions of one loaded policy.
public struct Evaluator: Sendable {
    public let policy: Policy
    public let authorizer: Authorizer

    public init(policy: Policy, semantics: Semantics? = nil, tracing: Bool = true) {
        self.policy = policy
        self.authorizer = Authorizer(world: policy.world, semantics: semantics ?? policy.semantics, tracing: tracing)
    }

    public func request(_ spec: RequestSpec, uid: UID) -> Request {
        Request(subject: policy.world.subject(uid: uid), op: spec.op, path: spec.path, to: spec.to, mode: spec.mode,
                owner: spec.owner, group: spec.group, flags: spec.flags, acl: spec.acl)
    }

    public func decide(_ spec: RequestSpec, uid: UID) -> Decision {
        authorizer.decide(request(spec, uid: uid))
    }

    /// Every declared user (root included), in declaration order, with their decision.
    public func who(_ spec: RequestSpec) -> [(name: String, uid: UID, decision: Decision)] {
        policy.userOrder.compactMap { name in
            guard let u = policy.world.user(named: name) else { return nil }
            return (name, u.uid, decide(spec, uid: u.uid))
        }
    }

    public func check(_ e: Expectation) -> ExpectationOutcome {
        var out = ExpectationOutcome(expectation: e, passed: true)
        if let allowed = e.allowed {
            let actual = who(e.request).filter { $0.decision.allowed }.map(\.name)
            out.actualAllowed = actual
            out.unexpectedlyAllowed = actual.filter { !allowed.contains($0) }
            out.unexpectedlyDenied = allowed.filter { !actual.contains($0) }
            if !out.unexpectedlyAllowed.isEmpty { out.mismatches.append("also allowed: " + out.unexpectedlyAllowed.joined(separator: ", ")) }
            if !out.unexpectedlyDenied.isEmpty { out.mismatches.append("not allowed: " + out.unexpectedlyDenied.joined(separator: ", ")) }
            out.passed = out.mismatches.isEmpty
            return out
        }
        guard case .user(let uid)? = e.subject else {
            out.passed = false
            out.mismatches.append("apps cannot be evaluated yet")
            return out
        }
        let d = decide(e.request, uid: uid)
        out.decision = d
        if let want = e.result, want != d.allowed {
            out.mismatches.append("result: expected \(want ? "allow" : "deny"), got \(d.allowed ? "allow" : "deny")")
        }
        if let want = e.errno, want != d.errno {
            out.mismatches.append("errno: expected \(want.rawValue), got \(d.errno?.rawValue ?? "none")")
        }
        if let want = e.layer, want != d.layer {
            out.mismatches.append("layer: expected \(want.rawValue), got \(d.layer.rawValue)")
        }
        out.passed = out.mismatches.isEmpty
        return out
    }

    public func checkAll() -> FileReport {
        FileReport(policy: policy, outcomes: policy.expectations.map(check))
    }
}
