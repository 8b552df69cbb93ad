#if os(Linux)
    import CLibACL
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // The differential test: the simulator's decision and errno against what the Linux kernel does
    // when the operation is really attempted as that user. It needs root (to create users and
    // groups and to run probes as them) and a file system with POSIX ACLs.

    @Suite("Differential tests against the Linux kernel", .serialized)
    struct DifferentialTests {
        @Test(
            "simulator and kernel agree on at least 2,000 random probes",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them (run the suite as root, as CI does)"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func agreesWithKernel() throws {
            // The scan reads the host's fs.protected_* values: no test may change them meanwhile.
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-diff-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }

            // The probe must be runnable by the test users: copy it into the world-readable parent.
            let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
            var probeBin = ""
            var dir = here
            for _ in 0..<4 where probeBin.isEmpty {
                let cand = dir.appendingPathComponent("fspolicy-probe").path
                if FileManager.default.isExecutableFile(atPath: cand) { probeBin = cand }
                dir = dir.deletingLastPathComponent()
            }
            if probeBin.isEmpty {
                probeBin =
                    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                        ".build/debug/fspolicy-probe"
                    ).path
            }
            guard FileManager.default.isExecutableFile(atPath: probeBin) else {
                Issue.record("the fspolicy-probe binary is missing (\(probeBin)): run `swift build` first")
                return
            }
            let probe = parent + "/fspolicy-probe"
            try FileManager.default.copyItem(atPath: probeBin, toPath: probe)
            chmod(probe, 0o755)

            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_PROBES"] ?? "") ?? 2400
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261122)
            var compared = 0
            var rounds = 0
            var disagreements: [String] = []
            var byOp: [String: Int] = [:]
            while compared < target && rounds < 60 {
                rounds += 1
                let root = parent + "/t\(rounds)"
                mkdir(root, 0o755)
                let backup = parent + "/b\(rounds)"
                mkdir(backup, 0o700)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let scanned = TreeScanner.scan(root)
                let yaml = ScanWriter.yaml(scanned)
                let policy = PolicyLoader.load(text: yaml, file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors {
                    Issue.record("the scan of round \(rounds) does not load: \(policy.diagnostics.sorted.map(\.rendered))\n\(yaml)")
                    break
                }
                // The scan's `linux:` section holds the host's fs.protected_* values.
                #expect(policy.world.linux == Sysctl.readAll(), "the scan's linux: section is not the host's")
                let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)

                struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
                var subjects: [Who] = []
                for a in accounts.users {
                    subjects.append(Who(uid: a.uid, gid: a.gid, groups: a.supplementary, prober: try Prober(probe: probe, uid: a.uid, gid: a.gid)))
                }
                subjects.append(Who(uid: 0, gid: 0, groups: [], prober: try Prober(probe: probe, uid: nil, gid: nil)))

                let existing = tree.files + tree.dirs + tree.links
                let allDirs = [root] + tree.dirs
                var dirty = false
                var n = 0
                while n < 220 && !dirty && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    let ops = [
                        "read", "write", "append", "truncate", "readwrite", "execute", "list", "search", "stat", "create", "creat", "mkdir",
                        "delete", "unlink", "rmdir", "rename", "link", "chmod", "chown", "chgrp", "touch", "settimes", "writeextattr", "readextattr",
                        "lstat", "lchown", "modify", "modify"
                    ]
                    let op = rng.pick(ops)
                    var path = rng.pick(existing)
                    var to = ""
                    var line: String
                    var spec: Request
                    let subject = Subject(uid: who.uid, gid: who.gid, groups: who.groups)
                    switch op {
                    case "create", "mkdir":
                        path = rng.chance(1, 8) ? rng.pick(existing) : rng.pick(allDirs) + "/new\(n)"
                        line = "\(op)\t\(path)"
                        spec = Request(subject: subject, op: op == "create" ? .create : .mkdir, path: path)
                    case "creat":
                        // open(O_WRONLY|O_CREAT): an existing name (file, directory, symlink) or a new one.
                        if rng.chance(1, 3) { path = rng.pick(allDirs) + "/new\(n)" }
                        line = "creat\t\(path)"
                        spec = Request(subject: subject, op: .creat, path: path)
                    case "delete":
                        var st = stat()
                        lstat(path, &st)
                        line = ((st.st_mode & S_IFMT) == S_IFDIR ? "rmdir" : "unlink") + "\t\(path)"
                        spec = Request(subject: subject, op: .delete, path: path)
                    case "unlink", "rmdir":
                        // Any kind of node, sometimes named with a trailing slash (rules O14, O15).
                        if rng.chance(1, 8) { path = rng.pick(allDirs) + "/gone\(n)" }
                        if rng.chance(1, 6) { path += "/" }
                        line = "\(op)\t\(path)"
                        spec = Request(subject: subject, op: op == "unlink" ? .unlink : .rmdir, path: path)
                    case "rename", "link":
                        path = rng.pick(tree.files + tree.links + (op == "rename" ? tree.dirs : []))
                        to = rng.chance(1, 6) ? rng.pick(tree.files) : rng.pick(allDirs) + "/moved\(n)"
                        line = "\(op)\t\(path)\t\(to)"
                        spec = Request(subject: subject, op: op == "rename" ? .rename : .link, path: path, to: to)
                    case "chmod":
                        let m = rng.pick([0o600, 0o644, 0o755, 0o2755, 0o1777, 0o000])
                        line = "chmod\t\(path)\t\(String(m, radix: 8))"
                        spec = Request(subject: subject, op: .chmod, path: path, mode: FileMode(UInt16(m)))
                    case "chown":
                        let u = rng.pick(accounts.users).uid
                        line = "chown\t\(path)\t\(u)"
                        spec = Request(subject: subject, op: .chown, path: path, owner: u)
                    case "lchown":
                        // Mostly symlinks (their own owner), sometimes other nodes (as chown), O16.
                        if rng.chance(2, 3) && !tree.links.isEmpty { path = rng.pick(tree.links) }
                        let u = rng.chance(1, 4) ? who.uid : rng.pick(accounts.users).uid
                        line = "lchown\t\(path)\t\(u)"
                        spec = Request(subject: subject, op: .lchown, path: path, owner: u)
                    case "chgrp":
                        let g = rng.pick(accounts.groups).gid
                        line = "chgrp\t\(path)\t\(g)"
                        spec = Request(subject: subject, op: .chgrp, path: path, group: g)
                    default:
                        line = "\(op)\t\(path)"
                        spec = Request(subject: subject, op: Operation(word: op)!, path: path)
                    }
                    // Save what a successful probe may change, to put it back.
                    var st = stat()
                    let existedBefore = lstat(path, &st) == 0
                    // chmod, chown and chgrp follow a symlink: save what they would change, through it.
                    var target = stat()
                    let followed = stat(path, &target) == 0
                    let savedMode = target.st_mode & 0o7777, savedUID = target.st_uid, savedGID = target.st_gid
                    let savedACL = followed && ["chmod", "chown", "chgrp"].contains(op) ? sh(["getfacl", "-p", "--absolute-names", path]).1 : ""
                    let backupPath = backup + "/\(n)"
                    let removes = op == "delete" || op == "unlink" || op == "rmdir"
                    if removes && (st.st_mode & S_IFMT) != S_IFDIR { link(path, backupPath) }

                    let kernel = who.prober.ask(line)
                    let d = auth.decide(spec)
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    byOp[op, default: 0] += 1
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append(
                            "round \(rounds) probe \(n): uid \(who.uid) \(line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.layer.rawValue) \(d.rule.rawValue)]\n\(tr)\n--- tree ---\n\(yaml)"
                        )
                    }
                    // Put the world back, or end the round when it cannot be.
                    if kernel == "OK" {
                        switch op {
                        case "creat" where !existedBefore:
                            let parentDir = (path as NSString).deletingLastPathComponent
                            if Inode.flags(parentDir) & (Inode.immutable | Inode.append) != 0 || unlink(path) != 0 { dirty = true }
                        case "create", "mkdir", "link":
                            let made = op == "link" ? to : path
                            let parentDir = (made as NSString).deletingLastPathComponent
                            if Inode.flags(parentDir) & (Inode.immutable | Inode.append) != 0 {
                                dirty = true
                            } else if (op == "mkdir" ? rmdir(made) : unlink(made)) != 0 {
                                dirty = true
                            }
                        case "delete", "unlink", "rmdir":
                            if (st.st_mode & S_IFMT) == S_IFDIR || link(backupPath, path) != 0 { dirty = true }
                        case "rename":
                            if (st.st_mode & S_IFMT) == S_IFDIR || Glibc.rename(to, path) != 0 { dirty = true }
                            if !dirty && st.st_nlink > 0, existing.contains(to) { dirty = true }  // a replaced target is gone
                        case "lchown":
                            lchown(path, st.st_uid, st.st_gid)
                            if (st.st_mode & S_IFMT) != S_IFLNK { chmod(path, st.st_mode & 0o7777) }
                        case "chmod", "chown", "chgrp":
                            chown(path, savedUID, savedGID)
                            chmod(path, savedMode)
                            if !followed { dirty = true }
                            if !savedACL.isEmpty {
                                let tmp = backup + "/acl\(n)"
                                try? savedACL.write(toFile: tmp, atomically: true, encoding: .utf8)
                                if sh(["setfacl", "--restore=\(tmp)"]).0 != 0 { dirty = true }
                            }
                        case "modify":
                            // A new name the probe could not remove again (an append-only directory).
                            var probe = stat()
                            if (st.st_mode & S_IFMT) == S_IFDIR || stat(path, &probe) == 0 && (probe.st_mode & S_IFMT) == S_IFDIR {
                                let base = path.hasSuffix("/") ? path : path + "/"
                                if lstat(base + ".fspolicy-new", &probe) == 0 { dirty = true }
                            }
                        default: break
                        }
                    }
                    unlink(backupPath)
                }
                rounds += 0
                subjects = []
            }
            let summary = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("differential test: \(compared) probes in \(rounds) random trees (\(summary)); \(disagreements.count) disagreements")
            #expect(compared >= 2000, "only \(compared) probes ran")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif

#if os(Linux)
    extension DifferentialTests {
        @Test(
            "owner, group, mode and ACLs of new files and directories match the kernel on at least 200 random cases",
            .enabled(if: isRoot, "needs root: it creates test users and groups and creates files as them"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func creationMatchesKernel() throws {
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-create-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            let probe = parent + "/fspolicy-probe"
            let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
            var found = ""
            var dir = here
            for _ in 0..<4 where found.isEmpty {
                let cand = dir.appendingPathComponent("fspolicy-probe").path
                if FileManager.default.isExecutableFile(atPath: cand) { found = cand }
                dir = dir.deletingLastPathComponent()
            }
            guard !found.isEmpty else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }
            try FileManager.default.copyItem(atPath: found, toPath: probe)
            chmod(probe, 0o755)

            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 77)
            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_CREATE_CASES"] ?? "") ?? 240
            let perms = ["---", "r--", "-w-", "--x", "rw-", "r-x", "-wx", "rwx"]
            let dirModes: [mode_t] = [0o777, 0o2777, 0o1777, 0o2775, 0o775, 0o3777]
            let requested: [Int] = [0o666, 0o644, 0o600, 0o777, 0o755, 0o2775, 0o4755, 0o1777, 0o2777, 0o640, 0o700, 0o444, 0o2771, 0o6711]
            let umasks: [Int] = [0o022, 0o077, 0o002, 0o000, 0o027, 0o007, 0o277]
            var compared = 0
            var created = 0
            var withACL = 0
            var mismatches: [String] = []
            var round = 0
            while created < target && round < 60 {
                round += 1
                // A few directories, some setgid, some with default ACLs, writable by the test users.
                let root = parent + "/r\(round)"
                mkdir(root, 0o755)
                var dirs: [String] = []
                for i in 0..<6 {
                    let d = root + "/d\(i)"
                    mkdir(d, 0o755)
                    chown(d, rng.pick(accounts.users.map(\.uid) + [0]), rng.pick(accounts.groups.map(\.gid) + [0]))
                    chmod(d, rng.pick(dirModes))
                    if rng.chance(2, 3) {
                        var e = ["u::\(rng.pick(perms))", "g::\(rng.pick(perms))", "o::\(rng.pick(perms))"]
                        var seen: Set<UInt32> = []
                        for _ in 0..<rng.below(3) { let u = rng.pick(accounts.users).uid; if seen.insert(u).inserted { e.append("u:\(u):\(rng.pick(perms))") } }
                        var seenG: Set<UInt32> = []
                        for _ in 0..<rng.below(3) {
                            let g = rng.pick(accounts.groups).gid; if seenG.insert(g).inserted { e.append("g:\(g):\(rng.pick(perms))") }
                        }
                        let named = e.count > 3
                        if named || rng.chance(1, 3) { e.append("m::" + rng.pick(perms)) }
                        if sh(["setfacl", "-d", "--set", e.joined(separator: ","), d]).0 != 0 {
                            Issue.record("setfacl -d --set \(e.joined(separator: ",")) failed")
                        }
                    }
                    dirs.append(d)
                }
                let scanned = TreeScanner.scan(root)
                let policy = PolicyLoader.load(text: ScanWriter.yaml(scanned), file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors { Issue.record("scan does not load: \(policy.diagnostics.sorted.map(\.rendered))"); break }
                var probers: [UID: Prober] = [:]
                for a in accounts.users { probers[a.uid] = try Prober(probe: probe, uid: a.uid, gid: a.gid) }
                for i in 0..<12 where created < target {
                    let who = rng.pick(accounts.users)
                    let isDir = rng.chance(1, 3)
                    let path = rng.pick(dirs) + "/n\(i)"
                    let mode = rng.pick(requested)
                    let um = rng.pick(umasks)
                    let prober = probers[who.uid]!
                    _ = prober.ask("umask\t" + String(um, radix: 8))
                    let kernel = prober.ask((isDir ? "mkdir" : "create") + "\t\(path)\t" + String(mode, radix: 8))
                    let subject = Subject(uid: who.uid, gid: who.gid, groups: who.supplementary, umask: UInt16(um))
                    var w = policy.world
                    let out = Mutator.apply(
                        Request(subject: subject, op: isDir ? .mkdir : .create, path: path, mode: FileMode(UInt16(mode))), to: &w, semantics: .linux,
                        tracing: false)
                    let simulatedResult = out.decision.allowed ? "OK" : (out.decision.errno?.rawValue ?? "?")
                    compared += 1
                    let what = "\(isDir ? "mkdir" : "create") \(path) mode \(String(mode, radix: 8)) umask \(String(um, radix: 8)) as uid \(who.uid)"
                    if kernel != simulatedResult {
                        mismatches.append("\(what): kernel \(kernel), simulator \(simulatedResult)")
                        continue
                    }
                    guard kernel == "OK", let id = out.created else { continue }
                    created += 1
                    let real = TreeScanner.scan(path).entries.first
                    if real?.access != nil || real?.defaultACL != nil { withACL += 1 }
                    let sim = w[id]
                    let t = TextRenderer(policy: policy, world: w)
                    func show(_ a: POSIXACL?) -> String { a.map { t.posixLines($0).joined(separator: ",") } ?? "none" }
                    let realText =
                        "owner \(real?.uid ?? 0) group \(real?.gid ?? 0) mode \(real?.mode.octal ?? "?") acl \(show(real?.access)) default \(show(real?.defaultACL))"
                    let simText =
                        "owner \(sim.uid) group \(sim.gid) mode \(sim.mode.octal) acl \(show(w.posixACL(of: id))) default \(show(w.defaultPOSIXACL(of: id)))"
                    if realText != simText {
                        let pd = (path as NSString).deletingLastPathComponent
                        mismatches.append(
                            "\(what) in a parent with default ACL \(show(policy.world.defaultPOSIXACL(of: policy.world.lookup(pd)!))), mode \(policy.world[policy.world.lookup(pd)!].mode.octal):\n  kernel    \(realText)\n  simulator \(simText)"
                        )
                    }
                    // Keep the parent as scanned: remove the new entry.
                    if isDir { rmdir(path) } else { unlink(path) }
                }
                probers = [:]
            }
            print(
                "creation differential test: \(compared) cases in \(round) rounds, \(created) objects created and compared (\(withACL) with ACLs); \(mismatches.count) mismatches"
            )
            #expect(created >= 200, "only \(created) creations succeeded")
            #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) creations differ from the kernel:\n\(mismatches.prefix(8).joined(separator: "\n"))")
        }
    }
#endif
