import FSPolicy
import FSPolicyYAML

/// Keys of the `keychain:` section and its parts (docs/policy-format.md, Keychain).
let keychainKeys = ["platform", "items", "history", "expect", "assumptions"]
let keychainItemKeys =
    ["class", "group", "accessible", "synchronizable", "accessControl", "createdBy", "biometryChanged", "store", "trusted"]
    + KeychainClass.attributeWords.map(\.word)
let keychainQueryKeys =
    [
        "app", "class", "group", "synchronizable", "accessible", "accessControl", "limit", "ui", "prompt",
        "attributesOnly", "return", "dataProtection", "set"
    ] + KeychainClass.attributeWords.map(\.word)
let keychainEntryKeys = ["status", "items", "name", "quiz", "topic", "hint"]
let keychainEvents = [
    "lock", "unlock", "reboot", "passcodeRemoved", "passcodeSet", "biometryChanged", "biometryRemoved",
    "iCloudKeychainOn", "iCloudKeychainOff"
]
let keychainAccessControlKeys = ["flags", "operator"]

extension Compiler {
    mutating func word<T: RawRepresentable & CaseIterable>(_ n: YNode, _ type: T.Type, what: String) -> T? where T.RawValue == String {
        guard let s = r.string(n, what: what) else { return nil }
        if let v = T(rawValue: s) { return v }
        let all = T.allCases.map(\.rawValue)
        r.diags.error(
            n.loc, code: "bad-value", "unknown \(what) `\(s)`",
            help: nearest(s, in: all).map { "did you mean `\($0)`?" } ?? "use one of " + all.map { "`\($0)`" }.joined(separator: ", "))
        return nil
    }

    mutating func statusWord(_ n: YNode) -> KeychainStatus? {
        guard let s = r.string(n, what: "`status`") else { return nil }
        if let st = KeychainStatus(word: s) { return st }
        let names = KeychainStatus.allCases.map(\.name)
        r.diags.error(
            n.loc, code: "bad-value", "unknown OSStatus `\(s)`",
            help: nearest(s, in: names).map { "did you mean `\($0)`?" } ?? "use a name such as `errSecItemNotFound` or its number, `-25300`")
        return nil
    }

    mutating func readAccessControl(_ n: YNode) -> KeychainAccessControl? {
        if n.sequence != nil {
            guard let list = r.stringList(n, what: "`accessControl`") else { return nil }
            var flags: [AccessControlFlag] = []
            for (_, item) in list { if let f = word(item, AccessControlFlag.self, what: "access-control flag") { flags.append(f) } }
            return KeychainAccessControl(flags: flags)
        }
        guard let m = r.mapping(n, what: "`accessControl`") else { return nil }
        let k = r.keyed(m, known: keychainAccessControlKeys, context: "`accessControl`")
        var ac = KeychainAccessControl(flags: [])
        if let f = k["flags"], let list = r.stringList(f, what: "`flags`", allowSingle: true) {
            for (_, item) in list { if let x = word(item, AccessControlFlag.self, what: "access-control flag") { ac.flags.append(x) } }
        }
        if let o = k["operator"], let list = r.stringList(o, what: "`operator`", allowSingle: true) {
            for (_, item) in list { if let x = word(item, KeychainAccessControl.Operator.self, what: "operator") { ac.operators.append(x) } }
        }
        if ac.flags.isEmpty {
            r.diags.error(n.loc, code: "missing-key", "an access control needs at least one flag", help: "e.g. `accessControl: [userPresence]`")
        }
        return ac
    }

    /// Attribute words of an item or query (`service: api`) → securityd names.
    mutating func readAttributes(_ k: [String: YNode]) -> [String: String] {
        var out: [String: String] = [:]
        for (w, attr) in KeychainClass.attributeWords {
            guard let v = k[w], let s = r.string(v, what: "`\(w)`") else { continue }
            out[attr] = s
        }
        return out
    }

