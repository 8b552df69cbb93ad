import FSPolicy
import FSPolicyFormat

/// Text for decisions and traces: pure functions over the decision and the policy. A class, so
/// that handing one renderer to each line written does not copy the policy and the world.
public final class TextRenderer: Sendable {
    public let policy: Policy
    public let style: Style
    /// The world rendered (the policy's, or one after some steps).
    public let world: World
    /// Trace steps already written as JSON (see `StepJSONCache`), or nil.
    let stepCache: StepJSONCache?
    /// Made by `on(_:)` for a decision taken in a service's view: `world` is that view's.
    let forView: Bool

    public convenience init(policy: Policy, style: Style = Style(enabled: false), world: World? = nil) {
        self.init(policy: policy, style: style, world: world ?? policy.world, stepCache: nil)
    }

    init(policy: Policy, style: Style, world: World, stepCache: StepJSONCache?, forView: Bool = false) {
        self.policy = policy
        self.style = style
        self.world = world
        self.stepCache = stepCache
        self.forView = forView
    }

    /// The renderer of `d`'s nodes: this one, or, for a decision taken in a service's view that
    /// replaces or binds paths (U5), one that reads that view's world, so that every owner, mode
    /// and path shown is the node the service meets, not the host's.
    public func on(_ d: Decision) -> TextRenderer {
        guard !forView, let w = d.viewWorld else { return self }
        return TextRenderer(policy: policy, style: style, world: w, stepCache: nil, forView: true)
    }
    /// `d` was taken in a view this renderer does not show.
    @inline(__always) func elsewhere(_ d: Decision) -> Bool { !forView && d.viewWorld != nil }

    /// This renderer with a cache of the JSON of the trace steps it writes, for one thread.
    package func cachingSteps() -> TextRenderer {
        TextRenderer(policy: policy, style: style, world: world, stepCache: StepJSONCache())
    }

    /// getfacl lines of an ACL with this world's names.
    public func posixLines(_ a: POSIXACL, prefix: String = "", effective: Bool = false) -> [String] {
        a.lines(prefix: prefix, user: { world.userName($0) }, group: { world.groupName($0) }, effective: effective)
    }

    func path(_ n: NodeID) -> String { n < 0 ? "-" : world.path(of: n) }

    /// `path(n)`'s bytes appended to `b`, without making the string.
    public func appendPath(_ n: NodeID, to b: inout ByteBuffer) {
        if n < 0 { b.append(0x2D); return }
        b.appendSized(slack: 8) { room in world.writePath(of: n, room: room) }
    }

    func isDir(_ n: NodeID) -> Bool? { n < 0 ? nil : world[n].isDir }

    public func rights(_ r: AccessRights, node: NodeID) -> String {
        let t = r.text(forDirectory: isDir(node))
        return t.isEmpty ? "-" : t
    }

    /// `ACE #2 "user:bob deny write"`, `other bits r-- need w`, `flag uchg`, …
    public func evidence(_ e: Evidence, relativeTo target: NodeID? = nil) -> String {
        var b = ByteBuffer(capacity: 128)
        appendEvidence(e, relativeTo: target, to: &b)
        return b.string
    }

