#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // The capability differential test: processes holding random sets of the capabilities the file
    // rules consult (test users with ambient capabilities, root with a reduced bounding set), each a
    // real probe started by `setpriv`, asked the same questions as the simulator on random trees.

    /// The capabilities drawn from, with the names `setpriv` takes.
    private let drawn: [(Capabilities, String)] = [
        (.dacReadSearch, "dac_read_search"), (.dacOverride, "dac_override"), (.fowner, "fowner"),
        (.chown, "chown"), (.linuxImmutable, "linux_immutable"), (.fsetid, "fsetid"), (.mknod, "mknod")
    ]

    /// `setpriv` options that leave a process exactly `caps` after it executes the probe: for a
    /// user, as inheritable and ambient capabilities (kept across execve); for root, as the bounding
    /// set (root's execve raises the bounding set, with no inheritable set to add).
    func setprivCapabilityOptions(_ caps: Capabilities, root: Bool) -> [String] {
        let names = drawn.filter { caps.contains($0.0) }.map(\.1)
        let plus = names.map { "+" + $0 }.joined(separator: ",")
        let bounding = "--bounding-set=-all" + (plus.isEmpty ? "" : "," + plus)
        if root { return [bounding, "--inh-caps=-all"] }
        if names.isEmpty { return [bounding, "--inh-caps=-all"] }
        return ["--inh-caps=-all," + plus, "--ambient-caps=" + plus, bounding]
    }

    /// The effective set of the process `setpriv` starts with `options` (its /proc status).
    func effectiveCapabilities(_ options: [String], uid: UID?, gid: GID?) -> Capabilities? {
        var args = ["setpriv"]
        if let u = uid, let g = gid { args += ["--reuid=\(u)", "--regid=\(g)", "--init-groups"] }
        args += options + ["grep", "^CapEff:", "/proc/self/status"]
        let (st, out) = sh(args)
        guard st == 0, let hex = out.split(separator: "\t").last?.split(separator: "\n").first else { return nil }
        return UInt64(hex, radix: 16).map { Capabilities(rawValue: $0) }
    }

    @Suite("Capabilities against the Linux kernel", .serialized)
    struct CapabilityDifferentialTests {
        @Test(
            "processes with random capability sets: simulator and kernel agree on at least 1,500 random probes",
            .enabled(if: isRoot, "needs root: it creates test users and groups and starts probes with capabilities through setpriv"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func agreesWithKernel() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
                Issue.record("setpriv (util-linux) is missing: scripts/setup installs it")
                return
            }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-capdiff-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }

            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_CAP_PROBES"] ?? "") ?? 1800
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261129)
            var compared = 0
            var rounds = 0
            var disagreements: [String] = []
            var byOp: [String: Int] = [:]
            var byCap: [String: Int] = [:]
            var rootProbes = 0, userProbes = 0, capAllowed = 0
            while compared < target && rounds < 40 {
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
                    Issue.record("the scan of round \(rounds) does not load: \(policy.diagnostics.sorted.map(\.rendered))")
                    break
                }
                let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)

                // Eight processes: five test users and three roots, each with a random set.
                struct Who { var subject: Subject; var prober: Prober; var text: String }
                var subjects: [Who] = []
                for i in 0..<8 {
                    var caps: Capabilities = []
                    for (c, _) in drawn where rng.chance(1, 3) { caps.insert(c) }
                    let isRootProcess = i >= 5
                    let a = isRootProcess ? nil : accounts.users[i]
                    let options = setprivCapabilityOptions(caps, root: isRootProcess)
                    // The kernel's own account of the set, so that the question is the one asked.
                    guard let eff = effectiveCapabilities(options, uid: a?.uid, gid: a?.gid), eff == caps else {
                        Issue.record("setpriv \(options) did not leave \(caps.lowerNames) effective")
                        return
                    }
                    let subject =
                        a.map { Subject(uid: $0.uid, gid: $0.gid, groups: $0.supplementary, caps: caps) }
                        ?? Subject(uid: 0, gid: 0, groups: [], caps: caps)
                    let prober = try Prober(probe: probe, uid: a?.uid, gid: a?.gid, setpriv: options)
                    subjects.append(Who(subject: subject, prober: prober, text: "uid \(subject.uid) caps [\(caps.lowerNames.joined(separator: ","))]"))
                }

                let existing = tree.files + tree.dirs + tree.links
                let allDirs = [root] + tree.dirs
                var dirty = false
                var n = 0
                while n < 160 && !dirty && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    let subject = who.subject
                    let ops = [
                        "read", "write", "readwrite", "execute", "list", "search", "create", "mkdir", "delete", "rename", "link",
                        "chmod", "chown", "chgrp", "touch", "settimes", "writeextattr", "chflags", "mknod"
                    ]
                    let op = rng.pick(ops)
                    var path = rng.pick(existing)
                    var to = ""
                    var line: String
                    var spec: Request
                    switch op {
                    case "mknod":
                        // CAP_MKNOD (O18): a character or a block device node.
                        path = rng.pick(allDirs) + "/dev\(n)"
                        let block = rng.chance(1, 2)
                        line = "mknod\t\(path)\t" + (block ? "b" : "c") + "644"
                        spec = Request(subject: subject, op: .mknod, path: path, mode: FileMode(0o644))
                        spec.deviceType = block ? .blockDevice : .charDevice
                    case "create", "mkdir":
                        path = rng.pick(allDirs) + "/new\(n)"
                        line = "\(op)\t\(path)"
                        spec = Request(subject: subject, op: op == "create" ? .create : .mkdir, path: path)
                    case "delete":
                        var st = stat()
                        lstat(path, &st)
                        line = ((st.st_mode & S_IFMT) == S_IFDIR ? "rmdir" : "unlink") + "\t\(path)"
                        spec = Request(subject: subject, op: .delete, path: path)
                    case "rename", "link":
                        path = rng.pick(tree.files + (op == "rename" ? tree.dirs : []))
                        to = rng.pick(allDirs) + "/moved\(n)"
                        line = "\(op)\t\(path)\t\(to)"
                        spec = Request(subject: subject, op: op == "rename" ? .rename : .link, path: path, to: to)
                    case "chmod":
                        let m = rng.pick([0o600, 0o644, 0o755, 0o000])
                        line = "chmod\t\(path)\t\(String(m, radix: 8))"
                        spec = Request(subject: subject, op: .chmod, path: path, mode: FileMode(UInt16(m)))
                    case "chown":
                        let u = rng.pick(accounts.users.map(\.uid) + [0])
                        line = "chown\t\(path)\t\(u)"
                        spec = Request(subject: subject, op: .chown, path: path, owner: u)
                    case "chgrp":
                        let g = rng.pick(accounts.groups.map(\.gid) + [0])
                        line = "chgrp\t\(path)\t\(g)"
                        spec = Request(subject: subject, op: .chgrp, path: path, group: g)
                    case "chflags":
                        path = rng.pick(tree.files + tree.dirs)
                        let set = rng.chance(1, 2)
                        line = "chflags\t\(path)\t" + (set ? "10" : "0")
                        spec = Request(subject: subject, op: .chflags, path: path, flags: set ? .systemImmutable : [])
                    default:
                        line = "\(op)\t\(path)"
                        spec = Request(subject: subject, op: Operation(word: op)!, path: path)
                    }
                    var st = stat()
                    lstat(path, &st)
                    var target = stat()
                    let followed = stat(path, &target) == 0
                    let savedMode = target.st_mode & 0o7777, savedUID = target.st_uid, savedGID = target.st_gid
                    let savedACL = followed && ["chmod", "chown", "chgrp"].contains(op) ? sh(["getfacl", "-p", "--absolute-names", path]).1 : ""
                    let savedFlags = Inode.flags(path)
                    let backupPath = backup + "/\(n)"
                    if op == "delete" && (st.st_mode & S_IFMT) != S_IFDIR { link(path, backupPath) }

                    let kernel = who.prober.ask(line)
                    let d = auth.decide(spec)
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    byOp[op, default: 0] += 1
                    if subject.uid == 0 { rootProbes += 1 } else { userProbes += 1 }
                    for (c, name) in drawn where subject.has(c) { byCap[name, default: 0] += 1 }
                    if d.allowed
                        && (d.rule == .linuxCapReadSearch || d.rule == .linuxCapOverride || d.rule == .linuxCapFowner || d.rule == .linuxChownNeedsCap
                            || d.rule == .mknodNeedsPrivilege)
                    {
                        capAllowed += 1
                    }
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append(
                            "round \(rounds) probe \(n): \(who.text) \(line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.layer.rawValue) \(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                    if kernel == "OK" {
                        switch op {
                        case "create", "mkdir", "link", "mknod":
                            let made = op == "link" ? to : path
                            let parentDir = (made as NSString).deletingLastPathComponent
                            if Inode.flags(parentDir) & (Inode.immutable | Inode.append) != 0 {
                                dirty = true
                            } else if (op == "mkdir" ? rmdir(made) : unlink(made)) != 0 {
                                dirty = true
                            }
                        case "delete":
                            if (st.st_mode & S_IFMT) == S_IFDIR || link(backupPath, path) != 0 { dirty = true }
                        case "rename":
                            if (st.st_mode & S_IFMT) == S_IFDIR || Glibc.rename(to, path) != 0 { dirty = true }
                        case "chmod", "chown", "chgrp":
                            chown(path, savedUID, savedGID)
                            chmod(path, savedMode)
                            if !followed { dirty = true }
                            if !savedACL.isEmpty {
                                let tmp = backup + "/acl\(n)"
                                try? savedACL.write(toFile: tmp, atomically: true, encoding: .utf8)
                                if sh(["setfacl", "--restore=\(tmp)"]).0 != 0 { dirty = true }
                            }
                        case "chflags":
                            if !Inode.setFlags(path, savedFlags) { dirty = true }
                        default: break
                        }
                    }
                    unlink(backupPath)
                }
                subjects = []
            }
            let ops = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let caps = byCap.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "capability differential test: \(compared) probes in \(rounds) random trees, \(userProbes) as users with ambient capabilities and \(rootProbes) as root with a reduced bounding set; \(capAllowed) allowed by a capability; probes holding each capability: \(caps); by operation: \(ops); \(disagreements.count) disagreements"
            )
            #expect(compared >= 1500, "only \(compared) probes ran")
            #expect(capAllowed >= 100, "only \(capAllowed) probes were allowed by a capability")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif
