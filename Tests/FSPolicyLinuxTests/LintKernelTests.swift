#if os(Linux)
    import FSPolicy
    import Foundation
    import Glibc
    import Testing

    // Issue 15: `lint` on real trees never claims an access the kernel refuses. Every finding that
    // names accounts (who may read, write, modify, replace, create) is checked by asking the kernel
    // as that account: `setpriv` sets the real and effective ids and groups, and `test -r/-w/-x`
    // calls access(2), which runs the same permission check as open and the path walk (modes,
    // POSIX ACLs, search on every directory above).

    /// One access a finding claims: an account (or "any other user") and what it may do to a path.
    struct ClaimedAccess: CustomStringConvertible {
        var who: String
        var path: String
        /// `r`, `w`, or `create` / `replace` (write and search on the directory).
        var what: String
        var description: String { "\(who) \(what) \(path)" }
    }

    enum LintClaims {
        /// The accesses the findings of a `lint --format json` output claim, from their `claims`
        /// (each an op on a path and the names allowed it; the message writes the same sets in
        /// words): `read` and `write` of the path, `create` in the path's directory, `delete`
        /// (replace) from it, `execute` of the path.
        static func claims(_ json: String) throws -> [ClaimedAccess] {
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            var out: [ClaimedAccess] = []
            for f in try #require(doc["findings"] as? [[String: Any]]) {
                for c in f["claims"] as? [[String: Any]] ?? [] {
                    guard let op = c["op"] as? String, let path = c["path"] as? String, let who = c["who"] as? [String] else { continue }
                    let parent = (path as NSString).deletingLastPathComponent
                    let (what, target): (String, String)
                    switch op {
                    case "read": (what, target) = ("r", path)
                    case "write": (what, target) = ("w", path)
                    case "execute": (what, target) = ("x", path)
                    case "create": (what, target) = ("create", parent)
                    case "delete": (what, target) = ("replace", parent)
                    default: continue
                    }
                    for name in who { out.append(ClaimedAccess(who: name, path: target, what: what)) }
                }
            }
            return out
        }

        /// Whether the kernel gives `who` the access (as that account: its uid, primary gid and
        /// groups; "(any other user)" as an unused uid with no groups), with what `setpriv` printed
        /// (nothing, unless it could not run the check: then the failure message says why, instead
        /// of reading as a refusal).
        static func kernelAnswer(_ c: ClaimedAccess) -> (allowed: Bool, output: String) {
            var ids: [String]
            if c.who == "(any other user)" {
                ids = ["--reuid=3999999", "--regid=3999999", "--clear-groups"]
            } else if let pw = passwdIDs(named: c.who) {
                ids = ["--reuid=\(pw.uid)", "--regid=\(pw.gid)", "--init-groups"]
            } else {
                return (false, "no account \(c.who)")
            }
            var said = ""
            func test(_ flag: String, _ p: String) -> Bool {
                let (st, out) = sh(["setpriv"] + ids + ["test", flag, p])
                if !out.isEmpty || (st != 0 && st != 1) { said += "setpriv \(ids.joined(separator: " ")) test \(flag) \(p): exit \(st) \(out)" }
                return st == 0
            }
            switch c.what {
            case "r": return (test("-r", c.path), said)
            case "w": return (test("-w", c.path), said)
            case "x": return (test("-x", c.path), said)
            default: return (test("-w", c.path) && test("-x", c.path), said)  // create, replace: write and search the directory
            }
        }
    }

    @Suite("lint against the kernel")
    struct LintKernelTests {
        func lintJSON(_ args: [String]) throws -> String {
            let bin = try #require(fspolicyBinary(), "build fspolicy first")
            let (st, out) = sh([bin, "lint", "--format", "json", "--fail-on", "note"] + args)
            #expect(st == 0 || st == 1, "lint exits 0 or 1, not \(st): \(out.prefix(500))")
            return out
        }

        @Test(
            "lint of scans of this machine's /etc and /usr/bin finishes, and every access a finding claims the kernel allows",
            .enabled(if: isRoot, "needs root: it reads all of /etc and asks the kernel as each affected account (setpriv)"))
        func hostTrees() throws {
            let bin = try #require(fspolicyBinary(), "build fspolicy first")
            let t = try TempTree("lintk")
            var checked = 0, gone = 0
            for dir in ["/etc", "/usr/bin"] {
                let scan = t.path + "/" + dir.replacingOccurrences(of: "/", with: "_") + ".yaml"
                let (st, out) = sh([bin, "scan", dir, "-o", scan])
                // 1: some paths could not be read — on a live /etc, files that other tests' useradd
                // creates and removes while the scan runs (each is named on standard error).
                #expect(st == 0 || st == 1, "scan \(dir): \(out.prefix(300))")
                let json = try lintJSON([scan])
                for c in try LintClaims.claims(json) {
                    // Other tests add and remove temporary accounts and files on this live host while
                    // it runs: an account or a path gone since the scan cannot be asked about.
                    if (c.who != "(any other user)" && passwdIDs(named: c.who) == nil) || access(c.path, F_OK) != 0 {
                        gone += 1
                        continue
                    }
                    let k = LintClaims.kernelAnswer(c); #expect(k.allowed, "lint claims \(c), the kernel refuses \(k.output)")
                    checked += 1
                }
            }
            // Nothing to assert about how many: a tidy host has few (this one's only claim may be a
            // certificate under /etc/ssl named *.pem). The synthetic test below always has some.
            print(
                "lint kernel check: \(checked) claimed accesses on /etc and /usr/bin confirmed; \(gone) about accounts or files gone since the scan (other tests' temporary ones) not asked"
            )
        }

        @Test(
            "on a tree with known problems, every claimed access is real, and the accounts a sensitive file's finding leaves out are refused",
            .enabled(if: isRoot, "needs root: it creates test users and groups and asks the kernel as them"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func knownProblems() throws {
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            let t = try TempTree("lintk")
            chmod(t.path, 0o755)
            let g = accounts.groups.map(\.gid), u = accounts.users
            t.dir("r", mode: 0o755)
            t.dir("r/svc", mode: 0o775)
            chown(t.path + "/r/svc", 0, g[0])
            t.dir("r/keys", mode: 0o755)
            t.file("r/keys/id_ed25519", mode: 0o640)
            chown(t.path + "/r/keys/id_ed25519", 0, g[1])
            t.file("r/keys/app.key", mode: 0o600)
            #expect(sh(["setfacl", "-m", "u:\(u[0].name):r--", t.path + "/r/keys/app.key"]).0 == 0)
            t.file("r/keys/world.pem", mode: 0o666)
            t.dir("r/bin", mode: 0o755)
            t.file("r/bin/tool", mode: 0o4775)
            chown(t.path + "/r/bin/tool", 0, g[2])
            chmod(t.path + "/r/bin/tool", 0o4775)
            t.dir("r/opt", mode: 0o775)
            chown(t.path + "/r/opt", 0, g[0])
            t.file("r/opt/helper", mode: 0o2755)
            let policy = """
                fspolicy: 1
                semantics: linux
                import:
                  - scan: ./r
                findings:
                  serviceDirectories: [\(t.path)/r/svc]

                """
            try policy.write(toFile: t.path + "/p.yaml", atomically: true, encoding: .utf8)
            let json = try lintJSON([t.path + "/p.yaml"])
            let claims = try LintClaims.claims(json)
            // The scan lists every account of the host, other tests' temporary ones included; one
            // deleted since the scan cannot be asked about (this test's own accounts always can).
            let mine = Set(u.map(\.name))
            for c in claims {
                if c.who != "(any other user)" && !mine.contains(c.who) && passwdIDs(named: c.who) == nil { continue }
                let k = LintClaims.kernelAnswer(c)
                // Another test's account may also be deleted while it is being asked about.
                if !k.allowed && !mine.contains(c.who) && passwdIDs(named: c.who) == nil { continue }
                #expect(k.allowed, "lint claims \(c), the kernel refuses \(k.output)")
            }
            // The problems built above are all found: group members read the key, an ACL entry
            // reads the other, every user reads and writes the .pem, group g3 modifies the tool,
            // group g1 replaces the helper and creates in the service directory.
            func has(_ who: String, _ what: String, _ suffix: String) -> Bool {
                claims.contains { $0.who == who && $0.what == what && $0.path.hasSuffix(suffix) }
            }
            let inG2 = u.filter { $0.gid == g[1] || $0.supplementary.contains(g[1]) }
            #expect(!inG2.isEmpty)
            for a in inG2 { #expect(has(a.name, "r", "/r/keys/id_ed25519"), "\(a.name) reads id_ed25519") }
            #expect(has(u[0].name, "r", "/r/keys/app.key"))
            #expect(has("(any other user)", "w", "/r/keys/world.pem"))
            #expect(claims.contains { $0.what == "w" && $0.path.hasSuffix("/r/bin/tool") })
            #expect(claims.contains { $0.what == "replace" && $0.path.hasSuffix("/r/opt") })
            #expect(claims.contains { $0.what == "create" && $0.path.hasSuffix("/r/svc") })
            // Completeness for the sensitive files: every test account a finding does not name is
            // refused by the kernel.
            for file in ["id_ed25519", "app.key"] {
                let path = t.path + "/r/keys/" + file
                let named = Set(claims.filter { $0.path == path && $0.what == "r" }.map(\.who))
                for a in u where !named.contains(a.name) {
                    let k = LintClaims.kernelAnswer(ClaimedAccess(who: a.name, path: path, what: "r"))
                    #expect(!k.allowed && k.output.isEmpty, "\(a.name) is not named for \(file), yet may read it \(k.output)")
                }
            }
        }

        @Test("every fix lint prints for a name with a line break, a byte that is not UTF-8 or a quote, run by bash, mends that file and no other")
        func fixesNameTheirFiles() throws {
            let bin = try #require(fspolicyBinary(), "build fspolicy first")
            let t = try TempTree("lintfix")
            let dir = t.path + "/d"
            // Removed by rm, which takes the names as bytes.
            defer { _ = sh(["rm", "-rf", "--", dir]) }
            // Four world-writable files with hostile names, and a decoy named with the escapes a
            // fix in single quotes would take literally: it must keep its mode.
            let made = sh([
                "bash", "-c",
                "set -e; mkdir -m 0755 \"$1\"; cd \"$1\"; touch $'new\\nline' $'bad\\377x' \"q'\\\\x\" $'tab\\there'; chmod 0666 -- *; "
                    + "touch 'new\\012line'; chmod 0600 'new\\012line'",
                "-", dir
            ])
            #expect(made.0 == 0, "\(made.1)")
            func findings() throws -> [[String: Any]] {
                let scan = t.path + "/scan.yaml"
                let (st, out) = sh([bin, "scan", dir, "-o", scan])
                #expect(st == 0, "\(out)")
                let doc = try #require(try JSONSerialization.jsonObject(with: Data(try lintJSON([scan]).utf8)) as? [String: Any])
                return try #require(doc["findings"] as? [[String: Any]]).filter { $0["code"] as? String == "FSL002" }
            }
            let before = try findings()
            #expect(before.count == 4, "one finding per world-writable file: \(before.map { $0["path"] ?? "" })")
            for f in before {
                let fix = try #require(f["fix"] as? String)
                let (st, out) = sh(["bash", "-c", fix])
                #expect(st == 0, "`\(fix)` failed: \(out)")
            }
            #expect(try findings().isEmpty, "each fix mended its own file")
            var st = stat()
            #expect(lstat(dir + "/new\\012line", &st) == 0 && st.st_mode & 0o777 == 0o600, "the decoy was left alone")
        }
    }
#endif