    mutating func readKeychainItem(_ n: YNode, id: Int, device: KeychainDevice) -> KeychainItem? {
        guard let m = r.mapping(n, what: "a keychain item") else { return nil }
        let k = r.keyed(m, known: keychainItemKeys, context: "a keychain item")
        guard let cv = k["class"] else {
            r.diags.error(n.loc, code: "missing-key", "a keychain item needs a `class`", help: "one of genp, inet, cert, keys, idnt")
            return nil
        }
        guard let cls = word(cv, KeychainClass.self, what: "keychain class") else { return nil }
        var item = KeychainItem(id: id, cls: cls, attributes: readAttributes(k), biometryGeneration: device.biometryGeneration)
        if let g = k["group"], let s = r.string(g, what: "`group`") { item.group = s }
        if let a = k["accessible"], let x = word(a, KeychainAccessibility.self, what: "accessibility") { item.accessible = x }
        if let s = k["synchronizable"], let b = r.bool(s, what: "`synchronizable`") { item.synchronizable = b }
        if let a = k["accessControl"] { item.accessControl = readAccessControl(a) }
        if let c = k["createdBy"], let s = r.string(c, what: "`createdBy`") { item.creator = s }
        if let b = k["biometryChanged"], r.bool(b, what: "`biometryChanged`") == true { item.biometryGeneration = device.biometryGeneration - 1 }
        if let s = k["store"], let x = word(s, KeychainStoreKind.self, what: "keychain store") { item.store = x }
        if let t = k["trusted"], let list = r.stringList(t, what: "`trusted`") { item.trustedApps = list.map(\.0) }
        if item.group.isEmpty && item.store == .dataProtection {
            r.diags.error(
                n.loc, code: "missing-key", "a data protection keychain item needs a `group`",
                help: "the access group it lives in, e.g. `TEAMID.com.example.Notes`; `store: fileBased` for the macOS file-based keychain")
        }
        if item.accessible.thisDeviceOnly && item.synchronizable {
            r.diags.warning(
                n.loc, code: "sync-this-device-only", "a `ThisDeviceOnly` item cannot synchronize",
                help: "drop `synchronizable` or pick an accessibility without ThisDeviceOnly")
        }
        return item
    }

    mutating func readKeychainQuery(_ call: KeychainCall, _ n: YNode) -> KeychainQuery? {
        guard let m = r.mapping(n, what: "`\(call.rawValue)`") else { return nil }
        let k = r.keyed(m, known: keychainQueryKeys, context: "a keychain `\(call.rawValue)`")
        guard let av = k["app"], let app = r.string(av, what: "`app`") else {
            if k["app"] == nil { r.diags.error(n.loc, code: "missing-key", "a keychain call needs the `app` that makes it") }
            return nil
        }
        if !p.appIDs.contains(app) {
            r.diags.warning(
                av.loc, code: "unknown-app", "app `\(app)` is not declared under `apps`: it has no entitlements, so no access group",
                help: nearest(app, in: p.appIDs).map { "did you mean `\($0)`?" } ?? "declare it under `apps` with its `team` and entitlements")
        }
        var cls = KeychainClass.genp
        if let c = k["class"], let x = word(c, KeychainClass.self, what: "keychain class") { cls = x }
        var q = KeychainQuery(app: app, call: call, cls: cls)
        q.attributes = readAttributes(k)
        if let g = k["group"], let s = r.string(g, what: "`group`") { q.group = s }
        if let s = k["synchronizable"] {
            if s.scalar == "any" { q.sync = .any } else if let b = r.bool(s, what: "`synchronizable` (true, false or any)") { q.sync = b ? .yes : .no }
        }
        if let a = k["accessible"], let x = word(a, KeychainAccessibility.self, what: "accessibility") { q.accessible = x }
        if let a = k["accessControl"] { q.accessControl = readAccessControl(a) }
        if let l = k["limit"], let s = r.string(l, what: "`limit`") {
            switch s {
            case "all": q.limitAll = true
            case "one": q.limitOneGiven = true
            default: r.diags.error(l.loc, code: "bad-value", "unknown match limit `\(s)`", help: "use `one` or `all`")
            }
        }
        if let u = k["ui"], let x = word(u, AuthenticationUI.self, what: "authentication UI") { q.ui = x }
        if let pr = k["prompt"], let x = word(pr, PromptAnswer.self, what: "prompt answer") { q.prompt = x }
        if let b = k["attributesOnly"], let x = r.bool(b, what: "`attributesOnly`") { q.attributesOnly = x }
        if let b = k["return"], let x = r.bool(b, what: "`return`") { q.returnKeys = x }
        if let b = k["dataProtection"], let x = r.bool(b, what: "`dataProtection`") { q.dataProtection = x }
        if let s = k["set"] {
            if call != .update { r.diags.error(s.loc, code: "unexpected-key", "`set` goes with `update` only") }
            if let sm = r.mapping(s, what: "`set`") {
                for (kn, v) in sm {
                    guard let w = r.string(kn, what: "an attribute") else { continue }
                    if w == "group" { q.updateGroup = r.string(v, what: "`group`"); continue }
                    if w == "accessible" { q.updateAccessible = word(v, KeychainAccessibility.self, what: "accessibility"); continue }
                    guard let val = r.string(v, what: "`\(w)`") else { continue }
                    // An unknown attribute is kept: the call answers errSecNoSuchAttr (K18).
                    q.update[KeychainClass.attribute(forWord: w) ?? w] = val
                }
            }
        }
        return q
    }

