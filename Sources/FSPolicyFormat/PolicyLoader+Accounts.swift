import FSPolicy
import Foundation
import FSPolicyYAML

/// Users and groups (`users:`, `groups:`, the built-in accounts), volumes, `defaults:`, and the
/// owners, groups and modes of the tree and of requests.
extension Compiler {
    // MARK: Principals

    mutating func installBuiltins() {
        // gid 0 is `wheel` on macOS and `root` on Linux.
        let zero = macLike ? "wheel" : "root"
        if groupNames[zero] == nil && p.world.group(named: zero) == nil && p.world.group(gid: 0) == nil {
            p.world.addGroup(Group(name: zero, gid: 0))
            groupNames[zero] = 0
        }
        // The default primary group exists unless the file declares it (or its gid) otherwise.
        let (dname, dgid): (String, GID) = macLike ? ("staff", 20) : ("users", 100)
        if groupNames[dname] == nil && p.world.group(named: dname) == nil && p.world.group(gid: dgid) == nil {
            p.world.addGroup(Group(name: dname, gid: dgid))
            groupNames[dname] = dgid
        }
        if userNames["root"] == nil && p.world.user(named: "root") == nil {
            p.world.addUser(User(name: "root", uid: 0, gid: 0, home: "/var/root"))
            userNames["root"] = 0
            p.userOrder.append("root")
        }
    }

    func lookupUser(_ name: String) -> UID? { userNames[name] }
    func lookupGroup(_ name: String) -> GID? {
        if let g = groupNames[name] { return g }
        if name == "everyone" { return WellKnown.everyoneGID }
        return nil
    }

    mutating func readGroups(_ n: YNode) {
        guard let m = r.mapping(n, what: "`groups`") else { return }
        var added: [Group] = []
        added.reserveCapacity(m.count)
        groupDecls.reserveCapacity(groupDecls.count + m.count)
        let (declared, declaredGIDs) = readPrincipals(m, kind: "group", idKey: "gid", known: groupKeys, example: "{gid: 701}") { name, gid, c, k in
            added.append(Group(name: name, gid: gid))
            c.groupDecls.append((name, k))
        }
        // A declared group replaces a builtin or imported one with the same name or gid.
        let groups = p.world.groups.filter { declared[$0.name] == nil && declaredGIDs[$0.gid] == nil } + added
        rebuildPrincipals(groups: groups)
        groupNames = [:]
        groupNames.reserveCapacity(p.world.groups.count)
        for g in p.world.groups { groupNames[g.name] = g.gid }
    }

    mutating func rebuildPrincipals(groups: [Group]? = nil, users: [User]? = nil) {
        // One list replaced: the other's indexes stay (rebuilding a million groups to replace
        // the users was a third of reading them).
        if let us = users, groups == nil, p.world.nodeCount == 1 { p.world.setUsers(us); return }
        if let gs = groups, users == nil, p.world.nodeCount == 1 { p.world.setGroups(gs); return }
        var w = World()
        w.securelevel = p.world.securelevel
        w.linux = p.world.linux
        w.fromLinux = p.world.fromLinux
        w.defaultOwner = p.world.defaultOwner
        w.defaultGroup = p.world.defaultGroup
        w.defaultDirMode = p.world.defaultDirMode
        w.defaultFileMode = p.world.defaultFileMode
        let gs = groups ?? p.world.groups, us = users ?? p.world.users
        w.reservePrincipals(users: us.count, groups: gs.count)
        for g in gs { w.addGroup(g) }
        for u in us { w.addUser(u) }
        for v in p.world.volumes where v.mountPath != "/" { w.setVolume(v) }
        if let rootVol = p.world.volumes.first(where: { $0.mountPath == "/" }) { w.setVolume(rootVol) }
        p.world = w
    }

