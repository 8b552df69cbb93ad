import Testing
import FSPolicy

// TCC (apple-sandbox.md §3.5) and Data Protection (§3.6). TCC rows use an unsandboxed app, so
// that only TCC stands in front of the file system; Data Protection gates every subject.

private let H = SB.home
private let ownerRead = Expect.allow(.mode, .ownerBitsGrant)

/// The services that gate files, with an item each protects and its purpose-string key.
let tccServices: [(TCCService, String)] = [
    (.desktop, H + "/Desktop/f.txt"),
    (.documents, H + "/Documents/f.txt"),
    (.downloads, H + "/Downloads/f.txt"),
    (.removableVolumes, "/Volumes/USB/f.txt"),
    (.networkVolumes, "/Volumes/NAS/f.txt"),
    (.appData, H + "/Library/Containers/com.other.App/Data/f.txt")
]

/// §3.5: for each service, each consent state, Full Disk Access, implied consent and the
/// purpose string.
let tccRows: [AppRow] = tccServices.flatMap { (service, path) -> [AppRow] in
    let purpose = [service.purposeKey!: "Why the app needs it."]
    let name = service.rawValue
    return [
        AppRow("\(name): granted", sbApp(sandboxed: false, info: purpose, tcc: [service: .granted]), .read, path, ownerRead, via: .tccGranted),
        AppRow("\(name): denied", sbApp(sandboxed: false, info: purpose, tcc: [service: .denied]), .read, path, .deny(.EPERM, .tcc, .tccDenied)),
        AppRow("\(name): not determined (not listed)", sbApp(sandboxed: false, info: purpose), .read, path, .deny(.EPERM, .tcc, .tccNotDetermined)),
        AppRow(
            "\(name): notDetermined", sbApp(sandboxed: false, info: purpose, tcc: [service: .notDetermined]), .write, path,
            .deny(.EPERM, .tcc, .tccNotDetermined)),
        AppRow(
            "\(name): granted, but no purpose string", sbApp(sandboxed: false, tcc: [service: .granted]), .read, path,
            .deny(.EPERM, .tcc, .tccMissingPurposeString)),
        AppRow(
            "\(name): a blank purpose string counts as none", sbApp(sandboxed: false, info: [service.purposeKey!: "  "], tcc: [service: .granted]),
            .read, path, .deny(.EPERM, .tcc, .tccMissingPurposeString)),
        AppRow(
            "\(name): Full Disk Access, no purpose string, consent denied", sbApp(sandboxed: false, tcc: [service: .denied], fda: true),
            .read, path, ownerRead, via: .tccFullDiskAccess),
        AppRow(
            "\(name): the user picked it (implied consent), no purpose string", sbApp(sandboxed: false, selected: [path]),
            .write, path, ownerRead, via: .tccImpliedConsent),
        AppRow(
            "\(name): a bookmark made from a pick (implied consent)", sbApp(sandboxed: false, bookmarks: [Bookmark(path: path)]),
            .read, path, ownerRead, via: .tccImpliedConsent)
    ]
}

