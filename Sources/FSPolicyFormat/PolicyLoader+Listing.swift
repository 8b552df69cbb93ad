import FSPolicy
import Foundation
import FSPolicyYAML

/// A macOS `ls -leOR` listing read by `import: - lsle:`, waiting for the file's own users and
/// groups (they are read after the imports): its names are resolved when the tree is built.
struct ListingImport {
    var listing: MacListing.Listing
    /// The listing's path, as diagnostics name it.
    var file: String
    /// Where the listing's root sits in the tree.
    var at: String
}

extension Compiler {
    /// Reads and checks `import: - lsle: FILE` (with its optional `at`). Line errors carry the
    /// listing's own `file:line:column`.
    mutating func readListingImport(_ value: YNode, pathText: String, full: String, at: String?) {
        guard let data = FileManager.default.contents(atPath: full) else {
            r.diags.error(
                value.loc, code: "unreadable", "cannot read the listing `\(pathText)`",
                help: "relative paths are relative to this file's folder")
            return
        }
        let (listing, problems) = MacListing.parse(Array(data))
        func loc(_ line: Int, _ col: Int) -> SourceLocation { SourceLocation(file: full, line: line, column: col) }
        for e in problems { r.diags.error(loc(e.line, e.column), code: e.code, e.message, help: e.help) }
        for w in listing.warnings { r.diags.warning(loc(w.line, w.column), code: w.code, w.message, help: w.help) }
        guard problems.isEmpty else { return }
        var place = at
        if place == nil, let root = listing.rootText, root.hasPrefix("/") { place = normalize(root) }
        guard let root = place else {
            let how = listing.rootText.map { "its sections are relative to `\($0)`" } ?? "it has no section header with an absolute path"
            r.diags.error(
                value.loc, code: "bad-import", "the listing `\(pathText)` does not say where it was taken: \(how)",
                help: "add `at:` with the listed directory's path on the Mac, e.g. `at: /Users/alice`")
            return
        }
        if p.semantics == .linux, let e = listing.entries.first(where: { !$0.aces.isEmpty }) {
            r.diags.error(
                loc(e.aces[0].line, 2), code: "mac-ace-under-linux", "`\(e.name)` has macOS ACEs; Linux has POSIX ACLs only",
                help: "import macOS listings under `semantics: macos` or `guide`")
            return
        }
        if !listing.hasFlagsColumn, let first = listing.entries.first {
            r.diags.warning(
                loc(first.line, 1), code: "listing-problem", "the listing has no flags column, so file flags such as `uchg` are taken as absent",
                help: "list with `-O` (`ls -laeOR`)")
        }
        let unmodelled = listing.entries.filter { e in e.otherFlags.contains { MacListing.unmodelledFlags.contains($0) } }
        if let e = unmodelled.first {
            let words = e.otherFlags.filter { MacListing.unmodelledFlags.contains($0) }.joined(separator: ",")
            r.diags.warning(
                loc(e.line, 1), code: "listing-problem",
                "`\(words)` on `\(e.name)`" + (unmodelled.count > 1 ? " (and \(unmodelled.count - 1) more entries)" : "")
                    + " is enforced by System Integrity Protection, which is not modelled: decisions ignore it",
                help: "root's writes there are refused on a Mac with SIP on, whatever this tool says")
        }
        if let d = listing.directoriesWithoutSection.first {
            let more = listing.directoriesWithoutSection.count - 1
            r.diags.warning(
                loc(d.line, 1), code: "listing-problem",
                "the directory `\(d.name)` has no section of its own" + (more > 0 ? " (nor do \(more) more)" : "") + ", so what it contains is unknown",
                help: "list recursively (`-R`), with `-a` for hidden directories, as a user who can read them")
        }
        listings.append(ListingImport(listing: listing, file: full, at: root))
    }

