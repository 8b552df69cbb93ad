import Testing
import FSPolicy

// The keychain rules (docs/keychain.md, K1–K21) as tables: each row is a cell of the
// reference's tables, written out by hand, so the engine is held to the sources and not to
// itself.

let team = "ABCDE12345"
let shared = "\(team).com.example.shared"

func kcApp(
    _ id: String = "com.example.App", groups: [String]? = [shared], appGroups: [String] = [], team t: String? = team,
    platform: AppPlatform = .ios, provisioned: Bool = true
) -> KeychainApp {
    var e: [String: EntitlementValue] = [:]
    if let groups { e[KeychainApp.accessGroupsKey] = .strings(groups) }
    if !appGroups.isEmpty { e[Entitlement.applicationGroups] = .strings(appGroups) }
    return KeychainApp(bundleID: id, platform: platform, team: t, provisioned: provisioned, entitlements: e)
}

func genp(
    _ id: Int, s: String = "svc", a: String = "acct", group: String = shared, _ pdmn: KeychainAccessibility = .whenUnlocked,
    sync: Bool = false, ac: KeychainAccessControl? = nil
) -> KeychainItem {
    KeychainItem(id: id, cls: .genp, attributes: ["svce": s, "acct": a], group: group, accessible: pdmn, synchronizable: sync, accessControl: ac)
}

func q(
    _ call: KeychainCall, app: String = "com.example.App", s: String? = "svc", a: String? = "acct", group: String? = nil,
    _ body: (inout KeychainQuery) -> Void = { _ in }
) -> KeychainQuery {
    var x = KeychainQuery(app: app, call: call, cls: .genp)
    if let s { x.attributes["svce"] = s }
    if let a { x.attributes["acct"] = a }
    x.group = group
    body(&x)
    return x
}

func kcState(_ items: [KeychainItem], lock: DeviceState = .unlocked, passcode: Bool = true, biometry: Bool = true) -> KeychainState {
    KeychainState(device: KeychainDevice(lock: lock, passcode: passcode, biometryEnrolled: biometry), items: items)
}

@Suite("Keychain: accessibility × device state (K6, K7, K8)")
struct KeychainAccessibilityTests {
    /// The reference's table: Locked and Before-first-unlock columns (ok or −25308); unlocked is always ok.
    static let table: [(KeychainAccessibility, locked: Bool, beforeFirstUnlock: Bool)] = [
        (.whenUnlocked, false, false), (.whenUnlockedThisDeviceOnly, false, false), (.whenPasscodeSetThisDeviceOnly, false, false),
        (.afterFirstUnlock, true, false), (.afterFirstUnlockThisDeviceOnly, true, false),
        (.always, true, true), (.alwaysThisDeviceOnly, true, true)
    ]

    @Test("CopyMatching and Add in each state", arguments: table.map { $0.0 })
    func copyAndAdd(_ pdmn: KeychainAccessibility) {
        let row = Self.table.first { $0.0 == pdmn }!
        for (state, ok) in [(DeviceState.unlocked, true), (.locked, row.locked), (.beforeFirstUnlock, row.beforeFirstUnlock)] {
            let s = kcState([genp(1, pdmn)], lock: state)
            let read = s.decide(q(.copy), app: kcApp())
            #expect(read.status == (ok ? .success : .interactionNotAllowed), "\(pdmn) copy \(state)")
            #expect(read.rule == (ok ? .keychainMatched : .keychainKeyLocked))
            let add = kcState([], lock: state).decide(q(.add) { $0.accessible = pdmn }, app: kcApp())
            #expect(add.status == (ok ? .success : .interactionNotAllowed), "\(pdmn) add \(state)")
            // Attributes-only reads are refused too: class A metadata keys are dropped at lock.
            let attrs = s.decide(q(.copy) { $0.attributesOnly = true }, app: kcApp())
            #expect(attrs.status == read.status)
        }
    }

    @Test("the defaults: whenUnlocked, certificates always; the pdmn codes")
    func defaults() {
        #expect(KeychainAccessibility.default(for: .genp) == .whenUnlocked)
        #expect(KeychainAccessibility.default(for: .cert) == .always)
        #expect(KeychainAccessibility.allCases.map(\.code) == ["ak", "aku", "akpu", "ck", "cku", "dk", "dku"])
    }

    @Test("the first locked row stops the call even when a later row is readable")
    func firstLockedRowAborts() {
        let s = kcState([genp(1, a: "x", .whenUnlocked), genp(2, a: "y", .always)], lock: .locked)
        let a = s.decide(q(.copy, a: nil) { $0.limitAll = true }, app: kcApp())
        #expect(a.status == .interactionNotAllowed)
        let b = kcState([genp(1, a: "y", .always), genp(2, a: "x", .whenUnlocked)], lock: .locked).decide(q(.copy, a: nil), app: kcApp())
        #expect(b.status == .success && b.items.map(\.id) == [1], "limit one stops before the locked row")
    }

    @Test("no match while locked is −25300, flagged as an assumption")
    func noMatchLocked() {
        let a = kcState([genp(1)], lock: .locked).decide(q(.copy, s: "other"), app: kcApp())
        #expect(a.status == .itemNotFound)
        #expect(a.assumptions.contains { $0.contains("noMatchWhileLockedNotFound") })
    }

    @Test("whenPasscodeSetThisDeviceOnly without a passcode: Add −25293; removing the passcode deletes such items")
    func passcodeSet() {
        var flags = KeychainAssumptions()
        flags.noPasscodeUnlocked = true
        let add = kcState([], passcode: false).decide(q(.add) { $0.accessible = .whenPasscodeSetThisDeviceOnly }, app: kcApp())
        #expect(add.status == .authFailed && add.rule == .keychainPasscodeRequired)
        var s = kcState([genp(1, .whenPasscodeSetThisDeviceOnly), genp(2, a: "b", .whenUnlocked)])
        let steps = s.apply(.passcodeRemoved)
        #expect(steps.count == 1 && steps[0].rule == .keychainPasscodeRemoved)
        #expect(s.decide(q(.copy), app: kcApp()).status == .itemNotFound)
        #expect(s.decide(q(.copy, a: "b"), app: kcApp()).status == .success)
    }

    @Test("without a passcode the device counts as unlocked, unless the assumption is turned off")
    func noPasscode() {
        var s = kcState([genp(1)], lock: .locked, passcode: false)
        let a = s.decide(q(.copy), app: kcApp())
        #expect(a.status == .success)
        #expect(a.assumptions.contains { $0.contains("noPasscodeUnlocked") }, "the answer says it rests on the assumption")
        s.assumptions.noPasscodeUnlocked = false
        #expect(s.decide(q(.copy), app: kcApp()).status == .interactionNotAllowed)
    }
}

