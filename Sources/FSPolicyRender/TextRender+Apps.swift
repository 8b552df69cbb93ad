import FSPolicy
import FSPolicyFormat

extension TextRenderer {
    /// `alice (uid 501; groups …)`, or for an app what it is and whom it runs as.
    public func subjectLine(_ subject: SubjectRef, semantics: Semantics = .macos) -> String {
        switch subject {
        case .user(let uid):
            return subjectLine(uid: uid, semantics: semantics)
        case .app(let id):
            guard let app = world.apps.first(where: { $0.bundleID == id }) else { return id }
            var what: String
            if semantics == .linux {
                what = "app, decided as its user under linux"
            } else if app.platform == .ios {
                what = "iOS app, sandboxed"
            } else {
                what = app.isSandboxed ? "macOS app, sandboxed" : "macOS app, not sandboxed"
            }
            return "\(id) (\(what)) running as " + subjectLine(uid: app.uid, semantics: semantics)
        case .service(let name):
            guard let i = world.serviceIndex(name) else { return "service:" + name }
            // The process as it starts; its view is not described here (no copy of the tree is made).
            var views = ViewWorlds()
            let s = world.subject(service: i, views: &views, withView: false)
            var line = "service:\(name) (" + processWords(s, semantics: semantics) + ") running as " + subjectLine(s)
            let skipped = world.services[i].notModelled
            if !skipped.isEmpty { line += "; not modelled, so not accounted for: " + skipped.joined(separator: ", ") }
            return line
        case .process(let uid, let caps):
            let s = world.subject(uid: uid, caps: caps)
            return "a process (" + processWords(s, semantics: semantics) + ") running as " + subjectLine(uid: uid, semantics: semantics)
        }
    }

    /// "capabilities CAP_DAC_READ_SEARCH; no-new-privileges", or what the rule set makes of them.
    func processWords(_ s: Subject, semantics: Semantics) -> String {
        var parts: [String] = []
        parts.append(s.caps.isEmpty ? "no capabilities" : s.caps == .all ? "all capabilities" : "capabilities " + s.caps.upperNames.joined(separator: ", "))
        if s.noNewPrivileges { parts.append("no-new-privileges") }
        var text = parts.joined(separator: "; ")
        if semantics != .linux { text += "; decided as its user under \(semantics.rawValue)" }
        return text
    }

    /// `name (uid N; groups …)` for a service's own groups.
    func subjectLine(_ s: Subject) -> String {
        let groups = s.groups.map { world.groupName($0) }.joined(separator: ", ")
        return "\(world.userName(s.uid)) (uid \(s.uid); groups \(groups))"
    }
}