    /// Adds the listings' entries to the tree, resolving owner, group and ACE names against
    /// the declared users and groups (numbers are taken as ids). `declared` are the tree paths
    /// the file itself declares.
    mutating func mergeListings(declared: Set<String>) {
        for imp in listings {
            struct Unknown { var loc: SourceLocation; var count: Int }
            var unknownUsers: [String: Unknown] = [:]
            var unknownGroups: [String: Unknown] = [:]
            var order: [(Bool, String)] = []
            func loc(_ line: Int, _ col: Int) -> SourceLocation { SourceLocation(file: imp.file, line: line, column: col) }
            func user(_ name: String, _ at: SourceLocation) -> UID? {
                if let u = userNames[name] { return u }
                if !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isNumber }), let n = numericID(name) { return n }
                if unknownUsers[name] == nil { unknownUsers[name] = Unknown(loc: at, count: 0); order.append((true, name)) }
                unknownUsers[name]!.count += 1
                return nil
            }
            func group(_ name: String, _ at: SourceLocation) -> GID? {
                if let g = lookupGroup(name) { return g }
                if !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isNumber }), let n = numericID(name) { return n }
                if unknownGroups[name] == nil { unknownGroups[name] = Unknown(loc: at, count: 0); order.append((false, name)) }
                unknownGroups[name]!.count += 1
                return nil
            }
            let root = imp.at
            var describedRoot = false
            for e in imp.listing.entries {
                let path: String
                if e.aboveRoot {
                    if root == "/" { continue }  // `..` of `/` is `/` itself
                    let up = MacListing.dirname(root)
                    path = up
                } else if e.relativePath.isEmpty {
                    path = root
                    describedRoot = true
                } else {
                    path = (root == "/" ? "" : root) + "/" + e.relativePath
                }
                let uid = user(e.owner, loc(e.line, e.ownerColumn))
                let gid = group(e.group, loc(e.line, e.groupColumn))
                var aces: [ACE] = []
                var ok = uid != nil && gid != nil
                for a in e.aces {
                    let at = loc(a.line, a.subjectColumn)
                    let subject: ACESubject
                    switch a.subject {
                    case .everyone: subject = .everyone
                    case .owner: subject = .owner
                    case .owningGroup: subject = .owningGroup
                    case .uid(let n): subject = .user(n)
                    case .gid(let n): subject = .group(n)
                    case .user(let name):
                        guard let u = user(name, loc(a.line, a.subjectColumn + 5)) else { ok = false; continue }
                        subject = .user(u)
                    case .group(let name):
                        guard let g = group(name, loc(a.line, a.subjectColumn + 6)) else { ok = false; continue }
                        subject = .group(g)
                    }
                    _ = at
                    aces.append(ACE(subject: subject, kind: a.kind, rights: a.rights, flags: a.flags))
                }
                guard ok, let u = uid, let g = gid else { continue }
                let id = p.world.addNode(
                    path: path, type: e.type, uid: u, gid: g, mode: e.mode, flags: e.flags,
                    acl: e.aces.isEmpty ? nil : ACL(aces))
                if let t = e.target { p.world.setSymlinkTarget(t, on: id) }
                p.nodeLocations[id] = loc(e.line, 1)
                if !e.aces.isEmpty { p.aceLocations[path] = e.aces.map { loc($0.line, 2) } }
            }
            for (isUser, name) in order {
                let u = isUser ? unknownUsers[name]! : unknownGroups[name]!
                let more = u.count > 1 ? " (used \(u.count) times in the listing; first here)" : ""
                let kind = isUser ? "user" : "group"
                let near = nearest(name, in: Array(isUser ? userNames.keys : groupNames.keys).sorted())
                r.diags.error(
                    u.loc, code: isUser ? "unknown-user" : "unknown-group", "unknown \(kind) `\(name)` in the listing\(more)",
                    help: (near.map { "did you mean `\($0)`? " } ?? "")
                        + "declare it under `\(kind)s` with its \(isUser ? "uid" : "gid") on the Mac (`\(isUser ? "id -u \(name)" : "dscl . -read /Groups/\(name) PrimaryGroupID")` there): a listing has names, not ids"
                )
            }
            if !describedRoot && !declared.contains(root) {
                r.diags.warning(
                    loc(1, 1), code: "listing-problem",
                    "the listing does not describe `\(root)` itself, so it gets the default owner, group and mode",
                    help: "list with `-a` (its `.` entry describes it), or declare `\(root)` under `tree`")
            }
        }
    }
}
