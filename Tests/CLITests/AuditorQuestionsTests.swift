import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// Groups as subjects, sets written as sets, `--any`, and grids whose default ops fit each
/// node's type (docs/cli.md, "Groups as subjects", "who", "matrix").
@Suite("Auditor's questions")
struct AuditorQuestionsTests {
    static let host = "fixtures/examples/host-groups/policy.yaml"

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test("the default grid never asks a directory to be opened for writing, on every bundled example", arguments: CommandTests.examples)
    func noDefaultEISDIR(_ file: String) throws {
        let r = try fspolicy(["matrix", file])
        #expect(r.status == 0, "\(r.stderr)")
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
        let world = Evaluator(policy: p).world(after: nil)
        var dirs = 0, files = 0
        for line in r.stdout.split(separator: "\n").dropFirst() {
            let f = csvFields(line)
            guard let n = world.lookup(f[0]) else { continue }
            if world[n].isDir {
                #expect(["list", "search", "modify"].contains(f[1]), "\(file): \(f[0]) \(f[1])")
                dirs += 1
            } else {
                #expect(["read", "write", "execute"].contains(f[1]), "\(file): \(f[0]) \(f[1])")
                files += 1
            }
        }
        #expect(dirs > 0)
    }

    @Test("matrix writes a set that is everyone, or everyone but a few, that way in CSV; --list-all and JSON Lines give the names")
    func matrixSetsInWords() throws {
        let d = try HostileInputTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let file = d + "/p.yaml"
        try """
        fspolicy: 1
        semantics: linux
        users:
          u1: {uid: 1001}
          u2: {uid: 1002}
          u3: {uid: 1003}
          u4: {uid: 1004}
          u5: {uid: 1005}
          u6: {uid: 1006}
          u7: {uid: 1007}
        tree:
          /srv: {type: dir, owner: root, mode: "0755"}
          /srv/open: {owner: root, mode: "0644"}
          /srv/mostly: {owner: u2, mode: "0044"}
          /srv/few: {owner: u1, mode: "0600"}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try fspolicy(["matrix", file, "--op", "read", "--under", "/srv"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = Dictionary(
            r.stdout.split(separator: "\n").dropFirst().map { l in
                let f = csvFields(l); return (f[0], f[2])
            }, uniquingKeysWith: { a, _ in a })
        #expect(rows["/srv/open"] == "everyone", "\(r.stdout)")
        #expect(rows["/srv/mostly"] == "everyone except u2", "\(r.stdout)")
        #expect(rows["/srv/few"] == "root u1", "\(r.stdout)")
        // The same sets named one by one, as can answers each user.
        let all = try fspolicy(["matrix", file, "--op", "read", "--under", "/srv", "--list-all"])
        let j = try fspolicy(["matrix", file, "--op", "read", "--under", "/srv", "--format", "jsonl"])
        let listed = Dictionary(
            all.stdout.split(separator: "\n").dropFirst().map { l in
                let f = csvFields(l); return (f[0], f[2])
            }, uniquingKeysWith: { a, _ in a })
        let p = PolicyLoader.load(path: file)
        let ev = Evaluator(policy: p)
        for path in ["/srv/open", "/srv/mostly", "/srv/few"] {
            let expected = ev.who(RequestSpec(op: .read, path: path)).filter { $0.decision.allowed }.map(\.name)
            #expect(listed[path] == expected.joined(separator: " "), "\(path)")
            let line = try #require(j.stdout.split(separator: "\n").first { $0.contains("\"path\":\"\(path)\"") })
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(o["allowed"] as? [String] == expected, "\(path)")
        }
    }

    /// A CSV matrix's `allowed` cells by path (one op).
    static func cells(_ csv: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in csv.split(separator: "\n").dropFirst() {
            let f = csvFields(line)
            out[f[0]] = f[2]
        }
        return out
    }

    @Test("matrix --any names the users allowed one of the ops, as can answers them")
    func matrixAny() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        let r = try fspolicy(["matrix", file, "--op", "write,delete", "--any", "--list-all"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
        let ev = Evaluator(policy: p)
        var rows = 0
        for line in r.stdout.split(separator: "\n").dropFirst() {
            let f = csvFields(line)
            #expect(f[1] == "write|delete")
            let w = ev.who(RequestSpec(op: .write, path: f[0])), d = ev.who(RequestSpec(op: .delete, path: f[0]))
            let expected = zip(w, d).filter { $0.0.decision.allowed || $0.1.decision.allowed }.map(\.0.name)
            #expect(f[2] == expected.joined(separator: " "), "\(f[0])")
            rows += 1
        }
        #expect(rows == Evaluator(policy: p).world(after: nil).nodeCount)
    }

    @Test("access --any lists where one op is allowed; --any --denied where all are denied")
    func accessAny() throws {
        let file = "fixtures/examples/audit/after.yaml"
        let any = try fspolicy(["access", file, "--as", "bob", "--op", "write,modify", "--any", "--format", "csv"])
        let denied = try fspolicy(["access", file, "--as", "bob", "--op", "write,modify", "--any", "--denied", "--format", "csv"])
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
        let ev = Evaluator(policy: p)
        let uid = p.world.user(named: "bob")!.uid
        let world = ev.world(after: nil)
        let listed = Set(any.stdout.split(separator: "\n").dropFirst().map { csvFields($0)[0] })
        let notListed = Set(denied.stdout.split(separator: "\n").dropFirst().map { csvFields($0)[0] })
        for n in [World.root] + world.descendants(of: World.root) {
            let path = world.path(of: n)
            let ok = [FSPolicy.Operation.write, .modify].contains { ev.decide(RequestSpec(op: $0, path: path), uid: uid).allowed }
            #expect(listed.contains(path) == ok, "\(path)")
            #expect(notListed.contains(path) == !ok, "\(path)")
        }
        #expect(listed.contains("/srv/pub"), "the world-writable folder is missing")
    }

    @Test("who lists the groups that grant, with their members, a group without members included")
    func whoGroups() throws {
        let r = try fspolicy(["who", Self.host, "--op", "read", "/etc/shadow", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let groups = (try Self.json(r.stdout)["groups"] as? [[String: Any]]) ?? []
        #expect(groups.map { $0["name"] as? String } == ["shadow"])
        #expect((groups.first?["members"] as? [String]) == [])
        let syslog = try fspolicy(["who", Self.host, "--op", "read", "/var/log/syslog", "--format", "json"])
        let g2 = (try Self.json(syslog.stdout)["groups"] as? [[String: Any]]) ?? []
        #expect(g2.map { $0["name"] as? String } == ["adm"])
        #expect((g2.first?["members"] as? [String]) == ["alice"])
        // A world-readable file: every user reads it, so no group is what grants it.
        let passwd = try fspolicy(["who", Self.host, "--op", "read", "/etc/passwd", "--format", "json"])
        #expect(((try Self.json(passwd.stdout)["groups"] as? [Any]) ?? ["?"]).isEmpty)
    }

    @Test("--as @GROUP is a member of the group with no other right, in can, explain, access and matrix")
    func groupSubject() throws {
        let can = try fspolicy(["can", Self.host, "--as", "@shadow", "--op", "read", "/etc/shadow"])
        #expect(can.status == 0, "\(can.stdout)\(can.stderr)")
        let staff = try fspolicy(["can", Self.host, "--as", "@staff", "--op", "read", "/etc/shadow"])
        #expect(staff.status == 2)
        let ex = try fspolicy(["explain", Self.host, "--as", "@adm", "--op", "read", "/var/log/syslog"])
        #expect(ex.stdout.contains("Subject:  @adm (uid 4000000000; groups adm)"), "\(ex.stdout)")
        // The synthetic member owns nothing: alice's group staff can write her site, the member of
        // staff can too, but only through the group bits, never as the owner.
        let own = try fspolicy(["explain", Self.host, "--as", "@staff", "--op", "write", "/srv/www/index.html", "--format", "json"])
        #expect(try Self.json(own.stdout)["rule"] as? String == "mode.group-grants")
        let bad = try fspolicy(["can", Self.host, "--as", "@shadw", "--op", "read", "/etc/shadow"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("did you mean `@shadow`?"), "\(bad.stderr)")
        let m = try fspolicy(["matrix", Self.host, "--users", "@shadow,@adm,bob", "--op", "read", "--under", "/etc/shadow", "--format", "jsonl"])
        #expect(m.stdout == "{\"path\":\"/etc/shadow\",\"op\":\"read\",\"allowed\":[\"@shadow\"]}\n", "\(m.stdout)\(m.stderr)")
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-groups-\(UUID().uuidString).html").path
        defer { try? FileManager.default.removeItem(atPath: page) }
        let rep = try fspolicy(["report", Self.host, "--users", "@shadow,alice", "-o", page])
        #expect(rep.status == 0, "\(rep.stderr)")
        let html = (try? String(contentsOfFile: page, encoding: .utf8)) ?? ""
        #expect(html.contains("\"@shadow\"") && html.contains("FSL025"), "the report has the group's row and the inventory")
        let a = try fspolicy(["access", Self.host, "--as", "@adm", "--under", "/var/log", "--format", "csv"])
        #expect(a.stdout.contains("/var/log/syslog,file"), "\(a.stdout)")
    }

    @Test("who writes everyone and everyone except; --list-all lists each; --allowed and --denied pick a side")
    func whoSets() throws {
        let passwd = try fspolicy(["who", Self.host, "--op", "read", "/etc/passwd"])
        #expect(passwd.stdout.contains("allowed: everyone\n"), "\(passwd.stdout)")
        let index = try fspolicy(["who", Self.host, "--op", "read", "/srv/www/index.html", "--format", "json"])
        let users = (try Self.json(index.stdout)["users"] as? [[String: Any]]) ?? []
        let out = users.filter { $0["result"] as? String != "allow" }.compactMap { $0["name"] as? String }
        let text = try fspolicy(["who", Self.host, "--op", "read", "/srv/www/index.html"])
        if out.isEmpty {
            #expect(text.stdout.contains("allowed: everyone\n"))
        } else {
            #expect(text.stdout.contains("allowed: everyone except \(out.joined(separator: ", "))\n"), "\(text.stdout)")
        }
        let motd = try fspolicy(["who", Self.host, "--op", "read", "/srv/www/motd.txt"])
        #expect(motd.stdout.contains("allowed: everyone except games, nobody\n"), "\(motd.stdout)")
        // The empty set is `no one`: this host has a user called `nobody`, and a name cannot hold
        // a space.
        let none = try fspolicy(["who", Self.host, "--op", "create", "/var/tmp/x"])
        #expect(none.stdout.contains("allowed: no one\ndenied:\n"), "\(none.stdout)")
        let all = try fspolicy(["who", Self.host, "--op", "read", "/etc/passwd", "--list-all"])
        #expect(!all.stdout.contains("everyone"))
        #expect(all.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.count == users.count)
        let allowedOnly = try fspolicy(["who", Self.host, "--op", "read", "/var/log/syslog", "--allowed"])
        #expect(!allowedOnly.stdout.contains("denied:") && allowedOnly.stdout.contains("alice"))
        let deniedOnly = try fspolicy(["who", Self.host, "--op", "read", "/var/log/syslog", "--denied"])
        #expect(!deniedOnly.stdout.contains("allowed:") && deniedOnly.stdout.contains("bob") && !deniedOnly.stdout.contains("alice"))
        let both = try fspolicy(["who", Self.host, "--op", "read", "/etc/passwd", "--allowed", "--denied"])
        #expect(both.status == 64)
        let many = try fspolicy(["who", Self.host, "--op", "read,write", "/etc/passwd"])
        #expect(many.status == 3 && many.stderr.contains("--any"))
    }

    #if os(Linux)
        @Test(
            "this host: a scan of /etc and /usr, and who reads /etc/shadow names the group shadow",
            .enabled(if: hostHasGroup("shadow"), "this host has no group `shadow`"),
            .enabled(if: FileManager.default.fileExists(atPath: "/etc/shadow"), "this host has no /etc/shadow"))
        func realHostShadow() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-host-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scan = try fspolicy(["scan", "/etc", "/usr", "-o", dir + "/host.yaml"])
            #expect(scan.status == 0, "\(scan.stderr)")
            let r = try fspolicy(["who", dir + "/host.yaml", "--op", "read", "/etc/shadow", "--format", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let groups = (try Self.json(r.stdout)["groups"] as? [[String: Any]]) ?? []
            let names = groups.compactMap { $0["name"] as? String }
            print(
                "who reads /etc/shadow on this host: groups \(names), users \(((try Self.json(r.stdout)["users"] as? [[String: Any]]) ?? []).filter { $0["result"] as? String == "allow" }.compactMap { $0["name"] as? String })"
            )
            var st = stat()
            stat("/etc/shadow", &st)
            // Only when the file's group has a read bit does the group grant anything.
            if st.st_mode & 0o040 != 0, getgrgid(st.st_gid).map({ String(cString: $0.pointee.gr_name) }) == "shadow" {
                #expect(names.contains("shadow"), "\(r.stdout)")
            }
        }
    #endif
}

#if os(Linux)
    /// A group of this name exists on the host.
    func hostHasGroup(_ name: String) -> Bool { getgrnam(name) != nil }
#endif
