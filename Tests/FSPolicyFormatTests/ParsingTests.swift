import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

/// Unit tests of the text formats: ACE text, modes, flags, getfacl lines, and the loader's
/// diagnostics on small inline documents.
@Suite("Text formats and the loader")
struct ParsingTests {
    static let resolver = ACENameResolver(
        user: { ["alice": 501, "bob": 502][$0] },
        group: { ["staff": 20, "design": 701][$0] })

    struct ACECase: CustomTestStringConvertible, Sendable {
        let text: String
        let expect: ACE?
        let errorOffset: Int?
        var testDescription: String { text }
    }

    static let aceCases: [ACECase] = [
        ACECase(text: "user:bob allow read,write", expect: ACE(subject: .user(502), kind: .allow, rights: [.readData, .writeData]), errorOffset: nil),
        ACECase(text: "group:everyone deny delete", expect: ACE(subject: .everyone, kind: .deny, rights: .delete), errorOffset: nil),
        ACECase(text: "everyone deny delete", expect: ACE(subject: .everyone, kind: .deny, rights: .delete), errorOffset: nil),
        ACECase(text: "owner@ allow writeattr", expect: ACE(subject: .owner, kind: .allow, rights: .writeAttributes), errorOffset: nil),
        ACECase(text: "group@ deny list", expect: ACE(subject: .owningGroup, kind: .deny, rights: .list), errorOffset: nil),
        ACECase(
            text: "design allow add_file,add_subdirectory,delete_child,file_inherit,directory_inherit",
            expect: ACE(subject: .group(701), kind: .allow, rights: [.addFile, .addSubdirectory, .deleteChild], flags: [.fileInherit, .directoryInherit]),
            errorOffset: nil),
        ACECase(text: "user:carol inherited allow list", expect: nil, errorOffset: 5),
        ACECase(
            text: "user:alice inherited allow list,search", expect: ACE(subject: .user(501), kind: .allow, rights: [.list, .search], flags: .inherited),
            errorOffset: nil),
        ACECase(text: " 0: user:alice allow read", expect: ACE(subject: .user(501), kind: .allow, rights: .readData), errorOffset: nil),
        ACECase(
            text: "user:1003 allow chown,writesecurity", expect: ACE(subject: .user(1003), kind: .allow, rights: [.takeOwnership, .writeSecurity]),
            errorOffset: nil),
        ACECase(text: "user:bob allow writ", expect: nil, errorOffset: 15),
        ACECase(text: "user:bob allow read,wirte", expect: nil, errorOffset: 20),
        ACECase(text: "user:bob permit read", expect: nil, errorOffset: 9),
        ACECase(text: "usr:bob allow read", expect: nil, errorOffset: 0),
        ACECase(text: "user:bob allow", expect: nil, errorOffset: 9),
        ACECase(text: "", expect: nil, errorOffset: 0),
        // An `ls -le` index and nothing else (found by the ace fuzz target: it crashed).
        ACECase(text: "00:", expect: nil, errorOffset: 0),
        ACECase(text: " 7: ", expect: nil, errorOffset: 0)
    ]

