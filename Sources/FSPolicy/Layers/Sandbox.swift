/// The App Sandbox (docs/sandbox.md, rules S0–S10). Subtractive: where it lets a request
/// through, the file-system layers still decide; where it refuses, the answer is EPERM in layer
/// `sandbox`, naming what would have allowed it.

/// Somewhere the sandbox lets an app reach, and why.
struct SandboxGrant: Sendable {
    /// Absolute, normalized.
    var path: String
    /// The path and everything below it; false for a temporary-exception entry without a
    /// trailing `/` (that item only).
    var subtree: Bool
    var write: Bool
    var rule: RuleID
    /// The entitlement it comes from, and the entry of an array-valued one.
    var key: String?
    var entry: String?
    var text: String

    func covers(_ p: String) -> Bool { subtree ? App.isWithin(p, path) : p == path }
    /// `p` is a directory on the way to this grant.
    func leadsThrough(_ p: String) -> Bool { p != path && App.isWithin(path, p) }
}

extension App {
    /// Everything the sandbox lets this app reach, most specific first (the first grant that
    /// covers an item and allows the access is the one reported).
    func sandboxGrants() -> [SandboxGrant] {
        var g: [SandboxGrant] = []
        let q = { (s: String) in "`" + s + "`" }
        switch platform {
        case .macos:
            g.append(
                SandboxGrant(
                    path: container, subtree: true, write: true, rule: .sandboxContainer,
                    text: "inside the app's container \(container)"))
        case .ios:
            for sub in ["Documents", "Library", "tmp"] {
                let p = App.join(container, sub)
                g.append(
                    SandboxGrant(
                        path: p, subtree: true, write: true, rule: .sandboxContainer,
                        text: "inside the app's \(sub) folder \(p)"))
            }
            g.append(
                SandboxGrant(
                    path: container, subtree: true, write: false, rule: .sandboxContainer,
                    text: "inside the app's data container \(container) (writable only in Documents, Library and tmp)"))
            g.append(
                SandboxGrant(
                    path: bundle, subtree: true, write: false, rule: .sandboxContainer,
                    text: "inside the app's bundle \(bundle) (read-only)"))
        }
        for id in strings(Entitlement.applicationGroups) {
            let p = App.join(groupContainers, id)
            g.append(
                SandboxGrant(
                    path: p, subtree: true, write: true, rule: .sandboxAppGroup, key: Entitlement.applicationGroups,
                    entry: id, text: "inside the container of app group \(q(id)) (\(p))"))
        }
        for id in strings(Entitlement.ubiquityContainers) {
            let p = ubiquityPath(id)
            g.append(
                SandboxGrant(
                    path: p, subtree: true, write: true, rule: .sandboxUbiquity, key: Entitlement.ubiquityContainers,
                    entry: id, text: "inside the iCloud container \(q(id)) (\(p))"))
        }
        // Items the user picked: on macOS as the user-selected entitlement allows; on iOS the
        // document picker needs no entitlement.
        let selectedKey: String? =
            platform == .ios
            ? nil
            : flag(Entitlement.userSelectedReadWrite)
                ? Entitlement.userSelectedReadWrite
                : flag(Entitlement.userSelectedReadOnly) ? Entitlement.userSelectedReadOnly : nil
        if platform == .ios || selectedKey != nil {
            let write = platform == .ios || selectedKey == Entitlement.userSelectedReadWrite
            for s in selected {
                g.append(
                    SandboxGrant(
                        path: App.normalize(s), subtree: true, write: write, rule: .sandboxUserSelected, key: selectedKey,
                        entry: s, text: "picked by the user (\(s))" + (write ? "" : ", read-only")))
            }
        }
        for b in bookmarks where b.isAccessing && (platform == .ios || flag(b.scope.entitlement)) {
            g.append(
                SandboxGrant(
                    path: App.normalize(b.path), subtree: true, write: !b.readOnly, rule: .sandboxBookmark,
                    key: platform == .ios ? nil : b.scope.entitlement, entry: b.path,
                    text:
                        "\(b.readOnly ? "a read-only" : "a") \(b.scope.rawValue)-scoped bookmark to \(b.path), being accessed (started \(b.started), stopped \(b.stopped))"
                        + (b.stale ? "; the bookmark is stale" : "")))
        }
        if platform == .macos {
            for (folder, ro, rw) in Entitlement.standardFolders {
                let key = flag(rw) ? rw : flag(ro) ? ro : nil
                guard let key else { continue }
                let p = inHome(folder)
                g.append(
                    SandboxGrant(
                        path: p, subtree: true, write: key == rw, rule: .sandboxStandardFolder, key: key,
                        text: "in \(p), given by \(q(key))"))
            }
            for key in [
                Entitlement.absolutePathReadWrite, Entitlement.homeRelativeReadWrite,
                Entitlement.absolutePathReadOnly, Entitlement.homeRelativeReadOnly
            ] {
                let relative = key == Entitlement.homeRelativeReadWrite || key == Entitlement.homeRelativeReadOnly
                for entry in strings(key) where !entry.isEmpty {
                    let p = relative ? App.join(home, entry) : App.normalize(entry)
                    let dir = entry.hasSuffix("/")
                    g.append(
                        SandboxGrant(
                            path: p, subtree: dir, write: key.hasSuffix(".read-write"), rule: .sandboxTemporaryException,
                            key: key, entry: entry,
                            text: "temporary exception \(q(entry)) of \(q(key))" + (dir ? "" : " (that item only: no trailing `/`)")))
                }
            }
        }
        for s in systemReadable {
            let p = App.normalize(s)
            g.append(
                SandboxGrant(
                    path: p, subtree: true, write: false, rule: .sandboxSystemLocation,
                    text: "in \(p), a system location every sandboxed app may read"))
        }
        return g
    }
}

