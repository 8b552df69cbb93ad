import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// Apps in policy files: entitlements inline or from `.entitlements` property lists (XML and
/// binary), Info.plist keys, bookmarks, consents, the device state, diagnostics, and the findings
/// `check` and `validate` report.
@Suite("Apps in policy files")
struct AppLoadingTests {
    /// A temporary folder with a policy file and the plists it names.
    struct Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-apps-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func write(_ name: String, _ text: String) throws { try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        func write(_ name: String, plist: [String: Any], format: PropertyListSerialization.PropertyListFormat) throws {
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
            try data.write(to: url.appendingPathComponent(name))
        }
        func load(_ text: String) throws -> Policy {
            try write("policy.yaml", text)
            return PolicyLoader.load(path: url.appendingPathComponent("policy.yaml").path)
        }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static let head = """
        fspolicy: 1
        users:
          alice: {uid: 501}
        defaults: {owner: alice, group: staff}
        tree:
          /Users/alice/Library/Containers/com.example.A/Data/f.txt: {}
          /Users/alice/Desktop/f.txt: {}
          /Users/alice/Downloads/f.txt: {}

        """

    static var entitlements: [String: Any] {
        [
            "com.apple.security.app-sandbox": true,
            "com.apple.security.files.user-selected.read-write": true,
            "com.apple.security.application-groups": ["group.a", "group.b"],
            "com.apple.security.temporary-exception.files.absolute-path.read-only": "/opt/",
            "com.apple.security.network.client": true,
            "com.apple.developer.team-identifier": "ABCDE12345",
            "com.apple.security.some-number": 3
        ]
    }

    func errors(_ p: Policy) -> [String] { p.diagnostics.items.filter { $0.severity == .error }.map { "\($0.location.line):\($0.code): \($0.message)" } }

    @Test("entitlements from an XML and a binary plist, Info.plist from a plist", arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func plists(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let f = try Folder()
        defer { f.remove() }
        try f.write("A.entitlements", plist: Self.entitlements, format: format)
        try f.write("Info.plist", plist: ["NSDesktopFolderUsageDescription": "why", "CFBundleVersion": "1", "LSUIElement": true], format: format)
        let p = try f.load(
            Self.head + """
                apps:
                  com.example.A: {user: alice, entitlements: ./A.entitlements, info: ./Info.plist}
                """)
        #expect(errors(p).isEmpty, "\(errors(p))")
        let app = try #require(p.world.apps.first)
        #expect(app.isSandboxed)
        #expect(app.entitlements["com.apple.security.files.user-selected.read-write"] == .bool(true))
        #expect(app.entitlements["com.apple.security.application-groups"] == .strings(["group.a", "group.b"]))
        #expect(app.entitlements["com.apple.security.temporary-exception.files.absolute-path.read-only"] == .string("/opt/"))
        #expect(app.entitlements["com.apple.security.some-number"] != .bool(true), "a number is not a boolean")
        #expect(app.info["NSDesktopFolderUsageDescription"] == "why")
        #expect(app.uid == 501 && app.home == "/Users/alice")
        if format == .xml {
            // XML keys are located at their line in the plist file.
            let src = try #require(p.appSources["com.example.A"])
            let loc = try #require(src.entitlements["com.apple.security.application-groups"])
            #expect(loc.file.hasSuffix("A.entitlements") && loc.line > 3)
        }
        let ev = Evaluator(policy: p)
        let d = try #require(
            ev.decide(RequestSpec(op: .write, path: "/Users/alice/Library/Containers/com.example.A/Data/f.txt"), subject: .app("com.example.A")))
        #expect(d.allowed)
        #expect(d.trace.contains { $0.rule == .sandboxContainer })
    }

    @Test("inline entitlements and Info.plist keys, bookmarks, consents, platform and paths")
    func inline() throws {
        let p = PolicyLoader.load(
            text: Self.head + """
                device: {state: locked}
                apps:
                  com.example.A:
                    user: alice
                    umask: "077"
                    entitlements:
                      com.apple.security.app-sandbox: true
                      com.apple.security.temporary-exception.files.home-relative-path.read-write: [/Desktop/f.txt, /Notes/]
                      com.apple.developer.ubiquity-container-identifiers: [iCloud.com.example.A]
                    info: {NSDesktopFolderUsageDescription: Why.}
                    selected: [/Users/alice/Desktop/f.txt]
                    bookmarks:
                      - {path: /Users/alice/Projects, scope: document, readOnly: true, stale: true, started: 2, stopped: 1}
                      - {path: /Users/alice/Archive}
                    tcc: {desktop: granted, downloads: denied, fullDiskAccess: true}
                    groupContainers: /Users/alice/Groups
                    systemReadable: [/System]
                  com.example.B: {user: alice, platform: ios, container: /var/mobile/Containers/Data/Application/B}
                """, file: "inline.yaml")
        #expect(errors(p).isEmpty, "\(errors(p))")
        #expect(p.world.device == .locked)
        let a = p.world.apps[0], b = p.world.apps[1]
        #expect(a.umask == 0o077)
        #expect(a.strings(Entitlement.homeRelativeReadWrite) == ["/Desktop/f.txt", "/Notes/"])
        #expect(
            a.bookmarks == [
                Bookmark(path: "/Users/alice/Projects", scope: .document, readOnly: true, stale: true, started: 2, stopped: 1),
                Bookmark(path: "/Users/alice/Archive")
            ])
        #expect(a.tcc == [.desktop: .granted, .downloads: .denied])
        #expect(a.fullDiskAccess)
        #expect(a.groupContainers == "/Users/alice/Groups" && a.systemReadable == ["/System"])
        #expect(b.platform == .ios && b.container == "/var/mobile/Containers/Data/Application/B")
        #expect(p.appIDs == ["com.example.A", "com.example.B"])
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let label: String
        let app: String
        let code: String
        let message: String
        var testDescription: String { label }
    }

    static let badCases: [BadCase] = [
        BadCase(label: "no user", app: "{entitlements: {}}", code: "missing-key", message: "has no `user`"),
        BadCase(label: "unknown user", app: "{user: alcie}", code: "unknown-user", message: "did you mean"),
        BadCase(
            label: "a boolean entitlement given text", app: "{user: alice, entitlements: {com.apple.security.app-sandbox: yes please}}",
            code: "wrong-type", message: "must be `true` or `false`"),
        BadCase(
            label: "an array entitlement given one string", app: "{user: alice, entitlements: {com.apple.security.application-groups: group.a}}",
            code: "wrong-type", message: "must be a list of strings"),
        BadCase(
            label: "a home-relative exception without the leading /",
            app: "{user: alice, entitlements: {com.apple.security.temporary-exception.files.home-relative-path.read-only: Desktop/}}",
            code: "bad-path", message: "must start with `/`"),
        BadCase(
            label: "an entitlements file that is missing", app: "{user: alice, entitlements: ./Missing.entitlements}",
            code: "unreadable", message: "cannot read the entitlements file"),
        BadCase(label: "an unknown consent", app: "{user: alice, tcc: {desktop: allowed}}", code: "bad-value", message: "unknown consent `allowed`"),
        BadCase(label: "an unknown tcc service", app: "{user: alice, tcc: {desktp: granted}}", code: "unknown-key", message: "unknown key `desktp`"),
        BadCase(
            label: "an unknown bookmark scope", app: "{user: alice, bookmarks: [{path: /x, scope: global}]}", code: "bad-value",
            message: "unknown bookmark scope"),
        BadCase(label: "a bookmark without a path", app: "{user: alice, bookmarks: [{scope: app}]}", code: "missing-key", message: "needs a `path`"),
        BadCase(label: "a negative start count", app: "{user: alice, bookmarks: [{path: /x, started: -1}]}", code: "out-of-range", message: "`started`"),
        BadCase(label: "a relative selected item", app: "{user: alice, selected: [Desktop/f.txt]}", code: "bad-path", message: "not an absolute path"),
        BadCase(label: "an unknown platform", app: "{user: alice, platform: watchos}", code: "bad-value", message: "unknown platform"),
        BadCase(label: "an unknown app key", app: "{user: alice, entitlement: {}}", code: "unknown-key", message: "did you mean"),
        BadCase(
            label: "an unknown Data Protection class in the default-data-protection entitlement",
            app: "{user: alice, platform: ios, entitlements: {com.apple.developer.default-data-protection: NSFileProtectionCompleteUnlesOpen}}",
            code: "bad-value", message: "did you mean `NSFileProtectionCompleteUnlessOpen`?")
    ]

