import FSPolicy

/// ANSI styling, used only when allowed (a terminal, no NO_COLOR, no --no-color).
public struct Style: Sendable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
    /// Colored text is marked with two noncharacters around the color's code; the output
    /// filter (`Escaping.terminal(_:color:)`) turns the marks into the terminal's sequences, so
    /// no escape character in the rendered text can ever come from anywhere but here.
    static let open = Unicode.Scalar(UInt32(0xFDD0))!
    static let close = Unicode.Scalar(UInt32(0xFDD1))!
    func wrap(_ s: String, _ code: String) -> String {
        enabled ? String(Style.open) + code + String(Style.close) + s + String(Style.open) + "0" + String(Style.close) : s
    }
    public func bold(_ s: String) -> String { wrap(s, "1") }
    public func red(_ s: String) -> String { wrap(s, "31") }
    public func green(_ s: String) -> String { wrap(s, "32") }
    public func yellow(_ s: String) -> String { wrap(s, "33") }
    public func dim(_ s: String) -> String { wrap(s, "2") }
}

/// Text for decisions and traces: pure functions over the decision and the policy.
public struct TextRenderer: Sendable {
    public let policy: Policy
    public let style: Style
    /// The world rendered (the policy's, or one after some steps).
    public let world: World

    public init(policy: Policy, style: Style = Style(enabled: false), world: World? = nil) {
        self.policy = policy
        self.style = style
        self.world = world ?? policy.world
    }

    /// getfacl lines of an ACL with this world's names.
    public func posixLines(_ a: POSIXACL, prefix: String = "", effective: Bool = false) -> [String] {
        a.lines(prefix: prefix, user: { world.userName($0) }, group: { world.groupName($0) }, effective: effective)
    }

    func path(_ n: NodeID) -> String { n < 0 ? "-" : world.path(of: n) }

    func isDir(_ n: NodeID) -> Bool? { n < 0 ? nil : world[n].isDir }

    public func rights(_ r: AccessRights, node: NodeID) -> String {
        let t = r.text(forDirectory: isDir(node))
        return t.isEmpty ? "-" : t
    }

    /// `ACE #2 "user:bob deny write"`, `other bits r-- need w`, `flag uchg`, …
    public func evidence(_ e: Evidence, relativeTo target: NodeID? = nil) -> String {
        var b = TextBuffer()
        appendEvidence(e, relativeTo: target, to: &b)
        return b.string
    }

    /// `evidence(_:relativeTo:)` appended to `b` (the one place its words are written).
    func appendEvidence(_ e: Evidence, relativeTo target: NodeID?, to b: inout TextBuffer) {
        func on(_ n: NodeID, _ b: inout TextBuffer) { if n != target { b += " on "; b += path(n) } }
        switch e {
        case .none: return
        case .ace(let n, let i, let ace):
            b += "ACE #"; b.append(i); b += " \""; b += world.aceText(ace, forDirectory: world[n].isDir); b += "\""
            on(n, &b)
        case .posixEntry(let n, let tag, let perms, let mask):
            b += "ACL entry `"; b += posixEntryText(tag, perms); b += "`"
            if let m = mask, !perms.isSubset(of: m) {
                b += " (mask "; b.append(m); b += ": effective "; b.append(perms.intersection(m)); b += ")"
            }
            on(n, &b)
        case .mode(let n, let cls, let needed, let has):
            b += cls.rawValue; b += " bits "; b.append(has)
            if needed.isSubset(of: has) { b += " grant "; b.append(needed) } else { b += " lack "; b.append(needed.subtracting(has)) }
            on(n, &b)
        case .flag(let n, let f): b += "flag "; b += flagNames(f).joined(separator: ","); on(n, &b)
        case .sticky(let n): b += "sticky bit"; on(n, &b)
        case .identity(let n, let uid, let gid, let fu, let fg):
            b += "seen as \(world.userName(uid)):\(world.groupName(gid)) (stored \(world.userName(fu)):\(world.groupName(fg)))"
            on(n, &b)
        case .volume(let m): b += "volume \(m)"
        case .node(let n): if n != target { b += path(n) }
        case .missing(let d, let name): b += missingPath(d, name); b += " does not exist"
        case .app(_, let f):
            b += f.text
            if !f.wouldAllow.isEmpty { b += "; would be allowed by "; b += f.wouldAllow.joined(separator: ", or ") }
        case .protection(let n, let cls, let state, let open):
            b += "class \(cls.word) with the device \(stateWords(state))"
            if open { b += " (a handle open from before the lock)" }
            on(n, &b)
        case .newFileProtection(let d, let p, let cls, let state, let from):
            b += newFileWords(d, p, cls, state, from)
        case .tunable(let n, let d, let t, let v):
            b += tunableWords(n, d, t, v)
        }
    }

