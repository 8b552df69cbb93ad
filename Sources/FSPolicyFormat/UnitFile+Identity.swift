import FSPolicy

/// `User=`, `Group=` and `DynamicUser=` of a unit file (docs/services.md).
extension Compiler {
    /// The uids systemd allocates dynamic users from (61184–65519).
    static let dynamicUIDs: ClosedRange<UID> = 61184...65519

    /// Sets the service's user and group. With `DynamicUser=yes`, a name that is no user (or
    /// group) of the policy gets a uid (gid) of systemd's dynamic range that none has, the user's
    /// name defaulting to the unit's, and the sandbox systemd forces on such a service is added:
    /// `ProtectSystem=strict`, `PrivateTmp=yes`, `ProtectHome=read-only` unless the unit says
    /// otherwise, and `NoNewPrivileges=yes` (systemd's unit_patch_contexts). Its
    /// `RestrictSUIDSGID=yes` is not modelled, and named.
    mutating func applyIdentity(
        user: UnitFile.Assignment?, group: UnitFile.Assignment?, dynamic: UnitFile.Assignment?, to svc: inout Service, name: String,
        lists: inout [String: [ViewEntry]]
    ) {
        var dynamicID: UID? = nil
        if let u = user {
            if let uid = lookupUser(u.value) ?? numericID(u.value) {
                svc.uid = uid
            } else if dynamic != nil {
                dynamicID = freeDynamicID()
            } else {
                r.diags.error(
                    u.location, code: "unknown-user", "unknown user `\(u.value)` in User= of service `\(name)`",
                    help: hintName(u.value, in: Array(userNames.keys), kind: "user"))
            }
        } else if dynamic != nil {
            // The user is named after the unit; a user of that name is used as it is.
            if let uid = lookupUser(name) { svc.uid = uid } else { dynamicID = freeDynamicID() }
        }
        if let id = dynamicID {
            svc.uid = id
            svc.gid = id
            if svc.supplementary == nil { svc.supplementary = [] }
        }
        if let g = group {
            if let gid = lookupGroup(g.value) ?? numericID(g.value) {
                svc.gid = gid
            } else if let id = dynamicID {
                svc.gid = id
            } else {
                r.diags.error(
                    g.location, code: "unknown-group", "unknown group `\(g.value)` in Group= of service `\(name)`",
                    help: hintName(g.value, in: Array(groupNames.keys), kind: "group"))
            }
        }
        guard let d = dynamic else { return }
        let place = "\(d.location.file):\(d.location.line)"
        let option = "DynamicUser=\(d.value)"
        lists["ProtectSystem"] = Compiler.protectSystem["strict"]!.map { ViewEntry(path: $0.0, mode: $0.1, option: option, place: place) }
        lists["PrivateTmp"] = ["/tmp", "/var/tmp"].map { ViewEntry(path: $0, mode: .privateTmp, option: option, place: place, nodeMode: FileMode(0o1777)) }
        if (lists["ProtectHome"] ?? []).isEmpty {
            lists["ProtectHome"] = Compiler.homes.map { ViewEntry(path: $0.0, mode: .readOnly, option: option, place: place) }
        }
        svc.noNewPrivileges = true
        // Its seccomp filter refuses making set-user-ID and set-group-ID files (chmod, create).
        svc.notModelled.append("RestrictSUIDSGID=yes (implied by \(option))")
    }

    /// The first uid of systemd's dynamic range that is no user's or group's id in the policy.
    func freeDynamicID() -> UID {
        let taken = Set(userNames.values).union(groupNames.values)
        return Compiler.dynamicUIDs.first { !taken.contains($0) } ?? Compiler.dynamicUIDs.lowerBound
    }
}