    /// `evidence(_:relativeTo:)` appended to `b` (the one place its words are written).
    public func appendEvidence(_ e: Evidence, relativeTo target: NodeID?, to b: inout ByteBuffer) {
        func on(_ n: NodeID, _ b: inout ByteBuffer) { if n != target { b.append(" on "); appendPath(n, to: &b) } }
        switch e {
        case .none: return
        case .ace(let n, let i, let ace):
            b.append("ACE #"); b.append(decimal: i); b.append(" \""); b.append(string: world.aceText(ace, forDirectory: world[n].isDir)); b.append("\"")
            on(n, &b)
        case .posixEntry(let n, let tag, let perms, let mask):
            b.append("ACL entry `"); appendPosixEntry(tag, perms, to: &b); b.append("`")
            if let m = mask, !perms.isSubset(of: m) {
                b.append(" (mask "); b.append(m); b.append(": effective "); b.append(perms.intersection(m)); b.append(")")
            }
            on(n, &b)
        case .mode(let n, .any, let needed, _):
            b.append("no class has "); b.append(needed); b.append(" in mode "); b.append(string: world[n].mode.octal)
            on(n, &b)
        case .mode(let n, let cls, let needed, let has):
            b.append(string: cls.rawValue); b.append(" bits "); b.append(has)
            if needed.isSubset(of: has) { b.append(" grant "); b.append(needed) } else { b.append(" lack "); b.append(needed.subtracting(has)) }
            on(n, &b)
        case .flag(let n, let f): b.append("flag "); b.append(string: flagNames(f).joined(separator: ",")); on(n, &b)
        case .sticky(let n): b.append("sticky bit"); on(n, &b)
        case .identity(let n, let uid, let gid, let fu, let fg):
            b.append(string: "seen as \(world.userName(uid)):\(world.groupName(gid)) (stored \(world.userName(fu)):\(world.groupName(fg)))")
            on(n, &b)
        case .volume(let m): b.append("volume "); b.append(string: m)
        case .view(_, let e):
            b.append(string: e.option); b.append(" ("); b.append(string: e.place); b.append(") mounts ")
            b.append(string: e.phrase)
        case .node(let n): if n != target { appendPath(n, to: &b) }
        case .missing(let d, let name): b.append(string: missingPath(d, name)); b.append(" does not exist")
        case .unread(let d, let name, let why): b.append(string: unreadWords(d, name, why))
        case .app(_, let f):
            b.append(string: f.text)
            if !f.wouldAllow.isEmpty { b.append("; would be allowed by "); b.append(string: f.wouldAllow.joined(separator: ", or ")) }
        case .protection(let n, let cls, let state, let open):
            b.append(string: "class \(cls.word) with the device \(stateWords(state))")
            if open { b.append(" (a handle open from before the lock)") }
            on(n, &b)
        case .newFileProtection(let d, let p, let cls, let state, let from):
            b.append(string: newFileWords(d, p, cls, state, from))
        case .tunable(let n, let d, let t, let v):
            b.append(string: tunableWords(n, d, t, v))
        case .capability(let n, let c, let held):
            b.append(string: c.upperNames.joined(separator: ", "))
            b.append(held ? " in the effective set" : " not in the effective set")
            on(n, &b)
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
    /// "/usr/bin is not known: the entries of / were not read (only the way to the scanned
    /// folders was read)"; "the target of /etc/x was not read (…)"; "whether /d is empty is
    /// not known: its entries were not read (…)".
    func unreadWords(_ d: NodeID, _ name: String?, _ why: UnreadReason) -> String {
        if let name { return "\(missingPath(d, name)) is not known: the entries of \(path(d)) were not read (\(why.phrase))" }
        if d >= 0 && world[d].type == .symlink { return "the target of \(path(d)) was not read (\(why.phrase))" }
        return "the entries of \(path(d)) were not read (\(why.phrase))"
    }

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
        case .symlinkFollowed: return "symlink " + path(n) + " -> " + (world.symlinkTargets[n] ?? "")
        case .notRead: return evidence(e)
        case .dotDot:
            if case .node(let up) = e { return "`..` of " + path(n) + " is " + path(up) }
            return nil
        default: return nil
        }
    }

    /// The key under which the text of a trace line after its path column is kept, for a
    /// renderer that keeps what it wrote (`stepCache`) and writes no colours: a step whose
    /// evidence is its own node's mode bits, which are then all that text says besides fixed
    /// words (its verdict, class, bits, rule, undecided rights, whether the node is a
    /// directory), each part of the step's template key (`StepJSONCache.keys`). Bit 61 of the
    /// first word, which no other key of the cache has, sets these keys apart. Nil for any
    /// other step (a lookup's words name what was looked up).
    func textTailKey(_ p: UnsafePointer<TraceStep>) -> StepJSONCache.Key? {
        guard stepCache != nil, !style.enabled, !(p.pointee.layer == .traversal && TextRenderer.hasLookupWords(p.pointee.rule)),
            let k = StepJSONCache.keys(p, in: world), k.holes.0 == k.holes.1
        else { return nil }
        return StepJSONCache.Key(a: k.template.a | 1 << 61, b: k.template.b, c: k.template.c)
    }

