import FSPolicy
import Foundation
import FSPolicyYAML

extension Compiler {
    // MARK: Requests shared by steps and expectations

    mutating func readSubject(_ n: YNode, context: String) -> (String, SubjectRef?) {
        guard let s = r.string(n, what: "`as`") else { return ("?", nil) }
        if let u = lookupUser(s) { return (s, .user(u)) }
        if let num = numericID(s) { return (s, .user(num)) }
        if p.appIDs.contains(s) { return (s, .app(s)) }
        if s.hasPrefix("service:") {
            let name = String(s.dropFirst("service:".count))
            if p.world.serviceIndex(name) != nil { return (s, .service(name)) }
            r.diags.error(
                n.loc, code: "unknown-subject", "unknown service `\(name)` in \(context)",
                help: nearest(name, in: p.world.services.map(\.name).sorted()).map { "did you mean `service:\($0)`?" } ?? "declare it under `services`")
            return (s, nil)
        }
        if brokenUsers.contains(s) { return (s, nil) }
        r.diags.error(
            n.loc, code: "unknown-subject", "unknown user or app `\(s)` in \(context)",
            help: nearest(s, in: (Array(userNames.keys) + p.appIDs).sorted()).map { "did you mean `\($0)`?" }
                ?? "declare it under `users` (or `apps`), or give a numeric uid")
        return (s, nil)
    }

