#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // Fixed cases asked of the kernel and of the simulator, as root and as an ordinary user: mount
    // points (rule O8), sockets opened (O9) and inode flags set on special files (L9). Each tree is
    // built, scanned, and every case is really attempted through fspolicy-probe; the answers must
    // agree. Nothing here may succeed and change the tree, except a rename onto itself.

    /// One request: the probe's line and the simulator's operation.
    struct FixedCase {
        var line: String
        var op: FSPolicy.Operation
        var path: String
        var to: String? = nil
        var flags: FileFlags? = nil
        var mode: UInt16? = nil

        static func delete(_ p: String, dir: Bool) -> FixedCase { FixedCase(line: (dir ? "rmdir" : "unlink") + "\t" + p, op: .delete, path: p) }
        static func rename(_ a: String, _ b: String) -> FixedCase { FixedCase(line: "rename\t\(a)\t\(b)", op: .rename, path: a, to: b) }
        static func plain(_ word: String, _ p: String) -> FixedCase { FixedCase(line: "\(word)\t\(p)", op: FSPolicy.Operation(word: word)!, path: p) }
        static func chmod(_ p: String, _ m: UInt16) -> FixedCase {
            FixedCase(line: "chmod\t\(p)\t\(String(m, radix: 8))", op: .chmod, path: p, mode: m)
        }
        /// FS_IOC_SETFLAGS with nodump set or cleared (the probe keeps the other flags).
        static func chflags(_ p: String, nodump: Bool) -> FixedCase {
            FixedCase(line: "chflags\t\(p)\t\(nodump ? "40" : "0")", op: .chflags, path: p, flags: nodump ? .userNoDump : [])
        }
    }

    /// A scratch directory for one test, with the probe copied where the test users can run it, the
    /// test accounts, and what to undo: mounts (unmounted first, in reverse) and the directory.
    final class KernelScratch {
        let dir: String
        let accounts: TestAccounts
        let probe: String
        private(set) var mounts: [String] = []

        init(_ name: String) throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-\(name)-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            chmod(dir, 0o755)
            do {
                accounts = try TestAccounts()
                guard let p = try copyProbe(into: dir) else { throw SetupError("the fspolicy-probe binary is missing: run `swift build` first") }
                probe = p
            } catch {
                try? FileManager.default.removeItem(atPath: dir)
                throw error
            }
        }

        /// `mount args… target`, remembered for `remove`.
        func mount(_ args: [String], at target: String) -> Bool {
            guard sh(["mount"] + args + [target]).0 == 0 else { return false }
            mounts.append(target)
            return true
        }

        func remove() {
            for m in mounts.reversed() { sh(["umount", m]) }
            mounts = []
            accounts.remove()
            try? FileManager.default.removeItem(atPath: dir)
        }

        deinit { remove() }

        /// Asks every case of `cases` of the kernel, as root and as the first test user, and of the
        /// simulator on the scan of `root`; returns the disagreements and the number compared.
        /// `alsoUnder` rule sets must give the kernel's verdict too (allowed or not), on the same
        /// scanned world (a Linux world judged by the macOS rule sets).
        func compare(scanning root: String, _ cases: [FixedCase], alsoUnder: [Semantics] = []) throws -> (compared: Int, disagreements: [String]) {
            let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(root)), file: root + ".yaml", host: testHost)
            if policy.diagnostics.hasErrors { return (0, ["the scan does not load: \(policy.diagnostics.sorted.map(\.rendered))"]) }
            let user = accounts.users[0]
            let who: [(Subject, Prober)] = [
                (Subject(uid: 0, gid: 0, groups: []), try Prober(probe: probe, uid: nil, gid: nil)),
                (Subject(uid: user.uid, gid: user.gid, groups: user.supplementary), try Prober(probe: probe, uid: user.uid, gid: user.gid))
            ]
            let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)
            var out: [String] = []
            var compared = 0
            for (subject, prober) in who {
                for c in cases {
                    let kernel = prober.ask(c.line)
                    let request = Request(subject: subject, op: c.op, path: c.path, to: c.to, mode: c.mode.map(FileMode.init), flags: c.flags)
                    let d = auth.decide(request)
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    if kernel != simulated {
                        let tr = TextRenderer(policy: policy).trace(Authorizer(world: policy.world, semantics: .linux).decide(request)).joined(separator: "\n")
                        out.append(
                            "uid \(subject.uid) \(c.line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                    for sem in alsoUnder {
                        // The credential the commands build from the scanned accounts (`--as`).
                        var asCommands = request
                        asCommands.subject = policy.world.subject(uid: subject.uid)
                        let other = Authorizer(world: policy.world, semantics: sem, tracing: false).decide(asCommands)
                        if other.allowed != (kernel == "OK") {
                            out.append(
                                "uid \(subject.uid) \(c.line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), \(sem.rawValue) \(other.allowed ? "allows" : "denies") [\(other.rule.rawValue)]"
                            )
                        }
                    }
                }
            }
            return (compared, out)
        }
    }

    @Suite("Fixed kernel cases: mount points, sockets, special files", .serialized)
    struct FixedCaseDifferentialTests {
        @Test(
            "O8: removing and renaming mount points: the kernel's EBUSY and its place among the permission checks",
            .enabled(if: isRoot, "needs root: it mounts tmpfs file systems and runs the probe as a test user"),
            .enabled(if: mountsPermitted, "mount(2) is not permitted here (no CAP_SYS_ADMIN, e.g. a locked-down container)"))
        func mountPoints() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("busy")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let t = s.dir + "/t"
            // w: everyone writes; nw: only root; s: sticky. Each covered directory has the mode and
            // owner of the file system mounted on it (the scan sees only the mounted one).
            for (d, m) in [
                ("", 0o755), ("/w", 0o777), ("/w2", 0o777), ("/nw", 0o755), ("/s", 0o1777),
                ("/w/m", 0o777), ("/w/m2", 0o777), ("/nw/m", 0o777), ("/s/m", 0o777)
            ] as [(String, mode_t)] {
                mkdir(t + d, m)
                chmod(t + d, m)
            }
            mkdir(t + "/w/d", 0o777)
            chown(t + "/w/d", user.uid, user.gid)
            for f in ["/w/f", "/w/fm", "/src"] { close(open(t + f, O_CREAT | O_WRONLY, 0o666)); chmod(t + f, 0o666) }
            chown(t + "/w/f", user.uid, user.gid)
            for m in ["/w/m", "/w/m2", "/nw/m", "/s/m"] {
                try #require(s.mount(["-t", "tmpfs", "-o", "size=64k,mode=0777", "fspolicy-busy"], at: t + m), "mount tmpfs on \(m)")
            }
            try #require(s.mount(["--bind", t + "/src"], at: t + "/w/fm"), "bind a file on /w/fm")
            close(open(t + "/w/m/inner", O_CREAT | O_WRONLY, 0o644))
            let cases: [FixedCase] = [
                .delete(t + "/w/m", dir: true), .delete(t + "/w/m2", dir: true), .delete(t + "/nw/m", dir: true),
                .delete(t + "/s/m", dir: true), .delete(t + "/w/fm", dir: false),
                .rename(t + "/w/m", t + "/w/x"), .rename(t + "/w/m", t + "/w2/x"), .rename(t + "/nw/m", t + "/w/x"),
                .rename(t + "/s/m", t + "/s/x"), .rename(t + "/w/d", t + "/w/m2"), .rename(t + "/w/f", t + "/w/m"),
                .rename(t + "/w/f", t + "/w/fm"), .rename(t + "/w/m", t + "/w/m"), .rename(t + "/w/m", t + "/w/m/x"),
                .rename(t + "/w/m2", t + "/w/m")
            ]
            let (compared, disagreements) = try s.compare(scanning: t, cases)
            print("mount-point differential test: \(compared) probes; \(disagreements.count) disagreements")
            #expect(compared == 2 * cases.count)
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }

        @Test(
            "O9: opening sockets of every mode: ENXIO after the permission check; stat, chmod and FIFOs as before",
            .enabled(if: isRoot, "needs root: it creates a test user, gives it a socket and runs the probe as that user"))
        func sockets() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("sock")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let t = s.dir + "/t"
            mkdir(t, 0o755)
            chmod(t, 0o755)
            let nodes: [(String, mode_t, mode_t, UID, GID)] = [
                ("s0", S_IFSOCK, 0o000, 0, 0), ("s7", S_IFSOCK, 0o777, 0, 0), ("s6", S_IFSOCK, 0o666, 0, 0),
                ("s_u", S_IFSOCK, 0o600, user.uid, user.gid), ("p6", S_IFIFO, 0o666, 0, 0), ("p0", S_IFIFO, 0o000, 0, 0)
            ]
            for (name, type, mode, uid, gid) in nodes {
                try #require(mknod(t + "/" + name, type | mode, 0) == 0, "mknod \(name)")
                chmod(t + "/" + name, mode)
                chown(t + "/" + name, uid, gid)
            }
            var cases: [FixedCase] = []
            for name in ["s0", "s7", "s6", "s_u"] {
                for op in ["read", "write", "readwrite", "append", "truncate", "creat", "stat", "execute"] { cases.append(.plain(op, t + "/" + name)) }
            }
            cases += [.chmod(t + "/s7", 0o777), .chmod(t + "/s_u", 0o600)]
            for name in ["p6", "p0"] { for op in ["read", "write", "creat"] { cases.append(.plain(op, t + "/" + name)) } }
            let (compared, disagreements) = try s.compare(scanning: t, cases)
            print("socket differential test: \(compared) probes; \(disagreements.count) disagreements")
            #expect(compared == 2 * cases.count)
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }

        @Test(
            "L9: chattr (FS_IOC_SETFLAGS) on FIFOs, device nodes and sockets: ENOTTY after the open and EROFS, before the owner check",
            .enabled(if: isRoot, "needs root: it makes device nodes, gives nodes to a test user and runs the probe as that user"))
        func specialFileFlags() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("chattr")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let t = s.dir + "/t"
            mkdir(t, 0o755)
            chmod(t, 0o755)
            let nullDevice: dev_t = 1 << 8 | 3  // makedev(1, 3): a /dev/null-like character device
            var nodes: [(String, mode_t, mode_t, UID, GID)] = [
                ("p_root", S_IFIFO, 0o666, 0, 0), ("p_u", S_IFIFO, 0o666, user.uid, user.gid), ("p0_u", S_IFIFO, 0o000, user.uid, user.gid),
                ("c_root", S_IFCHR, 0o666, 0, 0), ("c_u", S_IFCHR, 0o666, user.uid, user.gid), ("c0_u", S_IFCHR, 0o000, user.uid, user.gid),
                ("s_u", S_IFSOCK, 0o666, user.uid, user.gid), ("s0", S_IFSOCK, 0o000, 0, 0),
                ("f_u", S_IFREG, 0o666, user.uid, user.gid), ("f_root", S_IFREG, 0o666, 0, 0)
            ]
            // On a read-only tmpfs too, where mounting is permitted: EROFS comes first.
            if mountsPermitted {
                mkdir(t + "/ro", 0o755)
                try #require(s.mount(["-t", "tmpfs", "-o", "size=64k,mode=0755", "fspolicy-chattr"], at: t + "/ro"), "mount tmpfs on ro")
                nodes += [("ro/p_u", S_IFIFO, 0o666, user.uid, user.gid), ("ro/c_root", S_IFCHR, 0o666, 0, 0), ("ro/f_u", S_IFREG, 0o666, user.uid, user.gid)]
            }
            for (name, type, mode, uid, gid) in nodes {
                try #require(mknod(t + "/" + name, type | mode, type == S_IFCHR ? nullDevice : 0) == 0, "mknod \(name)")
                chmod(t + "/" + name, mode)
                chown(t + "/" + name, uid, gid)
            }
            if mountsPermitted { try #require(sh(["mount", "-o", "remount,ro", t + "/ro"]).0 == 0, "remount ro read-only") }
            // Set nodump, then clear it (a regular file that took it gives it back).
            let cases = nodes.flatMap { n in [FixedCase.chflags(t + "/" + n.0, nodump: true), .chflags(t + "/" + n.0, nodump: false)] }
            let (compared, disagreements) = try s.compare(scanning: t, cases)
            print("special-file chattr differential test: \(compared) probes; \(disagreements.count) disagreements")
            #expect(compared == 2 * cases.count)
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }

        @Test(
            "gid 12 (man on Debian) is an ordinary group: the kernel, linux, and macos and guide on the scan agree",
            .enabled(if: isRoot, "needs root: it gives files to gid 12 and runs the probe as a test user"),
            .enabled(if: groupExists(gid: 12), "the host has no group with gid 12"))
        func gidTwelve() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("gid12")
            defer { s.remove() }
            let t = s.dir + "/t"
            mkdir(t, 0o755)
            chmod(t, 0o755)
            // Files of gid 12 that only its members (and root) may read or write, a directory only
            // they may enter, and one the others may read for comparison.
            for (name, mode) in [("f660", 0o660), ("f640", 0o640), ("f604", 0o604)] as [(String, mode_t)] {
                close(open(t + "/" + name, O_CREAT | O_WRONLY, 0o600))
                chmod(t + "/" + name, mode)
                chown(t + "/" + name, 0, 12)
            }
            mkdir(t + "/d770", 0o770)
            chmod(t + "/d770", 0o770)
            chown(t + "/d770", 0, 12)
            close(open(t + "/d770/f", O_CREAT | O_WRONLY, 0o644))
            var cases: [FixedCase] = []
            for f in ["f660", "f640", "f604", "d770/f"] { for op in ["read", "write"] { cases.append(.plain(op, t + "/" + f)) } }
            cases += [.plain("list", t + "/d770"), .plain("search", t + "/d770")]
            let (compared, disagreements) = try s.compare(scanning: t, cases, alsoUnder: [.macos, .guide])
            print("gid-12 differential test: \(compared) probes; \(disagreements.count) disagreements")
            #expect(compared == 2 * cases.count)
            #expect(disagreements.isEmpty, "\(disagreements.count) disagreements with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif
