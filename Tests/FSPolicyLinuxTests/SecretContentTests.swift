#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// `scan` reads the first bytes of files with sensitive names (`content:`), so that lint's
    /// FSL012 reports keys and other secrets and never the certificates every TLS client reads.
    @Suite("Secrets and public material in a scan")
    struct SecretContentTests {
        static let cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n"
        static let key = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----\n"

        @Test("scan records what each sensitive file holds, leaves other files and their access times alone")
        func scanRecordsContent() throws {
            let t = try TempTree("content")
            t.file("ca.pem", "# bundle\n" + Self.cert + Self.cert)
            t.file("server.key", Self.key)
            t.file("combined.pem", Self.cert + Self.key)
            t.file("pub.pem", "-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n")
            t.file(".env", "TOKEN=x\n")
            t.file("notes.txt", Self.key)
            // A bundle larger than what is read: its end is unknown, so it is not called public.
            t.file("big.pem", Self.cert + String(repeating: "#\n", count: ContentKind.readLimit / 2 + 10))
            #expect(mkfifo(t.path + "/pipe.pem", 0o644) == 0)
            // An access time in the past, which a read would move (relatime: older than a day).
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, t.path + "/ca.pem", &times, 0) == 0)

            let tree = TreeScanner.scan(t.path)
            func kind(_ name: String) -> ContentKind? { tree.entries.first { $0.relativePath == name }?.content }
            #expect(kind("ca.pem") == .certificate)
            #expect(kind("server.key") == .privateKey)
            #expect(kind("combined.pem") == .privateKey)
            #expect(kind("pub.pem") == .publicKey)
            #expect(kind(".env") == .other)
            #expect(kind("big.pem") == .other)
            #expect(kind("notes.txt") == nil, "a name that is not sensitive is not read")
            #expect(kind("pipe.pem") == nil, "a FIFO is never opened")
            var st = stat()
            #expect(stat(t.path + "/ca.pem", &st) == 0)
            #expect(st.st_atim.tv_sec == 1_000_000_000, "reading the content left the access time alone")
        }

        @Test("lint's FSL012 reports keys and secrets a scan found, never certificates or public keys")
        func lintLeavesPublicMaterial() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is not built"); return }
            let t = try TempTree("content-lint")
            t.dir("tree")
            t.file("tree/ca.pem", Self.cert)
            t.file("tree/pub.pem", "ssh-ed25519 AAAAC3Nza alice@host\n")
            t.file("tree/server.key", Self.key)
            t.file("tree/combined.pem", Self.cert + Self.key)
            t.file("tree/.env", "TOKEN=x\n")
            let out = t.path + "/scan.yaml"
            let scan = sh([bin, "scan", t.path + "/tree", "-o", out])
            #expect(scan.0 == 0, "\(scan.1)")
            let text = try String(contentsOfFile: out, encoding: .utf8)
            #expect(text.contains("content: certificate") && text.contains("content: private-key"))
            let lint = sh([bin, "lint", out, "--format", "json"])
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(lint.1.utf8)) as? [String: Any], "\(lint.1)")
            let flagged = Set(
                (doc["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "FSL012" }.compactMap {
                    ($0["path"] as? String).map { ($0 as NSString).lastPathComponent }
                })
            #expect(flagged == ["server.key", "combined.pem", ".env"], "\(flagged)")
        }

        @Test("on this machine's /etc and /usr, no file a scan found to hold only certificates is reported as a secret")
        func realHostCertificates() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is not built"); return }
            let t = try TempTree("content-host")
            let roots = ["/etc", "/usr"].filter { FileManager.default.fileExists(atPath: $0) }
            guard !roots.isEmpty else { print("skipped: this host has neither /etc nor /usr"); return }
            let out = t.path + "/host.yaml"
            let scan = sh([bin, "scan"] + roots + ["-o", out])
            #expect(scan.0 == 0, "\(scan.1)")
            let policy = PolicyLoader.load(path: out, host: testHost)
            #expect(!policy.diagnostics.hasErrors)
            let certs = policy.world.contentKinds.filter { $0.value.isPublic }.map { policy.world.path(of: $0.key) }
            let lint = sh([bin, "lint", out, "--format", "json"])
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(lint.1.utf8)) as? [String: Any], "\(lint.1)")
            let flagged = Set((doc["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "FSL012" }.compactMap { $0["path"] as? String })
            for c in certs { #expect(!flagged.contains(c), "\(c) holds only public material and is reported as a secret") }
            for f in flagged {
                let n = try #require(policy.world.lookup(f))
                #expect(policy.world.contentKinds[n]?.isPublic != true)
            }
            print(
                "real host: \(certs.count) files of public material read in \(roots.joined(separator: ", ")); \(flagged.count) FSL012 findings, none of them public"
            )
        }
    }
#endif
