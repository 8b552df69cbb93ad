import FSPolicy
#if os(Linux)
    import FSPolicyImport
#endif
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// Splits one CSV line (RFC 4180 quoting) into fields.
func csvFields(_ line: Substring) -> [String] {
    var out: [String] = []
    var cur = ""
    var quoted = false
    var i = line.startIndex
    while i < line.endIndex {
        let c = line[i]
        if quoted {
            if c == "\"" {
                let n = line.index(after: i)
                if n < line.endIndex && line[n] == "\"" { cur.append("\""); i = n } else { quoted = false }
            } else {
                cur.append(c)
            }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            out.append(cur); cur = ""
        } else {
            cur.append(c)
        }
        i = line.index(after: i)
    }
    out.append(cur)
    return out
}

@Suite("access and matrix")
struct AuditCommandTests {
    @Test("matrix of every bundled example: each row names exactly the users `who` allows", arguments: CommandTests.examples)
    func matrixMatchesWho(_ file: String) throws {
        let r = try fspolicy(["matrix", file, "--list-all"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, host: testHost)
        // A world with folders a scan did not read has a column for the unknown answers.
        let partial = !p.world.unread.isEmpty
        let columns = partial ? 4 : 3
        #expect(lines.first == (partial ? "path,op,allowed,unknown" : "path,op,allowed"))
        let ev = Evaluator(policy: p)
        let world = ev.world(after: nil)
        let nodes = [World.root] + world.descendants(of: World.root)
        #expect(lines.count == 1 + nodes.count * 3)
        var rows = 0
        for line in lines.dropFirst() {
            let f = csvFields(line)
            #expect(f.count == columns)
            guard f.count == columns, let op = FSPolicy.Operation(word: f[1]) else { continue }
            let answers = ev.who(RequestSpec(op: op, path: f[0]))
            // The declared services follow the users, as `who` lists them.
            let services = ev.whoServices(RequestSpec(op: op, path: f[0])).filter { $0.decision.allowed }.map(\.name)
            let who = answers.filter { $0.decision.allowed }.map(\.name) + services
            #expect(f[2] == who.joined(separator: " "), "\(file): \(f[0]) \(f[1])")
            if partial {
                let unknown = answers.filter { $0.decision.unknown }.map(\.name)
                #expect(f[3] == unknown.joined(separator: " "), "\(file): \(f[0]) \(f[1]) unknown")
            }
            rows += 1
        }
        #expect(rows == nodes.count * 3)
    }

    @Test("jsonl carries the same rows as csv")
    func jsonlEqualsCSV() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        let c = try fspolicy(["matrix", file, "--op", "read,delete", "--under", "/Shared", "--list-all"])
        let j = try fspolicy(["matrix", file, "--op", "read", "--op", "delete", "--under", "/Shared", "--format", "jsonl"])
        #expect(c.status == 0 && j.status == 0)
        let csvRows = c.stdout.split(separator: "\n").dropFirst().map { csvFields($0) }
        let jsonRows = j.stdout.split(separator: "\n")
        #expect(csvRows.count == jsonRows.count && csvRows.count > 4)
        for (a, b) in zip(csvRows, jsonRows) {
            let obj = try JSONSerialization.jsonObject(with: Data(b.utf8)) as? [String: Any]
            #expect(obj?["path"] as? String == a[0])
            #expect(obj?["op"] as? String == a[1])
            let allowed = (obj?["allowed"] as? [String]) ?? ["?"]
            #expect(allowed.joined(separator: " ") == a[2])
        }
        #expect(j.stdout.hasPrefix("{\"path\":\"/Shared\",\"op\":\"read\",\"allowed\":["))
    }

    @Test("access lists the nodes where every op is allowed; --denied the others")
    func accessAgreesWithWho() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, host: testHost)
        let ev = Evaluator(policy: p)
        let nodes = [World.root] + p.world.descendants(of: World.root)
        for user in ["alice", "bob", "carol", "dave"] {
            let ops: [FSPolicy.Operation] = [.read, .write]
            let expected = nodes.map { p.world.path(of: $0) }.filter { path in
                ops.allSatisfy { op in ev.who(RequestSpec(op: op, path: path)).first { $0.name == user }!.decision.allowed }
            }
            let r = try fspolicy(["access", file, "--as", user, "--op", "read,write", "--format", "csv"])
            #expect(r.status == 0)
            let got = r.stdout.split(separator: "\n").dropFirst().map { csvFields($0)[0] }
            #expect(got == expected, "\(user)")
            let d = try fspolicy(["access", file, "--as", user, "--op", "read,write", "--format", "csv", "--denied"])
            let gotDenied = d.stdout.split(separator: "\n").dropFirst().map { csvFields($0)[0] }
            #expect(Set(gotDenied) == Set(nodes.map { p.world.path(of: $0) }).subtracting(expected))
        }
    }

    @Test(
        "invalid set questions exit 3 with a hint",
        arguments: [
            ["matrix", "fixtures/examples/team-share/policy.yaml", "--op", "fly"],
            ["matrix", "fixtures/examples/team-share/policy.yaml", "--op", "create"],
            ["matrix", "fixtures/examples/team-share/policy.yaml", "--users", "mallory"],
            ["matrix", "fixtures/examples/team-share/policy.yaml", "--under", "/nope"],
            ["access", "fixtures/examples/team-share/policy.yaml", "--as", "mallory"]
        ])
    func invalid(_ args: [String]) throws {
        let r = try fspolicy(args)
        #expect(r.status == 3)
        #expect(r.stderr.contains("error:") && r.stderr.contains("help:"))
        #expect(r.stdout.isEmpty)
    }

    @Test("names with commas, quotes and control codes are quoted and escaped in CSV")
    func hostileNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml")
        try """
        fspolicy: 1
        semantics: linux
        users:
          ann: {uid: 1000}
        tree:
          "/d/a,b\\"c": {owner: ann, mode: "0600"}
          "/d/esc\\e[31m": {owner: ann, mode: "0644"}
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try fspolicy(["matrix", file.path, "--op", "read"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"/d/a,b\"\"c\",read,root ann\n"))
        #expect(!r.stdout.contains("\u{1b}"))
        #expect(r.stdout.contains("\\033[31m,read,"))
    }

    @Test("check: text, JSON, JUnit and SARIF carry a quantified expectation's counterexamples; --max-examples bounds them")
    func counterexamplesInEveryFormat() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-quant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("q.yaml")
        try """
        fspolicy: 1
        semantics: linux
        groups:
          hr: {gid: 600, members: [hana]}
        users:
          hana: {uid: 1001, group: hr}
          bob: {uid: 1002}
          eve: {uid: 1003}
        tree:
          /srv/hr: {type: dir, owner: hana, group: hr, mode: "0755"}
          /srv/hr/a.txt: {owner: hana, group: hr, mode: "0644"}
          /srv/hr/b.txt: {owner: hana, group: hr, mode: "0640"}
        expect:
          - {as: "*", except: [root, hana], op: read, path: "/srv/hr/*", result: deny}
        """.write(to: file, atomically: true, encoding: .utf8)
        let line = "bob read /srv/hr/a.txt: allow (mode: other bits r-- grant r--)"
        let text = try fspolicy(["check", file.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("2 of 4 (user, path) pairs fail"))
        #expect(text.stdout.contains(line))
        let one = try fspolicy(["check", file.path, "--max-examples", "1"])
        #expect(one.stdout.contains(line) && !one.stdout.contains("eve read /srv/hr/a.txt") && one.stdout.contains("and 1 more"))
        for format in ["json", "junit", "sarif"] {
            let r = try fspolicy(["check", file.path, "--format", format])
            #expect(r.status == 1)
            #expect(r.stdout.contains(line), "\(format)")
            #expect(r.stdout.contains("eve read /srv/hr/a.txt"), "\(format)")
        }
        let json = try fspolicy(["check", file.path, "--format", "json"])
        #expect(json.stdout.contains("\"counterexampleCount\": 2"))
    }
}