    mutating func readRequest(
        _ k: [String: YNode], at loc: SourceLocation, context: String, allowedOps: Set<String>? = nil,
        globOut: ((PathGlob) -> Void)? = nil
    ) -> RequestSpec? {
        let typo = r.suggested
        guard let ov = k["op"] else {
            if !typo.contains("op") { r.diags.error(loc, code: "missing-key", "\(context) has no `op`", help: "e.g. `op: read`") }
            return nil
        }
        guard let opWord = r.string(ov, what: "`op`") else { return nil }
        guard let op = Operation(word: opWord) else {
            r.diags.error(
                ov.loc, code: "unknown-op", "unknown operation `\(opWord)`",
                help: Operation.suggestion(for: opWord).map { "did you mean `\($0)`?" } ?? "see `fspolicy can --help` for the op words")
            return nil
        }
        guard let pv = k["path"] else {
            if !typo.contains("path") { r.diags.error(loc, code: "missing-key", "\(context) has no `path`", help: "add `path: /absolute/path`") }
            return nil
        }
        guard let raw = r.string(pv, what: "`path`") else { return nil }
        let path: String
        if let take = globOut, PathGlob.isPattern(raw) {
            switch PathGlob.parse(raw) {
            case .success(let g): take(g); path = raw
            case .failure(let f):
                r.diags.error(pv.loc, code: "bad-pattern", f.message, help: f.help)
                return nil
            }
        } else {
            // `..` stays where it is written: the walk takes it physically (O12).
            guard let p = checkPath(pv, raw, what: "path", dotDot: true) else { return nil }
            // A trailing slash says that the name must be a directory (rule P2): kept, as one
            // slash, for the decision (`Eval.resolveNamed`). A last `.` is a lookup of `.` in
            // the directory (search on it; removing it is EINVAL): kept as `/.`.
            if p == "/" {
                path = p
            } else if Compiler.endsInDotComponent(raw) {
                path = p + "/."
            } else if Compiler.namesDirectory(raw) {
                path = p + "/"
            } else {
                path = p
            }
        }
        var spec = RequestSpec(op: op, path: path)
        if let tv = k["to"] {
            if !op.needsTarget {
                r.diags.error(tv.loc, code: "unused-key", "`to` has no meaning for `\(opWord)`", help: "`to` goes with `rename`, `link` and `symlink`")
            } else if op == .symlink {
                // The link's target is text the link holds, relative or absolute, never walked here.
                if let t = r.string(tv, what: "`to`") {
                    if t.isEmpty || t.utf8.contains(0) {
                        r.diags.error(tv.loc, code: "bad-path", "a symlink's target cannot be empty or hold a NUL", help: "e.g. `to: ../lib/libfoo.so.1`")
                    } else {
                        spec.to = t
                    }
                }
            } else if let t = r.string(tv, what: "`to`"), let p = checkPath(tv, t, what: "`to`", dotDot: true) {
                // A last `.` is a name of its own there too (O11).
                spec.to = p != "/" && Compiler.endsInDotComponent(t) ? p + "/." : p
            }
        } else if op.needsTarget {
            r.diags.error(
                ov.loc, code: "missing-key", "`\(opWord)` needs `to`",
                help: op == .symlink ? "add the link's target, e.g. `to: /usr/bin/python3`" : "add `to: /new/path`")
        }
        if let mv = k["mode"] {
            if op != .chmod && op != .lchmod && op != .create && op != .creat && op != .open && op != .mkdir && op != .mkfifo && op != .mknod {
                r.diags.error(
                    mv.loc, code: "unused-key", "`mode` has no meaning for `\(opWord)`",
                    help: "`mode` goes with `chmod`, `lchmod`, `create`, `creat`, `open` (with O_CREAT), `mkdir`, `mkfifo` and `mknod`")
            } else if let (m, _) = readMode(mv, what: "`mode`") {
                spec.mode = m
            }
        } else if op == .chmod || op == .lchmod {
            r.diags.error(ov.loc, code: "missing-key", "`\(opWord)` needs `mode`", help: "add the new mode, e.g. `mode: \"0640\"`")
        }
        readCallKeys(k, op: op, opWord: opWord, opNode: ov, context: context, into: &spec)
        if let x = k["flags"], op == .open {
            spec.openFlags = readOpenFlags(x)
        } else if let x = k["flags"] {
            if op != .chflags {
                r.diags.error(
                    x.loc, code: "unused-key", "`flags` has no meaning for `\(opWord)`",
                    help: "`flags` goes with `chflags` (file flags) and `open` (open(2) flags)")
            } else if let list = r.stringList(x, what: "`flags`") {
                var f: FileFlags = []
                for (w, node) in list {
                    if !macLike, FileFlags.named(w) != nil, let why = FileFlags.linuxProblem(w) {
                        // Linux has one immutable and one append-only flag (and nodump): a
                        // macOS name would be a guess at what was meant.
                        r.diags.error(node.loc, code: "bad-flag", "`\(w)` is a macOS file flag; \(why.message)", help: why.help)
                    } else if let fl = FileFlags.named(w) {
                        f.formUnion(fl)
                    } else {
                        r.diags.error(
                            node.loc, code: "bad-flag", "unknown file flag `\(w)`",
                            help: nearest(w, in: FileFlags.aliases.map(\.0)).map { "did you mean `\($0)`?" })
                    }
                }
                spec.flags = f
            }
        } else if op == .chflags {
            r.diags.error(ov.loc, code: "missing-key", "`chflags` needs `flags`", help: "the complete new set, e.g. `flags: [uchg]`, or `[]` to clear")
        }
        if let x = k["acl"] {
            if op != .setacl {
                r.diags.error(x.loc, code: "unused-key", "`acl` has no meaning for `\(opWord)`", help: "`acl` goes with `setacl`")
            } else {
                var mac: ACL? = nil
                var posix: POSIXACL? = nil
                var locs: [SourceLocation] = []
                let resolver = ACENameResolver(
                    user: { [userNames] in userNames[$0] },
                    group: { [groupNames] in groupNames[$0] ?? ($0 == "everyone" ? WellKnown.everyoneGID : nil) })
                readACL(x, path: path, resolver: resolver, mac: &mac, posix: &posix, aceLocs: &locs, isDefault: false, modeGroup: nil)
                spec.acl = mac
                spec.posixACL = posix
                spec.aclGiven = true
            }
        } else if op == .setacl {
            r.diags.error(ov.loc, code: "missing-key", "`setacl` needs `acl`", help: "the complete new ACL, or `[]` for an empty one")
        }
        // The caller's credential for this call only: supplementary groups and umask.
        if let x = k["groups"], let list = r.stringList(x, what: "`groups` of \(context)") {
            var gids: [GID] = []
            for (gname, node) in list {
                if let g = lookupGroup(gname) ?? numericID(gname) {
                    gids.append(g)
                } else {
                    r.diags.error(
                        node.loc, code: "unknown-group", "unknown group `\(gname)` in `groups` of \(context)",
                        help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
                }
            }
            spec.groups = gids
        }
        if let x = k["umask"], let m = readUmask(x, what: "`umask` of \(context)") { spec.umask = m }
        if let x = k["capabilities"], let c = readCapabilities(x, what: "`capabilities` of \(context)") { spec.capabilities = c }
        return spec
    }

    mutating func readErrnoLayer(_ k: [String: YNode]) -> (Errno?, Layer?) {
        var errno: Errno? = nil
        var layer: Layer? = nil
        if let ev = k["errno"], let w = r.string(ev, what: "`errno`") {
            if let e = Errno(rawValue: w) {
                errno = e
            } else {
                r.diags.error(
                    ev.loc, code: "bad-value", "unknown errno `\(w)`",
                    help: nearest(w, in: Errno.allCases.map(\.rawValue)).map { "did you mean `\($0)`?" } ?? "e.g. EACCES, EPERM, EROFS, ENOENT")
            }
        }
        if let lv = k["layer"], let w = r.string(lv, what: "`layer`") {
            if let l = Layer(rawValue: w), l != .keychain {
                layer = l
            } else {
                r.diags.error(
                    lv.loc, code: "bad-value", "unknown layer `\(w)`",
                    help: nearest(w, in: Layer.fileLayers.map(\.rawValue)).map { "did you mean `\($0)`?" } ?? "layers: "
                        + Layer.fileLayers.map(\.rawValue).joined(separator: ", "))
            }
        }
        return (errno, layer)
    }

    mutating func readResult(_ v: YNode) -> Bool? {
        guard let w = r.string(v, what: "`result`") else { return nil }
        switch w {
        case "allow": return true
        case "deny": return false
        default:
            r.diags.error(
                v.loc, code: "bad-value", "`result` must be `allow` or `deny`, found `\(w)`",
                help: nearest(w, in: ["allow", "deny"]).map { "did you mean `\($0)`?" }
                    ?? (w.hasPrefix("den") ? "did you mean `deny`?" : w.hasPrefix("allow") ? "did you mean `allow`?" : nil))
            return nil
        }
    }

    // MARK: Steps

    mutating func readSteps(_ n: YNode) {
        guard let list = r.list(n, what: "`steps`") else { return }
        stepsWritten = list.count
        for (i, item) in list.enumerated() {
            guard let m = r.mapping(item, what: "a step") else { continue }
            let ctx = "step \(i + 1)"
            let k = r.keyed(m, known: stepKeys, context: ctx)
            var subject: SubjectRef? = nil
            var asText = "?"
            if let a = k["as"] {
                (asText, subject) = readSubject(a, context: ctx)
            } else {
                r.diags.error(item.loc, code: "missing-key", "\(ctx) has no `as`", help: "say who performs it, e.g. `as: root`")
            }
            guard let spec = readRequest(k, at: item.loc, context: ctx) else { continue }
            if let tv = k["type"], spec.op != .mknod {
                r.diags.error(
                    tv.loc, code: "unused-key", "`type` has no meaning for `\(spec.op.word)` in a step", help: "`type` goes with `mknod`: `block` or `char`")
            }
            if !spec.op.changesTheWorld {
                r.diags.error(
                    k["op"]!.loc, code: "not-a-mutation", "`\(spec.op.word)` changes nothing, so it cannot be a step",
                    help:
                        "steps create, creat, open, write, delete, rename, link, symlink, mkfifo, mknod, socket, chmod, lchmod, chown, lchown, chgrp, chflags, setacl, settimes, touch, propagate, copypermissions, inheritacl, makeexplicit, removeacls; ask questions under `expect`"
                )
                continue
            }
            if p.semantics == .linux && [.propagate, .inheritACL, .makeExplicit].contains(spec.op) {
                r.diags.error(
                    k["op"]!.loc, code: "not-for-linux", "`\(spec.op.word)` works on macOS ACL inheritance; Linux has default ACLs instead",
                    help: "under `linux`, set ACLs with `setacl`, or remove them with `removeacls`")
                continue
            }
            var deny = false
            if let rv = k["result"], let res = readResult(rv) { deny = !res }
            let (errno, layer) = readErrnoLayer(k)
            var step = Step(location: item.loc, asText: asText, subject: subject, request: spec, expectDeny: deny)
            step.name = k["name"].flatMap { r.string($0, what: "`name`") }.map(Escaping.line)
            step.errno = errno
            step.layer = layer
            if errno != nil && !deny, let ev = k["errno"] {
                r.diags.error(
                    ev.loc, code: "conflicting-keys", "`errno` goes with `result: deny`, but \(ctx) expects to be allowed",
                    help: "add `result: deny`, or remove `errno`")
            }
            p.steps.append(step)
        }
    }

    /// `state:` of an expectation: what a node must look like (after steps).
    mutating func readState(_ n: YNode, path: String) -> NodeState? {
        guard let m = r.mapping(n, what: "`state`") else { return nil }
        let k = r.keyed(m, known: stateKeys, context: "`state`")
        var st = NodeState()
        if let e = k["exists"] { st.exists = r.bool(e, what: "`exists`") ?? true }
        if let t = k["type"], let w = r.string(t, what: "`type`") {
            if let nt = NodeType(word: w) {
                st.type = nt
            } else {
                r.diags.error(t.loc, code: "bad-value", "unknown node type `\(w)`", help: "types: " + NodeType.allCases.map(\.word).joined(separator: ", "))
            }
        }
        if let o = k["owner"] { st.owner = readOwner(o, what: "`owner` in `state`") }
        if let g = k["group"] { st.group = readGroup(g, what: "`group` in `state`") }
        if let mv = k["mode"], let (md, _) = readMode(mv, what: "`mode` in `state`") { st.mode = md }
        if let fv = k["flags"], let list = r.stringList(fv, what: "`flags` in `state`") {
            var f: FileFlags = []
            for (w, node) in list {
                if let fl = FileFlags.named(w) { f.formUnion(fl) } else { r.diags.error(node.loc, code: "bad-flag", "unknown file flag `\(w)`") }
            }
            st.flags = f
        }
        let resolver = ACENameResolver(
            user: { [userNames] in userNames[$0] },
            group: { [groupNames] in groupNames[$0] ?? ($0 == "everyone" ? WellKnown.everyoneGID : nil) })
        if let av = k["acl"] {
            var mac: ACL? = nil
            var posix: POSIXACL? = nil
            var locs: [SourceLocation] = []
            readACL(av, path: path, resolver: resolver, mac: &mac, posix: &posix, aceLocs: &locs, isDefault: false, modeGroup: nil)
            st.aclGiven = true
            st.acl = p.semantics == .linux ? nil : mac
            st.posixACL = posix
        }
        if let dv = k["defaultAcl"] {
            var mac: ACL? = nil
            var posix: POSIXACL? = nil
            var locs: [SourceLocation] = []
            readACL(dv, path: path, resolver: resolver, mac: &mac, posix: &posix, aceLocs: &locs, isDefault: true, modeGroup: nil)
            st.defaultACLGiven = true
            st.defaultACL = posix
        }
        return st
    }

    // MARK: Expectations

    mutating func readExpectations(_ n: YNode, early: QuickRead? = nil) {
        // The quick reading (PolicyLoader+QuickExpect.swift) is a second reader of entries of
        // the common shape, kept for what it earns on the user's path: `fspolicy check` (text)
        // of 1,000,000 expectations on a 100,000-node tree (`scripts/bench-growth --only
        // expect`'s files) takes 16.0 s by the wall clock and 2.74 s of CPU with it, 36.6 s and
        // 5.44 s with every entry read in full: 2.28× wall, 1.98× CPU; per expectation (1,000,000
        // against 100,000) 2.43× wall, 2.07× CPU; at 100,000 expectations only 1.56× wall,
        // 1.53× CPU. (2026-11-29, 2 cores busy with other builds, load 10–20: both readings
        // interleaved in one run, medians of 5.)
        if fastExpect, readExpectationsQuickly(n, early: early) { return }
        guard let list = r.list(n, what: "`expect`") else { return }
        for (i, item) in list.enumerated() { readExpectation(item, index: i) }
    }

    /// One entry of `expect:` (the `i`-th, from 0), read in full.
    mutating func readExpectation(_ item: YNode, index i: Int) {
        guard let m = r.mapping(item, what: "an expectation") else { return }
        let ctx = "expectation \(i + 1)"
        let k = r.keyed(m, known: expectKeys, context: ctx)
        let typo = r.suggested
        var e = Expectation(index: i, location: item.loc, request: RequestSpec(op: .read, path: "/"))
        var ok = true
        if let nv = k["name"] { e.name = r.string(nv, what: "`name`").map(Escaping.line) }
        if let a = k["as"] {
            if let text = a.scalar, text == "*" || text.hasPrefix("group:") {
                e.asText = text
                if text == "*" {
                    e.subjects = SubjectSet(base: .everyone)
                } else {
                    let g = String(text.dropFirst(6))
                    if let gid = groupNames[g] {
                        e.subjects = SubjectSet(base: .group(g, gid))
                    } else {
                        r.diags.error(
                            a.loc, code: "unknown-group", "unknown group `\(g)` in \(ctx)",
                            help: nearest(g, in: groupNames.keys.sorted()).map { "did you mean `group:\($0)`?" } ?? "declare it under `groups`")
                        ok = false
                    }
                }
            } else {
                let (t, s) = readSubject(a, context: ctx)
                e.asText = t
                e.subject = s
                if s == nil { ok = false }
            }
        }
        if !readQuantifiedSubjects(k, into: &e, context: ctx) { ok = false }
        if let sv = k["state"] {
            // A state expectation: what the node at `path` looks like (after the steps).
            for key in ["as", "op", "result", "allowed", "errno", "layer", "to", "mode", "owner", "group", "flags", "acl"] where k[key] != nil {
                r.diags.error(
                    k[key]!.loc, code: "conflicting-keys", "`\(key)` does not go with `state` in \(ctx)",
                    help: "`state` describes the node at `path`; ask about access in a separate expectation")
                ok = false
            }
            guard let pv = k["path"], let raw = r.string(pv, what: "`path`"), let path = checkPath(pv, raw, what: "path") else {
                if k["path"] == nil { r.diags.error(item.loc, code: "missing-key", "\(ctx) has `state` but no `path`") }
                return
            }
            e.request = RequestSpec(op: .stat, path: path)
            e.state = readState(sv, path: path)
            if e.state == nil { ok = false }
            if let av = k["after"] { readAfter(av, into: &e, ok: &ok) }
            if let nv = k["name"] { e.name = r.string(nv, what: "`name`").map(Escaping.line) }
            if ok { p.expectations.append(e) }
            return
        }
        var glob: PathGlob? = nil
        if let spec = readRequest(k, at: item.loc, context: ctx, globOut: { glob = $0 }) {
            e.request = spec
            e.glob = glob
            if glob != nil && spec.op.needsTarget {
                r.diags.error(
                    k["path"]!.loc, code: "conflicting-keys", "a path pattern does not go with `\(spec.op.word)` in \(ctx)",
                    help: "`\(spec.op.word)` takes one source and one `to`; write a plain path")
                ok = false
            }
            if spec.op.isAdministrative {
                r.diags.error(
                    k["op"]!.loc, code: "step-only", "`\(spec.op.word)` is an administrator operation: it can be a step, not a question",
                    help: "put it under `steps:`, then ask about the result with `after:`")
                ok = false
            }
        } else {
            ok = false
        }
        if let rv = k["result"] { e.result = readResult(rv); if e.result == nil { ok = false } }
        (e.errno, e.layer) = readErrnoLayer(k)
        if let av = k["allowed"] {
            if let list = r.stringList(av, what: "`allowed`") {
                var names: [String] = []
                for (name, node) in list {
                    if lookupUser(name) == nil && !p.appIDs.contains(name) {
                        r.diags.error(
                            node.loc, code: "unknown-subject", "unknown user or app `\(name)` in `allowed`",
                            help: nearest(name, in: (Array(userNames.keys) + p.appIDs).sorted()).map { "did you mean `\($0)`?" }
                                ?? "`allowed` lists declared users by name")
                        ok = false
                    } else if names.contains(name) {
                        r.diags.error(node.loc, code: "duplicate-name", "`\(name)` is listed twice in `allowed`")
                    } else {
                        names.append(name)
                    }
                }
                e.allowed = names
            } else {
                ok = false
            }
            if let x = k["users"] ?? (e.glob != nil ? k["path"] : nil) {
                r.diags.error(
                    x.loc, code: "conflicting-keys", "`allowed` does not go with `users` or a path pattern in \(ctx)",
                    help: "`allowed` lists who may do one thing to one path; quantify with `as`/`users` and `result` instead")
                ok = false
            }
            if k["as"] != nil {
                r.diags.error(
                    k["as"]!.loc, code: "conflicting-keys", "`as` and `allowed` do not go together in \(ctx)",
                    help: "`allowed` checks every declared user; `as` with `result` checks one")
                ok = false
            }
            if let rv = k["result"] {
                r.diags.error(
                    rv.loc, code: "conflicting-keys", "`result` and `allowed` do not go together in \(ctx)",
                    help: "`allowed` already says who may and who may not")
                ok = false
            }
            for key in ["errno", "layer"] where k[key] != nil {
                r.diags.error(
                    k[key]!.loc, code: "conflicting-keys", "`\(key)` has no meaning with `allowed` in \(ctx)",
                    help: "check one user with `as` and `result: deny` to pin the errno or layer")
                ok = false
            }
        } else {
            if k["as"] == nil && k["users"] == nil {
                if !typo.contains("as") && !typo.contains("allowed") {
                    r.diags.error(item.loc, code: "missing-key", "\(ctx) has no `as`", help: "say who asks, e.g. `as: bob`, or list `allowed: [...]`")
                }
                ok = false
            }
            if k["result"] == nil {
                if !typo.contains("result") {
                    r.diags.error(item.loc, code: "missing-key", "\(ctx) has no `result`", help: "add `result: allow` or `result: deny`")
                }
                ok = false
            }
        }
        if e.result == true, let ev = k["errno"] {
            r.diags.error(
                ev.loc, code: "conflicting-keys", "`errno` goes with `result: deny`, but \(ctx) expects `allow`",
                help: "remove `errno`, or expect `deny`")
            ok = false
        }
        if let av = k["after"] { readAfter(av, into: &e, ok: &ok) }
        if let q = k["quiz"], let b = r.bool(q, what: "`quiz`") { e.quiz = b }
        if let h = k["hint"] { e.hint = r.string(h, what: "`hint`") }
        if let tv = k["topic"], let t = r.string(tv, what: "`topic`") {
            let numbers = RuleID.allCases.map(\.info.number).filter { $0 != "-" } + TeachingTopic.inheritanceNumbers
            if !numbers.contains(t) {
                r.diags.error(
                    tv.loc, code: "bad-value", "unknown rule number `\(t)` for `topic`",
                    help: (nearest(t, in: numbers).map { "did you mean `\($0)`? " } ?? "")
                        + "a topic is a rule number of docs/semantics.md or docs/sandbox.md, or I1–I3 of docs/inheritance.md, e.g. `P1`")
                ok = false
            } else if !e.quiz {
                r.diags.error(
                    tv.loc, code: "unused-key", "`topic` names what a quiz question tests, but \(ctx) is not a question",
                    help: "add `quiz: true`, or remove `topic`")
                ok = false
            } else {
                e.topic = t
            }
        }
        // With `mknod`, `type` is the kind of device node made (read with the request).
        if let tv = k["type"], e.request.op != .mknod {
            if e.glob == nil {
                r.diags.error(
                    tv.loc, code: "unused-key", "`type` narrows a path pattern, but the path of \(ctx) is a plain path",
                    help: "remove `type`, or give a pattern such as `/srv/**`")
                ok = false
            } else if let w = r.string(tv, what: "`type`") {
                if let t = NodeType(word: w) {
                    e.nodeType = t
                } else {
                    r.diags.error(
                        tv.loc, code: "bad-value", "unknown node type `\(w)`", help: "types: " + NodeType.allCases.map(\.word).joined(separator: ", "))
                    ok = false
                }
            }
        }
        if ok && e.quiz, let qv = k["quiz"], e.isQuantified || e.allowed != nil || e.state != nil {
            let what = e.isQuantified ? "a quantified expectation" : e.allowed != nil ? "an `allowed` list" : "a `state` expectation"
            r.diags.error(
                qv.loc, code: "conflicting-keys", "\(what) cannot be a quiz question", help: "quiz questions ask about one user and one path")
            ok = false
        }
        // Nothing to quantify over is an error, not a pass. The tree is known now unless
        // steps change it (then `check` reports it).
        if ok, let set = e.subjects, set.members(of: p, world: p.world, semantics: p.semantics).isEmpty {
            let at = k["as"] ?? k["users"]!
            r.diags.error(
                at.loc, code: "no-subjects", "\(set.text) stands for no declared user in \(ctx), so the expectation would pass without checking anything",
                help: "add members to the group, or name users with `users: [...]`")
            ok = false
        }
        if ok, p.steps.isEmpty, let g = e.glob, g.matches(in: p.world, type: e.nodeType).isEmpty {
            r.diags.error(
                k["path"]!.loc, code: "no-match",
                "the pattern `\(g.pattern)`\(e.nodeType.map { " (type \($0.word))" } ?? "") matches no node of the tree, so \(ctx) would pass without checking anything",
                help: "check the pattern against `fspolicy simulate`'s listing; `*` stays within one name, `**` crosses directories")
            ok = false
        }
        if ok { p.expectations.append(e) }
    }
}

extension Compiler {
    /// `users:` and `except:` of an expectation. False when they are wrong.
    mutating func readQuantifiedSubjects(_ k: [String: YNode], into e: inout Expectation, context ctx: String) -> Bool {
        var ok = true
        func names(_ v: YNode, what: String) -> [String]? {
            guard let list = r.stringList(v, what: what) else { return nil }
            var out: [String] = []
            for (name, node) in list {
                if lookupUser(name) == nil {
                    r.diags.error(
                        node.loc, code: "unknown-subject", "unknown user `\(name)` in \(what)",
                        help: nearest(name, in: userNames.keys.sorted()).map { "did you mean `\($0)`?" } ?? "\(what) lists declared users by name")
                    ok = false
                } else if out.contains(name) {
                    r.diags.error(node.loc, code: "duplicate-name", "`\(name)` is listed twice in \(what)")
                    ok = false
                } else {
                    out.append(name)
                }
            }
            return out
        }
        if let uv = k["users"] {
            if let a = k["as"] {
                r.diags.error(
                    a.loc, code: "conflicting-keys", "`as` and `users` do not go together in \(ctx)",
                    help: "`users: [a, b]` names the subjects; `as` names one (or a group, or `*`)")
                ok = false
            } else if let list = names(uv, what: "`users`") {
                if list.isEmpty {
                    r.diags.error(
                        uv.loc, code: "no-subjects", "`users` is empty in \(ctx), so the expectation would pass without checking anything",
                        help: "name at least one declared user")
                    ok = false
                }
                e.subjects = SubjectSet(base: .users(list))
                e.asText = "users [" + list.joined(separator: ", ") + "]"
            } else {
                ok = false
            }
        }
        if let xv = k["except"] {
            if e.subjects == nil {
                r.diags.error(
                    xv.loc, code: "unused-key", "`except` goes with `as: group:NAME`, `as: \"*\"` or `users`, not with one subject (\(ctx))",
                    help: "remove `except`, or quantify the subject")
                ok = false
            } else if let list = names(xv, what: "`except`") {
                e.subjects?.except = list
                e.asText = (e.asText ?? "") + " except [" + list.joined(separator: ", ") + "]"
            } else {
                ok = false
            }
        }
        return ok
    }
}

extension Compiler {
    /// `after: N` of an expectation: a step count from 0 to the number of steps.
    mutating func readAfter(_ av: YNode, into e: inout Expectation, ok: inout Bool) {
        guard let a = r.int(av, what: "`after`", min: 0) else { return }
        if a > max(p.steps.count, stepsWritten) {
            r.diags.error(
                av.loc, code: "out-of-range", "`after: \(a)` but the file has \(stepsWritten) step(s)",
                help: "`after: N` evaluates after the first N steps")
            ok = false
        } else if a > p.steps.count {
            // A step the file has was refused (its error says why): nothing to evaluate after.
            ok = false
        }
        e.after = a
    }
}