@Suite("Keychain: access control (K10–K14)")
struct KeychainAccessControlTests {
    static let flags: [AccessControlFlag] = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode]

    @Test("each constraint × each outcome on a read", arguments: flags)
    func outcomes(_ f: AccessControlFlag) {
        let s = kcState([genp(1, ac: KeychainAccessControl(flags: [f]))])
        let cases: [(AuthenticationUI, PromptAnswer, KeychainStatus)] = [
            (.allow, .authenticate, .success), (.allow, .cancel, .userCanceled), (.allow, .fail, .authFailed),
            (.fail, .authenticate, .interactionNotAllowed), (.skip, .authenticate, .itemNotFound)
        ]
        for (ui, answer, status) in cases {
            let a = s.decide(
                q(.copy) {
                    $0.ui = ui; $0.prompt = answer
                }, app: kcApp())
            #expect(a.status == status, "\(f) ui=\(ui) prompt=\(answer)")
            #expect(a.prompted == (ui == .allow), "\(f) prompts only when UI is allowed")
        }
        // Update authenticates too; Delete never does; Add never prompts.
        #expect(
            s.decide(
                q(.update) {
                    $0.update = ["labl": "x"]; $0.prompt = .cancel
                }, app: kcApp()
            ).status == .userCanceled)
        let del = s.decide(q(.delete) { $0.prompt = .cancel }, app: kcApp())
        #expect(del.status == .success && !del.prompted)
        let add = kcState([]).decide(
            q(.add) {
                $0.accessControl = KeychainAccessControl(flags: [f]); $0.prompt = .cancel
            }, app: kcApp())
        #expect(add.status == .success && !add.prompted)
    }

    @Test("parameter errors: both operators, two biometry flags, userPresence with another constraint, constraint + sync")
    func parameters() {
        let bad: [KeychainAccessControl] = [
            KeychainAccessControl(flags: [.biometryAny, .devicePasscode], operators: [.or, .and]),
            KeychainAccessControl(flags: [.biometryAny, .biometryCurrentSet], operators: [.or]),
            KeychainAccessControl(flags: [.userPresence, .devicePasscode])
        ]
        for ac in bad {
            let a = kcState([]).decide(q(.add) { $0.accessControl = ac }, app: kcApp())
            #expect(a.status == .param && a.rule == .keychainParameter, "\(ac.text)")
        }
        let ok = KeychainAccessControl(flags: [.userPresence, .applicationPassword])
        #expect(kcState([]).decide(q(.add) { $0.accessControl = ok }, app: kcApp()).status == .success)
        let sync = kcState([]).decide(
            q(.add) {
                $0.accessControl = KeychainAccessControl(flags: [.devicePasscode]); $0.sync = .yes; $0.accessible = .afterFirstUnlock
            }, app: kcApp())
        #expect(sync.status == .param)
        #expect(kcState([genp(1)]).decide(q(.delete) { $0.ui = .skip }, app: kcApp()).status == .param)
        #expect(kcState([genp(1)]).decide(q(.delete) { $0.limitOneGiven = true }, app: kcApp()).status == .param)
        #expect(kcState([genp(1)]).decide(q(.update) { $0.returnKeys = true }, app: kcApp()).status == .param)
    }

    @Test("or: one satisfiable constraint is enough; and: all must be")
    func orAnd() {
        let or = KeychainAccessControl(flags: [.biometryAny, .devicePasscode], operators: [.or])
        let and = KeychainAccessControl(flags: [.biometryAny, .devicePasscode], operators: [.and])
        var s = kcState([genp(1, ac: or), genp(2, a: "b", ac: and)])
        s.device.biometryEnrolled = false
        #expect(s.decide(q(.copy), app: kcApp()).status == .success)
        #expect(s.decide(q(.copy, a: "b"), app: kcApp()).status == .authFailed)
    }

    @Test("Add with a biometry flag and nothing enrolled: −25293")
    func addNoBiometry() {
        for f in [AccessControlFlag.biometryAny, .biometryCurrentSet] {
            let a = kcState([], biometry: false).decide(q(.add) { $0.accessControl = KeychainAccessControl(flags: [f]) }, app: kcApp())
            #expect(a.status == .authFailed && a.rule == .keychainBiometryNotEnrolled)
        }
        let p = kcState([], biometry: false).decide(q(.add) { $0.accessControl = KeychainAccessControl(flags: [.devicePasscode]) }, app: kcApp())
        #expect(p.status == .success)
    }

    @Test("an enrolment change: biometryCurrentSet is purged (−25300), biometryAny and userPresence survive")
    func enrolmentChange() {
        var s = kcState([
            genp(1, a: "cur", ac: KeychainAccessControl(flags: [.biometryCurrentSet])),
            genp(2, a: "any", ac: KeychainAccessControl(flags: [.biometryAny])),
            genp(3, a: "up", ac: KeychainAccessControl(flags: [.userPresence]))
        ])
        _ = s.apply(.biometryChanged)
        let cur = s.perform(q(.copy, a: "cur"), app: kcApp())
        #expect(cur.status == .itemNotFound)
        #expect(cur.assumptions.contains { $0.contains("biometryChangedStatus") })
        #expect(!s.items.contains { $0.id == 1 }, "the row is purged")
        let any = s.decide(q(.copy, a: "any"), app: kcApp())
        #expect(any.status == .success)
        #expect(any.assumptions.contains { $0.contains("biometryAnySurvives") })
        var strict = s
        strict.assumptions.biometryAnySurvives = false
        #expect(strict.decide(q(.copy, a: "any"), app: kcApp()).status == .itemNotFound)
        #expect(s.decide(q(.copy, a: "up"), app: kcApp()).status == .success)
        var other = kcState([genp(1, ac: KeychainAccessControl(flags: [.biometryCurrentSet]))])
        _ = other.apply(.biometryChanged)
        other.assumptions.biometryChangedStatus = .authFailed
        #expect(other.decide(q(.copy), app: kcApp()).status == .authFailed)
        // A new Add replaces the item that can never be decrypted again.
        var again = kcState([genp(1, ac: KeychainAccessControl(flags: [.biometryCurrentSet]))])
        _ = again.apply(.biometryChanged)
        #expect(again.decide(q(.add), app: kcApp()).status == .success)
    }
}

