import FSPolicy

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
}

/// One finding: a rule, the node, who is affected, and a command that fixes it.
public struct LintFinding: Sendable {
    public let code: String
    public let severity: LintSeverity
    public let node: NodeID
    public let path: String
    public let message: String
    public let fix: String
    /// The subjects (by the names given to `Linter.run`) the finding is about; empty when it
    /// is about every user.
    public let affected: [String]
}

/// The catalog of lint rules, in the order they are reported.
public enum LintCatalog {
    public static let rules: [LintRule] = [
        LintRule(code: "FSL001", name: "world-writable-directory", severity: .error,
                 summary: "A directory every user may write has no sticky bit",
                 description: "The directory's mode grants write to others (o+w) and the sticky bit is not set, so every user may create entries in it and delete or rename anyone's entries, including files they do not own.",
                 anchor: "fsl001-world-writable-directory", semantics: [.macos, .guide, .linux]),
        LintRule(code: "FSL002", name: "world-writable-file", severity: .warning,
                 summary: "A regular file every user may write",
                 description: "The file's mode grants write to others (o+w): every user who can reach it may change or truncate its content.",
                 anchor: "fsl002-world-writable-file", semantics: [.macos, .guide, .linux]),
        LintRule(code: "FSL003", name: "setid-writable-by-others", severity: .error,
                 summary: "A setuid/setgid executable someone other than its owner or root may modify or replace",
                 description: "A setuid or setgid executable is a program the system trusts to run with its owner's or group's privileges; whoever may write it, or delete it from its directory and put another file in its place, decides what runs when anyone uses it. The kernel drops the setuid bit when an unprivileged user writes the file, so the attack is a trojan rather than a privilege kept, but the program is no longer what the owner installed.",
                 anchor: "fsl003-setid-writable-by-others", semantics: [.macos, .guide, .linux]),
    ]

    public static func rule(_ code: String) -> LintRule? { rules.first { $0.code == code } }
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
    public static func run(world: World, semantics: Semantics, subjects: [(name: String, subject: Subject)]) -> [LintFinding] {
        let nodes = [World.root] + world.descendants(of: World.root)
        var ww: [LintFinding] = [], wf: [LintFinding] = [], sid: [LintFinding] = []
        var setid: Set<NodeID> = []
        for n in nodes {
            let node = world[n]
            let path = world.path(of: n)
            let mode = node.mode
            if node.type == .dir, mode.other.contains(.write), !mode.isSticky {
                ww.append(LintFinding(code: "FSL001", severity: .error, node: n, path: path,
                                      message: "every user may create, delete and rename entries in this directory, including other users' files (mode \(mode.octal), no sticky bit)",
                                      fix: "chmod +t \(shellQuote(path))", affected: []))
            }
            if node.type == .file, mode.other.contains(.write) {
                wf.append(LintFinding(code: "FSL002", severity: .warning, node: n, path: path,
                                      message: "every user who can reach this file may change its content (mode \(mode.octal))",
                                      fix: "chmod o-w \(shellQuote(path))", affected: []))
            }
            if node.type == .file, mode.isSetuid || mode.isSetgid, mode.anyExecute { setid.insert(n) }
        }
        if !setid.isEmpty {
            // Everyone declared, plus one subject for every user the world does not declare.
            var list = subjects
            var other: UID = 4_294_967_294
            while world.user(uid: other) != nil || list.contains(where: { $0.subject.uid == other }) { other -= 1 }
            list.append((anyOtherUser, world.subject(uid: other)))
            let engine = SetEngine(world: world, semantics: semantics, subjects: list.map(\.subject), ops: [.write, .delete])
            engine.walk { n, path, sets in
                guard setid.contains(n) else { return true }
                let node = world[n]
                var writers: [String] = [], replacers: [String] = []
                for (i, s) in list.enumerated() where s.subject.uid != 0 && s.subject.uid != node.uid {
                    if engine.contains(sets[0], subject: i) { writers.append(s.name) }
                    else if engine.contains(sets[1], subject: i) { replacers.append(s.name) }
                }
                guard !writers.isEmpty || !replacers.isEmpty else { return true }
                let bits = [node.mode.isSetuid ? "setuid" : nil, node.mode.isSetgid ? "setgid" : nil].compactMap { $0 }.joined(separator: "+")
                var parts: [String] = []
                if !writers.isEmpty { parts.append("\(writers.joined(separator: ", ")) may modify it") }
                if !replacers.isEmpty { parts.append("\(replacers.joined(separator: ", ")) may replace it (delete it from its directory)") }
                let owner = world.user(uid: node.uid)?.name ?? String(node.uid)
                let parent = world.path(of: node.parent)
                var fix = "chmod go-w \(shellQuote(path))"
                if !replacers.isEmpty { fix += " && chmod go-w \(shellQuote(parent))" }
                sid.append(LintFinding(code: "FSL003", severity: .error, node: n, path: path,
                                       message: "this \(bits) executable of \(owner) (mode \(node.mode.octal)): " + parts.joined(separator: "; "),
                                       fix: fix, affected: writers + replacers))
                return true
            }
        }
        return ww + wf + sid
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
