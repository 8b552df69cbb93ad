import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyAudit
import Foundation
import Testing

/// Every unit of a host (`units:`): systemd's unit folders, their override order, masks,
/// drop-ins, symlinks kept inside the root, templates, and the same services from the files a
/// scan wrote. And the specifiers a unit's options use.
@Suite("systemd unit folders and specifiers")
struct UnitFolderTests {
    static let policy = """
        fspolicy: 1
        semantics: linux
        users:
          svc: {uid: 900}
          web: {uid: 33}
        tree:
          /srv: {type: dir, owner: svc, mode: "0755"}
          /var: {type: dir, owner: root, mode: "0755"}
          /var/lib: {type: dir, owner: root, mode: "0755"}
        """

    /// A temporary root holding `files` (path in the root → text, or `-> target` for a symlink).
    final class Root {
        let dir: String
        init(_ files: [String: String]) throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-units-\(UUID().uuidString)").path
            for (path, text) in files.sorted(by: { $0.key < $1.key }) {
                let full = dir + "/root" + path
                try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if text.hasPrefix("-> ") {
                    try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: String(text.dropFirst(3)))
                } else {
                    try text.write(toFile: full, atomically: true, encoding: .utf8)
                }
            }
            try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: dir) }

        func load(_ extra: String = "") throws -> Policy {
            let text = UnitFolderTests.policy + "\n" + extra + "units: {root: root}\n"
            try text.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
            return PolicyLoader.load(path: dir + "/p.yaml")
        }
    }

    func service(_ p: Policy, _ name: String) -> Service? { p.world.services.first { $0.name == name } }

    @Test("a unit file in a higher folder hides the same name below; /dev/null and an empty file mask")
    func overrideAndMask() throws {
        let r = try Root([
            "/etc/systemd/system/a.service": "[Service]\nUser=svc\n",
            "/lib/systemd/system/a.service": "[Service]\nUser=web\n",
            "/usr/lib/systemd/system/b.service": "[Service]\nUser=web\n",
            "/run/systemd/system/b.service": "-> /dev/null",
            "/usr/local/lib/systemd/system/c.service": "",
            "/lib/systemd/system/c.service": "[Service]\nUser=web\n",
            "/lib/systemd/system/d.service": "[Unit]\nDescription=no service section\n",
            "/lib/systemd/system/e.socket": "[Socket]\nListenStream=1\n"
        ])
        let p = try r.load()
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.services.map(\.name) == ["a"])
        #expect(service(p, "a")?.uid == 900)
        let folders = UnitFolders.collect(root: r.dir + "/root").0
        let notes = folders.resolve().notes.joined(separator: "\n")
        #expect(notes.contains("b.service: masked (/run/systemd/system/b.service is a symlink to /dev/null)"), "\(notes)")
        #expect(notes.contains("c.service: masked (/usr/local/lib/systemd/system/c.service is empty)"), "\(notes)")
        #expect(notes.contains("d.service: no [Service] section"), "\(notes)")
    }

    @Test("drop-ins of every folder merge by file name; the same name in a higher folder, or a more specific one, wins")
    func dropIns() throws {
        let r = try Root([
            "/lib/systemd/system/foo-bar.service": "[Service]\nUser=svc\n",
            "/lib/systemd/system/foo-bar.service.d/10-a.conf": "[Service]\nReadOnlyPaths=/srv/lib10\n",
            "/run/systemd/system/foo-bar.service.d/10-a.conf": "[Service]\nReadOnlyPaths=/srv/run10\n",
            "/etc/systemd/system/foo-bar.service.d/30-c.conf": "[Service]\nReadOnlyPaths=/srv/etc30\n",
            "/lib/systemd/system/foo-.service.d/20-b.conf": "[Service]\nReadOnlyPaths=/srv/prefix20\n",
            "/etc/systemd/system/foo-.service.d/30-c.conf": "[Service]\nReadOnlyPaths=/srv/prefix30\n",
            "/etc/systemd/system/service.d/05-all.conf": "[Service]\nNoExecPaths=/srv/all05\n",
            "/etc/systemd/system/service.d/40-masked.conf": "[Service]\nNoExecPaths=/srv/masked\n",
            "/run/systemd/system/foo-bar.service.d/40-masked.conf": "-> /dev/null"
        ])
        let p = try r.load()
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let svc = try #require(service(p, "foo-bar"))
        // In file-name order: 05 (the type's), 10 (/run's hides /lib's), 20 (the prefix's), 30 (the
        // unit's own folder beats the prefix folder of the same name); 40 masked by /dev/null.
        #expect(svc.view.filter { $0.mode == .readOnly }.map(\.path) == ["/srv/run10", "/srv/prefix20", "/srv/etc30"], "\(svc.view.map(\.option))")
        #expect(svc.view.filter { $0.mode == .noexec }.map(\.path) == ["/srv/all05"], "\(svc.view.map(\.option))")
        let places = svc.view.map(\.place)
        #expect(places[0].hasSuffix("/run/systemd/system/foo-bar.service.d/10-a.conf:2"), "\(places)")
    }

    @Test("symlinks are followed inside the root; an alias is not a service of its own; /lib as a link to /usr/lib is read once")
    func symlinks() throws {
        let r = try Root([
            "/etc/systemd/system/linked.service": "-> /opt/app/linked.service",
            "/opt/app/linked.service": "[Service]\nUser=svc\n",
            "/etc/systemd/system/alias.service": "-> /usr/lib/systemd/system/real.service",
            "/usr/lib/systemd/system/real.service": "[Service]\nUser=web\n",
            "/lib": "-> usr/lib"
        ])
        let p = try r.load()
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.services.map(\.name) == ["linked", "real"])
        #expect(service(p, "linked")?.uid == 900)
        let (folders, problems) = UnitFolders.collect(root: r.dir + "/root")
        #expect(folders.duplicateFolders == ["/lib/systemd/system"] && problems.isEmpty, "\(problems)")
        #expect(folders.resolve().notes.contains("alias.service: an alias of real.service: its service is named after real.service"))
    }

    @Test("a template is a service only as an instance named in a .wants folder, with its specifiers")
    func templates() throws {
        let r = try Root([
            "/lib/systemd/system/worker@.service": "[Service]\nUser=%i\nReadWritePaths=/srv/%i /srv/%p-%I\n",
            "/etc/systemd/system/multi-user.target.wants/worker@svc.service": "-> /lib/systemd/system/worker@.service",
            "/lib/systemd/system/worker@.service.d/10.conf": "[Service]\nReadOnlyPaths=%S/%N\n"
        ])
        let p = try r.load()
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.services.map(\.name) == ["worker@svc"])
        let svc = try #require(service(p, "worker@svc"))
        #expect(svc.uid == 900)
        #expect(svc.view.map(\.path).sorted() == ["/srv/svc", "/srv/worker-svc", "/var/lib/worker@svc"], "\(svc.view.map(\.path))")
    }

    @Test("the files scan --units writes give the same services as the folders")
    func scanForm() throws {
        let r = try Root([
            "/etc/systemd/system/a.service": "[Service]\nUser=svc\nReadOnlyPaths=/srv\n",
            "/lib/systemd/system/a.service.d/x.conf": "[Service]\nNoExecPaths=/srv\n",
            "/lib/systemd/system/b.service": "[Service]\nUser=web\n",
            "/etc/systemd/system/b.service": "-> /dev/null"
        ])
        let direct = try r.load()
        let folders = UnitFolders.collect(root: r.dir + "/root").0
        let text = UnitFolderTests.policy + "\n" + folders.yaml(root: "/")
        let scanned = PolicyLoader.load(text: text, file: r.dir + "/scan.yaml")
        #expect(!scanned.diagnostics.hasErrors, "\(scanned.diagnostics.sorted.map(\.rendered))")
        #expect(scanned.world.services.map(\.name) == ["a"] && direct.world.services.map(\.name) == ["a"])
        #expect(
            scanned.world.services.map(\.view)
                == direct.world.services.map {
                    $0.view.map { e in
                        var e = e; e.place = String(e.place.dropFirst(r.dir.count + 5)); return e
                    }
                })
        #expect(scanned.world.services.first?.view.first?.place == "/etc/systemd/system/a.service:3")
    }

    @Test("a declared service keeps its declaration; bad entries and names are diagnosed with their place, nothing crashes")
    func hostile() throws {
        let r = try Root([
            "/etc/systemd/system/a.service": "[Service]\nUser=web\n",
            "/etc/systemd/system/bad\u{1B}[31m.service": "[Service]\nUser=svc\n",
            "/etc/systemd/system/loop.service": "-> loop.service"
        ])
        let p = try r.load("services:\n  a: {user: svc}\n")
        #expect(service(p, "a")?.uid == 900)
        let all = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(all.contains("has no valid unit name: it is left out") && !all.contains("\u{1B}"), "\(all)")
        #expect(p.world.services.map(\.name) == ["a"])
        let bad = PolicyLoader.load(
            text: UnitFolderTests.policy + "\nunits:\n  root: /\n  files:\n    - {path: relative}\n    - {path: /etc/systemd/system/x.service}\n",
            file: "bad.yaml")
        let msgs = bad.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
        #expect(msgs.contains("bad.yaml:13:") && msgs.contains("`relative` is not an absolute path"), "\(msgs)")
        #expect(msgs.contains("needs one of `text` and `link`"), "\(msgs)")
    }

    @Test("specifiers resolve as for a system service; one that needs the running host is named and the option left out")
    func specifiers() {
        #expect(
            UnitSpecifiers.resolve("%n %N %p %i %u %U %h %t %S %C %L %E %T %V %%", unit: "app.service").0
                == "app.service app app  root 0 /root /run /var/lib /var/cache /var/log /etc /tmp /var/tmp %")
        #expect(UnitSpecifiers.resolve("%i|%I|%p|%P|%f", unit: "a-b@x-y\\x2dz.service").0 == "x-y\\x2dz|x/y-z|a-b|a/b|/x/y-z")
        #expect(UnitSpecifiers.resolve("%H/%m %", unit: "a.service").1 == ["%H", "%m", "%"])
    }
}
