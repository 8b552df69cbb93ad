import FSPolicy
import Foundation
import FSPolicyYAML

/// The UTF-8 bytes of `s` (native strings are contiguous: no copy).
@inline(__always) func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    var c = s
    return c.withUTF8(body)
}

struct NodeDecl {
    var path: String
    var loc: SourceLocation
    /// The node's mapping (nil when its value is null); its keys are checked.
    var value: YNode?
    /// For a mapping whose keys are all known, at most sixteen: each pair's
    /// key as its index in `nodeKeys` plus one, four bits a pair from the lowest (found while
    /// the keys are checked, so that `fields` need not compare them again); 0 otherwise.
    var keyCode: UInt64 = 0
    /// Its `mode`, `owner` and `group`, read in the file's order (`CommonFields`).
    var common = CommonFields()

    /// A stand-in left in the list where a declaration was moved out.
    static var vacated: NodeDecl { NodeDecl(path: "", loc: SourceLocation(file: "", line: 0, column: 0), value: nil) }

    /// The node's known keys and their values.
    var fields: NodeFields {
        var f = NodeFields()
        if let value {
            let d = value.doc, i = value.index
            // Keys compared as bytes, without a string or an array per node.
            let n = d.nodes[Int(i)]
            guard n.kind == 1 else { return f }
            var c = Int(n.a)
            if keyCode != 0 {
                var code = keyCode
                for _ in 0..<Int(n.b) {
                    f.set(index: Int(code & 15) - 1, YNode(fast: d, d.children[c + 1]))
                    code >>= 4
                    c += 2
                }
                return f
            }
            for _ in 0..<Int(n.b) {
                if let w = d.wordIndex(d.children[c], in: NodeFields.keyBytes) { f.set(index: w, YNode(fast: d, d.children[c + 1])) }
                c += 2
            }
            return f
        }
        guard let m = value?.mapping else { return f }
        for (k, v) in m { if let key = k.scalar { f.set(key, v) } }
        return f
    }
}

/// A tree node's settings by key (the keys of `nodeKeys`), without a dictionary per node.
struct NodeFields {
    static let keyBytes: [[UInt8]] = nodeKeys.map { Array($0.utf8) }
    var type, owner, group, mode, flags, acl, defaultAcl, target, protection, open, assumed, unread, link, content, caps: YNode?

    /// Sets the field `nodeKeys[index]` (the cases follow nodeKeys' order; FastYAMLTests would see a slip).
    mutating func set(index: Int, _ v: YNode) {
        switch index {
        case 0: type = v
        case 1: owner = v
        case 2: group = v
        case 3: mode = v
        case 4: flags = v
        case 5: acl = v
        case 6: defaultAcl = v
        case 7: target = v
        case 8: protection = v
        case 9: open = v
        case 10: assumed = v
        case 11: unread = v
        case 12: link = v
        case 13: content = v
        case 14: caps = v
        default: break
        }
    }

    mutating func set(_ key: String, _ v: YNode) {
        switch key {
        case "type": type = v
        case "owner": owner = v
        case "group": group = v
        case "mode": mode = v
        case "flags": flags = v
        case "acl": acl = v
        case "defaultAcl": defaultAcl = v
        case "target": target = v
        case "protection": protection = v
        case "open": open = v
        case "assumed": assumed = v
        case "unread": unread = v
        case "link": link = v
        case "content": content = v
        case "caps": caps = v
        default: break
        }
    }

    subscript(_ key: String) -> YNode? {
        switch key {
        case "type": type
        case "owner": owner
        case "group": group
        case "mode": mode
        case "flags": flags
        case "acl": acl
        case "defaultAcl": defaultAcl
        case "target": target
        case "protection": protection
        case "open": open
        case "assumed": assumed
        case "unread": unread
        case "link": link
        case "content": content
        case "caps": caps
        default: nil
        }
    }
}

struct Compiler {
    let file: String
    let override: Semantics?
    let importStack: [String]
    /// Imported files already compiled during this load, shared by every file of it.
    let cache: ImportCache
    var r = Reader()
    var p: Policy
    var baseDir: String
    /// Whether expectations of the common shape may be read by the quick reading
    /// (`readExpectationsQuickly`), and how many it read.
    /// What imports may ask of this machine (`PolicyLoader.load(…, host:)`).
    var host = LoaderHost.none
    var fastExpect = true
    var quickExpectations = 0
    /// The document of the file (freed early: `loadCompiled`).
    var fastDocument: FastYAMLDocument? = nil
    /// The shortest `expect:` list read quickly while the tree is built (`startQuickRead`).
    var earlyCount = QuickRead.earlyCount
    /// What became of that reading: nil when there was none, true when it was taken, false
    /// when the names had changed since and the list was read again.
    var earlyReadTaken: Bool? = nil
    /// Threads of the quick reading of a list (nil: one for every 65,536 entries, as many as
    /// `check` uses at most; tests ask for several on short lists).
    var quickWorkers: Int? = nil
    /// Builds every tree the general way, never from its listing (for the differential test of
    /// `ListedParents` and `World.appendNewNode`).
    var generalTree = false
    /// ACLs read in this tree, by their text (`aclCacheKey`): (macOS ACL, POSIX ACL). Only
    /// results that reported nothing are kept.
    var aclCache: [[UInt8]: (ACL?, POSIXACL?)] = [:]
    /// The same by the text's number in `aclTexts` (high 32 bits) and what else the result
    /// depends on (low 32: access or default, and the mode's bits), for entries whose record
    /// holds that number.
    var aclCacheByText: [UInt64: (ACL?, POSIXACL?)] = [:]
    /// The short values and the ACL texts of the tree's entries (`CommonFields`).
    var shortScalars = ShortScalars()
    var aclTexts = ACLTexts()
    /// Folders a scan imported into this world read whole: another import's `unread` mark
    /// (an ancestor of its root, say) does not make them unknown again.
    var fullyRead: Set<NodeID> = []
    /// Users and groups declared with an error in their entry (a bad or taken id): the entry's
    /// error says what is wrong, so a use of the name elsewhere reports nothing more.
    var brokenUsers: Set<String> = []
    var brokenGroups: Set<String> = []
    /// How many entries `steps:` has, refused ones included (`after: N` counts them).
    var stepsWritten = 0

    init(file: String, override: Semantics?, importStack: [String], cache: ImportCache = ImportCache()) {
        self.file = file
        self.cache = cache
        self.override = override
        self.importStack = importStack
        self.p = Policy(file: file)
        if let slash = file.lastIndex(of: "/") { self.baseDir = file == "/" ? "/" : String(file[..<slash]) } else { self.baseDir = "." }
        if baseDir.isEmpty { baseDir = "/" }
    }

    func finish() -> Policy {
        var out = p
        out.diagnostics.append(contentsOf: r.diags)
        return out
    }

    var macLike: Bool { p.semantics != .linux }

    mutating func compile(_ text: String) {
        guard let root = parseYAML(text, file: file, diags: &r.diags) else { return }
        fastDocument = root.doc
        guard let top = root.mapping else {
            r.diags.error(
                root.loc, code: "wrong-type", "a policy file is a mapping of keys, found \(root.kindWord)",
                help: "start the file with `fspolicy: 1`")
            return
        }
        let k = r.keyed(top, known: topKeys, context: "the policy file")
        // fspolicy: version
        if let v = k["fspolicy"] {
            if let n = Int(v.scalar ?? ""), !v.isNull {
                if n > PolicyLoader.formatVersion {
                    r.diags.error(
                        v.loc, code: "version-too-new", "format version \(n) is too new for this fspolicy, which reads version \(PolicyLoader.formatVersion)",
                        help: "upgrade fspolicy, or write `fspolicy: 1`")
                } else if n < 1 {
                    r.diags.error(v.loc, code: "bad-version", "format version \(n) does not exist", help: "write `fspolicy: 1`")
                }
            } else {
                r.diags.error(
                    v.loc, code: "bad-version", "`fspolicy` must be the format version number, found `\(v.scalar ?? v.kindWord)`",
                    help: "write `fspolicy: 1`")
            }
        } else {
            r.diags.error(
                root.loc, code: "missing-version", "the policy file has no `fspolicy` version key",
                help: "add `fspolicy: 1` as the first line")
        }
        if let s = k["semantics"], let w = r.string(s, what: "`semantics`") {
            if let sem = Semantics(rawValue: w) {
                p.semantics = sem; p.semanticsLocation = s.loc; p.world.fromLinux = sem == .linux
            } else {
                r.diags.error(
                    s.loc, code: "bad-value", "unknown semantics `\(w)`",
                    help: "use `macos`, `guide` or `linux`" + (nearest(w, in: Semantics.allCases.map(\.rawValue)).map { " (did you mean `\($0)`?)" } ?? ""))
            }
        }
        if let o = override { p.semantics = o }
        if let d = k["description"] { p.description = r.string(d, what: "`description`") }
        if let s = k["securelevel"], let v = r.int(s, what: "`securelevel`", min: -1, max: 2) { p.world.securelevel = v }

        // Imports of other policies come first: this file's entries win over them.
        var treeDecls: [NodeDecl] = []
        installBuiltins()
        if let imp = k["import"] { readImports(imp, tree: &treeDecls) }
        installBuiltins()
        if let g = k["groups"] { readGroups(g) }
        if let u = k["users"] { readUsers(u) }
        if let g = k["groups"] { resolveGroupRefs(g) }
        if let v = k["volumes"] { readVolumes(v) }
        if let d = k["defaults"] { readDefaults(d) }
        // A long `expect:` list is read quickly on other threads while this one builds the tree.
        let early = k["expect"].flatMap { startQuickRead($0) }
        if let t = k["tree"] { collectTree(t, into: &treeDecls) }
        buildTree(consume treeDecls)
        if let l = k["linux"] { readLinux(l) }
        if let a = k["apps"] { readApps(a) }
        if let s = k["services"] { readServices(s) }
        if let u = k["units"] { readUnits(u) }
        if let d = k["device"] { readDevice(d) }
        if let s = k["steps"] { readSteps(s) }
        if let e = k["expect"] { readExpectations(e, early: early) }
        if let f = k["findings"] { readFindings(f) }
        if let kc = k["keychain"] { readKeychain(kc) }
    }

    // The names of users and groups (PolicyLoader+Accounts.swift).
    var userNames: [String: UID] = [:]
    var groupNames: [String: GID] = [:]
    /// Each declared group's name and its entry's keys (read once, used again once every
    /// group and user is known, for `members` and `groups`).
    var groupDecls: [(String, [String: YNode])] = []
    /// Tree paths written with a trailing `/`: directories only.
    var slashed: Set<String> = []
    var groupLocs: [String: SourceLocation] = [:]

    // What imports bring (PolicyLoader+Imports.swift).
    /// Imported policies' worlds whose users and groups are not in `p.world` yet.
    var pendingPrincipals: [World] = []
    /// The names in `p.userOrder`, kept across imports.
    var orderedUsers: Set<String> = []
    var importedWorlds: [Policy] = []
    /// Trees read by `scan` and `getfacl` imports, with where they appear and the import line.
    var scanned: [(ScannedTree, String, SourceLocation)] = []
    /// Listings read by `lsle` imports (PolicyLoader+Listing.swift).
    var listings: [ListingImport] = []
}
