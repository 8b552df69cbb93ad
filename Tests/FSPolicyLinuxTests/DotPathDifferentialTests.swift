#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // `.` and `..` in request paths (rule O12) and the refusals of a last `.` or `..` (O11, O13),
    // asked of the kernel and of the simulator on the scan of one tree, as root and as an ordinary
    // user. The paths are drawn at random (a fixed seed) from the tree's names, `.`, `..` and
    // symlinks to directories elsewhere in the tree, so `..` is often taken after a symlink. The
    // calls that could change the tree are asked only of paths whose last component is `.` or
    // `..`, which the kernel always refuses.

    /// A small deterministic generator (64-bit LCG, the high bits), so a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state ^ (state >> 29)
        }
    }

    @Suite("Kernel: `.` and `..` in paths", .serialized)
    struct DotPathDifferentialTests {
        @Test(
            "O11, O12, O13: random paths with `.`, `..` and symlinks, as root and as a user: the kernel's answers",
            .enabled(if: isRoot, "needs root: it creates a test user and runs the probe as that user"))
        func randomDotPaths() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("dots")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let t = s.dir + "/t"
            // w: everyone writes; nw: only root; n0: only root enters; n1: the user's; lk and up:
            // symlinks to directories elsewhere (relative and absolute), f a file, dl a symlink to it.
            for (d, m, mine) in [
                ("", 0o755, false), ("/w", 0o777, false), ("/nw", 0o755, false), ("/w/n1", 0o755, true),
                ("/w/n0", 0o700, false), ("/nw/n1", 0o777, false), ("/nw/n1/deep", 0o711, true),
                ("/s", 0o1777, false), ("/s/n1", 0o755, true)
            ] as [(String, mode_t, Bool)] {
                mkdir(t + d, m)
                chmod(t + d, m)
                if mine { chown(t + d, user.uid, user.gid) }
            }
            for f in ["/w/f", "/nw/n1/f", "/w/n0/f"] { close(open(t + f, O_CREAT | O_WRONLY, 0o644)) }
            symlink("../nw/n1/deep", t + "/w/lk")
            symlink(t + "/w/n1", t + "/nw/up")
            symlink("../../w/n0", t + "/nw/n1/lk0")
            symlink("f", t + "/w/dl")
            let names = ["w", "nw", "n1", "n0", "deep", "s", "lk", "up", "lk0", "f", "dl", ".", "..", "..", "."]
            var rng = SeededGenerator(state: 46)
            // Mostly walks over what is there (the entries of the directory reached so far, `.`
            // and `..`), some names at random.
            func entries(_ dir: String) -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            }
            var paths: Set<String> = []
            while paths.count < 500 {
                let n = Int.random(in: 1...6, using: &rng)
                var comps: [String] = []
                for _ in 0..<n {
                    let here = t + "/" + comps.joined(separator: "/")
                    let there = entries(here)
                    let c =
                        Int.random(in: 0..<10, using: &rng) < 2 || there.isEmpty
                        ? names.randomElement(using: &rng)! : (there + [".", ".."]).randomElement(using: &rng)!
                    comps.append(c)
                }
                paths.insert(t + "/" + comps.joined(separator: "/"))
            }
            var cases: [FixedCase] = []
            for p in paths.sorted() {
                for op in ["read", "stat", "lstat", "list", "search"] { cases.append(.plain(op, p)) }
                if p.hasSuffix("/.") || p.hasSuffix("/..") {
                    cases.append(.rename(p, t + "/w/new"))
                    cases.append(.rename(t + "/w/f", p))
                    cases.append(.delete(p, dir: true))
                    cases.append(FixedCase(line: "mkdir\t\(p)", op: .mkdir, path: p))
                    cases.append(FixedCase(line: "link\t\(t)/w/f\t\(p)", op: .link, path: t + "/w/f", to: p))
                }
            }
            // Fixed cases: `..` of `/`, of the scratch root, rename of `/.` and `/..`.
            cases += [
                .plain("stat", "/../../" + t), .rename(t + "/w/n1/.", t + "/nw/x"), .rename(t + "/w/n1/..", t + "/s/x"),
                .rename(t + "/w/missing", t + "/w/n1/.."), .delete(t + "/w/lk/..", dir: true), .delete(t + "/s/n1/.", dir: true)
            ]
            let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(t)), file: t + ".yaml", host: testHost)
            try #require(!policy.diagnostics.hasErrors, "the scan loads: \(policy.diagnostics.sorted.map(\.rendered))")
            let who: [(Subject, Prober)] = [
                (Subject(uid: 0, gid: 0, groups: []), try Prober(probe: s.probe, uid: nil, gid: nil)),
                (Subject(uid: user.uid, gid: user.gid, groups: user.supplementary), try Prober(probe: s.probe, uid: user.uid, gid: user.gid))
            ]
            let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)
            var compared = 0, unknown = 0, dotted = 0
            var disagreements: [String] = []
            var byErrno: [String: Int] = [:]
            for (subject, prober) in who {
                for c in cases {
                    let kernel = prober.ask(c.line)
                    let request = Request(subject: subject, op: c.op, path: c.path, to: c.to)
                    let d = auth.decide(request)
                    // Above the scanned tree only the way down was read: a name met there is unknown.
                    if d.unknown { unknown += 1; continue }
                    compared += 1
                    if c.path.contains("/..") || c.path.contains("/./") || c.path.hasSuffix("/.") { dotted += 1 }
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    byErrno[kernel, default: 0] += 1
                    if kernel != simulated {
                        let tr = TextRenderer(policy: policy).trace(Authorizer(world: policy.world, semantics: .linux).decide(request)).joined(separator: "\n")
                        disagreements.append(
                            "uid \(subject.uid) \(c.line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                }
            }
            let answers = byErrno.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "dot-path differential test: \(compared) probes (\(dotted) through `.` or `..`), \(unknown) unknown above the tree; kernel answers: \(answers); \(disagreements.count) disagreements"
            )
            #expect(compared > cases.count, "most probes stay in the scanned tree")
            #expect((byErrno["EBUSY"] ?? 0) > 0 && (byErrno["ENOTEMPTY"] ?? 0) > 0 && (byErrno["OK"] ?? 0) > 0)
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
            // Nothing was created or removed.
            #expect(access(t + "/w/new", F_OK) != 0 && access(t + "/w/n1", F_OK) == 0 && access(t + "/w/f", F_OK) == 0)
        }
    }
#endif
