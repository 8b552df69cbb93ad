import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// A program through which users are allowed what they are refused as themselves.
public struct ProgramAccess: Sendable {
    public var path: String
    /// What executing it gives (`cap_dac_read_search=ep`, `set-user-ID root`).
    public var gives: [String]
    /// The declared users (and services) who may execute it and, running it, are allowed the request.
    public var users: [String]
}

extension Evaluator {
    /// Under linux, the programs (set-user-ID, set-group-ID, file capabilities) that let a
    /// declared user or service do `spec` while it is refused as itself: each with the users who
    /// may execute it and then pass (C9). What the program actually does is its code's business:
    /// this says what the kernel would let it do.
    public func whoThroughPrograms(_ spec: RequestSpec, after: Int? = nil) -> [ProgramAccess] {
        guard semantics == .linux else { return [] }
        let w = world(after: after)
        let programs = w.privilegedPrograms
        guard !programs.isEmpty else { return [] }
        let auth = authorizer(after: after, tracing: false)
        // Users, then services, with the bounding and ambient sets their process holds.
        var askers: [(name: String, subject: Subject, bounding: Capabilities, ambient: Capabilities)] = []
        for name in policy.userOrder {
            guard let u = w.user(named: name) else { continue }
            askers.append((name, w.subject(uid: u.uid), .all, []))
        }
        for (svc, s) in zip(w.services, w.serviceSubjects()) {
            askers.append(("service:" + svc.name, s, svc.bounding, svc.uid == 0 ? [] : svc.ambient.intersection(svc.bounding)))
        }
        var out: [ProgramAccess] = []
        for p in programs {
            let path = w.path(of: p)
            var allowed: [String] = []
            var gives: [String] = []
            for a in askers {
                var direct = Evaluator.makeRequest(spec, subject: a.subject)
                if auth.decide(inPlace: &direct).allowed { continue }
                var run = Evaluator.makeRequest(RequestSpec(op: .execute, path: path), subject: a.subject)
                guard auth.decide(inPlace: &run).allowed else { continue }
                let x = w.execOutcome(a.subject, program: p, bounding: a.bounding, ambient: a.ambient)
                guard !x.fails, !x.gives.isEmpty else { continue }
                var through = Evaluator.makeRequest(spec, subject: x.subject)
                if auth.decide(inPlace: &through).allowed {
                    allowed.append(a.name)
                    if gives.isEmpty { gives = x.gives }
                }
            }
            if !allowed.isEmpty { out.append(ProgramAccess(path: path, gives: gives, users: allowed)) }
        }
        return out
    }
}
