import Testing
import FSPolicy

// The App Sandbox (apple-sandbox.md §3.1–3.4, §3.7): subtractive — where it lets a request
// through, the file system still decides (alice owns everything here, so the mode bits allow);
// where it refuses, EPERM in layer `sandbox`.

private let C = SB.container
private let H = SB.home
private let ownerRead = Expect.allow(.mode, .ownerBitsGrant)
private let outside = Expect.deny(.EPERM, .sandbox, .sandboxOutside)
private let lookupDenied = Expect.deny(.EPERM, .sandbox, .sandboxLookupDenied)
private let readOnly = Expect.deny(.EPERM, .sandbox, .sandboxReadOnly)
/// Downloads is also a TCC folder: consent and purpose string given, so only the sandbox decides.
private let downloadsConsent: [TCCService: Consent] = [.downloads: .granted]
private let downloadsInfo = ["NSDownloadsFolderUsageDescription": "Saves what you download."]

/// §3.2, §3.3: the container is the app's; everything else is out of reach until granted.
let containerRows: [AppRow] = [
    AppRow("reads a file in its container", sbApp(), .read, C + "/f.txt", ownerRead, via: .sandboxContainer),
    AppRow("writes a file in its container", sbApp(), .write, C + "/f.txt", ownerRead, via: .sandboxContainer),
    AppRow("creates a file in its container", sbApp(), .create, C + "/new.txt", ownerRead, via: .sandboxContainer),
    AppRow("makes a directory in its container", sbApp(), .mkdir, C + "/newdir", ownerRead, via: .sandboxContainer),
    AppRow("deletes a file in its container", sbApp(), .delete, C + "/f.txt", .allow(.mode, .deleteParentWrite), via: .sandboxContainer),
    AppRow("lists its container", sbApp(), .list, C, ownerRead, via: .sandboxContainer),
    AppRow("renames inside its container", sbApp(), .rename, C + "/f.txt", to: C + "/g.txt", .allow(.mode, .ownerBitsGrant), via: .sandboxContainer),
    AppRow(
        "writes a uchg file in its container: the sandbox passes, the flag refuses", sbApp(), .write, C + "/locked.txt",
        .deny(.EPERM, .flags, .immutable), via: .sandboxContainer),
    AppRow("reads another app's container", sbApp(), .read, H + "/Library/Containers/com.other.App/Data/f.txt", lookupDenied),
    AppRow("reads a file in its home", sbApp(), .read, H + "/notes.txt", outside),
    AppRow("lists its home", sbApp(), .list, H, outside),
    AppRow("stats its home, which leads to the container", sbApp(), .stat, H, .allow(.mode, .unmappedGranted), via: .sandboxLookup),
    AppRow("reads a file on the Desktop: lookup in the Desktop is refused", sbApp(), .read, H + "/Desktop/f.txt", lookupDenied),
    AppRow("creates a file in its home", sbApp(), .create, H + "/new.txt", outside),
    AppRow("moves a container file to its home", sbApp(), .rename, C + "/f.txt", to: H + "/moved.txt", outside)
]

