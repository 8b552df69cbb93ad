#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // The kernel differential test for Linux's fs.protected_* sysctls (docs/semantics.md L12): a
    // fixed tree with sticky world-writable and group-writable directories holding files, FIFOs,
    // a socket and symlinks of different test users, probed as every test user and root with each
    // sysctl on and off. The simulator, given the same values, must give the kernel's answer.
    //
    // The sysctls are host-wide, and other kernel tests may run at the same time: the values are
    // changed only while `/tmp/fspolicy-sysctl.lock` is held exclusively (tests that read them take
    // it shared), only for the probes of one setting, and put back before the lock is released —
    // and again in a `defer`, whatever happens.

    /// The host's sysctls, read and written through /proc/sys/fs.
    enum Sysctl {
        static func read(_ t: LinuxTunable) -> UInt8? {
            guard let s = try? String(contentsOfFile: t.procPath, encoding: .utf8) else { return nil }
            return UInt8(s.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        @discardableResult
        static func write(_ t: LinuxTunable, _ v: UInt8) -> Bool {
            guard let f = fopen(t.procPath, "w") else { return false }
            let ok = fputs("\(v)\n", f) >= 0
            return fclose(f) == 0 && ok
        }

        static func readAll() -> LinuxTunables? {
            var out = LinuxTunables()
            for t in LinuxTunable.allCases {
                guard let v = read(t) else { return nil }
                out[t] = v
            }
            return out
        }

        @discardableResult
        static func writeAll(_ v: LinuxTunables) -> Bool {
            LinuxTunable.allCases.map { write($0, v[$0]) }.allSatisfy { $0 }
        }
    }

    /// `flock` on /tmp/fspolicy-sysctl.lock: exclusive while a test has changed a sysctl, shared
    /// while a test relies on the host's values. The file is shared by every test process and
    /// stays (removing it would let two holders lock two different files).
    final class SysctlLock {
        static let path = "/tmp/fspolicy-sysctl.lock"
        private let fd: Int32

        init(exclusive: Bool) {
            fd = open(SysctlLock.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o666)
            if fd >= 0 { while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR {} }
        }

        func release() {
            if fd >= 0 { flock(fd, LOCK_UN); close(fd) }
        }
    }

    /// Root, and /proc/sys/fs/protected_* can be written (not a read-only /proc/sys): checked by
    /// writing the current values back.
    let sysctlsWritable: Bool = {
        guard isRoot, let now = Sysctl.readAll() else { return false }
        let lock = SysctlLock(exclusive: true)
        defer { lock.release() }
        return Sysctl.writeAll(now)
    }()

    /// Binds a Unix socket at `path` (the socket file stays after the descriptor is closed).
    func makeSocket(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in bytes.enumerated() { buf[i] = b }
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return r == 0
    }

    @Suite("Differential test of fs.protected_* against the Linux kernel", .serialized)
    struct TunableDifferentialTests {
        /// The settings probed: every sysctl at 0, at 1, and regular/fifos at 2, and mixes.
        static let settings: [LinuxTunables] = [
            LinuxTunables(protectedHardlinks: 0, protectedSymlinks: 0, protectedRegular: 0, protectedFifos: 0),
            LinuxTunables(protectedHardlinks: 1, protectedSymlinks: 1, protectedRegular: 1, protectedFifos: 1),
            LinuxTunables(protectedHardlinks: 1, protectedSymlinks: 1, protectedRegular: 2, protectedFifos: 2),
            LinuxTunables(protectedHardlinks: 0, protectedSymlinks: 1, protectedRegular: 0, protectedFifos: 2),
            LinuxTunables(protectedHardlinks: 1, protectedSymlinks: 0, protectedRegular: 2, protectedFifos: 0)
        ]

        @Test(
            "simulator and kernel agree with each fs.protected_* sysctl on and off",
            .enabled(
                if: isRoot, "needs root: it creates test users, changes fs.protected_* sysctls and runs probes as the users (run the suite as root, as CI does)"
            ),
            .enabled(if: sysctlsWritable, "needs a writable /proc/sys/fs (a container may mount /proc/sys read-only)"))
        func agreesWithKernel() throws {
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-tunables-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else {
                Issue.record("the fspolicy-probe binary is missing: run `swift build` first")
                return
            }
            guard let original = Sysctl.readAll() else {
                Issue.record("cannot read /proc/sys/fs/protected_*")
                return
            }
            // Whatever happens below, the host's values come back.
            defer {
                let lock = SysctlLock(exclusive: true)
                Sysctl.writeAll(original)
                lock.release()
            }

            // The tree: u1…u5 are the test users (u1, u2, u5 in group g0).
            let u = accounts.users.map(\.uid)
            let g = accounts.groups.map(\.gid)
            let root = parent + "/t"
            mkdir(root, 0o755)
            func dir(_ name: String, _ mode: mode_t, _ uid: UID, _ gid: GID) -> String {
                let p = root + "/" + name
                mkdir(p, 0o700)
                chown(p, uid, gid)
                chmod(p, mode)
                return p
            }
            let plain = dir("plain", 0o777, 0, 0)
            let dirs = [dir("tmp", 0o1777, 0, 0), dir("tmpu", 0o1777, u[0], g[0]), dir("grp", 0o1775, 0, g[0]), plain]
            func file(_ p: String, _ uid: UID, _ mode: mode_t) {
                close(open(p, O_CREAT | O_WRONLY, 0o600))
                chown(p, uid, uid == 0 ? 0 : g[2])
                chmod(p, mode)
            }
            file(plain + "/target", 0, 0o666)
            var linkSources: [String] = []
            for (name, mode) in [("hl_644", mode_t(0o644)), ("hl_666", 0o666), ("hl_600", 0o600), ("hl_suid", 0o4755)] {
                file(plain + "/" + name, u[0], mode)
                linkSources.append(plain + "/" + name)
            }
            let owners: [(String, UID)] = [("u1", u[0]), ("u2", u[1]), ("root", 0)]
            var files: [String] = [], fifos: [String] = [], links: [String] = [], dangling: [String] = []
            for d in dirs {
                for (n, uid) in owners {
                    file(d + "/f_" + n, uid, 0o666)
                    files.append(d + "/f_" + n)
                    let l = d + "/l_" + n
                    symlink(plain + "/target", l)
                    lchown(l, uid, uid == 0 ? 0 : g[2])
                    links.append(l)
                }
                for (n, uid) in [owners[0], owners[2]] {
                    let p = d + "/p_" + n
                    mkfifo(p, 0o600)
                    chown(p, uid, uid == 0 ? 0 : g[2])
                    chmod(p, 0o666)
                    fifos.append(p)
                }
                let dl = d + "/d_u2"
                symlink(plain + "/made_by_" + (d as NSString).lastPathComponent, dl)
                lchown(dl, u[1], g[1])
                dangling.append(dl)
            }
            let socketPath = dirs[0] + "/s_u1"
            var others: [String] = []
            if makeSocket(socketPath) {
                chown(socketPath, u[0], g[2])
                chmod(socketPath, 0o777)
                others.append(socketPath)
            } else {
                Issue.record("could not bind a Unix socket at \(socketPath)")
            }
            let midLink = dirs[0] + "/ld_u2"
            symlink("../plain", midLink)
            lchown(midLink, u[1], g[1])

            let scanned = TreeScanner.scan(root)
            let base = PolicyLoader.load(text: ScanWriter.yaml(scanned), file: root + ".yaml", host: testHost)
            if base.diagnostics.hasErrors {
                Issue.record("the scan does not load: \(base.diagnostics.sorted.map(\.rendered))")
                return
            }

            struct Who { var uid: UID; var gid: GID; var groups: [GID]; var prober: Prober }
            var subjects: [Who] = []
            for a in accounts.users {
                subjects.append(Who(uid: a.uid, gid: a.gid, groups: a.supplementary, prober: try Prober(probe: probe, uid: a.uid, gid: a.gid)))
            }
            subjects.append(Who(uid: 0, gid: 0, groups: [], prober: try Prober(probe: probe, uid: nil, gid: nil)))

            struct Probe { var line: String; var request: Request; var made: String? }
            var compared = 0
            var disagreements: [String] = []
            var byRule: [String: Int] = [:]
            for (si, setting) in Self.settings.enumerated() {
                var world = base.world
                world.linux = setting
                let auth = Authorizer(world: world, semantics: .linux, tracing: false)
                // Every probe of this setting, for every subject.
                var probes: [(Int, Probe)] = []
                for (wi, who) in subjects.enumerated() {
                    let s = Subject(uid: who.uid, gid: who.gid, groups: who.groups)
                    func add(_ op: String, _ path: String, to: String? = nil, made: String? = nil) {
                        let line = op + "\t" + path + (to.map { "\t" + $0 } ?? "")
                        let o: FSPolicy.Operation = op == "link" ? .link : Operation(word: op)!
                        probes.append((wi, Probe(line: line, request: Request(subject: s, op: o, path: path, to: to), made: made)))
                    }
                    for l in links { add("read", l); add("stat", l); add("creat", l) }
                    add("read", midLink + "/target")
                    for f in files { add("creat", f); add("write", f) }
                    for p in fifos + others { add("creat", p) }
                    for d in dangling {
                        let made = plain + "/made_by_" + ((d as NSString).deletingLastPathComponent as NSString).lastPathComponent
                        add("creat", d, made: made)
                    }
                    for d in dirs {
                        let n = d + "/new_\(si)_\(wi)"
                        add("creat", n, made: n)
                    }
                    for (i, src) in linkSources.enumerated() {
                        let n = plain + "/lnk_\(si)_\(wi)_\(i)"
                        add("link", src, to: n, made: n)
                    }
                }
                // The window: set the values, probe, put the host's values back.
                var kernel: [String] = []
                let lock = SysctlLock(exclusive: true)
                let set = Sysctl.writeAll(setting)
                if set {
                    for (wi, p) in probes {
                        kernel.append(subjects[wi].prober.ask(p.line))
                        if let m = p.made, kernel.last == "OK" { unlink(m) }
                    }
                }
                Sysctl.writeAll(original)
                lock.release()
                guard set else {
                    Issue.record("could not set \(setting) in /proc/sys/fs")
                    break
                }
                for ((_, p), k) in zip(probes, kernel) {
                    let d = auth.decide(p.request)
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    byRule[d.rule.rawValue, default: 0] += 1
                    if k != simulated {
                        let full = Authorizer(world: world, semantics: .linux).decide(p.request)
                        let tr = TextRenderer(policy: base, world: world).trace(full).joined(separator: "\n")
                        disagreements.append(
                            "\(setting): uid \(p.request.subject.uid) \(p.line.replacingOccurrences(of: "\t", with: " ")): kernel \(k), simulator \(simulated) [\(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                }
            }
            subjects = []
            let rules = byRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("tunables differential test: \(compared) probes over \(Self.settings.count) settings (\(rules)); \(disagreements.count) disagreements")
            // Each tunable's rule must have decided some probes, or the test proves nothing.
            for r in [RuleID.linuxProtectedSymlinks, .linuxProtectedRegular, .linuxProtectedFifos, .linuxProtectedHardlinks, .linuxStickyCreateOther] {
                #expect((byRule[r.rawValue] ?? 0) > 0, "no probe was refused by \(r.rawValue)")
            }
            #expect(compared >= 1500, "only \(compared) probes ran")
            let agreed = disagreements.isEmpty
            #expect(agreed, "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(6).joined(separator: "\n\n"))")
        }
    }
#endif
