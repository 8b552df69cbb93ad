#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// Issue 20: the scanner reads a directory's children on several threads and the ACLs from
    /// their extended attributes itself. Neither may change what a scan says.
    @Suite("Scanner: threads, descriptors, the ACL attribute")
    struct ScannerThreadsTests {
        /// A tree with long runs of files (read in parallel), directories among them, ACLs,
        /// default ACLs, symlinks, fifos and names that need escaping.
        func mixedTree(_ t: TempTree) {
            for d in 0..<3 {
                t.dir("d\(d)", mode: 0o755)
                for i in 0..<300 {
                    if i % 37 == 5 {
                        t.dir("d\(d)/sub\(i)", mode: 0o750)
                        for j in 0..<5 { t.file("d\(d)/sub\(i)/g\(j)", mode: 0o600) }
                    } else if i % 50 == 7 {
                        symlink("f\(i - 1)", t.path + "/d\(d)/l\(i)")
                    } else if i % 90 == 11 {
                        mkfifo(t.path + "/d\(d)/p\(i)", 0o600)
                    } else {
                        t.file("d\(d)/f\(i)", mode: 0o640 + (i % 2) * 0o004)
                    }
                }
            }
            t.file("d1/a name: with \"quotes\" \\ and é", mode: 0o644)
            sh(["setfacl", "-m", "u:65534:rw,g:100:r", t.path + "/d0/f1", t.path + "/d2/f299"])
            sh(["setfacl", "-d", "-m", "u:65534:rx", t.path + "/d1/sub5"])
            sh(["setfacl", "-m", "u:65534:rx", t.path + "/d1/sub5"])
        }

        @Test("several threads give exactly the scan of one thread: same entries, ACLs, links, problems, same file")
        func threadsChangeNothing() throws {
            let t = try TempTree("threads")
            guard aclSupported(t) else { Issue.record("this file system has no POSIX ACL support (setfacl failed): the test needs ACLs to compare"); return }
            mixedTree(t)
            // The scans record the host's fs.protected_* sysctls, which the tunable differential
            // tests change while holding the lock exclusively: the values must stay put between them.
            let sysctlLock = SysctlLock(exclusive: false)
            defer { sysctlLock.release() }
            let one = TreeScanner.scan(t.path, options: ScanOptions(readAncestors: false, allAccounts: false, threads: 1))
            #expect(one.entries.count == 1 + 3 + 3 * 300 + 3 * 8 * 5 + 1, "entries: \(one.entries.count)")
            #expect(one.entries.contains { $0.access?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .write])] })
            #expect(one.entries.contains { $0.defaultACL?.users == [POSIXACL.Entry(id: 65534, perms: [.read, .execute])] })
            #expect(one.entries.contains { $0.target == "f6" })
            let oneText = ScanWriter.yaml(one, at: "/srv")
            for threads in [2, 4] {
                let many = TreeScanner.scan(t.path, options: ScanOptions(readAncestors: false, allAccounts: false, threads: threads))
                #expect(many.entries.map(\.relativePath) == one.entries.map(\.relativePath), "\(threads) threads: another order")
                #expect(many.problems == one.problems)
                #expect(ScanWriter.yaml(many, at: "/srv") == oneText, "\(threads) threads: another scan file")
            }
        }

        @Test("a folder of 400 folders scans completely with 16 descriptors allowed (directory descriptors are held only a few at a time)")
        func fewDescriptors() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is not built (swift build): this test runs it under prlimit"); return }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
                Issue.record("needs prlimit (util-linux) to lower the descriptor limit"); return
            }
            let t = try TempTree("fds")
            for i in 0..<400 {
                t.dir(String(format: "d%03d", i))
                t.file(String(format: "d%03d/f", i))
            }
            let (status, out) = sh(["prlimit", "--nofile=16:16", bin, "scan", "-q", "--accounts", "owners", "--at", "/srv", t.path, "-o", t.path + ".yaml"])
            defer { unlink(t.path + ".yaml") }
            #expect(status == 0, "\(out)")
            let text = (try? String(contentsOfFile: t.path + ".yaml", encoding: .utf8)) ?? ""
            #expect(text.contains("\"/srv/d000/f\"") && text.contains("\"/srv/d399/f\""), "\(text.prefix(2000))")
            #expect(text.components(separatedBy: "/f\"").count - 1 == 400)
        }

        /// The kernel's `posix_acl_xattr` form: version 2, then tag, permissions, id per entry.
        func xattr(_ entries: [(UInt16, UInt16, UInt32)], version: UInt32 = 2) -> [UInt8] {
            var b: [UInt8] = withUnsafeBytes(of: version.littleEndian, Array.init)
            for (tag, perm, id) in entries {
                b += withUnsafeBytes(of: tag.littleEndian, Array.init)
                b += withUnsafeBytes(of: perm.littleEndian, Array.init)
                b += withUnsafeBytes(of: id.littleEndian, Array.init)
            }
            return b
        }

        @Test("the ACL attribute is read as the kernel writes it; a minimal access ACL is none; a malformed one is an error")
        func aclAttribute() {
            let full = xattr([(0x01, 6, 0xFFFF_FFFF), (0x02, 4, 65534), (0x04, 4, 0xFFFF_FFFF), (0x08, 5, 100), (0x10, 5, 0xFFFF_FFFF), (0x20, 0, 0xFFFF_FFFF)])
            let a = full.withUnsafeBytes { Sys.parseACL($0, isDefault: false) }
            guard case .success(let acl?) = a else { Issue.record("not read: \(a)"); return }
            #expect(acl.users == [POSIXACL.Entry(id: 65534, perms: [.read])])
            #expect(acl.groups == [POSIXACL.Entry(id: 100, perms: [.read, .execute])])
            let minimal = xattr([(0x01, 6, 0), (0x04, 4, 0), (0x20, 4, 0)])
            guard case .success(let none) = minimal.withUnsafeBytes({ Sys.parseACL($0, isDefault: false) }) else { Issue.record("minimal ACL refused"); return }
            #expect(none == nil, "a 3-entry access ACL only repeats the mode")
            guard case .success(let dflt) = minimal.withUnsafeBytes({ Sys.parseACL($0, isDefault: true) }) else {
                Issue.record("minimal default ACL refused"); return
            }
            #expect(dflt != nil, "a 3-entry default ACL is still a default ACL")
            for bad in [xattr([(0x01, 6, 0)], version: 1), Array(full.dropLast()), xattr([(0x40, 6, 0)]), [2, 0]] {
                guard case .failure = bad.withUnsafeBytes({ Sys.parseACL($0, isDefault: false) }) else { Issue.record("accepted \(bad)"); continue }
            }
        }
    }
#endif
