import FSPolicy
import FSPolicyYAML

/// The keys of a service (`services:`; docs/policy-format.md, docs/services.md).
let serviceKeys = ["unit", "user", "group", "groups", "umask", "capabilities", "ambientCapabilities", "capabilityBoundingSet", "noNewPrivileges"]

extension Compiler {
    // MARK: Services

    mutating func readServices(_ n: YNode) {
        guard let m = r.mapping(n, what: "`services`") else { return }
        var seen: Set<String> = []
        for (kn, v) in m {
            guard let name = r.string(kn, what: "a service name") else { continue }
            guard Compiler.isServiceName(name) else {
                r.diags.error(
                    kn.loc, code: "bad-name", "`\(name)` is not a service name",
                    help: "use letters, digits and `-_.@:` (e.g. `nginx` or `backup@daily`)")
                continue
            }
            if !seen.insert(name).inserted { r.diags.error(kn.loc, code: "duplicate-name", "service `\(name)` is declared twice"); continue }
            guard let f = r.mapping(v, what: "service `\(name)`") else { continue }
            let k = r.keyed(f, known: serviceKeys, context: "service `\(name)`")
            var svc = Service(name: name, uid: 0)
            // A unit file first (with no User=, systemd runs the service as root); the keys
            // written here override it.
            if let uv = k["unit"], let t = r.string(uv, what: "`unit`") {
                if !applyUnit(uv, path: t, to: &svc, name: name) { continue }
            } else if k["user"] == nil {
                r.diags.error(
                    kn.loc, code: "missing-key", "service `\(name)` has no `user`",
                    help: "add `user: <name or uid>`: the user its process runs as (or `unit:` a unit file)")
                continue
            }
            if let uv = k["user"] {
                guard let uid = readOwner(uv, what: "`user` of service `\(name)`") else { continue }
                svc.uid = uid
            }
            if let g = k["group"] { svc.gid = readGroup(g, what: "`group` of service `\(name)`") }
            if let gs = k["groups"], let list = r.stringList(gs, what: "`groups` of service `\(name)`") {
                var out: [GID] = []
                for (gname, node) in list {
                    if let g = lookupGroup(gname) ?? numericID(gname) {
                        out.append(g)
                    } else {
                        r.diags.error(
                            node.loc, code: "unknown-group", "unknown group `\(gname)` in `groups` of service `\(name)`",
                            help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
                    }
                }
                svc.supplementary = out
            }
            if let u = k["umask"] { svc.umask = readUmask(u, what: "`umask` of service `\(name)`") }
            if let x = k["noNewPrivileges"], let b = r.bool(x, what: "`noNewPrivileges`") { svc.noNewPrivileges = b }
            if let x = k["capabilityBoundingSet"], let c = readCapabilities(x, what: "`capabilityBoundingSet` of service `\(name)`") { svc.bounding = c }
            if let x = k["ambientCapabilities"], let c = readCapabilities(x, what: "`ambientCapabilities` of service `\(name)`") {
                svc.ambient = c
                let outside = c.subtracting(svc.bounding)
                if !outside.isEmpty {
                    r.diags.error(
                        x.loc, code: "bad-value",
                        "`ambientCapabilities` of service `\(name)` holds \(outside.lowerNames.joined(separator: ", ")), outside its `capabilityBoundingSet`",
                        help: "the kernel cannot raise an ambient capability the bounding set lacks: add it to `capabilityBoundingSet` or remove it")
                }
            }
            if let x = k["capabilities"], let c = readCapabilities(x, what: "`capabilities` of service `\(name)`") {
                if let a = k["ambientCapabilities"] {
                    r.diags.error(
                        a.loc, code: "conflicting-keys", "service `\(name)` gives both `capabilities` and `ambientCapabilities`",
                        help: "`capabilities` is the effective set outright; `ambientCapabilities` derives it as systemd does: keep one")
                }
                let outside = c.subtracting(svc.bounding)
                if !outside.isEmpty {
                    r.diags.error(
                        x.loc, code: "bad-value",
                        "`capabilities` of service `\(name)` holds \(outside.lowerNames.joined(separator: ", ")), outside its `capabilityBoundingSet`",
                        help: "no process holds a capability outside its bounding set: add it to `capabilityBoundingSet` or remove it")
                }
                svc.capabilities = c
            }
            if p.semantics != .linux {
                r.diags.warning(
                    kn.loc, code: "services-not-linux", "service `\(name)` is decided as its user under `\(p.semantics.rawValue)`: capabilities are Linux's",
                    help: "set `semantics: linux` (or `--semantics linux`) to decide with its capabilities")
            }
            p.world.services.append(svc)
            p.serviceLocations[name] = kn.loc
        }
    }

    /// A list of capability names (`cap_dac_read_search`, `CAP_CHOWN`), or `all`, or an empty list.
    mutating func readCapabilities(_ n: YNode, what: String) -> Capabilities? {
        guard let list = r.stringList(n, what: what, allowSingle: true) else { return nil }
        var set: Capabilities = []
        var ok = true
        for (word, node) in list {
            if word == "all" || word == "ALL" { set = set.union(.all); continue }
            guard let c = Capabilities.named(word) else {
                ok = false
                let hint =
                    nearest(word.lowercased(), in: Capabilities.names).map { "did you mean `\($0)`?" }
                    ?? "see capabilities(7) for the names, e.g. `cap_dac_read_search`"
                r.diags.error(node.loc, code: "unknown-capability", "unknown capability `\(word)` in \(what)", help: hint)
                continue
            }
            set.insert(c)
        }
        return ok ? set : nil
    }

    /// Letters, digits and `-_.@:`, 1 to 256 characters (systemd's unit-name alphabet, its `:` included).
    static func isServiceName(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= 256 else { return false }
        return s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x40 || c == 0x3A
        }
    }
}

extension SubjectRef {
    /// This subject holding exactly the capabilities `words` name (`--caps`; empty or `none`:
    /// no capability): a user becomes an ad hoc process of that user. An error for a service
    /// (its declaration says its capabilities) or an app.
    public func withCapabilities(_ words: String) -> Result<SubjectRef, RequestErrors> {
        func fail(_ m: String, _ h: String) -> Result<SubjectRef, RequestErrors> {
            .failure(RequestErrors(diagnostics: [Diagnostic(SourceLocation(file: "command line", line: 0, column: 0), code: "bad-caps", m, help: h)]))
        }
        var set: Capabilities = []
        for raw in words.split(separator: ",", omittingEmptySubsequences: true) {
            let w = String(raw).trimmingSpaces
            if w.isEmpty || w == "none" { continue }
            if w == "all" { set = set.union(.all); continue }
            guard let c = Capabilities.named(w) else {
                return fail(
                    "unknown capability `\(w)` in `--caps`",
                    "capability names as capabilities(7) writes them, comma-separated: `--caps cap_dac_read_search,cap_fowner` (`none` for no capability)")
            }
            set.insert(c)
        }
        switch self {
        case .user(let uid), .process(let uid, _): return .success(.process(uid, set))
        case .service(let n): return fail("`--caps` goes with a user, not with service `\(n)`", "a service's capabilities are those its declaration gives")
        case .app(let id): return fail("`--caps` goes with a user, not with app `\(id)`", "apps are decided under their user's credential")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
