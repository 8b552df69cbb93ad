import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// How much a lint finding matters; `--fail-on` compares against it.
public enum LintSeverity: String, Sendable, CaseIterable, Comparable {
    case note, warning, error
    var rank: Int {
        switch self {
        case .note: 0;
        case .warning: 1;
        case .error: 2
        }
    }
    public static func < (a: LintSeverity, b: LintSeverity) -> Bool { a.rank < b.rank }
}

/// One entry of the lint catalog (docs/findings.md): a stable code, a name, a default severity
/// and the rule sets it applies under.
public struct LintRule: Sendable {
    public let code: String
    public let name: String
    public let severity: LintSeverity
    public let summary: String
    public let description: String
    /// The section of docs/findings.md that explains it.
    public let anchor: String
    public let semantics: [Semantics]
    /// For the app rules: the code `Findings.analyze` (FSPolicyFormat) gives the same finding.
    public let appCode: String?
    /// Whether `lint` runs it when the file's `findings:` section does not name it (a rule off
    /// by default is turned on by giving it a severity there).
    public let onByDefault: Bool

    init(
        code: String, name: String, severity: LintSeverity, summary: String, description: String,
        semantics: [Semantics] = Semantics.allCases, appCode: String? = nil, onByDefault: Bool = true
    ) {
        self.code = code; self.name = name; self.severity = severity; self.summary = summary
        self.description = description; self.anchor = code.lowercased() + "-" + name
        self.semantics = semantics; self.appCode = appCode; self.onByDefault = onByDefault
    }
}

/// One finding: a rule, the node, who is affected, and a command that fixes it.
public struct LintFinding: Sendable {
    public let code: String
    public let severity: LintSeverity
    /// The node (-1 for a finding about an app or the configuration).
    public let node: NodeID
    public let path: String
    public let message: String
    public let fix: String
    /// The subjects (by the names given to `Linter.run`) the finding is about; empty when it
    /// is about every user.
    public let affected: [String]
    /// What tells two findings of one rule on one path apart (an ACE's text, a name pattern);
    /// with the code and the path, the stable key a baseline matches on.
    public let detail: String
    /// What the finding says users may do, as requests `can` answers: each op on a path and
    /// the subjects (by name) the finding says are allowed it. The message writes the same sets
    /// in words (`everyone except …`); these keep every name.
    public let claims: [LintClaim]

    public init(
        code: String, severity: LintSeverity, node: NodeID, path: String, message: String, fix: String,
        affected: [String], detail: String = "", claims: [LintClaim] = []
    ) {
        self.code = code; self.severity = severity; self.node = node; self.path = path
        self.message = message; self.fix = fix; self.affected = affected; self.detail = detail
        self.claims = claims
    }
}

/// One claim of a finding: `who` may do `op` on `path`.
public struct LintClaim: Sendable, Hashable {
    public let op: Operation
    public let path: String
    public let who: [String]
    public init(op: Operation, path: String, who: [String]) { self.op = op; self.path = path; self.who = who }
}

/// What the linter looks for beyond the catalog's fixed rules (the `findings:` section of a
/// policy file can change these).
public struct LintOptions: Sendable {
    /// Name patterns (`*` any characters, `?` one character; matched against the last path
    /// component) of files that hold secrets.
    public var sensitivePatterns: [String]
    /// Service directories (`*` matches one path component): writable by their owner only.
    public var serviceDirectories: [String]

    /// The names `scan` reads the first bytes of (`ContentKind.sensitiveNames`).
    public static let defaultSensitivePatterns = ContentKind.sensitiveNames
    public static let defaultServiceDirectories = ["/etc", "/var/lib/*", "/var/spool/*"]
    /// Rule codes not to run at all (a rule turned off costs nothing): by default, the rules
    /// that are off by default (`LintRule.onByDefault`).
    public var disabled: Set<String> = Set(LintCatalog.rules.filter { !$0.onByDefault }.map(\.code))