    /// The rules `lookupWords` has words for (asked before a step's evidence is read).
    static func hasLookupWords(_ rule: RuleID) -> Bool {
        switch rule {
        case .notFound, .exists, .notADirectory, .symlinkLoop, .symlinkFollowed, .notRead, .dotDot: true
        default: false
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

    /// `posixEntryText(tag, perms)` appended to `b`.
    func appendPosixEntry(_ tag: POSIXACLLine.Tag, _ perms: RWX, to b: inout ByteBuffer) {
        switch tag {
        case .userObj: b.append("user::")
        case .user(let u): b.append("user:"); b.append(string: world.userName(u)); b.append(0x3A)
        case .groupObj: b.append("group::")
        case .group(let g): b.append("group:"); b.append(string: world.groupName(g)); b.append(0x3A)
        case .mask: b.append("mask::")
        case .other: b.append("other::")
        }
        b.append(perms)
    }

    public func posixEntryText(_ tag: POSIXACLLine.Tag, _ perms: RWX) -> String {
        var b = ByteBuffer(capacity: 32)
        appendPosixEntry(tag, perms, to: &b)
        return b.string
    }

    /// The contract's one line: `allow`, or `deny EACCES (acl: ACE #2 "user:bob deny write")`.
    public func oneLine(_ d: Decision, target: NodeID? = nil) -> String {
        if d.allowed { return "allow" }
        if elsewhere(d) { return on(d).oneLine(d, target: target) }
        var b = ByteBuffer(capacity: 128)
        appendOneLine(d, target: target, to: &b)
        return b.string
    }

    /// The `target` for `oneLine` and `appendOneLine` of `d`, a decision on `path`: the node
    /// the path names, looked up only when the words use it (not for a grant, nor for a search
    /// denial, which names its directory instead). A report of many failures saves a lookup each.
    public func oneLineTarget(_ d: Decision, path: String) -> NodeID? {
        d.allowed || d.rule == .searchDenied ? nil : on(d).world.lookup(path)
    }

    /// `oneLine(d, target:)` appended to `b`.
    public func appendOneLine(_ d: Decision, target: NodeID?, to b: inout ByteBuffer) {
        if d.allowed { b.append("allow"); return }
        if elsewhere(d) { on(d).appendOneLine(d, target: target, to: &b); return }
        if d.unknown {
            b.append("unknown (")
            b.append(string: d.layer.rawValue)
            b.append(": ")
            // A folder not read says which; a rule the reference facts leave open names itself.
            if d.rule == .notRead { appendEvidence(d.evidence, relativeTo: nil, to: &b) } else { b.append(string: d.rule.rawValue) }
            b.append(")")
            return
        }
        b.append("deny ")
        b.append(string: d.errno?.rawValue ?? "?")
        b.append(" (")
        b.append(string: d.layer.rawValue)
        b.append(": ")
        switch d.rule {
        case .searchDenied:
            b.append("no search on "); appendPath(d.node, to: &b); b.append(": ")
            appendEvidence(d.evidence, relativeTo: d.node, to: &b)
        case .notFound, .notADirectory, .exists, .symlinkLoop:
            if let w = lookupWords(d.rule, d.node, d.evidence) { b.append(string: w) } else { appendEvidence(d.evidence, relativeTo: target, to: &b) }
        default:
            let mark = b.count
            appendEvidence(d.evidence, relativeTo: target, to: &b)
            if b.count == mark { b.append(string: d.rule.rawValue) }
        }
        b.append(")")
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
        case .mode(let n, _, _, _), .flag(let n, _), .sticky(let n), .posixEntry(let n, _, _, _), .identity(let n, _, _, _, _), .node(let n),
            .capability(let n, _, _):
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
        case .unknown: style.yellow("unknown")
        }
    }

    /// One line per trace step, numbered, indented by depth.
    public func trace(_ d: Decision, indent: String = "  ") -> [String] {
        if elsewhere(d) { return on(d).trace(d, indent: indent) }
        var lines: [String] = []
        lines.reserveCapacity(d.trace.count)
        forEachTraceLine(d, indent: indent) { lines.append($0) }
        return lines
    }

    /// The lines of `trace(_:indent:)`, each followed by a newline, appended to `out`.
    public func appendTrace(_ d: Decision, indent: String = "  ", to out: inout String) {
        var b = ByteBuffer(capacity: 1024)
        appendTrace(d, indent: indent, to: &b)
        out += b.string
    }

    /// The same, into a byte buffer.
    public func appendTrace(_ d: Decision, indent: String, to b: inout ByteBuffer) {
        if elsewhere(d) { on(d).appendTrace(d, indent: indent, to: &b); return }
        forEachTraceLine(d, indent: indent, into: &b) { b in b.append(0x0A) }
    }

    func forEachTraceLine(_ d: Decision, indent: String, _ body: (String) -> Void) {
        var b = ByteBuffer(capacity: 256)
        forEachTraceLine(d, indent: indent, into: &b) { b in
            body(b.string)
            b.removeAll()
        }
    }

    /// Writes each trace line into `b`, calling `lineDone` after each.
    func forEachTraceLine(_ d: Decision, indent: String, into b: inout ByteBuffer, lineDone: (inout ByteBuffer) -> Void) {
        d.trace.withUnsafeBufferPointer { steps in
            forEachTraceLine(steps, indent: indent, into: &b, lineDone: lineDone)
        }
    }

    private func forEachTraceLine(_ steps: UnsafeBufferPointer<TraceStep>, indent: String, into b: inout ByteBuffer, lineDone: (inout ByteBuffer) -> Void) {
        // A node whose attributes are assumed (not read from the host) is marked in each step.
        let assumed = world.assumedNodes
        // Every step's path, written once into one buffer; the column is as wide as the widest.
        var paths = ByteBuffer(capacity: 512)
        withUnsafeTemporaryAllocation(of: (end: Int, width: Int).self, capacity: steps.count) { ends in
            var width = 12
            for i in steps.indices {
                let node = steps[i].node
                let start = paths.count
                appendPath(node, to: &paths)
                if node >= 0 && !assumed.isEmpty && assumed.contains(node) { paths.append(" (assumed)") }
                let w = TextRenderer.width(paths.bytes(from: start))
                ends[i] = (paths.count, w)
                width = max(width, w)
            }
            let last = steps.count - 1
            for i in steps.indices {
                let layer = steps[i].layer, node = steps[i].node, rule = steps[i].rule, verdict = steps[i].verdict
                // The last line is bold: marked around once it is written.
                let lineStart = b.count
                let bold = i == last && style.enabled
                b.append(string: indent)
                let num = i + 1
                if num < 10 { b.append("  ") } else if num < 100 { b.append(0x20) }
                b.append(decimal: num)
                b.append("  ")
                let layerWord = layer.rawValue
                b.append(string: layerWord)
                b.spaces(max(1, 10 - layerWord.utf8.count))
                b.append(paths.bytes(from: i == 0 ? 0 : ends[i - 1].end, to: ends[i].end))
                b.spaces(max(1, width + 2 - ends[i].width))
                // The rest of the line is kept and copied for steps of one template whose
                // evidence is their own node's mode bits (no path in it): see `textTailKey`.
                let tailKey = textTailKey(steps.baseAddress! + i)
                if let tailKey, let cache = stepCache, let kept = cache.find(tailKey) {
                    b.append(cache.bytes.bytes(from: kept.start, to: kept.start + kept.count))
                    cache.textTailUses += 1
                    lineDone(&b)
                    continue
                }
                let tailStart = b.count
                switch verdict {
                case .allow: style.begin("32", &b); b.append("allow"); style.end(&b); b.append("  ")
                case .deny: style.begin("31", &b); b.append("deny"); style.end(&b); b.append("   ")
                case .defer: style.begin("33", &b); b.append("defer"); style.end(&b); b.append("  ")
                case .note: style.begin("2", &b); b.append("note"); style.end(&b); b.append("   ")
                case .unknown: style.begin("33", &b); b.append("unknown"); style.end(&b); b.append(" ")
                }
                var bracketed = true
                if layer == .traversal, TextRenderer.hasLookupWords(rule),
                    let words = lookupWords(rule, node, steps[i].evidence)
                {
                    b.append(string: words)
                } else {
                    let before = b.count
                    if layer == .traversal {
                        b.append("search")
                        let mark = b.count
                        appendEvidence(steps[i].evidence, relativeTo: node, to: &b)
                        if b.count > mark { b.insert(": ", at: mark) }
                    } else {
                        appendEvidence(steps[i].evidence, relativeTo: node, to: &b)
                    }
                    if b.count == before { b.append(string: rule.rawValue); bracketed = false }
                }
                if bracketed {
                    b.append("  ")
                    style.begin("2", &b)
                    b.append(0x5B); b.append(string: rule.rawValue); b.append(0x5D)
                    style.end(&b)
                }
                if verdict == .defer && !steps[i].remaining.isEmpty {
                    style.begin("2", &b)
                    b.append("  undecided: ")
                    b.append(string: rights(steps[i].remaining, node: node))
                    style.end(&b)
                }
                if let tailKey, let cache = stepCache { cache.keep(tailKey, b.bytes(from: tailStart)) }
                if bold {
                    Style.boldMarks.withUnsafeBufferPointer { b.insert($0, at: lineStart) }
                    style.end(&b)
                }
                lineDone(&b)
            }
        }
    }

    /// The width `pad` counts: characters (one per ASCII byte).
    static func width(_ s: String) -> Int {
        let ascii = s.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? false
        return ascii ? s.utf8.count : s.count
    }

    /// The same for text given as bytes.
    static func width(_ u: UnsafeBufferPointer<UInt8>) -> Int {
        u.contains { $0 >= 0x80 } ? String(decoding: u, as: UTF8.self).count : u.count
    }

    func pad(_ s: String, _ w: Int, min: Int = 0) -> String {
        let visible = style.enabled ? s.count : s.count
        let target = Swift.max(w, min)
        return visible >= target ? s + " " : s + String(repeating: " ", count: target - visible)
    }

    public func subjectLine(uid: UID, semantics: Semantics = .macos) -> String {
        let s = world.subject(uid: uid)
        let name = world.user(uid: uid)?.name ?? "uid \(uid)"
        // Linux knows neither `everyone` nor nested groups (gid 12 is shown when it is a group
        // of the world's own, Debian's `man`).
        let groups = s.groups.filter {
            semantics != .linux || (s.isDirectMember($0) && ($0 != WellKnown.everyoneGID || !world.implicitEveryone))
        }.map { world.groupName($0) }
        return "\(name) (uid \(uid); groups \(groups.joined(separator: ", ")))"
    }

    public func question(_ spec: RequestSpec, who: String) -> String {
        var q = "can \(who) \(spec.op.word) \(spec.path)"
        if let t = spec.to { q += " to \(t)" }
        if let m = spec.mode { q += " (mode \(m.octal))" }
        let chown = spec.op == .chown || spec.op == .lchown
        if let o = spec.owner { q += " (owner \(world.userName(o)))" } else if chown { q += " (owner -1)" }
        if let g = spec.group { q += " (group \(world.groupName(g)))" } else if chown { q += " (group -1)" }
        if let f = spec.openFlags { q += " (flags \(f.words.joined(separator: "|")))" }
        if spec.op == .settimes && (spec.atime != nil || spec.mtime != nil) {
            q += " (atime \((spec.atime ?? .set).word), mtime \((spec.mtime ?? .set).word))"
        }
        if let t = spec.deviceType { q += " (\(t.word))" }
        if let f = spec.flags { q += " (flags \(f.isEmpty ? "none" : flagNames(f).joined(separator: ",")))" }
        if spec.aclGiven { q += " (acl with \(spec.acl?.count ?? 0) entries)" }
        return q + "?"
    }

    /// The full explanation a learner reads.
    public func explain(_ d: Decision, spec: RequestSpec, uid: UID, who: String, semantics: Semantics) -> String {
        explain(d, spec: spec, subject: .user(uid), who: who, semantics: semantics)
    }

    /// The full explanation, for a user or an app.
    public func explain(_ d: Decision, spec: RequestSpec, subject: SubjectRef, who: String, semantics: Semantics) -> String {
        if elsewhere(d) { return on(d).explain(d, spec: spec, subject: subject, who: who, semantics: semantics) }
        var out: [String] = []
        out.append(style.bold("Question:") + " " + question(spec, who: who) + "  [semantics: \(semantics.rawValue)]")
        out.append(style.bold("Subject:") + "  " + subjectLine(subject, semantics: semantics))
        let target = world.lookup(spec.path)
        let answer = d.allowed ? style.green("allow") : d.unknown ? style.yellow("unknown") : style.red("deny " + (d.errno?.rawValue ?? ""))
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
