#if os(Linux)
    import FSPolicy
    import FSPolicyImport
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// Every answer (allowed, errno, layer, rule) of `policy` for these users × ops × paths; a rename
    /// goes to `renameTo` (a path in the same tree: a scan placed with `at` is its own volume).
    func answers(_ p: Policy, uids: [UID], paths: [String], ops: [FSPolicy.Operation], renameTo: String = "/srv/img/tmp/renamed") -> [String] {
        var out: [String] = []
        let ev = Evaluator(policy: p)
        for uid in uids {
            for path in paths {
                for op in ops {
                    var spec = RequestSpec(op: op, path: path, mode: op == .chmod ? FileMode(0o600) : nil)
                    if op == .rename { spec.to = renameTo }
                    // A chown that gives the file away (with no id given it is chown(-1, -1),
                    // whose answer on an immutable file depends on the file system, O27, which
                    // an archive does not record).
                    if op == .chown { spec.owner = 4242 }
                    let d = ev.decide(spec, uid: uid)
                    out.append("uid \(uid) \(op.word) \(path): \(d.allowed) \(d.errno?.rawValue ?? "-") \(d.layer.rawValue) \(d.rule.rawValue)")
                }
            }
        }
        return out
    }

    /// Whether `line` (an `answers` line) is the removal or renaming of `root` itself. A scan placed
    /// with `at` is its own volume, so its root is a mount point there (docs/semantics.md O8: EBUSY,
    /// EXDEV), while a tar, OCI or getfacl import placed at the same path is not: comparisons
    /// across the two kinds leave those answers out (`placedRootAnswers` checks them).
    func onPlacedRoot(_ line: String, _ root: String) -> Bool {
        [" delete ", " rename "].contains { line.contains($0 + root + ": ") || line.contains($0 + root + "/: ") }
    }

    /// The answers on a placed scan's root that `onPlacedRoot` leaves out of a comparison: the
    /// mount point is never removed or renamed, and root's answers are EBUSY or EXDEV.
    func placedRootAnswersHold(_ lines: [String], _ root: String) -> Bool {
        let onRoot = lines.filter { onPlacedRoot($0, root) }
        let busy = onRoot.filter { $0.hasSuffix("false EBUSY type type.busy-mount-point") || $0.hasSuffix("false EXDEV volume volume.cross-device") }
        return !onRoot.isEmpty && onRoot.allSatisfy { $0.contains(": false ") } && busy.contains { $0.hasPrefix("uid 0 ") }
    }

    /// A linux policy file in `dir` made of an `import:` list (`body`), loaded.
    func importPolicy(_ dir: String, _ name: String, _ body: String) throws -> Policy {
        let file = dir + "/" + name
        try ("fspolicy: 1\nsemantics: linux\nimport:\n" + body).write(toFile: file, atomically: true, encoding: .utf8)
        return PolicyLoader.load(path: file, host: testHost)
    }

    @Suite("tar archives as trees")
    struct ArchiveTests {

        @Test("GNU tar and bsdtar archives, compressed or not, the extracted tree's scan and the getfacl dump give the same decisions")
        func archivesAgreeWithTheTree() throws {
            let t = try TempTree("tar")
            guard aclSupported(t) else {
                Issue.record("this file system has no POSIX ACL support (setfacl failed): the archive test needs it")
                return
            }
            for tool in ["bsdtar", "zstd", "xz"] where sh(["sh", "-c", "command -v \(tool)"]).0 != 0 {
                Issue.record("`\(tool)` is missing: run scripts/setup (it installs libarchive-tools, zstd and xz-utils)")
                return
            }
            // The image: its own accounts, ACLs, a default ACL, setuid, sticky, links, odd names.
            t.dir("r", mode: 0o755)
            t.dir("r/etc")
            t.file("r/etc/passwd", "root:x:0:0::/root:/bin/sh\nimguser:x:4242:4242::/home/imguser:/bin/sh\n")
            t.file("r/etc/group", "root:x:0:\nimggroup:x:4242:\nteam:x:4343:\n")
            t.dir("r/team", mode: 0o2770)
            t.file("r/team/plan.txt", mode: 0o640)
            t.file("r/team/open.txt", mode: 0o666)
            t.dir("r/bin")
            t.file("r/bin/tool", mode: 0o4755)
            t.dir("r/tmp", mode: 0o1777)
            t.file("r/tmp/x", mode: 0o600)
            t.file("r/locked", mode: 0o666)
            t.file("r/log", mode: 0o666)
            let r = t.path + "/r"
            sh(["chown", "-R", "4242:4242", r + "/team", r + "/tmp/x"])
            sh(["chgrp", "4343", r + "/team"])
            sh(["setfacl", "-m", "u:65534:rx,m::rx", r + "/team"])
            sh(["setfacl", "-d", "-m", "g:4343:rwx,u:65534:r", r + "/team"])
            sh(["setfacl", "-m", "u:65534:r,g:4343:rw", r + "/team/plan.txt"])
            sh(["setfacl", "-m", "g:65534:---,m::---", r + "/team/open.txt"])
            symlink("team/plan.txt", r + "/lnk")
            link(r + "/team/plan.txt", r + "/team/hard")
            let odd: [UInt8] = Array("odd".utf8) + [0xff] + Array("na\nme\\x".utf8)
            let fd = ((Array(r.utf8) + [0x2f] + odd) + [0]).withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
            }
            #expect(fd >= 0)
            close(fd)
            t.file("r/café", mode: 0o604)
            let flagged = sh(["chattr", "+i", r + "/locked"]).0 == 0 && sh(["chattr", "+a", r + "/log"]).0 == 0
            if !flagged {
                print("note: this file system refuses chattr +i/+a (not root, or no inode flags): the flag part of the archive test is not run")
            }

            // The archives: GNU tar (plain, gzip), bsdtar (plain, zstd, xz).
            let make: [(String, String)] = [
                ("gnu.tar", "tar --acls --xattrs -cf gnu.tar -C r ."),
                ("gnu.tgz", "tar --acls --xattrs -czf gnu.tgz -C r ."),
                // Without --xattrs GNU tar's ACL text names accounts without their ids.
                ("gnu-names.tar", "tar --acls -cf gnu-names.tar -C r ."),
                ("bsd.tar", "bsdtar --acls -cf bsd.tar -C r ."),
                ("bsd.tar.zst", "bsdtar --acls --zstd -cf bsd.tar.zst -C r ."),
                ("bsd.tar.xz", "bsdtar --acls -cJf bsd.tar.xz -C r .")
            ]
            for (_, cmd) in make {
                let (status, out) = sh(["sh", "-c", "cd '\(t.path)' && " + cmd])
                #expect(status == 0, "\(cmd): \(out)")
            }
            // Straight to the file: getfacl writes some bytes of names raw.
            #expect(sh(["sh", "-c", "cd '\(t.path)' && getfacl -R -P r > dump.txt 2>/dev/null"]).0 == 0)

            var worlds: [(String, Policy)] = []
            for (name, _) in make {
                worlds.append((name, try importPolicy(t.path, name + ".yaml", "  - tar: ./\(name)\n    at: /srv/img\n")))
            }
            worlds.append(("scan of the tree", try importPolicy(t.path, "scan.yaml", "  - scan: ./r\n    at: /srv/img\n")))
            if getuid() == 0 {
                // Extracting as root keeps owners, ACLs and flags: the extracted tree is the archive.
                t.dir("x")
                let (status, out) = sh(["sh", "-c", "cd '\(t.path)' && bsdtar --acls --fflags -xpf bsd.tar -C x"])
                #expect(status == 0, "bsdtar -x: \(out)")
                worlds.append(("scan of the extracted tree", try importPolicy(t.path, "x.yaml", "  - scan: ./x\n    at: /srv/img\n")))
            } else {
                print("note: not root, so the archive cannot be extracted with its owners; it is compared with the tree it was made from")
            }
            let getfaclWorld = try importPolicy(t.path, "dump.yaml", "  - getfacl: ./dump.txt\n    at: /srv/img\n")
            for (name, p) in worlds + [("getfacl dump", getfaclWorld)] {
                #expect(!p.diagnostics.hasErrors && p.diagnostics.items.isEmpty, "\(name): \(p.diagnostics.sorted.map(\.rendered))")
            }

            let oddName = NameEscaping.escape(odd)
            #expect(oddName == "odd\\377na\\012me\\134x")
            let plain = [
                "", "/etc", "/etc/passwd", "/team", "/team/plan.txt", "/team/open.txt", "/team/hard", "/team/new", "/bin", "/bin/tool",
                "/tmp", "/tmp/x", "/tmp/new", "/" + oddName, "/café", "/new"
            ].map { "/srv/img" + $0 }
            let links = ["/srv/img/lnk"]
            let flaggedPaths = ["/srv/img/locked", "/srv/img/log"]
            let ops: [FSPolicy.Operation] = [.read, .write, .append, .list, .search, .delete, .create, .execute, .stat, .chmod, .chown, .rename]
            let uids: [UID] = [0, 4242, 65534, 1]
            // Everything (flags included) for bsdtar, which stores file flags, and the scans.
            let full = plain + links + flaggedPaths
            let reference = answers(worlds.first { $0.0 == "scan of the tree" }!.1, uids: uids, paths: full, ops: ops)
            #expect(reference.count == uids.count * full.count * ops.count)
            #expect(placedRootAnswersHold(reference, "/srv/img"), "\(reference.filter { onPlacedRoot($0, "/srv/img") })")
            for (name, p) in worlds where !name.hasPrefix("gnu") {
                let got = answers(p, uids: uids, paths: full, ops: ops)
                for (a, b) in zip(got, reference) where a != b && !onPlacedRoot(a, "/srv/img") { Issue.record("\(name) vs scan: \(a) / \(b)") }
            }
            // GNU tar stores no inode flags: everything but the flagged files.
            let noFlags = plain + links
            let reference2 = answers(worlds.first { $0.0 == "scan of the tree" }!.1, uids: uids, paths: noFlags, ops: ops)
            for (name, p) in worlds where name.hasPrefix("gnu") {
                let got = answers(p, uids: uids, paths: noFlags, ops: ops)
                for (a, b) in zip(got, reference2) where a != b && !onPlacedRoot(a, "/srv/img") { Issue.record("\(name) vs scan: \(a) / \(b)") }
            }
            // A getfacl dump has neither symlinks nor flags.
            let reference3 = answers(worlds.first { $0.0 == "bsd.tar" }!.1, uids: uids, paths: plain, ops: ops)
            let viaDump = answers(getfaclWorld, uids: uids, paths: plain, ops: ops)
            for (a, b) in zip(viaDump, reference3) where a != b { Issue.record("getfacl dump vs bsd.tar: \(a) / \(b)") }

            // What was read, field by field (so agreement is not agreement on nothing).
            guard case .success(let tree) = TarReader.read(t.path + "/gnu.tar", accounts: .linux) else { Issue.record("gnu.tar unreadable"); return }
            func entry(_ rel: String) -> ScannedTree.Entry? { tree.entries.first { $0.relativePath == rel } }
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            #expect(entry("team")?.mode.rawValue == 0o2750, "with an ACL the group bits are the mask (r-x)")
            #expect(entry("team")?.gid == 4343)
            #expect(entry("team")?.access?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .execute])])
            #expect(entry("team")?.defaultACL?.groups == [POSIXACL.Entry(id: 4343, perms: [.read, .write, .execute])])
            #expect(entry("team/hard")?.access == entry("team/plan.txt")?.access && entry("team/hard")?.access != nil, "a hard link has its target's ACL")
            #expect(entry("bin/tool")?.mode.rawValue == 0o4755)
            #expect(entry("lnk")?.type == .symlink && entry("lnk")?.target == "team/plan.txt")
            #expect(entry(oddName) != nil, "names that are not UTF-8 text are escaped as the scanner escapes them")
            #expect(entry("café") != nil)
            #expect(tree.users.map(\.name) == ["imguser"], "accounts come from the archive's /etc/passwd")
            #expect(tree.groups.map(\.name) == ["imggroup", "team"])
            guard case .success(let named) = TarReader.read(t.path + "/gnu-names.tar", accounts: .linux) else {
                Issue.record("gnu-names.tar unreadable"); return
            }
            #expect(named.entries.first { $0.relativePath == "team" }?.access?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .execute])])
            #expect(
                named.notes.contains("ACL entries that give only a name were resolved with this host's accounts: group nogroup, user nobody"), "\(named.notes)")
            if flagged {
                guard case .success(let bsd) = TarReader.read(t.path + "/bsd.tar", accounts: .linux) else { Issue.record("bsd.tar unreadable"); return }
                #expect(bsd.entries.first { $0.relativePath == "locked" }?.flags == .systemImmutable)
                #expect(bsd.entries.first { $0.relativePath == "log" }?.flags == .systemAppend)
                let yaml = ScanWriter.yaml(bsd)
                #expect(yaml.contains("\"/locked\": {owner: \"root\", group: \"root\", mode: \"0666\", flags: [immutable]}"), "\(yaml)")
            }
        }

        @Test("member names normalize; folders the archive only implies are assumed, and say so; tar creates them that way")
        func impliedFolders() throws {
            let t = try TempTree("tarimplied")
            t.dir("src/a/b")
            t.file("src/a/b/f", mode: 0o600)
            // Only the file, under `./`; and once more under an absolute name.
            #expect(sh(["tar", "-cf", t.path + "/rel.tar", "-C", t.path + "/src", "--no-recursion", "./a/b/f"]).0 == 0)
            guard case .success(let tree) = TarReader.read(t.path + "/rel.tar", accounts: .linux) else { Issue.record("rel.tar unreadable"); return }
            #expect(tree.entries.map(\.relativePath) == ["", "a", "a/b", "a/b/f"])
            #expect(tree.entries.map(\.assumed) == [true, true, true, false])
            #expect(tree.entries[1].mode.rawValue == 0o755 && tree.entries[1].uid == 0 && tree.entries[1].type == .dir)
            let yaml = ScanWriter.yaml(tree, at: "/img")
            #expect(yaml.contains("# Note: 3 folders have no entry in the archive: assumed root:root 0755"), "\(yaml)")
            #expect(yaml.contains("\"/img/a\": {type: dir, owner: \"root\", group: \"root\", mode: \"0755\", assumed: true}"), "\(yaml)")
            #expect(yaml.contains("\"/img/a/b/f\": {owner: \"root\", group: \"root\", mode: \"0600\"}\n"))
            // Absolute member names land at the same place.
            #expect(sh(["tar", "-cPf", t.path + "/abs2.tar", "--no-recursion", t.path + "/src/a/b/f"]).0 == 0)
            guard case .success(let abs) = TarReader.read(t.path + "/abs2.tar", accounts: .linux) else { Issue.record("abs2.tar unreadable"); return }
            let rel = String(t.path.dropFirst()) + "/src/a/b/f"
            #expect(abs.entries.last?.relativePath == rel)
            #expect(abs.entries.first?.relativePath == "" && abs.entries.first?.assumed == true)
            if getuid() == 0 {
                // What tar does with the missing parents, extracting as root with umask 022.
                t.dir("x")
                chmod(t.path + "/x", 0o755)
                #expect(sh(["sh", "-c", "umask 022 && tar -xf '\(t.path)/rel.tar' -C '\(t.path)/x'"]).0 == 0)
                let scanned = TreeScanner.scan(t.path + "/x")
                for rel in ["a", "a/b"] {
                    let s = scanned.entries.first { $0.relativePath == rel }
                    let a = tree.entries.first { $0.relativePath == rel }
                    #expect(
                        s?.mode == a?.mode && s?.uid == a?.uid && s?.gid == a?.gid && s?.type == a?.type,
                        "\(rel): extracted \(String(describing: s)) / assumed \(String(describing: a))")
                }
            } else {
                print("note: not root, so the assumed owner of implied folders (root) cannot be checked against a real extraction")
            }
        }

        @Test("accounts: the archive's /etc/passwd and /etc/group, else the names in the headers, else numbers")
        func accounts() throws {
            let t = try TempTree("taraccounts")
            t.dir("img/etc")
            t.file("img/etc/passwd", "root:x:0:0::/root:/bin/sh\napp:x:5000:5000::/app:/bin/sh\nweb:x:5001:5000::/web:/bin/sh\n")
            t.file("img/etc/group", "root:x:0:\napp:x:5000:\nlogs:x:5100:web,app\n")
            t.file("img/data", mode: 0o640)
            sh(["chown", "5001:5100", t.path + "/img/data"])
            #expect(sh(["tar", "-cf", t.path + "/img.tar", "-C", t.path + "/img", "."]).0 == 0)
            guard case .success(let tree) = TarReader.read(t.path + "/img.tar", accounts: .linux) else { Issue.record("img.tar unreadable"); return }
            #expect(
                tree.users == [
                    ScannedTree.HostUser(name: "app", uid: 5000, gid: 5000, groups: [5100]),
                    ScannedTree.HostUser(name: "web", uid: 5001, gid: 5000, groups: [5100])
                ])
            #expect(tree.groups.map(\.name) == ["app", "logs"])
            #expect(tree.notes.contains("accounts: the archive's own /etc/passwd and /etc/group"))
            let p = try importPolicy(t.path, "p.yaml", "  - tar: ./img.tar\n")
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            // `web` reads through its supplementary group `logs`, which only the image's /etc/group says.
            let d = Evaluator(policy: p).decide(RequestSpec(op: .read, path: "/data"), uid: 5000)
            #expect(d.allowed, "app is in logs (group of /data, r--)")

            // No account files: the names tar wrote in the headers.
            t.dir("bare")
            t.file("bare/f")
            #expect(sh(["tar", "--owner=builder:6000", "--group=builders:6100", "-cf", t.path + "/named.tar", "-C", t.path + "/bare", "."]).0 == 0)
            guard case .success(let named) = TarReader.read(t.path + "/named.tar", accounts: .linux) else { Issue.record("named.tar unreadable"); return }
            #expect(named.users == [ScannedTree.HostUser(name: "builder", uid: 6000, gid: 6100, groups: [])])
            #expect(named.groups.map(\.name) == ["builders"])
            #expect(named.notes.contains { $0.hasPrefix("accounts: 2 names taken from the tar headers") }, "\(named.notes)")
            // Nothing: numbers.
            #expect(sh(["tar", "--owner=6000", "--group=6100", "--numeric-owner", "-cf", t.path + "/numeric.tar", "-C", t.path + "/bare", "."]).0 == 0)
            guard case .success(let numeric) = TarReader.read(t.path + "/numeric.tar", accounts: .linux) else { Issue.record("numeric.tar unreadable"); return }
            #expect(numeric.users.isEmpty && numeric.groups.isEmpty)
            #expect(ScanWriter.yaml(numeric).contains("\"/f\": {owner: \"6000\", group: \"6100\", mode: \"0644\"}"))
            #expect(numeric.notes.contains("accounts: none in the archive; owners are written as numbers"))
        }

        @Test("a missing, corrupt or truncated archive and a `..` member are errors at the import's file:line:column")
        func loaderErrors() throws {
            let t = try TempTree("tarerrors")
            t.dir("src/d")
            t.file("src/d/a")
            try Data("this is not a tar archive\n".utf8).write(to: t.url.appendingPathComponent("junk.tar"))
            #expect(sh(["tar", "-cf", t.path + "/good.tar", "-C", t.path + "/src", "."]).0 == 0)
            let good = try Data(contentsOf: t.url.appendingPathComponent("good.tar"))
            try good.prefix(1200).write(to: t.url.appendingPathComponent("cut.tar"))
            #expect(sh(["tar", "-cPf", t.path + "/evil.tar", "-C", t.path + "/src", "d/../d/a"]).0 == 0)
            let cases: [(String, String)] = [
                ("missing.tar", "error: cannot read `"),
                ("junk.tar", "error: cannot read the archive `"),
                ("cut.tar", "is corrupt after 2 members"),
                ("evil.tar", "has a member with `..` in its name: `d/../d/a`")
            ]
            for (file, message) in cases {
                let p = try importPolicy(t.path, "p.yaml", "  # the archive\n  - tar: ./\(file)\n")
                let rendered = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
                #expect(rendered.contains(t.path + "/p.yaml:5:10: "), "\(file): \(rendered)")
                #expect(rendered.contains(message), "\(file): \(rendered)")
                #expect(rendered.contains("help: "), "\(file): \(rendered)")
            }
            let p = try importPolicy(t.path, "both.yaml", "  - tar: ./good.tar\n    scan: ./src\n")
            #expect(p.diagnostics.sorted.map(\.rendered).joined().contains("takes one of `scan`, `getfacl`, `lsle`, `tar`, `oci` or `policy`, not several"))
        }

        @Test(
            "file capabilities in an archive (GNU tar --xattrs, bsdtar) are read as a scan of the tree reads them; a value the kernel refuses is left off with a warning",
            .enabled(if: getuid() == 0, "needs root: setcap on a file of the test's tree"))
        func fileCapabilities() throws {
            for tool in ["setcap", "bsdtar", "python3"] where sh(["sh", "-c", "command -v \(tool)"]).0 != 0 {
                Issue.record("`\(tool)` is missing: run scripts/setup (it installs libcap2-bin, libarchive-tools and python3)")
                return
            }
            let t = try TempTree("tarcaps")
            t.dir("r/usr/bin")
            t.dir("r/root", mode: 0o700)
            t.file("r/root/secret", mode: 0o600)
            t.file("r/usr/bin/reader", mode: 0o755)
            t.file("r/usr/bin/plain", mode: 0o755)
            let set = sh(["setcap", "cap_dac_read_search=ep", t.path + "/r/usr/bin/reader"])
            #expect(set.0 == 0, "\(set.1)")
            #expect(sh(["tar", "--xattrs", "--xattrs-include=*", "-cf", t.path + "/gnu.tar", "-C", t.path + "/r", "."]).0 == 0)
            #expect(sh(["bsdtar", "-cf", t.path + "/bsd.tar", "-C", t.path + "/r", "."]).0 == 0)
            let scanned = TreeScanner.scan(t.path + "/r")
            let want = try #require(scanned.entries.first { $0.relativePath == "usr/bin/reader" }?.caps)
            #expect(want.text == "cap_dac_read_search=ep")
            for archive in ["gnu.tar", "bsd.tar"] {
                guard case .success(let tree) = TarReader.read(t.path + "/" + archive, accounts: .linux) else {
                    Issue.record("\(archive) did not read")
                    continue
                }
                #expect(tree.entries.first { $0.relativePath == "usr/bin/reader" }?.caps == want, "\(archive)")
                #expect(tree.entries.first { $0.relativePath == "usr/bin/plain" }?.caps == nil, "\(archive)")
            }
            // A value no kernel accepts (two bytes), written as a pax xattr record.
            let script = """
                import tarfile, sys
                with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
                    i = tarfile.TarInfo("tool"); i.mode = 0o755
                    i.pax_headers = {"SCHILY.xattr.security.capability": "\\x01\\x02"}
                    t.addfile(i)
                """
            let made = sh(["python3", "-c", script, t.path + "/bad.tar"])
            #expect(made.0 == 0, "\(made.1)")
            guard case .success(let bad) = TarReader.read(t.path + "/bad.tar", accounts: .linux) else {
                Issue.record("bad.tar did not read")
                return
            }
            #expect(bad.entries.first { $0.relativePath == "tool" }.map { $0.caps == nil } == true)
            #expect(bad.problems.contains { $0.path.hasSuffix("tool") && $0.message.contains("security.capability holds 2 bytes") }, "\(bad.problems)")
        }
    }
#endif
