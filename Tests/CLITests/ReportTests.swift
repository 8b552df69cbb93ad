import Foundation
import Testing

/// `fspolicy report`: the page's data against the other commands, its Content-Security-Policy
/// hashes, determinism, safe output, and — in a real headless Chromium driven by
/// scripts/report-browser — that it loads without errors, that the tree, the grid, the
/// explanations and the search work, and that hostile names stay text.
@Suite("report")
struct ReportTests {
    static let examples = ["team-share", "flags", "macos-home", "linux-default-acl", "figure-b1", "image", "macos-listing"]

    /// A temporary directory, removed with everything in it by `done()`.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-report-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func done() { try? FileManager.default.removeItem(at: url) }
    }

    /// The page's data block, parsed.
    static func data(_ html: String) throws -> [String: Any] {
        let open = "<script type=\"application/json\" id=\"data\">"
        let start = try #require(html.range(of: open))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let text = String(html[start.upperBound..<end.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func report(_ args: [String], in s: Scratch, name: String = "r.html") throws -> String {
        let out = s.path(name)
        let r = try fspolicy(["report"] + args + ["-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    // MARK: Without a browser

    @Test(
        "every grid cell is the answer `can --batch` gives (allowed, errno, layer, rule), under all three rule sets",
        arguments: examples)
    func cellsMatchCan(_ example: String) throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/\(example)/policy.yaml"
        let html = try Self.report([file, "--compare", "--op", "read,write,execute,delete,stat,append"], in: s)
        let worlds = try #require(try Self.data(html)["worlds"] as? [[String: Any]])
        let w = try #require(worlds.first)
        let sems = try #require(w["semantics"] as? [String])
        #expect(sems.count == 3)
        for (si, sem) in sems.enumerated() {
            let (questions, expected) = try Self.cells(w, semantics: si)
            let r = try fspolicy(["can", file, "--batch", "-", "--semantics", sem], stdin: questions)
            if r.status == 3 && sem != sems[0] {
                // The file is not valid under this rule set on its own (macOS ACEs under linux,
                // say): `explain --compare` decides it anyway, as the report does. A sample.
                let qs = questions.split(separator: "\n")
                for k in stride(from: 0, to: qs.count, by: max(1, qs.count / 12)) {
                    let f = qs[k].split(separator: "\t").map(String.init)
                    let e = try fspolicy(["explain", file, "--as", f[0], "--op", f[1], f[2], "--compare", "--format", "json"])
                    let doc = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any], "\(e.stderr)")
                    let d = try #require((doc["decisions"] as? [[String: Any]])?.first { $0["semantics"] as? String == sem })
                    let got =
                        d["result"] as? String == "allow"
                        ? "allow"
                        : "deny\t\(d["errno"] as? String ?? "")\t\(d["layer"] as? String ?? "")\t\(d["rule"] as? String ?? "")"
                    #expect(got == expected[k], "\(example) \(sem): \(qs[k])")
                }
                continue
            }
            let answers = r.stdout.split(separator: "\n").map { line -> String in
                // `allow\tlayer\trule` for an allow: compare the answer word only.
                line.hasPrefix("allow") ? "allow" : String(line)
            }
            #expect(answers.count == expected.count, "\(example) \(sem): \(r.stderr)")
            for (k, a) in answers.enumerated() where k < expected.count && a != expected[k] {
                Issue.record("\(example) \(sem): question \(questions.split(separator: "\n")[k]): page says \(expected[k]), can says \(a)")
                break
            }
        }
    }

    /// A random world (fixed seed) where many nodes share attributes and some directories
    /// stop some users' walks: the cases the report's shared decisions are about.
    static func randomWorld(semantics: String, seed: UInt64) -> String {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var y = "fspolicy: 1\nsemantics: \(semantics)\ngroups:\n"
        for g in 0..<3 { y += "  g\(g): {gid: \(700 + g)}\n" }
        y += "users:\n"
        for u in 0..<5 { y += "  u\(u): {uid: \(600 + u), group: g\(u % 3), groups: [g\((u + 1) % 3)]}\n" }
        y += "tree:\n  /t: {type: dir, mode: \"0755\"}\n"
        var dirs = ["/t"]
        let dirModes = ["0755", "0750", "0700", "0711", "1777", "0775", "0705"], fileModes = ["0644", "0640", "0600", "0666", "0604", "0755"]
        for k in 0..<160 {
            let parent = dirs[next(dirs.count)]
            let dir = next(4) == 0
            let path = "\(parent)/\(dir ? "d" : "f")\(k)"
            var mode = (dir ? dirModes : fileModes)[next(dir ? 7 : 6)]
            let acl = next(6) == 0
            if acl && semantics == "linux" { mode = "0750" }
            var line = "  \(path): {type: \(dir ? "dir" : "file"), owner: u\(next(5)), group: g\(next(3)), mode: \"\(mode)\""
            if acl {
                line +=
                    semantics == "linux"
                    ? ", acl: [\"user::rwx\", \"user:u\(next(5)):r-x\", \"group::r--\", \"mask::r-x\", \"other::---\"]"
                    : ", acl: [\"user:u\(next(5)) deny read\", \"group:g\(next(3)) allow read,write,search,list\"]"
            }
            y += line + "}\n"
            if dir { dirs.append(path) }
        }
        return y
    }

    @Test("the findings are lint's, the apps' included: same codes, paths and places", arguments: ["sandboxed-editor", "team-share", "host-groups"])
    func findingsAreLints(_ example: String) throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/\(example)/policy.yaml"
        let w = try #require((try Self.data(try Self.report([file], in: s))["worlds"] as? [[String: Any]])?.first)
        let page = (w["lint"] as? [[String: Any]] ?? []).map { "\($0["code"] ?? "") \($0["path"] ?? "") \($0["src"] ?? "")" }
        let l = try fspolicy(["lint", "--format", "json", file])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(l.stdout.utf8)) as? [String: Any])
        let lint = (doc["findings"] as? [[String: Any]] ?? []).map { f -> String in
            let place = (f["source"] as? String).map { "\($0):\(f["line"] ?? 0):\(f["column"] ?? 0)" } ?? ""
            return "\(f["code"] ?? "") \(f["path"] ?? "") \(place)"
        }
        #expect(page == lint)
        if example == "sandboxed-editor" { #expect(page.contains { $0.hasPrefix("FSL013 ") }, "the app findings are there") }
    }

    @Test("random worlds: every cell is `can --batch`'s answer", arguments: ["macos", "linux"])
    func randomWorldsMatchCan(_ semantics: String) throws {
        let s = try Scratch()
        defer { s.done() }
        for seed: UInt64 in [1, 2, 3] {
            let file = s.path("w\(seed).yaml")
            try Self.randomWorld(semantics: semantics, seed: seed).write(toFile: file, atomically: true, encoding: .utf8)
            let html = try Self.report([file, "--op", "read,write,execute,delete,list,append"], in: s, name: "w\(seed).html")
            let w = try #require((try Self.data(html)["worlds"] as? [[String: Any]])?.first)
            let (questions, expected) = try Self.cells(w, semantics: 0)
            let r = try fspolicy(["can", file, "--batch", "-"], stdin: questions)
            let answers = r.stdout.split(separator: "\n").map { $0.hasPrefix("allow") ? "allow" : String($0) }
            #expect(answers.count == expected.count, "\(r.stderr)")
            let qs = questions.split(separator: "\n")
            let wrong = answers.indices.filter { $0 < expected.count && answers[$0] != expected[$0] }
            #expect(wrong.isEmpty, "seed \(seed): \(wrong.prefix(3).map { "\(qs[$0]): page \(expected[$0]), can \(answers[$0])" })")
        }
    }

    /// The page's cells of one rule set as `can --batch` questions and the answers it should give.
    static func cells(_ w: [String: Any], semantics si: Int) throws -> (String, [String]) {
        let names = try #require(w["name"] as? [String]), parents = try #require(w["parent"] as? [Int])
        let users = try #require(w["users"] as? [String]), ops = try #require(w["ops"] as? [String])
        let verdicts = try #require(w["verdicts"] as? [[Any]]), rowTab = try #require(w["rowTab"] as? [String])
        let rows = try #require(w["rows"] as? [[Int]]), width = try #require(w["width"] as? Int)
        let classOf = try #require(w["classOf"] as? [[Int]])
        var paths: [String] = []
        for (i, n) in names.enumerated() { paths.append(i == 0 ? "/" : (parents[i] == 0 ? "/" : paths[parents[i]] + "/") + n) }
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var questions = "", expected: [String] = []
        for i in paths.indices {
            let row = Array(rowTab[rows[si][i]])
            for (u, user) in users.enumerated() {
                for (k, op) in ops.enumerated() {
                    var v = 0
                    for d in 0..<width { v = v * 62 + digits.firstIndex(of: row[(classOf[si][u] * ops.count + k) * width + d])! }
                    let t = verdicts[v]
                    expected.append((t[0] as? Int) == 1 ? "allow" : "deny\t\(t[1])\t\(t[2])\t\(t[3])")
                    questions += "\(user)\t\(op)\t\(paths[i])\n"
                }
            }
        }
        return (questions, expected)
    }

    @Test("many users: one grid row per class of equivalent users, so 2,000 users cost little")
    func manyUsers() throws {
        let s = try Scratch()
        defer { s.done() }
        var y = "fspolicy: 1\nsemantics: linux\ngroups:\n  staff: {gid: 50}\nusers:\n"
        for u in 0..<2000 { y += "  u\(u): {uid: \(10000 + u)\(u % 2 == 0 ? ", groups: [staff]" : "")}\n" }
        y += "tree:\n  /srv: {type: dir, owner: u0, group: staff, mode: \"0750\"}\n"
        for k in 0..<50 { y += "  /srv/f\(k): {owner: u\(k), group: staff, mode: \"0640\"}\n" }
        let file = s.path("many.yaml")
        try y.write(toFile: file, atomically: true, encoding: .utf8)
        let html = try Self.report([file, "--max-explained", "0"], in: s)
        let w = try #require((try Self.data(html)["worlds"] as? [[String: Any]])?.first)
        let classOf = try #require((w["classOf"] as? [[Int]])?.first)
        #expect(classOf.count == 2001)
        // root, the 50 owners, and the others with or without staff: 53 classes.
        #expect(Set(classOf).count == 53)
        #expect(html.utf8.count < 1_000_000, "\(html.utf8.count) bytes")
        // Every cell of a sample of users (each class is in it) against `can --batch`.
        let (questions, expected) = try Self.cells(w, semantics: 0)
        let qs = questions.split(separator: "\n")
        let sample = qs.indices.filter { k in
            let u = Int(qs[k].split(separator: "\t")[0].dropFirst()) ?? 0
            return qs[k].hasPrefix("root") || u < 60 || u % 97 == 0
        }
        let r = try fspolicy(["can", file, "--batch", "-"], stdin: sample.map { qs[$0] + "\n" }.joined())
        let answers = r.stdout.split(separator: "\n").map { $0.hasPrefix("allow") ? "allow" : String($0) }
        #expect(answers == sample.map { expected[$0] })
    }

    @Test("the same input gives the same bytes; the CSP hashes are those of the inline style and script; the data block cannot close its element")
    func deterministicAndCSP() throws {
        let s = try Scratch()
        defer { s.done() }
        let args = ["fixtures/report/hostile.yaml", "fixtures/examples/team-share/policy.yaml", "--compare"]
        let a = try Self.report(args, in: s, name: "a.html")
        let b = try Self.report(args, in: s, name: "b.html")
        #expect(a == b)
        // Hashes checked by an independent implementation (python's hashlib).
        let check = """
            import re, hashlib, base64, sys
            s = open(sys.argv[1], encoding="utf-8").read()
            csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', s).group(1)
            style = re.search(r'<style>(.*?)</style>', s, re.S).group(1)
            script = re.findall(r'<script>(.*?)</script>', s, re.S)
            h = lambda t: "'sha256-" + base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() + "'"
            assert len(script) == 1, "one executable script"
            want = "default-src 'none'; script-src %s; style-src %s; img-src data:" % (h(script[0]), h(style))
            print("ok" if csp == want else "csp %r != %r" % (csp, want))
            """
        let py = s.path("csp.py")
        try check.write(toFile: py, atomically: true, encoding: .utf8)
        let r = try run("/usr/bin/env", ["python3", py, s.path("a.html")])
        #expect(r.stdout == "ok\n", "\(r.stdout)\(r.stderr)")
        // The data block: between its tags there is no `<` at all (so no `</script>` or `<!--`),
        // and the bidi control of a hostile name is escaped, not raw.
        let open = "<script type=\"application/json\" id=\"data\">"
        let start = try #require(a.range(of: open))
        let end = try #require(a.range(of: "</script>", range: start.upperBound..<a.endIndex))
        let block = a[start.upperBound..<end.lowerBound]
        #expect(!block.contains("<") && !block.contains(">") && !block.contains("&"))
        #expect(!a.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2028 || $0.value == 0x2029 })
        let doc = try Self.data(a)
        let worlds = try #require(doc["worlds"] as? [[String: Any]])
        #expect(worlds.count == 2)
        let names = try #require(worlds[0]["name"] as? [String])
        #expect(names.contains("<script>alert(1)<"))
        #expect(names.contains("evil\\342\\200\\256txt.exe"), "the bidi control is shown as its escape: \(names)")
    }

    @Test("-o refuses what is not a regular file (a directory, a FIFO) and leaves it alone (devices: OutputSafetyTests)")
    func refusesNonRegular() throws {
        let s = try Scratch()
        defer { s.done() }
        try FileManager.default.createDirectory(atPath: s.path("dir"), withIntermediateDirectories: false)
        #expect(mkfifo(s.path("fifo"), 0o644) == 0)
        for (name, message) in [("dir", "it is a directory"), ("fifo", "it is a FIFO")] {
            let r = try fspolicy(["report", "fixtures/examples/team-share/policy.yaml", "-o", s.path(name)])
            #expect(r.status == 3 && r.stderr.contains(message), "\(r.stderr)")
        }
        var st = stat()
        #expect(lstat(s.path("fifo"), &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: s.path("dir"))) ?? ["?"]).isEmpty)
    }

    @Test("--max-explained bounds the embedded explanations; without --compare one rule set")
    func explainedBound() throws {
        let s = try Scratch()
        defer { s.done() }
        let full = try Self.data(try Self.report(["fixtures/examples/team-share/policy.yaml"], in: s, name: "full.html"))
        let few = try Self.data(try Self.report(["fixtures/examples/team-share/policy.yaml", "--max-explained", "15"], in: s, name: "few.html"))
        let wf = try #require((full["worlds"] as? [[String: Any]])?.first), w = try #require((few["worlds"] as? [[String: Any]])?.first)
        let count = try #require(wf["count"] as? Int), users = try #require(wf["users"] as? [String])
        #expect((wf["explained"] as? [Any])?.count == count * users.count * 3)
        // 5 users × 3 ops = 15 cells a node: exactly one node (the root, no finding or failure).
        #expect((w["explained"] as? [Any])?.count == 15)
        #expect(w["explainedNodes"] as? Int == 1)
        #expect((w["semantics"] as? [String]) == ["macos"])
    }
}