@Suite("Keychain: uniqueness, Update and Delete (K15–K18)")
struct KeychainUniquenessTests {
    @Test(
        "what makes two items the same",
        arguments: [
            // (existing, new query, expected status)
            ("same s/a, other accessibility", genp(1, .whenUnlocked), q(.add) { $0.accessible = .afterFirstUnlock }, KeychainStatus.duplicateItem),
            ("same s/a, with an access control", genp(1), q(.add) { $0.accessControl = KeychainAccessControl(flags: [.devicePasscode]) }, .duplicateItem),
            ("same s/a, other label", genp(1), q(.add) { $0.attributes["labl"] = "new" }, .duplicateItem),
            ("same s/a, other group", genp(1, group: "\(team).com.example.App"), q(.add, group: shared), .success),
            ("same s/a, one syncs", genp(1, .afterFirstUnlock, sync: true), q(.add) { $0.accessible = .afterFirstUnlock }, .success),
            ("other account", genp(1), q(.add, a: "other"), .success)
        ])
    func identity(_ name: String, _ existing: KeychainItem, _ query: KeychainQuery, _ status: KeychainStatus) {
        let app = kcApp(groups: [shared, "\(team).com.example.App"])
        let a = kcState([existing]).decide(query, app: app)
        #expect(a.status == status, "\(name)")
    }

    @Test("missing attributes count as empty: two Adds with neither account nor service collide")
    func missing() {
        var s = kcState([])
        #expect(s.perform(q(.add, s: nil, a: nil), app: kcApp()).status == .success)
        #expect(s.perform(q(.add, s: nil, a: nil), app: kcApp()).status == .duplicateItem)
        #expect(s.perform(q(.add, s: "", a: nil), app: kcApp()).status == .duplicateItem, "\"\" is what a missing string is")
    }

    @Test("Update: changing a key attribute onto another item is −25299; no match −25300; unknown attribute −25303")
    func update() {
        var s = kcState([genp(1, a: "a"), genp(2, a: "b")])
        #expect(s.decide(q(.update, a: "a") { $0.update = ["acct": "b"] }, app: kcApp()).status == .duplicateItem)
        #expect(s.decide(q(.update, a: "z") { $0.update = ["labl": "x"] }, app: kcApp()).status == .itemNotFound)
        #expect(s.decide(q(.update, a: "a") { $0.update = ["colour": "x"] }, app: kcApp()).status == .noSuchAttr)
        let ok = s.perform(q(.update, a: "a") { $0.update = ["acct": "c"] }, app: kcApp())
        #expect(ok.status == .success && s.items.contains { $0.attributes["acct"] == "c" })
        #expect(s.decide(q(.update, a: "c") { $0.updateGroup = "\(team).elsewhere" }, app: kcApp()).status == .missingEntitlement)
    }

    @Test("Delete removes every match in every writable group; no match −25300; works while locked (assumed)")
    func delete() {
        let other = "\(team).com.example.App"
        var s = kcState([genp(1, group: shared), genp(2, group: other), genp(3, a: "keep"), genp(4, .afterFirstUnlock, sync: true)], lock: .locked)
        let a = s.perform(q(.delete, a: nil) { $0.attributes = ["svce": "svc", "acct": "acct"] }, app: kcApp(groups: [shared, other]))
        #expect(a.status == .success && a.items.map(\.id).sorted() == [1, 2])
        #expect(a.assumptions.contains { $0.contains("deleteWhileLocked") })
        #expect(s.items.map(\.id).sorted() == [3, 4], "the sync item needs `synchronizable: any`")
        #expect(s.decide(q(.delete, s: "nothing"), app: kcApp()).status == .itemNotFound)
    }

