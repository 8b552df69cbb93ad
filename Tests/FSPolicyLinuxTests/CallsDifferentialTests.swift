#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // chown and lchown with -1 for either id (rule O27), lchmod (O25) and utimensat with
    // UTIME_NOW and UTIME_OMIT per time (O26), against the kernel: random trees (with setuid and
    // setgid files, immutable and append-only inodes, symlinks), random callers (the test users
    // and root), each call made by the probe and decided by the linux rule set; for a call the
    // kernel allowed, the owner, group and mode it left are compared with the simulated step's.

    @Suite("chown with -1, lchmod and utimensat per time against the Linux kernel", .serialized)
    struct CallsDifferentialTests {
        /// owner, group and mode of the node at `path` (`lstat` when `follow` is false); a
        /// symlink's mode is never looked at by Linux, and a scan does not record it.
        static func realState(_ path: String, follow: Bool) -> String {
            var st = stat()
            guard (follow ? stat(path, &st) : lstat(path, &st)) == 0 else { return "missing" }
            let mode = (st.st_mode & S_IFMT) == S_IFLNK ? "link" : String(st.st_mode & 0o7777, radix: 8)
            return "owner \(st.st_uid) group \(st.st_gid) mode \(mode)"
        }

        static func simulatedState(_ w: World, _ path: String, follow: Bool) -> String {
            guard let n = w.resolveUnchecked(path, followTrailing: follow).node else { return "missing" }
            let x = w[n]
            let mode = x.type == .symlink ? "link" : String(x.mode.rawValue & 0o7777, radix: 8)
            return "owner \(x.uid) group \(x.gid) mode \(mode)"
        }

        @Test(
            "chown and lchown with -1, lchmod and settimes with now and omit agree with the kernel as root and as users",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func callsAgree() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = "/tmp/fsc-" + String(UUID().uuidString.prefix(8))
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try NodeKindDifferentialTests.installProbe(in: parent) else {
                Issue.record("the fspolicy-probe binary is missing: run `swift build` first")
                return
            }
            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_CALL_PROBES"] ?? "") ?? 2400
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 4612)
            var compared = 0, states = 0, rounds = 0
            var byOp: [String: Int] = [:]
            var byAnswer: [String: Int] = [:]
            var disagreements: [String] = []
            let setIDModes: [mode_t] = [0o4755, 0o2755, 0o2745, 0o6775, 0o4644, 0o2644, 0o6755, 0o2705]
            let times = ["set", "now", "omit"]
            while compared < target && rounds < 40 {
                rounds += 1
                let root = parent + "/t\(rounds)"
                mkdir(root, 0o755)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                // Setuid and setgid files, which a chown clears (an immutable one keeps its mode).
                for f in tree.files where rng.chance(1, 3) { chmod(f, rng.pick(setIDModes)) }
                func load() -> Policy? {
                    let p = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(root)), file: root + ".yaml", host: testHost)
                    if p.diagnostics.hasErrors {
                        Issue.record("the scan of round \(rounds) does not load: \(p.diagnostics.sorted.map(\.rendered))")
                        return nil
                    }
                    return p
                }
                guard var policy = load() else { break }
                struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
                var subjects = try accounts.users.map {
                    Who(uid: $0.uid, gid: $0.gid, groups: $0.supplementary, prober: try Prober(probe: probe, uid: $0.uid, gid: $0.gid))
                }
                subjects.append(Who(uid: 0, gid: 0, groups: [], prober: try Prober(probe: probe, uid: nil, gid: nil)))
                let existing = tree.files + tree.dirs + tree.links
                let allDirs = [root] + tree.dirs
                var n = 0
                while n < 160 && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    let op = rng.pick(["chown", "lchown", "lchmod", "settimes"])
                    var path = rng.pick(existing)
                    if rng.chance(1, 12) { path = rng.pick(allDirs) + "/missing\(n)" }
                    if rng.chance(1, 20) { path = rng.pick(tree.files) + "/below" }
                    let subject = Subject(uid: who.uid, gid: who.gid, groups: who.groups)
                    var spec = Request(subject: subject, op: Operation(word: op)!, path: path)
                    var line = "\(op)\t\(path)\t"
                    switch op {
                    case "chown", "lchown":
                        var st = stat()
                        let current = lstat(path, &st) == 0 ? (st.st_uid, st.st_gid) : (0, 0)
                        let owners: [UID?] = [nil, nil, who.uid, current.0, rng.pick(accounts.users).uid, 0]
                        let groups: [GID?] = [nil, nil, who.gid, current.1, rng.pick(accounts.groups).gid] + who.groups.map { Optional($0) }
                        let u = rng.pick(owners), g = rng.pick(groups)
                        spec.owner = u
                        spec.group = g
                        line += (u.map { String($0) } ?? "-1") + ":" + (g.map { String($0) } ?? "-1")
                    case "lchmod":
                        let m = rng.pick([0o600, 0o644, 0o755, 0o2755, 0o4755, 0o000, 0o1777] as [UInt16])
                        spec.mode = FileMode(m)
                        line += String(m, radix: 8)
                    default:
                        let a = rng.pick(times), m = rng.pick(times)
                        spec.atime = TimeChange(word: a)!
                        spec.mtime = TimeChange(word: m)!
                        line += "\(a),\(m)"
                    }
                    let kernel = who.prober.ask(line)
                    var w = policy.world
                    let out = Mutator.apply(spec, to: &w, semantics: .linux, tracing: false)
                    let simulated = out.decision.allowed ? "OK" : (out.decision.errno?.rawValue ?? "?")
                    compared += 1
                    byOp[op, default: 0] += 1
                    byAnswer[kernel, default: 0] += 1
                    let what = "round \(rounds) uid \(who.uid): \(line.replacingOccurrences(of: "\t", with: " "))"
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append("\(what): kernel \(kernel), simulator \(simulated) [\(out.decision.rule.rawValue)]\n\(tr)")
                    }
                    guard kernel == "OK", op != "settimes" else { continue }
                    // What the call left, then the tree as it now is.
                    let follow = op == "chown"
                    let real = Self.realState(path, follow: follow)
                    let sim = Self.simulatedState(w, path, follow: follow)
                    states += 1
                    if real != sim { disagreements.append("\(what): the node after the call\n  kernel    \(real)\n  simulator \(sim)") }
                    guard let again = load() else { return }
                    policy = again
                }
                subjects = []
            }
            let ops = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let answers = byAnswer.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "calls differential test: \(compared) probes in \(rounds) random trees (\(ops); answers \(answers)), \(states) resulting nodes compared; \(disagreements.count) disagreements"
            )
            #expect(compared >= 2000, "only \(compared) probes ran")
            #expect(states >= 200, "only \(states) nodes were compared")
            #expect(
                disagreements.isEmpty, "\(disagreements.count) of \(compared) disagree with the kernel:\n\(disagreements.prefix(6).joined(separator: "\n\n"))")
        }
    }
#endif