    /// "fs.protected_symlinks=1: /tmp/l is owned by bob; /tmp (mode 1777) is owned by root"
    func tunableWords(_ n: NodeID, _ d: NodeID, _ t: LinuxTunable, _ v: UInt8) -> String {
        var s = "\(t.sysctl)=\(v)"
        if n >= 0 { s += ": \(path(n)) is owned by \(world.userName(world[n].uid))" }
        if d >= 0 { s += "; \(path(d)) (mode \(world[d].mode.octal)) is owned by \(world.userName(world[d].uid))" }
        return s
    }

    /// "/x/new.txt would be class complete (A, from /x); the class A key is discarded while the device is locked"
    func newFileWords(_ dir: NodeID, _ p: String, _ cls: ProtectionClass, _ state: DeviceState, _ from: ProtectionSource) -> String {
        let origin: String
        switch from {
        case .directory(let d): origin = d == dir ? "its folder's class" : "inherited from " + path(d)
        case .entitlement: origin = "the app's default-data-protection entitlement"
        case .platformDefault: origin = "an iOS app's default"
        }
        let head = "new file \(p) would be class \(cls.word) (\(cls.letter), \(origin))"
        switch (cls, state) {
        case (.complete, .locked):
            return head + "; the class A key, needed to wrap the new file's key, is discarded while the device is locked"
        case (.complete, .beforeFirstUnlock), (.completeUntilFirstUserAuthentication, .beforeFirstUnlock):
            return head + "; the class \(cls.letter) key, needed to wrap the new file's key, is not available until the first unlock since boot"
        case (.completeUnlessOpen, .locked), (.completeUnlessOpen, .beforeFirstUnlock):
            return head + "; class B wraps new files' keys with its public key, available with the device \(stateWords(state))"
        default:
            return head + "; the class \(cls.letter) key is available with the device \(stateWords(state))"
        }
    }

    /// The path a name missing from directory `d` would have.
    func missingPath(_ d: NodeID, _ name: String) -> String {
        let base = path(d)
        return base == "/" ? "/" + name : base + "/" + name
    }

    /// What a path-lookup step that is not a search check found, in words: "/x/new does not
    /// exist", "/x exists", "/x is not a directory", "too many symlinks at /x"; nil for a search.
    func lookupWords(_ rule: RuleID, _ n: NodeID, _ e: Evidence) -> String? {
        switch rule {
        case .notFound:
            if case .missing = e { return evidence(e) }
            return path(n) + " does not exist"
        case .exists: return path(n) + " exists"
        case .notADirectory: return path(n) + " is not a directory"
        case .symlinkLoop: return "too many symlinks at " + path(n)
        default: return nil
        }
    }

    func stateWords(_ s: DeviceState) -> String {
        switch s {
        case .unlocked: "unlocked"
        case .locked: "locked"
        case .beforeFirstUnlock: "not unlocked since boot"
        }
    }

