import FSPolicy
import FSPolicyFormat

extension TextRenderer {
    public func json(_ e: Evidence) -> JSON {
        var t = JSONTree()
        emit(e, to: &t)
        return t.result
    }

    public func json(_ d: Decision, spec: RequestSpec, who: String, semantics: Semantics) -> JSON {
        var t = JSONTree()
        emit(d, spec: spec, who: who, semantics: semantics, to: &t)
        return t.result
    }

    /// The JSON of a piece of evidence.
    public func emit<O: JSONOutput & ~Copyable>(_ e: Evidence, to o: inout O) {
        switch e {
        case .none: o.null()
        case .ace(let n, let i, let ace):
            o.beginObject()
            o.field("kind", "ace"); o.key("path"); emitPath(n, to: &o); o.field("index", i)
            o.field("text", world.aceText(ace, forDirectory: world[n].isDir))
            if let l = sourceLocation(e) { o.field("source", l.description) }
            o.endObject()
        case .posixEntry(let n, let tag, let perms, let mask):
            o.beginObject()
            o.field("kind", "posixEntry"); o.key("path"); emitPath(n, to: &o); o.field("entry", posixEntryText(tag, perms))
            o.field("perms", perms.text); o.field("mask", mask.map(\.text))
            o.endObject()
        case .mode(let n, let cls, let needed, let has):
            o.beginObject()
            o.field("kind", "mode"); o.key("path"); emitPath(n, to: &o); o.field("class", cls.rawValue)
            o.field("needed", needed.text); o.field("bits", has.text); o.field("mode", world[n].mode.octal)
            o.endObject()
        case .flag(let n, let f):
            o.beginObject(); o.field("kind", "flag"); o.key("path"); emitPath(n, to: &o); o.strings("flags", flagNames(f)); o.endObject()
        case .sticky(let n):
            o.beginObject(); o.field("kind", "sticky"); o.key("path"); emitPath(n, to: &o); o.endObject()
        case .identity(let n, let uid, let gid, let fu, let fg):
            o.beginObject()
            o.field("kind", "identity"); o.key("path"); emitPath(n, to: &o); o.field("owner", world.userName(uid))
            o.field("group", world.groupName(gid)); o.field("storedOwner", world.userName(fu))
            o.field("storedGroup", world.groupName(fg))
            o.endObject()
        case .volume(let m): o.beginObject(); o.field("kind", "volume"); o.field("mountPath", m); o.endObject()
        case .view(let n, let e):
            o.beginObject(); o.field("kind", "unitView"); o.key("path"); emitPath(n, to: &o)
            o.field("option", e.option); o.field("place", e.place); o.field("mountPath", e.path)
            o.field("mode", e.mode.word); o.endObject()
        case .node(let n): o.beginObject(); o.field("kind", "node"); o.key("path"); emitPath(n, to: &o); o.endObject()
        case .missing(let d, let name):
            o.beginObject(); o.field("kind", "missing")
            o.key("path")
            o.string { b in
                if d != World.root { appendPath(d, to: &b) }
                b.append(0x2F)
                b.append(string: name)
            }
            o.endObject()
        case .unread(let d, let name, let why):
            o.beginObject(); o.field("kind", "unread")
            o.key("path")
            o.string { b in
                if d != World.root || name == nil { appendPath(d, to: &b) }
                if let name { b.append(0x2F); b.append(string: name) }
            }
            o.key("unread"); o.string { b in appendPath(d, to: &b) }
            o.field("reason", why.rawValue)
            o.endObject()
        case .app(let n, let f):
            o.beginObject()
            o.field("kind", "app"); o.key("path"); emitPath(n, to: &o); o.field("app", f.app); o.field("text", f.text)
            o.field("key", f.key); o.field("entry", f.entry); o.strings("wouldAllow", f.wouldAllow)
            o.endObject()
        case .protection(let n, let cls, let state, let open):
            o.beginObject()
            o.field("kind", "protection"); o.key("path"); emitPath(n, to: &o); o.field("class", cls.word)
            o.field("deviceState", state.rawValue); o.field("openBeforeLock", open)
            o.endObject()
        case .newFileProtection(let d, let p, let cls, let state, let from):
            let origin: String
            switch from {
            case .directory(let n): origin = path(n)
            case .entitlement: origin = "entitlement"
            case .platformDefault: origin = "iosDefault"
            }
            o.beginObject()
            o.field("kind", "newFileProtection"); o.key("path"); emitPath(d, to: &o); o.field("newPath", p)
            o.field("class", cls.word); o.field("classFrom", origin); o.field("deviceState", state.rawValue)
            o.endObject()
        case .tunable(let n, let d, let t, let v):
            o.beginObject()
            o.field("kind", "tunable"); o.field("sysctl", t.sysctl); o.field("value", Int(v)); o.key("path"); emitPath(n, to: &o)
            if d >= 0 { o.key("dir"); emitPath(d, to: &o) }
            o.endObject()
        case .capability(let n, let c, let held):
            o.beginObject()
            o.field("kind", "capability"); o.strings("capabilities", c.upperNames); o.field("held", held)
            o.key("path"); emitPath(n, to: &o)
            o.endObject()
        }
    }

