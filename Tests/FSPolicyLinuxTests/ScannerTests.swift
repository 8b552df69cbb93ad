#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// Runs a command; returns its exit status and output.
    @discardableResult
    func sh(_ args: [String], stdin: String? = nil) -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let inp = Pipe()
        p.standardInput = inp
        do { try p.run() } catch { return (-1, "\(error)") }
        if let s = stdin { inp.fileHandleForWriting.write(Data(s.utf8)) }
        try? inp.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A temporary directory removed (flags cleared first) when the test ends, even on failure.
    final class TempTree {
        let url: URL
        var path: String { url.path }
        init(_ tag: String) throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-\(tag)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit {
            sh(["chattr", "-R", "-i", "-a", url.path])
            try? FileManager.default.removeItem(at: url)
        }
        func file(_ rel: String, _ content: String = "x", mode: Int = 0o644) {
            let p = url.appendingPathComponent(rel).path
            precondition(FileManager.default.createFile(atPath: p, contents: Data(content.utf8)), "could not create \(p)")
            precondition(chmod(p, mode_t(mode)) == 0, "could not chmod \(p)")
        }
        func dir(_ rel: String, mode: Int = 0o755) {
            let p = url.appendingPathComponent(rel).path
            try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
            chmod(p, mode_t(mode))
        }
    }

    /// ACLs work on this file system (setfacl succeeds on a scratch file).
    func aclSupported(_ t: TempTree) -> Bool {
        t.file(".probe")
        defer { unlink(t.url.appendingPathComponent(".probe").path) }
        return sh(["setfacl", "-m", "u:65534:r", t.url.appendingPathComponent(".probe").path]).0 == 0
    }

    @Suite("Linux tree reader")
    struct ScannerTests {
        @Test("scan reads types, modes, owners, ACLs, default ACLs, links and odd names, and changes nothing")
        func scanReadsEverything() throws {
            let t = try TempTree("scan")
            guard aclSupported(t) else {
                Issue.record("this file system has no POSIX ACL support (setfacl failed): the scanner test needs it")
                return
            }
            t.dir("d", mode: 0o2775)
            t.file("d/a", mode: 0o640)
            t.dir("d/sub", mode: 0o1777)
            sh(["setfacl", "-m", "u:65534:rw,g:100:r", t.path + "/d/a"])
            sh(["setfacl", "-d", "-m", "u:65534:rx", t.path + "/d/sub"])
            symlink("../a", t.path + "/d/sub/lnk")
            symlink("loop2", t.path + "/d/loop1")
            symlink("loop1", t.path + "/d/loop2")
            mkfifo(t.path + "/d/fifo", 0o600)
            let odd: [UInt8] = Array("bad".utf8) + [0xff] + Array("name\\x".utf8)
            let oddPath = Array(t.path.utf8) + Array("/d/".utf8) + odd
            let fd = (oddPath + [0]).withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_CREAT | O_WRONLY, 0o600) }
            }
            #expect(fd >= 0)
            close(fd)
            let before = sh(["stat", "-c", "%n %a %U %Y", t.path + "/d", t.path + "/d/a", t.path + "/d/sub"]).1

            let tree = TreeScanner.scan(t.path)
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            func entry(_ rel: String) -> ScannedTree.Entry? { tree.entries.first { $0.relativePath == rel } }
            #expect(entry("")?.type == .dir)
            #expect(entry("d")?.mode.rawValue == 0o2775)
            let a = entry("d/a")
            #expect(a?.type == .file)
            #expect(a?.access?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .write])])
            #expect(a?.access?.groups == [POSIXACL.Entry(id: 100, perms: .read)])
            #expect(a?.access?.mask == [.read, .write])
            #expect(a?.mode.rawValue == 0o660, "with an ACL the group bits are the mask")
            #expect(entry("d/sub")?.mode.rawValue == 0o1777)
            #expect(entry("d/sub")?.defaultACL?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .execute])])
            #expect(entry("d/sub")?.access == nil)
            #expect(entry("d/sub/lnk")?.type == .symlink)
            #expect(entry("d/sub/lnk")?.target == "../a")
            #expect(entry("d/loop1")?.target == "loop2")
            #expect(entry("d/fifo")?.type == .fifo)
            #expect(entry("d/bad\\377name\\134x") != nil, "non-UTF-8 bytes and backslashes are escaped as \\ooo")
            #expect(NameEscaping.unescape("bad\\377name\\134x") == odd)
            // Nothing changed.
            #expect(sh(["stat", "-c", "%n %a %U %Y", t.path + "/d", t.path + "/d/a", t.path + "/d/sub"]).1 == before)
        }

        @Test(
            "a root that does not resolve (a looping or dangling symlink, given relative) is the link at its real place; the file names gid 0, so macos can read it"
        )
        func unresolvedRootAndGroupZero() throws {
            let t = try TempTree("unresolved")
            t.dir("d")
            #expect(symlink("loop2", t.path + "/d/loop1") == 0 && symlink("loop1", t.path + "/d/loop2") == 0)
            #expect(symlink("nowhere", t.path + "/d/dangling") == 0)
            let cwd = FileManager.default.currentDirectoryPath
            #expect(FileManager.default.changeCurrentDirectoryPath(t.path))
            defer { _ = FileManager.default.changeCurrentDirectoryPath(cwd) }
            var real = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let base = String(cString: realpath(t.path, &real))
            for (given, target) in [("d/loop1", "loop2"), ("./d/dangling/", "nowhere")] {
                let tree = TreeScanner.scan(given)
                let name = given.split(separator: "/").last!
                #expect(tree.root == base + "/d/" + name, "\(given): \(tree.root)")
                let text = ScanWriter.yaml(tree)
                #expect(text.contains("target: \"\(target)\""), "\(given)")
                #expect(!text.contains("assumed"), "\(given): no folder above is invented")
                for sem in [Semantics.linux, .macos, .guide] {
                    let p = PolicyLoader.load(text: text, file: "scan.yaml", semanticsOverride: sem, host: testHost)
                    #expect(!p.diagnostics.hasErrors, "\(given) under \(sem): \(p.diagnostics.items.map(\.message).prefix(3))")
                    let n = p.world.lookup(base + "/d/" + name)
                    #expect(n.map { p.world[$0].type } == .symlink, "\(given) under \(sem)")
                }
            }
        }

        @Test("a scanned tree, its scan file and its getfacl dump give the same decisions")
        func threeWaysAgree() throws {
            let t = try TempTree("agree")
            guard aclSupported(t) else {
                Issue.record("this file system has no POSIX ACL support (setfacl failed)")
                return
            }
            t.dir("r", mode: 0o755)
            t.dir("r/team", mode: 0o770)
            t.file("r/team/plan.txt", mode: 0o640)
            t.file("r/team/open.txt", mode: 0o666)
            t.dir("r/tmp", mode: 0o1777)
            t.file("r/tmp/x", mode: 0o644)
            sh(["setfacl", "-m", "u:65534:rx,m::rx", t.path + "/r/team"])
            sh(["setfacl", "-m", "u:65534:r", t.path + "/r/team/plan.txt"])
            sh(["setfacl", "-m", "g:65534:---,m::---", t.path + "/r/team/open.txt"])

            let tree = TreeScanner.scan(t.path + "/r")
            let scanFile = ScanWriter.yaml(tree, at: "/srv/r")
            let (status, dump) = sh(["sh", "-c", "cd '\(t.path)' && getfacl -R r 2>/dev/null"])
            #expect(status == 0)
            try dump.write(toFile: t.path + "/dump.txt", atomically: true, encoding: .utf8)
            try scanFile.write(toFile: t.path + "/scan.yaml", atomically: true, encoding: .utf8)
            let viaImport = """
                fspolicy: 1
                semantics: linux
                import:
                  - scan: ./r
                    at: /srv/r
                """
            let viaDump = """
                fspolicy: 1
                semantics: linux
                import:
                  - getfacl: ./dump.txt
                    at: /srv/r
                """
            try viaImport.write(toFile: t.path + "/import.yaml", atomically: true, encoding: .utf8)
            try viaDump.write(toFile: t.path + "/dumpimport.yaml", atomically: true, encoding: .utf8)
            let policies = [t.path + "/scan.yaml", t.path + "/import.yaml", t.path + "/dumpimport.yaml"].map { PolicyLoader.load(path: $0, host: testHost) }
            for p in policies { #expect(!p.diagnostics.hasErrors, "\(p.file): \(p.diagnostics.sorted.map(\.rendered))") }
            let paths = ["/srv/r", "/srv/r/team", "/srv/r/team/plan.txt", "/srv/r/team/open.txt", "/srv/r/tmp", "/srv/r/tmp/x", "/srv/r/tmp/new"]
            let ops: [FSPolicy.Operation] = [.read, .write, .list, .search, .delete, .create, .execute, .stat, .chmod]
            var compared = 0
            for uid: UID in [0, 65534, 1, getuid() == 0 ? 2 : getuid()] {
                for path in paths {
                    for op in ops {
                        let answers = policies.map { p -> String in
                            let d = Evaluator(policy: p).decide(RequestSpec(op: op, path: path, mode: op == .chmod ? FileMode(0o600) : nil), uid: uid)
                            return "\(d.allowed) \(d.errno?.rawValue ?? "-") \(d.layer.rawValue) \(d.rule.rawValue)"
                        }
                        // The placed scan's root is a mount point (O8), the dump's is not.
                        let dumpAgrees =
                            answers[1] == answers[2] || (op == .delete && path == "/srv/r" && answers[0] == "false EBUSY type type.busy-mount-point")
                        #expect(
                            answers[0] == answers[1] && dumpAgrees,
                            "uid \(uid) \(op.word) \(path): scan file \(answers[0]) / scan import \(answers[1]) / getfacl dump \(answers[2])")
                        compared += 1
                    }
                }
            }
            #expect(compared == 4 * paths.count * ops.count)
        }

        @Test("an unreadable directory is reported with its path, and the rest is scanned")
        func unreadableDirectory() throws {
            let t = try TempTree("unreadable")
            t.dir("top/closed/inner", mode: 0o755)
            t.file("top/closed/inner/f")
            t.file("top/open.txt")
            chmod(t.path + "/top/closed", 0o000)
            defer { chmod(t.path + "/top/closed", 0o755) }
            chmod(t.path, 0o755)
            if getuid() == 0 {
                // Root reads everything; scan as an unprivileged user through the CLI.
                guard let bin = fspolicyBinary() else {
                    Issue.record("the fspolicy binary is missing: run `swift build` first")
                    return
                }
                // `nobody` must be able to run it: use a copy inside the (world-readable) temp tree.
                let copy = t.path + "/fspolicy"
                try FileManager.default.copyItem(atPath: bin, toPath: copy)
                chmod(copy, 0o755)
                chmod(t.path, 0o755)
                // While the copy is written, another test's thread may fork a child that inherits the
                // copy's open descriptor until it runs its own program: exec then fails with ETXTBSY
                // ("Text file busy") for that moment. Try again for a while, as `make` does.
                var (status, out) = sh(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy, "scan", t.path + "/top"])
                var tries = 1
                while status == 126 && out.contains("Text file busy") && tries < 50 {
                    usleep(100_000)
                    (status, out) = sh(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy, "scan", t.path + "/top"])
                    tries += 1
                }
                #expect(status == 1, "\(out)")
                #expect(out.contains("fspolicy: warning: \(t.path)/top/closed: cannot open the directory: Permission denied"), "\(out)")
                #expect(out.contains("\"\(t.path)/top/open.txt\""), "the rest of the tree is still written")
                #expect(out.contains("1 path(s) could not be read"))
                // The file says so too: a later reader of it sees what is missing.
                #expect(out.contains("# Incomplete: these could not be read"), "\(out)")
                #expect(out.contains("#   - \(t.path)/top/closed: cannot open the directory: Permission denied"), "\(out)")
            } else {
                let tree = TreeScanner.scan(t.path + "/top")
                #expect(tree.problems.map(\.path) == [t.path + "/top/closed"])
                #expect(tree.entries.contains { $0.relativePath == "open.txt" })
                #expect(ScanWriter.yaml(tree).contains("#   - \(t.path)/top/closed: cannot open the directory: Permission denied"))
            }
        }

        @Test("symlinks whose targets lie outside the scanned folder are named in the file's header; those inside are not")
        func symlinksLeavingTheTree() throws {
            let t = try TempTree("leaving")
            t.dir("top/pub")
            t.file("top/pub/f")
            #expect(symlink("/etc/shadow", t.path + "/top/abs") == 0)
            #expect(symlink("../elsewhere/x", t.path + "/top/rel") == 0)
            #expect(symlink("pub/f", t.path + "/top/inside") == 0)
            #expect(symlink("../top/pub", t.path + "/top/pub/back") == 0)
            var real = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let base = String(cString: realpath(t.path, &real))
            let tree = TreeScanner.scan(t.path + "/top")
            let leaving = ScanWriter.symlinksLeaving(tree)
            #expect(leaving.count == 2)
            #expect(leaving.links.map { "\($0.0) -> \($0.1)" }.sorted() == ["\(base)/top/abs -> /etc/shadow", "\(base)/top/rel -> \(base)/elsewhere/x"])
            let text = ScanWriter.yaml(tree)
            #expect(text.contains("# 2 symlinks point outside the scanned folder \(base)/top"), "\(text.prefix(1500))")
            #expect(text.contains("#   - \(base)/top/abs -> /etc/shadow"))
            #expect(!text.contains("top/inside ->") && !text.contains("pub/back ->"))
        }
    }
