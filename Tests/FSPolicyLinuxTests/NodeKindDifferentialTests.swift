#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // Every kind of node a step can make (symlink, FIFO, device, socket: rules O17–O19) and the
    // setuid and setgid bits a write clears (O20), against the kernel: the probe makes the call
    // as a test user or as root, the simulator decides it and applies it as a step, and the node
    // the kernel made (or the mode it left) is compared with the simulated one.

    @Suite("Node kinds and setuid clearing against the Linux kernel", .serialized)
    struct NodeKindDifferentialTests {
        /// The probe copied where the test users can run it.
        static func installProbe(in parent: String) throws -> String? {
            let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
            var found = ""
            var dir = here
            for _ in 0..<4 where found.isEmpty {
                let cand = dir.appendingPathComponent("fspolicy-probe").path
                if FileManager.default.isExecutableFile(atPath: cand) { found = cand }
                dir = dir.deletingLastPathComponent()
            }
            guard !found.isEmpty else { return nil }
            let probe = parent + "/fspolicy-probe"
            try FileManager.default.copyItem(atPath: found, toPath: probe)
            chmod(probe, 0o755)
            return probe
        }

        /// What the kernel made at `path`, in the words the simulated node is written in.
        static func realNode(_ path: String) -> String {
            var st = stat()
            guard lstat(path, &st) == 0 else { return "missing" }
            let kind: String
            switch st.st_mode & S_IFMT {
            case S_IFLNK: kind = "symlink"
            case S_IFIFO: kind = "fifo"
            case S_IFSOCK: kind = "socket"
            case S_IFCHR: kind = "char"
            case S_IFBLK: kind = "block"
            case S_IFDIR: kind = "dir"
            default: kind = "file"
            }
            var out = "\(kind) owner \(st.st_uid) group \(st.st_gid) mode \(String(st.st_mode & 0o7777, radix: 8))"
            if kind == "symlink" {
                var buf = [CChar](repeating: 0, count: 4096)
                let n = readlink(path, &buf, buf.count - 1)
                out += " -> " + (n >= 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?")
            } else if kind != "dir" {
                // The access ACL a default ACL gave it (none: the mode says everything).
                let acl = sh(["getfacl", "-cpn", "--absolute-names", path]).1.split(separator: "\n")
                    .map { String($0.split(separator: "\t").first ?? "") }.filter { $0.hasPrefix("user:") && !$0.hasPrefix("user::") }
                out += " acl \(acl.isEmpty ? "none" : acl.joined(separator: ","))"
            }
            return out
        }

        static func simulatedNode(_ w: World, _ id: NodeID) -> String {
            let n = w[id]
            var out = "\(n.type.word) owner \(n.uid) group \(n.gid) mode \(String(n.mode.rawValue & 0o7777, radix: 8))"
            if n.type == .symlink {
                out += " -> " + (w.symlinkTargets[id] ?? "?")
            } else if n.type != .dir {
                let named = w.posixACL(of: id)?.users ?? []
                func text(_ p: RWX) -> String { (p.contains(.read) ? "r" : "-") + (p.contains(.write) ? "w" : "-") + (p.contains(.execute) ? "x" : "-") }
                out += " acl \(named.isEmpty ? "none" : named.map { "user:\($0.id):\(text($0.perms))" }.joined(separator: ","))"
            }
            return out
        }

        @Test(
            "symlink, mkfifo, mknod and socket agree with the kernel as root and as users, and make the same node",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func nodeKindsAgree() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            // Short: a socket's path must fit in sun_path (108 bytes).
            let parent = "/tmp/fsn-" + String(UUID().uuidString.prefix(8))
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try Self.installProbe(in: parent) else {
                Issue.record("the fspolicy-probe binary is missing: run `swift build` first")
                return
            }
            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_NODE_PROBES"] ?? "") ?? 1600
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 4646)
            var compared = 0, made = 0, rounds = 0
            var byOp: [String: Int] = [:]
            var byAnswer: [String: Int] = [:]
            var disagreements: [String] = []
            let umasks: [UInt16] = [0o022, 0o077, 0o002, 0o000, 0o027]
            let modes: [UInt16] = [0o666, 0o644, 0o600, 0o2775, 0o4755, 0o1777, 0o640, 0o2771, 0o000]
            while compared < target && rounds < 40 {
                rounds += 1
                let root = parent + "/t\(rounds)"
                mkdir(root, 0o755)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(root)), file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors {
                    Issue.record("the scan of round \(rounds) does not load: \(policy.diagnostics.sorted.map(\.rendered))")
                    break
                }
                struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
                var subjects = try accounts.users.map {
                    Who(uid: $0.uid, gid: $0.gid, groups: $0.supplementary, prober: try Prober(probe: probe, uid: $0.uid, gid: $0.gid))
                }
                subjects.append(Who(uid: 0, gid: 0, groups: [], prober: try Prober(probe: probe, uid: nil, gid: nil)))
                let existing = tree.files + tree.dirs + tree.links
                let allDirs = [root] + tree.dirs
                var dirty = false
                var n = 0
                while n < 160 && !dirty && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    let op = rng.pick(["symlink", "mkfifo", "mknod", "socket"])
                    var path = rng.pick(allDirs) + "/n\(n)"
                    if rng.chance(1, 6) { path = rng.pick(existing) }
                    if rng.chance(1, 12) { path = rng.pick(tree.files) + "/n\(n)" }
                    if rng.chance(1, 12) { path += "/" }
                    let um = rng.pick(umasks)
                    var spec = Request(subject: Subject(uid: who.uid, gid: who.gid, groups: who.groups, umask: um), op: Operation(word: op)!, path: path)
                    var line = "\(op)\t\(path)"
                    switch op {
                    case "symlink":
                        let to = rng.chance(1, 2) ? rng.pick(existing) : "../x\(n)"
                        spec.to = to
                        line += "\t" + to
                    case "mkfifo":
                        let m = rng.pick(modes)
                        spec.mode = FileMode(m)
                        line += "\t" + String(m, radix: 8)
                    case "mknod":
                        let m = rng.pick(modes)
                        spec.mode = FileMode(m)
                        let block = rng.chance(1, 2)
                        spec.deviceType = block ? .blockDevice : .charDevice
                        line += "\t" + (block ? "b" : "c") + String(m, radix: 8)
                    default: break
                    }
                    _ = who.prober.ask("umask\t" + String(um, radix: 8))
                    let kernel = who.prober.ask(line)
                    if kernel == "TOOLONG" { continue }
                    var w = policy.world
                    let out = Mutator.apply(spec, to: &w, semantics: .linux, tracing: false)
                    let simulated = out.decision.allowed ? "OK" : (out.decision.errno?.rawValue ?? "?")
                    compared += 1
                    byOp[op, default: 0] += 1
                    byAnswer[kernel, default: 0] += 1
                    let what = "round \(rounds) uid \(who.uid) umask \(String(um, radix: 8)): \(line.replacingOccurrences(of: "\t", with: " "))"
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append("\(what): kernel \(kernel), simulator \(simulated) [\(out.decision.rule.rawValue)]\n\(tr)")
                    }
                    guard kernel == "OK" else { continue }
                    let real = Self.realNode(path)
                    if let id = out.created {
                        made += 1
                        let sim = Self.simulatedNode(w, id)
                        if real != sim { disagreements.append("\(what): the new node\n  kernel    \(real)\n  simulator \(sim)") }
                    }
                    // Keep the tree as scanned: remove the new name (not possible in an append-only directory).
                    if unlink(path) != 0 { dirty = true }
                }
                subjects = []
            }
            let ops = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let answers = byAnswer.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "node-kind differential test: \(compared) probes in \(rounds) random trees (\(ops); answers \(answers)), \(made) new nodes compared; \(disagreements.count) disagreements"
            )
            #expect(compared >= 1000, "only \(compared) probes ran")
            #expect(made >= 200, "only \(made) nodes were made")
            #expect(
                disagreements.isEmpty, "\(disagreements.count) of \(compared) disagree with the kernel:\n\(disagreements.prefix(6).joined(separator: "\n\n"))")
        }

        @Test(
            "a write, an append, a truncation, a chown and a chgrp leave the setuid and setgid bits as the kernel does",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them"))
        func setIDClearingAgrees() throws {
            let parent = "/tmp/fss-" + String(UUID().uuidString.prefix(8))
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try Self.installProbe(in: parent) else {
                Issue.record("the fspolicy-probe binary is missing: run `swift build` first")
                return
            }
            let owner = accounts.users[0]
            // The file's group: one a second user is in and a third is not.
            guard
                let group = accounts.groups.first(where: { g in accounts.users.dropFirst().contains { $0.gid == g.gid || $0.supplementary.contains(g.gid) } })?
                    .gid,
                let member = accounts.users.dropFirst().first(where: { $0.gid == group || $0.supplementary.contains(group) }),
                let stranger = accounts.users.first(where: { $0.gid != group && !$0.supplementary.contains(group) && $0.uid != owner.uid })
            else {
                Issue.record("the test accounts have no group with a member and a non-member")
                return
            }
            let modes: [UInt16] = [0o4777, 0o2777, 0o2767, 0o6777, 0o6767, 0o4767, 0o0777, 0o2707, 0o4666]
            let writers: [(String, TestAccounts.Account?)] = [("owner", owner), ("member", member), ("stranger", stranger), ("root", nil)]
            let calls: [(probe: String, op: FSPolicy.Operation)] = [
                ("writebyte", .write), ("appendbyte", .append), ("truncate", .truncate), ("chown", .chown), ("chgrp", .chgrp)
            ]
            var compared = 0, cleared = 0
            var mismatches: [String] = []
            for mode in modes {
                for (role, who) in writers {
                    for call in calls {
                        // chgrp: the writer's own file, to another group of the writer's.
                        let newGroup = who.map { a in ([a.gid] + a.supplementary).first { $0 != group } } ?? accounts.groups[1].gid
                        if call.op == .chgrp && newGroup == nil { continue }
                        let fileOwner = call.op == .chgrp ? (who?.uid ?? owner.uid) : owner.uid
                        let dir = parent + "/c\(compared)"
                        mkdir(dir, 0o755)
                        let path = dir + "/prog"
                        close(open(path, O_CREAT | O_WRONLY, 0o600))
                        chown(path, fileOwner, group)
                        chmod(path, mode_t(mode))
                        let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(dir)), file: dir + ".yaml", host: testHost)
                        if policy.diagnostics.hasErrors { Issue.record("the scan does not load: \(policy.diagnostics.sorted.map(\.rendered))"); return }
                        let prober = try Prober(probe: probe, uid: who?.uid, gid: who?.gid)
                        let subject = who.map { Subject(uid: $0.uid, gid: $0.gid, groups: $0.supplementary) } ?? Subject(uid: 0, gid: 0, groups: [])
                        // chown: root gives the file to the member (only root may).
                        let line =
                            call.op == .chown
                            ? "chown\t\(path)\t\(member.uid)" : call.op == .chgrp ? "chgrp\t\(path)\t\(newGroup!)" : "\(call.probe)\t\(path)"
                        let kernel = prober.ask(line)
                        var st = stat()
                        stat(path, &st)
                        let realMode = UInt16(st.st_mode & 0o7777)
                        var w = policy.world
                        let spec =
                            call.op == .chown
                            ? Request(subject: subject, op: .chown, path: path, owner: member.uid)
                            : call.op == .chgrp
                                ? Request(subject: subject, op: .chgrp, path: path, group: newGroup!) : Request(subject: subject, op: call.op, path: path)
                        let out = Mutator.apply(spec, to: &w, semantics: .linux, tracing: false)
                        let simulated = out.decision.allowed ? "OK" : (out.decision.errno?.rawValue ?? "?")
                        let simMode = w[w.lookup(path)!].mode.rawValue & 0o7777
                        compared += 1
                        if realMode != mode { cleared += 1 }
                        if kernel != simulated || realMode != simMode {
                            mismatches.append(
                                "\(call.op.word) by \(role) of a \(String(mode, radix: 8)) file: kernel \(kernel) mode \(String(realMode, radix: 8)), simulator \(simulated) mode \(String(simMode, radix: 8))"
                            )
                        }
                    }
                }
            }
            print(
                "setuid differential test: \(compared) writes, appends, truncations, chowns and chgrps, \(cleared) of which cleared a bit; \(mismatches.count) mismatches"
            )
            #expect(cleared > 20, "only \(cleared) calls cleared a bit")
            #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) differ from the kernel:\n\(mismatches.joined(separator: "\n"))")
        }
    }
#endif