/// §3.1: each file-access entitlement, its read-only and read-write forms.
let entitlementRows: [AppRow] = [
    // user-selected
    AppRow(
        "user-selected.read-only: reads a picked file", sbApp(on(Entitlement.userSelectedReadOnly), selected: [H + "/picked.txt"]),
        .read, H + "/picked.txt", ownerRead, via: .sandboxUserSelected),
    AppRow(
        "user-selected.read-only: writes a picked file", sbApp(on(Entitlement.userSelectedReadOnly), selected: [H + "/picked.txt"]),
        .write, H + "/picked.txt", readOnly),
    AppRow(
        "user-selected.read-write: writes a picked file", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/picked.txt"]),
        .write, H + "/picked.txt", ownerRead, via: .sandboxUserSelected),
    AppRow(
        "no user-selected entitlement: a picked file stays out of reach", sbApp(selected: [H + "/picked.txt"]),
        .read, H + "/picked.txt", .deny(.EPERM, .sandbox, .sandboxSelectedNeedsEntitlement)),
    AppRow(
        "a picked folder: a file two levels below", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Projects"]),
        .read, H + "/Projects/sub/g.txt", ownerRead, via: .sandboxUserSelected),
    AppRow(
        "a picked folder: creating in it", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Projects"]),
        .create, H + "/Projects/new.txt", ownerRead, via: .sandboxUserSelected),
    AppRow(
        "a picked file does not open its siblings' subfolders", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Projects/f.txt"]),
        .read, H + "/Projects/sub/g.txt", lookupDenied),
    AppRow(
        "a picked file does not open its folder for listing", sbApp(on(Entitlement.userSelectedReadWrite), selected: [H + "/Projects/f.txt"]),
        .list, H + "/Projects", outside),
    AppRow(
        "user-selected.executable alone grants nothing", sbApp(on(Entitlement.userSelectedExecutable), selected: [H + "/picked.txt"]),
        .read, H + "/picked.txt", .deny(.EPERM, .sandbox, .sandboxSelectedNeedsEntitlement)),
    // standard folders
    AppRow(
        "downloads.read-only: reads", sbApp(on(Entitlement.downloadsReadOnly), info: downloadsInfo, tcc: downloadsConsent),
        .read, H + "/Downloads/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow(
        "downloads.read-only: writes", sbApp(on(Entitlement.downloadsReadOnly), info: downloadsInfo, tcc: downloadsConsent),
        .write, H + "/Downloads/f.txt", readOnly),
    AppRow(
        "downloads.read-write: writes", sbApp(on(Entitlement.downloadsReadWrite), info: downloadsInfo, tcc: downloadsConsent),
        .write, H + "/Downloads/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow(
        "downloads.read-only and .read-write: the wider wins",
        sbApp(
            on(Entitlement.downloadsReadOnly, Entitlement.downloadsReadWrite),
            info: downloadsInfo, tcc: downloadsConsent), .create, H + "/Downloads/new.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow("pictures.read-only: reads", sbApp(on(Entitlement.picturesReadOnly)), .read, H + "/Pictures/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow("pictures.read-only: writes", sbApp(on(Entitlement.picturesReadOnly)), .write, H + "/Pictures/f.txt", readOnly),
    AppRow("pictures.read-write: writes", sbApp(on(Entitlement.picturesReadWrite)), .write, H + "/Pictures/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow("music.read-only: reads", sbApp(on(Entitlement.musicReadOnly)), .read, H + "/Music/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow(
        "music.read-write: deletes", sbApp(on(Entitlement.musicReadWrite)), .delete, H + "/Music/f.txt", .allow(.mode, .deleteParentWrite),
        via: .sandboxStandardFolder),
    AppRow("movies.read-only: lists", sbApp(on(Entitlement.moviesReadOnly)), .list, H + "/Movies", ownerRead, via: .sandboxStandardFolder),
    AppRow("movies.read-write: writes", sbApp(on(Entitlement.moviesReadWrite)), .write, H + "/Movies/f.txt", ownerRead, via: .sandboxStandardFolder),
    AppRow("the Music entitlement does not open Movies", sbApp(on(Entitlement.musicReadWrite)), .read, H + "/Movies/f.txt", lookupDenied),
    // temporary exceptions
    AppRow(
        "absolute-path.read-only directory entry: reads inside", sbApp([Entitlement.absolutePathReadOnly: .strings(["/opt/data/"])]),
        .read, "/opt/data/f.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "absolute-path.read-only directory entry: writes inside", sbApp([Entitlement.absolutePathReadOnly: .strings(["/opt/data/"])]),
        .write, "/opt/data/f.txt", readOnly),
    AppRow(
        "absolute-path.read-write directory entry: writes inside", sbApp([Entitlement.absolutePathReadWrite: .strings(["/opt/data/"])]),
        .write, "/opt/data/f.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "absolute-path file entry (a string): that file", sbApp([Entitlement.absolutePathReadOnly: .string("/opt/data/f.txt")]),
        .read, "/opt/data/f.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "absolute-path file entry: not its sibling", sbApp([Entitlement.absolutePathReadOnly: .string("/opt/data/f.txt")]),
        .read, "/opt/data/g.txt", outside),
    AppRow(
        "an entry without the trailing / is the directory only, not its files", sbApp([Entitlement.absolutePathReadOnly: .strings(["/opt/data"])]),
        .read, "/opt/data/f.txt", outside),
    AppRow(
        "an entry without the trailing /: the directory itself", sbApp([Entitlement.absolutePathReadOnly: .strings(["/opt/data"])]),
        .list, "/opt/data", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "home-relative-path.read-write file entry: writes it", sbApp([Entitlement.homeRelativeReadWrite: .strings(["/notes.txt"])]),
        .write, H + "/notes.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "home-relative-path.read-only directory entry: deep inside", sbApp([Entitlement.homeRelativeReadOnly: .strings(["/Projects/"])]),
        .read, H + "/Projects/sub/g.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "home-relative-path.read-only: writes", sbApp([Entitlement.homeRelativeReadOnly: .strings(["/Projects/"])]),
        .write, H + "/Projects/f.txt", readOnly),
    AppRow(
        "home-relative file entry: creating exactly that name", sbApp([Entitlement.homeRelativeReadWrite: .strings(["/new.txt"])]),
        .create, H + "/new.txt", ownerRead, via: .sandboxTemporaryException),
    AppRow(
        "home-relative file entry: creating another name", sbApp([Entitlement.homeRelativeReadWrite: .strings(["/new.txt"])]),
        .create, H + "/other.txt", outside),
    // app groups and iCloud
    AppRow(
        "application-groups: writes in a listed group's container", sbApp([Entitlement.applicationGroups: .strings(["group.g"])]),
        .write, H + "/Library/Group Containers/group.g/f.txt", ownerRead, via: .sandboxAppGroup),
    AppRow(
        "application-groups: an unlisted group", sbApp([Entitlement.applicationGroups: .strings(["group.g"])]),
        .read, H + "/Library/Group Containers/group.other/f.txt", lookupDenied),
    AppRow(
        "ubiquity-container-identifiers: writes in a listed iCloud container",
        sbApp([Entitlement.ubiquityContainers: .strings(["iCloud.com.example.App"])]),
        .write, H + "/Library/Mobile Documents/iCloud~com~example~App/f.txt", ownerRead, via: .sandboxUbiquity),
    AppRow(
        "ubiquity-container-identifiers: an unlisted iCloud container",
        sbApp([Entitlement.ubiquityContainers: .strings(["iCloud.com.example.App"])]),
        .read, H + "/Library/Mobile Documents/iCloud~com~example~Other/f.txt", .deny(.EPERM, .sandbox, .sandboxUbiquityNotListed)),
    AppRow(
        "icloud-container-identifiers (CloudKit) opens no folder",
        sbApp([Entitlement.iCloudContainers: .strings(["iCloud.com.example.App"])]),
        .read, H + "/Library/Mobile Documents/iCloud~com~example~App/f.txt", .deny(.EPERM, .sandbox, .sandboxUbiquityNotListed)),
    // system locations
    AppRow("reads /usr/share", sbApp(), .read, "/usr/share/f.txt", .allow(.mode, .groupBitsGrant), via: .sandboxSystemLocation),
    AppRow("reads /System", sbApp(), .read, "/System/Library/f.txt", .allow(.mode, .groupBitsGrant), via: .sandboxSystemLocation),
    AppRow("writes /usr/share", sbApp(), .write, "/usr/share/f.txt", readOnly),
    AppRow("reads /opt (not a system location)", sbApp(), .read, "/opt/data/f.txt", lookupDenied),
    // not sandboxed
    AppRow("no app-sandbox entitlement: no sandbox", sbApp(sandboxed: false), .write, H + "/notes.txt", ownerRead, via: .sandboxNotSandboxed),
    AppRow(
        "app-sandbox false: no sandbox", sbApp([Entitlement.appSandbox: .bool(false)], sandboxed: false), .read, "/opt/data/f.txt",
        ownerRead, via: .sandboxNotSandboxed)
]

/// §3.4: security-scoped bookmarks: a scope entitlement, and access only while started > stopped.
let bookmarkRows: [AppRow] = [
    AppRow(
        "app scope, started once: reads", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", started: 1)]),
        .read, H + "/Projects/sub/g.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "app scope, started once: writes", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", started: 1)]),
        .write, H + "/Projects/f.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "a read-only bookmark: writes", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", readOnly: true, started: 1)]),
        .write, H + "/Projects/f.txt", readOnly),
    AppRow(
        "started twice, stopped once: still accessing",
        sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", started: 2, stopped: 1)]),
        .read, H + "/Projects/f.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "started twice, stopped twice: nothing", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", started: 2, stopped: 2)]),
        .read, H + "/Projects/f.txt", .deny(.EPERM, .sandbox, .sandboxBookmarkNotStarted)),
    AppRow(
        "resolved but never started: nothing", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects")]),
        .read, H + "/Projects/f.txt", .deny(.EPERM, .sandbox, .sandboxBookmarkNotStarted)),
    AppRow(
        "stopped more often than started: nothing",
        sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", started: 1, stopped: 3)]),
        .read, H + "/Projects/f.txt", .deny(.EPERM, .sandbox, .sandboxBookmarkNotStarted)),
    AppRow(
        "app scope without its entitlement", sbApp(bookmarks: [Bookmark(path: H + "/Projects", started: 1)]),
        .read, H + "/Projects/f.txt", .deny(.EPERM, .sandbox, .sandboxBookmarkNeedsEntitlement)),
    AppRow(
        "document scope with the document-scope entitlement",
        sbApp(
            on(Entitlement.bookmarksDocumentScope),
            bookmarks: [Bookmark(path: H + "/Projects", scope: .document, started: 1)]), .read, H + "/Projects/f.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "document scope with only the app-scope entitlement",
        sbApp(
            on(Entitlement.bookmarksAppScope),
            bookmarks: [Bookmark(path: H + "/Projects", scope: .document, started: 1)]), .read, H + "/Projects/f.txt",
        .deny(.EPERM, .sandbox, .sandboxBookmarkNeedsEntitlement)),
    AppRow(
        "a stale bookmark still resolves", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Projects", stale: true, started: 1)]),
        .read, H + "/Projects/f.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "a bookmark to a file: that file", sbApp(on(Entitlement.bookmarksAppScope), bookmarks: [Bookmark(path: H + "/Archive/f.txt", started: 1)]),
        .write, H + "/Archive/f.txt", ownerRead, via: .sandboxBookmark)
]

/// §3.2 (iOS): the data container (Documents, Library, tmp writable), the bundle read-only,
/// nothing else but picked items; no entitlement needed for the picker or for bookmarks.
let iosRows: [AppRow] = [
    AppRow("iOS: writes in Documents", sbApp(platform: .ios), .write, SB.iosData + "/Documents/f.txt", ownerRead, via: .sandboxContainer),
    AppRow("iOS: writes in Library", sbApp(platform: .ios), .write, SB.iosData + "/Library/f.txt", ownerRead, via: .sandboxContainer),
    AppRow("iOS: creates in tmp", sbApp(platform: .ios), .create, SB.iosData + "/tmp/new.txt", ownerRead, via: .sandboxContainer),
    AppRow("iOS: reads the container's top level", sbApp(platform: .ios), .read, SB.iosData + "/top.txt", ownerRead, via: .sandboxContainer),
    AppRow("iOS: writes the container's top level", sbApp(platform: .ios), .write, SB.iosData + "/top.txt", readOnly),
    AppRow("iOS: runs its bundle's executable", sbApp(platform: .ios), .execute, SB.iosBundle + "/App", ownerRead, via: .sandboxContainer),
    AppRow("iOS: writes its bundle", sbApp(platform: .ios), .write, SB.iosBundle + "/App", readOnly),
    AppRow("iOS: another app's container", sbApp(platform: .ios), .read, "/var/mobile/Containers/Data/Application/com.other.App/Documents/f.txt", lookupDenied),
    AppRow(
        "iOS: a picked file, without any entitlement", sbApp(platform: .ios, selected: [H + "/picked.txt"]), .write, H + "/picked.txt",
        ownerRead, via: .sandboxUserSelected),
    AppRow(
        "iOS: a started bookmark, without any entitlement", sbApp(platform: .ios, bookmarks: [Bookmark(path: H + "/Projects", started: 1)]),
        .read, H + "/Projects/f.txt", ownerRead, via: .sandboxBookmark),
    AppRow(
        "iOS: a bookmark not started", sbApp(platform: .ios, bookmarks: [Bookmark(path: H + "/Projects")]),
        .read, H + "/Projects/f.txt", .deny(.EPERM, .sandbox, .sandboxBookmarkNotStarted)),
    AppRow(
        "iOS: an app group", sbApp([Entitlement.applicationGroups: .strings(["group.g"])], platform: .ios), .write,
        "/var/mobile/Containers/Shared/AppGroup/group.g/f.txt", ownerRead, via: .sandboxAppGroup),
    AppRow("iOS: no system location by default", sbApp(platform: .ios), .read, "/usr/share/f.txt", lookupDenied),
    AppRow("iOS: no TCC for files (Desktop is just outside)", sbApp(platform: .ios), .read, H + "/Desktop/f.txt", lookupDenied)
]

/// §3.3, macos-semantics §2.0: where the sandbox stands among the other layers.
let orderRows: [AppRow] = [
    AppRow("a root-run sandboxed app is still sandboxed", sbApp(uid: 0), .write, "/usr/share/f.txt", readOnly),
    AppRow("outside the sandbox and Desktop consent missing: the sandbox answers first", sbApp(), .read, H + "/Desktop/f.txt", lookupDenied),
    AppRow(
        "unsandboxed, Documents denied, bob's 0600 file: TCC answers before the mode bits",
        sbApp(sandboxed: false, info: ["NSDocumentsFolderUsageDescription": "x"], tcc: [.documents: .denied]),
        .read, H + "/Documents/bobs.txt", .deny(.EPERM, .tcc, .tccDenied)),
    AppRow(
        "a class-A file with mode 0000, device locked: Data Protection answers before the mode bits", sbApp(sandboxed: false),
        .read, "/p/zero.txt", device: .locked, .deny(.EPERM, .protection, .protectionCompleteLocked)),
    AppRow(
        "a class-A file with mode 0000, unlocked: the mode bits refuse", sbApp(sandboxed: false),
        .read, "/p/zero.txt", .deny(.EACCES, .mode, .ownerBitsMissing), via: .protectionAvailable)
]

@Suite("App Sandbox")
struct SandboxTests {
    @Test("the container", arguments: containerRows)
    func container(_ row: AppRow) { check(row) }

    @Test("each file-access entitlement", arguments: entitlementRows)
    func entitlements(_ row: AppRow) { check(row) }

    @Test("security-scoped bookmarks", arguments: bookmarkRows)
    func bookmarks(_ row: AppRow) { check(row) }

    @Test("iOS containers", arguments: iosRows)
    func ios(_ row: AppRow) { check(row) }

    @Test("the order of the layers", arguments: orderRows)
    func order(_ row: AppRow) { check(row) }

    @Test("the same tables under guide, where the sandbox comes first", arguments: containerRows + entitlementRows + bookmarkRows)
    func guide(_ row: AppRow) { check(row, semantics: .guide) }

    @Test("path lookup: macos checks the DAC search first, guide the sandbox first")
    func lookupOrder() {
        let row = AppRow("reads a file in bob's 0700 home", sbApp(), .read, "/Users/bob/f.txt", .deny(.EACCES, .traversal, .searchDenied))
        check(row)
        check(row, semantics: .guide, expect: .deny(.EPERM, .sandbox, .sandboxLookupDenied))
    }

    @Test("under linux an app is its user, and the decision says so")
    func linux() {
        let d = check(
            AppRow("reads outside the sandbox", sbApp(), .read, H + "/notes.txt", ownerRead), semantics: .linux,
            expect: .allow(.mode, .ownerBitsGrant))
        #expect(d.notes.contains { $0.contains("decided as its user") })
        #expect(!d.trace.contains { $0.layer == .sandbox || $0.layer == .tcc })
    }

    @Test("a denial names what would have allowed it")
    func wouldAllow() {
        let d = check(
            AppRow(
                "writes Downloads read-only", sbApp(on(Entitlement.downloadsReadOnly), info: downloadsInfo, tcc: downloadsConsent),
                .write, H + "/Downloads/f.txt", readOnly))
        guard case .app(_, let f) = d.evidence else { Issue.record("evidence is \(d.evidence)"); return }
        #expect(f.wouldAllow.first == "`\(Entitlement.downloadsReadWrite)`")
        let o = check(AppRow("reads Pictures", sbApp(), .read, H + "/Pictures/f.txt", lookupDenied))
        guard case .app(_, let g) = o.evidence else { Issue.record("evidence is \(o.evidence)"); return }
        #expect(g.wouldAllow.contains("`\(Entitlement.picturesReadOnly)`"))
        #expect(g.wouldAllow.contains { $0.contains("Open or Save panel") })
        #expect(g.wouldAllow.contains { $0.contains("`/Pictures/f.txt`") && $0.contains("home-relative-path.read-only") })
        let t = check(AppRow("writes /opt", sbApp(), .write, "/opt/data/f.txt", lookupDenied))
        guard case .app(_, let h) = t.evidence else { return }
        #expect(h.wouldAllow.contains { $0.contains("`/opt/data/f.txt`") && $0.contains("absolute-path.read-write") })
    }

    @Test("app defaults: macOS and iOS containers, iCloud folders")
    func defaults() {
        let mac = App(bundleID: "com.example.Notes", uid: 501, home: "/Users/alice")
        #expect(mac.container == "/Users/alice/Library/Containers/com.example.Notes/Data")
        #expect(!mac.isSandboxed)
        #expect(mac.ubiquityPath("iCloud.com.example.Notes") == "/Users/alice/Library/Mobile Documents/iCloud~com~example~Notes")
        #expect(App.ubiquityID(folder: "iCloud~com~example~Notes") == "iCloud.com.example.Notes")
        let ios = App(bundleID: "com.example.Notes", uid: 501, home: "/var/mobile", platform: .ios)
        #expect(ios.isSandboxed)
        #expect(ios.container == "/var/mobile/Containers/Data/Application/com.example.Notes")
        #expect(ios.bundle == "/var/containers/Bundle/Application/com.example.Notes/Notes.app")
        #expect(App.isWithin("/a/b", "/a") && App.isWithin("/a", "/a") && !App.isWithin("/ab", "/a") && App.isWithin("/x", "/"))
    }

    @Test("an app's umask replaces its user's")
    func umask() {
        var w = SB.world
        var a = sbApp()
        a.umask = 0o077
        w.apps = [a]
        #expect(w.subject(app: 0).umask == 0o077)
        #expect(w.subject(app: 0).uid == SB.alice)
    }
}
