import FSPolicy
import Foundation
import FSPolicyYAML

/// `import:` (other policies, scans, getfacl dumps, listings, tar archives, OCI images) and
/// how what they bring is merged into the world.
extension Compiler {
    // MARK: Imports

    mutating func readImports(_ n: YNode, tree: inout [NodeDecl]) {
        guard let list = r.list(n, what: "`import`") else { return }
        for item in list {
            guard let m = r.mapping(item, what: "an `import` entry") else { continue }
            let k = r.keyed(m, known: importKeys, context: "an `import` entry")
            let sources = ["scan", "getfacl", "lsle", "tar", "oci", "policy"].filter { k[$0] != nil }
            if sources.count != 1 {
                r.diags.error(
                    item.loc, code: "bad-import",
                    sources.isEmpty
                        ? "an `import` entry needs one of `scan`, `getfacl`, `lsle`, `tar`, `oci` or `policy`"
                        : "an `import` entry takes one of `scan`, `getfacl`, `lsle`, `tar`, `oci` or `policy`, not several",
                    help: "e.g. `- policy: ./base.yaml`")
                continue
            }
            let kind = sources[0]
            guard let pathText = r.string(k[kind]!, what: "`\(kind)`") else { continue }
            if let at = k["at"] {
                if kind == "policy" {
                    r.diags.error(at.loc, code: "bad-import", "`at` goes with `scan`, `getfacl`, `lsle`, `tar` and `oci` imports, not `policy`")
                } else {
                    _ = r.string(at, what: "`at`")
                }
            }
            var platform: String? = nil
            if let pl = k["platform"] {
                if kind != "oci" {
                    r.diags.error(
                        pl.loc, code: "bad-import", "`platform` goes with `oci` imports only",
                        help: "it chooses one image of a multi-platform OCI layout, e.g. `platform: linux/arm64`")
                } else {
                    platform = r.string(pl, what: "`platform`")
                }
            }
            let full = PolicyLoader.join(baseDir, pathText)
            var at: String? = nil
            if let a = k["at"], let t = a.scalar { at = checkPath(a, t, what: "`at`") }
            if kind == "scan" {
                guard let scanner = host.scan else {
                    r.diags.error(
                        k[kind]!.loc, code: "scan-unavailable", "reading real trees is only available in the Linux build of fspolicy",
                        help: "run `fspolicy scan DIR -o FILE` on the Linux machine and import the file it writes with `policy:`")
                    continue
                }
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else {
                    r.diags.error(
                        k[kind]!.loc, code: "unreadable", "cannot read `\(pathText)`: no such file or directory",
                        help: "relative paths are relative to this file's folder")
                    continue
                }
                var accountsAll = true
                if let a = k["accounts"], let w = r.string(a, what: "`accounts`") {
                    if w == "owners" {
                        accountsAll = false
                    } else if w != "all" {
                        r.diags.error(
                            a.loc, code: "bad-value", "unknown `accounts` value `\(w)`",
                            help: "use `all` (every host account, the default) or `owners` (only the owners and groups seen)")
                    }
                }
                let options = ScanOptions(readAncestors: at == nil, allAccounts: accountsAll)
                let scanKey = full + "\u{0}\(options.readAncestors)\u{0}\(options.allAccounts)"
                let tree: ScannedTree
                if let known = cache.scans[scanKey] { tree = known } else { tree = scanner(full, options); cache.scans[scanKey] = tree }
                for prob in tree.problems {
                    r.diags.warning(
                        k[kind]!.loc, code: "scan-problem", "while scanning `\(pathText)`: \(prob.path): \(prob.message)",
                        help: "decisions about that part of the tree may be incomplete")
                }
                scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                addHostAccounts(tree)
                addMounts(tree, at: at)
                // The host's fs.protected_* values, read with the tree.
                for (t, v) in tree.linuxTunables.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    p.world.linux[t] = v
                    p.linuxLocations[t.rawValue] = k[kind]!.loc
                }
                continue
            }
            if let a = k["accounts"] {
                r.diags.error(a.loc, code: "bad-import", "`accounts` goes with `scan` imports only")
            }
            // The command's output file may not be read as an input: it is about to be replaced.
            if let why = host.importGuard?(full) {
                r.diags.error(
                    k[kind]!.loc, code: "output-is-input", "the imported file `\(pathText)` \(why)",
                    help: "write the output to another file")
                continue
            }
            if kind == "lsle" {
                readListingImport(k[kind]!, pathText: pathText, full: full, at: at)
                continue
            }
            if kind == "tar" || kind == "oci" {
                guard kind == "tar" ? host.tar != nil : host.oci != nil else {
                    r.diags.error(
                        k[kind]!.loc, code: "scan-unavailable",
                        "reading \(kind == "tar" ? "tar archives" : "OCI image layouts") is only available in the Linux build of fspolicy",
                        help: "run `fspolicy scan --\(kind) \(pathText) -o FILE` on a Linux machine and import the file it writes with `policy:`")
                    continue
                }
                switch kind == "tar" ? host.tar!(full) : host.oci!(full, platform) {
                case .failure(let f):
                    r.diags.error(k[kind]!.loc, code: f.message.hasPrefix("cannot read `") ? "unreadable" : "bad-archive", f.message, help: f.help)
                case .success(let tree):
                    for prob in tree.problems {
                        r.diags.warning(
                            k[kind]!.loc, code: "scan-problem", "while reading `\(pathText)`: \(prob.path): \(prob.message)",
                            help: "decisions about that part of the tree may be incomplete")
                    }
                    scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                    addHostAccounts(tree)
                }
                continue
            }
            if kind == "getfacl" {
                guard let data = FileManager.default.contents(atPath: full) else {
                    r.diags.error(
                        k[kind]!.loc, code: "unreadable", "cannot read the getfacl dump `\(pathText)`",
                        help: "relative paths are relative to this file's folder")
                    continue
                }
                // getfacl writes some bytes of names raw: keep them as \ooo escapes.
                let text = NameEscaping.decodeLenient(Array(data))
                let un = userNames, gn = groupNames, accounts = host.accounts
                let seen = HostNames()
                let userOf: (String) -> UInt32? = { name in
                    if let u = un[name] { return u }
                    guard UInt32(name) == nil else { return nil }
                    if let known = seen.userAnswers[name] { return known }
                    let h = accounts.user(name)
                    if let h { seen.users.append(h) }
                    seen.userAnswers[name] = h?.uid
                    return h?.uid
                }
                let groupOf: (String) -> UInt32? = { name in
                    if let g = gn[name] { return g }
                    guard UInt32(name) == nil else { return nil }
                    if let known = seen.groupAnswers[name] { return known }
                    let h = accounts.group(name)
                    if let h { seen.groups.append((name, h)) }
                    seen.groupAnswers[name] = h
                    return h
                }
                switch GetfaclDump.parse(text, user: userOf, group: groupOf) {
                case .failure(let e):
                    r.diags.error(
                        SourceLocation(file: full, line: e.line, column: e.column), code: "bad-getfacl", e.message,
                        help: e.help ?? "the file should be exactly what `getfacl -R` prints")
                case .success(let blocks):
                    if var tree = treeFromDump(blocks, file: full) {
                        for u in seen.users where !tree.users.contains(u) { tree.users.append(u) }
                        for g in seen.groups where !tree.groups.contains(where: { $0.gid == g.1 }) { tree.groups.append((g.0, g.1)) }
                        scanned.append((tree, at ?? tree.root, k[kind]!.loc))
                        addHostAccounts(tree)
                    }
                }
                continue
            }
            let canon = PolicyLoader.canonical(full)
            if importStack.contains(canon) {
                let cwd = PolicyLoader.canonical(".") + "/"
                let chain = (importStack + [canon]).map { $0.hasPrefix(cwd) ? String($0.dropFirst(cwd.count)) : $0 }
                r.diags.error(
                    k[kind]!.loc, code: "import-cycle", "import cycle: " + chain.joined(separator: " → "),
                    help: "remove one of these imports")
                continue
            }
            if importStack.count >= Limits.importDepth {
                r.diags.error(
                    k[kind]!.loc, code: "limit",
                    "imports nest more than \(Limits.importDepth) files deep here (`\(pathText)` would be file \(importStack.count + 1) of the chain)",
                    help: "import the files side by side from one file instead of each from the one before")
                continue
            }
            let key = canon + "\u{0}" + p.semantics.rawValue
            let inner: Policy
            if let known = cache.policies[key] {
                inner = known
            } else {
                // Read as a policy file given on the command line is (a FIFO, a directory or a
                // device refused at once, the reason said); a byte that is not UTF-8 is reported
                // where it is, in the imported file.
                let read = PolicyLoader.text(ofFile: full)
                guard let text = read.text else {
                    if let why = read.unreadable {
                        r.diags.error(
                            k[kind]!.loc, code: "unreadable", "cannot read imported policy `\(pathText)`: \(why)",
                            help: pathText.hasPrefix("/")
                                ? "check that the file exists and is readable"
                                : "relative paths are relative to this file's folder (`\(full)` here)")
                    } else {
                        for d in read.diagnostics { r.diags.add(d) }
                    }
                    continue
                }
                var sub = Compiler(file: full, override: p.semantics, importStack: importStack + [canon], cache: cache)
                sub.host = host
                sub.fastExpect = fastExpect
                sub.quickWorkers = quickWorkers
                sub.generalTree = generalTree
                sub.earlyCount = earlyCount
                sub.compile(text)
                inner = sub.finish()
                sub.fastDocument?.freeLater()
                // A file is compiled once per load, whatever the import graph's shape. (A result
                // with an import cycle depends on the path it was reached by, so it is not kept.)
                if !inner.diagnostics.items.contains(where: { $0.code == "import-cycle" }) { cache.policies[key] = inner }
            }
            r.diags.append(contentsOf: inner.diagnostics)
            let innerErrors = inner.diagnostics.items.filter { $0.severity == .error && $0.code != "import-cycle" }.count
            if innerErrors > 0 {
                r.diags.error(
                    k[kind]!.loc, code: "import-invalid",
                    "the imported policy `\(pathText)` has \(innerErrors) error(s), each reported at its place in that file",
                    help: "fix the imported file; its errors name its own lines")
            }
            // Principals and volumes come over as they are; the tree is re-declared here. The
            // principals of consecutive imports are merged in one pass (`mergeImportedPrincipals`):
            // merging each in turn rebuilt every principal so far, quadratic in the imports.
            pendingPrincipals.append(inner.world)
            if orderedUsers.count != p.userOrder.count { orderedUsers = Set(p.userOrder) }
            for u in inner.world.users {
                userNames[u.name] = u.uid
                if orderedUsers.insert(u.name).inserted { p.userOrder.append(u.name) }
            }
            for g in inner.world.groups { groupNames[g.name] = g.gid }
            for v in inner.world.volumes { p.world.setVolume(v) }
            p.world.defaultOwner = inner.world.defaultOwner
            p.world.defaultGroup = inner.world.defaultGroup
            p.world.defaultDirMode = inner.world.defaultDirMode
            p.world.defaultFileMode = inner.world.defaultFileMode
            // The sysctls the imported file sets (this file's own `linux:` is read later and wins).
            for (key, loc) in inner.linuxLocations {
                guard let t = LinuxTunable(rawValue: key) else { continue }
                p.world.linux[t] = inner.world.linux[t]
                p.linuxLocations[key] = loc
            }
            importedWorlds.append(inner)
        }
        mergeImportedPrincipals()
    }

    /// Merges the pending imported principals into `p.world` with the result of merging them one
    /// at a time: each import's users and groups replace ours of the same name and go to the
    /// end, in its order. So a name ends where its last import put it, and what no import names
    /// stays first, in its place.
    mutating func mergeImportedPrincipals() {
        guard !pendingPrincipals.isEmpty else { return }
        var lastUser: [String: Int] = [:], lastGroup: [String: Int] = [:]
        for (i, w) in pendingPrincipals.enumerated() {
            for u in w.users { lastUser[u.name] = i }
            for g in w.groups { lastGroup[g.name] = i }
        }
        var users = p.world.users.filter { lastUser[$0.name] == nil }
        var groups = p.world.groups.filter { lastGroup[$0.name] == nil }
        for (i, w) in pendingPrincipals.enumerated() {
            users += w.users.filter { lastUser[$0.name] == i }
            groups += w.groups.filter { lastGroup[$0.name] == i }
        }
        pendingPrincipals = []
        rebuildPrincipals(groups: groups, users: users)
    }

    /// The host's names for the ids a scan saw, unless the file (or an earlier import) has
    /// them; declarations in this file still replace them.
    mutating func addHostAccounts(_ tree: ScannedTree) {
        mergeImportedPrincipals()
        var groups = p.world.groups
        var gNames = Set(groups.map(\.name)), gids = Set(groups.map(\.gid))
        for g in tree.groups where !gNames.contains(g.name) && !gids.contains(g.gid) && g.gid != 0 {
            groups.append(Group(name: g.name, gid: g.gid))
            gNames.insert(g.name); gids.insert(g.gid)
            groupNames[g.name] = g.gid
        }
        var users = p.world.users
        var uNames = Set(users.map(\.name)), uids = Set(users.map(\.uid))
        for u in tree.users where !uNames.contains(u.name) && !uids.contains(u.uid) && u.uid != 0 {
            users.append(User(name: u.name, uid: u.uid, gid: u.gid, supplementary: u.groups, home: "/home/" + u.name))
            uNames.insert(u.name); uids.insert(u.uid)
            userNames[u.name] = u.uid
            p.userOrder.append(u.name)
        }
        rebuildPrincipals(groups: groups, users: users)
    }

    /// Turns `getfacl -R` blocks into a tree: paths relative to the first block, types from
    /// default ACLs and children, modes from the base entries and the `# flags:` line.
    mutating func treeFromDump(_ blocks: [GetfaclDump.Block], file: String) -> ScannedTree? {
        guard let first = blocks.first else {
            r.diags.error(
                SourceLocation(file: file, line: 1, column: 1), code: "bad-getfacl", "the getfacl dump is empty",
                help: "create it with `getfacl -R DIR > FILE`")
            return nil
        }
        let rootPath = first.path
        var tree = ScannedTree(root: rootPath.hasPrefix("/") ? rootPath : "/" + rootPath)
        // Every path that has something below it (each ancestor inserted once).
        var parents: Set<Substring> = []
        for b in blocks {
            var rest = Substring(b.path)
            while let slash = rest.lastIndex(of: "/"), slash != rest.startIndex {
                let parent = rest[..<slash]
                if !parents.insert(parent).inserted { break }
                rest = parent
            }
        }
        // Host accounts met, by name (each looked up once).
        var hostUsers: [String: UInt32?] = [:], hostGroups: [String: UInt32?] = [:]
        for b in blocks {
            let rel: String
            if b.path == rootPath {
                rel = ""
            } else if b.path.hasPrefix(rootPath + "/") {
                rel = String(b.path.dropFirst(rootPath.count + 1))
            } else {
                r.diags.error(
                    SourceLocation(file: file, line: b.line, column: 9), code: "bad-getfacl", "`\(b.path)` is not below the dump's first path `\(rootPath)`",
                    help: "dump one tree: `getfacl -R DIR`")
                continue
            }
            func id(_ name: String, user: Bool) -> UInt32? {
                if let n = user ? userNames[name] : groupNames[name] { return n }
                if let n = numericID(name) { return n }
                if user {
                    if let known = hostUsers[name] { return known }
                    let u = host.accounts.user(name)
                    if let u, !tree.users.contains(u) { tree.users.append(u) }
                    hostUsers[name] = u?.uid
                    return u?.uid
                }
                if let known = hostGroups[name] { return known }
                let g = host.accounts.group(name)
                if let g, !tree.groups.contains(where: { $0.gid == g }) { tree.groups.append((name, g)) }
                hostGroups[name] = g
                return g
            }
            guard let uid = id(b.owner, user: true) else {
                r.diags.error(
                    SourceLocation(file: file, line: b.line + 1, column: 10), code: "unknown-user", "unknown user `\(b.owner)` in the getfacl dump",
                    help: "declare it under `users` (with the uid it has on that machine)")
                continue
            }
            guard let gid = id(b.group, user: false) else {
                r.diags.error(
                    SourceLocation(file: file, line: b.line + 2, column: 10), code: "unknown-group", "unknown group `\(b.group)` in the getfacl dump",
                    help: "declare it under `groups` (with the gid it has on that machine)")
                continue
            }
            var acl: POSIXACL? = nil
            switch POSIXACL.build(b.access) {
            case .success(let a): acl = a
            case .failure(let e):
                r.diags.error(SourceLocation(file: file, line: b.line, column: 1), code: "bad-getfacl", "the entries of `\(b.path)`: \(e.message)")
                continue
            }
            var def: POSIXACL? = nil
            if !b.defaults.isEmpty {
                switch POSIXACL.build(b.defaults) {
                case .success(let a): def = a
                case .failure(let e):
                    r.diags.error(SourceLocation(file: file, line: b.line, column: 1), code: "bad-getfacl", "the default entries of `\(b.path)`: \(e.message)")
                }
            }
            let a = acl!
            let mode = FileMode(b.special | UInt16(a.userObj.rawValue) << 6 | UInt16(a.groupClass.rawValue) << 3 | UInt16(a.other.rawValue))
            let hasChildren = parents.contains(Substring(b.path))
            tree.entries.append(
                ScannedTree.Entry(
                    relativePath: rel, type: (def != nil || hasChildren) ? .dir : .file,
                    uid: uid, gid: gid, mode: mode, access: a.isMinimal ? nil : a, defaultACL: def))
        }
        return tree
    }

    /// The mounts a scan met become volumes: at their real paths, or (placed with `at`) the
    /// ones at and below the root, relative to `at`. The file's own `volumes` come later and win.
    mutating func addMounts(_ tree: ScannedTree, at: String?) {
        for (path, m) in tree.volumes(at: at) {
            var v = Volume(mountPath: normalize(path))
            v.readOnly = m.readOnly
            v.readOnlyMount = m.readOnlyMount
            v.noexec = m.noexec
            v.nodev = m.nodev
            v.nosuid = m.nosuid
            v.fsType = m.fsType
            p.world.setVolume(v)
        }
    }

    /// Adds a scanned tree to the world at `at` (the tree's root becomes `at` itself), with its
    /// real ancestors when they were read; when they were not, the folders above `at` that
    /// nothing declares are marked assumed.
    mutating func mergeScanned(_ tree: ScannedTree, at: String, loc: SourceLocation) {
        for e in tree.ancestors where at == tree.root {
            let id = p.world.addNode(path: e.relativePath, type: e.type, uid: e.uid, gid: e.gid, mode: e.mode, flags: e.flags, acl: e.access?.mappedACEs())
            if e.access != nil { p.world.mappedACLNodes.insert(id) }
            p.world.setPOSIXACL(e.access, on: id)
            p.world.setDefaultPOSIXACL(e.defaultACL, on: id)
            p.world.assumedNodes.remove(id)
            // Only the way down was read: another name here is unknown, unless an import read it all.
            if !fullyRead.contains(id) { p.world.unread[id] = e.unread ?? .outside }
            p.nodeLocations[id] = loc
        }
        var hint = World.AddNodeHint()
        var firstName: [ScannedTree.Inode: NodeID] = [:]
        p.world.reserveCapacity(nodes: p.world.nodeCount + tree.entries.count)
        p.nodeLocations.reserveCapacity(p.world.nodeCount + tree.entries.count)
        for e in tree.entries {
            let path = e.relativePath.isEmpty ? at : (at == "/" ? "" : at) + "/" + e.relativePath
            let mapped = e.access?.mappedACEs()
            let id = p.world.addNode(
                path: path, type: e.type, uid: e.uid, gid: e.gid, mode: e.mode, flags: e.flags, acl: mapped,
                declared: true, hint: &hint)
            if mapped != nil { p.world.mappedACLNodes.insert(id) }
            p.world.setPOSIXACL(e.access, on: id)
            p.world.setDefaultPOSIXACL(e.defaultACL, on: id)
            if let t = e.target { p.world.setSymlinkTarget(t, on: id) }
            if e.assumed { p.world.assumedNodes.insert(id) } else { p.world.assumedNodes.remove(id) }
            if let k = e.content { p.world.contentKinds[id] = k }
            if let i = e.inode {
                if let first = firstName[i] { p.world.addHardLink(id, to: first) } else { firstName[i] = id }
            }
            if let why = e.unread {
                if !fullyRead.contains(id) { p.world.unread[id] = why }
            } else if e.type == .dir {
                fullyRead.insert(id)
                p.world.unread[id] = nil
            }
            p.nodeLocations[id] = loc
        }
        if !(tree.ancestorsRead && at == tree.root) {
            var comps = at.split(separator: "/")
            while !comps.isEmpty {
                comps.removeLast()
                if let n = p.world.lookup("/" + comps.joined(separator: "/")), !p.world[n].declared { p.world.assumedNodes.insert(n) }
            }
        }
    }

    /// Copies an imported policy's tree (its declared nodes) into this world.
    mutating func mergeTree(_ inner: Policy) {
        let w = inner.world
        var newOf: [NodeID: NodeID] = [:]
        defer {
            for g in w.linkGroups {
                let names = g.compactMap { newOf[$0] }
                for n in names.dropFirst() { p.world.addHardLink(n, to: names[0]) }
            }
        }
        for i in 0..<w.nodeCount {
            let id = NodeID(i)
            let n = w[id]
            guard n.declared else { continue }
            let path = w.path(of: id)
            let new = p.world.addNode(path: path, type: n.type, uid: n.uid, gid: n.gid, mode: n.mode, flags: n.flags, acl: w.acl(of: id))
            if w.mappedACLNodes.contains(id) { p.world.mappedACLNodes.insert(new) }
            if let a = w.posixACL(of: id) { p.world.setPOSIXACL(a, on: new) }
            if let a = w.defaultPOSIXACL(of: id) { p.world.setDefaultPOSIXACL(a, on: new) }
            if let t = w.symlinkTargets[id] { p.world.setSymlinkTarget(t, on: new) }
            if let why = w.unread[id] { p.world.unread[new] = why } else { p.world.unread[new] = nil }
            p.world.contentKinds[new] = w.contentKinds[id]
            newOf[id] = new
            if w.assumedNodes.contains(id) { p.world.assumedNodes.insert(new) } else { p.world.assumedNodes.remove(new) }
            if n.protection != .unspecified || n.openBeforeLock { p.world.setProtection(n.protection, open: n.openBeforeLock, on: new) }
            if let l = inner.nodeLocations[id] { p.nodeLocations[new] = l }
            if let l = inner.aceLocations[path] { p.aceLocations[path] = l }
        }
    }
}
