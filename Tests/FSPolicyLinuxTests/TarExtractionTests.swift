#if os(Linux)
    import FSPolicy
    import FSPolicyImport
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import Foundation
    import Glibc
    import Testing

    /// Archives whose members extraction applies one after another (a file over a folder, a member
    /// below a symlink, a hard link to what is not there yet), and members no extraction or policy file can hold (ids out of range, long
    /// names, account names with spaces): read as `tar -x` makes them, refused, or left out with
    /// their member named; `scan --tar` never exits 0 with a file that does not load.
    @Suite("tar archives read as extraction applies them")
    struct TarExtractionTests {

        /// Writes an archive with Python's tarfile: `members` is Python code calling
        /// `add(name, type, data=b'', link=None, mode=0o644, uid=0, gid=0, pax=None, uname='', gname='')`.
        static func archive(_ path: String, _ members: String) -> Bool {
            let script = """
                import io, sys, tarfile
                t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
                def add(name, typ, data=b'', link=None, mode=0o644, uid=0, gid=0, pax=None, uname='', gname=''):
                    ti = tarfile.TarInfo(name); ti.type = typ; ti.mode = mode; ti.uid = uid; ti.gid = gid
                    ti.uname = uname; ti.gname = gname
                    if pax: ti.pax_headers = pax
                    if link: ti.linkname = link
                    ti.size = len(data) if typ == tarfile.REGTYPE else 0
                    t.addfile(ti, io.BytesIO(data) if typ == tarfile.REGTYPE else None)
                D, F, L, H = tarfile.DIRTYPE, tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE

                """ + members + "\nt.close()\n"
            return sh(["python3", "-c", script, path]).0 == 0
        }

        static var python: Bool { sh(["python3", "-c", "import tarfile"]).0 == 0 }

        /// What `tool` extracts from `archive`: `path type` lines (`find -printf '%P %y'`).
        static func extracted(_ tool: String, _ archive: String, in t: TempTree) -> [String] {
            let out = t.path + "/x-" + tool
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
            _ = sh([tool, "-xf", archive, "-C", out])
            let listing = sh(["find", out, "-mindepth", "1", "-printf", "%P %y\n"]).1
            try? FileManager.default.removeItem(atPath: out)
            return listing.split(separator: "\n").map(String.init).sorted()
        }

        static func read(_ archive: String) -> (entries: [String], problems: [String])? {
            guard case .success(let tree) = TarReader.read(archive) else { return nil }
            let kinds: [NodeType: String] = [.dir: "d", .file: "f", .symlink: "l"]
            return (
                tree.entries.filter { !$0.relativePath.isEmpty }.map { "\($0.relativePath) \(kinds[$0.type] ?? "?")" }.sorted(),
                tree.problems.map { "\($0.path): \($0.message)" }
            )
        }

        @Test("a file over a folder with members, and a member below a symlink of the same archive, are what GNU tar and bsdtar make")
        func membersAppliedAsExtractionDoes() throws {
            guard Self.python else { print("TarExtractionTests: python3 with tarfile is missing, which builds the archives; skipped"); return }
            let t = try TempTree("tarx")
            let cases: [(name: String, members: String, problem: String?)] = [
                (
                    "over-full-dir", "add('d/', D, mode=0o755)\nadd('d/f', F, b'hi')\nadd('d', F, b'file d')",
                    "/d: a file over the folder of the same name, which holds other members: tar keeps the folder"
                ),
                ("over-implied-dir", "add('d/f', F, b'hi')\nadd('d', F, b'file d')", "/d: a file over the folder"),
                ("over-empty-dir", "add('e/', D, mode=0o755)\nadd('e', F, b'file e')", nil),
                (
                    "below-symlink-missing", "add('lib', L, link='usr/lib', mode=0o777)\nadd('lib/x', F, b'x')",
                    "/lib/x: below `/lib`, a symlink an earlier member made"
                ),
                ("below-symlink-absolute", "add('lib', L, link='/etc', mode=0o777)\nadd('lib/x', F, b'x')", "/lib/x: below `/lib`"),
                ("below-file", "add('f', F, b'x')\nadd('f/x', F, b'x')", "/f/x: below `/f`, a file an earlier member made"),
                ("hard-link", "add('a', F, b'x')\nadd('b', H, link='a')", nil),
                ("hard-link-missing", "add('srv/f', H, link='srv/hard')", "/srv/f: hard link to `/srv/hard`, which no earlier member made"),
                (
                    "hard-link-before-target", "add('srv/f', H, link='srv/hard')\nadd('srv/hard', F, b'hi')",
                    "/srv/f: hard link to `/srv/hard`, which no earlier member made"
                ),
                ("hard-link-to-folder", "add('d/', D, mode=0o755)\nadd('h', H, link='d')", "/h: hard link to the folder `/d`, which link(2) refuses")
            ]
            let tools = ["tar", "bsdtar"].filter { sh(["which", $0]).0 == 0 }
            if tools.count < 2 { print("TarExtractionTests: \(["tar", "bsdtar"].filter { !tools.contains($0) }) not installed; compared with \(tools) only") }
            for c in cases {
                let path = t.path + "/" + c.name + ".tar"
                #expect(Self.archive(path, c.members), "\(c.name): python could not write it")
                guard let got = Self.read(path) else { Issue.record("\(c.name): not read"); continue }
                for tool in tools {
                    #expect(got.entries == Self.extracted(tool, path, in: t), "\(c.name): \(tool) makes another tree than \(got.entries)")
                }
                if let p = c.problem {
                    #expect(got.problems.count == 1 && got.problems[0].hasPrefix(p) && got.problems[0].hasSuffix("left out"), "\(c.name): \(got.problems)")
                } else {
                    #expect(got.problems.isEmpty, "\(c.name): \(got.problems)")
                }
            }
            // Below a relative link to a folder the archive made, GNU tar writes through the link and
            // bsdtar refuses; neither makes anything beneath the link's name, nor does this reader.
            let through = t.path + "/through.tar"
            #expect(
                Self.archive(
                    through, "add('usr/', D, mode=0o755)\nadd('usr/lib/', D, mode=0o755)\nadd('lib', L, link='usr/lib', mode=0o777)\nadd('lib/x', F, b'x')"))
            let got = Self.read(through)
            #expect(got?.entries == ["lib l", "usr d", "usr/lib d"], "\(String(describing: got))")
            if tools.contains("bsdtar") { #expect(Self.extracted("bsdtar", through, in: t) == ["lib l", "usr d", "usr/lib d"]) }
            if tools.contains("tar") { #expect(Self.extracted("tar", through, in: t) == ["lib l", "usr d", "usr/lib d", "usr/lib/x f"]) }
            // The tools disagree there, so what /usr/lib holds is not known: a name it does not
            // list is unknown, not missing. Where the link leads nowhere, both make nothing.
            func unread(_ archive: String) -> [String] {
                guard case .success(let tree) = TarReader.read(archive) else { return ["not read"] }
                return tree.entries.filter { $0.unread != nil }.map { "\($0.relativePath) \($0.unread!.rawValue)" }
            }
            #expect(unread(through) == ["usr/lib extraction"])
            #expect(unread(t.path + "/below-symlink-missing.tar").isEmpty)
            #expect(unread(t.path + "/below-file.tar").isEmpty)
        }

        @Test("ids out of range and names over 255 bytes are errors that name the member")
        func impossibleMembersAreRefused() throws {
            guard Self.python else { print("TarExtractionTests: python3 with tarfile is missing, which builds the archives; skipped"); return }
            let t = try TempTree("tarids")
            let cases: [(String, String)] = [
                ("add('srv/f', F, b'x', pax={'uid': '4294967296'})", "gives the member `/srv/f` uid 4294967296, out of range"),
                ("add('srv/f', F, b'x', pax={'gid': '4294967295'})", "gives the member `/srv/f` gid 4294967295, out of range"),
                ("add('srv/f', F, b'x', pax={'uid': '-1'})", "gives the member `/srv/f` uid -1, out of range"),
                ("add('srv/' + 'n' * 256, F, b'x')", "has a member with a name of 256 bytes in its path: `/srv/nnn")
            ]
            for (members, message) in cases {
                let path = t.path + "/a.tar"
                #expect(Self.archive(path, members))
                switch TarReader.read(path) {
                case .success(let tree): Issue.record("\(members): read as \(tree.entries.map { "\($0.relativePath) \($0.uid):\($0.gid)" })")
                case .failure(let f): #expect(f.message.contains(message), "\(f.message)")
                }
            }
            // uid 4294967294 is the largest there is.
            #expect(Self.archive(t.path + "/max.tar", "add('srv/f', F, b'x', pax={'uid': '4294967294'})"))
            if case .success(let tree) = TarReader.read(t.path + "/max.tar") {
                #expect(tree.entries.last?.uid == 4_294_967_294)
            } else {
                Issue.record("max.tar not read")
            }
        }

        @Test("scan --tar never exits 0 with a file that does not load: each output is validated")
        func scannedArchivesLoad() throws {
            guard Self.python else { print("TarExtractionTests: python3 with tarfile is missing, which builds the archives; skipped"); return }
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let t = try TempTree("tarscan")
            let passwd = "root:x:0:0::/root:/bin/sh\\nweb user:x:1001:1001::/:/bin/sh\\nok:x:1002:1002::/:/bin/sh\\nbig:x:4294967295:1002::/:/bin/sh\\n"
            let group = "root:x:0:\\nweb,admins:x:1001:\\nok:x:1002:\\n"
            let cases: [(name: String, members: String, status: Int32, messages: [String])] = [
                (
                    "accounts",
                    "add('etc/', D, mode=0o755)\nadd('etc/passwd', F, b'\(passwd)')\nadd('etc/group', F, b'\(group)')\n"
                        + "add('srv/', D, mode=0o755)\nadd('srv/a', F, b'x', uid=1001, gid=1001)\nadd('srv/b', F, b'x', uid=1002, gid=1002)\n"
                        + "add('srv/c', F, b'x', uid=1003, gid=1003, uname='c:d', gname='e f')",
                    1,
                    [
                        "/etc/group: group `web,admins` (gid 1001) left out", "/etc/passwd: user `web user` (uid 1001) left out",
                        "/etc/passwd: user `big` (uid 4294967295) left out", "/srv/c: the header's user name `c:d` (uid 1003) left out",
                        "/srv/c: the header's group name `e f` (gid 1003) left out"
                    ]
                ),
                (
                    "below-symlink", "add('usr/lib/', D, mode=0o755)\nadd('lib', L, link='usr/lib', mode=0o777)\nadd('lib/x', F, b'x')", 1,
                    ["/lib/x: below `/lib`"]
                ),
                ("id-max", "add('srv/f', F, b'x', uid=4294967295)", 3, ["gives the member `/srv/f` uid 4294967295, out of range"]),
                ("long-name", "add('srv/' + 'n' * 300, F, b'x')", 3, ["a name of 300 bytes in its path: `/srv/nnn"]),
                ("odd-names", "add('srv/a b,c:d \\\\\\\\ \"q\" #x', F, b'x')\nadd('srv/-x', F, b'x')\nadd('srv/\\xff', F, b'x')", 0, [])
            ]
            for c in cases {
                let archive = t.path + "/" + c.name + ".tar", out = t.path + "/" + c.name + ".yaml"
                #expect(Self.archive(archive, c.members), "\(c.name): python could not write it")
                let scan = sh([bin, "scan", "-q", "--tar", archive, "-o", out])
                #expect(scan.0 == c.status, "\(c.name): exit \(scan.0): \(scan.1)")
                for m in c.messages { #expect(scan.1.contains(m), "\(c.name): \(scan.1)") }
                if scan.0 != 3 {
                    let v = sh([bin, "validate", out])
                    #expect(v.0 == 0, "\(c.name): scan exited \(scan.0) but its file does not load: \(v.1)")
                } else {
                    #expect(!FileManager.default.fileExists(atPath: out), "\(c.name): a refused archive wrote \(out)")
                }
            }
        }
    }
#endif