    @Test("ACE text parses, and errors point at the offending word", arguments: aceCases)
    func aceText(_ c: ACECase) {
        switch ACE.parse(c.text, resolver: Self.resolver) {
        case .success(let ace):
            #expect(c.expect == ace, "parsed \(c.text) as \(ace)")
        case .failure(let e):
            #expect(c.expect == nil, "unexpected error \(e.message)")
            if let off = c.errorOffset { #expect(e.offset == off, "\(e.message)") }
        }
    }

    @Test("ACE text round-trips through ls -le style output")
    func aceRoundTrip() {
        let ace = ACE(subject: .group(701), kind: .allow, rights: [.readData, .writeData, .deleteChild], flags: [.inherited, .fileInherit])
        let names: (ACESubject) -> String = { s in
            if case .group(701) = s { return "group:design" }
            return "?"
        }
        let text = ace.text(names: names, forDirectory: true)
        #expect(text == "group:design inherited allow list,add_file,delete_child,file_inherit")
        if case .success(let back) = ACE.parse(text, resolver: Self.resolver) { #expect(back == ace) } else { Issue.record("did not parse back") }
    }

    @Test(
        "modes: octal and symbolic",
        arguments: [
            ("0755", UInt16(0o755), NodeType?.none), ("755", 0o755, nil), ("1777", 0o1777, nil), ("4755", 0o4755, nil),
            ("drwxr-xr-x", 0o755, .dir), ("-rw-r-----", 0o640, .file), ("drwxrwxrwt", 0o1777, .dir),
            ("rwsr-xr-x", 0o4755, nil), ("-rwxr-Sr--", 0o2744, .file), ("lrwxrwxrwx", 0o777, .symlink)
        ])
    func modes(_ text: String, _ value: UInt16, _ type: NodeType?) {
        let parsed = FileMode.parse(text)
        #expect(parsed?.0.rawValue == value)
        #expect(parsed?.1 == type)
        #expect(FileMode(value).symbolic.count == 9)
    }

    @Test("bad modes are refused", arguments: ["0855", "17777", "rwxrwxrwxx", "drwxr-xr-q", "", "0o755", "-rwxrwxrwz"])
    func badModes(_ text: String) {
        #expect(FileMode.parse(text) == nil)
    }

    @Test("symbolic mode text", arguments: [(UInt16(0o1777), "rwxrwxrwt"), (0o2750, "rwxr-s---"), (0o4644, "rwSr--r--"), (0o1754, "rwxr-xr-T")])
    func symbolic(_ v: UInt16, _ text: String) {
        #expect(FileMode(v).symbolic == text)
    }

    @Test("flag names and Linux aliases")
    func flags() {
        #expect(FileFlags.named("uchg") == .userImmutable)
        #expect(FileFlags.named("schange") == .systemImmutable)
        #expect(FileFlags.named("immutable") == .systemImmutable)
        #expect(FileFlags.named("append") == .systemAppend)
        #expect(FileFlags.named("uappend") == .userAppend)
        #expect(FileFlags.named("frozen") == nil)
        #expect(FileFlags([.userImmutable, .userHidden]).names == ["uchg", "hidden"])
    }

    @Test("getfacl lines, with effective comments and default prefixes")
    func getfaclLines() throws {
        let users: (String) -> UInt32? = { ["acltu3": 1003][$0] }
        let groups: (String) -> UInt32? = { ["acltg2": 2002][$0] }
        let lines = ["user::rw-", "user:acltu3:rwx\t#effective:rw-", "group::r-x\t#effective:r--", "group:acltg2:-w-", "mask::rw-", "other::---"]
        var parsed: [POSIXACLLine] = []
        for l in lines {
            guard case .success(let p?) = POSIXACLLine.parse(l, user: users, group: groups) else { Issue.record("\(l) did not parse"); return }
            parsed.append(p)
        }
        #expect(parsed[1].effective == [.read, .write])
        guard case .success(let acl) = POSIXACL.build(parsed) else { Issue.record("did not build"); return }
        #expect(acl.mask == [.read, .write])
        #expect(acl.users == [POSIXACL.Entry(id: 1003, perms: .all)])
        #expect(acl.groupClass == [.read, .write])
        let out = acl.lines(user: { $0 == 1003 ? "acltu3" : String($0) }, group: { $0 == 2002 ? "acltg2" : String($0) })
        #expect(out == ["user::rw-", "user:acltu3:rwx\t#effective:rw-", "group::r-x\t#effective:r--", "group:acltg2:-w-", "mask::rw-", "other::---"])
        if case .success(let d?) = POSIXACLLine.parse("default:user::rwx", user: users, group: groups) {
            #expect(d.isDefault)
        } else {
            Issue.record("default line")
        }
        #expect(POSIXACLLine.looksLikeGetfacl("u::rwx"))
        #expect(!POSIXACLLine.looksLikeGetfacl("user:bob allow read"))
        if case .failure = POSIXACL.build([parsed[0], parsed[1], parsed[2], parsed[5]]) {} else { Issue.record("a named entry without a mask must not build") }
        if case .failure = POSIXACL.build([parsed[0], parsed[2]]) {} else { Issue.record("an ACL without other:: must not build") }
    }

    @Test("the loader builds the world and keeps positions")
    func loader() {
        let text = """
            fspolicy: 1
            groups:
              staff: {gid: 20}
            users:
              alice: {uid: 501, group: staff}
            tree:
              /Users/alice:
                type: dir
                owner: alice
                acl:
                  - "group:everyone deny delete"
              /Users/alice/a.txt: {owner: alice, mode: "0600"}
            expect:
              - {as: alice, op: read, path: /Users/alice/a.txt, result: allow}
            """
        let p = PolicyLoader.load(text: text, file: "inline.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.user(named: "alice")?.uid == 501)
        #expect(p.world.user(named: "root")?.uid == 0)
        #expect(p.expectations.count == 1)
        #expect(p.nodeLocation("/Users/alice") == SourceLocation(file: "inline.yaml", line: 7, column: 3))
        #expect(p.aceLocations["/Users/alice"]?.first == SourceLocation(file: "inline.yaml", line: 11, column: 9))
        let id = p.world.lookup("/Users/alice/a.txt")!
        #expect(p.world[id].mode.rawValue == 0o600)
        #expect(p.world[p.world.lookup("/Users")!].declared == false)
        let report = Evaluator(policy: p).checkAll()
        #expect(report.passed == 1)
    }

    @Test("every problem of a file is reported, in file order")
    func manyProblems() {
        let text = """
            fspolicy: 1
            usres: {}
            users:
              bob: {uid: "x"}
            tree:
              relative/path: {}
              /ok: {mode: "0999"}
            expect:
              - {as: nobody, op: raed, path: /ok, result: maybe}
            """
        let p = PolicyLoader.load(text: text, file: "bad.yaml")
        let d = p.diagnostics.sorted
        #expect(d.map(\.code) == ["unknown-key", "wrong-type", "bad-path", "bad-mode", "unknown-subject", "unknown-op", "bad-value"])
        #expect(d.first?.help == "did you mean `users`?")
        #expect(d.allSatisfy { $0.rendered.hasPrefix("bad.yaml:") })
    }
}
