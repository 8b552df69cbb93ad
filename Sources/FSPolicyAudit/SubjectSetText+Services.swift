extension SubjectSetText {
    /// Whether a subject's name is a service's (`service:NAME`).
    public static func isService(_ name: String) -> Bool { name.hasPrefix("service:") }

    /// `text(allowed:of:)` for a list of users and services: `everyone` and `everyone except …`
    /// are about the users alone, and the services allowed follow the phrase by name after a
    /// semicolon (`everyone except bob; service:backup`). The same as `text(allowed:of:)` when
    /// `all` holds no service.
    public static func text(allowed: [String], ofUsersAndServices all: [String]) -> String {
        guard all.contains(where: isService) else { return text(allowed: allowed, of: all) }
        let services = allowed.filter(isService)
        if let p = phrase(allowed: allowed.filter { !isService($0) }, of: all.filter { !isService($0) }) {
            return services.isEmpty ? p : p + "; " + services.joined(separator: ", ")
        }
        return allowed.isEmpty ? none : allowed.joined(separator: ", ")
    }
}
