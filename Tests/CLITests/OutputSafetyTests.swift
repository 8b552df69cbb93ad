import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Issue 13: writing output never crashes, never writes through a device, FIFO, socket,
/// directory or symlink, keeps a file's owner, mode and hard links, and never leaves a
/// half-written target.
@Suite struct OutputSafetyTests {
    static let policy = "fixtures/examples/team-share/policy.yaml"

    /// A fresh directory under /tmp, removed by `cleanup`.
    static func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        return d
    }
    static func cleanup(_ d: String) { try? FileManager.default.removeItem(atPath: d) }
    static func entries(_ d: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []).sorted() }
    static func lstatOf(_ p: String) -> stat { var st = stat(); _ = lstat(p, &st); return st }
    static func sh(_ script: String) throws -> RunResult {
        try run("/bin/sh", ["-c", script], env: ["FSPOLICY": fspolicyBinary()])
    }

    @Test func fullStandardOutputIsAnErrorNotACrash() throws {
        for cmd in [
            "check \(Self.policy)", "can \(Self.policy) --as bob --op read /Shared/a.txt",
            "explain \(Self.policy) --as dave --op delete /Shared/Dropbox/bob-notes.txt",
            "who \(Self.policy) --op read /Shared", "validate \(Self.policy)",
            "fmt --stdout \(Self.policy)", "fmt --check --format json \(Self.policy)",
            "check --format junit \(Self.policy)", "simulate \(Self.policy)",
            "matrix \(Self.policy)", "access \(Self.policy) --as bob --op read", "report \(Self.policy)"
        ] {
            let r = try Self.sh("\"$FSPOLICY\" \(cmd) >/dev/full")
            #expect(!r.crashed && r.status == 3, "\(cmd): status \(r.status)")
            #expect(r.stderr.contains("fspolicy: error: cannot write standard output: No space left on device"), "\(cmd): \(r.stderr)")
            #expect(!r.stderr.contains("Fatal error"), "\(cmd)")
        }
    }

    @Test func closedStandardOutputIsAnErrorNotACrash() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        for cmd in ["check \(Self.policy)", "who \(Self.policy) --op read /Shared", "fmt --stdout \(Self.policy)"] {
            let r = try Self.sh("\"$FSPOLICY\" \(cmd) >&-")
            #expect(!r.crashed && r.status == 3, "\(cmd): status \(r.status)")
            #expect(r.stderr.contains("cannot write standard output: Bad file descriptor"), "\(cmd): \(r.stderr)")
        }
        // With descriptor 1 closed, the file written by --output must not take it over.
        let r = try Self.sh("\"$FSPOLICY\" check \(Self.policy) --output \(d)/out.txt >&-")
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: d + "/out.txt", encoding: .utf8).contains("16 passed"))
    }

    @Test func outputRefusesDirectoryFifoSocketAndDevice() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        #expect(mkfifo(d + "/fifo", 0o644) == 0)
        #expect(mknod(d + "/sock", mode_t(S_IFSOCK) | 0o644, 0) == 0)
        try FileManager.default.createDirectory(atPath: d + "/dir", withIntermediateDirectories: false)
        var cases: [(String, String, mode_t)] = [("fifo", "it is a FIFO", S_IFIFO), ("sock", "it is a socket", S_IFSOCK), ("dir", "it is a directory", S_IFDIR)]
        if getuid() == 0 {
            // A device node of our own (the same numbers as /dev/full), never the system's.
            #expect(mknod(d + "/full", mode_t(S_IFCHR) | 0o666, dev_t((1 << 8) | 7)) == 0)
            cases.append(("full", "it is a device", S_IFCHR))
        } else {
            print("OutputSafetyTests: not root, the device-node case is skipped (mknod of a character device needs root)")
        }
        for (name, message, type) in cases {
            for args in [
                ["check", Self.policy, "--output", d + "/" + name], ["scan", "Sources/CLibACL", "-o", d + "/" + name],
                ["matrix", Self.policy, "--output", d + "/" + name], ["report", Self.policy, "-o", d + "/" + name]
            ] {
                let r = try fspolicy(args)
                #expect(r.status == 3 && !r.crashed, "\(args)")
                #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
                #expect(Self.lstatOf(d + "/" + name).st_mode & S_IFMT == type, "\(name) was replaced")
            }
        }
        #expect(Self.entries(d) == cases.map(\.0).sorted(), "no temporary file is left behind")
    }

    @Test func symlinkOnlyWithFollowSymlinks() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        try "old\n".write(toFile: d + "/target.txt", atomically: false, encoding: .utf8)
        #expect(symlink("target.txt", d + "/link") == 0)
        var r = try fspolicy(["check", Self.policy, "--output", d + "/link"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("it is a symbolic link (give --follow-symlinks"))
        #expect(try String(contentsOfFile: d + "/target.txt", encoding: .utf8) == "old\n")
        r = try fspolicy(["check", Self.policy, "--output", d + "/link", "--follow-symlinks"])
        #expect(r.status == 0)
        #expect(Self.lstatOf(d + "/link").st_mode & S_IFMT == S_IFLNK, "the link stays a link")
        #expect(try String(contentsOfFile: d + "/target.txt", encoding: .utf8).contains("16 passed"))
        // fmt in place: the same rule.
        try "fspolicy: 1\ntree:\n  /a: {type: dir}\n  /: {type: dir}\n".write(toFile: d + "/p.yaml", atomically: false, encoding: .utf8)
        #expect(symlink("p.yaml", d + "/plink.yaml") == 0)
        r = try fspolicy(["fmt", d + "/plink.yaml"])
        #expect(r.status == 3 && r.stderr.contains("symbolic link"))
        r = try fspolicy(["fmt", "--follow-symlinks", d + "/plink.yaml"])
        #expect(r.status == 0)
        #expect(Self.lstatOf(d + "/plink.yaml").st_mode & S_IFMT == S_IFLNK)
        #expect(try String(contentsOfFile: d + "/p.yaml", encoding: .utf8) == "fspolicy: 1\n\ntree:\n  /: {type: dir}\n  /a: {type: dir}\n")
        #expect(Self.entries(d) == ["link", "p.yaml", "plink.yaml", "target.txt"])
    }

    @Test func modeOwnerAndHardLinksAreKept() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        let f = d + "/report.txt"
        try "old\n".write(toFile: f, atomically: false, encoding: .utf8)
        #expect(chmod(f, 0o640) == 0)
        let root = getuid() == 0
        if root { #expect(chown(f, 4321, 8765) == 0) } else { print("OutputSafetyTests: not root, owner changes are not tested (chown needs root)") }
        var r = try fspolicy(["check", Self.policy, "--output", f])
        #expect(r.status == 0)
        var st = Self.lstatOf(f)
        #expect(st.st_mode & 0o7777 == 0o640)
        if root { #expect(st.st_uid == 4321 && st.st_gid == 8765) }
        // A second link: both names see the new content, and stay one file.
        #expect(link(f, d + "/other-name.txt") == 0)
        r = try fspolicy(["who", Self.policy, "--op", "read", "/Shared", "--output", f])
        #expect(r.status == 0)
        st = Self.lstatOf(f)
        #expect(st.st_nlink == 2)
        #expect(try String(contentsOfFile: d + "/other-name.txt", encoding: .utf8).hasPrefix("Who can read /Shared?"))
        #expect(st.st_mode & 0o7777 == 0o640)
        // fmt in place keeps the mode too.
        let p = d + "/p.yaml"
        try "fspolicy: 1\ntree:\n  /a: {type: dir}\n  /: {type: dir}\n".write(toFile: p, atomically: false, encoding: .utf8)
        #expect(chmod(p, 0o600) == 0)
        r = try fspolicy(["fmt", p])
        #expect(r.status == 0)
        #expect(Self.lstatOf(p).st_mode & 0o7777 == 0o600)
        #expect(Self.entries(d) == ["other-name.txt", "p.yaml", "report.txt"])
        // `-` is standard output.
        r = try fspolicy(["check", Self.policy, "--output", "-"])
        #expect(r.stdout.contains("16 passed"))
    }

    /// Outputs written as they are made (`scan`, `check --output`, `matrix`) go through a
    /// temporary file that is put in place at the end: the same rules as a whole write, and
    /// nothing left beside the target.
    @Test func streamedOutputsKeepModeOwnerAndLinks() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        let root = getuid() == 0
        if !root { print("OutputSafetyTests: not root, owner changes of streamed outputs are not tested (chown needs root)") }
        let runs: [(args: [String], says: String)] = [
            (["scan", "Sources/FSPolicyIO", "-o"], "fspolicy: 1"),
            (["check", Self.policy, "--format", "json", "--output"], "\"expectations\""),
            (["check", Self.policy, "--output"], "16 passed"),
            (["matrix", Self.policy, "--output"], "/Shared")
        ]
        for (k, r) in runs.enumerated() {
            // A new file: the mode a plain creation gives (0666 less the umask).
            let f = d + "/new-\(k)"
            var res = try fspolicy(r.args + [f])
            #expect(res.status == 0, "\(r.args): \(res.stderr)")
            let mask = umask(0); umask(mask)
            #expect(Self.lstatOf(f).st_mode & 0o7777 == 0o666 & ~mask, "\(r.args)")
            #expect(try String(contentsOfFile: f, encoding: .utf8).contains(r.says), "\(r.args)")
            // An existing file keeps its mode and owner.
            let g = d + "/old-\(k)"
            try "old\n".write(toFile: g, atomically: false, encoding: .utf8)
            #expect(chmod(g, 0o640) == 0)
            if root { #expect(chown(g, 4321, 8765) == 0) }
            res = try fspolicy(r.args + [g])
            #expect(res.status == 0, "\(r.args): \(res.stderr)")
            var st = Self.lstatOf(g)
            #expect(st.st_mode & 0o7777 == 0o640, "\(r.args)")
            if root { #expect(st.st_uid == 4321 && st.st_gid == 8765, "\(r.args)") }
            // A hard-linked file is written in place: both names see the new content.
            let h = d + "/linked-\(k)"
            try "old\n".write(toFile: h, atomically: false, encoding: .utf8)
            #expect(link(h, h + ".second") == 0)
            res = try fspolicy(r.args + [h])
            #expect(res.status == 0, "\(r.args): \(res.stderr)")
            st = Self.lstatOf(h)
            #expect(st.st_nlink == 2, "\(r.args)")
            #expect(try String(contentsOfFile: h + ".second", encoding: .utf8) == String(contentsOfFile: f, encoding: .utf8), "\(r.args)")
        }
        // Nothing but the targets: every temporary file was renamed or removed.
        #expect(Self.entries(d).filter { $0.hasPrefix(".") } == [])
        #expect(Self.entries(d).count == runs.count * 4)
    }

    @Test func fullDiskLeavesTheTargetAsItWas() throws {
        guard getuid() == 0 else {
            print("OutputSafetyTests: not root, the full-disk case is skipped (it mounts a small tmpfs)")
            return
        }
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        let m = d + "/mnt"
        try FileManager.default.createDirectory(atPath: m, withIntermediateDirectories: false)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=8k", "tmpfs", m])
        guard mounted.status == 0 else {
            print("OutputSafetyTests: cannot mount a tmpfs here (\(mounted.stderr)); the full-disk case is skipped")
            return
        }
        defer { _ = try? run("/bin/umount", [m]) }
        try "old\n".write(toFile: m + "/out.yaml", atomically: false, encoding: .utf8)
        // A policy bigger than the file system.
        var big = "fspolicy: 1\ntree:\n  /: {type: dir}\n"
        for i in 0..<2000 { big += "  /file-\(i): {owner: root}\n" }
        try big.write(toFile: d + "/big.yaml", atomically: false, encoding: .utf8)
        for args in [
            ["simulate", d + "/big.yaml", "--format", "json", "--output", m + "/out.yaml"],
            ["matrix", d + "/big.yaml", "--output", m + "/out.yaml"],
            ["scan", "Sources", "-o", m + "/out.yaml"], ["scan", "Sources", "-o", m + "/new.yaml"],
            ["simulate", d + "/big.yaml", "--output", m + "/out.yaml"]
        ] {
            let r = try fspolicy(args)
            #expect(r.status == 3 && !r.crashed, "\(args)")
            #expect(r.stderr.contains("No space left on device"), "\(args): \(r.stderr)")
            #expect(try String(contentsOfFile: m + "/out.yaml", encoding: .utf8) == "old\n")
            #expect(Self.entries(m) == ["out.yaml"])
        }
        // In place (a hard-linked file): the space is reserved first, the old content stays.
        #expect(link(m + "/out.yaml", m + "/second") == 0)
        let r = try fspolicy(["simulate", d + "/big.yaml", "--output", m + "/out.yaml"])
        #expect(r.status == 3)
        #expect(try String(contentsOfFile: m + "/second", encoding: .utf8) == "old\n")
    }

    @Test func fmtRefusesAnAliasBombAtOnce() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        var text = "fspolicy: 1\ndescription: x\nx0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...7 { text += "x\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        try text.write(toFile: d + "/bomb.yaml", atomically: false, encoding: .utf8)
        for args in [["fmt", "--stdout", d + "/bomb.yaml"], ["fmt", d + "/bomb.yaml"], ["validate", d + "/bomb.yaml"], ["check", d + "/bomb.yaml"]] {
            let r = try fspolicy(args)
            #expect(r.status == 3, "\(args)")
            #expect(r.stderr.contains("bomb.yaml:4:10: error: YAML aliases expand the document beyond the limit"), "\(args): \(r.stderr)")
        }
        #expect(try String(contentsOfFile: d + "/bomb.yaml", encoding: .utf8) == text)
        // A small alias is within the limit, but fmt would expand it: refused as well.
        try "fspolicy: 1\ngroups:\n  staff2: &g {gid: 30}\n  staff3: *g\ntree:\n  /: {type: dir}\n".write(
            toFile: d + "/small.yaml", atomically: false, encoding: .utf8)
        let r = try fspolicy(["fmt", "--stdout", d + "/small.yaml"])
        #expect(r.status == 3 && r.stderr.contains("does not rewrite files that use YAML aliases"))
    }

    /// As a user who may write a file but not its directory (no temporary file can go beside
    /// it), `--output` and `-o` write the file in place, as the shell's `>` would (whole or
    /// streamed); where neither is allowed the message says so once.
    @Test func outputIntoAFolderThatTakesNoTemporaryFile() throws {
        guard getuid() == 0 else {
            print("OutputSafetyTests: not root, the write-in-place-as-another-user case is skipped (it runs fspolicy as nobody through setpriv)")
            return
        }
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        chmod(d, 0o755)
        // A copy nobody may run (the build directory may be closed to it), and the policy beside it.
        let bin = d + "/fspolicy"
        try FileManager.default.copyItem(atPath: fspolicyBinary(), toPath: bin)
        chmod(bin, 0o755)
        try FileManager.default.copyItem(atPath: Self.policy, toPath: d + "/policy.yaml")
        chmod(d + "/policy.yaml", 0o644)
        try FileManager.default.createDirectory(atPath: d + "/closed", withIntermediateDirectories: false)
        chmod(d + "/closed", 0o755)
        for (args, expect) in [
            (["check", d + "/policy.yaml", "--output"], "16 expectations, 16 passed"),
            (["matrix", d + "/policy.yaml", "--output"], "path,"),
            (["lint", d + "/policy.yaml", "--output"], "finding")
        ] {
            let out = d + "/closed/mine.txt"
            try "old content that is longer than nothing\n".write(toFile: out, atomically: false, encoding: .utf8)
            #expect(chown(out, 65534, 65534) == 0)
            let before = Self.lstatOf(out).st_ino
            var r = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", bin] + args + [out])
            var tries = 1
            while r.status == 126 && r.stderr.contains("Text file busy") && tries < 50 {
                usleep(100_000)
                r = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", bin] + args + [out])
                tries += 1
            }
            #expect(r.status == 0 || r.status == 1, "\(args): \(r.status) \(r.stderr)")
            let text = try String(contentsOfFile: out, encoding: .utf8)
            #expect(text.contains(expect) && !text.contains("old content"), "\(args): \(text.prefix(200))")
            #expect(Self.lstatOf(out).st_ino == before && Self.lstatOf(out).st_uid == 65534, "\(args): the same file, in place")
            #expect(Self.entries(d + "/closed") == ["mine.txt"], "\(args)")
        }
        // A root-owned file in a folder nobody may write: one refusal, said once.
        try FileManager.default.createDirectory(atPath: d + "/open", withIntermediateDirectories: false)
        chmod(d + "/open", 0o777)
        try "root's\n".write(toFile: d + "/open/root.txt", atomically: false, encoding: .utf8)
        chmod(d + "/open/root.txt", 0o644)
        let r = try run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", bin, "check", d + "/policy.yaml", "--output", d + "/open/root.txt"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(
            r.stderr.contains("fspolicy: error: cannot write `\(d)/open/root.txt`: Permission denied")
                && !r.stderr.contains("cannot write `\(d)/open/root.txt`: cannot write"), "\(r.stderr)")
        #expect(try String(contentsOfFile: d + "/open/root.txt", encoding: .utf8) == "root's\n")
        #expect(Self.entries(d + "/open") == ["root.txt"])
    }

    /// A policy file that is not a regular file: a FIFO nobody writes to was waited on forever
    /// (a stray `*.yaml` FIFO held `check` in CI); now it is an error at once, as a directory
    /// and a device are, each saying what it is. A pipe with a writer is read (`<(…)`).
    @Test func policyInputThatIsNoFileIsAnErrorAtOnce() throws {
        let d = try Self.tempDir(); defer { Self.cleanup(d) }
        #expect(mkfifo(d + "/fifo.yaml", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: d + "/dir.yaml", withIntermediateDirectories: false)
        var cases = [
            ("fifo.yaml", "it is a FIFO, and nothing was written to it"), ("dir.yaml", "it is a directory"),
            ("missing.yaml", "No such file or directory")
        ]
        if getuid() == 0 {
            // A device node of our own (the numbers of /dev/zero, which never ends), never the system's.
            #expect(mknod(d + "/zero.yaml", mode_t(S_IFCHR) | 0o666, dev_t((1 << 8) | 5)) == 0)
            cases.append(("zero.yaml", "it is a device, not a file"))
        } else {
            print("OutputSafetyTests: not root, the device-node input is skipped (mknod of a character device needs root)")
        }
        for (name, message) in cases {
            for command in ["validate", "check", "can"] {
                let args = command == "can" ? ["can", d + "/" + name, "--as", "root", "--op", "read", "/"] : [command, d + "/" + name]
                // `timeout` ends the old behaviour (a FIFO waited on) instead of the test run.
                let r = try run("/usr/bin/timeout", ["20"] + [fspolicyBinary()] + args)
                #expect(r.status == 3, "\(args): \(r.status) \(r.stderr)")
                #expect(r.stderr.contains("cannot read `\(d)/\(name)`: \(message)"), "\(args): \(r.stderr)")
            }
        }
        // Imported, the same files are refused the same way, at the import, with the reason.
        try "fspolicy: 1\nimport:\n  - policy: fifo.yaml\n  - policy: \(d)/dir.yaml\n".write(toFile: d + "/importer.yaml", atomically: false, encoding: .utf8)
        let imp = try run("/usr/bin/timeout", ["20", fspolicyBinary(), "validate", d + "/importer.yaml"])
        #expect(imp.status == 3, "\(imp.stderr)")
        #expect(
            imp.stderr.contains("importer.yaml:3:13: error: cannot read imported policy `fifo.yaml`: it is a FIFO, and nothing was written to it"),
            "\(imp.stderr)")
        #expect(imp.stderr.contains("help: relative paths are relative to this file's folder (`\(d)/fifo.yaml` here)"), "\(imp.stderr)")
        #expect(imp.stderr.contains("importer.yaml:4:13: error: cannot read imported policy `\(d)/dir.yaml`: it is a directory"), "\(imp.stderr)")
        // A FIFO with a writer, and a shell's `<(…)`, are read like the file.
        let piped = try Self.sh("cat \(Self.policy) > \(d)/fifo.yaml & \(fspolicyBinary()) check \(d)/fifo.yaml; s=$?; wait; exit $s")
        #expect(piped.status == 0 && piped.stdout.contains("16 expectations, 16 passed"), "\(piped.stdout) \(piped.stderr)")
    }
}
