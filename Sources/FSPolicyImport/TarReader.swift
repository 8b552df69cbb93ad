#if os(Linux)
    import CLibArchive
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// Reads a tar archive (plain or compressed with any filter libarchive knows: gzip, zstd, xz,
    /// bzip2…) as a tree: type, mode, owner and group, symlink targets, hard links, POSIX ACLs
    /// from the PAX headers GNU tar and bsdtar write with `--acls`, and file flags (`SCHILY.fflags`).
    /// Nothing is extracted; only `etc/passwd` and `etc/group` are read, for the image's accounts.
    public enum TarReader {
        /// Reads the archive at `path`. The tree's root is the archive's root, `/`.
        /// `accounts`: where names in ACL entries that the archive's own `etc/passwd` and
        /// `etc/group` do not list are looked up (by default nowhere: they stay unknown).
        public static func read(_ path: String, accounts: HostAccounts = .none, progress: (@Sendable (Int) -> Void)? = nil) -> Result<
            ScannedTree, ArchiveFailure
        > {
            var layer = TarLayer()
            if let f = layer.read(path, progress: progress) { return .failure(f) }
            var tree = ScannedTree(root: "/")
            tree.origin = "the tar archive " + NameEscaping.escape(Array(path.utf8))
            layer.finish(into: &tree, accounts: accounts)
            return .success(tree)
        }
    }

    /// Member names as bytes, after normalization: no leading `/` or `./`, no empty or `.`
    /// components. Nil (with the offending member) when a component is `..`.
    func normalize(_ raw: [UInt8]) -> [[UInt8]]? {
        var comps: [[UInt8]] = []
        for c in raw.split(separator: 0x2f, omittingEmptySubsequences: true) {
            if c.elementsEqual([0x2e]) { continue }
            if c.elementsEqual([0x2e, 0x2e]) { return nil }
            comps.append(Array(c))
        }
        return comps
    }

    /// One archive's members, keyed by their normalized path.
    struct TarLayer {
        struct Member {
            var entry: ScannedTree.Entry
            var uname: String?
            var gname: String?
            /// ACL entries that name an account without its id (GNU tar writes `user:bob:rw-`):
            /// resolved once the archive's own account files are known.
            var pendingAccess: [RawACE]? = nil
            var pendingDefault: [RawACE]? = nil
            /// Why the member's `security.capability` was not kept (a value the kernel refuses).
            var capsProblem: String? = nil
        }
        struct RawACE {
            var tag: POSIXACLLine.Tag
            var perms: RWX
            /// The account's name when the archive gives no id (then `tag`'s id is a placeholder).
            var name: String?
        }
        var members: [[[UInt8]]: Member] = [:]
        /// Every path extraction would have made so far (members and the folders above them), and
        /// how many names each folder holds: what `place` needs to apply members as tar does.
        var existing: Set<[[UInt8]]> = [[]]
        /// Members left out whose missing parents extraction still makes (`makeParents`).
        var leftOutWithParents: [[[UInt8]]] = []
        /// Members left out below a symlink (`place`): where they lead is marked unknown
        /// (`markThroughLinks`).
        var throughLinks: [[[UInt8]]] = []
        var names: [[[UInt8]]: Int] = [:]
        var problems: [ScannedTree.Problem] = []
        var passwd: [UInt8]? = nil
        var group: [UInt8]? = nil
        var count = 0
        /// The member names OCI whiteouts remove (filled only when asked for).
        var whiteouts: [[[UInt8]]] = []
        var opaque: [[[UInt8]]] = []
        /// What the notes call the source ("archive", or "image" for an OCI layout).
        var noun = "archive"

        static func display(_ comps: [[UInt8]]) -> String {
            "/" + comps.map { NameEscaping.escape($0) }.joined(separator: "/")
        }

        /// Reads every member; returns a failure for an unreadable or corrupt archive or a `..` member.
        /// With `whiteoutAware` (an OCI layer), `.wh.` members are recorded, not kept, and hard
        /// links may point into `lower`, the layers below.
        mutating func read(
            _ path: String, progress: (@Sendable (Int) -> Void)?, whiteoutAware: Bool = false,
            lower: [[[UInt8]]: Member] = [:]
        ) -> ArchiveFailure? {
            let shown = NameEscaping.escape(Array(path.utf8))
            return read(shown: shown, progress: progress, whiteoutAware: whiteoutAware, lower: lower) { a in
                if archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK { return nil }
                if access(path, F_OK) != 0 {
                    return ArchiveFailure(
                        message: "cannot read `\(shown)`: no such file or directory",
                        help: "check the path; in a policy file, relative paths are relative to its folder")
                }
                var st = stat()
                if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
                    return ArchiveFailure(
                        message: "`\(shown)` is a folder, not a tar archive",
                        help: "scan a folder as it is (`fspolicy scan \(shown)`), or an OCI image layout folder with `--oci`")
                }
                return Self.unreadable(a, shown: shown)
            }
        }

        /// Why the archive `shown` could not be opened as an archive.
        static func unreadable(_ a: OpaquePointer, shown: String) -> ArchiveFailure {
            let msg = bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error"
            return ArchiveFailure(
                message: "cannot read the archive `\(shown)`: \(msg)", help: "the file should be a tar archive, plain or compressed (gzip, zstd, xz, bzip2)")
        }

        /// As `read(_:…)`, from an archive `open` opens (a file, or a member of an image archive
        /// read in place); `shown` names it in messages.
        mutating func read(
            shown: String, progress: (@Sendable (Int) -> Void)?, whiteoutAware: Bool = false,
            lower: [[[UInt8]]: Member] = [:], open: (OpaquePointer) -> ArchiveFailure?
        ) -> ArchiveFailure? {
            let savedLocale = clibarchive_use_utf8()
            defer { clibarchive_restore_locale(savedLocale) }
            guard let a = archive_read_new() else { return ArchiveFailure(message: "libarchive could not start", help: "") }
            defer { archive_read_free(a) }
            archive_read_support_filter_all(a)
            archive_read_support_format_tar(a)
            archive_read_support_format_gnutar(a)
            if let f = open(a) { return f }
            var entry: OpaquePointer? = nil
            while true {
                let r = archive_read_next_header(a, &entry)
                if r == ARCHIVE_EOF { break }
                if r == ARCHIVE_FATAL || entry == nil {
                    return ArchiveFailure(
                        message: "the archive `\(shown)` is corrupt after \(count) \(count == 1 ? "member" : "members"): \(errorText(a))",
                        help: "check the file with `tar -tvf`; a truncated download or a wrong format gives this")
                }
                let e = entry!
                let rawName = bytes(archive_entry_pathname(e)) ?? bytes(archive_entry_pathname_utf8(e)) ?? []
                guard let comps = normalize(rawName) else {
                    return ArchiveFailure(
                        message: "the archive `\(shown)` has a member with `..` in its name: `\(NameEscaping.escape(rawName))`",
                        help: "such a member would be written outside the extraction folder; fspolicy refuses the archive")
                }
                // A name that is not UTF-8 makes libarchive warn that it cannot convert it; the
                // bytes it keeps are the archive's, which is all a name needs to be here.
                if r == ARCHIVE_WARN, errorText(a).contains("can't be converted") {
                } else if r == ARCHIVE_WARN || r == ARCHIVE_RETRY || r == ARCHIVE_FAILED {
                    problems.append(.init(path: Self.display(comps), message: errorText(a)))
                    if r == ARCHIVE_FAILED { continue }
                }
                count += 1
                if let p = progress, count % 5000 == 0 { p(count) }
                if let f = Self.refusal(e, comps: comps, shown: shown) { return f }
                if whiteoutAware, let last = comps.last, last.starts(with: Array(".wh.".utf8)) {
                    let parent = Array(comps.dropLast())
                    if last.elementsEqual(Array(".wh..wh..opq".utf8)) {
                        opaque.append(parent)
                    }
                    // Other `.wh..wh.` names are aufs's own bookkeeping (`.wh..wh.plnk`), never files.
                    else if !last.starts(with: Array(".wh..wh.".utf8)) {
                        whiteouts.append(parent + [Array(last.dropFirst(4))])
                    }
                    continue
                }
                if whiteoutAware, comps.contains(where: { $0.starts(with: Array(".wh..wh.".utf8)) }) { continue }
                var m = member(e, comps: comps)
                if let why = m.capsProblem { problems.append(.init(path: Self.display(comps), message: why)) }
                // symlink(2) refuses an empty target (ENOENT): extraction makes nothing there.
                if m.entry.type == .symlink, m.entry.target?.isEmpty ?? true, archive_entry_hardlink(e) == nil {
                    problems.append(
                        .init(path: Self.display(comps), message: "a symlink with an empty target, which tar cannot make (symlink(2): ENOENT); left out"))
                    continue
                }
                if let hl = bytes(archive_entry_hardlink(e)) ?? bytes(archive_entry_hardlink_utf8(e)) {
                    guard let target = normalize(hl) else {
                        return ArchiveFailure(
                            message:
                                "the archive `\(shown)` has a hard link with `..` in its target: `\(NameEscaping.escape(rawName))` → `\(NameEscaping.escape(hl))`",
                            help: "such a link points outside the extraction folder; fspolicy refuses the archive")
                    }
                    // Extraction links to what it has already made (GNU tar 1.34 and bsdtar 3.6
                    // checked): a target no earlier member made, or a folder, gives nothing.
                    guard let t = members[target] ?? lower[target] else {
                        problems.append(
                            .init(
                                path: Self.display(comps),
                                message:
                                    "hard link to `\(Self.display(target))`, which no earlier member made: tar makes nothing here (GNU tar: Cannot hard link; bsdtar: Hard-link target does not exist); left out"
                            ))
                        makeParents(comps)
                        continue
                    }
                    if t.entry.type == .dir {
                        problems.append(
                            .init(
                                path: Self.display(comps),
                                message: "hard link to the folder `\(Self.display(target))`, which link(2) refuses (EPERM): tar makes nothing here; left out"))
                        makeParents(comps)
                        continue
                    }
                    // A hard link is the same inode: same type, owner, mode, ACLs and flags.
                    var copy = t
                    copy.entry.relativePath = m.entry.relativePath
                    m = copy
                }
                if comps.count == 2, comps[0].elementsEqual(Array("etc".utf8)), m.entry.type == .file {
                    if comps[1].elementsEqual(Array("passwd".utf8)) { passwd = readData(a) }
                    if comps[1].elementsEqual(Array("group".utf8)) { group = readData(a) }
                }
                place(comps, m)
            }
            return nil
        }

        func member(_ e: OpaquePointer, comps: [[UInt8]]) -> Member {
            let mode = UInt32(archive_entry_mode(e))
            let type: NodeType
            switch mode & 0o170000 {
            case 0o040000: type = .dir
            case 0o120000: type = .symlink
            case 0o010000: type = .fifo
            case 0o140000: type = .socket
            case 0o020000: type = .charDevice
            case 0o060000: type = .blockDevice
            default: type = .file
            }
            var flags: FileFlags = []
            var set: UInt = 0, clear: UInt = 0
            archive_entry_fflags(e, &set, &clear)
            if set & UInt(clibarchive_fl_immutable()) != 0 { flags.insert(.systemImmutable) }
            if set & UInt(clibarchive_fl_append()) != 0 { flags.insert(.systemAppend) }
            if set & UInt(clibarchive_fl_nodump()) != 0 { flags.insert(.userNoDump) }
            let entry = ScannedTree.Entry(
                relativePath: comps.map { NameEscaping.escape($0) }.joined(separator: "/"), type: type,
                uid: UID(truncatingIfNeeded: archive_entry_uid(e)), gid: GID(truncatingIfNeeded: archive_entry_gid(e)),
                mode: FileMode(UInt16(mode & 0o7777)), flags: flags)
            var m = Member(
                entry: entry, uname: bytes(archive_entry_uname(e)).map { NameEscaping.escape($0) },
                gname: bytes(archive_entry_gname(e)).map { NameEscaping.escape($0) })
            if type == .symlink {
                m.entry.target = NameEscaping.escape(bytes(archive_entry_symlink(e)) ?? bytes(archive_entry_symlink_utf8(e)) ?? [])
                return m
            }
            // The kernel's own ACL (GNU tar's `--xattrs` copies `system.posix_acl_*`) has ids;
            // otherwise the `SCHILY.acl.*` text as libarchive parsed it.
            var xattrs: [String: [UInt8]] = [:]
            archive_entry_xattr_reset(e)
            var xname: UnsafePointer<CChar>? = nil
            var xvalue: UnsafeRawPointer? = nil
            var xsize = 0
            while archive_entry_xattr_next(e, &xname, &xvalue, &xsize) == ARCHIVE_OK {
                guard let n = xname, let v = xvalue else { continue }
                let key = String(cString: n)
                if key == "system.posix_acl_access" || key == "system.posix_acl_default" {
                    xattrs[key] = Array(UnsafeRawBufferPointer(start: v, count: xsize))
                }
                // File capabilities (GNU tar `--xattrs` and bsdtar keep them; image layers carry
                // them for programs such as ping): extraction sets them, so the program runs with
                // them. A value the kernel would refuse is not set (setxattr: EINVAL).
                if key == "security.capability" && type == .file {
                    let raw = Array(UnsafeRawBufferPointer(start: v, count: xsize))
                    if let c = FileCapabilities.decode(raw) {
                        m.entry.caps = c
                    } else {
                        m.capsProblem =
                            "security.capability holds \(xsize) bytes that are not a version 2 or 3 value, which the kernel refuses to set: left off"
                    }
                }
            }
            // A default ACL is read on every type: Linux keeps one only on a directory, so one on a
            // file says the archive was not made from a real tree as it is (lint FSL021).
            for isDefault in type == .symlink ? [false] : [false, true] {
                var raw = xattrs[isDefault ? "system.posix_acl_default" : "system.posix_acl_access"].flatMap(Self.xattrACL) ?? acl(e, isDefault: isDefault)
                if raw.contains(where: { $0.name != nil }) {
                    if isDefault { m.pendingDefault = raw } else { m.pendingAccess = raw }
                    raw = []
                }
                let built = Self.build(raw, isDefault: isDefault)
                if isDefault { m.entry.defaultACL = built } else { m.entry.setAccess(built) }
            }
            return m
        }

        static func build(_ raw: [RawACE], isDefault: Bool) -> POSIXACL? {
            if raw.isEmpty { return nil }
            guard case .success(let a) = POSIXACL.build(raw.map { POSIXACLLine(tag: $0.tag, perms: $0.perms, isDefault: isDefault, effective: nil) }) else {
                return nil
            }
            return a.isMinimal && !isDefault ? nil : a
        }

        /// The kernel's binary ACL (`system.posix_acl_*`, `POSIXACLXattr`); nil when malformed.
        static func xattrACL(_ v: [UInt8]) -> [RawACE]? {
            guard case .success(let lines) = POSIXACLXattr.lines(v, isDefault: false) else { return nil }
            return lines.map { RawACE(tag: $0.tag, perms: $0.perms, name: nil) }
        }

        /// The access or default ACL of a member (libarchive parses `SCHILY.acl.access` and
        /// `SCHILY.acl.default`, and gives the three base entries of an access ACL from the mode).
        func acl(_ e: OpaquePointer, isDefault: Bool) -> [RawACE] {
            let want = isDefault ? ARCHIVE_ENTRY_ACL_TYPE_DEFAULT : ARCHIVE_ENTRY_ACL_TYPE_ACCESS
            archive_entry_acl_reset(e, want)
            var lines: [RawACE] = []
            var type: Int32 = 0, permset: Int32 = 0, tag: Int32 = 0, qual: Int32 = 0
            var name: UnsafePointer<CChar>? = nil
            while archive_entry_acl_next(e, want, &type, &permset, &tag, &qual, &name) == ARCHIVE_OK {
                var perms: RWX = []
                if permset & ARCHIVE_ENTRY_ACL_READ != 0 { perms.insert(.read) }
                if permset & ARCHIVE_ENTRY_ACL_WRITE != 0 { perms.insert(.write) }
                if permset & ARCHIVE_ENTRY_ACL_EXECUTE != 0 { perms.insert(.execute) }
                let t: POSIXACLLine.Tag
                // A named entry without an id (`qual` -1) keeps its name for later.
                let named = (tag == ARCHIVE_ENTRY_ACL_USER || tag == ARCHIVE_ENTRY_ACL_GROUP) && qual < 0
                switch tag {
                case ARCHIVE_ENTRY_ACL_USER_OBJ: t = .userObj
                case ARCHIVE_ENTRY_ACL_USER: t = .user(UInt32(bitPattern: qual))
                case ARCHIVE_ENTRY_ACL_GROUP_OBJ: t = .groupObj
                case ARCHIVE_ENTRY_ACL_GROUP: t = .group(UInt32(bitPattern: qual))
                case ARCHIVE_ENTRY_ACL_MASK: t = .mask
                case ARCHIVE_ENTRY_ACL_OTHER: t = .other
                default: continue
                }
                lines.append(RawACE(tag: t, perms: perms, name: named ? (bytes(name).map { NameEscaping.escape($0) } ?? "") : nil))
            }
            return lines
        }

        /// The member's contents (at most 16 MiB: account files are small).
        func readData(_ a: OpaquePointer) -> [UInt8] {
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while out.count < 16 << 20 {
                let n = buf.withUnsafeMutableBytes { archive_read_data(a, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                out += buf[0..<n]
            }
            return out
        }

        func errorText(_ a: OpaquePointer) -> String {
            bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error"
        }

        /// The members as a tree: parents the archive implies are added (assumed), entries sorted
        /// as a directory walk would meet them, accounts from the archive's own `etc/passwd` and
        /// `etc/group`, then from the names in the headers.
        func finish(into tree: inout ScannedTree, accounts: HostAccounts) {
            var all = members
            var implied: [[[UInt8]]] = []
            for comps in Array(members.keys) + leftOutWithParents {
                var p = comps
                while !p.isEmpty {
                    p.removeLast()
                    if all[p] != nil { break }
                    implied.append(p)
                    all[p] = Member(
                        entry: ScannedTree.Entry(
                            relativePath: p.map { NameEscaping.escape($0) }.joined(separator: "/"), type: .dir,
                            uid: 0, gid: 0, mode: FileMode(0o755)), uname: nil, gname: nil)
                    all[p]!.entry.assumed = true
                }
            }
            // ACL entries that carry only a name: the archive's accounts, else this host's.
            let (imageUsers, imageGroups) = accountFiles()
            var viaHost: Set<String> = []
            var unknown: [ScannedTree.Problem] = []
            for (key, m) in all where m.pendingAccess != nil || m.pendingDefault != nil {
                var fixed = m
                for isDefault in [false, true] {
                    guard let raw = isDefault ? m.pendingDefault : m.pendingAccess else { continue }
                    var out: [RawACE] = []
                    for ace in raw {
                        guard let n = ace.name else { out.append(ace); continue }
                        var a = ace
                        a.name = nil
                        if case .user = ace.tag {
                            if let id = imageUsers[n] ?? UInt32(n) {
                                a.tag = .user(id)
                            } else if let h = accounts.user(n) {
                                a.tag = .user(h.uid); viaHost.insert("user " + n)
                            } else {
                                unknown.append(
                                    .init(
                                        path: Self.display(key),
                                        message:
                                            "the \(isDefault ? "default " : "")ACL names user `\(n)`, which neither the archive's /etc/passwd nor this host knows; that entry is left out"
                                    ));
                                continue
                            }
                        } else {
                            if let id = imageGroups[n] ?? UInt32(n) {
                                a.tag = .group(id)
                            } else if let g = accounts.group(n) {
                                a.tag = .group(g); viaHost.insert("group " + n)
                            } else {
                                unknown.append(
                                    .init(
                                        path: Self.display(key),
                                        message:
                                            "the \(isDefault ? "default " : "")ACL names group `\(n)`, which neither the archive's /etc/group nor this host knows; that entry is left out"
                                    ));
                                continue
                            }
                        }
                        out.append(a)
                    }
                    let built = Self.build(out, isDefault: isDefault)
                    if isDefault { fixed.entry.defaultACL = built; fixed.pendingDefault = nil } else { fixed.entry.setAccess(built); fixed.pendingAccess = nil }
                }
                all[key] = fixed
            }
            Self.markThroughLinks(throughLinks, in: &all, engine: noun == "image")
            let ordered = all.sorted { $0.key.lexicographicallyPrecedes($1.key) { $0.lexicographicallyPrecedes($1) } }
            tree.entries = ordered.map(\.value.entry)
            tree.problems += problems + unknown.sorted { $0.path < $1.path }
            if !viaHost.isEmpty {
                tree.notes.append("ACL entries that give only a name were resolved with this host's accounts: " + viaHost.sorted().joined(separator: ", "))
            }
            if !implied.isEmpty {
                tree.notes.append(
                    (implied.count == 1 ? "1 folder has" : "\(implied.count) folders have")
                        + " no entry in the \(noun): assumed root:root 0755, what tar creates for a missing parent when extracting as root with umask 022 (written with `assumed: true`)"
                )
            }
            self.accounts(ordered.map(\.value), into: &tree)
        }

        /// Names to ids from the archive's own `etc/passwd` and `etc/group`.
        func accountFiles() -> ([String: UID], [String: GID]) {
            var users: [String: UID] = [:]
            var groups: [String: GID] = [:]
            for line in (passwd ?? []).split(separator: 0x0a) {
                let f = line.split(separator: 0x3a, omittingEmptySubsequences: false)
                if f.count >= 4, let uid = UID(String(decoding: f[2], as: UTF8.self)) {
                    let n = NameEscaping.escape(Array(f[0]))
                    if users[n] == nil { users[n] = uid }
                }
            }
            for line in (group ?? []).split(separator: 0x0a) {
                let f = line.split(separator: 0x3a, omittingEmptySubsequences: false)
                if f.count >= 3, let gid = GID(String(decoding: f[2], as: UTF8.self)) {
                    let n = NameEscaping.escape(Array(f[0]))
                    if groups[n] == nil { groups[n] = gid }
                }
            }
            return (users, groups)
        }

        /// Why an account of the archive's own files cannot be written in a policy file, or nil.
        static func unusable(_ name: String, id: UInt32) -> String? {
            if id > 4_294_967_294 { return "its id is (uid_t)-1, which no account can have" }
            return PrincipalName.problem(name)
        }

        func accounts(_ members: [Member], into tree: inout ScannedTree) {
            var users: [UID: ScannedTree.HostUser] = [:]
            var userNames: Set<String> = ["root"]
            var groups: [GID: String] = [:]
            var groupNames: Set<String> = ["root"]
            var memberOf: [String: [GID]] = [:]
            if let g = group {
                for line in g.split(separator: 0x0a) {
                    let f = line.split(separator: 0x3a, omittingEmptySubsequences: false)
                    guard f.count >= 3, let gid = GID(String(decoding: f[2], as: UTF8.self)) else { continue }
                    let name = NameEscaping.escape(Array(f[0]))
                    guard !name.isEmpty, !name.hasPrefix("+"), !name.hasPrefix("-"), groups[gid] == nil, !groupNames.contains(name) || gid == 0 else {
                        continue
                    }
                    if let why = Self.unusable(name, id: gid) {
                        tree.problems.append(
                            .init(path: "/etc/group", message: "group `\(name)` (gid \(gid)) left out: \(why); its files are written with the number"))
                        continue
                    }
                    if gid != 0 { groups[gid] = name; groupNames.insert(name) }
                    if f.count >= 4 {
                        for u in f[3].split(separator: 0x2c) { memberOf[NameEscaping.escape(Array(u)), default: []].append(gid) }
                    }
                }
            }
            if let p = passwd {
                for line in p.split(separator: 0x0a) {
                    let f = line.split(separator: 0x3a, omittingEmptySubsequences: false)
                    guard f.count >= 4, let uid = UID(String(decoding: f[2], as: UTF8.self)), let gid = GID(String(decoding: f[3], as: UTF8.self)) else {
                        continue
                    }
                    let name = NameEscaping.escape(Array(f[0]))
                    guard !name.isEmpty, !name.hasPrefix("+"), !name.hasPrefix("-"), uid != 0, users[uid] == nil, !userNames.contains(name) else { continue }
                    if let why = Self.unusable(name, id: uid) ?? (gid > 4_294_967_294 ? "its group id \(gid) is (gid_t)-1, which no group can have" : nil) {
                        tree.problems.append(
                            .init(path: "/etc/passwd", message: "user `\(name)` (uid \(uid)) left out: \(why); its files are written with the number"))
                        continue
                    }
                    users[uid] = ScannedTree.HostUser(name: name, uid: uid, gid: gid, groups: Array(Set(memberOf[name] ?? []).subtracting([gid])).sorted())
                    userNames.insert(name)
                }
            }
            var notes: [String] = []
            if passwd != nil || group != nil {
                notes.append(
                    "accounts: the \(noun)'s own /etc/passwd and /etc/group" + (passwd == nil ? " (no /etc/passwd)" : group == nil ? " (no /etc/group)" : ""))
            }
            // Ids the account files do not name: the names in the tar headers, else numbers.
            var fromHeaders = 0
            var refused: Set<String> = []
            for m in members {
                let e = m.entry
                // A header name that cannot be a name in a policy file: said once, at its first member.
                for (n, isUser) in [(m.uname, true), (m.gname, false)] {
                    guard let n, !n.isEmpty, UInt32(n) == nil, let why = PrincipalName.problem(n),
                        refused.insert((isUser ? "u:" : "g:") + n).inserted
                    else { continue }
                    tree.problems.append(
                        .init(
                            path: "/" + e.relativePath,
                            message:
                                "the header's \(isUser ? "user" : "group") name `\(n)` (\(isUser ? "uid \(e.uid)" : "gid \(e.gid)")) left out: \(why); its files are written with the number"
                        ))
                }
                if e.uid != 0, users[e.uid] == nil, let n = m.uname, !n.isEmpty, !userNames.contains(n), UInt32(n) == nil, PrincipalName.problem(n) == nil {
                    users[e.uid] = ScannedTree.HostUser(name: n, uid: e.uid, gid: e.gid, groups: [])
                    userNames.insert(n)
                    fromHeaders += 1
                }
                if e.gid != 0, groups[e.gid] == nil, let n = m.gname, !n.isEmpty, !groupNames.contains(n), UInt32(n) == nil, PrincipalName.problem(n) == nil {
                    groups[e.gid] = n
                    groupNames.insert(n)
                    fromHeaders += 1
                }
            }
            if fromHeaders > 0 {
                notes.append(
                    "accounts: \(fromHeaders) \(fromHeaders == 1 ? "name" : "names") taken from the tar headers (uname/gname)"
                        + (passwd == nil ? "" : " for ids the archive's account files do not list"))
            }
            if passwd == nil && group == nil && fromHeaders == 0 { notes.append("accounts: none in the \(noun); owners are written as numbers") }
            tree.notes += notes
            tree.users = users.values.sorted { $0.uid < $1.uid }
            tree.groups = groups.sorted { $0.key < $1.key }.map { (name: $0.value, gid: $0.key) }
        }
    }

    extension ScannedTree.Entry {
        /// Sets the access ACL and, as Linux keeps them, the mode's group bits to its mask.
        /// (libarchive puts the `group::` entry into the mode it returns, as POSIX.1e drafts
        /// describe; on Linux `stat` shows the mask there, and the kernel reads it there.)
        mutating func setAccess(_ acl: POSIXACL?) {
            access = acl
            if let m = acl?.mask { mode = FileMode(mode.rawValue & ~0o070 | UInt16(m.rawValue) << 3) }
        }
    }

    func bytes(_ p: UnsafePointer<CChar>?) -> [UInt8]? {
        guard let p else { return nil }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }

    extension LoaderHost {
        /// This host, also reading tar archives and OCI images (`import: - tar:` / `- oci:`);
        /// names in their ACL entries that the image does not list are this host's accounts.
        public func readingArchives() -> LoaderHost {
            var h = self
            let accounts = self.accounts
            h.tar = { TarReader.read($0, accounts: accounts) }
            h.oci = { OCIReader.read($0, platform: $1, accounts: accounts) }
            return h
        }
    }
#endif
