#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // Issue 12 ("real trees, the whole truth") and the scan race of issue 13: each problem of the
    // issue as a test that fails on the scanner that invented ancestors, ignored mounts, wrote only
    // the owners seen, and read ACLs by path.

    /// The built `fspolicy` binary (tests that go through the command line): `$FSPOLICY_BIN`, else the
    /// one next to the test runner (so a build in another scratch path, such as scripts/sanitize's,
    /// tests its own binary), else `.build/debug`.
    func fspolicyBinary() -> String? {
        if let b = ProcessInfo.processInfo.environment["FSPOLICY_BIN"], !b.isEmpty {
            return FileManager.default.isExecutableFile(atPath: b) ? b : nil
        }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
            for _ in 0..<4 {
                let cand = dir.appendingPathComponent("fspolicy").path
                if FileManager.default.isExecutableFile(atPath: cand) { return cand }
                dir = dir.deletingLastPathComponent()
            }
        }
        let bin = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/fspolicy").path
        return FileManager.default.isExecutableFile(atPath: bin) ? bin : nil
    }

    /// Runs `body` as `uid`/`gid` (with that user's groups) through setpriv; returns status and output.
    func asUser(_ uid: UID, _ gid: GID, _ args: [String]) -> (Int32, String) {
        sh(["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--init-groups"] + args)
    }

    func decide(_ p: Policy, _ op: FSPolicy.Operation, _ path: String, uid: UID) -> Decision {
        Evaluator(policy: p).decide(RequestSpec(op: op, path: path), uid: uid)
    }

    func answer(_ d: Decision) -> String { d.allowed ? "OK" : (d.errno?.rawValue ?? "?") }

    @Suite("Real trees: ancestors, mounts, host accounts, no races")
    struct RealTreeTests {
        @Test("a subtree scan records every folder from / down with its real mode: chmod 0700 on an ancestor refuses daemon, as the kernel does")
        func ancestorsAreReal() throws {
            let t = try TempTree("anc")
            chmod(t.path, 0o755)
            t.dir("srv/shared", mode: 0o755)
            t.file("srv/shared/report.txt", "numbers", mode: 0o644)
            chmod(t.path + "/srv", 0o700)
            let tree = TreeScanner.scan(t.path + "/srv/shared")
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            #expect(tree.ancestorsRead)
            #expect(tree.ancestors.first?.relativePath == "/")
            let srv = tree.ancestors.first { $0.relativePath == t.path + "/srv" }
            #expect(srv?.mode.rawValue == 0o700, "the ancestor's real mode is recorded")
            // Every ancestor's mode is what lstat says (the temporary directory's sticky 1777 too).
            for a in tree.ancestors {
                var st = stat()
                #expect(lstat(a.relativePath, &st) == 0)
                #expect(
                    a.mode.rawValue == UInt16(st.st_mode & 0o7777), "\(a.relativePath): scanned \(a.mode.octal), lstat \(String(st.st_mode & 0o7777, radix: 8))"
                )
                #expect(a.uid == st.st_uid && a.gid == st.st_gid)
            }
            // Only the ancestors themselves, not their other children.
            #expect(!tree.ancestors.contains { $0.relativePath == t.path + "/srv/shared" })
            #expect(tree.entries.allSatisfy { !$0.relativePath.hasPrefix("/") })

            let policy = PolicyLoader.load(text: ScanWriter.yaml(tree), file: t.path + "/scan.yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.map(\.rendered))")
            let daemon = passwdIDs(named: "daemon").map { ($0.uid, $0.gid) } ?? (1, 1)
            let d = decide(policy, .read, t.path + "/srv/shared/report.txt", uid: daemon.0)
            #expect(answer(d) == "EACCES", "daemon cannot pass the 0700 folder: \(d.rule.rawValue)")
            #expect(policy.world.lookup(t.path + "/srv").map { policy.world[$0].mode.rawValue } == 0o700)
            if getuid() == 0 {
                let (status, out) = asUser(daemon.0, daemon.1, ["cat", t.path + "/srv/shared/report.txt"])
                #expect(status != 0 && out.contains("Permission denied"), "the kernel refuses too: \(out)")
                chmod(t.path + "/srv", 0o755)
                let (status2, out2) = asUser(daemon.0, daemon.1, ["cat", t.path + "/srv/shared/report.txt"])
                #expect(status2 == 0 && out2 == "numbers", "and allows once the folder is 0755: \(out2)")
            }
        }

        @Test("--at: the real folders above are not read; the file and explain's trace say they are assumed")
        func atMarksAssumed() throws {
            let t = try TempTree("at")
            t.dir("r", mode: 0o755)
            t.file("r/f", mode: 0o644)
            let tree = TreeScanner.scan(t.path + "/r", options: ScanOptions(readAncestors: false, allAccounts: false))
            #expect(tree.ancestors.isEmpty && !tree.ancestorsRead)
            let yaml = ScanWriter.yaml(tree, at: "/srv/shared")
            #expect(yaml.contains("# The path above /srv/shared is assumed, not read"))
            #expect(yaml.contains("\"/srv\": {type: dir, owner: \"root\", group: \"root\", mode: \"0755\", assumed: true}"))
            let policy = PolicyLoader.load(text: yaml, file: t.path + "/at.yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.map(\.rendered))")
            let srv = try #require(policy.world.lookup("/srv"))
            #expect(policy.world.assumedNodes.contains(srv))
            #expect(policy.world.assumedNodes.contains(World.root))
            #expect(!policy.world.assumedNodes.contains(try #require(policy.world.lookup("/srv/shared"))))
            let spec = RequestSpec(op: .read, path: "/srv/shared/f")
            let d = Evaluator(policy: policy).decide(spec, uid: 1)
            #expect(d.notes.contains { $0.hasPrefix("/, /srv are assumed, not read from the host") }, "\(d.notes)")
            let text = TextRenderer(policy: policy).explain(d, spec: spec, uid: 1, who: "daemon", semantics: .linux)
            #expect(text.contains("/srv (assumed)"), "\(text)")
            #expect(!text.contains("/srv/shared (assumed)"), "\(text)")

            // The same through `import: - scan: … at:`.
            let imp = "fspolicy: 1\nsemantics: linux\nimport:\n  - scan: ./r\n    at: /srv/shared\n    accounts: owners\n"
            try imp.write(toFile: t.path + "/imp.yaml", atomically: true, encoding: .utf8)
            let viaImport = PolicyLoader.load(path: t.path + "/imp.yaml", host: testHost)
            #expect(!viaImport.diagnostics.hasErrors, "\(viaImport.diagnostics.sorted.map(\.rendered))")
            #expect(viaImport.world.lookup("/srv").map { viaImport.world.assumedNodes.contains($0) } == true)
            // Without `at` the import reads the real ancestors: nothing is assumed.
            let real = "fspolicy: 1\nsemantics: linux\nimport:\n  - scan: ./r\n"
            try real.write(toFile: t.path + "/real.yaml", atomically: true, encoding: .utf8)
            let viaReal = PolicyLoader.load(path: t.path + "/real.yaml", host: testHost)
            #expect(!viaReal.diagnostics.hasErrors, "\(viaReal.diagnostics.sorted.map(\.rendered))")
            #expect(viaReal.world.assumedNodes.isEmpty)
            var st = stat()
            lstat(t.path, &st)
            #expect(viaReal.world.lookup(t.path).map { viaReal.world[$0].mode.rawValue } == UInt16(st.st_mode & 0o7777))
        }

        @Test("scan writes every host account (getpwent/getgrent): `--as nobody` is known and `who` lists them all; --accounts owners keeps the small set")
        func hostAccounts() throws {
            let t = try TempTree("acct")
            chmod(t.path, 0o755)
            t.file("f", mode: 0o644)
            let tree = TreeScanner.scan(t.path)
            #expect(tree.allAccounts)
            // What the account database lists (getent goes through NSS too).
            let (st, passwd) = sh(["getent", "passwd"])
            #expect(st == 0)
            var expected: [String] = []
            var seenUID: Set<String> = []
            for line in passwd.split(separator: "\n") {
                let f = line.split(separator: ":", omittingEmptySubsequences: false)
                guard f.count > 2, !expected.contains(String(f[0])), seenUID.insert(String(f[2])).inserted, f[2] != "0" else { continue }
                expected.append(String(f[0]))
            }
            #expect(expected.count > 3, "a host has more accounts than the owners of one file")
            let written = Set(tree.users.filter { $0.uid != 0 }.map(\.name))
            #expect(written == Set(expected), "missing: \(Set(expected).subtracting(written)); extra: \(written.subtracting(Set(expected)))")
            let small = TreeScanner.scan(t.path, options: ScanOptions(allAccounts: false))
            #expect(!small.allAccounts)
            #expect(small.users.count < tree.users.count)
            #expect(Set(small.users.map(\.uid)).isSubset(of: Set(small.entries.map(\.uid) + small.ancestors.map(\.uid))))

            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let file = t.path + "/scan.yaml"
            let (s1, o1) = sh([bin, "scan", t.path, "-o", file])
            #expect(s1 == 0, "\(o1)")
            if passwdIDs(named: "nobody") != nil {
                let (s2, o2) = sh([bin, "can", file, "--as", "nobody", "--op", "read", t.path + "/f"])
                #expect(s2 == 0 && o2 == "allow\n", "nobody is a known user: \(o2)")
            }
            let (s3, o3) = sh([bin, "who", file, "--op", "read", t.path + "/f", "--list-all"])
            #expect(s3 == 0, "\(o3)")
            // Other tests add and remove temporary accounts while this one runs: one gone since
            // `getent` listed it cannot be in the later scan.
            for name in expected where passwdIDs(named: name) != nil { #expect(o3.contains(name), "`who` lists \(name)") }
            let (_, o4) = sh([bin, "scan", "--accounts", "owners", t.path])
            #expect(o4.contains("# Accounts: only the owners and groups seen"))
            #expect(!o4.contains("\nusers:"), "root owns everything here, so no user is written: \(o4)")
            let (s5, o5) = sh([bin, "scan", "--accounts", "some", t.path])
            #expect(s5 == 64, "\(o5)")
        }

        @Test("duplicate and hostile host accounts: the first entry wins, the rest are named in the header, nothing is written raw")
        func hostileAccounts() throws {
            typealias U = HostFacts.RawUser
            typealias G = HostFacts.RawGroup
            let esc: [UInt8] = Array("evil".utf8) + [0x1b] + Array("[31m\nx".utf8)
            let users = [
                U(name: Array("alice".utf8), uid: 1000, gid: 100), U(name: Array("alice".utf8), uid: 1001, gid: 100),
                U(name: Array("alias".utf8), uid: 1000, gid: 100), U(name: esc, uid: 1002, gid: 100),
                U(name: Array("1234".utf8), uid: 1003, gid: 100), U(name: [], uid: 1004, gid: 100),
                U(name: Array("bad".utf8) + [0xff], uid: 1005, gid: 100)
            ]
            let groups = [
                G(name: Array("users".utf8), gid: 100, members: []), G(name: Array("staff".utf8), gid: 50, members: [Array("alice".utf8), esc]),
                G(name: Array("staff".utf8), gid: 51, members: []), G(name: Array("again".utf8), gid: 50, members: [])
            ]
            let sel = HostFacts.select(users: users, groups: groups)
            #expect(sel.users.map(\.name) == ["alice", "evil\\033[31m\\012x", "bad\\377"])
            #expect(sel.users.map(\.uid) == [1000, 1002, 1005])
            #expect(sel.users[0].groups == [50] && sel.users[1].groups == [50])
            #expect(sel.groups.map(\.name) == ["staff", "users"])
            #expect(sel.notes.count == 6, "\(sel.notes)")
            #expect(sel.notes.contains("user `alice` is listed again with uid 1001: the first entry is kept"))
            #expect(sel.notes.contains("uid 1000 is listed again as user `alias`: the first entry is kept"))
            #expect(sel.notes.contains("user `1234` (uid 1003) left out: a name made of digits would read as an id"))
            // Deterministic, and the written file loads with no raw control byte in it.
            #expect(HostFacts.select(users: users, groups: groups).notes == sel.notes)
            var tree = ScannedTree(root: "/x")
            tree.entries = [ScannedTree.Entry(relativePath: "", type: .dir, uid: 1002, gid: 50, mode: FileMode(0o755))]
            tree.users = sel.users
            tree.groups = sel.groups
            tree.notes = sel.notes
            tree.allAccounts = true
            let yaml = ScanWriter.yaml(tree)
            #expect(!yaml.utf8.contains { ($0 < 0x20 && $0 != 0x0a) || $0 == 0x7f }, "no control byte but newlines")
            #expect(yaml.contains("# Note: uid 1000 is listed again as user `alias`"))
            let p = PolicyLoader.load(text: yaml, file: "hostile.yaml", host: testHost)
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            #expect(p.world.user(uid: 1002)?.name == "evil\\033[31m\\012x")
            #expect(p.world.lookup("/x").map { p.world[$0].uid } == 1002)
        }

        @Test(
            "mounts become volumes: ro,noexec tmpfs → EROFS and EACCES; a read-only bind mount → EROFS after the permission checks; as the kernel says",
            .enabled(if: getuid() == 0, "needs root: it mounts a tmpfs and a bind mount (and unmounts them)"))
        func mountsAreVolumes() throws {
            let t = try TempTree("mnt")
            chmod(t.path, 0o755)
            t.dir("ro", mode: 0o755)
            t.dir("bsrc", mode: 0o755)
            t.dir("bro", mode: 0o755)
            guard sh(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "fspolicy-test", t.path + "/ro"]).0 == 0 else {
                Issue.record("mount is not permitted here (a container without CAP_SYS_ADMIN?): the mount test cannot run")
                return
            }
            defer { sh(["umount", t.path + "/ro"]) }
            t.file("ro/f", mode: 0o666)
            t.file("ro/x", "#!/bin/sh\nexit 0\n", mode: 0o755)
            t.file("bsrc/f", mode: 0o644)
            t.file("bsrc/x", "#!/bin/sh\nexit 0\n", mode: 0o755)
            #expect(sh(["mount", "-o", "remount,ro,noexec", t.path + "/ro"]).0 == 0)
            #expect(sh(["mount", "--bind", t.path + "/bsrc", t.path + "/bro"]).0 == 0)
            defer { sh(["umount", t.path + "/bro"]) }
            #expect(sh(["mount", "-o", "remount,bind,ro", t.path + "/bro"]).0 == 0)

            let tree = TreeScanner.scan(t.path)
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            let ro = tree.mounts.first { $0.relativePath == "ro" }
            #expect(ro?.fsType == "tmpfs" && ro?.readOnly == true && ro?.noexec == true && ro?.readOnlyMount == false)
            let bro = tree.mounts.first { $0.relativePath == "bro" }
            #expect(bro?.readOnly == false && bro?.readOnlyMount == true && bro?.noexec == false)
            #expect(tree.mounts.first?.path == "/", "the root file system's mount comes first")
            let yaml = ScanWriter.yaml(tree)
            #expect(yaml.contains("\"\(t.path)/ro\": {readOnly: true, noexec: true, fsType: \"tmpfs\"}"), "\(yaml)")
            let policy = PolicyLoader.load(text: yaml, file: t.path + "/m.yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.map(\.rendered))")

            let probe = t.path + "/probe"
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            try FileManager.default.copyItem(
                atPath: URL(fileURLWithPath: bin).deletingLastPathComponent().appendingPathComponent("fspolicy-probe").path, toPath: probe)
            chmod(probe, 0o755)
            let lines: [(String, FSPolicy.Operation, String)] = [
                ("write", .write, "ro/f"), ("execute", .execute, "ro/x"), ("read", .read, "ro/f"), ("create", .create, "ro/new"),
                ("unlink", .delete, "ro/f"), ("truncate", .truncate, "ro/f"), ("chmod", .chmod, "ro/f"),
                ("write", .write, "bro/f"), ("append", .append, "bro/f"), ("truncate", .truncate, "bro/f"), ("execute", .execute, "bro/x"),
                ("create", .create, "bro/new"), ("mkdir", .mkdir, "bro/newdir"), ("unlink", .delete, "bro/f"), ("touch", .touch, "bro/f")
            ]
            let nobody = passwdIDs(named: "nobody").map { ($0.uid, $0.gid) } ?? (65534, 65534)
            var compared = 0
            for (uid, gid) in [(UID(0), GID(0)), nobody] {
                let input = lines.map { "\($0.0)\t\(t.path)/\($0.2)" + ($0.0 == "chmod" ? "\t600" : "") }.joined(separator: "\n") + "\n"
                let (_, out) = uid == 0 ? sh([probe], stdin: input) : sh(["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--init-groups", probe], stdin: input)
                let kernel = out.split(separator: "\n").map(String.init)
                #expect(kernel.count == lines.count, "\(out)")
                for (i, l) in lines.enumerated() where i < kernel.count {
                    let d = Evaluator(policy: policy).decide(
                        RequestSpec(op: l.1, path: t.path + "/" + l.2, mode: l.1 == .chmod ? FileMode(0o600) : nil), uid: uid)
                    #expect(answer(d) == kernel[i], "uid \(uid) \(l.0) \(l.2): kernel \(kernel[i]), simulator \(answer(d)) [\(d.rule.rawValue)]")
                    compared += 1
                }
            }
            // The cases the issue names, explicitly.
            #expect(answer(decide(policy, .write, t.path + "/ro/f", uid: 0)) == "EROFS")
            #expect(answer(decide(policy, .execute, t.path + "/ro/x", uid: 0)) == "EACCES")
            #expect(answer(decide(policy, .write, t.path + "/bro/f", uid: nobody.0)) == "EACCES", "a bind mount is read-only after the mode check")
            #expect(answer(decide(policy, .write, t.path + "/bro/f", uid: 0)) == "EROFS")
            #expect(compared == 2 * lines.count)
        }

        @Test(
            "scan race: a directory swapped for a symlink during the scan never lends another directory's ACL",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 to swap the directory quickly"))
        func swappedDirectoryNeverLendsItsACL() throws {
            let t = try TempTree("race")
            guard aclSupported(t) else { Issue.record("this file system has no POSIX ACL support (setfacl failed): the race test needs it"); return }
            t.dir("s/a", mode: 0o755)
            t.dir("other", mode: 0o755)
            for i in 0..<20 { t.file("s/a/f\(i)") }
            #expect(sh(["setfacl", "-m", "u:65534:r-x", t.path + "/s/a"]).0 == 0)
            #expect(sh(["setfacl", "-m", "u:65533:rwx", t.path + "/other"]).0 == 0)
            symlink(t.path + "/other", t.path + "/s/link")
            // Swap s/a and s/link back and forth (rename(2) is atomic) until told to stop.
            let script = """
                import os, sys
                s = sys.argv[1]
                while not os.path.exists(s + "/../stop"):
                    os.rename(s + "/a", s + "/tmp"); os.rename(s + "/link", s + "/a")
                    os.rename(s + "/a", s + "/link"); os.rename(s + "/tmp", s + "/a")
                """
            let swapper = Process()
            swapper.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            swapper.arguments = ["-c", script, t.path + "/s"]
            try swapper.run()
            var scans = 0, sawDir = 0, sawLink = 0, wrong: [String] = []
            let start = Date()
            while scans < 400 && Date().timeIntervalSince(start) < 3 {
                scans += 1
                let tree = TreeScanner.scan(t.path + "/s", options: ScanOptions(readAncestors: false, allAccounts: false))
                for e in tree.entries where ["a", "link", "tmp"].contains(e.relativePath) {
                    if e.type == .dir {
                        sawDir += 1
                        if e.access?.users != [POSIXACL.Entry(id: 65534, perms: [.read, .execute])] {
                            wrong.append("scan \(scans): \(e.relativePath) is a directory with ACL users \(e.access?.users ?? [])")
                        }
                    } else if e.type == .symlink {
                        sawLink += 1
                        if e.access != nil || e.target != t.path + "/other" {
                            wrong.append("scan \(scans): the symlink \(e.relativePath) has an ACL or a wrong target")
                        }
                    }
                }
            }
            FileManager.default.createFile(atPath: t.path + "/stop", contents: nil)
            swapper.waitUntilExit()
            print("scan race test: \(scans) scans while the directory was swapped; \(sawDir) directory and \(sawLink) symlink records; \(wrong.count) wrong")
            #expect(wrong.isEmpty, "\(wrong.prefix(5))")
            #expect(sawDir > 0 && sawLink > 0)
        }

        /// Issue 20: a scan file is already formatted — `scan` writes exactly `fmt`'s canonical
        /// form (tree sorted by path, keys in fmt's order, ACLs one entry per line, long entries as
        /// block mappings, paths longer than YAML's implicit keys as `? KEY`).
        @Test("fmt --check accepts fresh scan output: long names, ACLs, odd characters")
        func scanOutputIsFormatted() throws {
            let t = try TempTree("scanfmt")
            guard aclSupported(t) else { Issue.record("this file system has no POSIX ACL support (setfacl failed): the test needs ACLs"); return }
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            // A deep path of long names (beyond YAML's 1,024-character implicit keys), names that
            // need quotes or escapes, siblings that sort differently by byte and by depth.
            var deep = ""
            for k in 0..<5 { deep += "/" + String(repeating: "d\(k)", count: 120) }
            t.dir(String(deep.dropFirst()))
            t.file(String(deep.dropFirst()) + "/leaf")
            for n in ["a-b", "a", "a b", "quote\"s", "x:y", "#h", "caf\u{E9}", "tab\tname", String(repeating: "n", count: 200)] {
                t.dir("a")
                t.file(n == "a" ? "a/in" : n)
            }
            sh(["setfacl", "-m", "u:65534:rw,g:100:r", t.path + "/a b"])
            sh(["setfacl", "-m", "u:65534:rx,m::rx", t.path + "/a"])
            sh(["setfacl", "-d", "-m", "u:65534:rwx,g:100:r-x", t.path + "/a"])
            sh(["setfacl", "-m", "u:65534:r", t.path + "/" + String(repeating: "n", count: 200)])
            sh(["chmod", "4755", t.path + "/x:y"])
            let file = t.path + "/scan.yaml"
            let (s1, o1) = sh([bin, "scan", t.path, "-o", file])
            #expect(s1 == 0, "\(o1)")
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            #expect(text.contains("\n  ? \""), "a path longer than 1,000 characters is an explicit key")
            #expect(text.contains("    acl:\n      - \"user::"), "ACL entries one per line")
            let (s2, o2) = sh([bin, "fmt", "--check", file])
            #expect(s2 == 0, "fmt --check says the scan file would change: \(o2)")
            let (s3, o3) = sh([bin, "fmt", "--stdout", file])
            #expect(s3 == 0 && o3 == text, "fmt changes the scan file:\n\(o3.prefix(3000))")
            let (s4, o4) = sh([bin, "validate", file])
            #expect(s4 == 0, "\(o4)")
        }

    }
#endif