    mutating func resolveGroupRefs(_ n: YNode) {
        // Group indexes come from the world's own table (first of a name wins), not from a
        // second table of a million names.
        var links = p.world.groups.map { (members: $0.members, nested: $0.nested) }
        var changed = false
        // The cycle check's graph: each declared group → the groups it nests, by index.
        var edges = [[(to: Int, loc: SourceLocation)]](repeating: [], count: links.count)
        var order: [Int] = []
        for (name, k) in groupDecls {
            guard let gi = p.world.groupIndex(named: name) else { continue }
            order.append(gi)
            if let mv = k["members"], let members = r.stringList(mv, what: "`members` of group `\(name)`") {
                for (m, node) in members {
                    if let uid = lookupUser(m) {
                        links[gi].members.append(uid); changed = true
                    } else if !brokenUsers.contains(m) {
                        r.diags.error(
                            node.loc, code: "unknown-user", "unknown user `\(m)` in `members` of group `\(name)`",
                            help: nearest(m, in: userNames.keys.sorted()).map { "did you mean `\($0)`?" } ?? "declare the user under `users`")
                    }
                }
            }
            if let nv = k["groups"], let nested = r.stringList(nv, what: "`groups` of group `\(name)`") {
                for (g, node) in nested {
                    if let gid = lookupGroup(g) {
                        if g == name {
                            r.diags.error(node.loc, code: "group-cycle", "group `\(name)` cannot contain itself")
                        } else {
                            links[gi].nested.append(gid)
                            changed = true
                            if let to = p.world.groupIndex(named: g) { edges[gi].append((to, node.loc)) }
                        }
                    } else if !brokenGroups.contains(g) {
                        r.diags.error(
                            node.loc, code: "unknown-group", "unknown group `\(g)` in `groups` of group `\(name)`",
                            help: hintName(g, in: Array(groupNames.keys), kind: "group"))
                    }
                }
            }
        }
        checkGroupCycles(order: order, edges: edges)
        if changed { p.world.setGroupLinks(links) }
    }

    /// Groups that contain each other through other groups (a → b → c → a) are an error, at
    /// the entry that closes the cycle. One depth-first walk over group indexes: linear in
    /// groups and entries.
    mutating func checkGroupCycles(order: [Int], edges: [[(to: Int, loc: SourceLocation)]]) {
        var state = [UInt8](repeating: 0, count: edges.count)  // 1: on the current path, 2: done
        for start in order where state[start] == 0 {
            var stack: [(Int, Int)] = [(start, 0)]
            var path: [Int] = [start]
            state[start] = 1
            while let (node, i) = stack.last {
                let out = edges[node]
                if i >= out.count {
                    state[node] = 2
                    stack.removeLast(); path.removeLast()
                    continue
                }
                stack[stack.count - 1].1 = i + 1
                let (next, loc) = out[i]
                switch state[next] {
                case 1:
                    let from = path.lastIndex(of: next) ?? 0
                    let cycle = (path[from...] + [next]).map { "`\(p.world.groups[$0].name)`" }.joined(separator: " → ")
                    r.diags.error(
                        loc, code: "group-cycle", "groups contain each other in a cycle: \(cycle)",
                        help: "a group cannot contain itself, directly or through other groups: remove one of these entries")
                case 0:
                    state[next] = 1
                    stack.append((next, 0)); path.append(next)
                default: break
                }
            }
        }
    }

    func hintName(_ name: String, in names: [String], kind: String) -> String {
        if let n = nearest(name, in: names.sorted()) { return "did you mean `\(n)`?" }
        return "declare it under `\(kind == "user" ? "users" : "groups")`, or use a number"
    }

    mutating func readUsers(_ n: YNode) {
        guard let m = r.mapping(n, what: "`users`") else { return }
        var added: [User] = []
        added.reserveCapacity(m.count)
        let (declared, declaredUIDs) = readPrincipals(m, kind: "user", idKey: "uid", known: userKeys, example: "{uid: 501, group: staff}") {
            name, uid, c, k in
            added.append(c.readUser(name, uid: uid, k))
        }
        // A declared user replaces a builtin or imported one with the same name or uid.
        let replaced = Set(p.world.users.filter { declared[$0.name] != nil || declaredUIDs[$0.uid] != nil }.map(\.name))
        let users = p.world.users.filter { declared[$0.name] == nil && declaredUIDs[$0.uid] == nil } + added
        p.userOrder = p.userOrder.filter { !replaced.contains($0) } + added.map(\.name)
        rebuildPrincipals(users: users)
        userNames = [:]
        userNames.reserveCapacity(p.world.users.count)
        for u in p.world.users { userNames[u.name] = u.uid }
    }

