import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyYAML
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// Issue 20, "one grammar" for `expect:`: the quick reading of expectations
/// (`Compiler.readExpectationsQuickly`) must give the same expectations, field by field, and the
/// same diagnostics (position, code, message, hint) as the full reading, for entries of every
/// form — subjects of every kind, every key, bad values, unknown and duplicated keys, comments,
/// quoting and escapes, anchors and aliases, block and flow style — and for mutants of them.
/// `FastYAMLTests.comparePolicies` loads each text several ways (quick, in full, …)
/// and compares the dumps, which hold every field of every expectation (`canon`).
@Suite("quick reading of expect: agrees with the full reading")
struct QuickExpectTests {
    static let linuxHeader = """
        fspolicy: 1
        semantics: linux
        groups:
          team: {gid: 3000}
          empty: {gid: 3001}
        users:
          alice: {uid: 501, group: team}
          bob: {uid: 502, group: team}
          "caf\u{E9}": {uid: 503, group: team}
        tree:
          /srv: {type: dir, owner: alice, group: team, mode: "0755"}
          /srv/a: {owner: alice, group: team, mode: "0640"}
          /srv/b: {type: dir, owner: bob, group: team, mode: "0700"}
          /srv/b/c: {owner: bob, group: team, mode: "0600"}
          "/srv/caf\u{E9}": {owner: bob, group: team, mode: "0644"}
        steps:
          - {as: alice, op: chmod, path: /srv/a, mode: "0600"}

        """

    static let macHeader = """
        fspolicy: 1
        semantics: macos
        groups:
          staff: {gid: 20}
        users:
          erin: {uid: 501, group: staff}
          alice: {uid: 502, group: staff}
          bob: {uid: 503, group: staff}
        tree:
          /Users/erin: {type: dir, owner: erin, group: staff, mode: "0755"}
          /Users/erin/a.txt: {owner: erin, group: staff, mode: "0644"}
        apps:
          org.example.Sketch:
            user: erin
            entitlements: {com.apple.security.app-sandbox: true}

        """

    /// Values written for each key, good ones first (picked more often) and then bad or unusual ones.
    static let subjects = [
        "alice", "bob", "root", "\"bob\"", "'alice'", "501", "0", "99999", "7", "\"7\"", "org.example.Sketch", "erin",
        "nobody", "\"*\"", "'group:team'", "\"group:empty\"", "\"group:nope\"", "\"group:team\"", "~", "null", "\"\"", "[alice]",
        "{a: b}", "\"caf\\u00e9\"", "caf\u{E9}", "cafe\u{301}", "\"group:\u{301}team\"", "Alice", "\"al\\x69ce\"", "4294967295"
    ]
    static let ops = [
        "read", "write", "stat", "execute", "delete", "list", "search", "readattr", "create", "mkdir", "creat", "\"read\"", "'write'",
        "chmod", "rename", "link", "chown", "chgrp", "chflags", "setacl", "propagate", "removeacls", "touch", "settimes", "reed",
        "READ", "~", "[read]", "append", "readsecurity", "\"re\\x61d\""
    ]
    static let paths = [
        "/srv/a", "/srv/b/c", "\"/srv/b\"", "'/srv'", "/", "/srv/nothere", "/srv/*", "/srv/**", "\"/srv/{a,b}\"", "srv/a",
        "/srv/./a", "/srv//a", "/srv/a/", "/srv/../a", "\"/srv/x\\tb\"", "'/srv/x\\011b'", "\"/srv/caf\u{E9}\"", "~", "\"\"",
        "/Users/erin/a.txt", "/Users/erin", "[/srv/a]", "/srv/a b", "\"/srv/\\x61\""
    ]
    static let results = ["allow", "deny", "\"allow\"", "'deny'", "Allow", "denied", "~", "[allow]", "\"de\\x6ey\"", "allowed"]
    /// Other keys, each with a few values.
    static let extras: [(String, [String])] = [
        ("errno", ["EACCES", "EPERM", "ENOENT", "eacces", "~", "\"EACCES\""]),
        ("layer", ["mode", "acl", "ownership", "bogus", "~", "\"mode\""]),
        ("name", ["first", "\"tab\\there\"", "'it''s'", "~", "\"\"", "\"caf\\u00e9 \\x1b[31m\""]),
        ("hint", ["look at the mode", "~", "\"quoted\""]),
        ("after", ["0", "1", "2", "-1", "x", "~", "\"1\"", "01"]),
        ("to", ["/srv/z", "/srv/b/d"]),
        ("mode", ["\"0644\"", "0600"]),
        ("owner", ["bob"]),
        ("group", ["team"]),
        ("flags", ["[uchg]", "[]"]),
        ("acl", ["[]"]),
        ("users", ["[alice, bob]", "[alice, alice]", "[]", "[nobody]"]),
        ("except", ["[bob]", "[nobody]"]),
        ("allowed", ["[alice]", "[alice, nobody]", "[]"]),
        ("quiz", ["true", "false", "yes", "maybe"]),
        ("topic", ["P1", "Z9"]),
        ("type", ["file", "dir", "rock"]),
        ("state", ["{exists: true}", "{mode: \"0640\", owner: alice}", "{bogus: 1}"]),
        ("reslt", ["allow"]),
        ("As", ["alice"])
    ]