    /// The path of `n` as a string value, written from the world's names.
    @inline(__always)
    func emitPath<O: JSONOutput & ~Copyable>(_ n: NodeID, to o: inout O) {
        o.string { appendPath(n, to: &$0) }
    }

    /// The JSON of a decision (`fspolicy can --format json`, and each decision of a JSON report);
    /// without `trace` when `trace` is false.
    public func emit<O: JSONOutput & ~Copyable>(
        _ d: Decision, spec: RequestSpec, who: String, semantics: Semantics,
        trace: Bool = true, to o: inout O
    ) {
        if elsewhere(d) { on(d).emit(d, spec: spec, who: who, semantics: semantics, trace: trace, to: &o); return }
        // The fixed runs between the values given (`fields`), each keyed by what it says:
        // block 1 the start, 2 the operation, 3 the decision's own words.
        fields(&o, 1) { o in
            o.beginObject()
            o.field("schemaVersion", 1)
            o.key("request")
            o.beginObject()
            o.key("as")
        }
        o.string(who)
        // (An operation named by its rights has its own word: written each time.)
        let op = spec.op.wordIndex
        let word = spec.op.word
        if op >= 0 {
            fields(&o, 2 | UInt64(op) << 8) { o in
                o.field("op", plain: word); o.key("path")
            }
        } else {
            o.field("op", plain: word); o.key("path")
        }
        o.string(spec.path)
        if let t = spec.to { o.field("to", t) }
        if let m = spec.mode { o.field("mode", m.octal) }
        // (The closures take the few values they need, not the decision: a closure that
        // captured it would retain its arrays.)
        let allowed = d.allowed, errno = d.errno, layer = d.layer, rule = d.rule, unknown = d.unknown
        fields(
            &o,
            3 | StepJSONCache.tag(semantics) << 8 | (allowed ? 1 << 16 : 0) | (unknown ? 1 << 17 : 0) | StepJSONCache.tag(errno) << 24
                | UInt64(layer.ordinal) << 32 | UInt64(rule.ordinal) << 40
        ) { o in
            o.endObject()
            // fspolicy's own words (`EnumOrdinalTests` holds them plain).
            o.field("semantics", plain: semantics.rawValue)
            o.field("result", plain: allowed ? "allow" : unknown ? "unknown" : "deny")
            o.field("errno", plain: errno?.rawValue)
            o.field("layer", plain: layer.rawValue)
            o.field("rule", plain: rule.rawValue)
            o.key("summary")
        }
        if d.allowed {
            o.string("allow")
        } else {
            let target = oneLineTarget(d, path: spec.path)
            o.string(with: d) { d, b in appendOneLine(d, target: target, to: &b) }
        }
        o.key("decidedBy")
        if let cache = stepCache, let keys = StepJSONCache.keys(d.evidence, in: world) {
            o.element(cache: cache, keys: keys, hole: { appendPath($0, to: &$1) }) { o in emit(d.evidence, to: &o) }
        } else {
            emit(d.evidence, to: &o)
        }
        if trace {
            o.key("trace")
            o.beginArray()
            // Each step read where it is stored: `for s in d.trace` copies every one
            // (and the closure would copy it again).
            d.trace.withUnsafeBufferPointer { steps in
                if let cache = stepCache, o.traceSteps(cache: cache, steps, in: world) { return }
                for k in steps.indices {
                    let s = steps.baseAddress! + k
                    if let cache = stepCache, let keys = StepJSONCache.keys(s, in: world) {
                        o.element(cache: cache, keys: keys, hole: { appendPath($0, to: &$1) }) { o in emitStep(s.pointee, to: &o) }
                    } else {
                        emitStep(s.pointee, to: &o)
                    }
                }
            }
            o.endArray()
        }
        o.strings("notes", d.notes)
        o.endObject()
    }

    /// `body`'s fixed run through the renderer's cache when it has one (`JSONOutput.fields`).
    @inline(__always)
    package func fields<O: JSONOutput & ~Copyable>(_ o: inout O, _ key: UInt64, _ body: (inout O) -> Void) {
        if let cache = stepCache { o.fields(cache: cache, key: key, body) } else { body(&o) }
    }

    /// One step of a trace, as an object.
    func emitStep<O: JSONOutput & ~Copyable>(_ s: TraceStep, to o: inout O) {
        o.beginObject()
        o.field("layer", s.layer.rawValue); o.field("rule", s.rule.rawValue)
        o.field("verdict", s.verdict.rawValue)
        o.key("path"); emitPath(s.node, to: &o)
        o.key("requested")
        rightWords(s.requested, node: s.node, to: &o)
        o.key("undecided")
        rightWords(s.remaining, node: s.node, to: &o)
        o.key("evidence")
        emit(s.evidence, to: &o)
        o.field("depth", Int(s.depth))
        o.endObject()
    }

    /// The rights' words as an array of strings.
    func rightWords<O: JSONOutput & ~Copyable>(_ r: AccessRights, node: NodeID, to o: inout O) {
        o.beginArray()
        r.forEachWord(forDirectory: isDir(node)) { o.plain($0) }
        o.endArray()
    }
}
