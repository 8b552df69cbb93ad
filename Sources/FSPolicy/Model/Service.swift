/// A Linux service as a subject: a process with a user, groups and capabilities
/// (docs/services.md; the `services:` section). The credential it asks with is
/// `World.subject(service:)`.
public struct Service: Hashable, Sendable {
    public var name: String
    public var uid: UID
    /// The primary group, when it is not the user's (`group:`, systemd's `Group=`).
    public var gid: GID?
    /// The supplementary groups, when given (`groups:`, `SupplementaryGroups=`): they are added
    /// to the primary group; nil keeps the user's own groups.
    public var supplementary: [GID]?
    /// The effective set written outright (`capabilities:`), for a process not started by systemd.
    public var capabilities: Capabilities?
    /// `ambientCapabilities:` (`AmbientCapabilities=`): what a service running as another user
    /// than root keeps across its execve.
    public var ambient: Capabilities
    /// `capabilityBoundingSet:` (`CapabilityBoundingSet=`): the most any process of the service holds.
    public var bounding: Capabilities
    /// `noNewPrivileges:` (`NoNewPrivileges=`): execve raises nothing (C9).
    public var noNewPrivileges: Bool
    public var umask: UInt16?
    /// Options of its unit file that bear on file access and are not modelled, as written
    /// (`ProtectSystem=strict`): answers about the service name them.
    public var notModelled: [String] = []
    /// The mounts its unit's sandbox options make (`ProtectSystem=`, `ReadOnlyPaths=`, …; U1–U5).
    public var view: [ViewEntry] = []

    public init(
        name: String, uid: UID, gid: GID? = nil, supplementary: [GID]? = nil, capabilities: Capabilities? = nil,
        ambient: Capabilities = [], bounding: Capabilities = .all, noNewPrivileges: Bool = false, umask: UInt16? = nil
    ) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.supplementary = supplementary
        self.capabilities = capabilities
        self.ambient = ambient
        self.bounding = bounding
        self.noNewPrivileges = noNewPrivileges
        self.umask = umask
    }

    /// The effective set the service's main process holds (capabilities(7), "Transformation of
    /// capabilities during execve"): uid 0 gets the bounding set (a root process's file
    /// capabilities are taken as full); another uid keeps its ambient set, which cannot exceed
    /// the bounding set. `capabilities:` says it outright.
    public var effective: Capabilities {
        if let c = capabilities { return c }
        return uid == 0 ? bounding : ambient.intersection(bounding)
    }
}

extension World {
    /// The index of the service called `name` in `services`.
    public func serviceIndex(_ name: String) -> Int? { services.firstIndex { $0.name == name } }

    /// The credential a service's process runs with: its user's, with the service's groups,
    /// umask, capabilities and no-new-privileges flag, and its unit's view.
    public func subject(service i: Int) -> Subject {
        var views = ViewWorlds()
        return subject(service: i, views: &views)
    }

    /// `subject(service:)` for every service, in order, the view worlds shared (`ViewWorlds`).
    public func serviceSubjects() -> [Subject] {
        var views = ViewWorlds()
        return services.indices.map { subject(service: $0, views: &views) }
    }

    /// `subject(service:)`, its view's world taken from `views` when another service's unit made
    /// the same one; `withView: false` leaves the view out (for describing the process).
    public func subject(service i: Int, views: inout ViewWorlds, withView: Bool = true) -> Subject {
        let svc = services[i]
        var s = subject(uid: svc.uid)
        if svc.gid != nil || svc.supplementary != nil {
            let gid = svc.gid ?? s.gid
            let supp = svc.supplementary ?? s.groups.filter { !s.nestedOnly.contains($0) && $0 != s.gid }
            s = Subject(uid: svc.uid, gid: gid, groups: supp, umask: s.umask)
        }
        if let m = svc.umask { s.umask = m }
        s.caps = svc.effective
        s.noNewPrivileges = svc.noNewPrivileges
        if withView && !svc.view.isEmpty { s.view = MountView(svc.view, over: self, shared: &views) }
        return s
    }

    /// The credential of an ad hoc process of `uid` holding exactly `caps` (`--caps`).
    public func subject(uid: UID, caps: Capabilities) -> Subject {
        var s = subject(uid: uid)
        s.caps = caps
        return s
    }
}