    /// Flag names as the rule set's platform spells them (`immutable` on Linux, `schg` on macOS).
    public func flagNames(_ f: FileFlags) -> [String] {
        guard policy.semantics == .linux else { return f.names }
        var w: [String] = []
        if f.contains(.systemImmutable) { w.append("immutable") }
        if f.contains(.userImmutable) { w.append("uchg") }
        if f.contains(.systemAppend) { w.append("append") }
        if f.contains(.userAppend) { w.append("uappnd") }
        if f.contains(.userNoDump) { w.append("nodump") }
        return w.isEmpty ? f.names : w
    }

    public func posixEntryText(_ tag: POSIXACLLine.Tag, _ perms: RWX) -> String {
        switch tag {
        case .userObj: return "user::" + perms.text
        case .user(let u): return "user:" + world.userName(u) + ":" + perms.text
        case .groupObj: return "group::" + perms.text
        case .group(let g): return "group:" + world.groupName(g) + ":" + perms.text
        case .mask: return "mask::" + perms.text
        case .other: return "other::" + perms.text
        }
    }

    /// The contract's one line: `allow`, or `deny EACCES (acl: ACE #2 "user:bob deny write")`.
    public func oneLine(_ d: Decision, target: NodeID? = nil) -> String {
        if d.allowed { return "allow" }
        var detail = evidence(d.evidence, relativeTo: target)
        switch d.rule {
        case .searchDenied: detail = "no search on " + path(d.node) + ": " + evidence(d.evidence, relativeTo: d.node)
        case .notFound, .notADirectory, .exists, .symlinkLoop: detail = lookupWords(d.rule, d.node, d.evidence) ?? detail
        default: if detail.isEmpty { detail = d.rule.rawValue }
        }
        return "deny \(d.errno?.rawValue ?? "?") (\(d.layer.rawValue): \(detail))"
    }

    /// Where a piece of evidence was written in the policy file, if known.
    public func sourceLocation(_ e: Evidence) -> SourceLocation? {
        switch e {
        case .ace(let n, let i, _):
            let p = world.path(of: n)
            if let locs = policy.aceLocations[p], i < locs.count { return locs[i] }
            return policy.nodeLocations[n]
        case .app(_, let f):
            guard let src = policy.appSources[f.app] else { return nil }
            if let k = f.key, let l = src.entitlements[k] { return l }
            if let k = f.key, let l = src.tcc[k] { return l }
            if let k = f.key, k.hasSuffix("UsageDescription"), let l = src.info { return l }
            return src.location
        case .protection(let n, _, _, _):
            return n >= 0 ? policy.nodeLocations[n] : nil
        case .newFileProtection(_, _, _, _, let from):
            if case .directory(let d) = from { return policy.nodeLocations[d] }
            return nil
        case .tunable(let n, _, let t, _):
            if let l = policy.linuxLocations[t.rawValue] { return l }
            return n >= 0 ? policy.nodeLocations[n] : nil
        case .mode(let n, _, _, _), .flag(let n, _), .sticky(let n), .posixEntry(let n, _, _, _), .identity(let n, _, _, _, _), .node(let n):
            return n >= 0 ? policy.nodeLocations[n] : nil
        default: return nil
        }
    }

    func verdictWord(_ v: Verdict) -> String {
        switch v {
        case .allow: style.green("allow")
        case .deny: style.red("deny")
        case .defer: style.yellow("defer")
        case .note: style.dim("note")
        }
    }

