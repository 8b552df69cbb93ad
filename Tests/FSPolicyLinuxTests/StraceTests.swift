#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// `strace` is installed (scripts/setup installs it).
    let straceAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    // A real program's file calls, as a policy: a shell script makes them under `strace -f`
    // (coreutils, the shell's redirections, and the probe for the flag sets a shell cannot ask,
    // part of them as a test user through setpriv), `StraceTranslator` turns the log into steps
    // and expectations in the order of the calls, appended to the scan of the tree the script
    // started from, and `fspolicy check` must pass on it: every call's answer is the simulator's.

    @Suite("A traced shell script as a policy", .serialized)
    struct StraceTests {
        /// The script: its arguments are the tree, the probe, the test user's uid and gid.
        static let script = """
            set -u
            R=$1 P=$2 U=$3 G=$4
            umask 022
            mkdir "$R/made"
            mkdir "$R/made/sub"
            : > "$R/made/new.txt"
            echo more >> "$R/made/new.txt"
            : < "$R/pub/readme"
            ln "$R/made/new.txt" "$R/made/hard"
            ln -s "$R/pub/readme" "$R/made/soft"
            mkfifo "$R/made/pipe"
            chown -h "$U" "$R/made/soft"
            "$P" >/dev/null <<EOF
            create\t$R/pub/readme
            open\t$R/made/new.txt\tO_RDONLY|O_TRUNC
            open\t$R/pub/readme\tO_RDONLY|O_DIRECTORY
            open\t$R/made/soft\tO_RDONLY|O_NOFOLLOW
            open\t$R/made/pipe\tO_RDWR
            open\t$R/made/sub\tO_PATH
            rename\t$R/made/.\t$R/moved
            unlink\t$R/made
            rmdir\t$R/made
            settimes\t$R/made/new.txt\tset,now
            chown\t$R/made/new.txt\t-1:-1
            lchown\t$R/made/soft\t-1:$G
            chown\t$R/made/new.txt\t$U:$G
            EOF
            umask 077
            setpriv --reuid="$U" --regid="$G" --init-groups "$P" >/dev/null <<EOF
            open\t$R/secret/key\tO_RDONLY
            open\t$R/pub/readme\tO_RDONLY|O_TRUNC
            open\t$R/pub/readme\tO_RDONLY
            settimes\t$R/pub/readme\tnow,omit
            settimes\t$R/pub/readme\tomit,omit
            settimes\t$R/made/new.txt\tnow,now
            touch\t$R/pub/readme
            create\t$R/shared/f
            mkdir\t$R/shared/d
            unlink\t$R/made/hard
            rename\t$R/shared/f\t$R/pub/stolen
            EOF
            rm "$R/made/hard"
            rmdir "$R/made/sub"

            """

        /// A binary built beside the test bundle (`fspolicy`, `fspolicy-probe`).
        static func built(_ name: String) throws -> String? {
            var dir = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
            for _ in 0..<4 {
                let cand = dir.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: cand) { return cand }
                dir = dir.deletingLastPathComponent()
            }
            return nil
        }

        @Test(
            "a shell script's traced file calls become steps and expectations that fspolicy check passes",
            .enabled(if: isRoot, "needs root: it creates a test user and runs part of the script as that user"),
            .enabled(if: straceAvailable, "needs strace (scripts/setup installs it)"))
        func traceBecomesPolicy() throws {
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let parent = "/tmp/fss-" + String(UUID().uuidString.prefix(8))
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try NodeKindDifferentialTests.installProbe(in: parent), let fspolicy = try Self.built("fspolicy") else {
                Issue.record("the fspolicy and fspolicy-probe binaries are missing: run `swift build` first")
                return
            }
            let user = accounts.users[1]
            // The tree the script starts from.
            let r = parent + "/r"
            for (dir, owner, mode) in [(r, UID(0), mode_t(0o755)), (r + "/pub", 0, 0o755), (r + "/secret", 0, 0o700), (r + "/shared", user.uid, 0o755)] {
                mkdir(dir, 0o755)
                chown(dir, owner, owner == 0 ? 0 : user.gid)
                chmod(dir, mode)
            }
            for (file, mode) in [(r + "/pub/readme", mode_t(0o644)), (r + "/secret/key", 0o600)] {
                close(open(file, O_CREAT | O_WRONLY, mode))
                chmod(file, mode)
            }
            let scan = ScanWriter.yaml(TreeScanner.scan(r))
            let scriptPath = parent + "/calls.sh"
            try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
            let log = parent + "/calls.log"
            let (status, output) = sh([
                "strace", "-f", "-qq", "-s", "4096", "-o", log, "-e", "trace=%file,%creds,umask,clone,clone3,fork,vfork",
                "/bin/sh", scriptPath, r, probe, String(user.uid), String(user.gid)
            ])
            #expect(status == 0, "the traced script failed: \(output)")
            let text = try String(contentsOfFile: log, encoding: .utf8)
            var t = StraceTranslator(root: r, startingAs: StraceTranslator.Cred())
            t.translate(text)
            let policyPath = parent + "/trace-policy.yaml"
            let policy = scan + "\n" + t.yaml
            try policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
            let (checked, report) = sh([fspolicy, "check", policyPath])
            let ops = t.byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let skipped = t.skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "strace test: \(text.split(separator: "\n").count) log lines; \(t.steps.count) steps and \(t.expectations.count) expectations (\(ops)); not translated: \(skipped.isEmpty ? "none" : skipped)"
            )
            #expect(checked == 0, "fspolicy check fails on the translated trace:\n\(report)\n--- policy ---\n\(policy)")
            // Every kind of call the script makes was translated, and the refusals it provokes
            // are expectations with their errno; the test user's calls carry its credential.
            for op in ["mkdir", "open", "link", "symlink", "mkfifo", "chown", "lchown", "settimes", "touch", "rename", "unlink", "rmdir", "lstat"] {
                #expect(t.byOp[op, default: 0] > 0, "no `\(op)` was translated")
            }
            for e in ["EEXIST", "ENOTDIR", "ELOOP", "EBUSY", "EISDIR", "ENOTEMPTY", "EACCES", "EPERM"] {
                #expect(t.expectations.contains { $0.contains("errno: \(e)") }, "no expectation of \(e)")
            }
            #expect(t.expectations.contains { $0.contains("as: \(user.uid),") && $0.contains("groups: [") })
            #expect(t.steps.contains { $0.contains("as: \(user.uid),") && $0.contains("umask: \"077\"") })
        }
    }
#endif
