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

/// `lint` is decided by the rule set: every access a finding claims (its `claims`, the names the
/// message writes as a set) is one `can` allows, on every fixture of the repository and on a
/// scan of this host.
@Suite("lint claims against can")
struct LintClaimsTests {
    /// Every policy file under fixtures/ that loads without errors (the invalid corpus and
    /// files that are not policies are left out by the loader's own verdict).
    static let fixtures: [String] = {
        let root = packageRoot.appendingPathComponent("fixtures")
        var out: [String] = []
        let e = FileManager.default.enumerator(atPath: root.path)
        while let f = e?.nextObject() as? String {
            guard f.hasSuffix(".yaml"), !f.hasPrefix("invalid/"), !f.hasPrefix("golden/") else { continue }
            out.append("fixtures/" + f)
        }
        return out.sorted()
    }()

    /// Checks each claim of `json` (a `lint --format json` output for `file`) with the evaluator
    /// of `policy`; returns how many names were checked and the disagreements.
    static func check(_ json: String, policy p: Policy) throws -> (checked: Int, wrong: [String]) {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var checked = 0
        var wrong: [String] = []
        var evaluators: [String: Evaluator] = [:]
        for f in doc["findings"] as? [[String: Any]] ?? [] {
            let sem = Semantics(rawValue: f["semantics"] as? String ?? "") ?? p.semantics
            let ev = evaluators[sem.rawValue] ?? Evaluator(policy: p, semantics: sem, tracing: false)
            evaluators[sem.rawValue] = ev
            let world = ev.world(after: nil)
            for c in f["claims"] as? [[String: Any]] ?? [] {
                guard let word = c["op"] as? String, let op = FSPolicy.Operation(word: word),
                    let path = c["path"] as? String, let who = c["who"] as? [String]
                else {
                    wrong.append("\(f["code"] ?? "?") \(f["path"] ?? "?"): a claim that cannot be read: \(c)")
                    continue
                }
                for name in who {
                    // A service is asked as `can --as service:NAME` asks it.
                    if name.hasPrefix("service:") {
                        let svc = String(name.dropFirst("service:".count))
                        guard let d = ev.decide(RequestSpec(op: op, path: path), subject: .service(svc)) else {
                            wrong.append("\(f["code"] ?? "?") \(path): \(name) is no service of the file")
                            continue
                        }
                        checked += 1
                        if !d.allowed {
                            wrong.append(
                                "\(f["code"] ?? "?") claims \(name) may \(word) \(path) [\(sem.rawValue)], can says \(d.errno?.rawValue ?? "unknown") (\(d.rule.rawValue))"
                            )
                        }
                        continue
                    }
                    let uid: UID
                    if name == "(any other user)" {
                        // As the linter makes it: the highest uid no user has, with no groups.
                        var other: UID = 4_294_967_294
                        while world.user(uid: other) != nil { other -= 1 }
                        uid = other
                    } else if let u = world.user(named: name) {
                        uid = u.uid
                    } else {
                        wrong.append("\(f["code"] ?? "?") \(path): \(name) is no user of the file")
                        continue
                    }
                    let d = ev.decide(RequestSpec(op: op, path: path), uid: uid)
                    checked += 1
                    if !d.allowed {
                        wrong.append(
                            "\(f["code"] ?? "?") claims \(name) may \(word) \(path) [\(sem.rawValue)], can says \(d.errno?.rawValue ?? "unknown") (\(d.rule.rawValue))"
                        )
                    }
                }
            }
        }
        return (checked, wrong)
    }

    @Test("every claim of every finding on every fixture is allowed by can, under every rule set the file loads under")
    func fixturesAgree() throws {
        var files = 0, claims = 0, findings = 0
        var wrong: [String] = []
        for file in Self.fixtures {
            let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, host: testHost)
            if p.diagnostics.hasErrors { continue }
            for sem in Semantics.allCases {
                let q = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path, semanticsOverride: sem, host: testHost)
                if q.diagnostics.hasErrors { continue }
                let r = try fspolicy(["lint", file, "--format", "json", "--fail-on", "note", "--semantics", sem.rawValue])
                guard r.status == 0 || r.status == 1 else { continue }
                let (n, w) = try Self.check(r.stdout, policy: q)
                claims += n
                wrong += w.map { "\(file): \($0)" }
                let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
                findings += (doc?["findings"] as? [Any])?.count ?? 0
            }
            files += 1
        }
        print("lint claims: \(claims) claimed accesses in \(findings) findings of \(files) fixtures under 3 rule sets; \(wrong.count) disagree with can")
        #expect(files > 50)
        #expect(claims > 50)
        #expect(wrong.isEmpty, "\(wrong.prefix(10).joined(separator: "\n"))")
    }

    #if os(Linux)
        @Test(
            "every claim of lint on a scan of this host's /etc and /usr is allowed by can",
            .enabled(if: FileManager.default.fileExists(atPath: "/etc") && FileManager.default.fileExists(atPath: "/usr"), "this host has no /etc or /usr"))
        func hostAgrees() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lintclaims-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scan = try fspolicy(["scan", "/etc", "/usr", "-o", dir + "/host.yaml"])
            #expect(scan.status == 0, "\(scan.stderr)")
            let r = try fspolicy(["lint", dir + "/host.yaml", "--format", "json", "--fail-on", "note"])
            #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
            let p = PolicyLoader.load(path: dir + "/host.yaml", host: testHost)
            let (n, wrong) = try Self.check(r.stdout, policy: p)
            let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            let codes = ((doc?["findings"] as? [[String: Any]]) ?? []).reduce(into: [String: Int]()) { $0[$1["code"] as? String ?? "?", default: 0] += 1 }
            print("lint claims on this host: \(n) claimed accesses in findings \(codes.sorted { $0.key < $1.key }); \(wrong.count) disagree with can")
            #expect(wrong.isEmpty, "\(wrong.prefix(10).joined(separator: "\n"))")
        }
    #endif
}
