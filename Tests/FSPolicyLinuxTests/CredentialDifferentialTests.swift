#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // A credential of one call (`groups:` and `umask:` on an expectation or a step): the kernel
    // runs the probe with exactly those supplementary groups (setpriv --groups) or that umask, and
    // the simulator answers the request that carries them.
    @Suite("Kernel: per-call groups and umask", .serialized)
    struct CredentialDifferentialTests {
        @Test(
            "groups: every subset of three groups, as a process with exactly those groups: the kernel's answers",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs the probe with chosen groups"))
        func perCallGroups() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("groups")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let gs = s.accounts.groups.map(\.gid)
            let t = s.dir + "/t"
            mkdir(t, 0o755)
            chmod(t, 0o755)
            // One directory and one file per group and mode: only that group's bits grant anything.
            var paths: [String] = []
            for (i, g) in gs.enumerated() {
                for (m, fm) in [(0o070, 0o060), (0o050, 0o040), (0o010, 0o020)] as [(mode_t, mode_t)] {
                    let d = t + "/d\(i)_\(String(m, radix: 8))"
                    mkdir(d, m)
                    chmod(d, m)
                    chown(d, 0, g)
                    let f = t + "/f\(i)_\(String(fm, radix: 8))"
                    close(open(f, O_CREAT | O_WRONLY, 0o600))
                    chmod(f, fm)
                    chown(f, 0, g)
                    paths += [d, f]
                }
            }
            let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(t)), file: t + ".yaml", host: testHost)
            try #require(!policy.diagnostics.hasErrors, "the scan loads: \(policy.diagnostics.sorted.map(\.rendered))")
            let ev = Evaluator(policy: policy)
            var compared = 0, allowed = 0
            var disagreements: [String] = []
            for bits in 0..<(1 << gs.count) {
                let chosen = gs.indices.filter { bits & (1 << $0) != 0 }.map { gs[$0] }
                let prober = try Prober(probe: s.probe, uid: user.uid, gid: user.gid, groups: chosen)
                for p in paths {
                    for op in ["read", "write", "list", "search", "stat", "create"] {
                        let target = op == "create" ? p + "/new" : p
                        let line = op == "create" ? "create\t\(target)" : "\(op)\t\(target)"
                        let kernel = prober.ask(line)
                        if kernel == "OK" && op == "create" { unlink(target) }
                        var spec = RequestSpec(op: FSPolicy.Operation(word: op)!, path: target)
                        spec.groups = chosen
                        let d = ev.decide(spec, uid: user.uid)
                        let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                        compared += 1
                        if kernel == "OK" { allowed += 1 }
                        if kernel != simulated {
                            disagreements.append("groups \(chosen) \(line): kernel \(kernel), simulator \(simulated) [\(d.rule.rawValue)]")
                        }
                    }
                }
            }
            print(
                "per-call groups differential test: \(compared) probes over \(1 << gs.count) group lists, \(allowed) allowed; \(disagreements.count) disagreements"
            )
            #expect(allowed > 0 && allowed < compared)
            #expect(
                disagreements.isEmpty, "\(disagreements.count) of \(compared) disagree with the kernel:\n\(disagreements.prefix(8).joined(separator: "\n"))")
        }

        @Test(
            "umask: files and directories created by a process with each umask get the kernel's modes",
            .enabled(if: isRoot, "needs root: it runs the probe as a test user"))
        func perCallUmask() throws {
            let lock = SysctlLock(exclusive: false)
            defer { lock.release() }
            let s = try KernelScratch("umask")
            defer { s.remove() }
            let user = s.accounts.users[0]
            let t = s.dir + "/t"
            mkdir(t, 0o777)
            chmod(t, 0o777)
            let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(t)), file: t + ".yaml", host: testHost)
            try #require(!policy.diagnostics.hasErrors)
            let ev = Evaluator(policy: policy)
            let prober = try Prober(probe: s.probe, uid: user.uid, gid: user.gid)
            var compared = 0
            var disagreements: [String] = []
            for mask: UInt16 in [0o000, 0o002, 0o022, 0o027, 0o077, 0o777, 0o750] {
                for (op, requested) in [("create", UInt16(0o666)), ("create", 0o777), ("mkdir", 0o777), ("mkdir", 0o1777)] {
                    let name = t + "/\(op)-\(String(mask, radix: 8))-\(String(requested, radix: 8))"
                    #expect(prober.ask("umask\t\(String(mask, radix: 8))") == "OK")
                    let kernel = prober.ask("\(op)\t\(name)\t\(String(requested, radix: 8))")
                    var st = stat()
                    let real = kernel == "OK" && lstat(name, &st) == 0 ? UInt16(st.st_mode & 0o7777) : nil
                    var spec = RequestSpec(op: op == "mkdir" ? .mkdir : .create, path: name)
                    spec.mode = FileMode(requested)
                    spec.umask = mask
                    var world = policy.world
                    let out = Mutator.apply(ev.request(spec, uid: user.uid), to: &world, semantics: .linux)
                    let simulated = out.created.map { world[$0].mode.rawValue & 0o7777 }
                    compared += 1
                    if real != simulated {
                        disagreements.append(
                            "umask \(String(mask, radix: 8)) \(op) \(String(requested, radix: 8)): kernel \(real.map { String($0, radix: 8) } ?? kernel), simulator \(simulated.map { String($0, radix: 8) } ?? "not created")"
                        )
                    }
                }
            }
            print("per-call umask differential test: \(compared) objects created and compared; \(disagreements.count) disagreements")
            #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        }
    }
#endif
