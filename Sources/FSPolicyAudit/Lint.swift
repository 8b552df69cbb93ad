import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// How much a lint finding matters; `--fail-on` compares against it.
public enum LintSeverity: String, Sendable, CaseIterable, Comparable {
    case note, warning, error
    var rank: Int { switch self { case .note: 0; case .warning: 1; case .error: 2 } }
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

    init(code: String, name: String, severity: LintSeverity, summary: String, description: String,
         semantics: [Semantics] = Semantics.allCases, appCode: String? = nil, onByDefault: Bool = true) {
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

    public init(code: String, severity: LintSeverity, node: NodeID, path: String, message: String, fix: String,
                affected: [String], detail: String = "", claims: [LintClaim] = []) {
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

    public init(sensitivePatterns: [String] = LintOptions.defaultSensitivePatterns,
                serviceDirectories: [String] = LintOptions.defaultServiceDirectories) {
        self.sensitivePatterns = sensitivePatterns
        self.serviceDirectories = serviceDirectories
    }
}

/// The catalog of lint rules, in the order they are reported.
public enum LintCatalog {
    static let mac: [Semantics] = [.macos, .guide]

    public static let rules: [LintRule] = [
        LintRule(code: "FSL001", name: "world-writable-directory", severity: .error,
                 summary: "A directory every user may write has no sticky bit",
                 description: "The directory's mode grants write to others (o+w) and the sticky bit is not set, so every user may create entries in it and delete or rename anyone's entries, including files they do not own."),
        LintRule(code: "FSL002", name: "world-writable-file", severity: .warning,
                 summary: "A regular file every user may write",
                 description: "The file's mode grants write to others (o+w): every user who can reach it may change or truncate its content."),
        LintRule(code: "FSL003", name: "setid-writable-by-others", severity: .error,
                 summary: "A setuid/setgid executable someone other than its owner or root may modify or replace",
                 description: "A setuid or setgid executable is a program the system trusts to run with its owner's or group's privileges; whoever may write it, or delete it from its directory and put another file in its place, decides what runs when anyone uses it. The kernel drops the setuid bit when an unprivileged user writes the file, so the attack is a trojan rather than a privilege kept, but the program is no longer what the owner installed."),
        LintRule(code: "FSL004", name: "setid-on-nosuid-volume", severity: .note,
                 summary: "A setuid/setgid executable on a volume mounted nosuid, where the bits have no effect",
                 description: "On a volume mounted with nosuid, execve ignores the setuid and setgid bits: the program runs with the caller's own ids. The bits are either a leftover (a copied or restored tree) or a program that will not work as its owner expects."),
        LintRule(code: "FSL005", name: "home-or-service-dir-writable", severity: .error,
                 summary: "A home or service directory someone other than its owner (or root) may write",
                 description: "A user's home directory, or a directory a service keeps its state or configuration in, where another user may create, delete or rename entries: they can plant startup files, keys or configuration that the owner (or the service) then reads and trusts, or remove what is there."),
        LintRule(code: "FSL006", name: "acl-deny-after-allow", severity: .warning,
                 summary: "A macOS ACL is not in canonical order: a deny comes after an allow (or an explicit entry after an inherited one)",
                 description: "macOS evaluates ACEs in stored order and stops at the first entry that decides a right, so a deny stored after an allow does not refuse what the allow already granted. Tools that add entries (chmod +a, Finder) assume the canonical order: explicit denies, explicit allows, inherited entries.",
                 semantics: mac),
        LintRule(code: "FSL007", name: "acl-inherit-flags-on-file", severity: .warning,
                 summary: "An ACE of a file carries inheritance flags, which only a directory uses",
                 description: "file_inherit, directory_inherit, limit_inherit and only_inherit tell a directory what to copy to new entries; on a file nothing is ever created below, so the flags do nothing, and only_inherit makes the entry ignored altogether. They usually mark an ACL copied from a directory by a script.",
                 semantics: mac),
        LintRule(code: "FSL008", name: "acl-only-inherit-without-target", severity: .warning,
                 summary: "An only_inherit ACE of a directory that no new entry inherits",
                 description: "only_inherit means the entry is not used for the directory itself and exists only to be copied to new entries; without file_inherit or directory_inherit it is copied to nothing, so it has no effect at all.",
                 semantics: mac),
        LintRule(code: "FSL009", name: "acl-everyone-may-write", severity: .error,
                 summary: "An allow ACE gives everyone a right to change or delete",
                 description: "An ACE for everyone applies to every process, whatever its user; an allow of write, append, delete, delete_child, writesecurity or chown rights for everyone is a world-writable file or directory that the mode does not show.",
                 semantics: mac),
        LintRule(code: "FSL010", name: "acl-entry-unknown-id", severity: .warning,
                 summary: "An ACL entry names a user or group id no account has",
                 description: "A named ACL entry for an id that no declared account has grants to whoever is given that id next, usually the next account created; it is left behind when an account is removed or a tree is copied between systems."),
        LintRule(code: "FSL011", name: "unknown-owner", severity: .warning,
                 summary: "A node's owner or group is an id no account has",
                 description: "A node owned by a uid, or in a gid, that no declared account has belongs to whoever gets that id next: that user or group will own it, with the owner's rights (chmod, chown of the group, ACL changes)."),
        LintRule(code: "FSL012", name: "sensitive-file-exposed", severity: .error,
                 summary: "A file that holds secrets may be read or written by someone other than its owner or root",
                 description: "Private keys, password databases, credential files and keychains must be readable and writable by their owner only. The decision is made with the rule set, for every subject class, so a group bit, an ACL entry and an everyone ACE count alike; a file no one else can reach is not reported. A file a scan read and found to hold only certificates or public keys (`content: certificate` or `public-key`) is public material and is not reported."),
        LintRule(code: "FSL013", name: "app-missing-purpose-string", severity: .warning,
                 summary: "An app reaches a privacy-protected location without the Info.plist purpose string",
                 description: "Without the purpose string the system refuses (and on macOS terminates) the app when it asks for the protected resource, and App Review rejects it.",
                 semantics: mac, appCode: "missing-purpose-string"),
        LintRule(code: "FSL014", name: "app-temporary-exception", severity: .warning,
                 summary: "An app uses a temporary-exception entitlement, which App Review asks to justify",
                 description: "Temporary-exception entitlements open fixed paths past the sandbox; App Review asks for a justification of each, and an item the user picks or a security-scoped bookmark usually does the job.",
                 semantics: mac, appCode: "temporary-exception"),
        LintRule(code: "FSL015", name: "app-unbalanced-bookmark", severity: .warning,
                 summary: "A security-scoped bookmark's start and stop calls do not balance",
                 description: "Each successful startAccessingSecurityScopedResource needs one stop; leaked starts hold kernel resources, and a stop without a start ends access another part of the app still uses.",
                 semantics: mac, appCode: "unbalanced-bookmark"),
        LintRule(code: "FSL016", name: "app-stale-bookmark", severity: .note,
                 summary: "A security-scoped bookmark resolved as stale and should be renewed",
                 description: "A stale bookmark still resolves, but the system asks the app to create a new one from the resolved URL; one day it will not resolve.",
                 semantics: mac, appCode: "stale-bookmark"),
        LintRule(code: "FSL017", name: "app-unused-entitlement", severity: .warning,
                 summary: "An entitlement grants more than the expectations use",
                 description: "An entitlement no expectation needs, or a read-write one used only for reading, widens what a compromised app can reach for nothing.",
                 semantics: mac, appCode: "unused-entitlement"),
        LintRule(code: "FSL018", name: "unused-suppression", severity: .warning,
                 summary: "A suppression in the findings: section matches no finding",
                 description: "A suppression that matches nothing is either stale (the problem was fixed, or the path moved) or mistyped; either way it would silently hide a later finding on that path."),
        LintRule(code: "FSL019", name: "dead-grant", severity: .note,
                 summary: "An ACL entry grants rights nobody can use",
                 description: "An allow ACE or a named POSIX ACL entry whose rights decide nothing for any possible subject: every subject it applies to is refused the search of a directory above, or is always decided by something else first (an earlier ACE, a mask that removes its rights). It misleads whoever reads the ACL into thinking someone has access."),
        LintRule(code: "FSL020", name: "dead-mode-class", severity: .note,
                 summary: "A class of the mode bits grants rights nobody can use",
                 description: "The owner, group or other bits of a file or directory grant a right no possible subject of that class can use: every subject of the class is refused the search of a directory above, or is decided by an ACL entry first. The mode then says the file is open to someone it is not; often a directory above was tightened and the bits below no longer mean anything, or the other way round, loosening that directory would expose them. Off unless the findings: section gives it a severity: on a real tree every file created with a loose umask in a private directory has such bits.",
                 onByDefault: false),
        LintRule(code: "FSL021", name: "default-acl-on-file", severity: .warning,
                 summary: "A file (not a directory) has a POSIX default ACL",
                 description: "Linux keeps a default ACL only on a directory and refuses to set one on anything else, so a default ACL on a file cannot come from a real Linux file system: the tree was imported badly (an archive or scan written by another tool, a hand-edited file). Its entries are never applied, and whoever reads them is misled about what new files would get."),
        LintRule(code: "FSL022", name: "keychain-before-first-unlock", severity: .warning,
                 summary: "A keychain secret is readable before the first unlock after a restart",
                 description: "An item with the accessibility `always` or `alwaysThisDeviceOnly` is encrypted with a key that is there from the moment the device starts, before anyone has entered the passcode: whoever holds the device can have it read. The constants are deprecated; `afterFirstUnlock` serves background work.",
                 semantics: mac, appCode: "keychain-before-first-unlock"),
        LintRule(code: "FSL023", name: "keychain-group-wider", severity: .warning,
                 summary: "A shared keychain access group is open to more apps than use it",
                 description: "Every app that lists an access group may read, change and delete all of its items; a group listed by apps none of whose keychain calls touch it widens what a compromised app can take.",
                 semantics: mac, appCode: "keychain-group-wider"),
        LintRule(code: "FSL024", name: "keychain-this-device-only-restored", severity: .warning,
                 summary: "A keychain call after a restore onto a new device expects a ThisDeviceOnly item",
                 description: "ThisDeviceOnly items never move to another device, whatever the backup: after a restore onto a new phone they are gone, and an app that counts on one must treat its absence as a first launch.",
                 semantics: mac, appCode: "keychain-this-device-only-restored"),
        LintRule(code: "FSL025", name: "privileged-program", severity: .note,
                 summary: "A setuid or setgid program: who may run it, who may replace it",
                 description: "The inventory of programs that run with more than their caller's rights: each setuid or setgid regular file with an x bit (on a volume not mounted nosuid), with the users who may run it and the users who may replace it (write it, or delete it from its directory), as the rule set decides them. Not a problem by itself; the list an audit starts from, in place of find -perm -4000."),
    ]

    public static func rule(_ code: String) -> LintRule? { rules.first { $0.code == code } }
    /// A rule by its code or its name.
    public static func rule(named s: String) -> LintRule? { rules.first { $0.code == s || $0.name == s } }
    public static func rule(appCode: String) -> LintRule? { rules.first { $0.appCode == appCode } }
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
    public static func run(world: World, semantics: Semantics, subjects: [(name: String, subject: Subject)],
                           options: LintOptions = LintOptions()) -> [LintFinding] {
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
        var homes: [NodeID: String] = [:]   // node → the user whose home it is
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
               anyoneMay(.rights(.addFile, word: "add_file"), n), node.flags.isDisjoint(with: .append) {
                add(LintFinding(code: "FSL001", severity: .error, node: n, path: pathNow(),
                                message: "every user may create, delete and rename entries in this directory, including other users' files (mode \(mode.octal), no sticky bit)",
                                fix: "chmod +t \(shellQuote(pathNow()))", affected: []))
            }
            if writable, node.type == .file, mode.other.contains(.write), anyoneMay(.write, n) {
                add(LintFinding(code: "FSL002", severity: .warning, node: n, path: pathNow(),
                                message: "every user who can reach this file may change its content (mode \(mode.octal))",
                                fix: "chmod o-w \(shellQuote(pathNow()))", affected: []))
            }
            if node.type == .file, mode.isSetuid || mode.isSetgid, mode.anyExecute {
                setid.append(n)
                if world.volumes[Int(node.volume)].nosuid {
                    let v = world.volumes[Int(node.volume)].mountPath
                    add(LintFinding(code: "FSL004", severity: .note, node: n, path: pathNow(),
                                    message: "this \(setidWords(mode)) executable is on the volume \(v), mounted nosuid: it runs with the caller's ids, not its owner's (mode \(mode.octal))",
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
                let fix = unknownUID && unknownGID ? "chown root:\(zero) \(shellQuote(pathNow()))" : unknownUID ? "chown root \(shellQuote(pathNow()))" : "chgrp \(zero) \(shellQuote(pathNow()))"
                add(LintFinding(code: "FSL011", severity: .warning, node: n, path: pathNow(),
                                message: "its \(what.joined(separator: " and ")) belong\(what.count == 1 ? "s" : "") to no account: whoever is given \(what.count == 1 ? "that id" : "those ids") next takes over this \(kindWord(node.type))",
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
                let text = (["user::" + d.userObj.text] + d.users.map { "user:\(world.userName($0.id)):\($0.perms.text)" } + ["group::" + d.groupObj.text]
                            + d.groups.map { "group:\(world.groupName($0.id)):\($0.perms.text)" } + (d.mask.map { ["mask::" + $0.text] } ?? []) + ["other::" + d.other.text])
                    .joined(separator: ",")
                add(LintFinding(code: "FSL021", severity: .warning, node: n, path: pathNow(),
                                message: "a \(kindWord(node.type)) with a default ACL (\(text)): Linux sets default ACLs only on directories, so this tree was not read from a real file system as it is; the entries are never applied",
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
                    add(LintFinding(code: "FSL005", severity: .error, node: n, path: pathNow(),
                                    message: "\(kind): \(a.words(set, except: except)) may create, delete or rename entries in it (mode \(mode.octal)\(aclWord(world, n)))",
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
                    add(LintFinding(code: "FSL012", severity: .error, node: n, path: pathNow(),
                                    message: "a file that holds secrets (\(why)), of \(world.userName(node.uid)) (mode \(mode.octal)\(aclWord(world, n))): " + parts.joined(separator: "; "),
                                    fix: "chmod go-rwx \(shellQuote(pathNow()))" + aclFix(world, n, pathNow()), affected: affected, detail: pat,
                                    claims: [LintClaim(op: .read, path: pathNow(), who: readers), LintClaim(op: .write, path: pathNow(), who: writers)].filter { !$0.who.isEmpty }))
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
                add(LintFinding(code: "FSL003", severity: .error, node: n, path: path,
                                message: "this \(setidWords(node.mode)) executable of \(owner) (mode \(node.mode.octal)): " + parts.joined(separator: "; "),
                                fix: fix, affected: writers + replacers,
                                claims: [LintClaim(op: .write, path: path, who: writers), LintClaim(op: .delete, path: path, who: replacers)].filter { !$0.who.isEmpty }))
            }
        }
        // FSL025: the inventory of privileged programs (setuid, setgid, file capabilities).
        if !options.disabled.contains("FSL025") {
            let programs = setid + capabilityPrograms(world, except: setid)
            if !programs.isEmpty { privilegedPrograms(world, programs, access(), add) }
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

    /// -1, 0 or 1: `a` before, with, or after `b` in tree order (component by component, bytes).
    static func treeOrder(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            let x = i.next(), y = j.next()
            switch (x, y) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?):
                if x == y { continue }
                // The separator sorts before every byte of a name.
                if x == 0x2f { return -1 }
                if y == 0x2f { return 1 }
                return x < y ? -1 : 1
            }
        }
    }

    static func kindWord(_ t: NodeType) -> String { t == .dir ? "directory" : t.word }

    static func setidWords(_ mode: FileMode) -> String {
        [mode.isSetuid ? "setuid" : nil, mode.isSetgid ? "setgid" : nil].compactMap { $0 }.joined(separator: "+")
    }

    /// A name no entry of `dir` has, for asking whether a new entry may be created.
    static func probeName(_ world: World, _ dir: NodeID) -> String {
        var name = ".fspolicy-lint-probe"
        while world.child(dir, Substring(name)) != nil { name += "_" }
        return name
    }

    static func aclWord(_ world: World, _ n: NodeID) -> String {
        if world.posixACL(of: n).map({ !$0.isMinimal }) == true { return ", with a POSIX ACL" }
        if let a = world.acl(of: n), !a.isEmpty, !world.mappedACLNodes.contains(n) { return ", with an ACL" }
        return ""
    }

    static func aclFix(_ world: World, _ n: NodeID, _ path: String) -> String {
        if world.posixACL(of: n).map({ !$0.isMinimal }) == true { return " && setfacl -b \(shellQuote(path))" }
        if let a = world.acl(of: n), !a.isEmpty, !world.mappedACLNodes.contains(n) { return " && chmod -N \(shellQuote(path))" }
        return ""
    }

    /// Whether `path` is one of the service directories (`*` is one component).
    static func isService(_ path: String, _ patterns: [[String]]) -> Bool {
        let comps = path.split(separator: "/", omittingEmptySubsequences: true)
        for p in patterns where p.count == comps.count {
            var ok = true
            for (a, b) in zip(p, comps) where !globMatch(a, Substring(b)) { ok = false; break }
            if ok { return true }
        }
        return false
    }

    /// The first pattern `name` matches.
    static func matchingPattern(_ name: String, _ patterns: [String]) -> String? {
        patterns.first { globMatch($0, Substring(name)) }
    }

    /// `*` (any characters) and `?` (one character) against the whole of `s`.
    public static func globMatch(_ pattern: String, _ s: Substring) -> Bool {
        let p = Array(pattern), t = Array(s)
        var i = 0, j = 0, star = -1, mark = 0
        while j < t.count {
            if i < p.count && (p[i] == "?" || p[i] == t[j]) { i += 1; j += 1 }
            else if i < p.count && p[i] == "*" { star = i; mark = j; i += 1 }
            else if star >= 0 { i = star + 1; mark += 1; j = mark }
            else { return false }
        }
        while i < p.count && p[i] == "*" { i += 1 }
        return i == p.count
    }

    /// FSL006–FSL009 on one node's own ACL.
    static func macACL(_ world: World, _ n: NodeID, _ path: String, _ acl: ACL,
                       _ list: [(name: String, subject: Subject)], _ authorizer: () -> Authorizer, _ add: (LintFinding) -> Void) {
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
                add(LintFinding(code: "FSL006", severity: .warning, node: n, path: path,
                                message: "ACE \(i) `\(text(e))` comes after ACE \(rankAt) `\(text(before))`: macOS evaluates entries in stored order, so \(what) does not decide what the earlier entry already decided (canonical order: explicit deny, explicit allow, inherited)",
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
                add(LintFinding(code: "FSL007", severity: .warning, node: n, path: path,
                                message: "ACE \(i) `\(text(e))` of this \(kindWord(node.type)) has inheritance flags (\(words)), which only a directory uses" + (e.flags.contains(.onlyInherit) ? "; only_inherit makes the entry ignored here" : ""),
                                fix: "chmod =a# \(i) \(shellQuote(text(plain))) \(q)", affected: [], detail: text(e)))
            }
            if isDir, e.flags.contains(.onlyInherit), !e.flags.contains(.fileInherit), !e.flags.contains(.directoryInherit) {
                add(LintFinding(code: "FSL008", severity: .warning, node: n, path: path,
                                message: "ACE \(i) `\(text(e))` is only_inherit but neither file_inherit nor directory_inherit: it applies neither to this directory nor to anything created in it",
                                fix: "chmod -a# \(i) \(q) (or add file_inherit,directory_inherit)", affected: [], detail: text(e)))
            }
        }
        // FSL009: an allow for everyone of a right to change or delete, that the rule set lets
        // any user use (an earlier deny, or a directory nobody may search, takes it back).
        let changing: [(AccessRights, String)] = isDir
            ? [(.addFile, "add_file"), (.addSubdirectory, "add_subdirectory"), (.deleteChild, "delete_child"), (.delete, "delete"), (.writeSecurity, "writesecurity"), (.takeOwnership, "chown")]
            : [(.writeData, "write"), (.appendData, "append"), (.delete, "delete"), (.writeSecurity, "writesecurity"), (.takeOwnership, "chown")]
        guard let anyone = list.last?.subject else { return }
        for (i, e) in acl.entries.enumerated() where e.kind == .allow && e.subject == .everyone && !e.flags.contains(.onlyInherit) {
            let granted = changing.filter { e.rights.contains($0.0) }
            if granted.isEmpty { continue }
            let auth = authorizer()
            let usable = granted.filter { auth.decide(Request(subject: anyone, op: .rights($0.0, word: $0.1), path: path)).allowed }
            if usable.isEmpty { continue }
            add(LintFinding(code: "FSL009", severity: .error, node: n, path: path,
                            message: "ACE \(i) `\(text(e))` gives every user \(usable.map(\.1).joined(separator: ", ")) on this \(kindWord(node.type)), whatever its mode (\(node.mode.octal)) says",
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
                why = v.blockedAbove ? "nobody it applies to may reach this \(kindWord(node.type)) (a directory above refuses them search)"
                                     : "for every subject it applies to, an earlier entry already decides each of its rights"
                fix = "chmod -a# \(i) \(q)"
            case .modeClass: continue
            case .posixUser(let u), .posixGroup(let u):
                let isUser: Bool = { if case .posixUser = v.grant { return true }; return false }()
                let p = world.posixACL(of: n)!
                let perms = (isUser ? p.users : p.groups).first { $0.id == u }!.perms
                let name = isUser ? world.userName(u) : world.groupName(u)
                what = "the entry `\(isUser ? "user" : "group"):\(name):\(perms.text)`"
                let mask = p.mask ?? p.groupObj
                if !v.blockedAbove && (mask.intersection(perms).isEmpty || node.mode.group.isEmpty) {
                    why = "the mask (\(mask.text)) removes every right it grants"
                    fix = "setfacl -m m::\(mask.union(perms).text) \(q) (or setfacl -x \(isUser ? "u" : "g"):\(name) \(q))"
                } else {
                    why = v.blockedAbove ? "nobody it applies to may reach this \(kindWord(node.type)) (a directory above refuses them search)"
                                         : "every subject it applies to is decided by another entry"
                    fix = "setfacl -x \(isUser ? "u" : "g"):\(name) \(q)"
                }
            }
            add(LintFinding(code: "FSL019", severity: .note, node: n, path: path,
                            message: "\(what) grants nothing anyone can use: \(why)", fix: fix, affected: [], detail: what))
        }
    }

    /// FSL020: mode classes nobody can use (DeadGrants, kind `.mode`).
    static func deadModeClasses(_ world: World, _ semantics: Semantics, _ n: NodeID, _ path: () -> String, cache: DeadGrants.Cache, _ add: (LintFinding) -> Void) {
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
            let why = v.blockedAbove ? "\(who) is refused the search of a directory above"
                                     : "\(who) is always decided by something else first (an ACL entry, or ownership)"
            let instead = v.blockedAbove ? "let them search the directories above" : "change what decides first"
            add(LintFinding(code: "FSL020", severity: .note, node: n, path: path(),
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
                case .group(let g) where world.group(gid: g) == nil && g != WellKnown.everyoneGID: names.append("group:\(g)"); fixes.append("chmod -a# \(i) \(q)")
                default: break
                }
            }
        }
        guard !names.isEmpty else { return }
        add(LintFinding(code: "FSL010", severity: .warning, node: n, path: path,
                        message: "the ACL names \(names.joined(separator: ", ")), which no account has: the grant goes to whoever is given \(names.count == 1 ? "that id" : "those ids") next",
                        fix: fixes.joined(separator: " && "), affected: [], detail: names.joined(separator: ",")))
    }

    /// A path as one POSIX shell word.
    public static func shellQuote(_ s: String) -> String {
        let plain = s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2f || c == 0x2e || c == 0x5f || c == 0x2d || c == 0x2b || c == 0x2c || c == 0x3a || c == 0x40
        }
        if plain && !s.isEmpty { return s }
        var out = "'"
        for ch in s { out += ch == "'" ? "'\\''" : String(ch) }
        return out + "'"
    }
}

/// File name patterns (`*` any bytes, `?` one character's byte), compiled once.
struct NameMatcher {
    let patterns: [(text: String, bytes: [UInt8], literal: Bool, suffix: [UInt8]?)]

    init(_ list: [String]) {
        patterns = list.map { p in
            let b = Array(p.utf8)
            let literal = !b.contains(0x2a) && !b.contains(0x3f)
            // `*` followed by a literal: a suffix test.
            let suffix: [UInt8]? = b.first == 0x2a && !b.dropFirst().contains(0x2a) && !b.contains(0x3f) ? Array(b.dropFirst()) : nil
            return (p, b, literal, suffix)
        }
    }

    /// The first pattern `name` matches.
    func match(_ name: String) -> String? {
        var found: String? = nil
        var n = name
        n.withUTF8 { buf in
            for p in patterns {
                if p.literal {
                    if buf.elementsEqual(p.bytes) { found = p.text; return }
                } else if let s = p.suffix {
                    if buf.count >= s.count && buf[(buf.count - s.count)...].elementsEqual(s) { found = p.text; return }
                } else if Linter.globMatch(p.text, Substring(name)) { found = p.text; return }
            }
        }
        return found
    }
}
