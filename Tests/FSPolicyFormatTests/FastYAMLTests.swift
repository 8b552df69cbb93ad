import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyYAML
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// The YAML reader (`FastYAML`) on every YAML file of the repository (the fixtures, the invalid
/// corpus, the examples, the fuzz corpora), on the `fmt` cases, on thousands of mutants of them
/// (characters inserted, deleted, lines doubled: a small fuzzer), and on generated scan files
/// with long, quoted, escaped and non-ASCII names, ACLs and explicit keys: every text is read,
/// or refused at a place inside it, never a crash; a text read in two halves is the same
/// document; and a file loads to the same policy whichever way its expectations and its tree
/// are read. `YAMLReaderTests` holds the expected nodes of each construct.
@Suite("the YAML reader on the repository, mutants and generated files")
struct FastYAMLTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `.yaml` file of the repository outside `.build`, and every file of the fuzz corpus
    /// of the YAML readers (`fuzz/seeds` and `fuzz/findings` of the loader and fmt targets, when
    /// the checkout has them), by path.
    static func repositoryFiles() -> [(path: String, text: String)] {
        var out: [(String, String)] = []
        let fm = FileManager.default
        guard let e = fm.enumerator(atPath: root.path) else { return [] }
        while let rel = e.nextObject() as? String {
            if rel.hasPrefix(".build") || rel.hasPrefix(".git") || rel.hasPrefix(".swiftpm") { e.skipDescendants(); continue }
            let fuzz =
                ["fuzz/seeds/loader/", "fuzz/seeds/fmt/", "fuzz/findings/loader/", "fuzz/findings/fmt/"].contains { rel.hasPrefix($0) }
                && !rel.hasSuffix("/.keep") && !rel.hasSuffix(".keep")
            guard rel.hasSuffix(".yaml") || rel.hasSuffix(".yml") || fuzz else { continue }
            let full = root.appendingPathComponent(rel).path
            if let data = fm.contents(atPath: full), let text = String(data: data, encoding: .utf8) { out.append((full, text)) }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// The document as lines: kind, position, style and value of every node, depth first.
    static func describe(_ n: YNode) -> [String] {
        var out: [String] = []
        func walk(_ n: YNode, _ depth: Int) {
            let pad = String(repeating: " ", count: depth)
            let at = "\(n.loc.line):\(n.loc.column)"
            if let s = n.scalar {
                out.append(pad + "scalar \(at) \(n.style.map { "\($0)" } ?? "?") \(YAMLText.quote(s))")
            } else if let m = n.mapping {
                out.append(pad + "mapping \(at) \(m.count)")
                for (k, v) in m { walk(k, depth + 1); walk(v, depth + 2) }
            } else if let q = n.sequence {
                out.append(pad + "sequence \(at) \(q.count)")
                for it in q { walk(it, depth + 1) }
            } else {
                out.append(pad + "alias \(at)")
            }
        }
        walk(n, 0)
        return out
    }

    enum Verdict { case refused, read }

    /// Reads `text`: a refusal must point inside the text (a line it has, a column of that line
    /// or just past it); a document must read the same in two halves as in one, and report
    /// nothing but duplicated keys. Returns whether it was read.
    @discardableResult
    static func checkRead(_ text: String, file: String, _ what: String) -> Verdict {
        switch FastYAML.parse(text, file: file) {
        case .failure(let r):
            // Lines as YAML counts them: CRLF and a lone CR are one break each.
            let lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                .split(separator: "\n", omittingEmptySubsequences: false)
            let ok =
                r.line >= 1 && r.line <= max(lines.count, 1) && r.column >= 1
                && r.column <= (r.line <= lines.count ? lines[r.line - 1].unicodeScalars.count : 0) + 1
            #expect(ok, "\(what): refused at \(r.line):\(r.column), outside the text: \(r.message)")
            #expect(!r.message.isEmpty && r.help != nil, "\(what): a refusal without a message or a hint")
            return .refused
        case .success(let doc):
            var bag = DiagnosticBag()
            _ = parseYAML(text, file: file, diags: &bag)
            #expect(bag.items.allSatisfy { $0.code == "duplicate-key" }, "\(what): \(bag.items.map(\.rendered))")
            _ = describe(YNode(fast: doc, doc.root))
            if let halves = FastYAML.read(text, file: file, splitBytes: 1) {
                #expect(FastYAMLSplitTests.same(doc, halves), "\(what): read in two halves, another document")
            } else {
                Issue.record("\(what): read whole, refused in two halves")
            }
            return .read
        }
    }

    /// A value as text, with dictionaries and sets in sorted order (their own order depends on
    /// the instance).
    static func canon(_ x: Any) -> String {
        let m = Mirror(reflecting: x)
        switch m.displayStyle {
        case .dictionary, .set:
            return "{" + m.children.map { canon($0.value) }.sorted().joined(separator: ", ") + "}"
        case .collection, .tuple:
            return "[" + m.children.map { ($0.label.map { $0 + ": " } ?? "") + canon($0.value) }.joined(separator: ", ") + "]"
        case .optional:
            return m.children.first.map { canon($0.value) } ?? "nil"
        case .struct, .class, .enum:
            if m.children.isEmpty { return String(describing: x) }
            let name = m.displayStyle == .enum ? String(describing: x).prefix { $0 != "(" } : Substring(String(describing: type(of: x)))
            return name + "(" + m.children.map { ($0.label.map { $0 + ": " } ?? "") + canon($0.value) }.joined(separator: ", ") + ")"
        default:
            return String(describing: x)
        }
    }

    /// Everything a loaded policy holds, as text in a fixed order.
    static func dump(_ p: Policy) -> [String] {
        let w = p.world
        var out: [String] = []
        out.append("semantics \(p.semantics) at \(p.semanticsLocation.map(\.description) ?? "-") description \(p.description ?? "-")")
        out.append("users " + canon(w.users))
        out.append("groups " + canon(w.groups))
        out.append("volumes " + canon(w.volumes))
        out.append("defaults \(w.defaultOwner) \(w.defaultGroup) \(w.defaultFileMode) \(w.defaultDirMode) securelevel \(w.securelevel)")
        out.append("apps " + canon(w.apps) + " device \(w.device)")
        for i in 0..<w.nodeCount {
            let id = NodeID(i)
            let n = w[id]
            out.append(
                "node \(w.path(of: id)) \(n.type) \(n.uid):\(n.gid) \(n.mode.octal) flags \(n.flags) declared \(n.declared)"
                    + " acl \(w.acl(of: id).map { "\($0)" } ?? "-") posix \(w.posixACL(of: id).map { "\($0)" } ?? "-")"
                    + " default \(w.defaultPOSIXACL(of: id).map { "\($0)" } ?? "-") target \(w.symlinkTargets[id] ?? "-")"
                    + " assumed \(w.assumedNodes.contains(id)) mapped \(w.mappedACLNodes.contains(id)) protection \(n.protection) \(n.openBeforeLock)"
                    + " found \(w.lookup(w.path(of: id)) == id)")
        }
        for (k, v) in p.nodeLocations.nodes.map({ (p.world.path(of: $0), p.nodeLocations[$0]!) }).sorted(by: { $0.0 < $1.0 }) { out.append("at \(k) \(v)") }
        for (k, v) in p.aceLocations.sorted(by: { $0.key < $1.key }) { out.append("aces \(k) \(v)") }
        out.append("userOrder \(p.userOrder) apps \(p.appIDs)")
        for e in p.expectations { out.append("expect " + canon(e)) }
        for s in p.steps { out.append("step " + canon(s)) }
        out.append("appSources " + canon(p.appSources))
        // In position order.
        for d in p.diagnostics.sorted { out.append("diag \(d.severity) \(d.code) " + d.rendered) }
        return out
    }

    /// The file loaded several ways must give the same policy: with the quick reading of
    /// expectations (`Compiler.readExpectationsQuickly`), on one thread and on three, early
    /// or late, with every expectation read in full, and with the tree built the general way.
    /// Returns how many expectations the quick reading read.
    @discardableResult
    static func comparePolicies(_ text: String, file: String, _ what: String) -> Int {
        let (quickPolicy, quick) = PolicyLoader.loadCounting(text: text, file: file, semanticsOverride: nil, fastExpect: true)
        let fast = dump(quickPolicy)
        // The quick reading of a long list is shared by threads, each a part of it: three here,
        // whatever the length (some parts may be empty), read as one thread reads it.
        let (threaded, quickThreaded) = PolicyLoader.loadCounting(
            text: text, file: file, semanticsOverride: nil,
            fastExpect: true, quickWorkers: 3)
        #expect(quickThreaded == quick, "\(what): \(quickThreaded) expectations read quickly on three threads, \(quick) on one")
        // A tree whose entries' parents are all listed is built without lookups (`ListedParents`); built the
        // general way, it must be the same world.
        let general = dump(
            PolicyLoader.loadCounting(
                text: text, file: file, semanticsOverride: nil, fastExpect: true,
                generalTree: true
            ).policy)
        // Every list read quickly while the tree is built (`Compiler.startQuickRead`, in a run
        // only for a long list), then taken or read again as the names found by then say.
        let (early, quickEarly) = PolicyLoader.loadCounting(
            text: text, file: file, semanticsOverride: nil,
            fastExpect: true, earlyCount: 0)
        #expect(quickEarly == quick, "\(what): \(quickEarly) expectations read quickly while the tree was built, \(quick) after")
        let fastFull = dump(PolicyLoader.load(text: text, file: file, semanticsOverride: nil, fastExpect: false))
        for (a, b, names) in [
            (fast, dump(threaded), ("quick", "quick on three threads")), (fast, fastFull, ("quick", "in full")),
            (fast, dump(early), ("quick", "quick while the tree was built")),
            (fast, general, ("tree from its listing", "tree built the general way"))
        ] where a != b {
            let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            Issue.record(
                """
                \(what): the policies differ (\(names.0) and \(names.1)) at line \(i) of their dumps:
                  \(names.0): \(i < a.count ? a[i] : "(none)")
                  \(names.1): \(i < b.count ? b[i] : "(none)")
                """)
        }
        return quick
    }

    @Test("every YAML file of the repository: read, and the same policy every way")
    func repository() {
        let files = Self.repositoryFiles()
        #expect(files.count >= 100, "found only \(files.count) YAML files under \(Self.root.path)")
        var quick = 0
        for (path, text) in files {
            let verdict = Self.checkRead(text, file: path, path)
            // Only the invalid corpus and the fuzz findings hold texts the reader refuses.
            if !path.contains("/fixtures/invalid/") && !path.contains("/fuzz/") {
                #expect(verdict == .read, "\(path): refused")
            }
            quick += Self.comparePolicies(text, file: path, path)
        }
        // The fixtures' own expectations exercise the quick reading too.
        #expect(quick >= 100, "the quick reading read only \(quick) expectations of the fixtures")
    }

    @Test("the fmt round-trip cases, and their formatted forms")
    func formatterCases() {
        for c in FormatterRoundTripTests.cases {
            Self.checkRead(c.text, file: "case.yaml", c.name)
            Self.comparePolicies(c.text, file: "case.yaml", c.name)
            if case .success(let formatted) = Formatter.format(c.text, file: "case.yaml") {
                #expect(Self.checkRead(formatted, file: "case.yaml", c.name + " (formatted)") == .read)
            }
        }
    }

    /// Text inserted by the mutants: YAML's indicators and the characters the reader gives up on.
    static let snippets = [
        ":", ": ", " ", "  ", "#", " #x", "\"", "'", "''", "- ", "-", "? ", "?", "{", "}", "[", "]", ",", ", ",
        "\n", "\n  ", "\n    ", "\t", "&a ", "*a", "!", "!!str ", "|", ">", "\\", "\\x41", "\\u00e9", "\\t", "\\q",
        "\\x0", "é", "e\u{301}", "\u{85}", "\u{2028}", "\u{FEFF}", "---\n", "...\n", "%", "~", "null", "\r", "x",
        "\"a\": ", "{a: b}", "[a, b]", "@", "`", "a b", "\\\"", "\\\\", "'a''b'", "\"\\U0001F600\"", "\u{7F}", "\u{1}"
    ]

    struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
    }

    static func mutants(of text: String, count: Int, seed: UInt64) -> [String] {
        var g = Generator(state: seed)
        let chars = Array(text.unicodeScalars)
        guard !chars.isEmpty else { return [] }
        var out: [String] = []
        for _ in 0..<count {
            var c = chars
            for _ in 0..<(1 + g.next(3)) {
                switch g.next(5) {
                case 0, 1:
                    let at = g.next(c.count + 1)
                    c.insert(contentsOf: snippets[g.next(snippets.count)].unicodeScalars, at: at)
                case 2:
                    if c.isEmpty { break }
                    let at = g.next(c.count)
                    c.removeSubrange(at..<min(c.count, at + 1 + g.next(3)))
                case 3:
                    // Double a line.
                    let lines = String(String.UnicodeScalarView(c)).split(separator: "\n", omittingEmptySubsequences: false)
                    let k = g.next(lines.count)
                    var l = lines.map(String.init)
                    l.insert(l[k], at: k)
                    c = Array(l.joined(separator: "\n").unicodeScalars)
                default:
                    // Re-indent a line by one space more or less.
                    var lines = String(String.UnicodeScalarView(c)).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    let k = g.next(lines.count)
                    if lines[k].hasPrefix(" ") && g.next(2) == 0 { lines[k].removeFirst() } else { lines[k] = " " + lines[k] }
                    c = Array(lines.joined(separator: "\n").unicodeScalars)
                }
            }
            out.append(String(String.UnicodeScalarView(c)))
        }
        return out
    }

    @Test("mutants of every file: read, or refused at a place inside the text")
    func mutants() {
        var read = 0, total = 0
        for (k, (path, text)) in Self.repositoryFiles().enumerated() {
            // Files of a few KB: mutate their first 3,000 characters.
            let base = String(text.prefix(3000))
            for (j, m) in Self.mutants(of: base, count: 40, seed: UInt64(k * 1000 + 17)).enumerated() {
                total += 1
                if Self.checkRead(m, file: path, "\(path) mutant \(j)") == .read {
                    read += 1
                    if j % 8 == 0 { Self.comparePolicies(m, file: path, "\(path) mutant \(j)") }
                }
            }
        }
        // The mutants exercise both sides: some read, some refused.
        #expect(read > total / 10 && read < total * 9 / 10, "the reader read \(read) of \(total) mutants")
    }

    /// A scanned tree with what makes YAML writing hard: long paths (explicit keys), quotes,
    /// backslashes, escaped bytes, non-ASCII and combining characters, spaces, ACLs.
    static func awkwardTree() -> ScannedTree {
        var t = ScannedTree(root: "/srv/data")
        t.users = [
            ScannedTree.HostUser(name: "alice", uid: 1000, gid: 1000, groups: [1001]),
            ScannedTree.HostUser(name: "bob", uid: 1002, gid: 1000, groups: [])
        ]
        t.groups = [("staff", 1000), ("team", 1001)]
        let acl = try? POSIXACL(
            userObj: RWX(rawValue: 6), users: [.init(id: 1002, perms: RWX(rawValue: 4))], groupObj: RWX(rawValue: 4),
            groups: [.init(id: 1001, perms: RWX(rawValue: 6))], mask: RWX(rawValue: 4), other: RWX(rawValue: 0))
        t.entries.append(.init(relativePath: "", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)))
        let names = [
            "plain", "with space", "quote\"d", "back\\134slash", "tab\\011name", "caf\u{E9}", "na\u{303}o", "a: b", "#hash",
            "- dash", "[x]", "{y}", "x,y", "'single'", "\u{1F600}", "trailing ", "ends:", "%pct", "@at", "`tick`", "~", "null", "true"
        ]
        var long = ""
        for k in 0..<70 { long += "/directory-\(k)-with-a-long-name" }
        for (k, n) in names.enumerated() {
            // Files with an ACL have the mode it implies (owner rw-, mask r--, other ---).
            let isDir = k % 3 == 0
            t.entries.append(
                .init(
                    relativePath: n, type: isDir ? .dir : .file, uid: k % 2 == 0 ? 1000 : 1002, gid: 1000,
                    mode: FileMode(isDir ? 0o750 : 0o640), access: !isDir && k % 2 == 1 ? acl : nil, defaultACL: isDir && k % 2 == 0 ? acl : nil))
        }
        t.entries.append(.init(relativePath: "link", type: .symlink, uid: 0, gid: 0, mode: FileMode(0o777), target: "../with space"))
        t.entries.append(.init(relativePath: "plain/" + long.dropFirst(), type: .file, uid: 1000, gid: 1001, mode: FileMode(0o640), access: acl))
        t.entries.append(.init(relativePath: "plain/" + long.dropFirst().prefix(990), type: .file, uid: 1000, gid: 1001, mode: FileMode(0o600)))
        return t
    }

    @Test("scan output is read, and the same policy every way")
    func scanOutput() {
        let text = ScanWriter.yaml(Self.awkwardTree())
        #expect(Self.checkRead(text, file: "scan.yaml", "scan output") == .read, "the reader refused scan output:\n\(text)")
        Self.comparePolicies(text, file: "scan.yaml", "scan output")
        let p = PolicyLoader.load(text: text, file: "scan.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        if case .success(let formatted) = Formatter.format(text, file: "scan.yaml") {
            #expect(Self.checkRead(formatted, file: "scan.yaml", "formatted scan output") == .read)
        }
    }

    @Test("generated tree files of the benchmark's shape")
    func generated() {
        var text = "fspolicy: 1\nsemantics: linux\n\ngroups:\n"
        for g in 0..<10 { text += "  \"g\(g)\": {gid: \(3000 + g)}\n" }
        text += "\nusers:\n"
        for u in 0..<50 { text += "  \"u\(u)\": {uid: \(5000 + u), group: \"g\(u % 10)\", groups: [\"g\((u * 7) % 10)\"]}\n" }
        text += "\ntree:\n"
        var paths = ["/srv"]
        var i = 0
        while paths.count < 3000 {
            for j in 0..<10 { paths.append("\(paths[i])/n\(j)") }
            i += 1
        }
        for (k, p) in paths.enumerated() {
            var f = k <= i ? ["type: dir"] : []
            f += ["owner: \"u\(k % 50)\"", "group: \"g\(k % 10)\""]
            if k <= i {
                f.append("mode: \"0755\"")
            } else if k % 10 == 0 {
                f += ["mode: \"0640\"", "acl: [\"user::rw-\", \"user:u3:r--\", \"group::r--\", \"mask::r--\", \"other::---\"]"]
            } else {
                f.append("mode: \"0644\"")
            }
            text += "  \"\(p)\": {\(f.joined(separator: ", "))}\n"
        }
        #expect(Self.checkRead(text, file: "gen.yaml", "generated tree") == .read)
        Self.comparePolicies(text, file: "gen.yaml", "generated tree")
        // The same file with errors in it.
        for (k, m) in Self.mutants(of: text, count: 30, seed: 99).enumerated() {
            Self.checkRead(m, file: "gen.yaml", "generated mutant \(k)")
            Self.comparePolicies(m, file: "gen.yaml", "generated mutant \(k)")
        }
    }
}