/// Rights the sandbox counts as writing (XNU's write rights); everything else reads.
let sandboxWriteRights: AccessRights = AccessRights.writeRights
/// Rights that only look at an item's metadata (`stat`, lookups).
let sandboxMetadataRights: AccessRights = [.readAttributes, .readSecurity, .search]

extension Eval {
    var appGrants: [SandboxGrant] {
        mutating get {
            if let g = grantCache { return g }
            let g = app?.sandboxGrants() ?? []
            grantCache = g
            return g
        }
    }

    func fact(_ text: String, key: String? = nil, entry: String? = nil, wouldAllow: [String] = []) -> AppFact {
        AppFact(app: app?.bundleID ?? "", text: text, key: key, entry: entry, wouldAllow: wouldAllow)
    }

    /// The sandbox in front of one node: nil when it lets the request through (recorded as a
    /// `defer` step), else the EPERM denial.
    mutating func sandboxCheck(_ n: NodeID, path: String, _ rights: AccessRights) -> Outcome? {
        guard let app else { return nil }
        guard app.isSandboxed else {
            if !notedUnsandboxed {
                notedUnsandboxed = true
                step(
                    .sandbox, .sandboxNotSandboxed, .note, n, rights, rights,
                    .app(node: n, fact("\(app.bundleID) is not sandboxed (no `\(Entitlement.appSandbox): true`)", key: Entitlement.appSandbox)))
            }
            return nil
        }
        let write = rights.intersects(sandboxWriteRights)
        var readOnlyHit: SandboxGrant? = nil
        for g in appGrants where g.covers(path) {
            if g.write || !write {
                step(.sandbox, g.rule, .defer, n, rights, rights, .app(node: n, fact(g.text, key: g.key, entry: g.entry)))
                return nil
            }
            if readOnlyHit == nil { readOnlyHit = g }
        }
        // A directory on the way to something reachable may be stat'ed (not listed), as lookups pass it.
        if rights.isSubset(of: sandboxMetadataRights), let g = appGrants.first(where: { $0.leadsThrough(path) }) {
            step(.sandbox, .sandboxLookup, .defer, n, rights, rights, .app(node: n, fact("leads to \(g.path)", key: g.key, entry: g.entry)))
            return nil
        }
        if let g = readOnlyHit {
            var would: [String] = []
            if let k = g.key, k.hasSuffix(".read-only"), let rw = Entitlement.counterpart(k) {
                would.append(g.rule == .sandboxTemporaryException ? "the entry \(g.entry.map { "`\($0)`" } ?? "") under `\(rw)`" : "`\(rw)`")
            } else if g.rule == .sandboxBookmark {
                would.append("a bookmark created without the read-only option")
            }
            would += genericWays(path, write: true)
            let ev = Evidence.app(node: n, fact("\(path) is reachable only read-only: \(g.text)", key: g.key, entry: g.entry, wouldAllow: would))
            return finish(.deny(.EPERM, .sandbox, .sandboxReadOnly, n, ev), rights)
        }
        let (rule, ev) = sandboxDenial(n, path: path, write: write, lookup: false)
        return finish(.deny(.EPERM, .sandbox, rule, n, ev), rights)
    }