#endif

extension ScannerTests {
    @Test("scan records the host's fs.protected_* sysctls in a `linux:` section equal to /proc/sys/fs, with --at too, and the loader reads them")
    func tunablesAreRead() throws {
        // Held shared: no test may change the sysctls while this one compares them.
        let lock = SysctlLock(exclusive: false)
        defer { lock.release() }
        let t = try TempTree("tunables")
        t.dir("r")
        t.file("r/f")
        guard let host = Sysctl.readAll() else {
            // Not a silent pass: without /proc/sys/fs the scan must say it could not read them.
            let tree = TreeScanner.scan(t.path + "/r")
            #expect(tree.tunablesUnread != nil && ScanWriter.yaml(tree).contains("could not all be read"))
            return
        }
        for at in [nil, "/srv/elsewhere"] as [String?] {
            let tree = TreeScanner.scan(t.path + "/r", options: ScanOptions(readAncestors: at == nil))
            #expect(tree.tunablesUnread == nil)
            for tn in LinuxTunable.allCases {
                #expect(tree.linuxTunables[tn] == host[tn], "\(tn.sysctl): scan \(tree.linuxTunables[tn].map(String.init) ?? "none"), /proc \(host[tn])")
            }
            let yaml = ScanWriter.yaml(tree, at: at)
            let section =
                "\nlinux:\n  protectedHardlinks: \(host.protectedHardlinks)\n  protectedSymlinks: \(host.protectedSymlinks)\n  protectedRegular: \(host.protectedRegular)\n  protectedFifos: \(host.protectedFifos)\n"
            #expect(yaml.contains(section), "the scan file lacks `\(section)`:\n\(yaml)")
            let p = PolicyLoader.load(text: yaml, file: "scan.yaml", host: testHost)
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            #expect(p.world.linux == host)
        }
        // `import: - scan:` reads them too; the file's own `linux:` keys win.
        let flipped: UInt8 = host.protectedSymlinks == 0 ? 1 : 0
        try "fspolicy: 1\nsemantics: linux\nimport:\n  - scan: ./r\nlinux: {protectedSymlinks: \(flipped)}\n"
            .write(toFile: t.path + "/import.yaml", atomically: true, encoding: .utf8)
        let imported = PolicyLoader.load(path: t.path + "/import.yaml", host: testHost)
        #expect(!imported.diagnostics.hasErrors, "\(imported.diagnostics.sorted.map(\.rendered))")
        var want = host
        want.protectedSymlinks = flipped
        #expect(imported.world.linux == want)
    }
}