    /// The entries of `users:` or `groups:`: each name checked (usable, declared once), its
    /// fields checked against `known`, its id (`uid`/`gid`) present, in range and not already
    /// taken; `add` gets each good entry (name, id, the compiler, its fields). Returns the names
    /// and ids declared, for replacing builtin or imported principals of the same name or id.
    mutating func readPrincipals(
        _ m: [(key: YNode, value: YNode)], kind: String, idKey: String, known: [String], example: String,
        add: (String, UInt32, inout Compiler, [String: YNode]) -> Void
    ) -> (names: [String: SourceLocation], ids: [UInt32: String]) {
        var declared: [String: SourceLocation] = [:]
        var declaredIDs: [UInt32: String] = [:]
        declared.reserveCapacity(m.count)
        declaredIDs.reserveCapacity(m.count)
        for (kn, v) in m {
            guard let name = r.string(kn, what: "a \(kind) name") else { continue }
            // An entry left out reported why.
            defer {
                if declared[name] == nil {
                    if kind == "user" { brokenUsers.insert(name) } else { brokenGroups.insert(name) }
                }
            }
            if let why = PrincipalName.problem(name) {
                r.diags.error(
                    kn.loc, code: "bad-name", "the \(kind) name `\(name)` cannot be used: \(why)",
                    help: "give the \(kind) a name without spaces, `:` or `,`")
                continue
            }
            guard let f = r.mapping(v, what: "\(kind) `\(name)`") else { continue }
            let k = r.keyed(f, known: known, context: "\(kind) `\(name)`")
            if let first = declared[name] {
                r.diags.error(
                    kn.loc, code: "duplicate-name", "\(kind) `\(name)` is declared twice (first at line \(first.line))", help: "merge the two entries")
                continue
            }
            guard let iv = k[idKey] else {
                r.diags.error(kn.loc, code: "missing-key", "\(kind) `\(name)` has no `\(idKey)`", help: "add `\(idKey): <number>`, e.g. `\(example)`")
                continue
            }
            guard let id = r.int(iv, what: "`\(idKey)` of \(kind) `\(name)`", min: 0, max: Int(UInt32.max) - 1) else { continue }
            if let other = declaredIDs[UInt32(id)] {
                r.diags.error(
                    iv.loc, code: "duplicate-id", "\(idKey) \(id) of \(kind) `\(name)` is already used by \(kind) `\(other)`",
                    help: "every \(kind) needs its own \(idKey)")
                continue
            }
            declared[name] = kn.loc
            declaredIDs[UInt32(id)] = name
            add(name, UInt32(id), &self, k)
        }
        return (declared, declaredIDs)
    }

    /// A user's fields past its uid: primary and supplementary groups, umask, home.
    mutating func readUser(_ name: String, uid: UID, _ k: [String: YNode]) -> User {
        var gid: GID = uid == 0 ? 0 : (macLike ? 20 : 100)
        if let gv = k["group"], let gname = r.string(gv, what: "`group` of user `\(name)`") {
            if let g = lookupGroup(gname) {
                gid = g
            } else if let num = numericID(gname) {
                gid = num
            } else if !brokenGroups.contains(gname) {
                r.diags.error(
                    gv.loc, code: "unknown-group", "unknown group `\(gname)` for user `\(name)`",
                    help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
            }
        }
        var supp: [GID] = []
        if let sv = k["groups"], let list = r.stringList(sv, what: "`groups` of user `\(name)`") {
            for (gname, node) in list {
                if let g = lookupGroup(gname) {
                    supp.append(g)
                } else if let num = numericID(gname) {
                    supp.append(num)
                } else if !brokenGroups.contains(gname) {
                    r.diags.error(
                        node.loc, code: "unknown-group", "unknown group `\(gname)` in `groups` of user `\(name)`",
                        help: hintName(gname, in: Array(groupNames.keys), kind: "group"))
                }
            }
        }
        var umask: UInt16 = 0o022
        if let mv = k["umask"] { umask = readUmask(mv, what: "`umask` of user `\(name)`") ?? umask }
        var home: String? = macLike ? "/Users/" + name : "/home/" + name
        if uid == 0 { home = macLike ? "/var/root" : "/root" }
        if let hv = k["home"], let h = r.string(hv, what: "`home` of user `\(name)`") {
            if h.hasPrefix("/") {
                home = h
            } else {
                r.diags.error(hv.loc, code: "bad-path", "`home` must be an absolute path, found `\(h)`", help: "e.g. `/Users/\(name)`")
            }
        }
        return User(name: name, uid: uid, gid: gid, supplementary: supp, umask: umask, home: home)
    }

    mutating func readUmask(_ n: YNode, what: String) -> UInt16? {
        guard let s = n.scalar, !s.isEmpty, s.count <= 4, s.allSatisfy({ $0 >= "0" && $0 <= "7" }) else {
            r.diags.error(
                n.loc, code: "bad-mode", "\(what) must be octal digits like \"022\", found `\(n.scalar ?? n.kindWord)`",
                help: "quote it: `umask: \"022\"`")
            return nil
        }
        var v: UInt16 = 0
        for ch in s { v = v * 8 + UInt16(ch.asciiValue! - 48) }
        return v & 0o777
    }

    // MARK: Volumes and defaults

    mutating func readVolumes(_ n: YNode) {
        guard let m = r.mapping(n, what: "`volumes`") else { return }
        var seen: Set<String> = []
        for (kn, v) in m {
            guard let path = r.string(kn, what: "a volume mount path") else { continue }
            guard path.hasPrefix("/") else {
                r.diags.error(kn.loc, code: "bad-path", "volume mount path `\(path)` is not absolute", help: "write it as `/Volumes/\(path)`")
                continue
            }
            let mp = normalize(path)
            if seen.contains(mp) { r.diags.error(kn.loc, code: "duplicate-name", "volume `\(mp)` is declared twice"); continue }
            seen.insert(mp)
            guard let f = r.mapping(v, what: "volume `\(mp)`") else { continue }
            let k = r.keyed(f, known: volumeKeys, context: "volume `\(mp)`")
            var vol = Volume(mountPath: mp)
            if let x = k["readOnly"], let b = r.bool(x, what: "`readOnly`") { vol.readOnly = b }
            if let x = k["readOnlyMount"], let b = r.bool(x, what: "`readOnlyMount`") { vol.readOnlyMount = b }
            if let x = k["noexec"], let b = r.bool(x, what: "`noexec`") { vol.noexec = b }
            if let x = k["nodev"], let b = r.bool(x, what: "`nodev`") { vol.nodev = b }
            if let x = k["nosuid"], let b = r.bool(x, what: "`nosuid`") { vol.nosuid = b }
            if let x = k["fsType"], let t = r.string(x, what: "`fsType`") { vol.fsType = t }
            if let x = k["ignoreOwnership"], let b = r.bool(x, what: "`ignoreOwnership`") { vol.ignoreOwnership = b }
            if let x = k["acls"], let b = r.bool(x, what: "`acls`") { vol.acls = b }
            if let x = k["caseSensitive"], let b = r.bool(x, what: "`caseSensitive`") { vol.caseSensitive = b }
            if let x = k["owner"] { vol.fsOwner = readOwner(x, what: "`owner` of volume `\(mp)`") }
            if let x = k["group"] { vol.fsGroup = readGroup(x, what: "`group` of volume `\(mp)`") }
            if let x = k["kind"], let s = r.string(x, what: "`kind`") {
                if let kind = VolumeKind(rawValue: s) {
                    vol.kind = kind
                } else {
                    r.diags.error(x.loc, code: "bad-value", "unknown volume kind `\(s)`", help: "use `internal`, `removable` or `network`")
                }
            }
            if (vol.fsOwner != nil || vol.fsGroup != nil) && !vol.ignoreOwnership, let x = k["owner"] ?? k["group"] {
                r.diags.warning(
                    x.loc, code: "unused-fsowner", "`owner`/`group` of volume `\(mp)` only matter with `ignoreOwnership: true`",
                    help: "add `ignoreOwnership: true`, or remove them")
            }
            p.world.setVolume(vol)
        }
    }

    mutating func readOwner(_ n: YNode, what: @autoclosure () -> String) -> UID? {
        guard let s = r.string(n, what: what()) else { return nil }
        if let u = lookupUser(s) { return u }
        if let num = numericID(s) { return num }
        if s == noIDText {
            r.diags.error(
                n.loc, code: "out-of-range", "\(what()) cannot be 4294967295: that is (uid_t)-1, which means \"no change\" to chown and is no one's id",
                help: "ids go from 0 to 4294967294")
            return nil
        }
        if !brokenUsers.contains(s) {
            r.diags.error(n.loc, code: "unknown-user", "unknown user `\(s)` in \(what())", help: hintName(s, in: Array(userNames.keys), kind: "user"))
        }
        return nil
    }

    mutating func readGroup(_ n: YNode, what: @autoclosure () -> String) -> GID? {
        guard let s = r.string(n, what: what()) else { return nil }
        if let g = lookupGroup(s) { return g }
        if let num = numericID(s) { return num }
        if s == noIDText {
            r.diags.error(
                n.loc, code: "out-of-range", "\(what()) cannot be 4294967295: that is (gid_t)-1, which means \"no change\" to chown and is no one's id",
                help: "ids go from 0 to 4294967294")
            return nil
        }
        if !brokenGroups.contains(s) {
            r.diags.error(n.loc, code: "unknown-group", "unknown group `\(s)` in \(what())", help: hintName(s, in: Array(groupNames.keys), kind: "group"))
        }
        return nil
    }

    mutating func readMode(_ n: YNode, what: @autoclosure () -> String) -> (FileMode, NodeType?)? {
        guard let s = n.scalar, !n.isNull else {
            r.diags.error(n.loc, code: "bad-mode", "\(what()) must be a mode like \"0755\" or \"drwxr-xr-x\", found \(n.kindWord)")
            return nil
        }
        if let parsed = FileMode.parse(s) { return parsed }
        let chars = Array(s)
        if !chars.isEmpty, chars.allSatisfy(\.isNumber) {
            if let bad = chars.firstIndex(where: { $0 == "8" || $0 == "9" }) {
                r.diags.error(
                    n.location(atOffset: bad), code: "bad-mode", "\(what()) `\(s)`: `\(chars[bad])` is not an octal digit",
                    help: "mode digits go from 0 to 7, e.g. \"0755\"")
            } else {
                r.diags.error(
                    n.loc, code: "bad-mode", "\(what()) `\(s)` has too many digits",
                    help: "at most four octal digits: special bits, owner, group, other (e.g. \"1777\")")
            }
            return nil
        }
        if chars.count != 9 && chars.count != 10 {
            r.diags.error(
                n.loc, code: "bad-mode",
                "\(what()) `\(s)` has \(chars.count) characters; a symbolic mode has 9 (\"rwxr-xr-x\") or 10 with the type first (\"drwxr-xr-x\")",
                help: "or write it in octal, e.g. \"0755\"")
            return nil
        }
        let body = chars.count == 10 ? Array(chars[1...]) : chars
        let off = chars.count == 10 ? 1 : 0
        if chars.count == 10 && !"-dlpscb".contains(chars[0]) {
            r.diags.error(
                n.location(atOffset: 0), code: "bad-mode", "\(what()) `\(s)`: `\(chars[0])` is not a file type character",
                help: "the first of ten characters is the type: `-` file, `d` directory, `l` symlink, `p` fifo, `s` socket, `c` device")
            return nil
        }
        let letters: [Character] = ["r", "w", "x"]
        for (i, ch) in body.enumerated() where ch != "-" && ch != letters[i % 3] && !(i % 3 == 2 && "sStT".contains(ch)) {
            r.diags.error(
                n.location(atOffset: off + i), code: "bad-mode", "\(what()) `\(s)`: `\(ch)` cannot stand at position \(off + i + 1)",
                help: "each triple is `r` or `-`, `w` or `-`, then `x`, `-`, or `s`/`S`/`t`/`T` for the special bits")
            return nil
        }
        r.diags.error(n.loc, code: "bad-mode", "\(what()) `\(s)` is not a valid mode", help: "e.g. \"0755\" or \"drwxr-xr-x\"")
        return nil
    }

    mutating func readDefaults(_ n: YNode) {
        guard let m = r.mapping(n, what: "`defaults`") else { return }
        let k = r.keyed(m, known: defaultsKeys, context: "`defaults`")
        if let x = k["owner"], let u = readOwner(x, what: "`defaults.owner`") { p.world.defaultOwner = u }
        if let x = k["group"], let g = readGroup(x, what: "`defaults.group`") { p.world.defaultGroup = g }
        if let x = k["fileMode"], let (m, _) = readMode(x, what: "`defaults.fileMode`") { p.world.defaultFileMode = m }
        if let x = k["dirMode"], let (m, _) = readMode(x, what: "`defaults.dirMode`") { p.world.defaultDirMode = m }
    }
}
