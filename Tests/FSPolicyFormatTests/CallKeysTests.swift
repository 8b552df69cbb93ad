import FSPolicy
import FSPolicyFormat
import Testing

/// The keys of `chown`/`lchown` with `-1`, `settimes` per time, `lchmod` and `mknod`'s `type`:
/// what they read, and each mistake at its position with a hint.
@Suite("chown -1, settimes per time, lchmod and mknod type in a policy file")
struct CallKeysTests {
    static let head = """
        fspolicy: 1
        semantics: linux
        groups: {staff: {gid: 100}}
        users: {ann: {uid: 3201, group: staff}}
        tree:
          /srv: {type: dir, mode: "0777"}
          /srv/f: {owner: ann, group: staff}
          /dev/sda: {type: block, mode: "0660"}
          /dev/old: {type: device, mode: "crw-rw-rw-"}
        """

    static func load(_ expect: String) -> Policy {
        PolicyLoader.load(text: head + "\nexpect:\n  - " + expect + "\n", file: "calls.yaml")
    }

    @Test("what the keys read")
    func reads() throws {
        let p = PolicyLoader.load(
            text: Self.head + """

                steps:
                  - {as: root, op: mknod, path: /srv/d, type: char}
                expect:
                  - {as: ann, op: chown, path: /srv/f, owner: -1, group: staff, result: allow}
                  - {as: ann, op: lchown, path: /srv/f, owner: -1, group: -1, result: allow}
                  - {as: ann, op: settimes, path: /srv/f, atime: now, mtime: omit, result: allow}
                  - {as: ann, op: lchmod, path: /srv/f, mode: "0600", result: allow}
                """, file: "calls.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        #expect(p.steps.first?.request.deviceType == .charDevice)
        let e = p.expectations.map(\.request)
        #expect(e.count == 4)
        #expect(e[0].owner == nil && e[0].group == 100)
        #expect(e[1].owner == nil && e[1].group == nil)
        #expect(e[2].atime == .now && e[2].mtime == .omit)
        #expect(e[3].op == .lchmod && e[3].mode?.rawValue == 0o600)
        // A tree's `type: device` with a `c` mode is a character device; `block` is its own.
        #expect(p.world.lookup("/dev/sda").map { p.world[$0].type } == .blockDevice)
        #expect(p.world.lookup("/dev/old").map { p.world[$0].type } == .charDevice)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var entry: String
        var code: String
        var text: String
        var testDescription: String { entry }
    }

    static let bad: [Bad] = [
        Bad(entry: "{as: ann, op: chown, path: /srv/f, result: allow}", code: "missing-key", text: "needs `owner` or `group`"),
        Bad(entry: "{as: ann, op: chgrp, path: /srv/f, group: -1, result: allow}", code: "bad-value", text: "`-1` (no change) goes with `chown`"),
        Bad(entry: "{as: ann, op: read, path: /srv/f, group: staff, result: allow}", code: "unused-key", text: "`group` has no meaning for `read`"),
        Bad(entry: "{as: ann, op: settimes, path: /srv/f, atime: later, result: allow}", code: "bad-value", text: "`atime` must be"),
        Bad(entry: "{as: ann, op: touch, path: /srv/f, mtime: now, result: allow}", code: "unused-key", text: "`mtime` has no meaning for `touch`"),
        Bad(entry: "{as: ann, op: lchmod, path: /srv/f, result: allow}", code: "missing-key", text: "`lchmod` needs `mode`"),
        Bad(entry: "{as: root, op: mknod, path: /srv/p, type: fifo, result: allow}", code: "bad-value", text: "`mknod` makes a device node"),
        Bad(entry: "{as: ann, op: chown, path: /srv/f, owner: \"an\\nn\", result: allow}", code: "unknown-user", text: "unknown user")
    ]

    @Test("mistakes are errors at their position, with a hint", arguments: bad)
    func mistakes(_ c: Bad) {
        let p = Self.load(c.entry)
        let hit = p.diagnostics.items.first { $0.code == c.code && $0.message.contains(c.text) }
        #expect(hit != nil, "\(p.diagnostics.items.map(\.rendered))")
        #expect(hit?.location.line == 11, "the diagnostic points at the expectation's line")
        #expect(hit?.help?.isEmpty == false)
    }
}
