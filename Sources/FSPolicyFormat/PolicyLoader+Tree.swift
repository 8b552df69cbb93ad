import FSPolicy
import Foundation
import FSPolicyYAML

/// `tree:`: its entries collected and checked, then built into the world (from their listing
/// when every parent is listed: `TreeOrder`, `ListedParents`), and hard links.
extension Compiler {
    // MARK: Tree

    func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/") where c != "." { parts.append(c) }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether a request's path, as written, ends in a slash (`/srv/f/`): what it names must be
    /// a directory.
    static func namesDirectory(_ raw: String) -> Bool { raw.utf8.last == 0x2f }

    /// Whether its last component, trailing slashes aside, is `.` (`/srv/d/.`, `/srv/d/./`).
    static func endsInDotComponent(_ raw: String) -> Bool {
        var u = Array(raw.utf8)
        while u.count > 1 && u.last == 0x2f { u.removeLast() }
        return u.count >= 2 && u[u.count - 1] == 0x2e && u[u.count - 2] == 0x2f
    }

    /// An absolute path with one spelling per name, `.` and empty components dropped. `..` is
    /// refused unless `dotDot` (a request's path, walked as the kernel walks it: rule O12).
    mutating func checkPath(_ n: YNode, _ path: String, what: String, dotDot: Bool = false) -> String? {
        if Compiler.isPlainPath(path) { return path }
        guard path.hasPrefix("/") else {
            r.diags.error(n.loc, code: "bad-path", "\(what) `\(path)` is not an absolute path", help: "paths start with `/`, e.g. `/\(path)`")
            return nil
        }
        // One spelling per name: `\ooo` escapes and raw characters that need them (a tab, a
        // control character) are the same bytes, so `"/x\tb"` and `'/x\011b'` are one node.
        let path = NameEscaping.canonical(path)
        var tooLong: Substring? = nil
        for c in path.split(separator: "/") {
            if c == ".." && !dotDot {
                r.diags.error(n.loc, code: "bad-path", "\(what) `\(path)` contains `..`", help: "write the path without `..`")
                return nil
            }
            if tooLong == nil, c.utf8.count > Limits.nameBytes,
                (c.utf8.contains(0x5c) ? NameEscaping.unescape(String(c)).count : c.utf8.count) > Limits.nameBytes
            {
                tooLong = c
            }
        }
        if let c = tooLong {
            r.diags.error(
                n.loc, code: "limit", "\(what): the name `\(c.prefix(40))…` is longer than \(Limits.nameBytes) bytes (NAME_MAX)",
                help: "no file system fspolicy models allows a longer name")
            return nil
        }
        return normalize(path)
    }

    /// The common case of `checkPath`: `/`, or an absolute path of printable ASCII other than
    /// `\\`, without empty, `.` or `..` components or a trailing `/`, and names of at most 255
    /// bytes. `checkPath` returns such a path as it is.
    static func isPlainPath(_ path: String) -> Bool {
        withBytes(path) { isPlainPath(bytes: $0) }
    }

    /// `isPlainPath` on the path's UTF-8 bytes (`PlainPath`).
    static func isPlainPath(bytes u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = u.baseAddress else { return false }
        return PlainPath.isPlain(base, count: u.count)
    }