    @Test("the synchronizable filter")
    func syncFilter() {
        let s = kcState([genp(1, .afterFirstUnlock, sync: true)])
        #expect(s.decide(q(.copy), app: kcApp()).status == .itemNotFound)
        #expect(s.decide(q(.copy) { $0.sync = .no }, app: kcApp()).status == .itemNotFound)
        #expect(s.decide(q(.copy) { $0.sync = .yes }, app: kcApp()).status == .success)
        #expect(s.decide(q(.copy) { $0.sync = .any }, app: kcApp()).status == .success)
        let tdo = kcState([]).decide(
            q(.add) {
                $0.sync = .yes; $0.accessible = .afterFirstUnlockThisDeviceOnly
            }, app: kcApp())
        #expect(tdo.status == .param && !tdo.assumptions.isEmpty)
    }

    @Test("primary keys per class")
    func primaryKeys() {
        #expect(KeychainClass.genp.primaryKey == ["acct", "svce"])
        #expect(KeychainClass.inet.primaryKey.count == 7)
        #expect(KeychainClass.cert.primaryKey == KeychainClass.idnt.primaryKey)
        let a = KeychainItem(id: 1, cls: .inet, attributes: ["srvr": "x"], group: shared)
        let b = KeychainItem(id: 2, cls: .inet, attributes: ["srvr": "x", "port": "0"], group: shared)
        #expect(a.identity == b.identity, "a missing number is 0")
    }
}

@Suite("Keychain: access groups (K1–K5)")
struct KeychainGroupTests {
    @Test("the order: keychain-access-groups, app ID, app groups; Add goes to the first")
    func order() {
        let app = kcApp(groups: ["\(team).one", "\(team).two"], appGroups: ["group.com.example"])
        #expect(app.accessGroups(on: .ios) == ["\(team).one", "\(team).two", "\(team).com.example.App", "group.com.example"])
        let a = kcState([]).decide(q(.add), app: app)
        #expect(a.items.first?.group == "\(team).one")
        let plain = kcState([]).decide(q(.add), app: kcApp(groups: nil))
        #expect(plain.items.first?.group == "\(team).com.example.App", "without keychain sharing the app ID is first")
    }

    @Test("an unentitled group, in the query or the Update's values, is −34018 on every call; so is having no group")
    func missingEntitlement() {
        let s = kcState([genp(1)])
        for c in KeychainCall.allCases {
            #expect(s.decide(q(c, group: "OTHER.team") { if c == .delete { $0.limitOneGiven = false } }, app: kcApp()).status == .missingEntitlement, "\(c)")
            #expect(s.decide(q(c), app: kcApp(groups: nil, team: nil)).status == .missingEntitlement, "\(c) with no group")
        }
        #expect(s.decide(q(.update) { $0.updateGroup = "OTHER.x" }, app: kcApp()).status == .missingEntitlement)
    }

    @Test("without a group CopyMatching searches every group; two apps see each other only through a shared group")
    func search() {
        let s = kcState([genp(1, group: "\(team).com.example.App")])
        #expect(s.decide(q(.copy), app: kcApp()).status == .success)
        #expect(s.decide(q(.copy), app: kcApp("com.example.App.Ext", groups: nil)).status == .itemNotFound)
        let sh = kcState([genp(1, group: shared)])
        #expect(sh.decide(q(.copy), app: kcApp("com.example.App.Ext")).status == .success)
        #expect(sh.decide(q(.copy, group: "\(team).com.example.App"), app: kcApp()).status == .itemNotFound)
    }

    @Test("the token group is read-only; macOS counts the app ID and app groups only with a profile")
    func tokenAndMac() {
        let app = kcApp(groups: [shared, KeychainApp.tokenGroup])
        #expect(kcState([]).decide(q(.add, group: KeychainApp.tokenGroup), app: app).rule == .keychainTokenReadOnly)
        let mac = kcApp(groups: nil, appGroups: ["\(team).group"], platform: .macos, provisioned: false)
        #expect(mac.accessGroups(on: .macos).isEmpty)
        #expect(kcApp(groups: nil, platform: .macos, provisioned: true).accessGroups(on: .macos) == ["\(team).com.example.App"])
    }
}

@Suite("Keychain: restore, history and the macOS file-based keychain (K19–K21)")
struct KeychainHistoryTests {
    @Test(
        "restore: which items come back",
        arguments: [
            (BackupKind.encrypted, true, false), (.unencrypted, true, false), (.iCloud, true, false),
            (.encrypted, false, false), (.unencrypted, false, false), (.iCloud, false, false), (.iCloud, false, true)
        ])
    func restore(_ kind: BackupKind, _ same: Bool, _ iCloudKeychain: Bool) {
        var s = kcState([
            genp(1, a: "ak", .whenUnlocked), genp(2, a: "aku", .whenUnlockedThisDeviceOnly),
            genp(3, a: "akpu", .whenPasscodeSetThisDeviceOnly), genp(4, a: "sync", .afterFirstUnlock, sync: true)
        ])
        s.device.iCloudKeychain = iCloudKeychain
        _ = s.apply(.restore(kind, sameDevice: same))
        let left = Set(s.items.compactMap { $0.attributes["acct"] })
        let expected: Set<String>
        if same { expected = ["ak", "aku", "sync"] } else if kind == .encrypted { expected = ["ak", "sync"] } else { expected = iCloudKeychain ? ["sync"] : [] }
        #expect(left == expected, "\(kind) same=\(same) iCloudKeychain=\(iCloudKeychain)")
    }

    @Test("a scenario: add, lock, read, unlock, restore to a new phone, read")
    func scenario() {
        var s = kcState([])
        let app = kcApp()
        #expect(s.perform(q(.add) { $0.accessible = .afterFirstUnlockThisDeviceOnly }, app: app).status == .success)
        #expect(s.perform(q(.add, a: "web"), app: app).status == .success)
        _ = s.apply(.reboot)
        #expect(s.perform(q(.copy), app: app).status == .interactionNotAllowed)
        _ = s.apply(.unlock)
        _ = s.apply(.lock)
        #expect(s.perform(q(.copy), app: app).status == .success)
        #expect(s.perform(q(.copy, a: "web"), app: app).status == .interactionNotAllowed)
        _ = s.apply(.restore(.encrypted, sameDevice: false))
        #expect(s.perform(q(.copy), app: app).status == .itemNotFound)
        #expect(s.perform(q(.copy, a: "web"), app: app).status == .success)
    }

    @Test("macOS: an Add without the data protection flag goes to the file-based keychain, which trusts its creator")
    func fileBased() {
        var s = KeychainState(device: KeychainDevice(platform: .macos))
        let app = kcApp(platform: .macos)
        let add = s.perform(q(.add), app: app)
        #expect(add.status == .success && add.items.first?.store == .fileBased && add.items.first?.group == "")
        #expect(s.decide(q(.copy), app: app).status == .success)
        let other = kcApp("com.example.Other", groups: nil, team: "ZZZ", platform: .macos)
        #expect(s.decide(q(.copy, app: other.bundleID), app: other).status == .success, "the user allows the prompt")
        #expect(s.decide(q(.copy, app: other.bundleID) { $0.ui = .fail }, app: other).status == .interactionNotAllowed)
        #expect(s.decide(q(.copy, app: other.bundleID) { $0.prompt = .cancel }, app: other).status == .userCanceled)
        // With the flag, the file-based item is out of reach.
        #expect(s.decide(q(.copy) { $0.dataProtection = true }, app: app).status == .itemNotFound)
        let dp = s.perform(q(.add, a: "dp") { $0.dataProtection = true }, app: app)
        #expect(dp.items.first?.store == .dataProtection)
    }
}
