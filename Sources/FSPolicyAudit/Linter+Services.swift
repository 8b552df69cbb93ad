// FSL026: a service whose capabilities reach what its user cannot.
import FSPolicy

extension Linter {
    /// FSL026, under linux: for each declared service whose process holds capabilities its uid
    /// would not hold (a user other than root with `AmbientCapabilities=` or `capabilities:`),
    /// the homes, the service directories and the files that hold secrets that the service may
    /// read (list) or write (create entries in) while the same process without those
    /// capabilities may not. Both are asked of the rule set through the whole path, the unit's
    /// view included, so a finding claims only what `can --as service:NAME` allows.
    static func serviceCapabilities(
        _ world: World, _ semantics: Semantics, homes: [NodeID: String], servicePatterns: [[String]], sensitive: NameMatcher,
        _ add: (LintFinding) -> Void
    ) {
        guard semantics == .linux else { return }
        var capped: [(name: String, user: String, subject: Subject, plain: Subject)] = []
        for (svc, s) in zip(world.services, world.serviceSubjects()) {
            guard s.uid != 0, !s.caps.isEmpty else { continue }
            var plain = s
            plain.caps = []
            capped.append(("service:" + svc.name, world.userName(svc.uid), s, plain))
        }
        if capped.isEmpty { return }
        // The nodes the rule looks at, in tree order.
        var targets: [(node: NodeID, path: String)] = []
        var stack: [NodeID] = [World.root]
        while let n = stack.popLast() {
            let kids = world.children(of: n)
            for c in SetEngine.sortedByName(kids, world).reversed() { stack.append(c) }
            if world.assumedNodes.contains(n) { continue }
            let node = world[n]
            if node.type == .dir {
                let p = world.path(of: n)
                if homes[n] != nil || isService(p, servicePatterns) { targets.append((n, p)) }
            } else if node.type == .file, world.contentKinds[n]?.isPublic != true, sensitive.match(world.name(of: n)) != nil {
                targets.append((n, world.path(of: n)))
            }
        }
        let asker = Authorizer(world: world, semantics: semantics, tracing: false)
        func gains(_ svc: Subject, _ plain: Subject, _ op: Operation, _ path: String) -> Bool {
            asker.decide(Request(subject: svc, op: op, path: path)).allowed && !asker.decide(Request(subject: plain, op: op, path: path)).allowed
        }
        for t in targets {
            let node = world[t.node]
            let isDir = node.type == .dir
            let entry = (t.path == "/" ? "" : t.path) + "/" + probeName(world, t.node)
            for c in capped {
                var claims: [LintClaim] = []
                var verbs: [String] = []
                if isDir {
                    if gains(c.subject, c.plain, .list, t.path) { claims.append(LintClaim(op: .list, path: t.path, who: [c.name])); verbs.append("list") }
                    if gains(c.subject, c.plain, .create, entry) {
                        claims.append(LintClaim(op: .create, path: entry, who: [c.name]))
                        verbs.append("create entries in")
                    }
                } else {
                    if gains(c.subject, c.plain, .read, t.path) { claims.append(LintClaim(op: .read, path: t.path, who: [c.name])); verbs.append("read") }
                    if gains(c.subject, c.plain, .write, t.path) { claims.append(LintClaim(op: .write, path: t.path, who: [c.name])); verbs.append("write") }
                }
                if claims.isEmpty { continue }
                let kind: String
                if let h = homes[t.node] {
                    kind = "the home directory of \(h)"
                } else if isDir {
                    kind = "a service directory of \(world.userName(node.uid))"
                } else {
                    kind = "a file that holds secrets, of \(world.userName(node.uid))"
                }
                let caps = c.subject.caps.intersection(.fileSystem).upperNames
                let capText = caps.isEmpty ? c.subject.caps.upperNames.joined(separator: ", ") : caps.joined(separator: ", ")
                let unit = String(c.name.dropFirst("service:".count))
                add(
                    LintFinding(
                        code: "FSL026", severity: .warning, node: t.node, path: t.path,
                        message:
                            "\(kind) (mode \(node.mode.octal)\(aclWord(world, t.node))): \(c.name) may \(verbs.joined(separator: " and ")) it through its capabilities (\(capText)), which its user \(c.user) may not",
                        fix: "systemctl edit \(shellQuote(unit + ".service"))  # InaccessiblePaths=\(t.path), or take \(capText) out of AmbientCapabilities=",
                        affected: [c.name], detail: c.name, claims: claims))
            }
        }
    }
}
