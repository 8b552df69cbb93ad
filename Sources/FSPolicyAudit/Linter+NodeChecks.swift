// Lint checks on one node: its macOS ACL (FSL006–FSL009), dead grants, unknown ACL ids (FSL010).
import FSPolicy

extension Linter {
    /// FSL006–FSL009 on one node's own ACL.
    static func macACL(
        _ world: World, _ n: NodeID, _ path: String, _ acl: ACL,
        _ list: [(name: String, subject: Subject)], _ authorizer: () -> Authorizer, _ add: (LintFinding) -> Void
    ) {
        let node = world[n]
        let isDir = node.type == .dir
        let q = shellQuote(path)
        func text(_ e: ACE) -> String { world.aceText(e, forDirectory: isDir) }
        // FSL006: the first entry out of canonical order.
        var rankMax = 0, rankAt = 0
        for (i, e) in acl.entries.enumerated() {
            let r = e.isInherited ? 2 : (e.kind == .deny ? 0 : 1)
            if r < rankMax {
                let before = acl.entries[rankAt]
                let what = e.kind == .deny && !e.isInherited ? "the deny" : "the explicit entry"
                add(
                    LintFinding(
                        code: "FSL006", severity: .warning, node: n, path: path,
                        message:
                            "ACE \(i) `\(text(e))` comes after ACE \(rankAt) `\(text(before))`: macOS evaluates entries in stored order, so \(what) does not decide what the earlier entry already decided (canonical order: explicit deny, explicit allow, inherited)",
                        fix: "chmod -a# \(i) \(q) && chmod +a# \(rankAt) \(shellQuote(text(e))) \(q)", affected: [], detail: text(e)))
                break
            }
            if r > rankMax { rankMax = r; rankAt = i }
        }
        for (i, e) in acl.entries.enumerated() {
            let inherit = e.flags.intersection(.inheritControl)
            if !isDir, !inherit.isEmpty {
                var plain = e
                plain.flags.subtract(.inheritControl)
                let words = ACEFlags.words.filter { inherit.contains($0.1) }.map(\.0).joined(separator: ",")
                add(
                    LintFinding(
                        code: "FSL007", severity: .warning, node: n, path: path,
                        message: "ACE \(i) `\(text(e))` of this \(kindWord(node.type)) has inheritance flags (\(words)), which only a directory uses"
                            + (e.flags.contains(.onlyInherit) ? "; only_inherit makes the entry ignored here" : ""),
                        fix: "chmod =a# \(i) \(shellQuote(text(plain))) \(q)", affected: [], detail: text(e)))
            }
            if isDir, e.flags.contains(.onlyInherit), !e.flags.contains(.fileInherit), !e.flags.contains(.directoryInherit) {
                add(
                    LintFinding(
                        code: "FSL008", severity: .warning, node: n, path: path,
                        message:
                            "ACE \(i) `\(text(e))` is only_inherit but neither file_inherit nor directory_inherit: it applies neither to this directory nor to anything created in it",
                        fix: "chmod -a# \(i) \(q) (or add file_inherit,directory_inherit)", affected: [], detail: text(e)))
            }
        }
        // FSL009: an allow for everyone of a right to change or delete, that the rule set lets
        // any user use (an earlier deny, or a directory nobody may search, takes it back).
        let changing: [(AccessRights, String)] =
            isDir
            ? [
                (.addFile, "add_file"), (.addSubdirectory, "add_subdirectory"), (.deleteChild, "delete_child"), (.delete, "delete"),
                (.writeSecurity, "writesecurity"), (.takeOwnership, "chown")
            ]
            : [(.writeData, "write"), (.appendData, "append"), (.delete, "delete"), (.writeSecurity, "writesecurity"), (.takeOwnership, "chown")]
        guard let anyone = list.last?.subject else { return }
        for (i, e) in acl.entries.enumerated() where e.kind == .allow && e.subject == .everyone && !e.flags.contains(.onlyInherit) {
            let granted = changing.filter { e.rights.contains($0.0) }
            if granted.isEmpty { continue }
            let auth = authorizer()
            let usable = granted.filter { auth.decide(Request(subject: anyone, op: .rights($0.0, word: $0.1), path: path)).allowed }
            if usable.isEmpty { continue }
            add(
                LintFinding(
                    code: "FSL009", severity: .error, node: n, path: path,
                    message:
                        "ACE \(i) `\(text(e))` gives every user \(usable.map(\.1).joined(separator: ", ")) on this \(kindWord(node.type)), whatever its mode (\(node.mode.octal)) says",
                    fix: "chmod -a# \(i) \(q)", affected: [], detail: text(e)))
        }
    }

