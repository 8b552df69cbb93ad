import FSPolicy

extension TextRenderer {
    /// `alice (uid 501; groups …)`, or for an app what it is and whom it runs as.
    public func subjectLine(_ subject: SubjectRef, semantics: Semantics = .macos) -> String {
        switch subject {
        case .user(let uid):
            return subjectLine(uid: uid, semantics: semantics)
        case .app(let id):
            guard let app = world.apps.first(where: { $0.bundleID == id }) else { return id }
            var what: String
            if semantics == .linux { what = "app, decided as its user under linux" }
            else if app.platform == .ios { what = "iOS app, sandboxed" }
            else { what = app.isSandboxed ? "macOS app, sandboxed" : "macOS app, not sandboxed" }
            return "\(id) (\(what)) running as " + subjectLine(uid: app.uid, semantics: semantics)
        }
    }
}
