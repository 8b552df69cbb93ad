import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// The report's grid limit is checked as the grid is made, before more of it is decided or
/// held: a page of 20,000 users in random groups over 1,000 nodes built the whole grid (455 MB
/// of integers) before it looked at the limit, and aborted under a 768 MB address-space limit.
@Suite("limits of tables")
struct GridLimitTests {
    /// `users` users, each owning one file of its own and in two groups of `groups`: every
    /// user is a class of its own, and every file's row differs from the others'.
    static func policy(users: Int, groups: Int = 8) -> Policy {
        var y = "fspolicy: 1\nsemantics: linux\ngroups:\n"
        for g in 0..<groups { y += "  g\(g): {gid: \(3000 + g)}\n" }
        y += "users:\n"
        for u in 0..<users { y += "  u\(u): {uid: \(5000 + u), group: g\(u % groups), groups: [g\((u * 3 + 1) % groups)]}\n" }
        y += "tree:\n  /srv: {type: dir, mode: \"0755\"}\n"
        for u in 0..<users { y += "  /srv/f\(u): {owner: u\(u), group: g\(u % groups), mode: \"06\(u % 2 == 0 ? 4 : 6)0\"}\n" }
        let p = PolicyLoader.load(text: y, file: "grid.yaml")
        return p
    }

    static func input(_ p: Policy) -> ReportInput {
        let users = p.userOrder.compactMap { n in p.world.user(named: n).map { (name: n, subject: p.world.subject(uid: $0.uid)) } }
        return ReportInput(policy: p, users: users, ops: [.read, .write, .execute], semantics: [.linux])
    }

    @Test func rowsPastTheLimitStopTheGrid() throws {
        let p = Self.policy(users: 120)
        var options = ReportOptions()
        options.gridLimit = 2_000
        options.explainedCells = 0
        do {
            _ = try HTMLReport.render([Self.input(p)], options: options, version: "test")
            Issue.record("a grid over the limit was not refused")
        } catch {
            #expect(error.message.contains("limit of 2,000 characters of distinct rows"), "\(error.message)")
            // The grid has 122 nodes × 121 users × 3 ops; rows of 363 cells pass 2,000 at the
            // sixth distinct one, and nothing after it is decided.
            let full = 122 * 121 * 3
            #expect(error.stats.decisions > 0)
            #expect(error.stats.decisions <= 8 * 121 * 3, "decided \(error.stats.decisions) of \(full) cells before refusing")
        }
        // The same file under the default limit is a page.
        options.gridLimit = ReportOptions().gridLimit
        let page = try HTMLReport.render([Self.input(p)], options: options, version: "test")
        #expect(page.stats.nodes == 122)
    }

    @Test func oneRowOverTheLimitIsRefusedBeforeAnyDecision() throws {
        let p = Self.policy(users: 40)
        var options = ReportOptions()
        options.gridLimit = 100
        do {
            _ = try HTMLReport.render([Self.input(p)], options: options, version: "test")
            Issue.record("a grid over the limit was not refused")
        } catch {
            #expect(error.message.contains("a row has 123 cells"), "\(error.message)")
            #expect(error.stats.decisions == 0)
        }
    }

    /// `diff` holds every differing decision to sort and explain it: past 1,000,000 it refuses
    /// (exit 3, naming the limit) instead of growing until the allocator fails (a diff of 20,000
    /// users over 1,000 nodes aborted under a 768 MB address-space limit).
    @Test func diffRefusesPastItsLimit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-difflimit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1,000 users × 400 files × 3 ops: closing /srv takes 1.2 million decisions away.
        func file(_ name: String, mode: String) throws -> String {
            var y = "fspolicy: 1\nsemantics: linux\nusers:\n"
            for u in 0..<1_000 { y += "  u\(u): {uid: \(5000 + u)}\n" }
            y += "tree:\n  /srv: {type: dir, mode: \"\(mode)\"}\n"
            for f in 0..<400 { y += "  /srv/f\(f): {mode: \"0777\"}\n" }
            let path = dir.appendingPathComponent(name).path
            try y.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let open = try file("open.yaml", mode: "0755"), closed = try file("closed.yaml", mode: "0700")
        let r = try fspolicy(["diff", open, closed])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("more than 1,000,000 decisions differ, the limit of `diff`"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        // Narrowed under the limit, the same diff is written.
        let few = try fspolicy(["diff", open, closed, "--users", "u1,u2", "--op", "read"])
        #expect(few.status == 1, "\(few.stderr)")
        #expect(few.stdout.hasSuffix("802 change(s): 0 now allowed, 802 now denied [semantics: linux]\n"), "\(few.stdout)")
    }
}
