import Testing
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import FSPolicy

/// `can --batch` reads most questions without building YAML nodes (`RequestResolver.resolvePlain`).
/// That shortcut must give exactly what the full reading gives, or step aside: every question
/// below is resolved both ways, twice (the second time with the subject already known).
@Suite("batch questions: the shortcut and the full reading agree")
struct RequestResolverTests {
    static let policy = PolicyLoader.load(
        text: """
            fspolicy: 1
            semantics: linux
            users:
              alice: {uid: 501}
              bob: {uid: 502}
            tree:
              /srv: {type: dir}
              /srv/a.txt: {owner: alice, mode: "0640"}
            """, file: "resolver.yaml")

    static func describe(_ r: Result<(SubjectRef?, RequestSpec), RequestErrors>) -> String {
        switch r {
        case .success(let (s, spec)):
            return
                "ok \(String(describing: s)) \(spec.op) \(spec.path) to=\(spec.to ?? "-") mode=\(spec.mode.map { String($0.rawValue, radix: 8) } ?? "-") owner=\(spec.owner.map(String.init) ?? "-") group=\(spec.group.map(String.init) ?? "-") flags=\(spec.flags.map { String($0.rawValue) } ?? "-") acl=\(spec.aclGiven)"
        case .failure(let e):
            return "error " + e.diagnostics.map { $0.message }.joined(separator: " | ")
        }
    }

    @Test func shortcutEqualsFullReading() {
        #expect(!RequestResolverTests.policy.diagnostics.hasErrors)
        let whos = ["alice", "bob", "501", "0", "root", "nobody-here", "", "alice "]
        let ops = [
            "read", "write", "stat", "execute", "list", "search", "delete", "create", "mkdir", "rename", "chmod", "chown",
            "chgrp", "chflags", "setacl", "readattr", "reed", ""
        ]
        let paths = [
            "/srv/a.txt", "/srv", "/", "/srv//a.txt", "/srv/./a.txt", "/srv/a.txt/", "srv/a.txt", "/srv/../a", "/x\\011y",
            "/srv/\u{E9}", "/missing/deep/path", ""
        ]
        let fast = RequestResolver(policy: RequestResolverTests.policy)
        let full = RequestResolver(policy: RequestResolverTests.policy)
        var shortcuts = 0
        for round in 0..<2 {
            for who in whos {
                for op in ops {
                    for path in paths {
                        let req = CommandLineRequest(asText: who, op: op, path: path)
                        if round == 1 && fast.resolvePlain(req) != nil { shortcuts += 1 }
                        let a = RequestResolverTests.describe(fast.resolve(req))
                        let b = RequestResolverTests.describe(full.resolveFully(req))
                        #expect(a == b, "as \(who) op \(op) path \(path)")
                    }
                }
            }
        }
        #expect(shortcuts > 100, "the shortcut was taken \(shortcuts) times in the second round")
    }

    /// A request's trailing slash (or last `.`) is kept as one slash: the name must be a
    /// directory (rule P2), so a file named so is ENOTDIR, in a question and in an expectation.
    @Test func trailingSlashIsKeptAndDecided() throws {
        let resolver = RequestResolver(policy: RequestResolverTests.policy)
        let ev = Evaluator(policy: RequestResolverTests.policy, semantics: .linux)
        for (path, kept, errno) in [
            ("/srv/a.txt/", "/srv/a.txt/", Errno.ENOTDIR), ("/srv/a.txt/.", "/srv/a.txt/.", .ENOTDIR),
            ("/srv/./", "/srv/.", nil), ("/srv/.", "/srv/.", nil),
            ("/srv/a.txt//", "/srv/a.txt/", .ENOTDIR), ("/srv/", "/srv/", nil), ("/srv/a.txt", "/srv/a.txt", nil),
            ("/", "/", nil), ("//", "/", nil)
        ] {
            guard case .success(let (_, spec)) = resolver.resolve(CommandLineRequest(asText: "alice", op: "read", path: path)) else {
                Issue.record("\(path) did not resolve"); continue
            }
            #expect(spec.path == kept, "\(path)")
            #expect(ev.decide(spec, uid: 501).errno == errno, "\(path)")
        }
        let p = PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: linux
                users:
                  alice: {uid: 501}
                tree:
                  /srv/a.txt: {owner: alice, mode: "0640"}
                expect:
                  - {as: alice, op: read, path: /srv/a.txt/, result: deny, errno: ENOTDIR}
                  - {as: alice, op: read, path: /srv/a.txt, result: allow}
                """, file: "slash.yaml")
        #expect(!p.diagnostics.hasErrors)
        let report = Evaluator(policy: p, semantics: .linux).checkAll()
        #expect(report.outcomes.map(\.passed) == [true, true])
    }
}