/// Issue 13, "duplicate keys are quadratic": the reader sets aside every later occurrence of a
/// key in one reading and reports each, where it is, with the line of the first.
@Suite("duplicate keys in one reading")
struct FastYAMLDuplicateTests {
    @Test("duplicates of every kind: each reported where it is, the first entry kept")
    func everyKind() {
        let cases: [(String, [String])] = [
            // Twice, three times, two keys, a multi-line second entry, quoted and plain alike.
            (
                "fspolicy: 1\ntree:\n  /x: {}\n  /a: {mode: \"0644\"}\n  /b: {}\n  /a:\n    mode: \"0600\"\n    type: file\n  \"/b\": {}\n  /a: {}\n  /c: {}\n",
                ["d.yaml:6:3 `/a` (first at line 4)", "d.yaml:9:3 `/b` (first at line 5)", "d.yaml:10:3 `/a` (first at line 4)"]
            ),
            // In a nested block mapping (a user's fields) the keys are not paths.
            (
                "fspolicy: 1\nusers:\n  bob:\n    uid: 5\n    uid: 6\ntree:\n  /a: {}\n  /a: {}\n",
                ["d.yaml:5:5 `uid` (first at line 4)", "d.yaml:8:3 `/a` (first at line 7)"]
            ),
            // In a flow mapping.
            ("fspolicy: 1\ntree:\n  /a: {mode: \"0644\", mode: \"0600\"}\n", ["d.yaml:3:22 `mode` (first at line 3)"])
        ]
        for (text, expected) in cases {
            var bag = DiagnosticBag()
            _ = parseYAML(text, file: "d.yaml", diags: &bag)
            let found = bag.sorted.map { "\($0.location) " + $0.message.replacingOccurrences(of: " appears twice in the same mapping", with: "") }
            #expect(found == expected, "\(text.debugDescription)")
            #expect(bag.items.allSatisfy { $0.code == "duplicate-key" && $0.help == "each key may appear once; merge the two entries" })
            FastYAMLTests.comparePolicies(text, file: "dups.yaml", text)
        }
        // The first entry is the one kept.
        let p = PolicyLoader.load(text: cases[2].0, file: "d.yaml")
        if let n = p.world.lookup("/a") { #expect(p.world[n].mode.rawValue & 0o777 == 0o644) } else { Issue.record("/a is missing") }
    }

    @Test("hundreds of duplicates: every one is reported, with its first line")
    func manyDuplicates() {
        var text = "fspolicy: 1\ntree:\n"
        for i in 0..<300 { text += "  /srv/f\(i): {mode: \"0644\"}\n" }
        for i in 0..<120 { text += "  /srv/f\(i): {mode: \"0600\"}\n" }
        let p = PolicyLoader.load(text: text, file: "many.yaml")
        let dups = p.diagnostics.sorted.filter { $0.code == "duplicate-key" }
        #expect(dups.count == 120)
        #expect(
            dups.first?.rendered.hasPrefix("many.yaml:303:3: error: `/srv/f0` appears twice in the same mapping (first at line 3)") == true,
            "\(dups.first?.rendered ?? "none")")
        // The first occurrence is the one kept.
        if let n = p.world.lookup("/srv/f7") { #expect(p.world[n].mode.rawValue & 0o777 == 0o644) } else { Issue.record("/srv/f7 is missing") }
    }
}

/// Duplicated keys that are mappings (`? icy: 1` twice): the report once depended on a hash
/// table's order, so it changed from run to run (found by fuzzing `fmt`).
@Test func duplicatedComplexKeysAreReportedTheSameEveryTime() {
    let text = "fspolicy: 1\ngroups:\n? icy: 1\ng: x\n? staff: {gid: 20}\nsemantics: linux\n? icy: 1\nh: y\n? staff: {gid: 20}\n"
    var seen = Set<String>()
    for _ in 0..<20 {
        let p = PolicyLoader.load(text: text, file: "keys.yaml")
        seen.insert(p.diagnostics.sorted.map(\.rendered).joined(separator: "\n"))
        if case .failure(let f) = Formatter.format(text, file: "keys.yaml") { seen.insert("fmt: " + f.diagnostics.map(\.rendered).joined(separator: "\n")) }
    }
    #expect(seen.count == 2, "\(seen.sorted())")
    #expect(seen.contains { $0.hasPrefix("keys.yaml:3:1: error: a mapping has two equal keys that are lists or mappings") }, "\(seen.sorted())")
}

/// A section of more than 4 MiB (a scan's `tree:`, a big `expect:`) is read in two halves on two
/// threads. Read with every section split (a threshold of one byte), every file must give the
/// very same document, node for node, as read in one pass, and so the same policy.
@Suite("the YAML reader in two halves")
struct FastYAMLSplitTests {
    static func same(_ a: FastYAMLDocument, _ b: FastYAMLDocument) -> Bool {
        a.root == b.root && a.children == b.children && a.unescaped == b.unescaped
            && a.duplicates.map(\.key) == b.duplicates.map(\.key) && a.duplicates.map(\.first) == b.duplicates.map(\.first)
            && a.nodes.count == b.nodes.count
            && zip(a.nodes, b.nodes).allSatisfy {
                $0.line == $1.line && $0.column == $1.column && $0.kind == $1.kind && $0.style == $1.style && $0.a == $1.a && $0.b == $1.b
            }
    }