    mutating func readKeychainEntry(_ n: YNode, isExpectation: Bool) -> KeychainEntry? {
        if let s = n.scalar, !n.isNull {
            let ev: KeychainEvent? =
                switch s {
                case "lock": .lock
                case "unlock": .unlock
                case "reboot": .reboot
                case "passcodeRemoved": .passcodeRemoved
                case "passcodeSet": .passcodeSet
                case "biometryChanged": .biometryChanged
                case "biometryRemoved": .biometryRemoved
                case "iCloudKeychainOn": .iCloudKeychain(true)
                case "iCloudKeychainOff": .iCloudKeychain(false)
                default: nil
                }
            guard let ev, !isExpectation else {
                r.diags.error(
                    n.loc, code: "bad-value", isExpectation ? "a keychain expectation is a call, not `\(s)`" : "unknown keychain event `\(s)`",
                    help: nearest(s, in: keychainEvents).map { "did you mean `\($0)`?" } ?? "events: " + keychainEvents.joined(separator: ", ")
                        + "; or a call `add:`, `copy:`, `update:`, `delete:`, or `restore:`")
                return nil
            }
            return KeychainEntry(action: .event(ev), location: n.loc)
        }
        guard let m = r.mapping(n, what: "a keychain step") else { return nil }
        let actions = KeychainCall.allCases.map(\.rawValue) + (isExpectation ? [] : ["restore"])
        let k = r.keyed(m, known: actions + keychainEntryKeys, context: "a keychain step")
        let present = actions.filter { k[$0] != nil }
        guard present.count == 1, let key = present.first, let v = k[key] else {
            r.diags.error(
                n.loc, code: present.isEmpty ? "missing-key" : "bad-value",
                present.isEmpty
                    ? "a keychain step needs one of " + actions.map { "`\($0)`" }.joined(separator: ", ")
                    : "a keychain step takes one call, found " + present.joined(separator: " and "))
            return nil
        }
        var entry: KeychainEntry
        if key == "restore" {
            guard let rm = r.mapping(v, what: "`restore`") else { return nil }
            let rk = r.keyed(rm, known: ["backup", "device"], context: "`restore`")
            var kind = BackupKind.encrypted
            if let b = rk["backup"], let x = word(b, BackupKind.self, what: "backup kind") { kind = x }
            var same = true
            if let d = rk["device"], let s = r.string(d, what: "`device`") {
                if s == "same" || s == "new" {
                    same = s == "same"
                } else {
                    r.diags.error(d.loc, code: "bad-value", "unknown device `\(s)`", help: "use `same` or `new`")
                }
            }
            entry = KeychainEntry(action: .event(.restore(kind, sameDevice: same)), location: n.loc)
        } else {
            guard let call = KeychainCall(rawValue: key), let q = readKeychainQuery(call, v) else { return nil }
            entry = KeychainEntry(action: .call(q), location: n.loc)
        }
        if let s = k["status"] { entry.status = statusWord(s) }
        if let i = k["items"] { entry.items = r.int(i, what: "`items`", min: 0) }
        if let s = k["name"] { entry.name = r.string(s, what: "`name`") }
        if let q = k["quiz"] { entry.quiz = r.bool(q, what: "`quiz`") ?? false }
        if let t = k["topic"] { entry.topic = r.string(t, what: "`topic`") }
        if let h = k["hint"] { entry.hint = r.string(h, what: "`hint`") }
        if isExpectation && entry.status == nil && entry.items == nil {
            r.diags.error(
                n.loc, code: "missing-key", "a keychain expectation needs a `status` (or `items`)", help: "e.g. `status: errSecInteractionNotAllowed`")
        }
        return entry
    }

