import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// The capability rules (docs/semantics.md, C) one by one, on a small Linux world: each row a
/// process (a user with a capability set) and a request, with the answer and the rule the
/// kernel's code gives. The kernel itself is asked in `CapabilityDifferentialTests`.
@Suite("Linux capabilities (C1–C6) and services")
struct CapabilityTests {
    static let yaml = """
        fspolicy: 1
        semantics: linux
        groups:
          staff: {gid: 50}
        users:
          alice: {uid: 1000}
          bob: {uid: 1001, groups: [staff]}
        tree:
          /d: {type: dir, owner: alice, mode: "0700"}
          /d/f: {owner: alice, mode: "0600"}
          /d/x: {owner: alice, mode: "0700"}
          /d/nox: {owner: alice, mode: "0600"}
          /open: {type: dir, owner: root, mode: "0755"}
          /open/secret: {owner: alice, mode: "0000"}
          /open/rootfile: {owner: root, mode: "0600"}
          /open/imm: {owner: alice, mode: "0644", flags: [uchg]}
          /open/suid: {owner: alice, mode: "4755"}
          /tmp: {type: dir, owner: root, mode: "1777"}
          /tmp/a: {owner: alice, mode: "0644"}
          /pub: {type: dir, owner: alice, mode: "1777"}
          /pub/c: {owner: bob, mode: "0644"}
        services:
          reader: {user: bob, ambientCapabilities: [cap_dac_read_search]}
          writer: {user: bob, ambientCapabilities: [cap_dac_override]}
          keeper: {user: bob, ambientCapabilities: [cap_fowner]}
          chowner: {user: bob, ambientCapabilities: [cap_chown]}
          freezer: {user: bob, capabilities: [cap_fowner, cap_linux_immutable]}
          chown-fowner: {user: bob, capabilities: [cap_chown, cap_fowner]}
          bare-root: {user: root, capabilityBoundingSet: []}
          root-read: {user: root, capabilityBoundingSet: [cap_dac_read_search]}
        """

    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var who: String
        var op: FSPolicy.Operation
        var path: String
        var mode: UInt16? = nil
        var owner: UID? = nil
        var flags: FileFlags? = nil
        var allowed: Bool
        var errno: Errno? = nil
        var rule: RuleID
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "C1: CAP_DAC_READ_SEARCH reads a 0600 file of another", who: "reader", op: .read, path: "/d/f", allowed: true, rule: .linuxCapReadSearch),
        Row(name: "C1: … and lists a 0700 directory", who: "reader", op: .list, path: "/d", allowed: true, rule: .linuxCapReadSearch),
        Row(name: "C1: … but does not write", who: "reader", op: .write, path: "/open/secret", allowed: false, errno: .EACCES, rule: .otherBitsMissing),
        Row(
            name: "C1: … nor create in a directory it can search", who: "reader", op: .create, path: "/d/new", allowed: false, errno: .EACCES,
            rule: .otherBitsMissing),
        Row(name: "C1: … nor execute", who: "reader", op: .execute, path: "/d/x", allowed: false, errno: .EACCES, rule: .otherBitsMissing),
        Row(name: "C2: CAP_DAC_OVERRIDE writes a 0000 file", who: "writer", op: .write, path: "/open/secret", allowed: true, rule: .linuxCapOverride),
        Row(name: "C2: … reads it too", who: "writer", op: .read, path: "/open/secret", allowed: true, rule: .linuxCapOverride),
        Row(name: "C2: … executes a file with an x bit", who: "writer", op: .execute, path: "/d/x", allowed: true, rule: .linuxCapOverride),
        Row(name: "C2: … not one without any", who: "writer", op: .execute, path: "/d/nox", allowed: false, errno: .EACCES, rule: .linuxCapExecNeedsX),
        Row(name: "C2: … creates in another's 0700 directory", who: "writer", op: .create, path: "/d/new", allowed: true, rule: .linuxCapOverride),
        Row(
            name: "C2: … is not the owner: chmod refused", who: "writer", op: .chmod, path: "/open/secret", mode: 0o644, allowed: false, errno: .EPERM,
            rule: .linuxOwnerOrFowner),
        Row(name: "C2: … does not pass the immutable flag", who: "writer", op: .write, path: "/open/imm", allowed: false, errno: .EPERM, rule: .immutable),
        Row(name: "C3: CAP_FOWNER chmods another's file", who: "keeper", op: .chmod, path: "/open/secret", mode: 0o644, allowed: true, rule: .linuxCapFowner),
        Row(name: "C3: … deletes another's file in a sticky directory", who: "keeper", op: .delete, path: "/tmp/a", allowed: true, rule: .otherBitsGrant),
        Row(name: "C3: … does not read it", who: "keeper", op: .read, path: "/open/secret", allowed: false, errno: .EACCES, rule: .otherBitsMissing),
        Row(name: "C3: without it the sticky bit refuses", who: "bob", op: .delete, path: "/tmp/a", allowed: false, errno: .EPERM, rule: .linuxStickyNotOwner),
        Row(
            name: "C3: … does not set the immutable flag (C6)", who: "keeper", op: .chflags, path: "/tmp/a", flags: .systemImmutable, allowed: false,
            errno: .EPERM, rule: .linuxFlagNeedsCapImmutable),
        Row(
            name: "C6: CAP_LINUX_IMMUTABLE with CAP_FOWNER sets it", who: "freezer", op: .chflags, path: "/tmp/a", flags: .systemImmutable, allowed: true,
            rule: .linuxCapFowner),
        Row(name: "C4: CAP_CHOWN gives a file away", who: "chowner", op: .chown, path: "/tmp/a", owner: 1001, allowed: true, rule: .linuxChownNeedsCap),
        Row(
            name: "C4: … not of a setuid file: clearing the bit needs the owner or CAP_FOWNER", who: "chowner", op: .chown, path: "/open/suid", owner: 1001,
            allowed: false, errno: .EPERM, rule: .linuxChownClearsSetID),
        Row(
            name: "C4: CAP_CHOWN with CAP_FOWNER may", who: "chown-fowner", op: .chown, path: "/open/suid", owner: 1001, allowed: true,
            rule: .linuxChownNeedsCap),
        Row(name: "C4: without it, EPERM", who: "bob", op: .chown, path: "/tmp/a", owner: 1001, allowed: false, errno: .EPERM, rule: .linuxChownNeedsCap),
        Row(
            name: "C0: root without capabilities reads its own 0600 file", who: "bare-root", op: .read, path: "/open/rootfile", allowed: true,
            rule: .ownerBitsGrant),
        Row(name: "C0: … not another's", who: "bare-root", op: .read, path: "/open/secret", allowed: false, errno: .EACCES, rule: .groupBitsMissing),
        Row(name: "C0: … cannot search a 0700 directory", who: "bare-root", op: .read, path: "/d/f", allowed: false, errno: .EACCES, rule: .searchDenied),
        Row(
            name: "C0: … cannot chmod another's file", who: "bare-root", op: .chmod, path: "/open/secret", mode: 0o600, allowed: false, errno: .EPERM,
            rule: .linuxOwnerOrFowner),
        Row(
            name: "C0: … cannot chown", who: "bare-root", op: .chown, path: "/open/rootfile", owner: 1000, allowed: false, errno: .EPERM,
            rule: .linuxChownNeedsCap),
        Row(
            name: "C0: … is still refused by the sticky bit in /tmp", who: "bare-root", op: .delete, path: "/pub/c", allowed: false, errno: .EPERM,
            rule: .linuxStickyNotOwner),
        Row(name: "C1: root with only CAP_DAC_READ_SEARCH reads", who: "root-read", op: .read, path: "/d/f", allowed: true, rule: .linuxCapReadSearch),
        Row(name: "C2: … but does not write", who: "root-read", op: .write, path: "/open/secret", allowed: false, errno: .EACCES, rule: .groupBitsMissing)
    ]

    @Test("each capability where the kernel consults it", arguments: rows)
    func row(_ r: Row) throws {
        let p = PolicyLoader.load(text: Self.yaml, file: "caps.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        var spec = RequestSpec(op: r.op, path: r.path)
        spec.mode = r.mode.map { FileMode($0) }
        spec.owner = r.owner
        spec.flags = r.flags
        let subject: SubjectRef = r.who == "bob" ? .user(1001) : .service(r.who)
        let d = try #require(ev.decide(spec, subject: subject))
        #expect(d.allowed == r.allowed)
        #expect(d.errno == r.errno)
        #expect(d.rule == r.rule, "\(d.layer) \(d.rule)")
    }

    @Test("C5: chmod to set-group-ID by an owner outside the file's group is allowed, with a note that the bit is dropped, as the step makes it")
    func chmodDropsSetgid() throws {
        let p = PolicyLoader.load(text: Self.yaml, file: "caps.yaml")
        let ev = Evaluator(policy: p)
        var spec = RequestSpec(op: .chmod, path: "/tmp/a")
        spec.mode = FileMode(0o2644)
        func drops(_ s: SubjectRef) throws -> Bool {
            let d = try #require(ev.decide(spec, subject: s))
            #expect(d.allowed)
            return d.trace.contains { $0.rule == .linuxChmodDropsSetgid }
        }
        // alice owns /tmp/a (group root) and is not in root's group; CAP_FSETID keeps the bit.
        #expect(try drops(.user(1000)))
        #expect(try !drops(.process(1000, .fsetid)))
        #expect(try !drops(.user(0)))
        // Without set-group-ID asked, or for a member of the group, nothing to say.
        spec.mode = FileMode(0o0644)
        #expect(try !drops(.user(1000)))
        // The mode the change makes agrees: the bit is gone.
        let stepped = PolicyLoader.load(
            text: Self.yaml + "\nsteps:\n  - {as: alice, op: chmod, path: /tmp/a, mode: \"2644\"}\n", file: "caps.yaml")
        #expect(!stepped.diagnostics.hasErrors, "\(stepped.diagnostics.sorted.map(\.rendered))")
        let after = Evaluator(policy: stepped).world(after: nil)
        #expect(after[try #require(after.lookup("/tmp/a"))].mode.octal == "0644")
    }

    @Test("an ad hoc process (--caps) equals the service with the same set; uid 0 keeps all by default")
    func adHocProcess() throws {
        let p = PolicyLoader.load(text: Self.yaml, file: "caps.yaml")
        let ev = Evaluator(policy: p)
        let spec = RequestSpec(op: .read, path: "/d/f")
        let svc = try #require(ev.decide(spec, subject: .service("reader")))
        let adhoc = try #require(ev.decide(spec, subject: .process(1001, .dacReadSearch)))
        #expect(svc.allowed && adhoc.allowed && svc.rule == adhoc.rule)
        #expect(try #require(ev.decide(spec, subject: .user(0))).allowed)
        #expect(try #require(ev.decide(spec, subject: .process(0, []))).allowed == false)
        #expect(p.world.subject(service: p.world.serviceIndex("bare-root")!).caps.isEmpty)
        // The words --caps takes, and the errors.
        if case .success(.process(1001, let c)) = SubjectRef.user(1001).withCapabilities("cap_fowner, CAP_CHOWN") {
            #expect(c == [.fowner, .chown])
        } else {
            Issue.record("--caps cap_fowner,CAP_CHOWN was refused")
        }
        if case .success(.process(0, let c)) = SubjectRef.user(0).withCapabilities("none") {
            #expect(c.isEmpty)
        } else {
            Issue.record("--caps none was refused")
        }
        guard case .failure = SubjectRef.user(1).withCapabilities("cap_dac_reed_search") else { Issue.record("a misspelt capability was accepted"); return }
        guard case .failure = SubjectRef.service("reader").withCapabilities("cap_chown") else { Issue.record("--caps on a service was accepted"); return }
    }

    @Test("bad services are errors at file:line:column with a hint")
    func badServices() {
        let bad = """
            fspolicy: 1
            semantics: linux
            users:
              bob: {uid: 1001}
            services:
              a: {user: bob, ambientCapabilities: [cap_dac_reed_search]}
              b: {user: nobody2}
              c: {user: bob, ambientCapabilities: [cap_chown], capabilityBoundingSet: [cap_fowner]}
              d: {ambientCapabilities: []}
              "e\\u0007x": {user: bob}
            """
        let p = PolicyLoader.load(text: bad, file: "bad.yaml")
        let lines = p.diagnostics.sorted.map(\.rendered)
        let all = lines.joined(separator: "\n")
        #expect(all.contains("bad.yaml:6:"), "\(all)")
        #expect(all.contains("unknown capability `cap_dac_reed_search`") && all.contains("did you mean `cap_dac_read_search`?"))
        #expect(all.contains("bad.yaml:7:") && all.contains("unknown user `nobody2`"))
        #expect(all.contains("bad.yaml:8:") && all.contains("outside its `capabilityBoundingSet`"))
        #expect(all.contains("bad.yaml:9:") && all.contains("has no `user`"))
        #expect(all.contains("bad.yaml:10:") && all.contains("is not a service name"))
        #expect(!all.contains("\u{07}"))
    }

    @Test("security.capability values decode (v2 and v3), and anything else is refused")
    func fileCapabilityDecoding() throws {
        // setcap cap_dac_read_search+ep: version 2, effective, permitted bit 2.
        let v2: [UInt8] = [0x01, 0x00, 0x00, 0x02, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let a = try #require(FileCapabilities.decode(v2))
        #expect(a.permitted == .dacReadSearch && a.effective && a.inheritable.isEmpty && a.rootUID == nil)
        #expect(a.text == "cap_dac_read_search=ep")
        // Version 3 with root uid 100000, cap_chown inheritable and permitted, no effective bit.
        let v3: [UInt8] = [0x00, 0x00, 0x00, 0x03, 0x01, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xA0, 0x86, 0x01, 0x00]
        let b = try #require(FileCapabilities.decode(v3))
        #expect(b.permitted == .chown && b.inheritable == .chown && !b.effective && b.rootUID == 100000)
        #expect(FileCapabilities.decode(Array(v2.prefix(19))) == nil)
        #expect(FileCapabilities.decode(v2 + [0, 0, 0, 0]) == nil)
        #expect(FileCapabilities.decode([UInt8](repeating: 0, count: 20)) == nil)
    }
}

/// Services read from unit files (`unit:`): the options read, drop-ins in order, `~`, resets,
/// and every option that bears on files but is not modelled named at its place.
@Suite("Services from systemd unit files")
struct UnitFileTests {
    func load(_ unit: String, dropIns: [(String, String)] = [], extra: String = "") throws -> Policy {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-unit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/a.service.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try unit.write(toFile: dir + "/a.service", atomically: true, encoding: .utf8)
        for (n, t) in dropIns { try t.write(toFile: dir + "/a.service.d/" + n, atomically: true, encoding: .utf8) }
        let yaml = """
            fspolicy: 1
            semantics: linux
            groups:
              adm: {gid: 4}
            users:
              svc: {uid: 900}
            services:
              a: {unit: a.service\(extra)}
            """
        try yaml.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        return PolicyLoader.load(path: dir + "/p.yaml")
    }

    @Test("User=, groups, capabilities with drop-ins, ~ and resets; NoNewPrivileges=, UMask=")
    func options() throws {
        let p = try load(
            """
            [Unit]
            User=root
            [Service]
            User=svc
            SupplementaryGroups=adm
            AmbientCapabilities=CAP_CHOWN \\
              CAP_FOWNER
            CapabilityBoundingSet=~CAP_SYS_ADMIN
            ExecStart=/bin/true
            """,
            dropIns: [
                ("20-b.conf", "[Service]\nNoNewPrivileges=yes\nUMask=0077\n"),
                ("10-a.conf", "[Service]\nAmbientCapabilities=\nAmbientCapabilities=cap_dac_read_search\n")
            ])
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let svc = try #require(p.world.services.first)
        #expect(svc.uid == 900 && svc.supplementary == [4])
        #expect(svc.ambient == .dacReadSearch)
        #expect(svc.bounding == Capabilities.all.subtracting(.sysAdmin))
        #expect(svc.noNewPrivileges && svc.umask == 0o077 && svc.notModelled.isEmpty)
        #expect(p.world.subject(service: 0).caps == .dacReadSearch)
    }

    @Test("options not modelled are warned about at file:line and named in the subject line; errors have places")
    func notModelled() throws {
        let p = try load(
            "[Service]\nUser=svc\nPrivateDevices=yes\nRootDirectory=/srv\nRestart=always\nUser=nob\u{07}ody\nAmbientCapabilities=CAP_DAC_REED_SEARCH\n")
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("a.service:3:1: warning: PrivateDevices= of service `a` is not modelled"), "\(all)")
        #expect(all.contains("a.service:4:1: warning: RootDirectory="))
        #expect(!all.contains("Restart="))
        #expect(all.contains("a.service:6:1: error: unknown user"))
        #expect(all.contains("a.service:7:1: error: unknown capability `CAP_DAC_REED_SEARCH`") && all.contains("CAP_DAC_READ_SEARCH"))
        #expect(!all.contains("\u{07}"))
        let svc = try #require(p.world.services.first)
        #expect(svc.notModelled == ["PrivateDevices=yes", "RootDirectory=/srv"])
        let line = TextRenderer(policy: p).subjectLine(.service("a"), semantics: .linux)
        #expect(line.contains("not modelled, so not accounted for: PrivateDevices=yes, RootDirectory=/srv"), "\(line)")
    }

    @Test("a unit without User= runs as root; keys beside unit: override it; a missing file is an error")
    func rootAndOverride() throws {
        let p = try load("[Service]\nCapabilityBoundingSet=CAP_CHOWN\n")
        #expect(p.world.services.first?.uid == 0 && p.world.subject(service: 0).caps == .chown)
        let q = try load("[Service]\nUser=root\n", extra: ", user: svc")
        #expect(q.world.services.first?.uid == 900)
        let r = PolicyLoader.load(text: "fspolicy: 1\nsemantics: linux\nservices:\n  a: {unit: /nonexistent/x.service}\n", file: "m.yaml")
        #expect(r.diagnostics.sorted.map(\.rendered).joined().contains("m.yaml:4:13: error: cannot read the unit file"))
    }
}