    /// Path lookup: may the app look a name up in directory `dir`? (macos: after the DAC search
    /// check; guide: before it.)
    mutating func sandboxLookup(_ dir: NodeID) -> Outcome? {
        guard let app, app.isSandboxed else { return nil }
        let path = world.path(of: dir)
        for g in appGrants where g.covers(path) || g.leadsThrough(path) {
            let how = g.covers(path) ? g.text : "leads to \(g.path)"
            step(.sandbox, .sandboxLookup, .defer, dir, .search, .search, .app(node: dir, fact(how, key: g.key, entry: g.entry)))
            return nil
        }
        var (rule, ev) = sandboxDenial(dir, path: lookupTarget.map(App.normalize) ?? path, write: requestWrites, lookup: true)
        if rule == .sandboxOutside { rule = .sandboxLookupDenied }
        step(.sandbox, rule, .deny, dir, .search, .search, ev)
        return Outcome.deny(.EPERM, .sandbox, rule, dir, ev)
    }

    /// Why nothing reaches `path`, most specific reason first, with the ways to allow it. For a
    /// lookup, `path` is the item being looked up (not the directory `n` that was refused).
    func sandboxDenial(_ n: NodeID, path: String, write: Bool, lookup: Bool) -> (RuleID, Evidence) {
        let app = self.app!
        let rw = write ? "read-write" : "read-only"
        if app.platform == .macos {
            for b in app.bookmarks where App.isWithin(path, App.normalize(b.path)) && !app.flag(b.scope.entitlement) {
                return (
                    .sandboxBookmarkNeedsEntitlement,
                    .app(
                        node: n,
                        fact(
                            "the \(b.scope.rawValue)-scoped bookmark to \(b.path) gives nothing without `\(b.scope.entitlement)`",
                            key: b.scope.entitlement, entry: b.path, wouldAllow: ["`\(b.scope.entitlement)`"]))
                )
            }
        }
        for b in app.bookmarks where App.isWithin(path, App.normalize(b.path)) && !b.isAccessing {
            return (
                .sandboxBookmarkNotStarted,
                .app(
                    node: n,
                    fact(
                        "the bookmark to \(b.path) is not being accessed (started \(b.started), stopped \(b.stopped))",
                        key: app.platform == .ios ? nil : b.scope.entitlement, entry: b.path,
                        wouldAllow: ["`startAccessingSecurityScopedResource()` on the bookmark (access lasts while the starts outnumber the stops)"]))
            )
        }
        if app.platform == .macos, let s = app.selected.first(where: { App.isWithin(path, App.normalize($0)) }) {
            let key = write ? Entitlement.userSelectedReadWrite : Entitlement.userSelectedReadOnly
            return (
                .sandboxSelectedNeedsEntitlement,
                .app(
                    node: n,
                    fact(
                        "the user picked \(s), but the app has no user-selected entitlement", entry: s,
                        wouldAllow: ["`\(key)`"]))
            )
        }
        let mobile = app.platform == .ios ? "/var/mobile/Library/Mobile Documents" : app.inHome("Library/Mobile Documents")
        if App.isWithin(path, mobile) && path != mobile {
            let folder = path.dropFirst(mobile.count + 1).split(separator: "/").first.map(String.init) ?? ""
            let id = App.ubiquityID(folder: folder)
            return (
                .sandboxUbiquityNotListed,
                .app(
                    node: n,
                    fact(
                        "the iCloud container `\(id)` is not listed in `\(Entitlement.ubiquityContainers)`",
                        key: Entitlement.ubiquityContainers, entry: id,
                        wouldAllow: ["`\(Entitlement.ubiquityContainers)` listing `\(id)`"]))
            )
        }
        let what = lookup ? "\(world.path(of: n)), on the way to \(path)," : path
        return (
            .sandboxOutside,
            .app(
                node: n,
                fact(
                    "\(what) is outside the sandbox of \(app.bundleID)" + (lookup ? "" : " (\(rw) access asked)"),
                    wouldAllow: genericWays(path, write: write)))
        )
    }

