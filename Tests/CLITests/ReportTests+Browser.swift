import Foundation
import Testing

extension ReportTests {
    // MARK: In a browser

    /// Whether headless Chromium starts here (scripts/report-browser exits 2 when it cannot).
    static let browser: Bool = {
        guard let s = try? Scratch() else { return false }
        defer { s.done() }
        let page = s.path("p.html")
        guard (try? "<!DOCTYPE html><title>t</title><body data-ready=\"true\">".write(toFile: page, atomically: true, encoding: .utf8)) != nil,
            let r = try? run(packageRoot.appendingPathComponent("scripts/report-browser").path, ["run", page])
        else { return false }
        return r.status == 0
    }()
    static let needsBrowser =
        "needs a headless Chromium (Debian package `chromium`, installed by scripts/setup and .ci/run); scripts/report-browser could not start one here"

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
        let r = try run(
            packageRoot.appendingPathComponent("scripts/report-browser").path, ["run", page, js] + (print ? ["--print"] : []) + (dark ? ["--dark"] : []))
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
        return PageRun(
            errors: doc["errors"] as? [String] ?? ["no errors list"], dialogs: doc["dialogs"] as? [String] ?? [],
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

    @Test(
        "team-share in Chromium: no console errors, the tree expands by keyboard, a cell shows `explain`'s text, search and the filter find nodes",
        .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func teamShareInBrowser() throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/team-share/policy.yaml"
        _ = try Self.report([file], in: s)
        let script =
            Self.helpers + """
                (async () => {
                  const r = {};
                  const sets = () => [...document.querySelectorAll('#grid tfoot th')].map(t => t.textContent);
                  r.rootSets = sets();
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
                  r.fileHeads = [...document.querySelectorAll('#grid thead th')].map(t => t.textContent);
                  r.fileSets = sets();
                  await search('Design');
                  [...document.querySelectorAll('#results button')].find(b => b.textContent === '/Shared/Design').click();
                  await sleep(50);
                  r.dirTitle = document.getElementById('node-title').textContent;
                  r.dirHeads = [...document.querySelectorAll('#grid thead th')].map(t => t.textContent);
                  await search('brief');
                  document.querySelector('#results button').click();
                  await sleep(50);
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
        #expect(
            (r["lsle"] as? String ?? "").hasPrefix("-rw-r-----+ alice  design  /Shared/Design/brief.txt\n  0: user:carol deny write\n"), "\(r["lsle"] ?? "")")
        let text = try String(contentsOfFile: packageRoot.appendingPathComponent(file).path, encoding: .utf8)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("  /Shared/Design/brief.txt:") }) + 1
        #expect(r["src"] as? String == "Declared at \(file):\(line):3")
        // Without --op, a node's grid has the ops of its type: no directory is asked to be
        // opened for writing.
        #expect(r["fileHeads"] as? [String] == ["user", "read", "write", "execute"], "\(r["fileHeads"] ?? "")")
        // Under the grid, each column's allowed users as a set, as `who` names them.
        #expect(r["rootSets"] as? [String] == ["allowed", "everyone", "everyone", "root"], "\(r["rootSets"] ?? "")")
        var fileSets = ["allowed"]
        for op in ["read", "write", "execute"] {
            let w = try fspolicy(["who", file, "--op", op, "/Shared/Design/brief.txt", "--allowed", "--format", "json"])
            let users = (try JSONSerialization.jsonObject(with: Data(w.stdout.utf8)) as? [String: Any])?["users"] as? [[String: Any]] ?? []
            let names = users.filter { $0["result"] as? String == "allow" }.compactMap { $0["name"] as? String }
            fileSets.append(names.isEmpty ? "no one" : names.joined(separator: ", "))
        }
        #expect(r["fileSets"] as? [String] == fileSets, "\(r["fileSets"] ?? "")")
        #expect(r["dirTitle"] as? String == "/Shared/Design")
        #expect(r["dirHeads"] as? [String] == ["user", "list", "search", "modify"], "\(r["dirHeads"] ?? "")")
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
                (o["allowed"] as? [String]) == ["bob"]
            else { return nil }
            return o["path"] as? String
        }
        #expect(!writable.isEmpty)
        #expect(r["filtered"] as? [String] == writable)
        #expect((r["filterCount"] as? String ?? "").hasPrefix("\(writable.count) node"))
        #expect(r["expectText"] as? String == "16 expectations, 16 passed, 0 failed")
        #expect(r["scripts"] as? Int == 2)
    }

    @Test(
        "hostile names in Chromium: no dialog, no new element, names, labels and traces shown as text",
        .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func hostileNamesInBrowser() throws {
        let s = try Scratch()
        defer { s.done() }
        // The file's own name is hostile too: it is written into the page's title and summary.
        let evil = s.path("<img src=x onerror=alert(9)> & 'q'.yaml")
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("fixtures/report/hostile.yaml").path, toPath: evil)
        _ = try Self.report(["fixtures/report/hostile.yaml", evil, "--compare"], in: s)
        let script =
            Self.helpers + """
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

    @Test(
        "two files in one page: the selector switches tree, grid, expectations and findings",
        .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func twoFiles() throws {
        let s = try Scratch()
        defer { s.done() }
        _ = try Self.report(["fixtures/examples/team-share/policy.yaml", "fixtures/lint/world-writable-directory.yaml"], in: s)
        let script =
            Self.helpers + """
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

    @Test(
        "a folder of 1,200 entries: built 500 at a time, a search reveals entry 1,100",
        .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func bigFolder() throws {
        let s = try Scratch()
        defer { s.done() }
        var y = "fspolicy: 1\nsemantics: linux\nusers:\n  alice: {uid: 1001}\ntree:\n  /d: {type: dir, mode: \"0755\"}\n"
        for k in 0..<1200 { y += "  /d/f\(String(format: "%04d", k)): {owner: alice, mode: \"0644\"}\n" }
        let file = s.path("big.yaml")
        try y.write(toFile: file, atomically: true, encoding: .utf8)
        _ = try Self.report([file], in: s)
        let script =
            Self.helpers + """
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

    @Test(
        "printed: the summary, the failures with their explanations and the findings; no tree, grid, controls or passes",
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

    @Test(
        "dark colour scheme: dark background, light text, allow and deny still told apart by colour and by text",
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

    @Test(
        "a cell without an embedded trace shows the `fspolicy explain` command, and that command gives the cell's answer",
        .enabled(if: browser, Comment(rawValue: needsBrowser)))
    func commandForUnembeddedCell() throws {
        let s = try Scratch()
        defer { s.done() }
        let file = "fixtures/examples/flags/policy.yaml"
        _ = try Self.report([file, "--max-explained", "0", "--compare"], in: s)
        let script =
            Self.helpers + """
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