    mutating func collectTree(_ n: YNode, into decls: inout [NodeDecl]) {
        guard let m = r.mapping(n, what: "`tree`") else { return }
        // Where each path is in `decls`; those from `first` on are this file's.
        let first = decls.count
        decls.reserveCapacity(decls.count + m.count)
        // The index is needed only once a path could name an earlier entry: an imported one,
        // or a path written in another spelling (`/a/./b`, `'/x\011'`). Paths already in
        // canonical form that differ as text are different paths (the YAML reader refuses a key
        // written twice), so a file of canonical paths alone, like a scan, needs no index.
        var index: [String: Int]? = nil
        func buildIndex() -> [String: Int] {
            var x: [String: Int] = [:]
            x.reserveCapacity(decls.count + m.count)
            for (i, d) in decls.enumerated() { x[d.path] = i }
            return x
        }
        if first > 0 { index = buildIndex() }
        let known = Set(nodeKeys)
        for (kn, v) in m {
            guard let raw = r.string(kn, what: "a tree path") else { continue }
            // A plain path is its own canonical form (what `checkPath` would return).
            let plain = Compiler.isPlainPath(raw)
            guard let path = plain ? raw : checkPath(kn, raw, what: "tree path") else { continue }
            if raw.utf8.last == 0x2F && raw.count > 1 && raw.hasSuffix("/") { slashed.insert(path) }
            if index == nil && !plain { index = buildIndex() }
            let at = index?[path]
            if let i = at, i >= first {
                r.diags.error(
                    kn.loc, code: "duplicate-path", "`\(path)` is declared twice in `tree` (first at line \(decls[i].loc.line))",
                    help: "merge the two entries")
                continue
            }
            var value: YNode? = nil
            var keyCode: UInt64 = 0
            if v.doc.nodes[Int(v.index)].kind == 1 {
                let d = v.doc, i = v.index
                // A mapping: its keys checked as bytes.
                let n = d.nodes[Int(i)]
                var c = Int(n.a), allKnown = true
                for k in 0..<Int(n.b) where allKnown {
                    if let w = d.wordIndex(d.children[c], in: NodeFields.keyBytes) {
                        if k < 16 { keyCode |= UInt64(w + 1) << (4 * UInt64(k)) }
                    } else {
                        allKnown = false
                    }
                    c += 2
                }
                if !allKnown || n.b > 16 { keyCode = 0 }
                if allKnown { r.suggested = [] } else { _ = r.keyed(v.mapping ?? [], known: nodeKeys, context: "node `\(path)`") }
                value = v
            } else if !v.isNull {
                guard let f = r.mapping(v, what: "node `\(path)`") else { continue }
                // Unknown keys are reported (and left out when the fields are read).
                if !f.allSatisfy({ $0.key.scalar.map(known.contains) ?? false }) {
                    _ = r.keyed(f, known: nodeKeys, context: "node `\(path)`")
                } else {
                    r.suggested = []
                }
                value = v
            }
            var decl = NodeDecl(path: path, loc: kn.loc, value: value, keyCode: keyCode)
            if value != nil {
                let f = decl.fields
                decl.common = CommonFields(f, &shortScalars)
                // An ACL's text, numbered: the tree is built without going back to its nodes.
                if let a = f.acl { decl.common.aclText = aclTexts.id(aclCacheKey(a, [])) }
                if let a = f.defaultAcl { decl.common.defaultAclText = aclTexts.id(aclCacheKey(a, [])) }
            }
            if let i = at { decls[i] = decl } else { index?[path] = decls.count; decls.append(decl) }
        }
    }