    public init(
        sensitivePatterns: [String] = LintOptions.defaultSensitivePatterns,
        serviceDirectories: [String] = LintOptions.defaultServiceDirectories
    ) {
        self.sensitivePatterns = sensitivePatterns
        self.serviceDirectories = serviceDirectories
    }
}

/// Sets of subjects for the few nodes the rules ask about: one set engine, asked node by node
/// (the reach of a node through its ancestors, memoized by the engine) rather than by a walk
/// over the whole tree.
final class LintAccess {
    let world: World
    let list: [(name: String, subject: Subject)]
    let engine: SetEngine
    static let ops: [Operation] = [.read, .write]

    init(world: World, semantics: Semantics, list: [(name: String, subject: Subject)]) {
        self.world = world
        self.list = list
        self.engine = SetEngine(world: world, semantics: semantics, subjects: list.map(\.subject), ops: LintAccess.ops)
    }

    /// The classes allowed `.read` and `.write` on `n` (in `ops` order).
    func nodeSets(_ n: NodeID) -> [Int32] {
        var out = [Int32](repeating: 0, count: LintAccess.ops.count)
        engine.decide(n, engine.reach(of: n), path: { self.world.path(of: n) }, into: &out)
        return out
    }

    /// The classes allowed any operation on `path`, asked of the authorizer per class.
    func opSet(_ op: Operation, path: String) -> Int32 {
        engine.fallback(0, path: path, op: op)
    }

    /// The names of the subjects in `set`, in list order, but root and `except`.
    func names(_ set: Int32, except: Set<UID>) -> [String] {
        if engine.isEmpty(set) { return [] }
        var out: [String] = []
        for (i, s) in list.enumerated() where s.subject.uid != 0 && !except.contains(s.subject.uid) && engine.contains(set, subject: i) {
            out.append(s.name)
        }
        return out
    }
}

/// Runs the catalog over one world.
public enum Linter {
    /// The name the report gives the subject that stands for every user the world does not
    /// declare (no account, no groups).
    public static let anyOtherUser = "(any other user)"