    /// One line per trace step, numbered, indented by depth.
    public func trace(_ d: Decision, indent: String = "  ") -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(d.trace.count)
        forEachTraceLine(d, indent: indent) { lines.append($0) }
        return lines
    }

    /// The lines of `trace(_:indent:)`, each followed by a newline, appended to `out`.
    public func appendTrace(_ d: Decision, indent: String = "  ", to out: inout String) {
        var b = TextBuffer()
        appendTrace(d, indent: indent, to: &b)
        out += b.string
    }

    /// The same, into a byte buffer.
    func appendTrace(_ d: Decision, indent: String, to b: inout TextBuffer) {
        forEachTraceLine(d, indent: indent, into: &b) { b in b += "\n" }
    }

    func forEachTraceLine(_ d: Decision, indent: String, _ body: (String) -> Void) {
        var b = TextBuffer()
        forEachTraceLine(d, indent: indent, into: &b) { b in
            body(b.string)
            b.removeAll()
        }
    }

    /// Writes each trace line into `b`, calling `lineDone` after each.
    func forEachTraceLine(_ d: Decision, indent: String, into b: inout TextBuffer, lineDone: (inout TextBuffer) -> Void) {
        // A node whose attributes are assumed (not read from the host) is marked in each step.
        let assumed = world.assumedNodes
        let paths = d.trace.map { s in path(s.node) + (s.node >= 0 && !assumed.isEmpty && assumed.contains(s.node) ? " (assumed)" : "") }
        let width = max(12, paths.map(TextRenderer.width).max() ?? 0)
        let last = d.trace.count - 1
        for (i, s) in d.trace.enumerated() {
            // The last line is bold: written apart, then wrapped.
            var line = TextBuffer(reserve: 0)
            let bold = i == last && style.enabled
            if bold { swap(&line, &b) }
            b += indent
            let num = i + 1
            b.spaces(max(0, 3 - (num < 10 ? 1 : num < 100 ? 2 : String(num).utf8.count)))
            b.append(num)
            b += "  "
            b.padded(s.layer.rawValue, 10)
            b.padded(paths[i], width + 2)
            b += verdictWord(s.verdict)
            b.spaces(max(1, 7 - s.verdict.rawValue.utf8.count))
            func bracketedRule(_ b: inout TextBuffer) {
                b += "  "
                if style.enabled { b += style.dim("[" + s.rule.rawValue + "]") } else { b += "["; b += s.rule.rawValue; b += "]" }
            }
            if s.layer == .traversal, let words = lookupWords(s.rule, s.node, s.evidence) {
                b += words
                bracketedRule(&b)
            } else {
                let before = b.count
                if s.layer == .traversal {
                    b += "search"
                    let mark = b.count
                    appendEvidence(s.evidence, relativeTo: s.node, to: &b)
                    if b.count > mark { b.insert(": ", at: mark) }
                } else {
                    appendEvidence(s.evidence, relativeTo: s.node, to: &b)
                }
                if b.count == before { b += s.rule.rawValue } else { bracketedRule(&b) }
            }
            if s.verdict == .defer && !s.remaining.isEmpty {
                b += style.dim("  undecided: " + rights(s.remaining, node: s.node))
            }
            if bold {
                swap(&line, &b)
                b += style.bold(line.string)
            }
            lineDone(&b)
        }
    }

    /// The width `pad` counts: characters (one per ASCII byte).
    static func width(_ s: String) -> Int {
        let ascii = s.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? false
        return ascii ? s.utf8.count : s.count
    }

    func pad(_ s: String, _ w: Int, min: Int = 0) -> String {
        let visible = style.enabled ? s.count : s.count
        let target = Swift.max(w, min)
        return visible >= target ? s + " " : s + String(repeating: " ", count: target - visible)
    }

    public func subjectLine(uid: UID, semantics: Semantics = .macos) -> String {
        let s = world.subject(uid: uid)
        let name = world.user(uid: uid)?.name ?? "uid \(uid)"
        // Linux knows neither `everyone` nor nested groups.
        let groups = s.groups.filter { semantics != .linux || (s.isDirectMember($0) && $0 != WellKnown.everyoneGID) }.map { world.groupName($0) }
        return "\(name) (uid \(uid); groups \(groups.joined(separator: ", ")))"
    }

    public func question(_ spec: RequestSpec, who: String) -> String {
        var q = "can \(who) \(spec.op.word) \(spec.path)"
        if let t = spec.to { q += " to \(t)" }
        if let m = spec.mode { q += " (mode \(m.octal))" }
        if let o = spec.owner { q += " (owner \(world.userName(o)))" }
        if let g = spec.group { q += " (group \(world.groupName(g)))" }
        if let f = spec.flags { q += " (flags \(f.names.isEmpty ? "none" : f.names.joined(separator: ",")))" }
        if spec.aclGiven { q += " (acl with \(spec.acl?.count ?? 0) entries)" }
        return q + "?"
    }

    /// The full explanation a learner reads.
    public func explain(_ d: Decision, spec: RequestSpec, uid: UID, who: String, semantics: Semantics) -> String {
        explain(d, spec: spec, subject: .user(uid), who: who, semantics: semantics)
    }

    /// The full explanation, for a user or an app.
    public func explain(_ d: Decision, spec: RequestSpec, subject: SubjectRef, who: String, semantics: Semantics) -> String {
        var out: [String] = []
        out.append(style.bold("Question:") + " " + question(spec, who: who) + "  [semantics: \(semantics.rawValue)]")
        out.append(style.bold("Subject:") + "  " + subjectLine(subject, semantics: semantics))
        let target = world.lookup(spec.path)
        let answer = d.allowed ? style.green("allow") : style.red("deny " + (d.errno?.rawValue ?? ""))
        out.append(style.bold("Answer:") + "   " + answer + " — decided by the \(d.layer.rawValue) layer, rule \(d.rule.rawValue)")
        let ev = evidence(d.evidence)
        if !ev.isEmpty {
            var line = "          " + ev
            if let loc = sourceLocation(d.evidence) { line += "  (" + loc.description + ")" }
            out.append(line)
        }
        out.append("")
        out.append(style.bold("Steps") + ", in the order the rule set takes them:")
        out.append(contentsOf: learnerTrace(d))
        out.append("")
        let info = d.rule.info(for: semantics)
        out.append(style.bold("Why:") + " rule \(info.number) (\(d.rule.rawValue)): \(info.summary).")
        out.append(style.bold("Source:") + " \(info.source).")
        let guideNotes = d.trace.filter { $0.rule.rawValue.hasPrefix("guide.") && $0.rule != d.rule }
        for g in guideNotes { out.append(style.bold("Note:") + " \(g.rule.info(for: semantics).summary).") }
        for n in d.notes { out.append(style.bold("Note:") + " " + n) }
        _ = target
        return out.joined(separator: "\n")
    }
}

