import Testing
import FSPolicy

// The world for the app tables (SandboxTests.swift): alice's home, with every folder the sandbox
// and TCC care about, all hers and open (0755 / 0644), so that the file system allows alice and
// only the layers in front of it decide. Expected answers come from
// shared/reference/apple-sandbox.md (sections cited per table), never from running the code.

enum SB {
    static let alice: UID = 501
    static let bob: UID = 502
    static let home = "/Users/alice"
    static let id = "com.example.App"
    static let container = "/Users/alice/Library/Containers/com.example.App/Data"
    static let iosData = "/var/mobile/Containers/Data/Application/com.example.App"
    static let iosBundle = "/var/containers/Bundle/Application/com.example.App/App.app"

    static let world: World = build()

    static func build() -> World {
        var w = World()
        w.addGroup(Group(name: "wheel", gid: 0))
        w.addGroup(Group(name: "staff", gid: 20))
        w.addUser(User(name: "root", uid: 0, gid: 0, home: "/var/root"))
        w.addUser(User(name: "alice", uid: alice, gid: 20, home: home))
        w.addUser(User(name: "bob", uid: bob, gid: 20, home: "/Users/bob"))
        var usb = Volume(mountPath: "/Volumes/USB"); usb.kind = .removable
        var nas = Volume(mountPath: "/Volumes/NAS"); nas.kind = .network
        w.setVolume(usb)
        w.setVolume(nas)
        func dir(_ p: String, _ owner: UID = alice, _ mode: UInt16 = 0o755, flags: FileFlags = []) {
            w.addNode(path: p, type: .dir, uid: owner, gid: 20, mode: FileMode(mode), flags: flags)
        }
        func file(_ p: String, _ owner: UID = alice, _ mode: UInt16 = 0o644, flags: FileFlags = []) {
            w.addNode(path: p, type: .file, uid: owner, gid: 20, mode: FileMode(mode), flags: flags)
        }
        dir("/Users", 0)
        dir(home)
        for d in [
            "Desktop", "Documents", "Downloads", "Pictures", "Music", "Movies", "Projects", "Projects/sub", "Archive",
            "Library", "Library/Containers", "Library/Containers/com.example.App", container,
            "Library/Containers/com.other.App", "Library/Containers/com.other.App/Data",
            "Library/Group Containers", "Library/Group Containers/group.g", "Library/Group Containers/group.other",
            "Library/Mobile Documents", "Library/Mobile Documents/iCloud~com~example~App",
            "Library/Mobile Documents/iCloud~com~example~Other"
        ] {
            dir(d.hasPrefix("/") ? d : home + "/" + d)
        }
        for f in [
            "Desktop/f.txt", "Documents/f.txt", "Downloads/f.txt", "Pictures/f.txt", "Music/f.txt", "Movies/f.txt",
            "Projects/f.txt", "Projects/sub/g.txt", "Archive/f.txt", "picked.txt", "notes.txt",
            "Library/Containers/com.other.App/Data/f.txt", "Library/Group Containers/group.g/f.txt",
            "Library/Group Containers/group.other/f.txt", "Library/Mobile Documents/iCloud~com~example~App/f.txt",
            "Library/Mobile Documents/iCloud~com~example~Other/f.txt"
        ] {
            file(home + "/" + f)
        }
        file(container + "/f.txt")
        file(container + "/locked.txt", flags: .userImmutable)
        file(home + "/Documents/bobs.txt", bob, 0o600)
        dir("/Users/bob", bob, 0o700)
        file("/Users/bob/f.txt", bob)
        dir("/usr", 0); dir("/usr/share", 0); file("/usr/share/f.txt", 0)
        dir("/System", 0); dir("/System/Library", 0); file("/System/Library/f.txt", 0)
        dir("/opt", 0); dir("/opt/data"); file("/opt/data/f.txt"); file("/opt/data/g.txt")
        dir("/Volumes", 0); dir("/Volumes/USB"); file("/Volumes/USB/f.txt"); dir("/Volumes/NAS"); file("/Volumes/NAS/f.txt")
        // iOS
        for d in [
            "/var", "/var/mobile", "/var/mobile/Containers", "/var/mobile/Containers/Data",
            "/var/mobile/Containers/Data/Application", "/var/containers", "/var/containers/Bundle",
            "/var/containers/Bundle/Application", "/var/mobile/Containers/Shared", "/var/mobile/Containers/Shared/AppGroup"
        ] {
            dir(d, 0)
        }
        dir(iosData)
        for d in ["Documents", "Library", "tmp"] { dir(iosData + "/" + d); file(iosData + "/" + d + "/f.txt") }
        file(iosData + "/top.txt")
        dir("/var/containers/Bundle/Application/com.example.App")
        dir(iosBundle)
        file(iosBundle + "/App", alice, 0o755)
        dir("/var/mobile/Containers/Data/Application/com.other.App"); dir("/var/mobile/Containers/Data/Application/com.other.App/Documents")
        file("/var/mobile/Containers/Data/Application/com.other.App/Documents/f.txt")
        dir("/var/mobile/Containers/Shared/AppGroup/group.g"); file("/var/mobile/Containers/Shared/AppGroup/group.g/f.txt")
        // Data Protection
        dir("/p")
        for (name, cls) in [
            ("a", ProtectionClass.complete), ("b", .completeUnlessOpen), ("c", .completeUntilFirstUserAuthentication),
            ("d", .none), ("u", .unspecified)
        ] {
            let n = w.addNode(path: "/p/\(name).txt", type: .file, uid: alice, gid: 20, mode: FileMode(0o644))
            w.setProtection(cls, open: false, on: n)
        }
        let zero = w.addNode(path: "/p/zero.txt", type: .file, uid: alice, gid: 20, mode: FileMode(0o000))
        w.setProtection(.complete, open: false, on: zero)
        let bo = w.addNode(path: "/p/bopen.txt", type: .file, uid: alice, gid: 20, mode: FileMode(0o644))
        w.setProtection(.completeUnlessOpen, open: true, on: bo)
        // Directories whose class new files take (D5): /p/dir-a … /p/dir-d, and one below dir-a
        // with no class of its own.
        for (name, cls) in [
            ("a", ProtectionClass.complete), ("b", .completeUnlessOpen), ("c", .completeUntilFirstUserAuthentication),
            ("d", .none)
        ] {
            let n = w.addNode(path: "/p/dir-\(name)", type: .dir, uid: alice, gid: 20, mode: FileMode(0o755))
            w.setProtection(cls, open: false, on: n)
        }
        w.addNode(path: "/p/dir-a/sub", type: .dir, uid: alice, gid: 20, mode: FileMode(0o755))
        return w
    }
}

