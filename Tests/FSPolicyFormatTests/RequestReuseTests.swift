import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Testing

/// A report asks each user's question with one request per user, kept in the thread's
/// `CredentialCache` and changed in place (`CredentialCache.withRequest`). Every decision must be
/// the one a request made afresh for the question gets.
@Suite struct RequestReuseTests {
    @Test("decisions with the kept requests are those of requests made for each question")
    func sameDecisions() throws {
        // More users than the cache's 64 slots (so that users share a slot and take turns), every
        // operation a question asks with a path only, and a few with an argument more.
        var t = "fspolicy: 1\nsemantics: linux\ngroups:\n  g0: {gid: 3000}\n  g1: {gid: 3001}\nusers:\n"
        for u in 0..<150 { t += "  u\(u): {uid: \(5000 + u * 37), group: g\(u % 2)}\n" }
        t += "tree:\n  /srv: {type: dir, owner: u1, group: g1, mode: \"0751\"}\n"
        for f in 0..<30 {
            t += "  /srv/f\(f): {type: file, owner: u\(f * 5 % 150), group: g\(f % 2), mode: \"\(["0640", "0604", "0600", "0664"][f % 4])\"}\n"
        }
        t += "expect:\n"
        let ops = ["read", "write", "execute", "stat", "delete", "readattr", "list", "search"]
        var n = 0
        for i in 0..<3_000 {
            // A user's questions in a row (the slot kept), then users in turn (slots taken over).
            let u = i < 1_500 ? (i / 6) % 150 : (i * 11) % 150
            t += "  - {as: u\(u), op: \(ops[i % ops.count]), path: /srv/f\((i * 7) % 30), result: allow}\n"
            if i % 100 == 0 { t += "  - {as: u\(u), op: rename, path: /srv/f1, to: /srv/g\(i), result: allow}\n"; n += 1 }
            n += 1
        }
        let p = PolicyLoader.load(text: t, file: "reuse.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.prefix(3).map(\.rendered))")
        #expect(p.expectations.count == n)
        let ev = Evaluator(policy: p)
        var kept = CredentialCache()
        var differing = 0, allowed = 0
        for e in p.expectations {
            for tracing in [false, true] {
                let subject = try #require(e.subject)
                let a = try #require(ev.decide(e, subject, tracing: tracing, credentials: &kept))
                let c = try #require(ev.credential(subject))
                let b = ev.decide(e.request, credential: c, tracing: tracing)
                if !(a.allowed == b.allowed && a.errno == b.errno && a.rule == b.rule && a.layer == b.layer && a.evidence == b.evidence
                    && a.trace.count == b.trace.count && a.notes == b.notes)
                {
                    differing += 1
                }
                if a.allowed { allowed += 1 }
            }
        }
        #expect(differing == 0, "\(differing) decisions differ")
        // Both answers come up.
        #expect(allowed > 500 && allowed < 2 * n - 500, "\(allowed) of \(2 * n) allowed")
    }
}

/// A writer made for each result of a JSON report starts with a buffer of no room
/// (`ByteBuffer(empty:)`), which must grow on its first write and free nothing it did not get.
@Suite struct EmptyByteBufferTests {
    @Test("an empty buffer grows on its first write, holds what was written, and can be dropped unwritten")
    func emptyBuffer() {
        for n in [0, 1, 15, 16, 17, 1000] {
            var b = ByteBuffer(empty: ())
            #expect(b.isEmpty && b.string.isEmpty && b.bytes.isEmpty)
            let bytes = (0..<n).map { UInt8(0x41 + $0 % 26) }
            bytes.withUnsafeBufferPointer { b.append($0) }
            b.append(repeating: 0x2E, count: n % 5)
            #expect(b.bytes == bytes + [UInt8](repeating: 0x2E, count: n % 5), "\(n)")
        }
        // Swapped into a writer and back, as the report does, unwritten.
        var out = ByteBuffer(capacity: 8)
        out.append(0x5B)
        var w = JSONWriter(bytes: ByteBuffer(empty: ()), indent: 0)
        swap(&w.bytes, &out)
        swap(&w.bytes, &out)
        #expect(out.bytes == [0x5B])
        let unwritten = ByteBuffer(empty: ())
        #expect(unwritten.count == 0)
    }
}
