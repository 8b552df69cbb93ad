#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import Foundation
    import Glibc
    import Testing

    // Hard links are one file with several names (docs/semantics.md O10): a scan records which names
    // are one file, a change through one name shows through every name, and rename of one name onto
    // another of the same file does nothing and succeeds, as the kernel answers.

    extension DifferentialTests {
        @Test(
            "hard links: scanned as one file; rename onto another name of it succeeds before any permission check, as the kernel answers",
            .enabled(if: isRoot, "needs root: it runs probes as nobody and daemon"))
        func hardLinksAgreeWithKernel() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let parent = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-links-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: parent) }
            guard let probe = try copyProbe(into: parent) else { Issue.record("the fspolicy-probe binary is missing"); return }
            chmod(parent, 0o755)
            let t = parent + "/t"
            mkdir(t, 0o755); mkdir(t + "/d1", 0o755); mkdir(t + "/d2", 0o777)
            chmod(t + "/d2", 0o1777)
            FileManager.default.createFile(atPath: t + "/d1/a", contents: Data("x".utf8))
            chmod(t + "/d1/a", 0o640)
            link(t + "/d1/a", t + "/d2/b")
            link(t + "/d1/a", t + "/d1/c")
            let nobody = passwdIDs(named: "nobody") ?? (65534, 65534)
            FileManager.default.createFile(atPath: t + "/d2/mine", contents: Data("y".utf8))
            chown(t + "/d2/mine", nobody.uid, nobody.gid)
            let scan = parent + "/scan.yaml"
            let (s1, o1) = sh([bin, "scan", t, "-o", scan, "-q"])
            #expect(s1 == 0, "\(o1)")
            let yaml = try String(contentsOfFile: scan, encoding: .utf8)
            #expect(yaml.components(separatedBy: "link: \"\(t)/d1/a\"").count == 3, "the two later names are written as links to the first")
            let loaded = PolicyLoader.load(path: scan, host: testHost)
            let names = try ["/d1/a", "/d1/c", "/d2/b"].map { try #require(loaded.world.lookup(t + $0)) }
            #expect(loaded.world.sameFile(names[0], names[1]) && loaded.world.sameFile(names[0], names[2]))
            #expect(names.allSatisfy { loaded.world[$0].mode.rawValue & 0o777 == 0o640 }, "every name has the file's mode")

            var users: [(name: String, uid: UID?, gid: GID?)] = [("root", nil, nil), ("nobody", nobody.uid, nobody.gid)]
            if let d = passwdIDs(named: "daemon") { users.append(("daemon", d.uid, d.gid)) }
            // Questions that change nothing on the host (a rename onto the same file is a no-op;
            // the others are refused or only open).
            let questions: [(op: String, path: String, to: String?)] = [
                ("rename", t + "/d1/a", t + "/d2/b"), ("rename", t + "/d2/b", t + "/d1/c"), ("rename", t + "/d1/c", t + "/d1/a"),
                ("read", t + "/d2/b", nil), ("write", t + "/d1/c", nil), ("stat", t + "/d2/b", nil)
            ]
            var asked = 0
            var disagreements: [String] = []
            for u in users {
                let prober = try Prober(probe: probe, uid: u.uid, gid: u.gid)
                for q in questions {
                    let line = [u.name, q.op, q.path] + (q.to.map { [$0] } ?? [])
                    let (_, ans) = sh([bin, "can", scan, "--batch", "-"], stdin: line.joined(separator: "\t") + "\n")
                    let a = ans.split(separator: "\t").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
                    let simulated = a.first == "allow" ? "OK" : (a.count > 1 ? a[1] : "?")
                    let kernel = prober.ask("\(q.op)\t\(q.path)" + (q.to.map { "\t" + $0 } ?? ""))
                    asked += 1
                    if simulated != kernel { disagreements.append("\(u.name) \(q.op) \(q.path) \(q.to ?? ""): kernel \(kernel), fspolicy \(ans)") }
                }
            }
            // The host is as it was: every name still there.
            for p in ["/d1/a", "/d1/c", "/d2/b"] { #expect(access(t + p, F_OK) == 0, "\(p) is still there") }
            print("hard-link differential test: \(asked) probes, \(disagreements.count) disagreements")
            #expect(disagreements.isEmpty, Comment(rawValue: disagreements.joined(separator: "\n")))
        }

        @Test("a change through one name of a hard-linked file shows through the others (steps, check)")
        func changeThroughOneName() throws {
            let text = """
                fspolicy: 1
                semantics: linux
                users:
                  alice: {uid: 1000, group: staff}
                  bob: {uid: 1001, group: staff}
                groups:
                  staff: {gid: 50}
                tree:
                  /d: {type: dir, mode: "0777"}
                  /d/a: {owner: alice, group: root, mode: "0600"}
                  /d/b: {link: /d/a}
                steps:
                  - {as: alice, op: chmod, path: /d/b, mode: "0644"}
                  - {as: alice, op: link, path: /d/a, to: /d/c}
                  - {as: root, op: chown, path: /d/c, owner: bob}
                """
            let p = PolicyLoader.load(text: text, file: "links.yaml", host: testHost)
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            let ev = Evaluator(policy: p)
            let w = ev.world(after: nil)
            for name in ["/d/a", "/d/b", "/d/c"] {
                let n = try #require(w.lookup(name))
                #expect(w[n].mode.rawValue & 0o777 == 0o644, "\(name) shows the chmod made through /d/b")
                #expect(w[n].uid == 1001, "\(name) shows the chown made through /d/c")
            }
            // A link naming a folder, or nothing, is refused.
            let bad = PolicyLoader.load(
                text: "fspolicy: 1\nsemantics: linux\ntree:\n  /d: {type: dir}\n  /x: {link: /d}\n  /y: {link: /none}\n", file: "bad.yaml", host: testHost)
            #expect(bad.diagnostics.sorted.filter { $0.code == "bad-link" }.count == 2)
        }
    }
#endif
