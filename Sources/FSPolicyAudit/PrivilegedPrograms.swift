import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// A program that runs with more than its caller's rights: setuid and setgid regular files with
/// an `x` bit, and on a Linux world files with capabilities (`security.capability`, tree key
/// `caps:`); the inventory (lint FSL025, the report) lists each.
public struct PrivilegedProgram: Sendable {
    public enum Privilege: Hashable, Sendable {
        /// Runs as its owner.
        case setuid(UID)
        /// Runs with its group.
        case setgid(GID)
        /// Gains these file capabilities (getcap's text) when executed (Linux).
        case capabilities(String)
    }

    public var node: NodeID
    public var privileges: [Privilege]

    /// The privileges of `n`, empty for anything that is not a regular file with an `x` bit.
    public static func privileges(of n: NodeID, in world: World) -> [Privilege] {
        let node = world[n]
        guard node.type == .file, node.mode.anyExecute else { return [] }
        var out: [Privilege] = []
        if node.mode.isSetuid { out.append(.setuid(node.uid)) }
        if node.mode.isSetgid { out.append(.setgid(node.gid)) }
        if world.fromLinux, let fc = world.fileCaps[n] { out.append(.capabilities(fc.text)) }
        return out
    }

    /// `setuid root, setgid shadow`.
    public static func text(_ ps: [Privilege], in world: World) -> String {
        ps.map { p in
            switch p {
            case .setuid(let u): "setuid " + world.userName(u)
            case .setgid(let g): "setgid " + world.groupName(g)
            case .capabilities(let t): "file-capability (" + t + ")"
            }
        }.joined(separator: ", ")
    }
}

/// A set of subjects in words: `everyone`, `everyone except a, b`, or the names.
public enum SubjectSetText {
    /// The empty set in words (`PrincipalName.noOne`).
    public static let none = PrincipalName.noOne

    /// `everyone` when `allowed` is every one of `all` (at least 3); `everyone except A, B` when
    /// there are at least six and at most three of them, and at most a quarter, are left out;
    /// nil otherwise. `all` gives the order.
    public static func phrase(allowed: [String], of all: [String]) -> String? {
        guard all.count >= 3 else { return nil }
        let inSet = Set(allowed)
        let outside = all.filter { !inSet.contains($0) }
        if outside.isEmpty { return "everyone" }
        guard all.count >= 6, outside.count <= 3, outside.count * 4 <= all.count else { return nil }
        return "everyone except " + outside.joined(separator: ", ")
    }

    /// `phrase` for a set given by the indices of its members in `all` (ascending, each once):
    /// the same words, found from the count first, so that a set that is neither (the common
    /// case in a big table) costs nothing beyond a comparison. `matrix` asks this for every row
    /// whose cell it has not kept: through `phrase`, hashing each name of a thousand-user table
    /// for each row took `matrix` of 1,000,000 nodes from 4.9 s to 285 s.
    public static func phrase(allowedIndices members: [Int], of all: [String]) -> String? {
        let n = all.count
        guard n >= 3 else { return nil }
        let left = n - members.count
        if left == 0 { return "everyone" }
        guard n >= 6, left <= 3, left * 4 <= n else { return nil }
        var outside: [String] = []
        var next = 0
        for m in members {
            while next < m { outside.append(all[next]); next += 1 }
            next = m + 1
        }
        while next < n { outside.append(all[next]); next += 1 }
        return "everyone except " + outside.joined(separator: ", ")
    }

    /// `phrase`, else the names joined by `, ` (`none` when there are none).
    public static func text(allowed: [String], of all: [String]) -> String {
        phrase(allowed: allowed, of: all) ?? (allowed.isEmpty ? none : allowed.joined(separator: ", "))
    }
}

extension LintAccess {
    /// Every subject's name in list order (root and the stand-in for undeclared users included).
    var allNames: [String] { list.map(\.name) }

    /// The names of the subjects in `set`, in list order, root included.
    func everyName(_ set: Int32) -> [String] {
        list.indices.filter { engine.contains(set, subject: $0) }.map { list[$0].name }
    }

    /// The subjects of `set` but root and `except`, in words, against the same universe.
    func words(_ set: Int32, except: Set<UID>) -> String {
        let universe = list.filter { $0.subject.uid != 0 && !except.contains($0.subject.uid) }.map(\.name)
        return SubjectSetText.text(allowed: names(set, except: except), of: universe)
    }
}

extension Linter {
    /// The command that takes the program's privileges away: `chmod u-s`/`g-s`/`ug-s`, and
    /// `setcap -r` for file capabilities.
    static func fix(_ node: Node, _ ps: [PrivilegedProgram.Privilege], _ path: String) -> String {
        var parts: [String] = []
        if node.mode.isSetuid || node.mode.isSetgid {
            parts.append("chmod \(node.mode.isSetuid && node.mode.isSetgid ? "ug-s" : node.mode.isSetuid ? "u-s" : "g-s") \(shellQuote(path))")
        }
        if ps.contains(where: { if case .capabilities = $0 { true } else { false } }) { parts.append("setcap -r \(shellQuote(path))") }
        return parts.joined(separator: " && ")
    }

    /// FSL025: each privileged program, with who may run it and who may replace it (write it,
    /// or delete it from its directory to put another file in its place), decided by the rule
    /// set. A program on a nosuid volume runs with its caller's rights: FSL004 reports it instead.
    static func privilegedPrograms(_ world: World, _ nodes: [NodeID], _ a: LintAccess, _ add: (LintFinding) -> Void) {
        for n in nodes {
            let ps = PrivilegedProgram.privileges(of: n, in: world)
            guard !ps.isEmpty, !world.volumes[Int(world[n].volume)].nosuid else { continue }
            let path = world.path(of: n)
            let runners = a.everyName(a.opSet(.execute, path: path))
            let writers = Set(a.everyName(a.nodeSets(n)[1]))
            let deleters = Set(a.everyName(a.opSet(.delete, path: path)))
            let replacers = a.allNames.filter { writers.contains($0) || deleters.contains($0) }
            let all = a.allNames
            let kind = PrivilegedProgram.text(ps, in: world)
            let node = world[n]
            add(
                LintFinding(
                    code: "FSL025", severity: .note, node: n, path: path,
                    message:
                        "a \(kind) program (mode \(node.mode.octal)): may run it: \(SubjectSetText.text(allowed: runners, of: all)); may replace it: \(SubjectSetText.text(allowed: replacers, of: all))",
                    fix: "if it need not run with those rights: " + fix(node, ps, path),
                    affected: a.list.filter { $0.subject.uid != 0 && $0.subject.uid != node.uid && replacers.contains($0.name) }.map(\.name),
                    detail: kind,
                    claims: [
                        LintClaim(op: .execute, path: path, who: runners),
                        LintClaim(op: .write, path: path, who: a.allNames.filter { writers.contains($0) }),
                        LintClaim(op: .delete, path: path, who: a.allNames.filter { deleters.contains($0) })
                    ].filter { !$0.who.isEmpty }))
        }
    }
}

extension Linter {
    /// The regular files with an `x` bit that hold file capabilities on a Linux world and are
    /// not already in `setid`, in path order.
    static func capabilityPrograms(_ world: World, except setid: [NodeID]) -> [NodeID] {
        guard world.fromLinux, !world.fileCaps.isEmpty else { return [] }
        let known = Set(setid)
        return world.fileCaps.keys.filter { n in
            !known.contains(n) && world[n].type == .file && world[n].mode.anyExecute
        }.map { ($0, world.path(of: $0)) }.sorted { Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }.map(\.0)
    }
}
