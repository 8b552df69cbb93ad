import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// The file-system view a unit's sandbox options give a service (U1–U3): which entry wins on a
/// path, and the error and its place in the order of checks. The kernel itself is asked in
/// `UnitViewDifferentialTests`.
@Suite("systemd sandbox views (U1–U5)")
struct UnitViewTests {
    static let tree = """
        fspolicy: 1
        semantics: linux
        users:
          svc: {uid: 900}
        tree:
          /etc: {type: dir, owner: root, mode: "0755"}
          /etc/conf: {owner: svc, mode: "0644"}
          /etc/rootconf: {owner: root, mode: "0644"}
          /usr: {type: dir, owner: root, mode: "0755"}
          /usr/tool: {owner: root, mode: "4755"}
          /home: {type: dir, owner: root, mode: "0755"}
          /home/svc: {type: dir, owner: svc, mode: "0755"}
          /home/svc/f: {owner: svc, mode: "0644"}
          /srv: {type: dir, owner: svc, mode: "0755"}
          /srv/a: {type: dir, owner: svc, mode: "0755"}
          /srv/a/b: {type: dir, owner: svc, mode: "0755"}
          /srv/a/b/f: {owner: svc, mode: "0755"}
          /srv/a/f: {owner: svc, mode: "0755"}
          /srv-x: {type: dir, owner: svc, mode: "0755"}
          /tmp: {type: dir, owner: root, mode: "1777"}
          /tmp/old: {owner: svc, mode: "0644"}
        services:
          a: {unit: a.service}
        """

