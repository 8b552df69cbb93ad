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

    @Test("every grid cell is the answer `can --batch` gives (allowed, errno, layer, rule), under all three rule sets",
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
                    let got = d["result"] as? String == "allow" ? "allow"
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
                line += semantics == "linux" ? ", acl: [\"user::rwx\", \"user:u\(next(5)):r-x\", \"group::r--\", \"mask::r-x\", \"other::---\"]"
                                             : ", acl: [\"user:u\(next(5)) deny read\", \"group:g\(next(3)) allow read,write,search,list\"]"
            }
            y += line + "}\n"
            if dir { dirs.append(path) }
        }
        return y
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

    // MARK: In a browser

    /// Whether headless Chromium starts here (scripts/report-browser exits 2 when it cannot).
    static let browser: Bool = {
        guard let s = try? Scratch() else { return false }
        defer { s.done() }
        let page = s.path("p.html")
        guard (try? "<!DOCTYPE html><title>t</title><body data-ready=\"true\">".write(toFile: page, atomically: true, encoding: .utf8)) != nil,
              let r = try? run(packageRoot.appendingPathComponent("scripts/report-browser").path, ["run", page]) else { return false }
        return r.status == 0
    }()
    static let needsBrowser = "needs a headless Chromium (Debian package `chromium`, installed by scripts/setup and .ci/run); scripts/report-browser could not start one here"

    struct PageRun {
        var errors: [String]
        var dialogs: [String]
        var result: [String: Any]
        var loadMs: Int
    }

    /// Opens `page` in Chromium, evaluates `script` (an async function body's expression) and
    /// returns what the page said.
    static func browse(_ page: String, _ script: String, in s: Scratch, print: Bool = false, dark: Bool = false) throws -> PageRun {
        let js = s.path("t-\(UUID().uuidString).js")
        try script.write(toFile: js, atomically: true, encoding: .utf8)
        let r = try run(packageRoot.appendingPathComponent("scripts/report-browser").path, ["run", page, js] + (print ? ["--print"] : []) + (dark ? ["--dark"] : []))
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
        return PageRun(errors: doc["errors"] as? [String] ?? ["no errors list"], dialogs: doc["dialogs"] as? [String] ?? [],
                       result: doc["result"] as? [String: Any] ?? [:], loadMs: doc["loadMs"] as? Int ?? -1)
    }

    static let helpers = """
    const sleep = ms => new Promise(r => setTimeout(r, ms));
    const key = k => document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
    const focusedName = () => { const li = document.activeElement.closest('[role=treeitem]'); return li ? li.querySelector('.name').textContent : null; };
    const search = async q => { const s = document.getElementById('search'); s.value = q; s.dispatchEvent(new Event('input')); await sleep(300); };
    const gridCell = (user, op) => {
      const heads = [...document.querySelectorAll('#grid thead th')].map(t => t.textContent);
      const row = [...document.querySelectorAll('#grid tbody tr')].find(tr => tr.querySelector('th').textContent === user);
      return row ? row.children[heads.indexOf(op)] : null;
    };
    """

    @Test("team-share in Chromium: no console errors, the tree expands by keyboard, a cell shows `explain`'s text, search and the filter find nodes",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func teamShareInBrowser() throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/team-share/policy.yaml"
        _ = try Self.report([file], in: s)
        let script = Self.helpers + """
        (async () => {
          const r = {};
          r.items0 = document.querySelectorAll('[role=treeitem]').length;
          document.getElementById('node-0').focus();
          key('ArrowDown'); r.down = focusedName();
          key('ArrowRight'); r.expanded = document.activeElement.getAttribute('aria-expanded');
          r.items1 = document.querySelectorAll('[role=treeitem]').length;
          key('ArrowDown'); r.down2 = focusedName();
          key('ArrowRight'); key('ArrowDown'); r.down3 = focusedName();
          key('ArrowLeft'); r.left = focusedName();
          r.title = document.getElementById('node-title').textContent;
          await search('brief');
          r.results = [...document.querySelectorAll('#results button')].map(b => b.textContent);
          document.querySelector('#results button').click();
          await sleep(50);
          r.selected = document.getElementById('node-title').textContent;
          r.selectedItem = document.querySelector('[role=treeitem][aria-selected=true] .name').textContent;
          r.lsle = document.querySelector('#node-info pre').textContent;
          r.src = document.querySelector('#node-info .src').textContent;
          const cell = gridCell('carol', 'write');
          r.cellText = cell.textContent; r.cellClass = cell.className;
          cell.click();
          await sleep(50);
          r.explain = document.querySelector('#explain pre').textContent;
          r.decide = [...document.querySelectorAll('#explain .decide')].map(e => e.textContent);
          // The grid by keyboard: from the first cell, right then down then Enter.
          const first = document.querySelector('#grid td'); first.focus();
          key('ArrowRight'); key('ArrowDown'); key('Enter');
          await sleep(50);
          r.keyCell = document.querySelector('#explain h3').textContent;
          await search('');
          const fu = document.getElementById('f-user'), fo = document.getElementById('f-op');
          fu.value = [...fu.options].find(o => o.textContent === 'bob').value; fo.value = [...fo.options].find(o => o.textContent === 'write').value;
          fu.dispatchEvent(new Event('change'));
          r.filterCount = document.querySelector('#results .count').textContent;
          r.filtered = [...document.querySelectorAll('#results button')].map(b => b.textContent);
          r.expectText = document.getElementById('expect-list').querySelector('.count').textContent;
          r.scripts = document.scripts.length;
          return r;
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        #expect(p.dialogs.isEmpty)
        let r = p.result
        #expect(r["items0"] as? Int == 2, "the root and /Shared only: children are built on expand")
        #expect(r["down"] as? String == "Shared")
        #expect(r["expanded"] as? String == "true")
        #expect((r["items1"] as? Int ?? 0) > 2)
        #expect(r["down2"] as? String == "Design")
        #expect(r["down3"] as? String == "brief.txt")
        #expect(r["left"] as? String == "Design")
        #expect(r["results"] as? [String] == ["/Shared/Design/brief.txt"])
        #expect(r["selected"] as? String == "/Shared/Design/brief.txt")
        #expect(r["selectedItem"] as? String == "brief.txt")
        // ls -le with the numbered ACEs, and the line that declares the node.
        #expect((r["lsle"] as? String ?? "").hasPrefix("-rw-r-----+ alice  design  /Shared/Design/brief.txt\n  0: user:carol deny write\n"), "\(r["lsle"] ?? "")")
        let text = try String(contentsOfFile: packageRoot.appendingPathComponent(file).path, encoding: .utf8)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("  /Shared/Design/brief.txt:") }) + 1
        #expect(r["src"] as? String == "Declared at \(file):\(line):3")
        #expect(r["cellText"] as? String == "✗ EACCESacl")
        #expect((r["cellClass"] as? String ?? "").contains("deny"))
        // The cell's explanation is exactly what `fspolicy explain` prints.
        let e = try fspolicy(["explain", file, "--as", "carol", "--op", "write", "/Shared/Design/brief.txt"])
        #expect(e.status == 2)
        #expect((r["explain"] as? String).map { $0 + "\n" } == e.stdout)
        let decide = r["decide"] as? [String] ?? []
        #expect(decide.count == 1 && decide[0].hasPrefix("→") && decide[0].contains("acl"), "\(decide)")
        #expect(r["keyCell"] as? String == "Can alice write /Shared/Design/brief.txt? [macos]")
        // The filter: the nodes bob may write are those `matrix` lists.
        let m = try fspolicy(["matrix", file, "--users", "bob", "--op", "write", "--format", "jsonl"])
        let writable = m.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  (o["allowed"] as? [String]) == ["bob"] else { return nil }
            return o["path"] as? String
        }
        #expect(!writable.isEmpty)
        #expect(r["filtered"] as? [String] == writable)
        #expect((r["filterCount"] as? String ?? "").hasPrefix("\(writable.count) node"))
        #expect(r["expectText"] as? String == "16 expectations, 16 passed, 0 failed")
        #expect(r["scripts"] as? Int == 2)
    }

    @Test("hostile names in Chromium: no dialog, no new element, names, labels and traces shown as text",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func hostileNamesInBrowser() throws {
        let s = try Scratch()
        defer { s.done() }
        // The file's own name is hostile too: it is written into the page's title and summary.
        let evil = s.path("<img src=x onerror=alert(9)> & 'q'.yaml")
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("fixtures/report/hostile.yaml").path, toPath: evil)
        _ = try Self.report(["fixtures/report/hostile.yaml", evil, "--compare"], in: s)
        let script = Self.helpers + """
        (async () => {
          const r = {};
          r.title = document.title;
          r.summaries = [...document.querySelectorAll('header .summary li:first-child strong')].map(e => e.textContent);
          r.options = [...document.querySelectorAll('#world option')].map(e => e.textContent);
          // Open everything: expand every item, repeatedly.
          for (let pass = 0; pass < 6; pass++) {
            document.querySelectorAll('[role=treeitem][aria-expanded=false]').forEach(li => li.querySelector('.twisty').click());
            await sleep(20);
          }
          r.names = [...document.querySelectorAll('[role=treeitem] .name')].map(e => e.textContent);
          for (const li of document.querySelectorAll('[role=treeitem]')) {
            li.querySelector('.row').click();
            for (const td of document.querySelectorAll('#grid td')) td.click();
          }
          await search('<');
          r.found = [...document.querySelectorAll('#results button')].map(b => b.textContent);
          r.labels = [...document.querySelectorAll('#expect-list .label')].map(e => e.textContent.trim());
          r.users = [...document.querySelectorAll('#grid tbody th')].map(e => e.textContent);
          r.scripts = document.scripts.length;
          r.imgs = document.images.length;
          r.bold = document.querySelectorAll('b, i').length;
          r.comments = (() => { let n = 0; const w = document.createTreeWalker(document, NodeFilter.SHOW_COMMENT); while (w.nextNode()) n++; return n; })();
          r.pwned = typeof window.pwned;
          r.lint = [...document.querySelectorAll('#lint-list li .link')].map(e => e.textContent);
          return r;
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        #expect(p.dialogs.isEmpty, "a dialog opened: \(p.dialogs)")
        let r = p.result
        #expect(r["title"] as? String == "fspolicy report: fixtures/report/hostile.yaml, \(evil)")
        #expect(r["summaries"] as? [String] == ["fixtures/report/hostile.yaml", evil])
        #expect(r["options"] as? [String] == ["fixtures/report/hostile.yaml", evil])
        let names = r["names"] as? [String] ?? []
        #expect(names.contains("<script>alert(1)<"))
        #expect(names.contains("<img src=x onerror=alert(3)>"))
        #expect(names.contains("quote\"d 'name' &amp; more"))
        #expect(names.contains("evil\\342\\200\\256txt.exe"))
        #expect(names.contains("<!-- comment"))
        #expect((r["found"] as? [String] ?? []).contains("/srv/<img src=x onerror=alert(3)>"))
        #expect((r["labels"] as? [String] ?? []).contains("</script><script>alert(4)</script> expected to fail"))
        #expect((r["users"] as? [String] ?? []).contains("<i>bob</i>"))
        #expect(r["scripts"] as? Int == 2)
        #expect(r["imgs"] as? Int == 0)
        #expect(r["bold"] as? Int == 0)
        #expect(r["comments"] as? Int == 0)
        #expect((r["lint"] as? [String] ?? []).contains("/srv/<script>alert(1)</script>"))
    }

    @Test("two files in one page: the selector switches tree, grid, expectations and findings",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func twoFiles() throws {
        let s = try Scratch()
        defer { s.done() }
        _ = try Self.report(["fixtures/examples/team-share/policy.yaml", "fixtures/lint/world-writable-directory.yaml"], in: s)
        let script = Self.helpers + """
        (async () => {
          const r = {};
          const top = () => [...document.querySelectorAll('#tree > [role=treeitem] > [role=group] > [role=treeitem] > .row .name')].map(e => e.textContent);
          r.fieldHidden = document.getElementById('world-field').hidden;
          r.before = top();
          r.usersBefore = [...document.querySelectorAll('#grid tbody th')].map(e => e.textContent);
          const w = document.getElementById('world');
          w.value = '1'; w.dispatchEvent(new Event('change'));
          r.after = top();
          r.usersAfter = [...document.querySelectorAll('#grid tbody th')].map(e => e.textContent);
          r.lint = [...document.querySelectorAll('#lint-list .code')].map(e => e.textContent.trim());
          r.expect = document.querySelector('#expect-list .count').textContent;
          return r;
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        let r = p.result
        #expect(r["fieldHidden"] as? Bool == false)
        #expect(r["before"] as? [String] == ["Shared"])
        #expect(r["after"] as? [String] == ["srv"])
        #expect(r["usersBefore"] as? [String] == ["root", "alice", "bob", "carol", "dave"])
        #expect(r["usersAfter"] as? [String] == ["root", "alice", "bob"])
        #expect(r["lint"] as? [String] == ["FSL001 world-writable-directory"])
        #expect(r["expect"] as? String == "0 expectations, 0 passed, 0 failed")
    }

    @Test("a folder of 1,200 entries: built 500 at a time, a search reveals entry 1,100",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func bigFolder() throws {
        let s = try Scratch()
        defer { s.done() }
        var y = "fspolicy: 1\nsemantics: linux\nusers:\n  alice: {uid: 1001}\ntree:\n  /d: {type: dir, mode: \"0755\"}\n"
        for k in 0..<1200 { y += "  /d/f\(String(format: "%04d", k)): {owner: alice, mode: \"0644\"}\n" }
        let file = s.path("big.yaml")
        try y.write(toFile: file, atomically: true, encoding: .utf8)
        _ = try Self.report([file], in: s)
        let script = Self.helpers + """
        (async () => {
          const r = {};
          const d = document.querySelector('#node-0 [role=treeitem]');
          d.querySelector('.twisty').click();
          r.first = d.querySelectorAll('[role=group] > [role=treeitem]').length;
          r.more = d.querySelector('li.more button').textContent;
          d.querySelector('li.more button').click();
          r.second = d.querySelectorAll('[role=group] > [role=treeitem]').length;
          await search('f1100');
          document.querySelector('#results button').click();
          r.selected = document.querySelector('[role=treeitem][aria-selected=true] .name').textContent;
          r.focused = focusedName();
          r.setsize = document.activeElement.getAttribute('aria-setsize') + '/' + document.activeElement.getAttribute('aria-posinset');
          r.third = d.querySelectorAll('[role=group] > [role=treeitem]').length;
          return r;
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        let r = p.result
        #expect(r["first"] as? Int == 500)
        #expect(r["more"] as? String == "show 500 more of 1200")
        #expect(r["second"] as? Int == 1000)
        #expect(r["selected"] as? String == "f1100")
        #expect(r["focused"] as? String == "f1100")
        #expect(r["setsize"] as? String == "1200/1101")
        #expect((r["third"] as? Int ?? 0) >= 1101)
    }

    @Test("printed: the summary, the failures with their explanations and the findings; no tree, grid, controls or passes",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func printLayout() throws {
        let s = try Scratch()
        defer { s.done() }
        _ = try Self.report(["fixtures/report/hostile.yaml"], in: s)
        let script = """
        (() => {
          const shown = sel => { const e = document.querySelector(sel); return !!e && getComputedStyle(e).display !== 'none' && e.getClientRects().length > 0; };
          return { summary: shown('header .summary'), fails: shown('#expect-list ul.fails'), trace: shown('#expect-list ul.fails pre.trace'),
                   findings: shown('#lint-list ul.findings'), tree: shown('#tree'), grid: shown('#grid'), nav: shown('nav'), passes: shown('#expect-list .passes') };
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s, print: true)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        let r = p.result.mapValues { $0 as? Bool }
        #expect(r == ["summary": true, "fails": true, "trace": true, "findings": true, "tree": false, "grid": false, "nav": false, "passes": false])
        // On screen the same page shows the tree and the grid.
        let screen = try Self.browse(s.path("r.html"), script, in: s)
        #expect(screen.result["tree"] as? Bool == true && screen.result["grid"] as? Bool == true)
    }

    @Test("dark colour scheme: dark background, light text, allow and deny still told apart by colour and by text",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func darkMode() throws {
        let s = try Scratch()
        defer { s.done() }
        _ = try Self.report(["fixtures/examples/team-share/policy.yaml"], in: s)
        let script = """
        (() => {
          const lum = c => { const m = c.match(/\\d+/g).map(Number); return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255; };
          const allow = document.querySelector('#grid td.allow'), deny = document.querySelector('#grid td.deny');
          return { bg: lum(getComputedStyle(document.body).backgroundColor), fg: lum(getComputedStyle(document.body).color),
                   allowBg: getComputedStyle(allow).backgroundColor, denyBg: getComputedStyle(deny).backgroundColor,
                   allowText: allow.querySelector('.sym').textContent, denyText: deny.querySelector('.sym').textContent };
        })()
        """
        for dark in [false, true] {
            let p = try Self.browse(s.path("r.html"), script, in: s, dark: dark)
            #expect(p.errors.isEmpty, "console: \(p.errors)")
            let r = p.result
            let bg = r["bg"] as? Double ?? -1, fg = r["fg"] as? Double ?? -1
            #expect(dark ? (bg < 0.2 && fg > 0.7) : (bg > 0.9 && fg < 0.2), "dark \(dark): background \(bg), text \(fg)")
            #expect(r["allowBg"] as? String != r["denyBg"] as? String)
            #expect(r["allowText"] as? String == "✓ allow")
            #expect((r["denyText"] as? String ?? "").hasPrefix("✗ E"))
        }
    }

    @Test("a cell without an embedded trace shows the `fspolicy explain` command, and that command gives the cell's answer",
          .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func commandForUnembeddedCell() throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/flags/policy.yaml"
        _ = try Self.report([file, "--max-explained", "0", "--compare"], in: s)
        let script = Self.helpers + """
        (async () => {
          const r = {};
          const last = [...document.querySelectorAll('[role=treeitem]')].pop();
          last.querySelector('.row').click();
          const li = [...document.querySelectorAll('[role=treeitem]')];
          await search('contract');
          document.querySelector('#results button').click();
          const cell = gridCell('bob', 'write');
          cell.click();
          r.answer = document.querySelector('#explain .answer').textContent;
          r.command = document.querySelector('#explain pre.command').textContent;
          r.cmpColumns = [...document.querySelectorAll('#grid thead th.cmp')].map(t => t.textContent);
          return r;
        })()
        """
        let p = try Self.browse(s.path("r.html"), script, in: s)
        #expect(p.errors.isEmpty, "console: \(p.errors)")
        let r = p.result
        let command = try #require(r["command"] as? String)
        #expect(command == "fspolicy explain \(file) --as bob --op write /Users/alice/contract.pdf")
        let e = try fspolicy(Array(command.split(separator: " ").dropFirst().map(String.init)))
        let answerLine = e.stdout.split(separator: "\n").first { $0.hasPrefix("Answer:") }.map(String.init) ?? ""
        let answer = r["answer"] as? String ?? ""
        // "✗ EPERM — decided by the flags layer, rule …" and "Answer:   deny EPERM — decided by …".
        #expect(answerLine.hasSuffix(String(answer.drop { $0 != "—" })), "\(answerLine) vs \(answer)")
        #expect(!(r["cmpColumns"] as? [String] ?? []).isEmpty, "flags differ between the rule sets for bob writing contract.pdf")
    }
}
