import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyReport
import Testing

/// `WorldDiff.privilegeChanges`: what a program gives and a directory passes on, compared
/// between two worlds, in words.
@Suite("diff: set-ID bits, file capabilities, default ACLs and inheritable ACEs")
struct PrivilegeDiffTests {
    static let head = """
        fspolicy: 1
        semantics: SEM
        groups:
          staff: {gid: 20}
          shadow: {gid: 42}
        users:
          alice: {uid: 501, group: staff}
          bob: {uid: 502, group: staff}

        """

    static func world(_ tree: String, semantics: String = "linux") throws -> World {
        let p = PolicyLoader.load(text: head.replacingOccurrences(of: "SEM", with: semantics) + tree, file: "p.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        return p.world
    }

    static func changes(_ old: String, _ new: String, semantics: String = "linux", under: String = "/") throws -> [PrivilegeChange] {
        let a = try world(old, semantics: semantics), b = try world(new, semantics: semantics)
        let sem = Semantics(rawValue: semantics)!
        let d = WorldDiff(old: a, new: b, semantics: sem, oldSubjects: [], newSubjects: [], ops: [.read])
        return d.privilegeChanges(under: under).changes
    }

    static let base = """
        tree:
          /bin: {type: dir, mode: "0755"}
          /bin/mycat: {owner: root, group: 0, mode: "0755"}
          /bin/tool: {owner: root, group: 0, mode: "0755"}
          /srv: {type: dir, mode: "0755"}
          /srv/team: {type: dir, mode: "0775", group: staff}

        """

    @Test("set-user-ID, set-group-ID and capabilities added, each in words; tree order; nothing for the same world")
    func added() throws {
        let new = """
            tree:
              /bin: {type: dir, mode: "0755"}
              /bin/mycat: {owner: root, group: shadow, mode: "6755"}
              /bin/tool: {owner: root, group: 0, mode: "0755", caps: "cap_dac_read_search=ep"}
              /srv: {type: dir, mode: "0755"}
              /srv/team: {type: dir, mode: "2775", group: staff, defaultAcl: [user::rwx, "user:bob:rwx", group::r-x, mask::rwx, other::r-x]}

            """
        let cs = try Self.changes(Self.base, new)
        #expect(cs.map(\.path) == ["/bin/mycat", "/bin/mycat", "/bin/tool", "/srv/team", "/srv/team"])
        #expect(cs.map(\.kind) == [.setuid, .setgid, .capabilities, .setgid, .defaultACL])
        #expect(cs.allSatisfy { $0.change == "added" })
        #expect(
            cs.map(\.sentence) == [
                "set-user-ID root added (mode 0755 → 6755): anyone who may execute it runs it as root",
                "set-group-ID shadow added (mode 0755 → 6755): anyone who may execute it runs it with group shadow",
                "capabilities cap_dac_read_search=ep added: who runs it may read any file and search any directory",
                "set-group-ID staff added (mode 0775 → 2775): entries created here take group staff, and new folders the bit",
                "default ACL added (user:bob:rwx): files created here get it"
            ])
        #expect(try Self.changes(new, new).isEmpty)
        // The other way: removed.
        let back = try Self.changes(new, Self.base)
        #expect(back.allSatisfy { $0.change == "removed" })
        #expect(back[0].sentence == "set-user-ID root removed (mode 6755 → 0755): it no longer runs as root")
        #expect(back[2].sentence == "capabilities cap_dac_read_search=ep removed: who runs it no longer gains them")
        #expect(back[4].sentence == "default ACL removed (user:bob:rwx): files created here no longer get it")
        // --under narrows it.
        #expect(try Self.changes(Self.base, new, under: "/srv").map(\.path) == ["/srv/team", "/srv/team"])
    }

    @Test("a set-ID bit that gives nothing (no x bit, no group x) is no change; an owner change and an ACL change are")
    func whatCounts() throws {
        let old = """
            tree:
              /a: {owner: root, mode: "4644"}
              /b: {owner: root, mode: "4755"}
              /c: {type: dir, mode: "0755", defaultAcl: [user::rwx, "user:bob:rwx", group::r-x, mask::rwx, other::r-x]}
              /d: {owner: root, mode: "2745"}

            """
        let new = """
            tree:
              /a: {owner: root, mode: "4640"}
              /b: {owner: alice, mode: "4711"}
              /c: {type: dir, mode: "0755", defaultAcl: [user::rwx, "user:bob:r-x", "group:staff:rwx", group::r-x, mask::rwx, other::r-x]}
              /d: {owner: root, mode: "2755"}

            """
        let cs = try Self.changes(old, new)
        #expect(cs.map(\.path) == ["/b", "/c", "/d"])
        #expect(cs[0].sentence == "set-user-ID root → alice (mode 4755 → 4711): anyone who may execute it runs it as alice")
        #expect(
            cs[1].sentence
                == "default ACL changed (added user:bob:r-x, group:staff:rwx; removed user:bob:rwx): files created here get the new one")
        // Set-group-ID without group x is no set-group-ID program; with it, it is.
        #expect(cs[2].sentence == "set-group-ID root added (mode 2745 → 2755): anyone who may execute it runs it with group root")
    }

    @Test("a new path: what it arrives with, but not the default ACL or set-group-ID bit its new parent passed on")
    func newPaths() throws {
        let new =
            Self.base + """
                  /bin/su2: {owner: root, group: 0, mode: "4755"}
                  /srv/new: {type: dir, mode: "2775", group: staff, defaultAcl: [user::rwx, "user:bob:rwx", group::r-x, mask::rwx, other::r-x]}
                  /srv/new/sub: {type: dir, mode: "2775", group: staff, defaultAcl: [user::rwx, "user:bob:rwx", group::r-x, mask::rwx, other::r-x]}
                  /srv/new/file: {mode: "0644"}

                """
        let cs = try Self.changes(Self.base, new)
        #expect(cs.map(\.path) == ["/bin/su2", "/srv/new", "/srv/new"])
        #expect(cs.allSatisfy { $0.change == "new" })
        #expect(cs[0].sentence == "new set-user-ID root program (mode 4755): anyone who may execute it runs it as root")
        #expect(cs[2].sentence == "new directory with a default ACL (user:bob:rwx): files created here get it")
        // A path gone from NEW is left to the decisions.
        #expect(try Self.changes(new, Self.base).isEmpty)
    }

    @Test("under macos: the set-group-ID bit of a folder is no change; inheritable ACEs are, an ACE that is not is not")
    func macos() throws {
        let old = """
            tree:
              /Shared: {type: dir, mode: "0775", group: staff}

            """
        let new = """
            tree:
              /Shared:
                type: dir
                mode: "2775"
                group: staff
                acl:
                  - "group:staff allow list,add_file,file_inherit,directory_inherit"
                  - "user:bob allow list"

            """
        let cs = try Self.changes(old, new, semantics: "macos")
        #expect(cs.map(\.kind) == [.inheritableACEs])
        #expect(
            cs.first?.sentence
                == "inheritable ACEs added (\"group:staff allow list,add_file,file_inherit,directory_inherit\"): files and folders created here get them")
    }

    @Test("capabilities that are not effective, or bound to a user namespace, and a nosuid mount, say so")
    func capabilityWords() throws {
        let new = """
            volumes:
              /mnt: {nosuid: true}
            tree:
              /bin: {type: dir, mode: "0755"}
              /bin/mycat: {owner: root, group: 0, mode: "0755", caps: "cap_setuid,cap_chown=p"}
              /bin/tool: {owner: root, group: 0, mode: "0755", caps: "cap_dac_override=ep [rootid=1000]"}
              /mnt: {type: dir, mode: "0755"}
              /mnt/x: {owner: root, mode: "4755"}

            """
        let cs = try Self.changes(Self.base, new)
        #expect(
            cs.map(\.sentence) == [
                "capabilities cap_chown,cap_setuid=p added: who runs it may (once the program raises them) give any file to any owner and become any user",
                "capabilities cap_dac_override=ep [rootid=1000] added: who runs it may read and write any file and search any directory (only in the user namespace whose root is uid 1000)",
                "new set-user-ID root program (mode 4755): anyone who may execute it runs it as root (but its mount is nosuid: there it gives nothing)"
            ])
    }
}
