import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

@Suite("diff")
struct DiffCommandTests {
    static let before = "fixtures/examples/audit/before.yaml"
    static let after = "fixtures/examples/audit/after.yaml"

    /// Every (user, op, path) whose `who` answer differs between two policies, as
    /// "user +op path" lines (a path missing on one side is denied there).
    static func expected(_ a: String, _ b: String, ops: [FSPolicy.Operation]) -> Set<String> {
        let pa = PolicyLoader.load(path: packageRoot.appendingPathComponent(a).path)
        let pb = PolicyLoader.load(path: packageRoot.appendingPathComponent(b).path)
        let ea = Evaluator(policy: pa), eb = Evaluator(policy: pb)
        var paths = Set<String>()
        for p in [pa, pb] { for n in [World.root] + p.world.descendants(of: World.root) { paths.insert(p.world.path(of: n)) } }
        var out = Set<String>()
        for path in paths {
            for op in ops {
                let wa = pa.world.lookup(path) == nil ? [] : ea.who(RequestSpec(op: op, path: path)).filter { $0.decision.allowed }.map(\.name)
                let wb = pb.world.lookup(path) == nil ? [] : eb.who(RequestSpec(op: op, path: path)).filter { $0.decision.allowed }.map(\.name)
                for u in Set(wa).symmetricDifference(wb) { out.insert("\(u) \(wb.contains(u) ? "+" : "-")\(op.word) \(path)") }
            }
        }
        return out
    }

    static func lines(_ stdout: String) -> Set<String> {
        Set(
            stdout.split(separator: "\n").dropLast().map { l in
                l.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
            })
    }

    @Test("two files: exactly the answers `who` gives differently, each with what decides it; exit 1")
    func twoFiles() throws {
        let r = try fspolicy(["diff", Self.before, Self.after, "--list-all"])
        #expect(r.status == 1, "\(r.stderr)")
        let want = Self.expected(Self.before, Self.after, ops: [.read, .write, .execute])
        #expect(!want.isEmpty)
        #expect(Self.lines(r.stdout) == want)
        #expect(r.stdout.contains("bob    +write  /srv/hr/salaries.xlsx  (acl: ACE #0 \"group:staff allow read,write\")"))
        // The reverse direction: the same paths, access lost.
        let back = try fspolicy(["diff", Self.after, Self.before, "--op", "read,write,execute", "--list-all"])
        #expect(Self.lines(back.stdout) == Self.expected(Self.after, Self.before, ops: [.read, .write, .execute]))
        #expect(back.stdout.contains("-write"))
    }

    @Test(
        "--steps compares a file before and after its steps",
        arguments: ["fixtures/examples/linux-default-acl/policy.yaml", "fixtures/examples/figure-b1/policy.yaml"])
    func steps(_ file: String) throws {
        let r = try fspolicy(["diff", file, "--steps", "--op", "read,write,delete", "--list-all"])
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
        let ev = Evaluator(policy: p)
        var want = Set<String>()
        let w0 = ev.worlds[0], w1 = ev.worlds[ev.worlds.count - 1]
        var paths = Set<String>()
        for w in [w0, w1] { for n in [World.root] + w.descendants(of: World.root) { paths.insert(w.path(of: n)) } }
        for path in paths {
            for op in [FSPolicy.Operation.read, .write, .delete] {
                for name in p.userOrder {
                    guard let u = p.world.user(named: name) else { continue }
                    let a = w0.lookup(path) != nil && ev.decide(RequestSpec(op: op, path: path), uid: u.uid, after: 0).allowed
                    let b = w1.lookup(path) != nil && ev.decide(RequestSpec(op: op, path: path), uid: u.uid).allowed
                    if a != b { want.insert("\(name) \(b ? "+" : "-")\(op.word) \(path)") }
                }
            }
        }
        #expect(!want.isEmpty)
        #expect(r.status == 1)
        let got = Set(
            r.stdout.split(separator: "\n").dropLast().prefix { $0 != "privileges and inheritance:" }.map { l -> String in
                // user, op, then the path up to the two spaces before "(".
                let parts = l.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                let rest = parts[1].drop { $0 == " " }
                let op = rest.prefix { $0 != " " }
                let path = rest.dropFirst(op.count).drop { $0 == " " }
                let end = path.range(of: "  (")!.lowerBound
                return "\(parts[0]) \(op) \(path[..<end].trimmingCharacters(in: .whitespaces))"
            })
        #expect(got == want)
    }

    @Test(
        "text groups the changes by path and op, one line each, the users as a set, the same changes as --list-all",
        arguments: [
            ["fixtures/examples/audit/before.yaml", "fixtures/examples/audit/after.yaml"],
            ["fixtures/examples/host-groups/policy.yaml", "fixtures/examples/host-groups/after.yaml"]
        ])
    func grouped(_ pair: [String]) throws {
        let all = try fspolicy(["diff"] + pair + ["--list-all"])
        let grouped = try fspolicy(["diff"] + pair)
        #expect(grouped.status == 1 && all.status == 1)
        // The users of each (path, op) from the per-user lines.
        var want: [String: [String]] = [:]
        var order: [String] = []
        for l in all.stdout.split(separator: "\n").dropLast() {
            let f = l.split(separator: " ", omittingEmptySubsequences: true)
            let key = "\(f[2]) \(f[1])"
            if want[key] == nil { order.append(key) }
            want[key, default: []].append(String(f[0]))
        }
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(pair[1]).path)
        let everyone = p.userOrder
        let lines = grouped.stdout.split(separator: "\n").dropLast().map(String.init)
        #expect(lines.count == order.count)
        for (line, key) in zip(lines, order) {
            let users = want[key]!
            let outside = everyone.filter { !users.contains($0) }
            let set =
                outside.isEmpty
                ? "everyone"
                : everyone.count >= 6 && outside.count <= 3 && outside.count * 4 <= everyone.count
                    ? "everyone except " + outside.joined(separator: ", ")
                    : users.joined(separator: ", ")
            #expect(line == "\(key): \(set)")
        }
        #expect(grouped.stdout.split(separator: "\n").last == all.stdout.split(separator: "\n").last)
    }

    @Test("no change exits 0; --under and --users narrow; JSON and SARIF carry the same changes")
    func formats() throws {
        let same = try fspolicy(["diff", Self.before, Self.before])
        #expect(same.status == 0)
        #expect(same.stdout == "no change [semantics: macos]\n")
        let pub = try fspolicy(["diff", Self.before, Self.after, "--under", "/srv/pub"])
        #expect(pub.status == 0)
        let bob = try fspolicy(["diff", Self.before, Self.after, "--users", "bob"])
        #expect(bob.status == 1 && !bob.stdout.contains("carol") && bob.stdout.contains("bob"))
        let text = try fspolicy(["diff", Self.before, Self.after, "--list-all"])
        let n = text.stdout.split(separator: "\n").count - 1
        let json = try fspolicy(["diff", Self.before, Self.after, "--format", "json"])
        #expect(json.status == 1)
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let changes = doc?["changes"] as? [[String: Any]] ?? []
        #expect(changes.count == n && doc?["count"] as? Int == n)
        #expect(
            changes.contains {
                $0["user"] as? String == "carol" && $0["op"] as? String == "write" && $0["change"] as? String == "allowed" && $0["layer"] as? String == "acl"
            })
        let sarif = try fspolicy(["diff", Self.before, Self.after, "--format", "sarif"])
        #expect(sarif.status == 1)
        let s = try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any]
        let results = ((s?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        #expect(results.count == n)
        #expect(sarif.stdout.contains("bob may now write /srv/hr/salaries.xlsx"))
        if let python = which("python3"), try run(python, ["-c", "import jsonschema"]).status == 0 {
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-diff-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: tmp) }
            try sarif.stdout.write(to: tmp, atomically: true, encoding: .utf8)
            let v = try run(
                python,
                [
                    "-c",
                    "import json,sys,jsonschema; jsonschema.Draft4Validator(json.load(open('Tests/Schemas/sarif-schema-2.1.0.json'))).validate(json.load(open(sys.argv[1])))",
                    tmp.path
                ])
            #expect(v.status == 0, "jsonschema: \(v.stderr)")
        } else {
            Issue.record("python3 with jsonschema is needed to validate SARIF: run scripts/setup")
        }
        // Same input, same bytes.
        #expect(try fspolicy(["diff", Self.before, Self.after, "--format", "json"]).stdout == json.stdout)
    }

    @Test(
        "invalid input exits 3",
        arguments: [
            ["diff", "fixtures/examples/audit/nope.yaml", "fixtures/examples/audit/after.yaml"],
            ["diff", before, after, "--users", "mallory"],
            ["diff", before, after, "--under", "/nowhere"],
            ["diff", before, after, "--op", "rename"]
        ])
    func invalid(_ args: [String]) throws {
        let r = try fspolicy(args)
        #expect(r.status == 3)
        #expect(r.stdout.isEmpty)
    }
}
