#if os(Linux)
    import FSPolicy
    import Foundation
    import Glibc
    import Testing

    // Issue 47: `matrix` and `access` with services as subjects, against the kernel. Random trees
    // are made with test users and scanned; services are added to the scan (each test user with
    // random ambient capabilities, root with a random bounding set), and every cell of the table
    // `fspolicy matrix --users service:…` prints is compared with what a real process does: the
    // probe started by `setpriv` as that user with those capabilities (`--inh-caps`,
    // `--ambient-caps`, `--bounding-set`), its effective set read back from /proc first.
    // `access --as service:…` is checked to list exactly the matrix's column.

    extension DifferentialTests {
        @Test(
            "every cell of `fspolicy matrix` for services with capabilities is what a process with those capabilities gets from the kernel",
            .enabled(if: isRoot, "needs root: it creates test users and starts probes with capabilities through setpriv"),
            .enabled(if: aclsInTemp, "needs POSIX ACL support in the temporary directory's file system"))
        func serviceMatrixAgreesWithKernel() throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
                Issue.record("setpriv (util-linux) is missing: scripts/setup installs it")
                return
            }
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-svcmatrix-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            chmod(parent, 0o755)
            defer {
                sh(["chattr", "-R", "-i", "-a", parent])
                try? FileManager.default.removeItem(atPath: parent)
            }
            let accounts = try TestAccounts()
            defer { accounts.remove() }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing: run `swift build` first"); return }

            let pool: [(Capabilities, String)] = [(.dacReadSearch, "cap_dac_read_search"), (.dacOverride, "cap_dac_override"), (.fowner, "cap_fowner")]
            var rng = Rand(state: UInt64(ProcessInfo.processInfo.environment["FSPOLICY_DIFF_SEED"] ?? "") ?? 20261129)
            let trees = Int(ProcessInfo.processInfo.environment["FSPOLICY_MATRIX_TREES"] ?? "") ?? 4
            var cells = 0, unknownCells = 0, allowed = 0, byCapability = 0, accessChecked = 0
            var disagreements: [String] = []
            for round in 1...trees {
                let root = parent + "/t\(round)"
                mkdir(root, 0o755)
                let tree = buildRandomTree(at: root, accounts: accounts, rng: &rng)
                let scan = parent + "/t\(round).yaml"
                let (s1, o1) = sh([bin, "scan", root, "-o", scan])
                #expect(s1 == 0, "fspolicy scan \(root): \(o1)")
                // The services: each test user with a random ambient set, and two roots with a
                // random bounding set; the probe of each started with the same set.
                struct Who { var name: String; var user: String?; var caps: Capabilities; var prober: Prober }
                var who: [Who] = []
                var yaml = "\nservices:\n"
                for (i, a) in accounts.users.enumerated() {
                    var caps: Capabilities = []
                    for (c, _) in pool where rng.chance(1, 2) { caps.insert(c) }
                    let names = pool.filter { caps.contains($0.0) }.map(\.1).joined(separator: ", ")
                    yaml += "  s\(i): {user: \(a.name)" + (caps.isEmpty ? "" : ", ambientCapabilities: [\(names)], capabilityBoundingSet: [\(names)]") + "}\n"
                    let options = setprivCapabilityOptions(caps, root: false)
                    guard let eff = effectiveCapabilities(options, uid: a.uid, gid: a.gid), eff == caps else {
                        Issue.record("setpriv \(options) did not leave \(caps.lowerNames) effective")
                        return
                    }
                    who.append(Who(name: "service:s\(i)", user: a.name, caps: caps, prober: try Prober(probe: probe, uid: a.uid, gid: a.gid, setpriv: options)))
                }
                for i in 0..<2 {
                    var caps: Capabilities = []
                    for (c, _) in pool where rng.chance(1, 2) { caps.insert(c) }
                    let names = pool.filter { caps.contains($0.0) }.map(\.1).joined(separator: ", ")
                    yaml += "  r\(i): {user: root, capabilityBoundingSet: [\(names)]}\n"
                    let options = setprivCapabilityOptions(caps, root: true)
                    guard let eff = effectiveCapabilities(options, uid: nil, gid: nil), eff == caps else {
                        Issue.record("setpriv \(options) did not leave root \(caps.lowerNames) effective")
                        return
                    }
                    who.append(Who(name: "service:r\(i)", user: nil, caps: caps, prober: try Prober(probe: probe, uid: nil, gid: nil, setpriv: options)))
                }
                let handle = try #require(FileHandle(forWritingAtPath: scan))
                handle.seekToEndOfFile()
                handle.write(Data(yaml.utf8))
                try handle.close()
                // The services' users too: a cell a service is allowed and its user is not is
                // allowed through a capability.
                let users = (who.map(\.name) + accounts.users.map(\.name)).joined(separator: ",")
                let (s2, csv) = sh([bin, "matrix", scan, "--users", users, "--under", root, "--semantics", "linux", "--list-all"])
                #expect(s2 == 0, "fspolicy matrix: \(csv)")
                var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if lines.last == "" { lines.removeLast() }
                #expect(lines.first == "path,op,allowed,unknown", "the header: \(lines.first ?? "none")")
                let nodes = 1 + tree.files.count + tree.dirs.count + tree.links.count
                #expect(lines.count - 1 == 3 * nodes, "\(lines.count - 1) rows for \(nodes) nodes × 3 ops")
                var readers: [String: Set<String>] = [:]
                // The nodes whose matrix rows ask `read` (all but directories, which get list, search, modify).
                var readRows: Set<String> = []
                for row in lines.dropFirst() {
                    let f = row.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                    guard f.count == 4 else { Issue.record("malformed row: \(row)"); continue }
                    let unknownNames = Set(f[3].split(separator: " ").map(String.init))
                    let (path, op) = (f[0], f[1])
                    let names = Set(f[2].split(separator: " ").map(String.init))
                    for w in who {
                        if unknownNames.contains(w.name) { unknownCells += 1; continue }
                        let kernel = w.prober.ask("\(op)\t\(path)")
                        let simulated = names.contains(w.name)
                        if op == "read" { readRows.insert(path) }
                        if simulated && op == "read" { readers[w.name, default: []].insert(path) }
                        cells += 1
                        if simulated { allowed += 1 }
                        if simulated, let u = w.user, !names.contains(u), !unknownNames.contains(u) { byCapability += 1 }
                        if (kernel == "OK") != simulated {
                            let (_, why) = sh([bin, "explain", scan, "--semantics", "linux", "--as", w.name, "--op", op, path])
                            disagreements.append(
                                "tree \(round): \(w.name) \(w.caps.lowerNames) \(op) \(path): kernel \(kernel), matrix \(simulated ? "allow" : "deny")\n\(why)")
                        }
                    }
                }
                // `access` lists the nodes of the matrix's column (read, as the set engine decides both).
                for w in who.prefix(3) {
                    let (s3, out) = sh([bin, "access", scan, "--as", w.name, "--op", "read", "--under", root, "--semantics", "linux", "--format", "csv"])
                    #expect(s3 == 0, "fspolicy access: \(out)")
                    let listed = Set(out.split(separator: "\n").dropFirst().map { String($0.split(separator: ",").dropLast().joined(separator: ",")) })
                    #expect(listed.intersection(readRows) == readers[w.name, default: []], "access --as \(w.name) lists what matrix allows")
                    accessChecked += 1
                }
                who = []
            }
            print(
                "service matrix differential test: \(cells) cells in \(trees) random trees for services with capabilities, \(allowed) allowed (\(byCapability) only through a capability), \(unknownCells) unknown (not compared); access checked for \(accessChecked) services; \(disagreements.count) disagreements"
            )
            #expect(cells >= 1000, "only \(cells) cells were compared")
            #expect(byCapability > 0, "no cell was allowed through a capability: the test tells nothing about them")
            #expect(
                disagreements.isEmpty,
                "\(disagreements.count) of \(cells) cells disagree with the kernel:\n\(disagreements.prefix(5).joined(separator: "\n\n"))")
        }
    }
#endif