    /// FSL019: explicit grants nobody can use (DeadGrants).
    static func deadGrants(_ world: World, _ semantics: Semantics, _ n: NodeID, _ path: String, cache: DeadGrants.Cache, _ add: (LintFinding) -> Void) {
        let dead = DeadGrants.find(world, semantics, n, kind: .acl, cache: cache)
        if dead.isEmpty { return }
        let node = world[n]
        let q = shellQuote(path)
        for v in dead {
            var what = "", why = "", fix = ""
            switch v.grant {
            case .ace(let i):
                let e = world.acl(of: n)!.entries[i]
                what = "ACE \(i) `\(world.aceText(e, forDirectory: node.type == .dir))`"
                why = aceReason(v, kindWord(node.type))
                fix = "chmod -a# \(i) \(q)"
            case .modeClass: continue
            case .posixUser(let u), .posixGroup(let u):
                let isUser: Bool = {
                    if case .posixUser = v.grant { return true }; return false
                }()
                let p = world.posixACL(of: n)!
                let perms = (isUser ? p.users : p.groups).first { $0.id == u }!.perms
                let name = isUser ? world.userName(u) : world.groupName(u)
                what = "the entry `\(isUser ? "user" : "group"):\(name):\(perms.text)`"
                let mask = p.mask ?? p.groupObj
                if !v.blockedAbove && (mask.intersection(perms).isEmpty || node.mode.group.isEmpty) {
                    why = "the mask (\(mask.text)) removes every right it grants"
                    fix = "setfacl -m m::\(mask.union(perms).text) \(q) (or setfacl -x \(isUser ? "u" : "g"):\(name) \(q))"
                } else {
                    why =
                        !v.blockedAbove
                        ? "every subject it applies to is decided by another entry"
                        : v.reachedByGrantee
                            ? "every subject it applies to that may reach this \(kindWord(node.type)) is decided by another entry; a directory above refuses search to the others"
                            : "nobody it applies to may reach this \(kindWord(node.type)) (a directory above refuses them search)"
                    fix = "setfacl -x \(isUser ? "u" : "g"):\(name) \(q)"
                }
            }
            add(
                LintFinding(
                    code: "FSL019", severity: .note, node: n, path: path,
                    message: "\(what) grants nothing anyone can use: \(why)", fix: fix, affected: [], detail: what))
        }
    }

    /// Why a dead ACE is dead, as the decisions bear it out: cut off above only when nobody it
    /// applies to reaches the node; otherwise what decides first for those who do.
    static func aceReason(_ v: DeadGrants.Verdict, _ kind: String) -> String {
        if !v.reachedByGrantee { return "nobody it applies to may reach this \(kind) (a directory above refuses them search)" }
        let first: String
        switch v.earlierEntries {
        case .all: first = "an earlier entry already decides each of its rights"
        case .some: first = "each of its rights is decided first, by an earlier entry or before the ACL is read"
        case .none: first = "each of its rights is decided before the ACL is read"
        }
        if !v.blockedAbove { return "for every subject it applies to, \(first)" }
        return "for every subject it applies to that may reach this \(kind), \(first); a directory above refuses search to the others"
    }

    /// FSL020: mode classes nobody can use (DeadGrants, kind `.mode`).
    static func deadModeClasses(
        _ world: World, _ semantics: Semantics, _ n: NodeID, _ path: () -> String, cache: DeadGrants.Cache, _ add: (LintFinding) -> Void
    ) {
        let dead = DeadGrants.find(world, semantics, n, kind: .mode, cache: cache)
        if dead.isEmpty { return }
        let node = world[n]
        let q = shellQuote(path())
        for v in dead {
            guard case .modeClass(let c) = v.grant else { continue }
            let names = ["owner", "group", "other"]
            let letter = ["u", "g", "o"][c]
            let bits = c == 0 ? node.mode.owner : c == 1 ? node.mode.group : node.mode.other
            let who: String
            switch c {
            case 0: who = "its owner \(world.userName(node.uid))"
            case 1: who = "every member of its group \(world.groupName(node.gid)) other than its owner"
            default: who = "every user other than its owner and the members of its group"
            }
            let why =
                !v.blockedAbove
                ? "\(who) is always decided by something else first (an ACL entry, or ownership)"
                : v.reachedByGrantee
                    ? "\(who) that may reach this \(kindWord(node.type)) is always decided by something else first (an ACL entry, or ownership); a directory above refuses search to the others"
                    : "\(who) is refused the search of a directory above"
            let instead = v.blockedAbove && !v.reachedByGrantee ? "let them search the directories above" : "change what decides first"
            add(
                LintFinding(
                    code: "FSL020", severity: .note, node: n, path: path(),
                    message: "the \(names[c]) bits (\(bits.text), mode \(node.mode.octal)) grant nothing anyone can use: \(why)",
                    fix: "chmod \(letter)-\(bits.text.filter { $0 != "-" }) \(q) (or, if they should have it, \(instead))", affected: [], detail: names[c]))
        }
    }

    /// FSL010: named ACL entries (POSIX access and default ACLs, macOS ACEs) for ids no
    /// account has.
    static func unknownACLIDs(_ world: World, _ n: NodeID, _ path: String, _ add: (LintFinding) -> Void) {
        var names: [String] = []
        var fixes: [String] = []
        let q = shellQuote(path)
        for (acl, dflt) in [(world.posixACL(of: n), false), (world.defaultPOSIXACL(of: n), true)] {
            guard let acl else { continue }
            let d = dflt ? "default:" : ""
            for u in acl.users where world.user(uid: u.id) == nil { names.append("\(d)user:\(u.id)"); fixes.append("setfacl -x \(d)u:\(u.id) \(q)") }
            for g in acl.groups where world.group(gid: g.id) == nil { names.append("\(d)group:\(g.id)"); fixes.append("setfacl -x \(d)g:\(g.id) \(q)") }
        }
        if let acl = world.acl(of: n), !world.mappedACLNodes.contains(n) {
            for (i, e) in acl.entries.enumerated() {
                switch e.subject {
                case .user(let u) where world.user(uid: u) == nil: names.append("user:\(u)"); fixes.append("chmod -a# \(i) \(q)")
                case .group(let g) where world.group(gid: g) == nil && g != WellKnown.everyoneGID:
                    names.append("group:\(g)"); fixes.append("chmod -a# \(i) \(q)")
                default: break
                }
            }
        }
        guard !names.isEmpty else { return }
        add(
            LintFinding(
                code: "FSL010", severity: .warning, node: n, path: path,
                message:
                    "the ACL names \(names.joined(separator: ", ")), which no account has: the grant goes to whoever is given \(names.count == 1 ? "that id" : "those ids") next",
                fix: fixes.joined(separator: " && "), affected: [], detail: names.joined(separator: ",")))
    }
}
