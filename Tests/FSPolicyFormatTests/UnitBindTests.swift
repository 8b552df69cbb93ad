import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
import Foundation
import Testing

/// A bind of another path (`BindPaths=SRC:DST`, U6) and the directories systemd makes when the
/// unit starts (`StateDirectory=` and its siblings, U7).
@Suite("systemd sandbox: binds to another path, the unit's directories")
struct UnitBindTests {
    func load(_ unit: String) throws -> Policy {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-bind-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ("[Service]\n" + unit + "\n").write(toFile: dir + "/a.service", atomically: true, encoding: .utf8)
        try UnitViewOutputTests.tree.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        return PolicyLoader.load(path: dir + "/p.yaml")
    }

    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var unit: String
        var op: FSPolicy.Operation
        var path: String
        var to: String? = nil
        var errno: Errno?
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "U6: DST shows SRC's node: the service owns it and may create", unit: "User=svc\nBindPaths=/data/pub:/mnt/x", op: .create, path: "/mnt/x/n",
            errno: nil),
        Row(name: "U6: … and SRC's files", unit: "User=svc\nBindPaths=/data/pub:/mnt/x", op: .write, path: "/mnt/x/f", errno: nil),
        Row(name: "U6: … and none of DST's own", unit: "User=svc\nBindPaths=/data/pub:/mnt/x", op: .read, path: "/mnt/x/old", errno: .ENOENT),
        Row(name: "U6: BindReadOnlyPaths= is read-only", unit: "User=svc\nBindReadOnlyPaths=/data/pub:/mnt/x", op: .create, path: "/mnt/x/n", errno: .EROFS),
        Row(name: "U6: SRC's mode decides the search", unit: "User=svc\nBindPaths=/data/secret:/mnt/x", op: .read, path: "/mnt/x/key", errno: .EACCES),
        Row(name: "U6: root reads through it", unit: "BindPaths=/data/secret:/mnt/x", op: .read, path: "/mnt/x/key", errno: nil),
        Row(name: "U6: a file onto a file", unit: "User=svc\nBindPaths=/data/pubfile:/mnt/y", op: .write, path: "/mnt/y", errno: nil),
        Row(name: "U6: `-` and a missing source: nothing bound", unit: "User=svc\nBindPaths=-/data/none:/mnt/x", op: .read, path: "/mnt/x/old", errno: nil),
        Row(name: "U6: a missing destination is made", unit: "User=svc\nBindPaths=/data/pub:/mnt/new/deep", op: .write, path: "/mnt/new/deep/f", errno: nil),
        Row(
            name: "U6/U4: DST is a mount of its own", unit: "User=svc\nBindPaths=/data/pub:/mnt/x", op: .rename, path: "/mnt/x/f", to: "/data/pub/g",
            errno: .EXDEV),
        Row(
            name: "U6/U1: under ProtectSystem=strict a bind is writable", unit: "User=svc\nProtectSystem=strict\nBindPaths=/data/pub:/mnt/x", op: .create,
            path: "/mnt/x/n", errno: nil),
        Row(
            name: "U5: unlinking an inaccessible file checks the host's inode under it (immutable: EPERM, not EBUSY)",
            unit: "InaccessiblePaths=/mnt/locked", op: .delete, path: "/mnt/locked", errno: .EPERM),
        Row(name: "U5: … a plain one is a busy mount point", unit: "InaccessiblePaths=/mnt/y", op: .delete, path: "/mnt/y", errno: .EBUSY),
        Row(
            name: "U7: StateDirectory= is made and given to the user", unit: "User=svc\nStateDirectory=app/sub", op: .create, path: "/var/lib/app/sub/n",
            errno: nil),
        Row(name: "U7: … its parents are root's", unit: "User=svc\nStateDirectory=app/sub", op: .create, path: "/var/lib/app/n", errno: .EACCES),
        Row(
            name: "U7: … and writable under ProtectSystem=strict", unit: "User=svc\nProtectSystem=strict\nStateDirectory=app", op: .create,
            path: "/var/lib/app/n", errno: nil),
        Row(
            name: "U7: an existing one is given over with what is below it", unit: "User=svc\nStateDirectory=old", op: .read, path: "/var/lib/old/f", errno: nil
        ),
        Row(name: "U7: ConfigurationDirectory= stays root's", unit: "User=svc\nConfigurationDirectory=app", op: .create, path: "/etc/app/n", errno: .EACCES),
        Row(
            name: "U7: RuntimeDirectoryMode= sets the mode", unit: "User=svc\nRuntimeDirectory=app\nRuntimeDirectoryMode=0500", op: .create, path: "/run/app/n",
            errno: .EACCES),
        Row(
            name: "U7: with DynamicUser= the private one is bound at /var/lib/NAME", unit: "DynamicUser=yes\nStateDirectory=app", op: .create,
            path: "/var/lib/app/n", errno: nil),
        Row(
            name: "U7: … and /var/lib/private is closed (0700)", unit: "DynamicUser=yes\nStateDirectory=app", op: .create, path: "/var/lib/private/app/n",
            errno: .EACCES)
    ]

    @Test("binds of another path and the unit's directories, and the error", arguments: rows)
    func row(_ r: Row) throws {
        let p = try load(r.unit)
        #expect(!p.diagnostics.hasErrors && p.diagnostics.sorted.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        var spec = RequestSpec(op: r.op, path: r.path)
        spec.to = r.to
        let d = try #require(Evaluator(policy: p).decide(spec, subject: .service("a")))
        #expect(d.errno == r.errno, "\(d.layer) \(d.rule) \(d.notes)")
    }

    @Test("a bind that cannot be applied is named in the answer")
    func unapplied() throws {
        let p = try load("User=svc\nBindPaths=/data/none:/mnt/x /data/pub:/mnt/y /data/pub:/data/pub/in /data/pub:/mnt/y/z")
        let d = try #require(Evaluator(policy: p).decide(RequestSpec(op: .read, path: "/mnt/x/old"), subject: .service("a")))
        let notes = d.notes.joined(separator: "\n")
        #expect(d.allowed)
        #expect(notes.contains("BindPaths=/data/none:/mnt/x binds /data/none, which is not in the tree"), "\(notes)")
        #expect(notes.contains("binds a directory onto a file"), "\(notes)")
        #expect(notes.contains("BindPaths=/data/pub:/data/pub/in binds a path onto one inside it"), "\(notes)")
        #expect(notes.contains("BindPaths=/data/pub:/mnt/y/z binds onto /mnt/y/z, below /mnt/y, which is not a directory"), "\(notes)")
    }
}
