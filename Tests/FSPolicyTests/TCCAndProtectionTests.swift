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
    (.appData, H + "/Library/Containers/com.other.App/Data/f.txt"),
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
        AppRow("\(name): notDetermined", sbApp(sandboxed: false, info: purpose, tcc: [service: .notDetermined]), .write, path,
               .deny(.EPERM, .tcc, .tccNotDetermined)),
        AppRow("\(name): granted, but no purpose string", sbApp(sandboxed: false, tcc: [service: .granted]), .read, path,
               .deny(.EPERM, .tcc, .tccMissingPurposeString)),
        AppRow("\(name): a blank purpose string counts as none", sbApp(sandboxed: false, info: [service.purposeKey!: "  "], tcc: [service: .granted]),
               .read, path, .deny(.EPERM, .tcc, .tccMissingPurposeString)),
        AppRow("\(name): Full Disk Access, no purpose string, consent denied", sbApp(sandboxed: false, tcc: [service: .denied], fda: true),
               .read, path, ownerRead, via: .tccFullDiskAccess),
        AppRow("\(name): the user picked it (implied consent), no purpose string", sbApp(sandboxed: false, selected: [path]),
               .write, path, ownerRead, via: .tccImpliedConsent),
        AppRow("\(name): a bookmark made from a pick (implied consent)", sbApp(sandboxed: false, bookmarks: [Bookmark(path: path)]),
               .read, path, ownerRead, via: .tccImpliedConsent),
    ]
}

/// §3.5: what is and is not gated.
let tccScopeRows: [AppRow] = [
    AppRow("stat of the Desktop folder itself is not gated", sbApp(sandboxed: false), .stat, H + "/Desktop", .allow(.mode, .unmappedGranted), via: .tccNotProtected),
    AppRow("listing the Desktop folder is", sbApp(sandboxed: false, info: ["NSDesktopFolderUsageDescription": "x"]), .list, H + "/Desktop",
           .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow("stat of a file inside it is", sbApp(sandboxed: false, info: ["NSDesktopFolderUsageDescription": "x"]), .stat, H + "/Desktop/f.txt",
           .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow("creating in Documents (granted)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .granted]),
           .create, H + "/Documents/new.txt", ownerRead, via: .tccGranted),
    AppRow("creating in Documents (denied)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .denied]),
           .create, H + "/Documents/new.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow("moving a file into Documents (denied)", sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .denied]),
           .rename, H + "/notes.txt", to: H + "/Documents/notes.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow("a file in the home is not gated", sbApp(sandboxed: false), .write, H + "/notes.txt", ownerRead, via: .tccNotProtected),
    AppRow("its own container is not another app's data", sbApp(sandboxed: false), .read, SB.container + "/f.txt", ownerRead, via: .tccNotProtected),
    AppRow("Pictures is not gated unless the policy names it", sbApp(sandboxed: false), .read, H + "/Pictures/f.txt", ownerRead, via: .tccNotProtected),
    AppRow("Pictures named and denied", sbApp(sandboxed: false, tcc: [.pictures: .denied]), .read, H + "/Pictures/f.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow("Music named and granted (no purpose string exists for it)", sbApp(sandboxed: false, tcc: [.music: .granted]), .read, H + "/Music/f.txt",
           ownerRead, via: .tccGranted),
    AppRow("Movies named, not determined", sbApp(sandboxed: false, tcc: [.movies: .notDetermined]), .read, H + "/Movies/f.txt",
           .deny(.EPERM, .tcc, .tccNotDetermined)),
    AppRow("sandboxed too: the sandbox lets Downloads through, TCC is still asked", sbApp(on(Entitlement.downloadsReadOnly)),
           .read, H + "/Downloads/f.txt", .deny(.EPERM, .tcc, .tccMissingPurposeString)),
    AppRow("sandboxed, picked on the Desktop: sandbox and TCC both pass", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Desktop/f.txt"]),
           .write, H + "/Desktop/f.txt", ownerRead, via: .tccImpliedConsent),
    AppRow("iOS apps meet no file TCC", sbApp(platform: .ios), .read, SB.iosData + "/Documents/f.txt", ownerRead),
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
    ProtectionRow("u", .beforeFirstUnlock, ownerRead),
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

    @Test("linux has no Data Protection")
    func linux() {
        var w = SB.world
        w.device = .locked
        let d = Authorizer(world: w, semantics: .linux).decide(Request(subject: w.subject(uid: SB.alice), op: .read, path: "/p/a.txt"))
        #expect(d.allowed)
    }
}