/// An app with these settings (macOS, sandboxed unless `sandboxed: false`).
func sbApp(
    _ ents: [String: EntitlementValue] = [:], sandboxed: Bool = true, platform: AppPlatform = .macos,
    info: [String: String] = [:], selected: [String] = [], bookmarks: [Bookmark] = [],
    tcc: [TCCService: Consent] = [:], fda: Bool = false, uid: UID = SB.alice
) -> App {
    var e = ents
    if sandboxed && platform == .macos { e[Entitlement.appSandbox] = .bool(true) }
    return App(
        bundleID: SB.id, uid: uid, home: SB.home, platform: platform, entitlements: e, info: info, selected: selected,
        bookmarks: bookmarks, tcc: tcc, fullDiskAccess: fda)
}

/// Entitlement shorthands.
func on(_ keys: String...) -> [String: EntitlementValue] {
    var d: [String: EntitlementValue] = [:]
    for k in keys { d[k] = .bool(true) }
    return d
}

/// One question asked by an app.
struct AppRow: Sendable, CustomTestStringConvertible {
    var label: String
    var app: App
    var op: FSPolicy.Operation
    var path: String
    var to: String?
    var expect: Expect
    /// A rule that must appear in the trace (what let the request through the sandbox or TCC).
    var via: RuleID?
    var device: DeviceState

    init(
        _ label: String, _ app: App, _ op: FSPolicy.Operation, _ path: String, to: String? = nil, device: DeviceState = .unlocked,
        _ expect: Expect, via: RuleID? = nil
    ) {
        self.label = label
        self.app = app
        self.op = op
        self.path = path
        self.to = to
        self.expect = expect
        self.via = via
        self.device = device
    }

    var testDescription: String { "\(label) → \(expect)" }
}

/// Decides an app row (the app is the world's only app) and checks allowed, errno, layer, rule
/// and the `via` rule.
@discardableResult
func check(
    _ row: AppRow, semantics: Semantics = .macos, expect: Expect? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Decision {
    var w = SB.world
    w.apps = [row.app]
    w.device = row.device
    var r = Request(subject: w.subject(app: 0), op: row.op, path: row.path, to: row.to)
    r.app = 0
    let d = Authorizer(world: w, semantics: semantics).decide(r)
    let e = expect ?? row.expect
    let what = "[\(semantics.rawValue)] \(row.label)"
    #expect(d.allowed == e.allowed, "\(what): allowed (\(d.layer.rawValue) \(d.rule.rawValue))", sourceLocation: sourceLocation)
    #expect(d.errno == e.errno, "\(what): errno", sourceLocation: sourceLocation)
    #expect(d.layer == e.layer, "\(what): layer", sourceLocation: sourceLocation)
    #expect(d.rule == e.rule, "\(what): rule is \(d.rule.rawValue)", sourceLocation: sourceLocation)
    if let v = row.via {
        #expect(d.trace.contains { $0.rule == v }, "\(what): trace lacks \(v.rawValue)", sourceLocation: sourceLocation)
    }
    return d
}
