#if os(Linux)
    import FSPolicy
    import Foundation
    import Glibc
    import Testing

    // Issue 14: `fspolicy matrix` against the kernel. Random trees (owners, groups, modes, POSIX
    // ACLs with masks, default ACLs, immutable and append-only flags, symlinks) are materialized
    // with test users, scanned with `fspolicy scan`, and the whole table `fspolicy matrix` prints
    // for them is compared, cell by cell, with what the kernel does when each user really opens the
    // node for reading, for writing, or runs it (the probe of the differential tests).

    extension DifferentialTests {
        @Test(
            "every cell of `fspolicy matrix` (read, write, execute × every node × every test user and root) is what the kernel does",
            .enabled(if: isRoot, "needs root: it creates test users and groups and runs probes as them (run the suite as root, as CI does)"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func matrixAgreesWithKernel() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-matrix-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }

            struct Who { var name: String; var prober: Prober }
            var subjects: [Who] = []
            for a in accounts.users { subjects.append(Who(name: a.name, prober: try Prober(probe: probe, uid: a.uid, gid: a.gid))) }
            subjects.append(Who(name: "root", prober: try Prober(probe: probe, uid: nil, gid: nil)))
            let users = subjects.map(\.name).joined(separator: ",")

            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261126)
            let trees = Int(ProcessInfo.processInfo.environment["FSPOLICY_MATRIX_TREES"] ?? "") ?? 4
            var cells = 0
            var unknownCells = 0
            var allowed = 0
            var byOp: [String: Int] = [:]
            var disagreements: [String] = []
            for round in 1...trees {
                let root = parent + "/t\(round)"
                mkdir(root, 0o755)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let scan = parent + "/t\(round).yaml"
                let (s1, o1) = sh([bin, "scan", root, "-o", scan])
                #expect(s1 == 0, "fspolicy scan \(root): \(o1)")
                let (s2, csv) = sh([bin, "matrix", scan, "--users", users, "--under", root, "--semantics", "linux", "--list-all"])
                #expect(s2 == 0, "fspolicy matrix: \(csv)")
                var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if lines.last == "" { lines.removeLast() }
                // A scan marks the folders above its root `unread: outside`, so the table has a column
                // for the answers that depend on what was not read (P6): those are not compared.
                #expect(lines.first == "path,op,allowed,unknown", "the header: \(lines.first ?? "none")")
                // One row per (node, op): the root, every file, directory and symlink made, × 3 ops.
                let nodes = 1 + tree.files.count + tree.dirs.count + tree.links.count
                #expect(lines.count - 1 == 3 * nodes, "\(lines.count - 1) rows for \(nodes) nodes × 3 ops")
                var seen: Set<String> = []
                for row in lines.dropFirst() {
                    let f = row.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                    guard f.count == 4 else { Issue.record("malformed row: \(row)"); continue }
                    let unknownNames = Set(f[3].split(separator: " ").map(String.init))
                    let (path, op) = (f[0], f[1])
                    seen.insert(path)
                    let names = Set(f[2].split(separator: " ").map(String.init))
                    for who in subjects {
                        if unknownNames.contains(who.name) { unknownCells += 1; continue }
                        let kernel = who.prober.ask("\(op)\t\(path)")
                        let simulated = names.contains(who.name)
                        cells += 1
                        byOp[op, default: 0] += 1
                        if simulated { allowed += 1 }
                        if (kernel == "OK") != simulated {
                            let (_, why) = sh([bin, "explain", scan, "--semantics", "linux", "--as", who.name, "--op", op, path])
                            disagreements.append("tree \(round): \(who.name) \(op) \(path): kernel \(kernel), matrix \(simulated ? "allow" : "deny")\n\(why)")
                        }
                    }
                }
                #expect(seen == Set([root] + tree.files + tree.dirs + tree.links), "the matrix covers exactly the nodes of the tree")
            }
            subjects = []
            let summary = byOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "matrix differential test: \(cells) cells in \(trees) random trees (\(summary)), \(allowed) allowed, \(unknownCells) unknown (not compared); \(disagreements.count) disagreements"
            )
            #expect(cells >= 1000, "only \(cells) cells were compared")
            #expect(allowed > cells / 10 && allowed < cells * 9 / 10, "the trees allow \(allowed) of \(cells) cells: too uniform to tell anything apart")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(cells) cells disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif
