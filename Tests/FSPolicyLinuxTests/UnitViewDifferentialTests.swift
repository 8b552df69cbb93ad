#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // The sandbox differential test (U1–U5): random ReadOnlyPaths=, ReadWritePaths=, NoExecPaths=,
    // ExecPaths=, InaccessiblePaths=, TemporaryFileSystem= and private-/tmp sets on random trees. For each set, the test builds the mounts systemd's
    // namespace.c builds, in a private mount namespace (`unshare -m`), with the paths taken as they
    // are inside the test's temporary tree (the host's own /usr and /etc are never touched): every
    // path bound onto itself in sorted order, then each mount remounted read-only or read-write,
    // noexec or exec, by the entries over it in the same order. The probe runs inside as a test
    // user or as root, and the simulator, given the same entries, must give the same answer.

    /// `unshare -m` and mounts inside it work here: checked once.
    let unsharePermitted: Bool = {
        guard isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return sh([
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount -t tmpfs -o size=64k fspolicy-check /mnt 2>/dev/null || mount -t tmpfs -o size=64k fspolicy-check /tmp"
        ]).0 == 0
    }()

    /// The shell commands that build `entries`' mounts as namespace.c does: sorted by path, one kept
    /// per path and pass, nothing below a replaced path. First each path is mounted in order: an
    /// inaccessible path gets the empty mode-0000 node of its type from `scratch` (as systemd's
    /// /run/systemd/inaccessible/), a private /tmp a fresh mode-1777 directory from `scratch`, a
    /// tmpfs an empty tmpfs, and any other path is bound onto itself. Then every mount is remounted
    /// read-only or not, noexec or not, as the deepest entry of each pass over it says.
    func viewMountScript(_ entries: [ViewEntry], scratch: String) -> [String] {
        let view = MountView(entries)
        var mounts: [String] = []
        var out: [String] = []
        for e in view.entries where !mounts.contains(e.path) {
            mounts.append(e.path)
            let m = e.path
            switch e.mode {
            case .inaccessible:
                out.append(
                    "if [ -d '\(m)' ]; then mount --bind '\(scratch)/inaccessible-dir' '\(m)'; else mount --bind '\(scratch)/inaccessible-file' '\(m)'; fi")
            case .privateTmp: out.append("d=$(mktemp -d '\(scratch)/private-tmp.XXXXXX') && chmod 1777 \"$d\" && mount --bind \"$d\" '\(m)'")
            case .tmpfs: out.append("mount -t tmpfs -o mode=\(String(e.nodeMode?.rawValue ?? 0o755, radix: 8)),nodev fspolicy-tmpfs '\(m)'")
            case .bind where e.source != nil: out.append("mount \(e.recursive ? "--rbind" : "--bind") '\(e.source!)' '\(m)'")
            default: out.append("mount --bind '\(m)' '\(m)'")
            }
        }
        for m in mounts {
            let flags = (view.readOnlyEntry(for: m) != nil ? ",ro" : ",rw") + (view.noexecEntry(for: m) != nil ? ",noexec" : ",exec")
            out.append("mount -o remount,bind\(flags) '\(m)'")
        }
        return out
    }

    @Suite("systemd sandbox views against the Linux kernel", .serialized)
    struct UnitViewDifferentialTests {
        @Test(
            "random ReadOnlyPaths=/ReadWritePaths=/NoExecPaths=/ExecPaths=/InaccessiblePaths=/TemporaryFileSystem=/PrivateTmp=/BindPaths= sets in a mount namespace: simulator and kernel agree",
            .enabled(if: isRoot, "needs root: it creates test users and mounts in a private mount namespace"),
            .enabled(if: unsharePermitted, "needs `unshare -m` and mount(2) inside it (not permitted in this container)"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func agreesWithKernel() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-viewdiff-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }
            // What systemd mounts over an inaccessible path: an empty directory or file, mode 0000, root's.
            let scratch = parent + "/scratch"
            mkdir(scratch, 0o755)
            mkdir(scratch + "/inaccessible-dir", 0o000)
            close(open(scratch + "/inaccessible-file", O_CREAT | O_WRONLY, 0o000))
            chmod(scratch + "/inaccessible-dir", 0)
            chmod(scratch + "/inaccessible-file", 0)

            let target = Int(ProcessInfo.processInfo.environment["FSPOLICY_VIEW_PROBES"] ?? "") ?? 4000
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261129)
            var compared = 0, rounds = 0, entriesDrawn = 0
            var disagreements: [String] = []
            var byOp: [String: Int] = [:]
            var byRule: [String: Int] = [:]
            var replaced: [String: Int] = [:]
            var modesDrawn: [String: Int] = [:]
            var throughBind: [String: Int] = [:]
            while compared < target && rounds < 60 {
                rounds += 1
                let root = parent + "/t\(rounds)"
                mkdir(root, 0o755)
                let backup = parent + "/b\(rounds)"
                mkdir(backup, 0o700)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let policy = PolicyLoader.load(text: ScanWriter.yaml(TreeScanner.scan(root)), file: root + ".yaml", host: testHost)
                if policy.diagnostics.hasErrors {
                    Issue.record("the scan of round \(rounds) does not load: \(policy.diagnostics.sorted.map(\.rendered))")
                    break
                }
                let auth = Authorizer(world: policy.world, semantics: .linux, tracing: false)
                // One to five random entries on the tree's directories (and now and then a file).
                var entries: [ViewEntry] = []
                let modes: [(ViewEntry.Mode, String)] = [
                    (.readOnly, "ReadOnlyPaths"), (.readWrite, "ReadWritePaths"), (.noexec, "NoExecPaths"), (.exec, "ExecPaths"),
                    (.inaccessible, "InaccessiblePaths"), (.tmpfs, "TemporaryFileSystem"), (.privateTmp, "PrivateTmp"), (.bind, "BindPaths")
                ]
                for _ in 0..<(1 + rng.below(5)) {
                    let (m, key) = rng.pick(modes)
                    let onFile = rng.chance(1, 6) && !tree.files.isEmpty && (m != .tmpfs && m != .privateTmp)
                    // Not the tree's root: a replaced root would hide the whole tree.
                    let p = onFile ? rng.pick(tree.files) : rng.pick(m.replaces && !tree.dirs.isEmpty ? tree.dirs : [root] + tree.dirs)
                    var e = ViewEntry(path: p, mode: m, option: "\(key)=\(p)", place: "random:\(rounds)")
                    if m == .tmpfs {
                        e.ro = rng.chance(1, 3)
                        e.nodeMode = FileMode(rng.pick([0o755, 0o1777, 0o700, 0o777]))
                        e.option += e.ro ? ":ro" : ""
                    }
                    if m == .privateTmp { e.nodeMode = FileMode(0o1777) }
                    if m == .bind && rng.chance(1, 2) {
                        e.ro = true
                        e.option = "BindReadOnlyPaths=\(p)"
                    }
                    modesDrawn[String(e.option.prefix { $0 != "=" }), default: 0] += 1
                    entries.append(e)
                }
                // Now and then a bind of another path (U6): a directory or file onto another of its
                // type, neither inside the other. Entries inside its source or destination are left
                // out: systemd remounts a bind's submounts with it, which the script's plain remount
                // does not, and the destination's own paths are no longer there.
                if rng.chance(1, 2) {
                    let onFile = rng.chance(1, 4) && tree.files.count > 1
                    let pool = onFile ? tree.files : tree.dirs
                    let src = pool.isEmpty ? "" : rng.pick(pool)
                    let dst = pool.isEmpty ? "" : rng.pick(pool)
                    func nested(_ a: String, _ b: String) -> Bool { a == b || a.hasPrefix(b + "/") || b.hasPrefix(a + "/") }
                    // Not inside a replaced path either: it is empty in the view, so the mount fails.
                    let hiddenBy = entries.contains { e in
                        e.mode.replaces && ((e.covers(src) && e.path != src) || (e.covers(dst) && e.path != dst))
                    }
                    if !src.isEmpty && !nested(src, dst) && !hiddenBy {
                        let ro = rng.chance(1, 3)
                        let norbind = rng.chance(1, 4)
                        let key = ro ? "BindReadOnlyPaths" : "BindPaths"
                        let bind = ViewEntry(
                            path: dst, mode: .bind, option: "\(key)=\(src):\(dst)\(norbind ? ":norbind" : "")", place: "random:\(rounds)", ro: ro,
                            source: src, recursive: !norbind)
                        entries.removeAll { $0.path.hasPrefix(src + "/") || $0.path.hasPrefix(dst + "/") || $0.path == dst }
                        entries.append(bind)
                        modesDrawn[key + " SRC:DST", default: 0] += 1
                    }
                }
                entriesDrawn += entries.count
                let script = viewMountScript(entries, scratch: scratch).joined(separator: " && ")
                let view = MountView(entries, over: policy.world)
                let replacing = view.entries.filter(\.mode.replaces)
                let binds = view.entries.filter { $0.source != nil }
                /// Where a path of the service's view is on the host: below a bind's destination, its source's.
                func host(_ p: String) -> String {
                    guard let b = binds.first(where: { $0.covers(p) }), let s = b.source else { return p }
                    return s + p.dropFirst(b.path.count)
                }

                struct Who { var subject: Subject; var prober: Prober; var text: String }
                var subjects: [Who] = []
                for i in 0..<4 {
                    let a = i < 3 ? accounts.users[i] : nil
                    var subject = a.map { Subject(uid: $0.uid, gid: $0.gid, groups: $0.supplementary) } ?? Subject(uid: 0, gid: 0, groups: [])
                    subject.view = view
                    let ids = a.map { "setpriv --reuid=\($0.uid) --regid=\($0.gid) --init-groups " } ?? ""
                    let prober = try Prober(command: [
                        "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                        "\(script) && exec \(ids)'\(probe)'"
                    ])
                    subjects.append(Who(subject: subject, prober: prober, text: "uid \(subject.uid)"))
                }

                // The paths a bind shows at its destination, as the service names them.
                var shown: [String] = []
                var shownDirs: [String] = []
                for b in binds {
                    guard let s = b.source else { continue }
                    for p in tree.files + tree.dirs + tree.links where p == s || p.hasPrefix(s + "/") {
                        shown.append(b.path + p.dropFirst(s.count))
                        if tree.dirs.contains(p) { shownDirs.append(b.path + p.dropFirst(s.count)) }
                    }
                }
                let existing = tree.files + tree.dirs + tree.links + shown + shown
                let allDirs = [root] + tree.dirs + shownDirs
                var dirty = false
                var n = 0
                while n < 120 && !dirty && compared < target {
                    n += 1
                    let who = rng.pick(subjects)
                    let op = rng.pick([
                        "execute", "read", "write", "readwrite", "truncate", "execute", "list", "create", "mkdir", "delete", "rename", "link", "chmod", "touch",
                        "writeextattr"
                    ])
                    var path = rng.pick(existing)
                    var to = ""
                    var line: String
                    var spec: Request
                    switch op {
                    case "create", "mkdir":
                        path = rng.pick(allDirs) + "/new\(n)"
                        line = "\(op)\t\(path)"
                        spec = Request(subject: who.subject, op: op == "create" ? .create : .mkdir, path: path)
                    case "delete":
                        path = rng.pick(tree.files + tree.links + shown.filter { !shownDirs.contains($0) })
                        line = "unlink\t\(path)"
                        spec = Request(subject: who.subject, op: .delete, path: path)
                    case "rename", "link":
                        path = rng.pick(tree.files + shown.filter { !shownDirs.contains($0) })
                        to = rng.pick(allDirs) + "/moved\(n)"
                        line = "\(op)\t\(path)\t\(to)"
                        spec = Request(subject: who.subject, op: op == "rename" ? .rename : .link, path: path, to: to)
                    case "chmod":
                        let m = rng.pick([0o600, 0o644, 0o755])
                        line = "chmod\t\(path)\t\(String(m, radix: 8))"
                        spec = Request(subject: who.subject, op: .chmod, path: path, mode: FileMode(UInt16(m)))
                    default:
                        line = "\(op)\t\(path)"
                        spec = Request(subject: who.subject, op: Operation(word: op)!, path: path)
                    }
                    var target = stat()
                    let followed = stat(host(path), &target) == 0
                    let savedMode = target.st_mode & 0o7777
                    let backupPath = backup + "/\(n)"
                    if op == "delete" { link(host(path), backupPath) }

                    let kernel = who.prober.ask(line)
                    let d = auth.decide(spec)
                    let simulated = d.allowed ? "OK" : (d.errno?.rawValue ?? "?")
                    compared += 1
                    byOp[op, default: 0] += 1
                    if [.unitReadOnly, .unitReadOnlyOpen, .unitNoexec, .unitCrossMount].contains(d.rule) { byRule[d.rule.rawValue, default: 0] += 1 }
                    if d.rule == .busyMountPoint, case .view = d.evidence { byRule["busy (a unit's path)", default: 0] += 1 }
                    if binds.contains(where: { $0.covers(path) || (!to.isEmpty && $0.covers(to)) }) { throughBind["\(kernel)", default: 0] += 1 }
                    let inside = replacing.first { $0.covers(path) || (!to.isEmpty && $0.covers(to)) }
                    if let r = inside { replaced["\(r.mode.word): \(kernel)", default: 0] += 1 }
                    if kernel != simulated {
                        let full = Authorizer(world: policy.world, semantics: .linux).decide(spec)
                        let tr = TextRenderer(policy: policy).trace(full).joined(separator: "\n")
                        disagreements.append(
                            "round \(rounds) probe \(n): \(who.text) \(entries.map(\.option)) \(line.replacingOccurrences(of: "\t", with: " ")): kernel \(kernel), simulator \(simulated) [\(d.layer.rawValue) \(d.rule.rawValue)]\n\(tr)"
                        )
                    }
                    if kernel == "OK", let r = inside {
                        // Made inside a replaced path, which lives only in the probe's namespace: it
                        // goes with it. A chmod of the replacing node itself is undone there.
                        if op == "chmod", r.path == path { _ = who.prober.ask("chmod\t\(path)\t\(String(r.nodeMode?.rawValue ?? 0o755, radix: 8))") }
                        if op == "delete" || op == "rename" { dirty = true }
                    } else if kernel == "OK" {
                        switch op {
                        case "create", "mkdir", "link":
                            let made = host(op == "link" ? to : path)
                            let parentDir = (made as NSString).deletingLastPathComponent
                            if Inode.flags(parentDir) & (Inode.immutable | Inode.append) != 0 {
                                dirty = true
                            } else if (op == "mkdir" ? rmdir(made) : unlink(made)) != 0 {
                                dirty = true
                            }
                        case "delete":
                            if link(backupPath, host(path)) != 0 { dirty = true }
                        case "rename":
                            if Glibc.rename(host(to), host(path)) != 0 { dirty = true }
                        case "chmod":
                            chmod(host(path), savedMode)
                            if !followed { dirty = true }
                        default: break
                        }
                    }
                    unlink(backupPath)
                }
                subjects = []
            }
            let ops = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let rules = byRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let inReplaced = replaced.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let drawn = modesDrawn.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let bound = throughBind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "sandbox view differential test: \(compared) probes in \(rounds) random trees with \(entriesDrawn) random unit path entries; (\(drawn)); decided by the view: \(rules); on or into a replaced path (\(replaced.values.reduce(0, +))): \(inReplaced); through a bind of another path (\(throughBind.values.reduce(0, +))): \(bound); by operation: \(ops); \(disagreements.count) disagreements"
            )
            #expect(compared >= 2000, "only \(compared) probes ran")
            #expect(byRule.values.reduce(0, +) >= 100, "only \(byRule.values.reduce(0, +)) probes were decided by the view")
            #expect(replaced.values.reduce(0, +) >= 300, "only \(replaced.values.reduce(0, +)) probes met a replaced path")
            #expect(throughBind.values.reduce(0, +) >= 300, "only \(throughBind.values.reduce(0, +)) probes went through a bind of another path")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(compared) probes disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif
