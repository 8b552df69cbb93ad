import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import Foundation
import Testing

/// Services (`service:NAME`, docs/services.md) in the set commands: `access`, `matrix`, `diff`,
/// `lint` and `report` answer for a service what `can --as service:NAME` answers — its
/// capabilities and its unit's sandbox view included — in every output format.
@Suite("services in access, matrix, diff, lint and report")
struct ServiceAuditTests {
    static let services = "fixtures/examples/linux-services/policy.yaml"
    static let sandbox = "fixtures/docs/service-sandbox.yaml"

    static func json(_ s: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any])
    }

    /// Every (service, op, path) of `matrix --format jsonl` on `file`, checked against the
    /// evaluator `can` uses; returns how many cells were compared.
    static func matrixAgreesWithCan(_ file: String, ops: [String]) throws -> Int {
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, host: testHost)
        #expect(!p.diagnostics.hasErrors)
        let ev = Evaluator(policy: p, tracing: false)
        let names = p.world.services.map { "service:" + $0.name }
        let r = try fspolicy(["matrix", file, "--users", names.joined(separator: ","), "--op", ops.joined(separator: ","), "--format", "jsonl"])
        #expect(r.status == 0, "\(r.stderr)")
        var compared = 0
        for line in r.stdout.split(separator: "\n") {
            let row = try json(String(line))
            let path = try #require(row["path"] as? String), word = try #require(row["op"] as? String)
            let allowed = Set(try #require(row["allowed"] as? [String]))
            let parsed = FSPolicy.Operation(word: word)
            let op = try #require(parsed)
            for n in names {
                let d = try #require(ev.decide(RequestSpec(op: op, path: path), subject: .service(String(n.dropFirst("service:".count)))))
                #expect(allowed.contains(n) == d.allowed, "\(file): \(n) \(word) \(path): matrix \(allowed.contains(n)), can \(d.rule.rawValue)")
                compared += 1
            }
        }
        return compared
    }

    @Test("matrix answers for services with capabilities and with sandbox views exactly as can does")
    func matrixCellsAreCan() throws {
        let ops = ["read", "write", "execute", "list", "search", "delete", "stat", "append"]
        let a = try Self.matrixAgreesWithCan(Self.services, ops: ops)
        let b = try Self.matrixAgreesWithCan(Self.sandbox, ops: ops)
        print("services in matrix: \(a + b) cells compared with can")
        #expect(a + b > 500)
    }

    @Test("matrix: services are columns after the users by default; everyone counts the users, the services follow it")
    func matrixColumns() throws {
        let csv = try fspolicy(["matrix", Self.services, "--op", "read", "--under", "/etc"])
        #expect(csv.status == 0)
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "path,op,allowed")
        #expect(lines.contains("/etc/shadow,read,root service:backup service:agent"), "\(csv.stdout)")
        #expect(lines.contains { $0.hasPrefix("/etc/hostname,read,everyone; service:") }, "\(csv.stdout)")
        let all = try fspolicy(["matrix", Self.services, "--op", "read", "--under", "/etc/hostname", "--list-all"])
        #expect(all.stdout.contains("root alice bob www-data backup service:backup service:agent service:web service:cleaner"), "\(all.stdout)")
        let jsonl = try fspolicy(["matrix", Self.services, "--op", "read", "--under", "/etc/shadow", "--format", "jsonl"])
        #expect(jsonl.stdout == "{\"path\":\"/etc/shadow\",\"op\":\"read\",\"allowed\":[\"root\",\"service:backup\",\"service:agent\"]}\n", "\(jsonl.stdout)")
        let bad = try fspolicy(["matrix", Self.services, "--users", "service:backpu"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("unknown service `backpu` in `--users`") && bad.stderr.contains("did you mean `service:backup`?"), "\(bad.stderr)")
    }

    @Test("access --as service:NAME in text, json and csv; an unknown service is exit 3 with a hint")
    func access() throws {
        let text = try fspolicy(["access", Self.services, "--as", "service:backup", "--under", "/home"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("service:backup may read under /home [semantics: linux]"), "\(text.stdout)")
        #expect(text.stdout.contains("id_ed25519"))
        let user = try fspolicy(["access", Self.services, "--as", "backup", "--under", "/home"])
        #expect(!user.stdout.contains("id_ed25519"), "its user reads no key: \(user.stdout)")
        let csv = try fspolicy(["access", Self.services, "--as", "service:backup", "--under", "/home", "--format", "csv"])
        #expect(csv.stdout.contains("/home/alice/.ssh/id_ed25519,file"), "\(csv.stdout)")
        let json = try Self.json(try fspolicy(["access", Self.services, "--as", "service:backup", "--under", "/home", "--format", "json"]).stdout)
        #expect(json["user"] as? String == "service:backup")
        #expect(json["uid"] as? Int == 34)
        // A view: ProtectHome=read-only leaves the homes readable and nothing there writable.
        let view = try fspolicy(["access", Self.sandbox, "--as", "service:webapp", "--op", "write", "--under", "/home", "--format", "csv"])
        #expect(view.stdout == "path,type\n", "\(view.stdout)")
        let alice = try fspolicy(["access", Self.sandbox, "--as", "www-data", "--op", "write", "--under", "/home", "--format", "csv"])
        #expect(alice.stdout.contains("/home/alice/notes.txt,file"), "its user may write the file: \(alice.stdout)")
        let bad = try fspolicy(["access", Self.services, "--as", "service:nginx"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("unknown service `nginx` in `--as`"), "\(bad.stderr)")
    }

    @Test("diff: a unit option that changes is a change of what the service may do, in text, json and sarif")
    func diff() throws {
        let before = "fixtures/docs/service-diff-before.yaml", after = "fixtures/docs/service-diff-after.yaml"
        let text = try fspolicy(["diff", before, after])
        #expect(text.status == 1)
        #expect(text.stdout.contains("/etc/shadow +read: service:archiver"), "\(text.stdout)")
        // Nothing changed for the users: every line is the service's.
        for line in text.stdout.split(separator: "\n").dropLast() { #expect(line.hasSuffix(": service:archiver"), "\(line)") }
        let json = try Self.json(try fspolicy(["diff", before, after, "--format", "json"]).stdout)
        #expect((json["users"] as? [String])?.contains("service:archiver") == true)
        let sarif = try fspolicy(["diff", before, after, "--format", "sarif"])
        #expect(sarif.stdout.contains("service:archiver"))
        // The same file on both sides: no change.
        #expect(try fspolicy(["diff", before, before]).status == 0)
    }

    @Test("lint FSL026: claims checked by can; text, json and sarif")
    func lint() throws {
        let file = "fixtures/lint/service-capability-reach.yaml"
        let r = try fspolicy(["lint", file, "--format", "json", "--fail-on", "warning"])
        #expect(r.status == 1)
        #expect(try fspolicy(["lint", file]).status == 0, "warnings only: exit 0 unless --fail-on warning")
        let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, host: testHost)
        let (checked, wrong) = try LintClaimsTests.check(r.stdout, policy: p)
        #expect(checked >= 7)
        #expect(wrong.isEmpty, "\(wrong)")
        let text = try fspolicy(["lint", file])
        #expect(text.stdout.contains("FSL026 service-capability-reach (warning): 7 findings"), "\(text.stdout)")
        let sarif = try fspolicy(["lint", file, "--format", "sarif"])
        #expect(sarif.stdout.contains("FSL026") && sarif.stdout.contains("fsl026-service-capability-reach"))
    }

    @Test("report: services are rows of the grid, and every cell is what can --batch answers")
    func report() throws {
        let s = try ReportTests.Scratch()
        defer { s.done() }
        for file in [Self.services, Self.sandbox] {
            let html = try ReportTests.report([file, "--op", "read,write,execute,delete,stat,append"], in: s)
            let w = try #require((try ReportTests.data(html)["worlds"] as? [[String: Any]])?.first)
            let users = try #require(w["users"] as? [String])
            #expect(users.contains { $0.hasPrefix("service:") }, "\(users)")
            let (questions, expected) = try ReportTests.cells(w, semantics: 0)
            let r = try fspolicy(["can", file, "--batch", "-"], stdin: questions)
            #expect(r.status == 0 || r.status == 1 || r.status == 2, "\(r.stderr)")
            let got = r.stdout.split(separator: "\n").map { line -> String in line.hasPrefix("allow") ? "allow" : String(line) }
            #expect(got.count == expected.count, "\(r.stderr)")
            let differ = zip(got, expected).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(differ.isEmpty, "\(file): \(differ.prefix(5))")
        }
    }
}