    func load(_ unit: String) throws -> Policy {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-view-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try unit.write(toFile: dir + "/a.service", atomically: true, encoding: .utf8)
        try Self.tree.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        return PolicyLoader.load(path: dir + "/p.yaml")
    }

    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var unit: String
        var op: FSPolicy.Operation
        var path: String
        var to: String? = nil
        var errno: Errno?
        var rule: RuleID? = nil
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "U1: strict makes / read-only: create in the service's own directory", unit: "ProtectSystem=strict", op: .create, path: "/srv/new",
            errno: .EROFS, rule: .unitReadOnly),
        Row(name: "U1: … but strict leaves the homes to ProtectHome=", unit: "ProtectSystem=strict", op: .create, path: "/home/svc/new", errno: nil),
        Row(
            name: "U1: ProtectHome=read-only wins over strict's implicit read-write on /home", unit: "ProtectSystem=strict\nProtectHome=read-only", op: .create,
            path: "/home/svc/new", errno: .EROFS, rule: .unitReadOnly),
        Row(
            name: "U1: ReadWritePaths= below strict's / is writable", unit: "ProtectSystem=strict\nReadWritePaths=/srv/a", op: .create, path: "/srv/a/new",
            errno: nil),
        Row(
            name: "U1: … and only below it (/srv/a-x is not /srv/a)", unit: "ProtectSystem=strict\nReadWritePaths=/srv", op: .create, path: "/srv-x/new",
            errno: .EROFS, rule: .unitReadOnly),
        Row(
            name: "U1: the deepest entry wins: ReadOnlyPaths= inside ReadWritePaths=",
            unit: "ProtectSystem=strict\nReadWritePaths=/srv\nReadOnlyPaths=/srv/a/b", op: .delete, path: "/srv/a/b/f", errno: .EROFS, rule: .unitReadOnly),
        Row(
            name: "U1: … and a read-write inside it is writable again", unit: "ReadOnlyPaths=/srv\nReadWritePaths=/srv/a/b", op: .delete, path: "/srv/a/b/f",
            errno: nil),
        Row(
            name: "U1: on one path read-only wins over read-write", unit: "ReadWritePaths=/srv/a\nReadOnlyPaths=/srv/a", op: .create, path: "/srv/a/new",
            errno: .EROFS, rule: .unitReadOnly),
        Row(name: "U1: an empty assignment resets the list", unit: "ReadOnlyPaths=/srv\nReadOnlyPaths=", op: .create, path: "/srv/new", errno: nil),
        Row(name: "U1: ProtectSystem=yes covers /usr, not /etc", unit: "User=root\nProtectSystem=yes", op: .create, path: "/etc/new", errno: nil),
        Row(
            name: "U1: ProtectSystem=full covers /etc, root included, before the bits", unit: "User=root\nProtectSystem=full", op: .create, path: "/etc/new",
            errno: .EROFS, rule: .unitReadOnly),
        Row(
            name: "U1: delete is EROFS before the bits refuse it", unit: "ProtectSystem=full", op: .delete, path: "/etc/rootconf", errno: .EROFS,
            rule: .unitReadOnly),
        Row(
            name: "U1: chmod of one's own file on a read-only path", unit: "ReadOnlyPaths=/etc", op: .chmod, path: "/etc/conf", errno: .EROFS,
            rule: .unitReadOnly),
        Row(name: "U2: open for writing: the bits refuse first (EACCES)", unit: "ProtectSystem=full", op: .write, path: "/etc/rootconf", errno: .EACCES),
        Row(name: "U2: … and when they grant, EROFS", unit: "ProtectSystem=full", op: .write, path: "/etc/conf", errno: .EROFS, rule: .unitReadOnlyOpen),
        Row(name: "U2: reading is untouched", unit: "ProtectSystem=strict", op: .read, path: "/etc/conf", errno: nil),
        Row(name: "U3: NoExecPaths= refuses execute", unit: "NoExecPaths=/srv", op: .execute, path: "/srv/a/f", errno: .EACCES, rule: .unitNoexec),
        Row(name: "U3: … root included", unit: "User=root\nNoExecPaths=/", op: .execute, path: "/usr/tool", errno: .EACCES, rule: .unitNoexec),
        Row(name: "U3: a deeper ExecPaths= allows it again", unit: "NoExecPaths=/\nExecPaths=/srv/a/b", op: .execute, path: "/srv/a/b/f", errno: nil),
        Row(name: "U3: noexec does not make a path read-only", unit: "NoExecPaths=/srv", op: .create, path: "/srv/new", errno: nil),
        Row(
            name: "U1: `-` only says a missing path is ignored", unit: "ReadOnlyPaths=-/srv -/nonexistent", op: .create, path: "/srv/new", errno: .EROFS,
            rule: .unitReadOnly),
        Row(name: "U1: paths are folded (`//srv/`)", unit: "ReadOnlyPaths=//srv/", op: .create, path: "/srv/new", errno: .EROFS, rule: .unitReadOnly),
        // U5: an inaccessible directory is empty, mode 0000, root's, read-only and noexec.
        Row(name: "U5: a user cannot search an inaccessible directory", unit: "InaccessiblePaths=/srv/a", op: .read, path: "/srv/a/f", errno: .EACCES),
        Row(name: "U5: … root can, and finds it empty", unit: "User=root\nInaccessiblePaths=/srv/a", op: .read, path: "/srv/a/f", errno: .ENOENT),
        Row(name: "U5: … root lists it", unit: "User=root\nInaccessiblePaths=/srv/a", op: .list, path: "/srv/a", errno: nil),
        Row(
            name: "U5: … and cannot create in it (read-only)", unit: "User=root\nInaccessiblePaths=/srv/a", op: .create, path: "/srv/a/new", errno: .EROFS,
            rule: .unitReadOnly),
        Row(name: "U5: an inaccessible file refuses its owner", unit: "InaccessiblePaths=/etc/conf", op: .read, path: "/etc/conf", errno: .EACCES),
        Row(name: "U5: … root reads it (empty)", unit: "User=root\nInaccessiblePaths=/etc/conf", op: .read, path: "/etc/conf", errno: nil),
        Row(
            name: "U5: … but opens it for writing on a read-only mount", unit: "User=root\nInaccessiblePaths=/etc/conf", op: .write, path: "/etc/conf",
            errno: .EROFS, rule: .unitReadOnlyOpen),
        Row(name: "U5: … and executes nothing there", unit: "User=root\nInaccessiblePaths=/srv/a/f", op: .execute, path: "/srv/a/f", errno: .EACCES),
        Row(name: "U5: ProtectHome=yes makes /home inaccessible", unit: "ProtectHome=yes", op: .read, path: "/home/svc/f", errno: .EACCES),
        Row(name: "U5: ProtectHome=tmpfs shows root an empty /home", unit: "User=root\nProtectHome=tmpfs", op: .read, path: "/home/svc/f", errno: .ENOENT),
        Row(
            name: "U5: … which is read-only", unit: "User=root\nProtectHome=tmpfs", op: .mkdir, path: "/home/new", errno: .EROFS, rule: .unitReadOnly),
        Row(name: "U5: a tmpfs is root's, mode 0755", unit: "TemporaryFileSystem=/srv", op: .create, path: "/srv/new", errno: .EACCES),
        Row(name: "U5: … root writes it", unit: "User=root\nTemporaryFileSystem=/srv", op: .create, path: "/srv/new", errno: nil),
        Row(name: "U5: … and it hides what was there", unit: "TemporaryFileSystem=/srv", op: .read, path: "/srv/a/f", errno: .ENOENT),
        Row(name: "U5: `mode=` sets its mode", unit: "TemporaryFileSystem=/srv:mode=1777", op: .create, path: "/srv/new", errno: nil),
        Row(
            name: "U5: `:ro` makes it read-only", unit: "User=root\nTemporaryFileSystem=/srv:ro", op: .create, path: "/srv/new", errno: .EROFS,
            rule: .unitReadOnly),
        Row(
            name: "U5: under strict's read-only /, a tmpfs is writable (a deeper entry)", unit: "User=root\nProtectSystem=strict\nTemporaryFileSystem=/srv",
            op: .create, path: "/srv/new", errno: nil),
        Row(
            name: "U5: on one path ReadOnlyPaths= wins over the tmpfs, which is not mounted",
            unit: "TemporaryFileSystem=/srv\nReadOnlyPaths=/srv", op: .create, path: "/srv/new", errno: .EROFS, rule: .unitReadOnly),
        Row(name: "U5: PrivateTmp=yes hides the host's /tmp", unit: "PrivateTmp=yes", op: .read, path: "/tmp/old", errno: .ENOENT),
        Row(name: "U5: … and is writable by all (1777)", unit: "PrivateTmp=yes", op: .create, path: "/tmp/new", errno: nil),
        Row(name: "U5: … also under strict", unit: "ProtectSystem=strict\nPrivateTmp=yes", op: .create, path: "/tmp/new", errno: nil),
        Row(
            name: "U5: … unless ReadOnlyPaths=/tmp, whose flag the private /tmp takes", unit: "PrivateTmp=yes\nReadOnlyPaths=/tmp", op: .create,
            path: "/tmp/new", errno: .EROFS, rule: .unitReadOnly),
        Row(
            name: "U5: nothing below an inaccessible path applies (ReadWritePaths= there is dropped)",
            unit: "User=root\nInaccessiblePaths=/srv\nReadWritePaths=/srv/a", op: .create, path: "/srv/a/new", errno: .ENOENT),
        Row(
            name: "U1: BindReadOnlyPaths= on a path makes it read-only", unit: "BindReadOnlyPaths=/srv/a", op: .create, path: "/srv/a/new", errno: .EROFS,
            rule: .unitReadOnly),
        Row(
            name: "U1: BindPaths= below strict's / is writable (a deeper mount)", unit: "ProtectSystem=strict\nBindPaths=/srv/a", op: .create,
            path: "/srv/a/new", errno: nil),
        Row(
            name: "U1: `-SRC:SRC:rbind` is the same path bound onto itself", unit: "ProtectSystem=strict\nBindPaths=-/srv/a:/srv/a:rbind", op: .create,
            path: "/srv/a/new", errno: nil),
        Row(
            name: "U4: a bound path is a mount of its own", unit: "BindPaths=/srv/a", op: .rename, path: "/srv/a/f", to: "/srv/f2", errno: .EXDEV,
            rule: .unitCrossMount),
        Row(
            name: "U1: BindPaths= on the path of an inaccessible one loses (InaccessiblePaths= is the lower mode)",
            unit: "InaccessiblePaths=/srv/a\nBindPaths=/srv/a",
            op: .read, path: "/srv/a/f", errno: .EACCES),
        Row(
            name: "DynamicUser=yes: strict, read-only homes and a private /tmp", unit: "DynamicUser=yes", op: .create, path: "/srv/new", errno: .EROFS,
            rule: .unitReadOnly),
        Row(name: "DynamicUser=yes: … the homes read-only", unit: "DynamicUser=yes", op: .create, path: "/home/svc/new", errno: .EROFS, rule: .unitReadOnly),
        Row(name: "DynamicUser=yes: … a private /tmp", unit: "DynamicUser=yes", op: .read, path: "/tmp/old", errno: .ENOENT),
        Row(
            name: "DynamicUser=yes: … ProtectHome=yes written in the unit stays", unit: "DynamicUser=yes\nProtectHome=yes", op: .read, path: "/home/svc/f",
            errno: .EACCES),
        Row(
            name: "U5: a rename out of a private /tmp crosses mounts", unit: "PrivateTmp=yes", op: .rename, path: "/srv/a/f", to: "/tmp/f", errno: .EXDEV,
            rule: .unitCrossMount)
    ]

    @Test("which entry wins on a path, and the error", arguments: rows)
    func row(_ r: Row) throws {
        let unit = r.unit.hasPrefix("User=") ? "[Service]\n\(r.unit)\n" : "[Service]\nUser=svc\n\(r.unit)\n"
        let p = try load(unit)
        #expect(!p.diagnostics.hasErrors && p.diagnostics.sorted.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        let ev = Evaluator(policy: p)
        var spec = RequestSpec(op: r.op, path: r.path)
        spec.to = r.to
        let d = try #require(ev.decide(spec, subject: .service("a")))
        #expect(d.errno == r.errno, "\(d.layer) \(d.rule)")
        if let rule = r.rule { #expect(d.rule == rule) }
        // The same user without the unit's view is allowed wherever the view was what refused.
        if r.rule != nil, r.errno != nil {
            let plain = try #require(ev.decide(spec, subject: .user(p.world.services[0].uid)))
            #expect(plain.rule != r.rule)
        }
    }

    @Test("values not modelled stay named; bad paths are errors at file:line with a hint")
    func notModelledAndErrors() throws {
        let p = try load("[Service]\nUser=svc\nPrivateTmp=disconnected\nReadOnlyPaths=/srv relative/x /a/../b\nProtectSystem=sometimes\nReadWritePaths=+/srv\n")
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("a.service:3:1: warning: PrivateTmp=disconnected of service `a` is not modelled"), "\(all)")
        #expect(all.contains("a.service:4:1: error: `relative/x` in ReadOnlyPaths= of service `a` is not an absolute path"), "\(all)")
        #expect(all.contains("a.service:4:1: error: `/a/../b` in ReadOnlyPaths="), "\(all)")
        #expect(all.contains("a.service:5:1: error: ProtectSystem=sometimes is not a value systemd accepts"), "\(all)")
        #expect(all.contains("a.service:6:1: warning: `+/srv` in ReadWritePaths= of service `a` is relative to RootDirectory="), "\(all)")
        let svc = try #require(p.world.services.first)
        #expect(svc.notModelled == ["PrivateTmp=disconnected", "ReadWritePaths=+/srv (relative to RootDirectory=)"])
        #expect(svc.view.map(\.path) == ["/srv", "/srv"])
    }

    @Test("hostile names: a control character in a path matches the node; a name that is not UTF-8 is left out and named")
    func hostileNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-view-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var unit = Data("[Service]\nUser=root\nReadOnlyPaths=/etc/a\u{1B}[31mb\nNoExecPaths=/bin".utf8)
        unit.append(contentsOf: [0xFF, 0x0A])
        try unit.write(to: URL(fileURLWithPath: dir + "/a.service"))
        let yaml =
            "fspolicy: 1\nsemantics: linux\ntree:\n  /etc: {type: dir, owner: root, mode: \"0755\"}\n  \"/etc/a\\e[31mb\": {type: dir, owner: root, mode: \"0755\"}\nservices:\n  a: {unit: a.service}\n"
        try yaml.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        let p = PolicyLoader.load(path: dir + "/p.yaml")
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("a.service:4:1: warning: a path in NoExecPaths= of service `a` is not valid UTF-8"), "\(all)")
        #expect(!all.contains("\u{1B}") && !all.contains("\u{FFFD}"), "\(all)")
        let d = try #require(Evaluator(policy: p).decide(RequestSpec(op: .create, path: "/etc/a\\033[31mb/n"), subject: .service("a")))
        #expect(d.errno == .EROFS && d.rule == .unitReadOnly, "\(d.rule)")
        let text = TextRenderer(policy: p).subjectLine(.service("a"), semantics: .linux)
        #expect(text.contains("not modelled") && !text.contains("\u{1B}") && !text.contains("\u{FFFD}"), "\(text)")
    }

    @Test("DynamicUser=yes: a uid no user has, in systemd's range, with its own group; a static user of the name is used as it is")
    func dynamicUser() throws {
        let p = try load("[Service]\nUser=ghost\nDynamicUser=yes\nNoNewPrivileges=no\n")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let svc = try #require(p.world.services.first)
        #expect(Compiler.dynamicUIDs.contains(svc.uid) && p.world.user(uid: svc.uid) == nil && svc.gid == svc.uid && svc.supplementary == [])
        #expect(svc.noNewPrivileges && svc.notModelled == ["RestrictSUIDSGID=yes (implied by DynamicUser=yes)"])
        let s = p.world.subject(service: 0)
        #expect(s.uid == svc.uid && s.gid == svc.uid && s.groups.allSatisfy { $0 == svc.uid })
        // A user of the name exists: systemd uses it, and still applies the sandbox.
        let q = try load("[Service]\nUser=svc\nDynamicUser=yes\n")
        #expect(q.world.services.first?.uid == 900)
        #expect(q.world.services.first?.view.contains { $0.path == "/" && $0.mode == .readOnly } == true)
        // Without DynamicUser=, an unknown User= is an error.
        let r = try load("[Service]\nUser=ghost\n")
        #expect(r.diagnostics.sorted.map(\.rendered).joined().contains("a.service:2:1: error: unknown user `ghost`"))
    }

    @Test("every other option that bears on files is named as not modelled, never passed over", arguments: UnitViewTests.notModelledOptions)
    func stillNamed(_ line: String) throws {
        let p = try load("[Service]\nUser=svc\n\(line)\n")
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("a.service:3:1: warning:") && all.contains("not modelled"), "\(all)")
        let svc = try #require(p.world.services.first)
        #expect(!svc.notModelled.isEmpty)
        let text = TextRenderer(policy: p).subjectLine(.service("a"), semantics: .linux)
        #expect(text.contains("not modelled"), "\(text)")
    }

    /// systemd.exec(5)'s options that change what a process may do to files and are not modelled.
    static let notModelledOptions = [
        "PrivateDevices=yes", "PrivateMounts=yes", "PrivateUsers=yes", "PrivateTmp=disconnected", "RootDirectory=/srv", "RootImage=/srv/img",
        "StateDirectory=app:link",
        "ProtectKernelTunables=yes", "ProtectKernelModules=yes", "ProtectKernelLogs=yes", "ProtectControlGroups=yes", "ProtectProc=invisible",
        "ProcSubset=pid", "MountFlags=shared", "MountAPIVFS=yes", "RestrictSUIDSGID=yes", "SystemCallFilter=~@file-system", "LoadCredential=k:/srv/k",
        "BindPaths=/srv:/srv-x:ro", "BindReadOnlyPaths=/srv::norbind", "TemporaryFileSystem=/srv:noexec", "ExtensionDirectories=/srv",
        "ReadWritePaths=+/srv"
    ]

    @Test("the old names of the path lists are read as the new ones")
    func aliases() throws {
        let p = try load("[Service]\nUser=svc\nReadOnlyDirectories=/srv\nInaccessibleDirectories=/etc/conf\n")
        #expect(p.diagnostics.sorted.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.services.first?.view.map(\.option).sorted() == ["InaccessiblePaths=/etc/conf", "ReadOnlyPaths=/srv"])
    }

    @Test("BindPaths= onto itself with norbind, or with another option, is named as not modelled; SRC:DST is read")
    func bindNotModelled() throws {
        let p = try load("[Service]\nUser=svc\nBindPaths=/srv/a:/srv-x /srv/a:/srv/a:norbind /etc /srv:/srv-x:ro\n")
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("`/srv/a:/srv/a:norbind` in BindPaths= of service `a` binds a path onto itself with `norbind`"), "\(all)")
        #expect(all.contains("`/srv:/srv-x:ro` in BindPaths= of service `a` has options other than `rbind` and `norbind`"), "\(all)")
        let svc = try #require(p.world.services.first)
        #expect(svc.notModelled == ["BindPaths=/srv/a:/srv/a:norbind", "BindPaths=/srv:/srv-x:ro"])
        #expect(svc.view.map(\.path) == ["/srv-x", "/etc"] && svc.view.allSatisfy { $0.mode == .bind })
        #expect(svc.view.first?.source == "/srv/a")
    }

    @Test("a set-user-ID program the service runs stays in its view")
    func execKeepsView() throws {
        let p = try load("[Service]\nUser=svc\nReadOnlyPaths=/etc\n")
        let w = p.world
        let tool = try #require(w.lookup("/usr/tool"))
        let s = w.subject(service: 0)
        let out = w.execOutcome(s, program: tool)
        #expect(out.subject.uid == 0 && s.uid == 900)
        #expect(out.subject.view == s.view && s.view != nil)
    }

    @Test("the view is sorted by path component-wise and keeps one entry per path and pass")
    func ordering() {
        let e = { (p: String, m: ViewEntry.Mode) in ViewEntry(path: p, mode: m, option: "X=\(p)", place: "u:1") }
        let v = MountView([e("/a-b", .readOnly), e("/a/b", .readWrite), e("/a", .readWrite), e("/a", .readOnly), e("/a", .noexec), e("/", .readWriteImplicit)])
        #expect(v.entries.map(\.path) == ["/", "/a", "/a", "/a/b", "/a-b"])
        #expect(v.entries.filter { $0.path == "/a" }.map(\.mode) == [.readOnly, .noexec])
        #expect(v.readOnlyEntry(for: "/a/c")?.path == "/a")
        #expect(v.readOnlyEntry(for: "/a/b/c") == nil)
        #expect(v.readOnlyEntry(for: "/a-b") != nil && v.readOnlyEntry(for: "/ab") == nil)
        #expect(v.noexecEntry(for: "/a/b") != nil)
    }
}
