/// TCC, macOS privacy consent for files (docs/sandbox.md, rules T0–T4). It applies to sandboxed
/// and unsandboxed apps alike: Full Disk Access first, then implied consent for picked items,
/// then the purpose string, then the user's answer for the folder's service.

/// Rights that only read an item's metadata: the protected folder itself may still be stat'ed.
let tccMetadataRights: AccessRights = [.readAttributes, .readSecurity, .readExtAttributes, .search]

extension Eval {
    /// The service protecting `path` (on node `n`'s volume) for this request, and its root.
    func tccService(_ n: NodeID, path: String, _ rights: AccessRights) -> (TCCService, String)? {
        guard let app else { return nil }
        let metadataOnly = rights.isSubset(of: tccMetadataRights)
        func gated(_ root: String) -> Bool { path == root ? !metadataOnly : App.isWithin(path, root) }
        for s in TCCService.allCases {
            guard let folder = s.homeFolder else { continue }
            // Pictures, Music and Movies are gated only when the policy names them (an assumption).
            if (s == .pictures || s == .music || s == .movies) && app.tcc[s] == nil { continue }
            let root = app.inHome(folder)
            if gated(root) { return (s, root) }
        }
        let vol = world.volumes[Int(world[n].volume)]
        if vol.kind != .internal && gated(vol.mountPath) {
            return (vol.kind == .removable ? .removableVolumes : .networkVolumes, vol.mountPath)
        }
        let containers = app.inHome("Library/Containers")
        if App.isWithin(path, containers) && path != containers {
            let id = path.dropFirst(containers.count + 1).split(separator: "/").first.map(String.init) ?? ""
            let root = containers + "/" + id
            if id != app.bundleID && gated(root) { return (.appData, root) }
        }
        return nil
    }

    /// nil when TCC lets the request through (recorded), else the EPERM denial.
    mutating func tccCheck(_ n: NodeID, path: String, _ rights: AccessRights) -> Outcome? {
        guard let app, app.platform == .macos else { return nil }
        guard let (service, root) = tccService(n, path: path, rights) else {
            step(.tcc, .tccNotProtected, .defer, n, rights, rights, .app(node: n, fact("\(path) is in no location privacy consent protects")))
            return nil
        }
        let where_ = "\(root) (\(service.label))"
        if app.fullDiskAccess {
            step(.tcc, .tccFullDiskAccess, .defer, n, rights, rights, .app(node: n, fact("Full Disk Access covers \(where_)", key: "fullDiskAccess")))
            return nil
        }
        let picked =
            app.selected.first { App.isWithin(path, App.normalize($0)) }
            ?? app.bookmarks.first { App.isWithin(path, App.normalize($0.path)) }?.path
        if let picked {
            step(
                .tcc, .tccImpliedConsent, .defer, n, rights, rights,
                .app(node: n, fact("the user picked \(picked): implied consent for \(where_)", key: service.rawValue, entry: picked)))
            return nil
        }
        let ways = ["Full Disk Access (System Settings › Privacy & Security)", "the user picking the item (implied consent)"]
        if let key = service.purposeKey, !app.hasPurposeString(key) {
            let ev = Evidence.app(
                node: n,
                fact(
                    "\(where_) needs a purpose string, and Info.plist has no `\(key)` (the real system would terminate the app; App Review rejects it)",
                    key: key, wouldAllow: ["`\(key)` in Info.plist, then the user's consent"] + ways))
            return finish(.deny(.EPERM, .tcc, .tccMissingPurposeString, n, ev), rights)
        }
        switch app.tcc[service] ?? .notDetermined {
        case .granted:
            step(.tcc, .tccGranted, .defer, n, rights, rights, .app(node: n, fact("the user allowed \(where_)", key: service.rawValue)))
            return nil
        case .denied:
            let ev = Evidence.app(
                node: n,
                fact(
                    "the user denied \(where_)", key: service.rawValue,
                    wouldAllow: ["the user allowing it (System Settings › Privacy & Security › Files and Folders)"] + ways))
            return finish(.deny(.EPERM, .tcc, .tccDenied, n, ev), rights)
        case .notDetermined:
            let ev = Evidence.app(
                node: n,
                fact(
                    "consent for \(where_) is not determined: the system would prompt, and until the user allows it the access is refused",
                    key: service.rawValue,
                    wouldAllow: ["the user allowing it when prompted (`\(service.rawValue): granted`)"] + ways))
            return finish(.deny(.EPERM, .tcc, .tccNotDetermined, n, ev), rights)
        }
    }
}