/// Text written as UTF-8 bytes, turned into a String once: the renderers' pieces are appended
/// without String's per-append checks.
struct TextBuffer {
    var bytes: [UInt8] = []
    init(reserve: Int = 256) { if reserve > 0 { bytes.reserveCapacity(reserve) } }
    var count: Int { bytes.count }
    var string: String { String(decoding: bytes, as: UTF8.self) }
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }
    static func += (b: inout TextBuffer, s: String) {
        var s = s
        s.withUTF8 { b.bytes.append(contentsOf: $0) }
    }
    mutating func append(_ n: Int) {
        if n >= 0 && n < 10 { bytes.append(UInt8(48 + n)) } else { self += String(n) }
    }
    /// `rwx`, a dash for each missing right.
    mutating func append(_ r: RWX) {
        bytes.append(r.contains(.read) ? 0x72 : 0x2d)
        bytes.append(r.contains(.write) ? 0x77 : 0x2d)
        bytes.append(r.contains(.execute) ? 0x78 : 0x2d)
    }
    mutating func spaces(_ n: Int) {
        if n > 0 { bytes.append(contentsOf: repeatElement(0x20, count: n)) }
    }
    /// `s`, then spaces up to `w` characters (at least one).
    mutating func padded(_ s: String, _ w: Int) {
        self += s
        let v = TextRenderer.width(s)
        spaces(v >= w ? 1 : w - v)
    }
    mutating func insert(_ s: String, at i: Int) { bytes.insert(contentsOf: Array(s.utf8), at: i) }
}