    /// A deterministic generator of expectation entries.
    struct Entries {
        var g: FastYAMLTests.Generator

        mutating func pick(_ values: [String]) -> String {
            // The first few (good) values most of the time.
            g.next(6) != 0 ? values[g.next(min(values.count, 6))] : values[g.next(values.count)]
        }

        /// One entry: its keys and values, as flow (`- {k: v, …}`) or block lines, with comments now and then.
        mutating func entry(duplicates: Bool) -> String {
            var fields: [(String, String)] = []
            if g.next(20) != 0 { fields.append(("as", pick(QuickExpectTests.subjects))) }
            if g.next(20) != 0 { fields.append(("op", pick(QuickExpectTests.ops))) }
            if g.next(20) != 0 { fields.append(("path", pick(QuickExpectTests.paths))) }
            if g.next(20) != 0 { fields.append(("result", pick(QuickExpectTests.results))) }
            while g.next(3) == 0 {
                let (k, vs) = QuickExpectTests.extras[g.next(QuickExpectTests.extras.count)]
                if !fields.contains(where: { $0.0 == k }) { fields.append((k, vs[g.next(vs.count)])) }
            }
            // Keys in another order, quoted keys.
            if g.next(4) == 0, fields.count > 1 { fields.swapAt(0, g.next(fields.count)) }
            fields = fields.map { g.next(12) == 0 ? ("\"" + $0.0 + "\"", $0.1) : $0 }
            if duplicates, g.next(4) == 0, let f = fields.first {
                // A key written twice (quoted both times, each set aside).
                let quoted = "\"" + f.0.replacingOccurrences(of: "\"", with: "") + "\""
                fields[0].0 = quoted
                fields.append((quoted, g.next(2) == 0 ? f.1 : "other"))
            }
            let comment = g.next(6) == 0 ? "  # note: \(g.next(100))" : ""
            if g.next(3) == 0 && !duplicates {
                return "  - {" + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}" + comment + "\n"
            }
            if fields.isEmpty { return "  - {}\n" }
            var s = ""
            for (k, (key, value)) in fields.enumerated() {
                s += (k == 0 ? "  - " : "    ") + "\(key): \(value)" + (k == 0 ? comment : "") + "\n"
                if g.next(15) == 0 { s += "    # between keys\n" }
            }
            return s
        }
    }

    static func file(header: String, entries count: Int, seed: UInt64, duplicates: Bool = false) -> String {
        var e = Entries(g: FastYAMLTests.Generator(state: seed))
        var text = header + "expect:\n"
        for _ in 0..<count { text += e.entry(duplicates: duplicates) }
        return text
    }

    @Test("generated entries of every form: the same expectations and diagnostics either way")
    func generatedEntries() {
        for (h, header) in [Self.linuxHeader, Self.macHeader].enumerated() {
            for seed in 0..<6 {
                let text = Self.file(header: header, entries: 300, seed: UInt64(100 * h + seed))
                let quick = FastYAMLTests.comparePolicies(text, file: "quick.yaml", "header \(h) seed \(seed)")
                // Both readings are exercised: many entries are read quickly, many are not.
                let p = PolicyLoader.load(text: text, file: "quick.yaml")
                #expect(quick >= 30 && quick <= 270, "header \(h) seed \(seed): the quick reading read \(quick) of 300 entries")
                #expect(
                    p.expectations.count > quick,
                    "header \(h) seed \(seed): \(p.expectations.count) expectations, \(quick) read quickly; \(p.diagnostics.sorted.prefix(3).map(\.rendered))")
                #expect(p.diagnostics.hasErrors, "header \(h) seed \(seed): the generated entries include bad ones")
            }
        }
    }

    @Test("entries with duplicated keys, and a file with anchors and aliases")
    func duplicatesAndAliases() {
        for seed in 0..<4 {
            let text = Self.file(header: Self.linuxHeader, entries: 120, seed: UInt64(500 + seed), duplicates: true)
            #expect(FastYAML.read(text, file: "d.yaml") != nil, "seed \(seed): the reader reads the duplicated keys")
            FastYAMLTests.comparePolicies(text, file: "dups.yaml", "duplicates seed \(seed)")
            let p = PolicyLoader.load(text: text, file: "dups.yaml")
            #expect(p.diagnostics.items.contains { $0.code == "duplicate-key" }, "seed \(seed): no duplicate was reported")
        }
        // Anchors and aliases: an alias is its anchor's node again; both readings of the
        // expectations see the same (alias-expanded) entries.
        let aliased =
            Self.linuxHeader + """
                expect:
                  - &e {as: alice, op: read, path: /srv/a, result: allow}
                  - *e
                  - {as: &who bob, op: write, path: /srv/b/c, result: allow}
                  - {as: *who, op: read, path: /srv/a, result: deny, errno: EACCES}
                  - as: *who
                    op: &op stat
                    path: /srv
                    result: allow
                  - {as: alice, op: *op, path: /srv/b, result: allow}

                """
        #expect(FastYAML.read(aliased, file: "a.yaml")?.aliases == 4)
        FastYAMLTests.comparePolicies(aliased, file: "aliases.yaml", "anchors and aliases")
        #expect(PolicyLoader.load(text: aliased, file: "aliases.yaml").expectations.count == 6)
    }

    @Test("the common entry is read quickly, with the values the full reading gives")
    func commonEntry() {
        let text =
            Self.linuxHeader + """
                expect:
                  - {as: alice, op: read, path: /srv/a, result: allow}
                  - {as: "bob", op: 'write', path: "/srv/b/c", result: deny, errno: EACCES, layer: mode, name: "bob \\x1b[1m", after: 1, hint: why}
                  - as: "7"   # no user is named 7: uid 7
                    op: stat
                    path: /srv
                    result: allow   # a comment
                  - {as: 99999, op: readattr, path: /, result: deny}

                """
        let (p, quick) = PolicyLoader.loadCounting(text: text, file: "c.yaml", semanticsOverride: nil, fastExpect: true)
        #expect(quick == 4)
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        FastYAMLTests.comparePolicies(text, file: "c.yaml", "common entries")
        guard p.expectations.count == 4 else { Issue.record("\(p.expectations.count) expectations"); return }
        let e = p.expectations[1]
        // The header's lines, `expect:`, the first entry, then this one (its `{`).
        let line = Self.linuxHeader.filter { $0 == "\n" }.count + 3
        #expect(e.index == 1 && e.location.line == line && e.location.column == 5, "\(e.location)")
        #expect(e.asText == "bob" && e.subject == .user(502) && e.request.op == .write && e.request.path == "/srv/b/c")
        #expect(e.result == false && e.errno == .EACCES && e.layer == .mode && e.after == 1 && e.hint == "why")
        #expect(e.name == Escaping.line("bob \u{1B}[1m") && e.name != "bob \u{1B}[1m")
        #expect(p.expectations[2].subject == .user(7) && p.expectations[2].asText == "7")
        #expect(p.expectations[3].subject == .user(99999) && p.expectations[3].request.op.word == "readattr")
    }

    @Test("mutants of generated entries: the same policy either way")
    func mutants() {
        let text = Self.file(header: Self.linuxHeader, entries: 40, seed: 7)
        var quickTotal = 0
        for (k, m) in FastYAMLTests.mutants(of: text, count: 300, seed: 4242).enumerated() {
            quickTotal += FastYAMLTests.comparePolicies(m, file: "m.yaml", "mutant \(k)")
        }
        #expect(quickTotal > 0, "no mutant was read quickly")
    }
}
