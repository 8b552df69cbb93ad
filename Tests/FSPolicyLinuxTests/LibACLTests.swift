#if os(Linux)
    import CLibACL
    import FSPolicy
    import FSPolicyFormat
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// The ACL attribute of `path` as the kernel stores it, or nil when it has none.
    private func rawAttribute(_ path: String, isDefault: Bool) -> [UInt8]? {
        let name = isDefault ? "system.posix_acl_default" : "system.posix_acl_access"
        let size = lgetxattr(path, name, nil, 0)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, $0.count) }
        return n >= 0 ? Array(bytes[0..<n]) : nil
    }

    @Suite("ACLs through libacl and through the attribute decoder")
    struct LibACLTests {
        /// A tree of files, directories, a fifo and symlinks, most with random access ACLs and the
        /// directories with random default ACLs (a fixed seed, so a failure repeats).
        func makeTree(_ t: TempTree) -> (files: Int, withACL: Int) {
            var seed: UInt64 = 0x5EED_AC1
            func next(_ n: UInt64) -> UInt64 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return (seed >> 33) % n
            }
            let ids: [UInt32] = [0, 1, 2, 100, 1000, 1001, 65534, 65535, 70000, 4_294_967_294]
            func perms() -> String { ["---", "r--", "-w-", "--x", "rw-", "r-x", "-wx", "rwx"][Int(next(8))] }
            func spec() -> String {
                var parts = ["u::" + perms(), "g::" + perms(), "o::" + perms()]
                let named = Int(next(5))
                var seenU = Set<UInt32>(), seenG = Set<UInt32>()
                for _ in 0..<named {
                    let id = ids[Int(next(UInt64(ids.count)))]
                    if next(2) == 0 {
                        if seenU.insert(id).inserted { parts.append("u:\(id):" + perms()) }
                    } else if seenG.insert(id).inserted {
                        parts.append("g:\(id):" + perms())
                    }
                }
                if named > 0 || next(3) == 0 { parts.append("m::" + perms()) }
                return parts.joined(separator: ",")
            }
            var nodes: [String] = []
            var dirs: [String] = []
            for d in 0..<6 {
                let dir = "d\(d)"
                t.dir(dir)
                dirs.append(dir)
                nodes.append(dir)
                for f in 0..<30 {
                    t.file("\(dir)/f \(f)", mode: 0o640)
                    nodes.append("\(dir)/f \(f)")
                }
                t.dir("\(dir)/sub")
                dirs.append("\(dir)/sub")
                nodes.append("\(dir)/sub")
            }
            mkfifo(t.path + "/d0/fifo", 0o600)
            nodes.append("d0/fifo")
            symlink("f 1", t.path + "/d0/link")
            symlink("missing", t.path + "/d0/dangling")
            var withACL = 0
            for n in nodes where next(3) != 0 {
                let s = spec()
                let (status, out) = sh(["setfacl", "--set", s, t.path + "/" + n])
                #expect(status == 0, "setfacl \(n): \(out)")
                // Only the three base entries: the kernel keeps no attribute, the mode says it all.
                if s.contains("m::") { withACL += 1 }
            }
            for d in dirs where next(2) == 0 {
                let (status, out) = sh(["setfacl", "-d", "--set", spec(), t.path + "/" + d])
                #expect(status == 0, "setfacl -d \(d): \(out)")
            }
            return (nodes.count, withACL)
        }

        @Test("on every node of a scanned tree with ACLs, the scanner's ACLs are libacl's, and the attribute decodes to libacl's entries")
        func everyScannedNode() throws {
            let t = try TempTree("libacl")
            guard aclSupported(t) else {
                print("LibACLTests skipped: the temporary directory's file system has no POSIX ACLs (setfacl failed)")
                return
            }
            let (made, withACL) = makeTree(t)
            let tree = TreeScanner.scan(t.path)
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            var compared = 0, attributes = 0, defaults = 0
            for e in tree.entries {
                let path = e.relativePath.isEmpty ? t.path : t.path + "/" + e.relativePath
                if e.type == .symlink {
                    // ACLs belong to the link's target; the scan records none on a link.
                    #expect(e.access == nil && e.defaultACL == nil, "\(path)")
                    continue
                }
                for isDefault in e.type == .dir ? [false, true] : [false] {
                    let scanned = isDefault ? e.defaultACL : e.access
                    switch LibACL.acl(path: path, isDefault: isDefault) {
                    case .success(let viaLib):
                        #expect(
                            viaLib == scanned,
                            "\(isDefault ? "default" : "access") ACL of \(path): scan \(String(describing: scanned)), libacl \(String(describing: viaLib))")
                    case .failure(let e):
                        Issue.record("libacl cannot read the \(isDefault ? "default" : "access") ACL of \(path): \(e.message)")
                    }
                    compared += 1
                    guard let raw = rawAttribute(path, isDefault: isDefault) else {
                        #expect(scanned == nil || (isDefault == false && scanned!.isMinimal), "\(path) has no attribute")
                        continue
                    }
                    // The same bytes, read by the one decoder and by libacl: the same entries in the same order.
                    let decoded = POSIXACLXattr.lines(raw, isDefault: isDefault)
                    let lib = LibACL.lines(path: path, isDefault: isDefault)
                    guard case .success(let d) = decoded, case .success(let l) = lib else {
                        Issue.record("\(path): decoder \(decoded), libacl \(lib)")
                        continue
                    }
                    #expect(d == l, "\(path)")
                    #expect(
                        POSIXACLXattr.decode(raw, isDefault: isDefault).map { $0.map(POSIXACLXattr.encode) } == .success(scanned.map { _ in raw }),
                        "\(path): the decoded ACL written back is the kernel's bytes")
                    attributes += 1
                    if isDefault { defaults += 1 }
                }
            }
            #expect(tree.entries.count == made + 3, "every node made, the root and two links")
            #expect(attributes >= withACL, "every ACL set was compared")
            #expect(defaults > 0)
            print(
                "libacl comparison: \(compared) ACLs of \(tree.entries.count) scanned nodes compared, \(attributes) attributes decoded both ways (\(defaults) default ACLs)"
            )
        }
    }
#endif