    mutating func readKeychain(_ n: YNode) {
        guard let m = r.mapping(n, what: "`keychain`") else { return }
        let k = r.keyed(m, known: keychainKeys, context: "`keychain`")
        var device = p.keychainDevice
        device.lock = p.world.device
        if let pl = k["platform"], let x = word(pl, AppPlatform.self, what: "platform") { device.platform = x }
        var a = KeychainAssumptions()
        if let an = k["assumptions"], let am = r.mapping(an, what: "`assumptions`") {
            let ak = r.keyed(am, known: KeychainAssumptions.names, context: "`keychain.assumptions`")
            func flag(_ name: String, _ set: (inout KeychainAssumptions, Bool) -> Void) {
                if let v = ak[name], let b = r.bool(v, what: "`\(name)`") { set(&a, b) }
            }
            flag("noPasscodeUnlocked") { $0.noPasscodeUnlocked = $1 }
            flag("biometryAnySurvives") { $0.biometryAnySurvives = $1 }
            flag("attributesOnlyAuthenticates") { $0.attributesOnlyAuthenticates = $1 }
            flag("syncThisDeviceOnlyRefused") { $0.syncThisDeviceOnlyRefused = $1 }
            flag("deleteWhileLocked") { $0.deleteWhileLocked = $1 }
            flag("noMatchWhileLockedNotFound") { $0.noMatchWhileLockedNotFound = $1 }
            if let v = ak["biometryChangedStatus"], let s = statusWord(v) { a.biometryChangedStatus = s }
            if let v = ak["fileBasedDenyStatus"], let s = statusWord(v) { a.fileBasedDenyStatus = s }
        }
        var items: [KeychainItem] = []
        if let it = k["items"], let list = r.list(it, what: "`keychain.items`") {
            for (i, node) in list.enumerated() { if let x = readKeychainItem(node, id: i + 1, device: device) { items.append(x) } }
        }
        var kp = KeychainPolicy(initial: KeychainState(device: device, items: items, assumptions: a), location: n.loc)
        for app in p.world.apps {
            let t = p.keychainTeams[app.bundleID]
            kp.apps[app.bundleID] = KeychainApp(
                bundleID: app.bundleID, platform: app.platform, team: t?.team, provisioned: t?.provisioned ?? true,
                entitlements: app.entitlements)
        }
        if let h = k["history"], let list = r.list(h, what: "`keychain.history`") {
            kp.history = list.compactMap { readKeychainEntry($0, isExpectation: false) }
        }
        if let e = k["expect"], let list = r.list(e, what: "`keychain.expect`") {
            kp.expectations = list.compactMap { readKeychainEntry($0, isExpectation: true) }
        }
        p.keychain = kp
    }

    /// `device:` keys the keychain reads: passcode, biometry, iCloud Keychain.
    mutating func readKeychainDevice(_ k: [String: YNode]) {
        if let v = k["passcode"], let b = r.bool(v, what: "`passcode`") { p.keychainDevice.passcode = b }
        if let v = k["biometry"], let s = r.string(v, what: "`biometry`") {
            switch s {
            case "none": p.keychainDevice.biometryEnrolled = false
            case "enrolled": p.keychainDevice.biometryEnrolled = true
            default: r.diags.error(v.loc, code: "bad-value", "unknown biometry state `\(s)`", help: "use `enrolled` or `none`")
            }
        }
        if let v = k["iCloudKeychain"], let b = r.bool(v, what: "`iCloudKeychain`") { p.keychainDevice.iCloudKeychain = b }
    }
}
