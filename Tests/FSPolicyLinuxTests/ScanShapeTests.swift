#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    // A scan nobody can knock over, and what it did not read marked so that answers through it are
    // unknown (docs/semantics.md P6, docs/cli.md scan).

    @Suite("Scan: deep trees, limits and unread folders")
    struct ScanShapeTests {
        /// Makes a chain of `levels` folders named `d` below `root` (each made relative to the one
        /// above: no path given to the kernel is longer than a name), with a file `leaf` at the bottom.
        static func chain(_ root: String, levels: Int) {
            let script = "import os\nos.chdir('\(root)')\nfor _ in range(\(levels)):\n    os.mkdir('d'); os.chdir('d')\nopen('leaf', 'w').close()\n"
            sh(["python3", "-c", script])
        }

        @Test("a 100,000-level tree scans without recursion: folders down to PATH_MAX, the next one unread: long, and the file loads")
        func deepTree() throws {
            let t = try TempTree("deep")
            ScanShapeTests.chain(t.path, levels: 100_000)
            let tree = TreeScanner.scan(t.path, options: ScanOptions(allAccounts: false))
            let long = tree.entries.filter { $0.unread == .long }
            #expect(long.count == 1, "one folder marks where the walk stopped")
            #expect(tree.entries.count > 1_000 && tree.entries.count < 2_100, "\(tree.entries.count) entries")
            let policy = PolicyLoader.load(text: ScanWriter.yaml(tree), file: t.path + ".yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.prefix(3).map(\.rendered))")
            // A question below the cut is unknown, not ENOENT.
            let stop = t.path + "/" + long[0].relativePath
            let d = Evaluator(policy: policy).decide(RequestSpec(op: .read, path: stop + "/d/leaf"), uid: 0)
            #expect(d.unknown && d.rule == .notRead, "\(d.rule.rawValue) \(String(describing: d.errno))")
            // rm -rf of a tree this deep (FileManager recurses).
            sh(["rm", "-rf", t.path + "/d"])
        }

        @Test("--max-depth and --exclude record the folder and mark it; a name below it is unknown, a sibling's absence is known")
        func depthAndExclude() throws {
            let t = try TempTree("shape")
            t.dir("a/b/c"); t.dir("keep"); t.dir("skip")
            t.file("a/b/c/f")
            t.file("keep/x")
            t.file("skip/y")
            let tree = TreeScanner.scan(t.path, options: ScanOptions(allAccounts: false, maxDepth: 2, exclude: [t.path + "/sk*"]))
            func entry(_ rel: String) -> ScannedTree.Entry? { tree.entries.first { $0.relativePath == rel } }
            // Depth 3 is more than 2: recorded, its entries not read.
            #expect(entry("a/b")?.unread == nil)
            #expect(entry("a/b/c")?.unread == .depth)
            #expect(entry("a/b/c/f") == nil)
            #expect(entry("skip")?.unread == .excluded)
            #expect(entry("skip/y") == nil)
            #expect(entry("keep/x") != nil && entry("keep")?.unread == nil)
            let policy = PolicyLoader.load(text: ScanWriter.yaml(tree), file: t.path + ".yaml", host: testHost)
            #expect(!policy.diagnostics.hasErrors)
            let ev = Evaluator(policy: policy)
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/skip/y"), uid: 0).unknown)
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/a/b/c/f"), uid: 0).unknown)
            let gone = ev.decide(RequestSpec(op: .read, path: t.path + "/keep/none"), uid: 0)
            #expect(!gone.unknown && gone.errno == .ENOENT)
            // The folders above the root: only the way down was read.
            let outside = ev.decide(RequestSpec(op: .read, path: "/no-such-top-level-name"), uid: 0)
            #expect(outside.unknown, "\(outside.rule.rawValue)")
            #expect(ScanOptions.matches("/home/*/.cache", "/home/al/.cache") && !ScanOptions.matches("/home/*/.cache", "/home/a/b/.cache"))
            #expect(ScanOptions.matches("**/node_modules", "/srv/app/node_modules") && !ScanOptions.matches("**/node_modules", "/srv/app/node_modules2"))
        }

        @Test("several roots make one file: each entry once, the folders between them read only on the way down")
        func severalRoots() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let t = try TempTree("roots")
            t.dir("a/in"); t.dir("b")
            t.file("a/in/f"); t.file("b/g"); t.file("c")
            let out = t.path + ".yaml"
            defer { unlink(out) }
            // The same root twice, and one inside another, are read once.
            let (status, text) = sh([bin, "scan", t.path + "/a", t.path + "/b", t.path + "/a/in", "-o", out, "-q"])
            #expect(status == 0, "\(text)")
            let yaml = try String(contentsOfFile: out, encoding: .utf8)
            #expect(yaml.contains("# Scanned from \(t.path)/a, \(t.path)/b, \(t.path)/a/in by fspolicy scan."))
            let policy = PolicyLoader.load(path: out, host: testHost)
            #expect(!policy.diagnostics.hasErrors, "\(policy.diagnostics.sorted.prefix(3).map(\.rendered))")
            let ev = Evaluator(policy: policy)
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/b/g"), uid: 65534).allowed)
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/a/in/f"), uid: 65534).allowed)
            // The folder holding both roots was read only on the way down: its other names are unknown.
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/c"), uid: 65534).unknown)
            let missing = ev.decide(RequestSpec(op: .read, path: t.path + "/a/none"), uid: 65534)
            #expect(missing.errno == .ENOENT && !missing.unknown)
            let a = try #require(policy.world.lookup(t.path + "/a/in"))
            #expect(policy.world.unread[a] == nil, "a root read whole is not marked, though it is another root's descendant")
        }

        @Test(
            "a scan as nobody marks the folder it cannot open: root's answers under it are unknown, nobody's EACCES stands, rmdir of it is unknown",
            .enabled(if: getuid() == 0, "needs root: it scans as nobody through setpriv"))
        func unreadableFolder() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build` first"); return }
            let t = try TempTree("closed")
            chmod(t.path, 0o755)
            t.dir("closed/inner")
            t.file("closed/inner/f")
            chmod(t.path + "/closed/inner", 0o755)
            chmod(t.path + "/closed", 0o700)
            mkdir(t.path + "/out", 0o777); chmod(t.path + "/out", 0o777)
            let out = t.path + "/out/scan.yaml"
            let (status, text) = sh(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "scan", t.path, "-o", out, "-q"])
            #expect(status == 1, "an unreadable folder is exit 1: \(text)")
            let policy = PolicyLoader.load(path: out, host: testHost)
            #expect(!policy.diagnostics.hasErrors)
            let closed = try #require(policy.world.lookup(t.path + "/closed"))
            #expect(policy.world.unread[closed] == .denied)
            let ev = Evaluator(policy: policy)
            #expect(ev.decide(RequestSpec(op: .read, path: t.path + "/closed/inner/f"), uid: 0).unknown)
            #expect(ev.decide(RequestSpec(op: .delete, path: t.path + "/closed"), uid: 0).unknown, "whether it is empty is not known")
            let nobody = ev.decide(RequestSpec(op: .read, path: t.path + "/closed/inner/f"), uid: 65534)
            #expect(!nobody.unknown && nobody.errno == .EACCES, "the search is refused before any name is looked up")
        }
    }
#endif