    /// Every finding in `world` under `semantics`, in catalog order and, within a rule, in
    /// tree order. `subjects` are the declared users (name, subject); the linter adds one
    /// subject for every other user (an undeclared uid with no groups), so that "someone
    /// other than the owner" covers users the file does not list.
    public static func run(
        world: World, semantics: Semantics, subjects: [(name: String, subject: Subject)],
        options: LintOptions = LintOptions()
    ) -> [LintFinding] {
        var list = subjects
        var other: UID = 4_294_967_294
        while world.user(uid: other) != nil || list.contains(where: { $0.subject.uid == other }) { other -= 1 }
        list.append((anyOtherUser, world.subject(uid: other)))
        var accessCache: LintAccess? = nil
        func access() -> LintAccess {
            if let a = accessCache { return a }
            let a = LintAccess(world: world, semantics: semantics, list: list)
            accessCache = a
            return a
        }
        let mac = semantics != .linux
        var by: [String: [LintFinding]] = [:]
        func add(_ f: LintFinding) { by[f.code, default: []].append(f) }

        // Home and service directories.
        var homes: [NodeID: String] = [:]  // node → the user whose home it is
        for u in world.users {
            guard let h = u.home, h != "/", let n = world.lookup(h), world[n].type == .dir else { continue }
            if homes[n] == nil { homes[n] = u.name }
        }
        let servicePatterns = options.serviceDirectories.map { $0.split(separator: "/", omittingEmptySubsequences: true).map(String.init) }
        let sensitive = NameMatcher(options.sensitivePatterns)

        var setid: [NodeID] = []
        let deadCache = DeadGrants.Cache()
        // FSL001 and FSL002 claim what any user may do once the walk reaches the node: asked of
        // the rule set (flags such as immutable and append-only refuse what the mode allows),
        // so a finding never claims what `can` denies.
        let asker = Authorizer(world: world, semantics: semantics, tracing: false)
        let anyone = list[list.count - 1].subject
        func anyoneMay(_ op: Operation, _ n: NodeID) -> Bool { asker.decideAfterWalk(anyone, op, node: n) }
        // One pass in tree order (parents before children, siblings by name).
        var stack: [NodeID] = [World.root]
        while let n = stack.popLast() {
            stack.append(contentsOf: world.children(of: n))
            let node = world[n]
            if world.assumedNodes.contains(n) { continue }
            var cachedPath: String? = nil
            func pathNow() -> String {
                if let p = cachedPath { return p }
                let p = world.path(of: n)
                cachedPath = p
                return p
            }
            let mode = node.mode
            // On a read-only volume (or mount) nobody writes, whatever the mode says (EROFS).
            let volume = world.volumes[Int(node.volume)]
            let writable = !volume.readOnly && !volume.readOnlyMount
            if writable, node.type == .dir, mode.other.contains(.write), !mode.isSticky,
                // (an append-only folder takes new entries but refuses deleting or renaming them:
                // rules M4 and L6, EPERM, whatever the mode)
                anyoneMay(.rights(.addFile, word: "add_file"), n), node.flags.isDisjoint(with: .append)
            {
                // The claim: the users (root aside) whom the rule set lets create a new name in it,
                // the walk to it included.
                let a = access()
                let entry = (pathNow() == "/" ? "" : pathNow()) + "/" + probeName(world, n)
                let who = a.names(a.opSet(.create, path: entry), except: [])
                add(
                    LintFinding(
                        code: "FSL001", severity: .error, node: n, path: pathNow(),
                        message:
                            "every user may create, delete and rename entries in this directory, including other users' files (mode \(mode.octal), no sticky bit)",
                        fix: "chmod +t \(shellQuote(pathNow()))", affected: who,
                        claims: [LintClaim(op: .create, path: entry, who: who)].filter { !$0.who.isEmpty }))
            }
            if writable, node.type == .file, mode.other.contains(.write), anyoneMay(.write, n) {
                let a = access()
                let who = a.names(a.opSet(.write, path: pathNow()), except: [])
                add(
                    LintFinding(
                        code: "FSL002", severity: .warning, node: n, path: pathNow(),
                        message: "every user who can reach this file may change its content (mode \(mode.octal))",
                        fix: "chmod o-w \(shellQuote(pathNow()))", affected: who,
                        claims: [LintClaim(op: .write, path: pathNow(), who: who)].filter { !$0.who.isEmpty }))
            }
            if node.type == .file, mode.isSetuid || mode.isSetgid, mode.anyExecute {
                setid.append(n)
                if world.volumes[Int(node.volume)].nosuid {
                    let v = world.volumes[Int(node.volume)].mountPath
                    add(
                        LintFinding(
                            code: "FSL004", severity: .note, node: n, path: pathNow(),
                            message:
                                "this \(setidWords(mode)) executable is on the volume \(v), mounted nosuid: it runs with the caller's ids, not its owner's (mode \(mode.octal))",
                            fix: "chmod ug-s \(shellQuote(pathNow()))", affected: [], detail: v))
                }
            }
            // FSL011: owner or group no account has.
            let unknownUID = world.user(uid: node.uid) == nil && !(mac && node.uid == WellKnown.unknownID)
            let unknownGID = world.group(gid: node.gid) == nil && !(mac && (node.gid == WellKnown.unknownID || node.gid == WellKnown.everyoneGID))
            if unknownUID || unknownGID {
                var what: [String] = []
                if unknownUID { what.append("owner uid \(node.uid)") }
                if unknownGID { what.append("group gid \(node.gid)") }
                let zero = mac ? "wheel" : "root"
                let fix =
                    unknownUID && unknownGID
                    ? "chown root:\(zero) \(shellQuote(pathNow()))"
                    : unknownUID ? "chown root \(shellQuote(pathNow()))" : "chgrp \(zero) \(shellQuote(pathNow()))"
                add(
                    LintFinding(
                        code: "FSL011", severity: .warning, node: n, path: pathNow(),
                        message:
                            "its \(what.joined(separator: " and ")) belong\(what.count == 1 ? "s" : "") to no account: whoever is given \(what.count == 1 ? "that id" : "those ids") next takes over this \(kindWord(node.type))",
                        fix: fix, affected: [],
                        detail: what.joined(separator: ",")))
            }
            // macOS ACL hygiene (ACEs of their own, not the mapping of a POSIX ACL).
            if mac, let acl = world.acl(of: n), !acl.isEmpty, !world.mappedACLNodes.contains(n) {
                macACL(world, n, pathNow(), acl, list, { access().engine.authorizer }, add)
            }
            if node.acl >= 0 || node.posixACL >= 0 || node.defaultACL >= 0 {
                unknownACLIDs(world, n, pathNow(), add)
                if !options.disabled.contains("FSL019") { deadGrants(world, semantics, n, pathNow(), cache: deadCache, add) }
            }
            if !options.disabled.contains("FSL020") { deadModeClasses(world, semantics, n, pathNow, cache: deadCache, add) }
            // FSL021: a default ACL on something other than a directory.
            if node.type != .dir && node.defaultACL >= 0 && !options.disabled.contains("FSL021") {
                let d = world.defaultPOSIXACL(of: n)!
                let text =
                    (["user::" + d.userObj.text] + d.users.map { "user:\(world.userName($0.id)):\($0.perms.text)" } + ["group::" + d.groupObj.text]
                    + d.groups.map { "group:\(world.groupName($0.id)):\($0.perms.text)" } + (d.mask.map { ["mask::" + $0.text] } ?? []) + [
                        "other::" + d.other.text
                    ])
                    .joined(separator: ",")
                add(
                    LintFinding(
                        code: "FSL021", severity: .warning, node: n, path: pathNow(),
                        message:
                            "a \(kindWord(node.type)) with a default ACL (\(text)): Linux sets default ACLs only on directories, so this tree was not read from a real file system as it is; the entries are never applied",
                        fix: "setfacl -k \(shellQuote(pathNow()))", affected: [], detail: text))
            }
            // FSL005 and FSL012 ask the rule set.
            if node.type == .dir, homes[n] != nil || isService(pathNow(), servicePatterns) {
                let a = access()
                let probe = probeName(world, n)
                let set = a.opSet(.create, path: (pathNow() == "/" ? "" : pathNow()) + "/" + probe)
                var except: Set<UID> = [node.uid]
                if let h = homes[n], let u = world.user(named: h) { except.insert(u.uid) }
                let who = a.names(set, except: except)
                if !who.isEmpty {
                    let owner = world.userName(node.uid)
                    let kind = homes[n].map { "the home directory of \($0)" } ?? "a service directory (owner \(owner))"
                    add(
                        LintFinding(
                            code: "FSL005", severity: .error, node: n, path: pathNow(),
                            message:
                                "\(kind): \(a.words(set, except: except)) may create, delete or rename entries in it (mode \(mode.octal)\(aclWord(world, n)))",
                            fix: "chmod go-w \(shellQuote(pathNow()))" + aclFix(world, n, pathNow()), affected: who,
                            claims: [LintClaim(op: .create, path: (pathNow() == "/" ? "" : pathNow()) + "/" + probe, who: who)]))
                }
            }
            // Certificates and public keys are meant to be read (a CA bundle every TLS client
            // reads): only what a scan saw is public is left alone.
            if node.type == .file, world.contentKinds[n]?.isPublic != true, let pat = sensitive.match(world.name(of: n)) {
                let a = access()
                let sets = a.nodeSets(n)
                let readers = a.names(sets[0], except: [node.uid])
                let writers = a.names(sets[1], except: [node.uid])
                if !readers.isEmpty || !writers.isEmpty {
                    var parts: [String] = []
                    if !readers.isEmpty { parts.append("\(a.words(sets[0], except: [node.uid])) may read it") }
                    if !writers.isEmpty { parts.append("\(a.words(sets[1], except: [node.uid])) may write it") }
                    var seen: Set<String> = []
                    let affected = (readers + writers).filter { seen.insert($0).inserted }
                    let why = world.contentKinds[n] == .privateKey ? "it holds a private key" : "its name matches `\(pat)`"
                    add(
                        LintFinding(
                            code: "FSL012", severity: .error, node: n, path: pathNow(),
                            message: "a file that holds secrets (\(why)), of \(world.userName(node.uid)) (mode \(mode.octal)\(aclWord(world, n))): "
                                + parts.joined(separator: "; "),
                            fix: "chmod go-rwx \(shellQuote(pathNow()))" + aclFix(world, n, pathNow()), affected: affected, detail: pat,
                            claims: [LintClaim(op: .read, path: pathNow(), who: readers), LintClaim(op: .write, path: pathNow(), who: writers)].filter {
                                !$0.who.isEmpty
                            }))
                }
            }
        }

        // FSL003: setuid/setgid executables others may modify or replace.
        if !setid.isEmpty {
            let a = access()
            for n in setid {
                let node = world[n]
                let path = world.path(of: n)
                let writeSet = a.nodeSets(n)[1]
                let deleteSet = a.opSet(.delete, path: path)
                let writers = a.names(writeSet, except: [node.uid])
                let replacers = a.names(deleteSet, except: [node.uid]).filter { !writers.contains($0) }
                guard !writers.isEmpty || !replacers.isEmpty else { continue }
                var parts: [String] = []
                if !writers.isEmpty { parts.append("\(a.words(writeSet, except: [node.uid])) may modify it") }
                if !replacers.isEmpty { parts.append("\(replacers.joined(separator: ", ")) may replace it (delete it from its directory)") }
                let owner = world.user(uid: node.uid)?.name ?? String(node.uid)
                let parent = world.path(of: node.parent)
                var fix = "chmod go-w \(shellQuote(path))"
                if !replacers.isEmpty { fix += " && chmod go-w \(shellQuote(parent))" }
                add(
                    LintFinding(
                        code: "FSL003", severity: .error, node: n, path: path,
                        message: "this \(setidWords(node.mode)) executable of \(owner) (mode \(node.mode.octal)): " + parts.joined(separator: "; "),
                        fix: fix, affected: writers + replacers,
                        claims: [LintClaim(op: .write, path: path, who: writers), LintClaim(op: .delete, path: path, who: replacers)].filter { !$0.who.isEmpty }
                    ))
            }
        }
        // FSL025: the inventory of privileged programs (setuid, setgid, file capabilities).
        if !options.disabled.contains("FSL025") {
            let programs = setid + capabilityPrograms(world, except: setid)
            if !programs.isEmpty { privilegedPrograms(world, programs, access(), add) }
        }
        // FSL026: services that reach homes, service directories and secrets through capabilities.
        if !options.disabled.contains("FSL026") && !world.services.isEmpty {
            serviceCapabilities(world, semantics, homes: homes, servicePatterns: servicePatterns, sensitive: sensitive, add)
        }
        // Tree order: parents before children, siblings in the byte order of their names.
        return LintCatalog.rules.flatMap { r -> [LintFinding] in
            let list = by[r.code] ?? []
            // Most rules add their findings during the walk, already in tree order.
            if list.indices.dropFirst().allSatisfy({ treeOrder(list[$0 - 1].path, list[$0].path) <= 0 }) { return list }
            return list.enumerated().sorted { a, b in
                let c = treeOrder(a.element.path, b.element.path)
                return c != 0 ? c < 0 : a.offset < b.offset
            }.map(\.element)
        }
    }
}