/// §3.5: what is and is not gated.
let tccScopeRows: [AppRow] = [
    AppRow(
        "stat of the Desktop folder itself is not gated", sbApp(sandboxed: false), .stat, H + "/Desktop", .allow(.mode, .unmappedGranted), via: .tccNotProtected
    ),
    AppRow(
        "listing the Desktop folder is", sbApp(sandboxed: false, info: ["NSDesktopFolderUsageDescription": "x"]), .list, H + "/Desktop",
        .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow(
        "stat of a file inside it is", sbApp(sandboxed: false, info: ["NSDesktopFolderUsageDescription": "x"]), .stat, H + "/Desktop/f.txt",
        .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow(
        "creating in Documents (granted)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .granted]),
        .create, H + "/Documents/new.txt", ownerRead, via: .tccGranted),
    AppRow(
        "creating in Documents (denied)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .denied]),
        .create, H + "/Documents/new.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow(
        "moving a file into Documents (denied)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .denied]),
        .rename, H + "/notes.txt", to: H + "/Documents/notes.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow("a file in the home is not gated", sbApp(sandboxed: false), .write, H + "/notes.txt", ownerRead, via: .tccNotProtected),
    AppRow("its own container is not another app's data", sbApp(sandboxed: false), .read, SB.container + "/f.txt", ownerRead, via: .tccNotProtected),
    AppRow("Pictures is not gated unless the policy names it", sbApp(sandboxed: false), .read, H + "/Pictures/f.txt", ownerRead, via: .tccNotProtected),
    AppRow("Pictures named and denied", sbApp(sandboxed: false, tcc: [.pictures: .denied]), .read, H + "/Pictures/f.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow(
        "Music named and granted (no purpose string exists for it)", sbApp(sandboxed: false, tcc: [.music: .granted]), .read, H + "/Music/f.txt",
        ownerRead, via: .tccGranted),
    AppRow(
        "Movies named, not determined", sbApp(sandboxed: false, tcc: [.movies: .notDetermined]), .read, H + "/Movies/f.txt",
        .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow(
        "sandboxed too: the sandbox lets Downloads through, TCC is still asked", sbApp(on(Entitlement.downloadsReadOnly)),
        .read, H + "/Downloads/f.txt", .deny(.EPERM, .tcc, .tccMissingPurposeString)),
    AppRow(
        "sandboxed, picked on the Desktop: sandbox and TCC both pass", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Desktop/f.txt"]),
        .write, H + "/Desktop/f.txt", ownerRead, via: .tccImpliedConsent),
    AppRow("iOS apps meet no file TCC", sbApp(platform: .ios), .read, SB.iosData + "/Documents/f.txt", ownerRead)
]

/// §3.6: each class against each device state, for a plain process of alice.
struct ProtectionRow: Sendable, CustomTestStringConvertible {
    var file: String
    var op: FSPolicy.Operation
    var state: DeviceState
    var expect: Expect
    var testDescription: String { "\(op.word) \(file) while \(state.rawValue) → \(expect)" }
    init(_ file: String, _ op: FSPolicy.Operation, _ state: DeviceState, _ expect: Expect) {
        self.file = file; self.op = op; self.state = state; self.expect = expect
    }
    init(_ file: String, _ state: DeviceState, _ expect: Expect) { self.init(file, .read, state, expect) }
}

private let completeLocked = Expect.deny(.EPERM, .protection, .protectionCompleteLocked)
private let unlessOpenLocked = Expect.deny(.EPERM, .protection, .protectionUnlessOpenLocked)
private let beforeFirstUnlock = Expect.deny(.EPERM, .protection, .protectionBeforeFirstUnlock)

let protectionRows: [ProtectionRow] = [
    ProtectionRow("a", .unlocked, ownerRead), ProtectionRow("a", .locked, completeLocked), ProtectionRow("a", .beforeFirstUnlock, completeLocked),
    ProtectionRow("a", .write, .locked, completeLocked), ProtectionRow("a", .append, .locked, completeLocked),
    ProtectionRow("a", .stat, .locked, .allow(.mode, .unmappedGranted)),
    ProtectionRow("a", .delete, .locked, .allow(.mode, .deleteParentWrite)),
    ProtectionRow("b", .unlocked, ownerRead), ProtectionRow("b", .locked, unlessOpenLocked), ProtectionRow("b", .beforeFirstUnlock, unlessOpenLocked),
    ProtectionRow("b", .write, .locked, unlessOpenLocked),
    ProtectionRow("bopen", .unlocked, ownerRead), ProtectionRow("bopen", .locked, ownerRead), ProtectionRow("bopen", .write, .locked, ownerRead),
    ProtectionRow("bopen", .beforeFirstUnlock, unlessOpenLocked),
    ProtectionRow("c", .unlocked, ownerRead), ProtectionRow("c", .locked, ownerRead), ProtectionRow("c", .beforeFirstUnlock, beforeFirstUnlock),
    ProtectionRow("d", .unlocked, ownerRead), ProtectionRow("d", .locked, ownerRead), ProtectionRow("d", .beforeFirstUnlock, ownerRead),
    ProtectionRow("u", .beforeFirstUnlock, ownerRead)
]

/// D5–D7: creating a regular file in a directory of each class, in each device state — one row
/// per cell of docs/sandbox.md's table (the "create" column), for a plain process of alice.
struct CreateRow: Sendable, CustomTestStringConvertible {
    var dir: String
    var state: DeviceState
    var expect: Expect
    var testDescription: String { "create in \(dir) while \(state.rawValue) → \(expect)" }
    init(_ dir: String, _ state: DeviceState, _ expect: Expect) { self.dir = dir; self.state = state; self.expect = expect }
}

private let ownerAdd = Expect.allow(.mode, .ownerBitsGrant)
private let createCompleteLocked = Expect.deny(.EPERM, .protection, .protectionCreateCompleteLocked)
private let createBeforeFirstUnlock = Expect.deny(.EPERM, .protection, .protectionCreateBeforeFirstUnlock)

let createRows: [CreateRow] = [
    CreateRow("dir-a", .unlocked, ownerAdd), CreateRow("dir-a", .locked, createCompleteLocked),
    CreateRow("dir-a", .beforeFirstUnlock, createCompleteLocked),
    CreateRow("dir-b", .unlocked, ownerAdd), CreateRow("dir-b", .locked, ownerAdd), CreateRow("dir-b", .beforeFirstUnlock, ownerAdd),
    CreateRow("dir-c", .unlocked, ownerAdd), CreateRow("dir-c", .locked, ownerAdd),
    CreateRow("dir-c", .beforeFirstUnlock, createBeforeFirstUnlock),
    CreateRow("dir-d", .unlocked, ownerAdd), CreateRow("dir-d", .locked, ownerAdd), CreateRow("dir-d", .beforeFirstUnlock, ownerAdd),
    // No class of its own: the nearest classed directory above it (dir-a) gives the class.
    CreateRow("dir-a/sub", .locked, createCompleteLocked)
]

/// The class a new file of an iOS app gets without a classed directory: the entitlement, else C.
struct AppCreateRow: Sendable, CustomTestStringConvertible {
    var label: String
    var entitlement: String?
    var platform: AppPlatform = .ios
    var dir: String
    var dirClass: ProtectionClass? = nil
    var state: DeviceState
    var expect: Expect
    var testDescription: String { "\(label) → \(expect)" }
}

let appCreateRows: [AppCreateRow] = [
    AppCreateRow(
        label: "iOS default is class C: refused before the first unlock", entitlement: nil,
        dir: SB.iosData + "/Documents", state: .beforeFirstUnlock, expect: createBeforeFirstUnlock),
    AppCreateRow(
        label: "iOS default is class C: allowed while locked", entitlement: nil,
        dir: SB.iosData + "/Documents", state: .locked, expect: ownerAdd),
    AppCreateRow(
        label: "the entitlement says Complete: refused while locked", entitlement: "NSFileProtectionComplete",
        dir: SB.iosData + "/Documents", state: .locked, expect: createCompleteLocked),
    AppCreateRow(
        label: "the entitlement says None: allowed before the first unlock", entitlement: "NSFileProtectionNone",
        dir: SB.iosData + "/Documents", state: .beforeFirstUnlock, expect: ownerAdd),
    AppCreateRow(
        label: "a classed directory beats the entitlement", entitlement: "NSFileProtectionNone",
        dir: SB.iosData + "/Documents", dirClass: .complete, state: .locked, expect: createCompleteLocked),
    AppCreateRow(
        label: "a macOS app has no default class", entitlement: nil, platform: .macos,
        dir: "/p", state: .beforeFirstUnlock, expect: ownerAdd)
]

@Suite("TCC and Data Protection")
struct TCCAndProtectionTests {
    @Test("each service, consent state, Full Disk Access and implied consent", arguments: tccRows)
    func services(_ row: AppRow) { check(row) }

    @Test("what TCC gates", arguments: tccScopeRows)
    func scope(_ row: AppRow) { check(row) }

    @Test("each protection class against each device state", arguments: protectionRows)
    func protection(_ row: ProtectionRow) {
        var w = SB.world
        w.device = row.state
        let d = Authorizer(world: w, semantics: .macos).decide(Request(subject: w.subject(uid: SB.alice), op: row.op, path: "/p/\(row.file).txt"))
        #expect(d.allowed == row.expect.allowed, "\(row)")
        #expect(d.errno == row.expect.errno, "\(row)")
        #expect(d.layer == row.expect.layer, "\(row)")
        #expect(d.rule == row.expect.rule, "\(row): rule \(d.rule.rawValue)")
        let gated = row.file != "u" && [.read, .write, .append].contains(row.op)
        #expect(d.trace.contains { $0.layer == .protection } == gated, "\(row): a protection step only for content of a classed file")
        // The same for an app, and under guide.
        w.apps = [sbApp(sandboxed: false)]
        var r = Request(subject: w.subject(app: 0), op: row.op, path: "/p/\(row.file).txt")
        r.app = 0
        for sem in [Semantics.macos, .guide] {
            let a = Authorizer(world: w, semantics: sem).decide(r)
            if !row.expect.allowed { #expect(a.rule == row.expect.rule, "\(row) as an app under \(sem)") }
        }
    }

    @Test("creating a file: each class against each device state", arguments: createRows)
    func create(_ row: CreateRow) {
        var w = SB.world
        w.device = row.state
        let path = "/p/\(row.dir)/new.txt"
        let d = Authorizer(world: w, semantics: .macos).decide(Request(subject: w.subject(uid: SB.alice), op: .create, path: path))
        #expect(d.allowed == row.expect.allowed, "\(row)")
        #expect(d.errno == row.expect.errno, "\(row)")
        #expect(d.layer == row.expect.layer, "\(row)")
        #expect(d.rule == row.expect.rule, "\(row): rule \(d.rule.rawValue)")
        // Every cell records a protection step naming the new file and its class.
        let steps = d.trace.filter { $0.layer == .protection }
        #expect(steps.count == 1, "\(row): one protection step")
        if case .newFileProtection(_, let p, let cls, let state, let from)? = steps.first?.evidence {
            #expect(p == path)
            #expect(state == row.state)
            #expect(cls == w[w.lookup("/p/" + row.dir.split(separator: "/")[0])!].protection)
            if case .directory(let n) = from {
                #expect(w.path(of: n) == "/p/" + row.dir.split(separator: "/")[0])
            } else {
                Issue.record("\(row): class from \(from)")
            }
        } else {
            Issue.record("\(row): no new-file evidence")
        }
        if row.expect.allowed { #expect(steps.first?.rule == .protectionCreateKeyAvailable, "\(row)") }
        // The same under guide; and mkdir is never gated (a directory has no contents to wrap).
        let g = Authorizer(world: w, semantics: .guide).decide(Request(subject: w.subject(uid: SB.alice), op: .create, path: path))
        #expect(g.allowed == row.expect.allowed && g.rule == row.expect.rule, "\(row) under guide: \(g.rule.rawValue)")
        let m = Authorizer(world: w, semantics: .macos).decide(Request(subject: w.subject(uid: SB.alice), op: .mkdir, path: path))
        #expect(m.allowed, "\(row): mkdir")
        #expect(!m.trace.contains { $0.layer == .protection }, "\(row): mkdir has no protection step")
        // linux has no Data Protection.
        let l = Authorizer(world: w, semantics: .linux).decide(Request(subject: w.subject(uid: SB.alice), op: .create, path: path))
        #expect(l.allowed && !l.trace.contains { $0.layer == .protection }, "\(row) under linux")
    }

    @Test("the class an iOS app's new file gets", arguments: appCreateRows)
    func appCreate(_ row: AppCreateRow) {
        var w = SB.world
        w.device = row.state
        var ents: [String: EntitlementValue] = [:]
        if let e = row.entitlement { ents[Entitlement.defaultDataProtection] = .string(e) }
        w.apps = [sbApp(ents, sandboxed: false, platform: row.platform, uid: SB.alice)]
        if let c = row.dirClass { w.setProtection(c, open: false, on: w.lookup(row.dir)!) }
        var r = Request(subject: w.subject(app: 0), op: .create, path: row.dir + "/new.txt")
        r.app = 0
        let d = Authorizer(world: w, semantics: .macos).decide(r)
        #expect(d.allowed == row.expect.allowed && d.rule == row.expect.rule, "\(row): \(d.rule.rawValue)")
    }

    @Test("a file created by a step keeps the class it was created with")
    func stepCreatesClassedFile() {
        var w = SB.world
        let r = Request(subject: w.subject(uid: SB.alice), op: .create, path: "/p/dir-c/made.txt")
        let out = Mutator.apply(r, to: &w, semantics: .macos)
        #expect(out.applied)
        #expect(w[out.created!].protection == .completeUntilFirstUserAuthentication)
        w.device = .beforeFirstUnlock
        let d = Authorizer(world: w, semantics: .macos).decide(Request(subject: w.subject(uid: SB.alice), op: .read, path: "/p/dir-c/made.txt"))
        #expect(!d.allowed && d.rule == .protectionBeforeFirstUnlock)
        // A file made in an unclassed directory by a user has no class.
        let u = Mutator.apply(Request(subject: w.subject(uid: SB.alice), op: .create, path: "/p/plain.txt"), to: &w, semantics: .macos)
        #expect(w[u.created!].protection == .unspecified)
    }

    @Test("linux has no Data Protection")
    func linux() {
        var w = SB.world
        w.device = .locked
        let d = Authorizer(world: w, semantics: .linux).decide(Request(subject: w.subject(uid: SB.alice), op: .read, path: "/p/a.txt"))
        #expect(d.allowed)
    }
}