    /// A policy with a tree mapping and an expect list, big enough for several sections.
    static func generated(entries: Int, duplicates: Bool) -> String {
        var t = "fspolicy: 1\nsemantics: linux\nusers:\n"
        for u in 0..<20 { t += "  u\(u): {uid: \(5000 + u)}\n" }
        t += "tree:\n"
        for k in 0..<entries {
            t += "  /srv/d\(k % 50)/f\(k): {owner: u\(k % 20), mode: \"0644\"}\n"
            if duplicates && k % 997 == 0 { t += "  /srv/d\(k % 50)/f\(k): {owner: u1}\n" }
            if k % 500 == 0 { t += "  # a comment line\n\n" }
            // A key with an escape: a scalar that is not a piece of the text.
            if k % 250 == 0 { t += "  \"/srv/e\\u00e9\(k)\": {owner: u2}\n" }
        }
        t += "expect:\n"
        for k in 0..<entries {
            t +=
                k % 3 == 0
                ? "  - as: u\(k % 20)\n    op: read\n    path: /srv/d\(k % 50)/f\(k)\n    result: allow\n"
                : "  - {as: u\(k % 20), op: write, path: \"/srv/d\(k % 50)/f\(k)\", result: deny}\n"
        }
        t += "steps:\n  - {as: root, op: chmod, path: /srv/d1, mode: \"0700\"}\n"
        return t
    }