    mutating func buildTree(_ decls: consuming [NodeDecl]) {
        for inner in importedWorlds { mergeTree(inner) }
        for (tree, at, loc) in scanned { mergeScanned(tree, at: at, loc: loc) }
        mergeListings(declared: listings.isEmpty ? [] : Set(decls.map(\.path)))
        // Parents before children, by depth and then by path, whatever the file's order.
        let order = TreeOrder.order(copy decls)
        // A tree whose every entry's parent is listed (a scan file, a generated one), going into
        // a world that has only its root so far and folds no names: each entry's parent and
        // whether it has children come from the listing, and each node is new, appended with
        // no lookup (`ListedParents`, `World.appendNewNode`).
        let listing = generalTree || p.world.nodeCount != 1 || p.world.foldsNames ? nil : ListedParents(copy decls, order: order)
        // Otherwise: every ancestor of a declared path, each inserted once (the walk up stops
        // at the first ancestor already known). Each ancestor's hash comes from one pass over
        // the path (hashing every ancestor from scratch would make one deep path quadratic).
        var hasChildren = PathSet()
        let rootHash = PathSet.hash("/")
        var slashes: [(offset: Int, hash: UInt64)] = []
        var cuts: [Int] = []
        for di in decls.indices where listing == nil {
            let path = decls[di].path
            if path == "/" { continue }
            slashes.removeAll(keepingCapacity: true)
            withBytes(path) { u in
                // One pass finds the `/` bytes and whether the text is ASCII. On ASCII text a
                // `/` byte is a `/` character (elsewhere a combining mark may follow it, and the
                // two are one character that is not a separator).
                var any: UInt8 = 0
                cuts.removeAll(keepingCapacity: true)
                for i in 0..<u.count {
                    let b = u[i]
                    any |= b
                    if b == 0x2F { cuts.append(i) }
                }
                if any >= 0x80 {
                    var separators: Set<Int> = []
                    var offset = 0
                    for ch in path {
                        if ch == "/" { separators.insert(offset) }
                        offset += ch.utf8.count
                    }
                    cuts.removeAll { !separators.contains($0) }
                }
                // The hash of the text before each separator, all in one pass.
                PathHasher.prefixHashes(u, cuts: cuts, into: &slashes)
            }
            let utf8 = path.utf8
            for (offset, hash) in slashes.reversed() {
                let parent = offset == 0 ? Substring("/") : path[..<utf8.index(utf8.startIndex, offsetBy: offset)]
                if !hasChildren.insert(parent, hash: offset == 0 ? rootHash : hash) || offset == 0 { break }
            }
        }
        let resolver = ACENameResolver(
            user: { [userNames] in userNames[$0] },
            group: { [groupNames] in groupNames[$0] ?? ($0 == "everyone" ? WellKnown.everyoneGID : nil) },
            suggestions: { [userNames, groupNames] name in
                nearest(name, in: (Array(userNames.keys) + Array(groupNames.keys)).sorted()).map { "did you mean `\($0)`?" }
                    ?? "declare it under `users` or `groups`"
            })
        p.nodeLocations.reserveCapacity(p.world.nodeCount + decls.count)
        p.world.reserveCapacity(nodes: p.world.nodeCount + decls.count)
        var hint = World.AddNodeHint()
        // Owners, groups and modes written the same way read the same (the names do not
        // change while the tree is built): each short text is read once.
        var owners = ScalarMemo<UID>(), groups = ScalarMemo<GID>(), modes = ScalarMemo<(FileMode, NodeType?)>()
        func memo<T>(_ key: ScalarKey?, _ table: inout ScalarMemo<T>, _ read: () -> T?) -> T? {
            guard let key else { return read() }
            if let known = table[key] { return known }
            let v = read()
            if let v { table[key] = v }
            return v
        }
        // With a listing: each entry's node (for its children), and the index entries of the
        // nodes appended, put in the indexes after the loop. (The listing's arrays are taken
        // out of it: a struct of arrays used in the loop was copied, its arrays retained, at
        // every turn.)
        let listed = listing != nil
        // The listing's arrays and `nodeOf` are by position in `order`: read one after another.
        let parents = listing?.parentAt ?? [], nameStarts = listing?.nameStartAt ?? [], withChildren = listing?.hasChildrenAt ?? []
        var nodeOf = [NodeID](repeating: World.root, count: listed ? decls.count : 0)
        var links: [(NodeID, YNode, String)] = []
        var pending = World.PendingIndex(capacity: listed ? decls.count : 0)
        // The entries are taken in the order of the tree, which in a file of another order is
        // not where they lie in the text: each entry's declaration and path are then a cache
        // miss away from the previous entry's (its common fields were read in the file's order:
        // `CommonFields`). So they are fetched `ahead` at a time, in short loops whose loads do
        // not wait for one another, before those entries are built (docs/performance.md, target 43).
        let ahead = 64
        var fetched = [NodeDecl](repeating: .vacated, count: ahead)
        var fields = [NodeFields](repeating: NodeFields(), count: ahead)
        var shortKeys = [(mode: ScalarKey?, owner: ScalarKey?, group: ScalarKey?)](repeating: (nil, nil, nil), count: ahead)
        var pathEnds = [UInt8](repeating: 0, count: ahead)
        for j in order.indices {
            let k = j % ahead
            if k == 0 {
                let n = min(ahead, order.count - j)
                // The declarations are moved out of the list while they are built, and back
                // after: the list lets go of them in the file's order, where their strings lie
                // together (freeing them in the tree's order was a cache miss each).
                if j > 0 { for q in 0..<ahead { swap(&fetched[q], &decls[order[j - ahead + q]]) } }
                for q in 0..<n { swap(&fetched[q], &decls[order[j + q]]) }
                // An entry of common fields alone is built from its record; others read their nodes.
                for q in 0..<n {
                    let c = fetched[q].common
                    if let v = fetched[q].value {
                        fields[q] = c.others ? fetched[q].fields : c.fields(in: v.doc)
                    } else {
                        fields[q] = NodeFields()
                    }
                    shortKeys[q] = (
                        c.modeKey != 0 ? shortScalars.key(c.modeKey) : fields[q].mode?.shortScalarKey,
                        c.ownerKey != 0 ? shortScalars.key(c.ownerKey) : fields[q].owner?.shortScalarKey,
                        c.groupKey != 0 ? shortScalars.key(c.groupKey) : fields[q].group?.shortScalarKey
                    )
                }
                // The paths' bytes, loaded together (each is read again when its node is made).
                for q in 0..<n { pathEnds[q] = fetched[q].path.utf8.last ?? 0 }
            }
            let d = fetched[k]
            let f = fields[k]
            let keys = shortKeys[k]
            let isParent = listed ? withChildren[j] : hasChildren.contains(Substring(d.path))
            var type: NodeType = isParent ? .dir : .file
            var typeGiven = false
            if f.type != nil, d.common.typeWord != 0 {
                // A type word, known from the entry's record.
                type = NodeType.allCases[Int(d.common.typeWord) - 1]
                typeGiven = true
            } else if let t = f.type, let w = r.string(t, what: "`type`") {
                if let nt = NodeType(word: w) {
                    type = nt; typeGiven = true
                } else {
                    r.diags.error(
                        t.loc, code: "bad-value", "unknown node type `\(w)`",
                        help: (nearest(w, in: NodeType.allCases.map(\.word)).map { "did you mean `\($0)`? " } ?? "")
                            + "types: file, dir, symlink, fifo, socket, device")
                }
            }
            var mode: FileMode? = nil
            if let mv = f.mode, let (m, symType) = memo(keys.mode, &modes, { readMode(mv, what: "`mode` of `\(d.path)`") }) {
                mode = m
                if let st = symType {
                    // `type: device` (a kind unsaid) agrees with a `b` or `c` mode, which says it.
                    if typeGiven && type == .device && st.isDevice {
                        type = st
                    } else if typeGiven && st != type {
                        r.diags.error(
                            mv.loc, code: "type-mismatch", "the mode `\(mv.scalar!)` says \(st.word) but `type` says \(type.word)",
                            help: "make them agree, or drop the type character from the mode")
                    } else if !typeGiven {
                        type = st
                    }
                }
            }
            if !slashed.isEmpty && slashed.contains(d.path) && type != .dir {
                if typeGiven || type != .file {
                    r.diags.error(
                        d.loc, code: "not-a-directory", "`\(d.path)/` ends with `/` but is a \(type.word) (the kernel says ENOTDIR)",
                        help: "drop the trailing `/`, or make it `type: dir`")
                } else {
                    type = .dir
                }
            }
            if isParent && type != .dir {
                r.diags.error(
                    d.loc, code: "not-a-directory", "`\(d.path)` is a \(type.word) but other tree paths lie below it",
                    help: "make it `type: dir`, or move the paths below it")
                type = .dir
            }
            let uid = f.owner.flatMap { o in memo(keys.owner, &owners) { readOwner(o, what: "`owner` of `\(d.path)`") } } ?? p.world.defaultOwner
            let gid = f.group.flatMap { g in memo(keys.group, &groups) { readGroup(g, what: "`group` of `\(d.path)`") } } ?? p.world.defaultGroup
            if type == .symlink && mode == nil { mode = FileMode(0o755) }
            let m = mode ?? (type == .dir ? p.world.defaultDirMode : p.world.defaultFileMode)
            var flags: FileFlags = []
            if let fv = f.flags, let list = r.stringList(fv, what: "`flags` of `\(d.path)`", allowSingle: true) {
                for (w, node) in list {
                    var offset = 0
                    for part in w.split(separator: ",", omittingEmptySubsequences: false) {
                        let word = part.trimmingCharacters(in: .whitespaces)
                        let at = offset + (part.count - part.drop { $0 == " " }.count)
                        offset += part.count + 1
                        if word.isEmpty { continue }
                        if let fl = FileFlags.named(word) {
                            flags.formUnion(fl)
                        } else {
                            let known = FileFlags.aliases.map(\.0)
                            r.diags.error(
                                node.location(atOffset: at), code: "bad-flag", "unknown file flag `\(word)`",
                                help: nearest(word, in: known).map { "did you mean `\($0)`?" }
                                    ?? "flags: uchg schg uappnd sappnd nodump hidden opaque arch (Linux: immutable append nodump)")
                        }
                    }
                }
            }
            var macACL: ACL? = nil
            var posix: POSIXACL? = nil
            var aceLocs: [SourceLocation] = []
            if let av = f.acl {
                // By the text's number in the entry's record (read in the file's order), else by the text.
                let extra: UInt32 = 0x61 << 24 | UInt32(m.group.rawValue) << 16 | UInt32(m.owner.rawValue) << 8 | UInt32(m.other.rawValue)
                let textKey = d.common.aclText != 0 ? UInt64(d.common.aclText) << 32 | UInt64(extra) : nil
                let key = textKey != nil ? nil : aclCacheKey(av, [0x61, m.group.rawValue, m.owner.rawValue, m.other.rawValue])
                if let known = textKey.flatMap({ aclCacheByText[$0] }) ?? key.flatMap({ aclCache[$0] }) {
                    (macACL, posix) = known
                } else {
                    let before = r.diags.attempts
                    readACL(
                        av, path: d.path, resolver: resolver, mac: &macACL, posix: &posix, aceLocs: &aceLocs, isDefault: false, modeGroup: m.group,
                        modeOwnerOther: (m.owner, m.other))
                    if r.diags.attempts == before, aceLocs.isEmpty, macACL == nil {
                        if let k = textKey { aclCacheByText[k] = (macACL, posix) } else if let k = key { aclCache[k] = (macACL, posix) }
                    }
                }
            }
            var defaultPosix: POSIXACL? = nil
            if let dv = f.defaultAcl {
                var dummy: ACL? = nil
                var locs: [SourceLocation] = []
                let textKey = d.common.defaultAclText != 0 ? UInt64(d.common.defaultAclText) << 32 | 0x64 << 24 : nil
                let key = textKey != nil ? nil : aclCacheKey(dv, [0x64])
                if let known = textKey.flatMap({ aclCacheByText[$0] }) ?? key.flatMap({ aclCache[$0] }) {
                    defaultPosix = known.1
                } else {
                    let before = r.diags.attempts
                    readACL(dv, path: d.path, resolver: resolver, mac: &dummy, posix: &defaultPosix, aceLocs: &locs, isDefault: true, modeGroup: nil)
                    if r.diags.attempts == before, locs.isEmpty, dummy == nil {
                        if let k = textKey { aclCacheByText[k] = (nil, defaultPosix) } else if let k = key { aclCache[k] = (nil, defaultPosix) }
                    }
                }
                if type != .dir {
                    // Linux refuses a default ACL on anything but a directory (set_posix_acl in
                    // fs/posix_acl.c: EACCES), so no real tree has one: a sign of a bad import.
                    // Kept (lint reports it, FSL021) and never applied: nothing is created in a file.
                    r.diags.warning(
                        dv.loc, code: "default-acl-on-file",
                        "only directories can have a default ACL, and `\(d.path)` is a \(type.word): Linux refuses it, so it is ignored (lint reports it as FSL021)",
                        help: "remove `defaultAcl`, or make the node `type: dir`")
                }
            }
            // A POSIX ACL also gets its (lossy) ACE mapping, for the macos and guide rule sets.
            let mapped = macACL == nil && posix != nil ? posix!.mappedACEs() : nil
            let id: NodeID
            if listed && nameStarts[j] > 0 {
                let up = Int(parents[j])
                id = p.world.appendNewNode(
                    under: up < 0 ? World.root : nodeOf[up], path: d.path, nameAt: Int(nameStarts[j]),
                    type: type, uid: uid, gid: gid, mode: m, flags: flags, acl: macACL ?? mapped,
                    declared: true, pending: &pending)
                nodeOf[j] = id
            } else {
                id = p.world.addNode(
                    path: d.path, type: type, uid: uid, gid: gid, mode: m, flags: flags, acl: macACL ?? mapped,
                    declared: true, hint: &hint)
                if listed { nodeOf[j] = id }
            }
            if mapped != nil { p.world.mappedACLNodes.insert(id) }
            var assumed = false
            if let av = f.assumed, let b = r.bool(av, what: "`assumed`") { assumed = b }
            if assumed { p.world.assumedNodes.insert(id) } else { p.world.assumedNodes.remove(id) }
            if posix != nil { p.world.setPOSIXACL(posix, on: id) }
            if defaultPosix != nil { p.world.setDefaultPOSIXACL(defaultPosix, on: id) }
            p.nodeLocations[id] = d.loc
            if !aceLocs.isEmpty { p.aceLocations[d.path] = aceLocs }
            var unread: UnreadReason? = nil
            if let uv = f.unread, let w = r.string(uv, what: "`unread`") {
                if let why = UnreadReason(rawValue: w), type == .dir || type == .symlink {
                    unread = why
                } else if UnreadReason(rawValue: w) == nil {
                    r.diags.error(
                        uv.loc, code: "bad-value", "unknown `unread` reason `\(w)`",
                        help: (nearest(w, in: UnreadReason.allCases.map(\.rawValue)).map { "did you mean `\($0)`? " } ?? "") + "reasons: "
                            + UnreadReason.allCases.map(\.rawValue).joined(separator: ", "))
                } else {
                    r.diags.error(
                        uv.loc, code: "bad-value", "`unread` goes with a folder or a symlink, and `\(d.path)` is a \(type.word)",
                        help: "remove `unread`, or make the node `type: dir`")
                }
            }
            if let why = unread { p.world.unread[id] = why }
            if let cv = f.content, let w = r.string(cv, what: "`content`") {
                if let kind = ContentKind(rawValue: w), type == .file {
                    p.world.contentKinds[id] = kind
                } else if ContentKind(rawValue: w) == nil {
                    r.diags.error(
                        cv.loc, code: "bad-value", "unknown `content` kind `\(w)`",
                        help: (nearest(w, in: ContentKind.allCases.map(\.rawValue)).map { "did you mean `\($0)`? " } ?? "") + "kinds: "
                            + ContentKind.allCases.map(\.rawValue).joined(separator: ", "))
                } else {
                    r.diags.error(
                        cv.loc, code: "bad-value", "`content` goes with a regular file, and `\(d.path)` is a \(type.word)",
                        help: "remove `content`")
                }
            }
            if let cv = f.caps, let t = r.string(cv, what: "`caps`") {
                if type != .file {
                    r.diags.error(
                        cv.loc, code: "bad-value", "`caps` (file capabilities) goes with a regular file, and `\(d.path)` is a \(type.word)",
                        help: "remove `caps`")
                } else if let fc = FileCapabilities.parse(t) {
                    p.world.fileCaps[id] = fc
                } else {
                    r.diags.error(
                        cv.loc, code: "bad-value", "`\(t)` is not a file capability text",
                        help: "write it as getcap does: `cap_dac_read_search=ep`, `cap_chown,cap_fowner=eip`, with `[rootid=N]` for a namespaced one")
                }
            }
            if let tv = f.target {
                if type != .symlink {
                    r.diags.error(
                        tv.loc, code: "target-on-non-symlink", "`target` only goes with `type: symlink`, and `\(d.path)` is a \(type.word)",
                        help: "add `type: symlink`, or remove `target`")
                } else if let t = r.string(tv, what: "`target`") {
                    if t.isEmpty {
                        r.diags.error(tv.loc, code: "bad-path", "a symlink `target` cannot be empty")
                    } else {
                        p.world.setSymlinkTarget(NameEscaping.canonical(t), on: id)
                    }
                }
            } else if type == .symlink && unread == nil {
                r.diags.error(
                    d.loc, code: "missing-key", "symlink `\(d.path)` has no `target`",
                    help: "add `target: <path>`, or `unread: denied` for a link whose target could not be read")
            }
            var protection = ProtectionClass.unspecified
            if let pv = f.protection, let w = r.string(pv, what: "`protection`") {
                if let pc = ProtectionClass.allCases.first(where: { $0.word == w && $0 != .unspecified }) {
                    protection = pc
                } else {
                    r.diags.error(
                        pv.loc, code: "bad-value", "unknown protection class `\(w)`",
                        help: "use `complete`, `completeUnlessOpen`, `completeUntilFirstUserAuthentication` or `none`")
                }
            }
            var open = false
            if let ov = f.open, let b = r.bool(ov, what: "`open`") {
                open = b
                if b && protection != .completeUnlessOpen {
                    r.diags.warning(
                        ov.loc, code: "unused-open", "`open: true` on `\(d.path)` has no effect without `protection: completeUnlessOpen`",
                        help: "only a Complete Unless Open file stays usable through a handle opened before the lock")
                }
            }
            if protection != .unspecified || open { p.world.setProtection(protection, open: open, on: id) }
            if let lv = f.link { links.append((id, lv, d.path)) }
        }
        let last = order.count - (order.count - 1) % ahead - 1
        if !order.isEmpty { for q in 0..<(order.count - last) { swap(&fetched[q], &decls[order[last + q]]) } }
        if listed { p.world.index(pending) }
        // Hard links: each name made another name of the file its `link` names, once every
        // node exists (the other keys of such an entry are not used: the file has them).
        for (id, lv, path) in links {
            guard let raw = r.string(lv, what: "`link`") else { continue }
            guard let target = checkPath(lv, raw, what: "`link`"), let t = p.world.lookup(target) else {
                r.diags.error(
                    lv.loc, code: "bad-link", "`link` of `\(path)` names `\(raw)`, which is not in the tree",
                    help: "a hard link names another tree entry: the file's first name")
                continue
            }
            if p.world[t].isDir || p.world[id].isDir || t == id {
                r.diags.error(
                    lv.loc, code: "bad-link",
                    "`\(path)` cannot be a hard link to `\(target)`: \(t == id ? "it names itself" : "a folder has one name (the kernel refuses a hard link to a folder)")",
                    help: "give the path of a file")
                continue
            }
            p.world.addHardLink(id, to: t)
        }
    }
}