    /// The usual ways an item becomes reachable, most specific first.
    func genericWays(_ path: String, write: Bool) -> [String] {
        let app = self.app!
        var out: [String] = []
        let suffix = write ? ".read-write" : ".read-only"
        if app.platform == .ios {
            out.append("the user picking \(path) in a document picker")
            return out
        }
        for (folder, ro, rwKey) in Entitlement.standardFolders where App.isWithin(path, app.inHome(folder)) {
            out.append("`\(write ? rwKey : ro)`")
        }
        let groups = app.groupContainers
        if App.isWithin(path, groups) && path != groups {
            let id = path.dropFirst(groups.count + 1).split(separator: "/").first.map(String.init) ?? ""
            out.append("`\(Entitlement.applicationGroups)` listing `\(id)`")
        }
        out.append("the user picking \(path) in an Open or Save panel (with `com.apple.security.files.user-selected\(suffix)`)")
        out.append("a started security-scoped bookmark to it (with `\(Entitlement.bookmarksAppScope)`)")
        let isDir = world.lookup(path).map { world[$0].isDir } ?? false
        if App.isWithin(path, app.home) && path != app.home {
            let rel = String(path.dropFirst(app.home == "/" ? 0 : app.home.count)) + (isDir ? "/" : "")
            out.append("the temporary exception `\(rel)` under `com.apple.security.temporary-exception.files.home-relative-path\(suffix)`")
        } else {
            out.append(
                "the temporary exception `\(path == "/" ? "/" : path + (isDir ? "/" : ""))` under `com.apple.security.temporary-exception.files.absolute-path\(suffix)`"
            )
        }
        return out
    }
}

extension App {
    /// Each entitlement (and entry of an array-valued one) that widens this app's sandbox, with
    /// whether it allows writing: what findings compare with what the expectations use. Keys
    /// whose grants depend on items (user-selected, bookmarks) count once, without an entry.
    public var wideningEntitlements: [(key: String, entry: String?, write: Bool)] {
        guard isSandboxed, platform == .macos else { return [] }
        var out: [(key: String, entry: String?, write: Bool)] = []
        func add(_ key: String, _ entry: String?, _ write: Bool) {
            if !out.contains(where: { $0.key == key && $0.entry == entry }) { out.append((key, entry, write)) }
        }
        for key in [
            Entitlement.userSelectedReadWrite, Entitlement.userSelectedReadOnly, Entitlement.bookmarksAppScope,
            Entitlement.bookmarksDocumentScope
        ] where flag(key) {
            add(key, nil, key == Entitlement.userSelectedReadWrite)
        }
        for (_, ro, rw) in Entitlement.standardFolders {
            if flag(rw) { add(rw, nil, true) } else if flag(ro) { add(ro, nil, false) }
        }
        for key in [Entitlement.applicationGroups, Entitlement.ubiquityContainers] {
            for e in strings(key) { add(key, e, true) }
        }
        for key in [Entitlement.absolutePathReadWrite, Entitlement.homeRelativeReadWrite, Entitlement.absolutePathReadOnly, Entitlement.homeRelativeReadOnly] {
            for e in strings(key) { add(key, e, key.hasSuffix(".read-write")) }
        }
        return out
    }

    /// The entry a finding names for a grant's key (array-valued keys keep theirs).
    public static func findingEntry(key: String, entry: String?) -> String? {
        let perEntry = [Entitlement.applicationGroups, Entitlement.ubiquityContainers] + Entitlement.stringOrArray
        return perEntry.contains(key) ? entry : nil
    }
}

extension Operation {
    /// Whether the operation changes anything (what a sandbox denial during lookup suggests).
    var writes: Bool {
        switch self {
        case .read, .list, .search, .stat, .readattr, .readextattr, .readsecurity, .execute: false
        case .rights(let r, _): r.intersects(AccessRights.writeRights)
        default: true
        }
    }
}