    @Test("every file reads the same in two halves as in one")
    func everyFile() {
        var split = 0, compared = 0
        var files = FastYAMLTests.repositoryFiles()
        files.append(("generated", Self.generated(entries: 3000, duplicates: false)))
        files.append(("generated with duplicates", Self.generated(entries: 3000, duplicates: true)))
        for (path, text) in files {
            let whole = FastYAML.read(text, file: path, splitBytes: Int.max)
            let halves = FastYAML.read(text, file: path, splitBytes: 1)
            #expect((whole == nil) == (halves == nil), "\(path)")
            guard let whole, let halves else { continue }
            #expect(Self.same(whole, halves), "\(path)")
            #expect(whole.splitSections == 0)
            split += halves.splitSections
            compared += 1
        }
        // The comparison ran on many files, and many sections were split.
        #expect(compared > 100 && split > 50, "\(compared) files, \(split) sections split")
        // The generated file splits its three sections of many lines: the users, the tree, the list.
        let g = FastYAML.read(Self.generated(entries: 3000, duplicates: true), file: "g", splitBytes: 1)
        #expect(g?.splitSections == 3 && g?.duplicates.count == 4, "\(String(describing: g?.splitSections)) \(String(describing: g?.duplicates.count))")
    }
    @Test("owners, groups and modes written alike are read once, with every error still reported where it is")
    func repeatedFieldsReadOnce() {
        // 600 users: more names than the memo's 256 slots, so that some collide; valid and
        // invalid values repeated, quoted and plain, a user named `null` beside a null value.
        var text = "fspolicy: 1\nsemantics: linux\n\ngroups:\n  \"g1\": {gid: 3001}\n  \"null\": {gid: 3002}\n\nusers:\n"
        for u in 0..<600 { text += "  \"u\(u)\": {uid: \(5000 + u), group: \"g1\"}\n" }
        text += "  \"null\": {uid: 7000}\n\ntree:\n"
        let owners = ["\"u1\"", "u1", "\"ghost\"", "\"null\"", "null", "\"42\"", "42", "\"4294967295\"", "\"\"", "~"]
        let groups = ["\"g1\"", "g1", "\"null\"", "null", "\"nogroup-here\"", "\"7\""]
        let modes = ["\"0644\"", "0644", "\"0999\"", "\"rw-r-----\"", "\"-rw-r--r--\"", "\"drwxr-xr-x\"", "\"12345\"", "\"rwz------\""]
        for k in 0..<1200 {
            let owner = k % 3 == 0 ? owners[k % owners.count] : "\"u\((k * 7) % 600)\""
            text += "  /n\(k): {owner: \(owner), group: \(groups[k % groups.count]), mode: \(modes[k % modes.count])}\n"
        }
        #expect(FastYAMLTests.checkRead(text, file: "memo.yaml", "repeated fields") == .read, "the reader must read this file")
        FastYAMLTests.comparePolicies(text, file: "memo.yaml", "repeated fields")
        // Each bad value is reported at every node that has it, not only the first.
        let p = PolicyLoader.load(text: text, file: "memo.yaml")
        let ghosts = p.diagnostics.items.filter { $0.code == "unknown-user" }.count
        // (An empty quoted name is a name no one has; an empty plain one is null, a wrong type.)
        #expect(ghosts == (0..<1200).filter { $0 % 3 == 0 && ["\"ghost\"", "\"\""].contains(owners[$0 % owners.count]) }.count && ghosts > 10, "\(ghosts)")
        let badModes = p.diagnostics.items.filter { $0.code == "bad-mode" }.count
        #expect(badModes == (0..<1200).filter { ["\"0999\"", "\"12345\"", "\"rwz------\""].contains(modes[$0 % modes.count]) }.count)
    }
}

/// A long `expect:` list is read quickly on other threads while the tree is built, with the
/// names known then (`Compiler.startQuickRead`): the reading is taken when they are still the
/// file's once the list's turn comes, and done again when an app or a step declared after the
/// tree has changed them.
@Suite struct EarlyQuickReadTests {
    static func file(apps: Bool, steps: Bool, count: Int) -> String {
        var t = """
            fspolicy: 1
            semantics: macos
            users:
              erin: {uid: 501}
            tree:
              /Users/erin: {type: dir, owner: erin, mode: "0755"}
              /Users/erin/a.txt: {owner: erin, mode: "0644"}

            """
        if apps {
            t += """
                apps:
                  org.example.Sketch:
                    user: erin
                    entitlements: {com.apple.security.app-sandbox: true}

                """
        }
        if steps { t += "steps:\n  - {as: erin, op: create, path: /Users/erin/b.txt}\n" }
        t += "expect:\n"
        for k in 0..<count {
            let subject = apps && k % 3 == 0 ? "org.example.Sketch" : "erin"
            let after = steps && k % 5 == 0 ? ", after: 1" : ""
            t += "  - {as: \(subject), op: read, path: /Users/erin/a.txt, result: allow\(after)}\n"
        }
        return t
    }

