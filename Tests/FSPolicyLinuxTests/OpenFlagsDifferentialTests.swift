#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // `open` with its flags (docs/semantics.md O21–O24) against the kernel: random flag sets on
    // random nodes — files, directories, symlinks to files and directories and dangling ones,
    // FIFOs, sockets, missing names, names with a trailing slash — as root and as test users,
    // by a real open(2) in the probe and by the `linux` rule set.

    @Suite("open(2) flags against the Linux kernel", .serialized)
    struct OpenFlagsDifferentialTests {
        /// A random flag set, as the format writes it (`O_WRONLY|O_CREAT`).
        static func randomFlags(_ rng: inout Rand) -> (words: String, flags: OpenFlags) {
            var f: OpenFlags = rng.pick([[], .wronly, .rdwr])
            for x: OpenFlags in [.creat, .excl, .trunc, .append, .directory, .nofollow] where rng.chance(1, 4) { f.insert(x) }
            if rng.chance(1, 10) { f.insert(.path) }
            return (f.words.joined(separator: "|"), f)
        }

        @Test(
            "open with random flags agrees with the kernel on at least 3,000 probes, as root and as users",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them (run the suite as root, as CI does)"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func openFlagsAgree() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            // Short: a socket's path must fit in sun_path (108 bytes).
            let parent = "/tmp/fso-" + String(UUID().uuidString.prefix(8))
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
            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_OPEN_PROBES"] ?? "") ?? 3200
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 4621)
            var compared = 0, rounds = 0, asRoot = 0
            var byAnswer: [String: Int] = [:]
            var byKind: [String: Int] = [:]
            var disagreements: [String] = []
            let owners = accounts.users.map(\.uid) + [0]
            let groups = accounts.groups.map(\.gid) + [0]
            while compared < target && rounds < 60 {
                rounds += 1
                let root = parent + "/t\(rounds)"
                mkdir(root, 0o755)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let allDirs = [root] + tree.dirs
                let rootProber = try Prober(probe: probe, uid: nil, gid: nil)
                // Nodes of other kinds, owned and moded at random.
                var special: [String] = []
                var kinds: [String: String] = [:]
                for i in 0..<6 {
                    let dir = rng.pick(allDirs)
                    let p = dir + "/x\(i)"
                    switch i % 3 {
                    case 0: _ = rootProber.ask("mkfifo\t\(p)\t666"); kinds[p] = "fifo"
                    case 1: _ = rootProber.ask("socket\t\(p)"); kinds[p] = "socket"
                    default:
                        // A symlink to a directory, or a dangling one whose target O_CREAT may make.
                        if rng.chance(1, 2) {
                            symlink(rng.pick(allDirs), p); kinds[p] = "dirlink"
                        } else {
                            symlink(rng.pick(allDirs) + "/ghost\(i)", p); kinds[p] = "dangling"
                        }
                        lchown(p, rng.pick(owners), rng.pick(groups))
                        special.append(p)
                        continue
                    }
                    chown(p, rng.pick(owners), rng.pick(groups))
                    chmod(p, rng.pick([0o666, 0o644, 0o600, 0o000, 0o606, 0o660, 0o777]))
                    special.append(p)
                }
                let scanned = TreeScanner.scan(root)
                let yaml = ScanWriter.yaml(scanned)
                let policy = PolicyLoader.load(text: yaml, file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors {
                    Issue.record("the scan of round \(rounds) does not load: \(policy.diagnostics.sorted.map(\.rendered))")
                    break
                }
                let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)
                struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
                var subjects = try accounts.users.map {
                    Who(uid: $0.uid, gid: $0.gid, groups: $0.supplementary, prober: try Prober(probe: probe, uid: $0.uid, gid: $0.gid))
                }
                subjects.append(Who(uid: 0, gid: 0, groups: [], prober: rootProber))
                let existing = tree.files + tree.dirs + tree.links + special
                var dirty = false
                var n = 0
                while n < 200 && !dirty && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    var path = rng.pick(existing)
                    if rng.chance(1, 5) { path = rng.pick(allDirs) + "/new\(n)" }
                    if rng.chance(1, 10) { path += "/" }
                    let (words, flags) = Self.randomFlags(&rng)
                    var spec = Request(subject: Subject(uid: who.uid, gid: who.gid, groups: who.groups), op: .open, path: path)
                    spec.openFlags = flags
                    // What a successful open may change: a new name, a dangling link's target, a
                    // truncated file's setuid and setgid bits.
                    var before = stat()
                    let existedBefore = lstat(path, &before) == 0
                    var followed = stat()
                    let targetBefore = stat(path, &followed) == 0
                    let kernel = who.prober.ask("open\t\(path)\t\(words)")
                    let d = auth.decide(spec)
                    let simulated = d.allowed ? "OK" : d.unknown ? "unknown" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    if who.uid == 0 { asRoot += 1 }
                    byAnswer[kernel, default: 0] += 1
                    byKind[
                        kinds[path]
                            ?? (existedBefore
                                ? ((before.st_mode & S_IFMT) == S_IFDIR ? "dir" : (before.st_mode & S_IFMT) == S_IFLNK ? "link" : "file") : "missing"),
                        default: 0] += 1
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append(
                            "round \(rounds) probe \(n): uid \(who.uid) open \(path) \(words): kernel \(kernel), simulator \(simulated) [\(d.layer.rawValue) \(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                    guard kernel == "OK", !flags.contains(.path) else { continue }
                    // Put the world back, or end the round when it cannot be.
                    var now = stat()
                    if flags.contains(.creat) && !existedBefore && lstat(path, &now) == 0 {
                        if unlink(path) != 0 { dirty = true }
                    } else if flags.contains(.creat) && existedBefore && !targetBefore && stat(path, &now) == 0 {
                        // A dangling symlink followed: its target was made.
                        var buf = [CChar](repeating: 0, count: 4096)
                        let len = readlink(path, &buf, buf.count - 1)
                        let made = len > 0 ? String(decoding: buf[0..<len].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
                        if made.isEmpty || unlink(made) != 0 { dirty = true }
                    } else if flags.contains(.trunc) && targetBefore && stat(path, &now) == 0 && now.st_mode != followed.st_mode {
                        chmod(path, followed.st_mode & 0o7777)
                    }
                }
                subjects = []
            }
            let answers = byAnswer.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let kinds = byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "open flags differential test: \(compared) probes (\(asRoot) as root) in \(rounds) random trees; kernel answers: \(answers); nodes: \(kinds); \(disagreements.count) disagreements"
            )
            #expect(compared >= 3000, "only \(compared) probes ran")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(6).joined(separator: "\n\n"))")
        }
    }
#endif
