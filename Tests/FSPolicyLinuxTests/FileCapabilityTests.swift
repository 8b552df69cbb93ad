#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// File capabilities and set-user-ID programs on the real kernel: a planted
    /// `setcap cap_dac_read_search+ep` copy of cat and a set-user-ID root copy, scanned, asked of
    /// `who`, and run as test users with setpriv (plainly, with no-new-privileges, and with the
    /// capability out of the bounding set) to compare what the kernel lets them read.
    @Suite("File capabilities against the Linux kernel", .serialized)
    struct FileCapabilityTests {
        static let haveSetcap = FileManager.default.isExecutableFile(atPath: "/usr/sbin/setcap") || FileManager.default.isExecutableFile(atPath: "/sbin/setcap")

        @Test(
            "a planted setcap program and a set-user-ID one: scan records them, who names them, and the kernel agrees",
            .enabled(if: isRoot, "needs root: it plants a program with file capabilities and creates test users"),
            .enabled(if: haveSetcap, "needs setcap (libcap2-bin; scripts/setup installs it)"))
        func plantedPrograms() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-fcaps-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            chmod(dir, 0o755)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            let capcat = dir + "/capcat", rootcat = dir + "/rootcat", plain = dir + "/plaincat", secret = dir + "/secret"
            for p in [capcat, rootcat, plain] { try FileManager.default.copyItem(atPath: "/bin/cat", toPath: p) }
            chmod(capcat, 0o755); chmod(plain, 0o755); chmod(rootcat, 0o4755)
            #expect(sh(["setcap", "cap_dac_read_search+ep", capcat]).0 == 0)
            try "s3cret\n".write(toFile: secret, atomically: false, encoding: .utf8)
            chown(secret, 0, 0); chmod(secret, 0o600)

            // The scan records the capability; the file loads.
            let yaml = ScanWriter.yaml(TreeScanner.scan(dir))
            #expect(yaml.contains("caps: \"cap_dac_read_search=ep\""), "\(yaml)")
            let policy = PolicyLoader.load(text: yaml, file: dir + ".yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.map(\.rendered))")
            let w = policy.world
            let capNode = try #require(w.lookup(capcat))
            #expect(w.fileCaps[capNode] == FileCapabilities(permitted: .dacReadSearch, effective: true))

            // who: every test user reaches the secret through both programs, not through plaincat.
            let ev = Evaluator(policy: policy, semantics: .linux)
            let through = ev.whoThroughPrograms(RequestSpec(op: .read, path: secret))
            let names = accounts.users.map(\.name)
            let viaCap = through.first { $0.path == capcat }
            let viaRoot = through.first { $0.path == rootcat }
            #expect(viaCap?.gives == ["cap_dac_read_search=ep"])
            #expect(viaRoot?.gives == ["set-user-ID root"])
            #expect(Set(names).isSubset(of: Set(viaCap?.users ?? [])) && Set(names).isSubset(of: Set(viaRoot?.users ?? [])))
            #expect(!through.contains { $0.path == plain })

            // The kernel, for each test user: each program plainly, with no-new-privileges, and
            // with CAP_DAC_READ_SEARCH dropped from the bounding set.
            let auth = Authorizer(world: w, semantics: .linux, tracing: false)
            var compared = 0
            var disagreements: [String] = []
            var kernelAllowed = 0
            for a in accounts.users {
                let base = Subject(uid: a.uid, gid: a.gid, groups: a.supplementary)
                for (prog, node) in [(capcat, capNode), (rootcat, w.lookup(rootcat)!), (plain, w.lookup(plain)!)] {
                    for mode in ["plain", "nnp", "bounding"] {
                        // runuser makes an ordinary process of the user (setpriv --reuid would keep
                        // a full permitted set, which no-new-privileges then lets through).
                        var s = base
                        var bounding = Capabilities.all
                        var args = ["runuser", "-u", a.name, "--"]
                        if mode == "nnp" { args += ["setpriv", "--no-new-privs"]; s.noNewPrivileges = true }
                        if mode == "bounding" { args = ["setpriv", "--bounding-set=-dac_read_search"] + args; bounding.remove(.dacReadSearch) }
                        let (st, out) = sh(args + [prog, secret])
                        let kernel = st == 0 && out.contains("s3cret")
                        if kernel { kernelAllowed += 1 }
                        // The simulator: may run it, then reads as what the exec leaves.
                        var run = Request(subject: s, op: .execute, path: prog)
                        var simulated = auth.decide(inPlace: &run).allowed
                        if simulated {
                            let x = w.execOutcome(s, program: node, bounding: bounding)
                            var read = Request(subject: x.subject, op: .read, path: secret)
                            simulated = !x.fails && auth.decide(inPlace: &read).allowed
                        }
                        compared += 1
                        if kernel != simulated {
                            disagreements.append(
                                "\(a.name) \(mode) \(prog): kernel \(kernel ? "reads" : "refused (\(out.prefix(80)))"), simulator \(simulated ? "reads" : "refused")"
                            )
                        }
                    }
                }
            }
            print(
                "file capability test: \(compared) runs of 3 programs by \(accounts.users.count) users (plain, no-new-privileges, bounding set without the capability); the kernel let \(kernelAllowed) read the secret; \(disagreements.count) disagreements"
            )
            #expect(kernelAllowed >= accounts.users.count * 3, "the planted programs gave less than expected")
            #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        }

        @Test(
            "the host: who --op read /etc/shadow on a scan of /etc names a planted setcap program and a service of a planted unit folder (scan --units), and the kernel lets both read it",
            .enabled(if: isRoot, "needs root: it plants a program with file capabilities, creates test users and reads /etc/shadow through them"),
            .enabled(if: haveSetcap, "needs setcap (libcap2-bin; scripts/setup installs it)"),
            .enabled(if: FileManager.default.fileExists(atPath: "/etc/shadow"), "needs /etc/shadow"))
        func hostShadow() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-fchost-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            chmod(dir, 0o755)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            let user = accounts.users[0]
            let capcat = dir + "/capcat"
            try FileManager.default.copyItem(atPath: "/bin/cat", toPath: capcat)
            chmod(capcat, 0o755)
            #expect(sh(["setcap", "cap_dac_read_search+ep", capcat]).0 == 0)
            // A planted unit folder, as a host's: the service is found by the scan, with a drop-in,
            // beside a unit of the same name lower down that it hides and a masked one.
            let units = dir + "/host-root"
            try FileManager.default.createDirectory(atPath: units + "/etc/systemd/system/reader.service.d", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: units + "/lib/systemd/system", withIntermediateDirectories: true)
            try "[Unit]\nDescription=planted\n[Service]\nUser=\(user.name)\nPrivateDevices=yes\nExecStart=/bin/true\n"
                .write(toFile: units + "/etc/systemd/system/reader.service", atomically: true, encoding: .utf8)
            try "[Service]\nAmbientCapabilities=CAP_DAC_READ_SEARCH\n"
                .write(toFile: units + "/etc/systemd/system/reader.service.d/caps.conf", atomically: true, encoding: .utf8)
            try "[Service]\nUser=root\n".write(toFile: units + "/lib/systemd/system/reader.service", atomically: true, encoding: .utf8)
            try "[Service]\nUser=root\n".write(toFile: units + "/lib/systemd/system/masked.service", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: units + "/etc/systemd/system/masked.service", withDestinationPath: "/dev/null")
            let scan = dir + "/host.yaml"
            let (st, out) = sh([bin, "scan", "/etc", dir, "--units", units, "-o", scan, "-q"])
            #expect(st == 0, "scan: \(out)")
            let yaml = try String(contentsOfFile: scan, encoding: .utf8)
            #expect(yaml.contains("\nunits:\n") && yaml.contains("reader.service.d/caps.conf") && !yaml.contains("services:"), "\(yaml.suffix(2000))")
            let (wst, whoText) = sh([bin, "who", scan, "--op", "read", "/etc/shadow"])
            #expect(wst == 0, "who: \(whoText)")
            #expect(
                whoText.contains("service:reader   root: root.cap-dac-read-search") || whoText.contains("service:reader  root: root.cap-dac-read-search")
                    || whoText.range(of: "service:reader +root: root.cap-dac-read-search", options: .regularExpression) != nil, "\(whoText)")
            #expect(whoText.contains("\(capcat) (cap_dac_read_search=ep): ") && whoText.contains(user.name), "\(whoText)")
            #expect(whoText.contains("PrivateDevices= of service `reader` is not modelled"), "\(whoText)")
            #expect(!whoText.contains("service:masked"), "\(whoText)")
            // The kernel: the user reads /etc/shadow through the program, and as the service would
            // run (ambient CAP_DAC_READ_SEARCH), but not as itself.
            let viaProgram = sh(["runuser", "-u", user.name, "--", capcat, "/etc/shadow"]).0 == 0
            let asService =
                sh([
                    "setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--inh-caps=+dac_read_search",
                    "--ambient-caps=+dac_read_search", "--bounding-set=-all,+dac_read_search", "/bin/cat", "/etc/shadow"
                ]).0 == 0
            let asItself = sh(["runuser", "-u", user.name, "--", "/bin/cat", "/etc/shadow"]).0 == 0
            print(
                "host /etc/shadow: who names the planted program and service; the kernel: through the program \(viaProgram ? "reads" : "refused"), as the service \(asService ? "reads" : "refused"), as the user itself \(asItself ? "reads" : "refused")"
            )
            #expect(viaProgram && asService && !asItself)
        }

        @Test(
            "execve's rules: nosuid and no-new-privileges cancel, a bounding set without the capability fails the effective bit, v3 for another namespace is ignored"
        )
        func execTable() throws {
            var w = World()
            var mnt = Volume(mountPath: "/mnt")
            mnt.nosuid = true
            w.setVolume(mnt)
            _ = w.addNode(path: "/bin", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
            _ = w.addNode(path: "/mnt", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755))
            let a = w.addNode(path: "/bin/a", type: .file, uid: 0, gid: 0, mode: FileMode(0o755))
            let b = w.addNode(path: "/mnt/b", type: .file, uid: 0, gid: 0, mode: FileMode(0o4755))
            let c = w.addNode(path: "/bin/c", type: .file, uid: 0, gid: 0, mode: FileMode(0o755))
            let d = w.addNode(path: "/bin/d", type: .file, uid: 0, gid: 42, mode: FileMode(0o2755))
            w.fileCaps[a] = FileCapabilities(permitted: .dacReadSearch, effective: true)
            w.fileCaps[b] = FileCapabilities(permitted: .dacReadSearch, effective: true)
            w.fileCaps[c] = FileCapabilities(permitted: .dacOverride, effective: true, rootUID: 100000)
            let user = Subject(uid: 1000, gid: 1000, groups: [])
            #expect(w.execOutcome(user, program: a).subject.caps == .dacReadSearch)
            #expect(w.execOutcome(user, program: b).subject.caps.isEmpty && w.execOutcome(user, program: b).subject.uid == 1000)
            #expect(w.execOutcome(user, program: c).subject.caps.isEmpty)
            var nnp = user
            nnp.noNewPrivileges = true
            #expect(w.execOutcome(nnp, program: a).subject.caps.isEmpty)
            #expect(w.execOutcome(user, program: a, bounding: .all.subtracting(.dacReadSearch)).fails)
            let sg = w.execOutcome(user, program: d)
            #expect(sg.subject.gid == 42 && sg.subject.isDirectMember(42) && sg.gives == ["set-group-ID 42"])
            // A `+p` without `+e`: the capability is permitted only, not effective.
            w.fileCaps[a] = FileCapabilities(permitted: .dacReadSearch, effective: false)
            #expect(w.execOutcome(user, program: a).subject.caps.isEmpty)
        }
    }
#endif