    @Test(
        "taken when the names are unchanged, read again when an app or a step came after the tree",
        arguments: [(false, false), (true, false), (false, true), (true, true)])
    func takenOrReadAgain(apps: Bool, steps: Bool) {
        let text = Self.file(apps: apps, steps: steps, count: 300)
        let (early, c) = PolicyLoader.loadCompiled(
            text: text, file: "e.yaml", semanticsOverride: nil,
            fastExpect: true, earlyCount: 0)
        // Before the tree was built the app and the step were unknown: its entries could not be
        // read quickly with those names.
        #expect(c.earlyReadTaken == !(apps || steps), "apps \(apps), steps \(steps): taken \(String(describing: c.earlyReadTaken))")
        // Read again, every entry is read quickly all the same, and the policy is the one of the
        // full reading.
        #expect(c.quickExpectations == 300)
        let full = PolicyLoader.load(text: text, file: "e.yaml", semanticsOverride: nil, fastExpect: false)
        #expect(FastYAMLTests.dump(early) == FastYAMLTests.dump(full))
        // Below the length it starts at, there is no early reading.
        let (_, late) = PolicyLoader.loadCompiled(
            text: text, file: "e.yaml", semanticsOverride: nil,
            fastExpect: true, earlyCount: 301)
        #expect(late.earlyReadTaken == nil)
    }
}