    @Test("mistakes in an app are diagnosed at their position", arguments: badCases)
    func bad(_ c: BadCase) {
        let p = PolicyLoader.load(text: Self.head + "apps:\n  com.example.A: " + c.app + "\n", file: "bad.yaml")
        let hit = p.diagnostics.items.first { $0.code == c.code && $0.message.contains(c.message) || ($0.help ?? "").contains(c.message) && $0.code == c.code }
        #expect(hit != nil, "\(p.diagnostics.items.map(\.rendered))")
        #expect(hit?.location.line == 10, "the diagnostic points at the app's line")
    }

    @Test("a file that is not a property list, or not a dictionary")
    func notPlists() throws {
        let f = try Folder()
        defer { f.remove() }
        try f.write("Bad.entitlements", "this is not <xml")
        try f.write("Array.plist", plist: [:], format: .xml)
        let arr = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0)
        try arr.write(to: f.url.appendingPathComponent("Array.plist"))
        let p = try f.load(Self.head + "apps:\n  com.example.A: {user: alice, entitlements: ./Bad.entitlements, info: ./Array.plist}\n")
        let codes = p.diagnostics.items.map { $0.code + ": " + $0.message }
        #expect(codes.contains { $0.hasPrefix("bad-plist: `./Bad.entitlements` is not a property list") }, "\(codes)")
        #expect(codes.contains { $0.hasPrefix("bad-plist: `./Array.plist` holds") && $0.hasSuffix("not a dictionary") }, "\(codes)")
    }

    @Test("warnings: a probable typo of a file entitlement, sandbox keys without the sandbox")
    func warnings() {
        let p = PolicyLoader.load(
            text: Self.head + """
                apps:
                  com.example.A: {user: alice, entitlements: {com.apple.security.app-sandbox: true, com.apple.security.files.user-selected.read-wrte: true}}
                  com.example.B: {user: alice, entitlements: {com.apple.security.files.downloads.read-only: true}}
                """, file: "w.yaml")
        let w = p.diagnostics.items.filter { $0.severity == .warning }
        #expect(w.contains { $0.code == "unknown-entitlement" && ($0.help ?? "").contains("user-selected.read-write") })
        #expect(w.contains { $0.code == "ineffective-entitlement" && $0.message.contains("com.example.B") })
        #expect(!p.diagnostics.hasErrors)
    }

    @Test("device states", arguments: [("unlocked", DeviceState.unlocked), ("locked", .locked), ("beforeFirstUnlock", .beforeFirstUnlock)])
    func device(_ c: (String, DeviceState)) {
        let p = PolicyLoader.load(text: "fspolicy: 1\ndevice: {state: \(c.0)}\n", file: "d.yaml")
        #expect(!p.diagnostics.hasErrors)
        #expect(p.world.device == c.1)
        let bad = PolicyLoader.load(text: "fspolicy: 1\ndevice: {state: lockd}\n", file: "d.yaml")
        #expect(bad.diagnostics.items.contains { $0.code == "bad-value" && ($0.help ?? "").contains("`locked`") })
    }

    @Test("apps in expectations: as, allowed lists that name an app, and steps")
    func expectations() {
        let p = PolicyLoader.load(
            text: Self.head + """
                apps:
                  com.example.A: {user: alice, entitlements: {com.apple.security.app-sandbox: true}}
                steps:
                  - {as: com.example.A, op: create, path: /Users/alice/Library/Containers/com.example.A/Data/new.txt}
                expect:
                  - {as: com.example.A, op: read, path: /Users/alice/Desktop/f.txt, result: deny, errno: EPERM, layer: sandbox}
                  - {as: com.example.A, op: read, path: /Users/alice/Library/Containers/com.example.A/Data/new.txt, result: allow}
                  - {op: read, path: /Users/alice/Desktop/f.txt, allowed: [root, alice]}
                  - {op: read, path: /Users/alice/Library/Containers/com.example.A/Data/f.txt, allowed: [root, alice, com.example.A]}
                  - {op: read, path: /Users/alice/Desktop/f.txt, allowed: [root, alice, com.example.A]}
                """, file: "e.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        let r = Evaluator(policy: p).checkAll()
        let passed = r.outcomes.map(\.passed)
        #expect(passed == [true, true, true, true, true, false], "\(r.outcomes.map(\.mismatches))")
        #expect(r.outcomes.last?.mismatches == ["not allowed: com.example.A"])
    }

    @Test("findings: purpose strings, temporary exceptions, bookmarks, unused entitlements")
    func findings() {
        let p = PolicyLoader.load(
            text: Self.head + """
                apps:
                  com.example.A:
                    user: alice
                    entitlements:
                      com.apple.security.app-sandbox: true
                      com.apple.security.files.downloads.read-write: true
                      com.apple.security.files.user-selected.read-write: true
                      com.apple.security.temporary-exception.files.absolute-path.read-only: [/opt/]
                    bookmarks:
                      - {path: /Users/alice/P, started: 1, stopped: 2}
                      - {path: /Users/alice/Q, started: 3, stopped: 1}
                      - {path: /Users/alice/R, stale: true, started: 1}
                    tcc: {desktop: granted, downloads: granted}
                expect:
                  - {as: com.example.A, op: read, path: /Users/alice/Downloads/f.txt, result: deny, layer: tcc}
                """, file: "f.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.items.map(\.rendered))")
        let f = Findings.analyze(p)
        let text = f.map { "\($0.code): \($0.message)" }
        func has(_ code: String, _ part: String) -> Bool { text.contains { $0.hasPrefix(code + ":") && $0.contains(part) } }
        #expect(f.allSatisfy { $0.severity == .warning })
        #expect(has("missing-purpose-string", "NSDownloadsFolderUsageDescription") && has("missing-purpose-string", "expectation line"), "\(text)")
        #expect(has("missing-purpose-string", "NSDesktopFolderUsageDescription") && has("missing-purpose-string", "consents name `desktop`"), "\(text)")
        #expect(has("temporary-exception", "`/opt/`"), "\(text)")
        #expect(has("unbalanced-bookmark", "/Users/alice/P of app `com.example.A` is stopped 2 time(s) but started only 1"), "\(text)")
        #expect(has("unbalanced-bookmark", "/Users/alice/Q of app `com.example.A` has 2 starts without a stop"), "\(text)")
        #expect(has("stale-bookmark", "/Users/alice/R"), "\(text)")
        #expect(has("unused-entitlement", "`com.apple.security.files.downloads.read-write` of app `com.example.A` is used only for reading"), "\(text)")
        #expect(has("unused-entitlement", "`com.apple.security.files.user-selected.read-write` of app `com.example.A` is used by no expectation"), "\(text)")
        #expect(has("unused-entitlement", "entry `/opt/`"), "\(text)")
        #expect(f.count == 9, "\(text)")
        // Without expectations for the app, nothing is called unused.
        let q = PolicyLoader.load(
            text: Self.head
                + "apps:\n  com.example.A: {user: alice, entitlements: {com.apple.security.app-sandbox: true, com.apple.security.files.user-selected.read-only: true}}\n",
            file: "q.yaml")
        #expect(Findings.analyze(q).isEmpty)
    }
}
