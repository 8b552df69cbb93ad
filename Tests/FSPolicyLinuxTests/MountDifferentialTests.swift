#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // The kernel differential test on what a scan reads besides the tree: real ancestors (trees
    // scanned from a subdirectory whose folders above are restrictive) and mounts (a read-only
    // tmpfs, a noexec tmpfs, a read-only bind mount). Same method as `agreesWithKernel`: every
    // probe is really attempted as the user, and the simulator must give the same errno.

    /// mount(2) works here (root with CAP_SYS_ADMIN, not a locked-down container): checked once.
    let mountsPermitted: Bool = {
        guard isRoot else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-mountcheck-\(UUID().uuidString)").path
        mkdir(dir, 0o700)
        defer { rmdir(dir) }
        guard sh(["mount", "-t", "tmpfs", "-o", "size=64k", "fspolicy-check", dir]).0 == 0 else { return false }
        sh(["umount", dir])
        return true
    }()

    /// The directory holding the built `fspolicy-probe`, copied where the test users can run it.
    func copyProbe(into dir: String) throws -> String? {
        let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
        var d = here
        for _ in 0..<4 {
            let cand = d.appendingPathComponent("fspolicy-probe").path
            if FileManager.default.isExecutableFile(atPath: cand) {
                let probe = dir + "/fspolicy-probe"
                try FileManager.default.copyItem(atPath: cand, toPath: probe)
                chmod(probe, 0o755)
                return probe
            }
            d = d.deletingLastPathComponent()
        }
        return nil
    }

    struct ProbeTally {
        var compared = 0
        var disagreements: [String] = []
        var byOp: [String: Int] = [:]
        var summary: String { byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
    }

    /// Up to `count` random probes on `tree` (below `dirs`), as random subjects, each compared with
    /// the simulator's answer on `policy`; successful changes are put back, and the round ends early
    /// when one cannot be.
    func probeRound(
        policy: Policy, tree: RandomTree, dirs: [String], accounts: TestAccounts, probe: String, backup: String,
        count: Int, rng: inout Rand, tally: inout ProbeTally
    ) throws {
        let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)
        struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
        var subjects: [Who] = []
        for a in accounts.users {
            subjects.append(Who(uid: a.uid, gid: a.gid, groups: a.supplementary, prober: try Prober(probe: probe, uid: a.uid, gid: a.gid)))
        }
        subjects.append(Who(uid: 0, gid: 0, groups: [], prober: try Prober(probe: probe, uid: nil, gid: nil)))
        let existing = tree.files + tree.dirs + tree.links
        let ops = [
            "read", "write", "append", "truncate", "readwrite", "execute", "list", "search", "stat", "create", "creat", "mkdir",
            "delete", "unlink", "rmdir", "rename", "link", "chmod", "touch", "writeextattr", "lchmod", "chown", "settimes"
        ]
        var n = 0
        while n < count {
            n += 1
            let who = rng.pick(subjects)
            let op = rng.pick(ops)
            var path = rng.pick(existing)
            var to = ""
            let line: String
            let spec: Request
            let subject = Subject(uid: who.uid, gid: who.gid, groups: who.groups)
            switch op {
            case "create", "mkdir":
                path = rng.chance(1, 8) ? rng.pick(existing) : rng.pick(dirs) + "/new\(n)"
                line = "\(op)\t\(path)"
                spec = Request(subject: subject, op: op == "create" ? .create : .mkdir, path: path)
            case "creat":
                if rng.chance(1, 3) { path = rng.pick(dirs) + "/new\(n)" }
                line = "creat\t\(path)"
                spec = Request(subject: subject, op: .creat, path: path)
            case "delete":
                var st = stat()
                lstat(path, &st)
                line = ((st.st_mode & S_IFMT) == S_IFDIR ? "rmdir" : "unlink") + "\t\(path)"
                spec = Request(subject: subject, op: .delete, path: path)
            case "unlink", "rmdir":
                // Any kind of node, sometimes with a trailing slash: EROFS against the type checks.
                if rng.chance(1, 8) { path = rng.pick(dirs) + "/gone\(n)" }
                if rng.chance(1, 4) { path += "/" }
                line = "\(op)\t\(path)"
                spec = Request(subject: subject, op: op == "unlink" ? .unlink : .rmdir, path: path)
            case "rename", "link":
                path = rng.pick(tree.files + tree.links)
                to = rng.pick(dirs) + "/moved\(n)"
                line = "\(op)\t\(path)\t\(to)"
                spec = Request(subject: subject, op: op == "rename" ? .rename : .link, path: path, to: to)
            case "chmod", "lchmod":
                let m = rng.pick([0o600, 0o644, 0o755, 0o000])
                line = "\(op)\t\(path)\t\(String(m, radix: 8))"
                spec = Request(subject: subject, op: op == "chmod" ? .chmod : .lchmod, path: path, mode: FileMode(UInt16(m)))
            case "chown":
                // chown(-1, -1): EROFS before the immutable flag and the setuid clearing (O27).
                line = "chown\t\(path)\t-1:-1"
                spec = Request(subject: subject, op: .chown, path: path)
            case "settimes":
                // UTIME_NOW and UTIME_OMIT: both omitted is never refused, not even EROFS (O26).
                let a = rng.pick(["set", "now", "omit"]), m = rng.pick(["now", "omit"])
                line = "settimes\t\(path)\t\(a),\(m)"
                var r = Request(subject: subject, op: .settimes, path: path)
                r.atime = TimeChange(word: a)!
                r.mtime = TimeChange(word: m)!
                spec = r
            default:
                line = "\(op)\t\(path)"
                spec = Request(subject: subject, op: Operation(word: op)!, path: path)
            }
            var st = stat()
            let existedBefore = lstat(path, &st) == 0
            var target = stat()
            let followed = stat(path, &target) == 0
            let savedACL = followed && (op == "chmod" || op == "lchmod") ? sh(["getfacl", "-p", "--absolute-names", path]).1 : ""
            let backupPath = backup + "/\(n)"
            if ["delete", "unlink", "rmdir"].contains(op) && (st.st_mode & S_IFMT) != S_IFDIR { link(path, backupPath) }

            let kernel = who.prober.ask(line)
            let d = auth.decide(spec)
            let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
            tally.compared += 1
            tally.byOp[op, default: 0] += 1
            if kernel != simulated {
                let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                tally.disagreements.append(
                    "uid \(who.uid) \(line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.layer.rawValue) \(d.rule.rawValue)]\n\(tr)"
                )
            }
            var dirty = false
            if kernel == "OK" {
                switch op {
                case "creat" where !existedBefore:
                    if Inode.flags((path as NSString).deletingLastPathComponent) & (Inode.immutable | Inode.append) != 0 || unlink(path) != 0 { dirty = true }
                case "create", "mkdir", "link":
                    let made = op == "link" ? to : path
                    if Inode.flags((made as NSString).deletingLastPathComponent) & (Inode.immutable | Inode.append) != 0 {
                        dirty = true
                    } else if (op == "mkdir" ? rmdir(made) : unlink(made)) != 0 {
                        dirty = true
                    }
                case "delete", "unlink", "rmdir":
                    if (st.st_mode & S_IFMT) == S_IFDIR || link(backupPath, path) != 0 { dirty = true }
                case "rename":
                    if Glibc.rename(to, path) != 0 { dirty = true }
                case "chmod", "lchmod", "chown":
                    chmod(path, target.st_mode & 0o7777)
                    if !followed { dirty = true }
                    if !savedACL.isEmpty {
                        let tmp = backup + "/acl\(n)"
                        try? savedACL.write(toFile: tmp, atomically: true, encoding: .utf8)
                        if sh(["setfacl", "--restore=\(tmp)"]).0 != 0 { dirty = true }
                    }
                default: break
                }
            }
            unlink(backupPath)
            if dirty { break }
        }
    }

    extension DifferentialTests {
        @Test(
            "simulator and kernel agree on trees scanned below restrictive ancestors (their real modes, owners and ACLs)",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func agreesBelowRestrictiveAncestors() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-anc-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261124)
            var tally = ProbeTally()
            let ancestorModes: [mode_t] = [0o700, 0o750, 0o710, 0o711, 0o770, 0o701, 0o705, 0o751]
            var rounds = 0
            var restrictive = 0
            while tally.compared < 300 && rounds < 12 {
                rounds += 1
                // parent/aN (restrictive, owned by a test user and group, sometimes with an ACL) /sub/t
                let anc = parent + "/a\(rounds)"
                mkdir(anc, 0o755)
                mkdir(anc + "/sub", 0o755)
                let root = anc + "/sub/t"
                mkdir(root, 0o755)
                let backup = parent + "/b\(rounds)"
                mkdir(backup, 0o700)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                chown(anc, rng.pick(accounts.users).uid, rng.pick(accounts.groups).gid)
                chmod(anc, rng.pick(ancestorModes))
                if rng.chance(1, 2) {
                    sh(["setfacl", "-m", "u:\(rng.pick(accounts.users).uid):--x,g:\(rng.pick(accounts.groups).gid):r-x,m::r-x", anc])
                }
                if rng.chance(1, 3) { chmod(anc + "/sub", rng.pick([0o700, 0o750, 0o711])); chown(anc + "/sub", rng.pick(accounts.users).uid, 0) }
                restrictive += 1
                let scanned = TreeScanner.scan(root)
                #expect(scanned.ancestors.map(\.relativePath).contains(anc), "the restrictive ancestor is recorded")
                let policy = PolicyLoader.load(text: ScanWriter.yaml(scanned), file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors { Issue.record("the scan does not load: \(policy.diagnostics.sorted.map(\.rendered))"); break }
                try probeRound(
                    policy: policy, tree: tree, dirs: [root] + tree.dirs, accounts: accounts, probe: probe, backup: backup,
                    count: 120, rng: &rng, tally: &tally)
            }
            print(
                "ancestor differential test: \(tally.compared) probes in \(rounds) trees below \(restrictive) restrictive ancestors (\(tally.summary)); \(tally.disagreements.count) disagreements"
            )
            #expect(tally.compared >= 300, "only \(tally.compared) probes ran")
            #expect(
                tally.disagreements.isEmpty,
                "\(tally.disagreements.count) of \(tally.compared) probes disagree with the kernel:\n\(tally.disagreements.prefix(5).joined(separator: "\n\n"))"
            )
        }

        @Test(
            "simulator and kernel agree on a read-only tmpfs, a noexec tmpfs and a read-only bind mount, as scanned",
            .enabled(if: isRoot, "needs root: it mounts file systems and runs probes as test users"),
            .enabled(
                if: mountsPermitted, "mount(2) is not permitted here (no CAP_SYS_ADMIN, e.g. a locked-down container): the mount differential test cannot run"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func agreesOnMounts() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-mounts-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            var mounted: [String] = []
            defer {
                for m in mounted.reversed() { sh(["umount", m]) }
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261125)
            var tally = ProbeTally()
            var rounds = 0
            while tally.compared < 300 && rounds < 8 {
                rounds += 1
                let top = parent + "/m\(rounds)"
                let backup = parent + "/b\(rounds)"
                mkdir(backup, 0o700)
                for d in ["", "/ro", "/nx", "/bsrc", "/bro"] { mkdir(top + d, 0o755) }
                // A tmpfs filled, then remounted read-only; a noexec tmpfs; a read-only bind mount.
                #expect(sh(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "fspolicy-ro", top + "/ro"]).0 == 0)
                mounted.append(top + "/ro")
                #expect(sh(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755,noexec", "fspolicy-nx", top + "/nx"]).0 == 0)
                mounted.append(top + "/nx")
                let roTree = buildRandomTree(at: top + "/ro", accounts: accounts, rng: &rng)
                let nxTree = buildRandomTree(at: top + "/nx", accounts: accounts, rng: &rng)
                let bindTree = buildRandomTree(at: top + "/bsrc", accounts: accounts, rng: &rng)
                // Flags would keep the tmpfs from being cleaned; the tmpfs goes away with its flags anyway.
                #expect(sh(["mount", "-o", "remount,ro", top + "/ro"]).0 == 0)
                #expect(sh(["mount", "--bind", top + "/bsrc", top + "/bro"]).0 == 0)
                mounted.append(top + "/bro")
                #expect(sh(["mount", "-o", "remount,bind,ro", top + "/bro"]).0 == 0)
                let viaBind = RandomTree(
                    files: bindTree.files.map { $0.replacingOccurrences(of: top + "/bsrc", with: top + "/bro") },
                    dirs: bindTree.dirs.map { $0.replacingOccurrences(of: top + "/bsrc", with: top + "/bro") },
                    links: bindTree.links.map { $0.replacingOccurrences(of: top + "/bsrc", with: top + "/bro") })
                let scanned = TreeScanner.scan(top)
                #expect(scanned.mounts.filter { $0.relativePath != nil }.count == 3, "\(scanned.mounts)")
                let policy = PolicyLoader.load(text: ScanWriter.yaml(scanned), file: top + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors { Issue.record("the scan does not load: \(policy.diagnostics.sorted.map(\.rendered))"); break }
                // Probes on the three mounts (the bind source stays out: it is writable).
                let all = RandomTree(
                    files: roTree.files + nxTree.files + viaBind.files, dirs: roTree.dirs + nxTree.dirs + viaBind.dirs,
                    links: roTree.links + nxTree.links + viaBind.links)
                try probeRound(
                    policy: policy, tree: all, dirs: [top + "/ro", top + "/nx", top + "/bro"] + all.dirs, accounts: accounts,
                    probe: probe, backup: backup, count: 150, rng: &rng, tally: &tally)
                for m in [top + "/bro", top + "/nx", top + "/ro"] { if sh(["umount", m]).0 == 0 { mounted.removeAll { $0 == m } } }
            }
            print(
                "mount differential test: \(tally.compared) probes on read-only, noexec and read-only bind mounts in \(rounds) rounds (\(tally.summary)); \(tally.disagreements.count) disagreements"
            )
            #expect(tally.compared >= 300, "only \(tally.compared) probes ran")
            #expect(
                tally.disagreements.isEmpty,
                "\(tally.disagreements.count) of \(tally.compared) probes disagree with the kernel:\n\(tally.disagreements.prefix(5).joined(separator: "\n\n"))"
            )
        }
    }
#endif
