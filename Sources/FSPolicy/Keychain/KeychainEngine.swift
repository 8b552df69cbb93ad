/// The four calls decided as securityd decides them (docs/keychain.md): parameters, then
/// entitlements (access groups), then the class key and access control, then uniqueness.
/// `KeychainState.perform` also applies what a successful call changes, so a policy's history
/// can run add, lock, read, restore, read in order.

public struct KeychainState: Hashable, Sendable {
    public var device: KeychainDevice
    public var items: [KeychainItem]
    public var assumptions: KeychainAssumptions
    public var nextID: Int

    public init(device: KeychainDevice = KeychainDevice(), items: [KeychainItem] = [], assumptions: KeychainAssumptions = KeychainAssumptions()) {
        self.device = device
        self.items = items
        self.assumptions = assumptions
        self.nextID = (items.map(\.id).max() ?? 0) + 1
    }

    /// Decides `q` for `app` (nil: an app the policy does not declare, with no entitlements)
    /// without changing anything.
    public func decide(_ q: KeychainQuery, app: KeychainApp?) -> KeychainAnswer {
        var copy = self
        return copy.perform(q, app: app)
    }

    /// Decides `q` and applies its effect when it succeeds (and the purge of items whose
    /// biometry binding broke, which happens even when the call fails).
    public mutating func perform(_ q: KeychainQuery, app: KeychainApp?) -> KeychainAnswer {
        var run = KeychainRun(state: self, query: q, app: app ?? KeychainApp(bundleID: q.app, platform: device.platform))
        let answer = run.decide()
        self = run.state
        return answer
    }
}

struct KeychainRun {
    var state: KeychainState
    let q: KeychainQuery
    let app: KeychainApp
    var answer: KeychainAnswer

    init(state: KeychainState, query: KeychainQuery, app: KeychainApp) {
        self.state = state
        self.q = query
        self.app = app
        self.answer = KeychainAnswer(query: query, status: .success, rule: .keychainMatched)
    }

    var a: KeychainAssumptions { state.assumptions }
    var lock: DeviceState { state.device.effectiveLock(a) }

    mutating func step(_ rule: RuleID, _ verdict: Verdict, _ text: String) { answer.steps.append(KeychainStep(rule, verdict, text)) }

    mutating func end(_ status: KeychainStatus, _ rule: RuleID, _ text: String) -> KeychainAnswer {
        step(rule, status == .success ? .allow : .deny, text)
        answer.status = status
        answer.rule = rule
        return answer
    }

    mutating func assume(_ setting: String, _ text: String) {
        let s = "\(text) (assumption `\(setting)`)"
        if !answer.assumptions.contains(s) { answer.assumptions.append(s) }
    }

    func quoted(_ xs: [String]) -> String { xs.isEmpty ? "none" : xs.map { "`\($0)`" }.joined(separator: ", ") }

    // MARK: Parameters (K10)

    func parameterProblem() -> String? {
        if let ac = q.accessControl, let why = ac.parameterProblem { return "the access control is invalid: \(why)" }
        switch q.call {
        case .add:
            if q.ui == .skip { return "`kSecUseAuthenticationUISkip` is valid only on SecItemCopyMatching" }
            if q.sync == .yes, q.accessControl?.needsAuthentication == true { return "an item with an access-control constraint cannot be synchronizable" }
            if q.sync == .any { return "Add takes `synchronizable` true or false, not any" }
        case .copy: break
        case .update:
            if q.ui == .skip { return "`kSecUseAuthenticationUISkip` is valid only on SecItemCopyMatching" }
            if q.returnKeys { return "SecItemUpdate takes no `kSecReturn…` keys" }
        case .delete:
            if q.ui == .skip { return "`kSecUseAuthenticationUISkip` is valid only on SecItemCopyMatching" }
            if q.limitOneGiven || q.limitAll { return "SecItemDelete always deletes every match: it takes no match limit" }
        }
        return nil
    }

    // MARK: The call

    mutating func decide() -> KeychainAnswer {
        if !state.device.passcode && state.device.lock != .unlocked && a.noPasscodeUnlocked {
            assume("noPasscodeUnlocked", "a device without a passcode counts as unlocked")
        }
        if let why = parameterProblem() { return end(.param, .keychainParameter, why) }
        if q.call == .add, q.sync == .yes, (q.accessible ?? .default(for: q.cls)).thisDeviceOnly {
            if a.syncThisDeviceOnlyRefused {
                assume("syncThisDeviceOnlyRefused", "a ThisDeviceOnly item cannot be synchronizable")
                return end(.param, .keychainParameter, "a `ThisDeviceOnly` accessibility cannot go with `synchronizable: true`")
            }
        }
        if q.call == .update {
            let known = Set(KeychainClass.attributeWords.map(\.attr))
            if let bad = q.update.keys.sorted().first(where: { !known.contains($0) }) {
                return end(.noSuchAttr, .keychainNoSuchAttribute, "`\(bad)` is not an attribute of a \(q.cls.label)")
            }
        }
        // macOS: which keychain (K20).
        if state.device.platform == .macos {
            if q.call == .add {
                var why: [String] = []
                if q.dataProtection { why.append("`kSecUseDataProtectionKeychain`") }
                if q.sync == .yes { why.append("`synchronizable`") }
                if q.accessControl != nil { why.append("an access control") }
                if q.group == KeychainApp.tokenGroup { why.append("the token group") }
                if why.isEmpty {
                    step(
                        .keychainFileBasedRoute, .note,
                        "macOS: with neither `kSecUseDataProtectionKeychain`, `synchronizable`, an access control nor the token group, the Add goes to the file-based keychain; its group and accessibility are ignored"
                    )
                    return fileBasedAdd()
                }
                step(.keychainFileBasedRoute, .note, "macOS: " + why.joined(separator: ", ") + " sends the Add to the data protection keychain")
            } else if !q.dataProtection {
                step(
                    .keychainFileBasedRoute, .note,
                    "macOS: without `kSecUseDataProtectionKeychain` the call covers the file-based keychain and the data protection keychain, and a missing-entitlement refusal of the data protection side is dropped"
                )
                return bothKeychains()
            }
        }
        return dataProtectionCall()
    }

    mutating func dataProtectionCall() -> KeychainAnswer {
        // Entitlements (K1–K5).
        let groups = app.accessGroups(on: state.device.platform)
        var origin = "keychain-access-groups, then the app ID, then the app groups"
        if state.device.platform == .macos && !app.provisioned {
            origin += "; on macOS the app ID and app groups count only with a provisioning profile, and `\(app.bundleID)` has none"
        }
        step(.keychainAccessGroups, .note, "the access groups of `\(app.bundleID)`: \(quoted(groups)) (\(origin))")
        if groups.isEmpty {
            let why =
                state.device.platform == .macos && !app.provisioned
                ? "no keychain-access-groups, and without a provisioning profile its app ID and app groups do not count"
                : "no keychain-access-groups, no app ID, no app group"
            return end(.missingEntitlement, .keychainMissingEntitlement, "`\(app.bundleID)` has no access group at all (\(why)): every call fails")
        }
        for g in [q.group, q.updateGroup].compactMap({ $0 }) where !groups.contains(g) {
            return end(.missingEntitlement, .keychainMissingEntitlement, "the group `\(g)` is not one of the app's access groups")
        }
        let writable = groups.filter { $0 != KeychainApp.tokenGroup }
        if q.call == .add || q.call == .update, let g = q.updateGroup ?? q.group, g == KeychainApp.tokenGroup {
            return end(.missingEntitlement, .keychainTokenReadOnly, "`\(KeychainApp.tokenGroup)` is read-only: items cannot be added or moved there")
        }
        switch q.call {
        case .add: return add(groups)
        case .copy:
            let searched = q.group.map { [$0] } ?? groups
            step(
                .keychainGroupSearched, .note,
                q.group == nil ? "no group given: every access group is searched: \(quoted(searched))" : "the group given: `\(searched[0])`")
            return copy(searched)
        case .update, .delete:
            let searched = q.group.map { [$0] } ?? writable
            step(
                .keychainGroupSearched, .note,
                q.group == nil ? "no group given: every writable access group: \(quoted(searched))" : "the group given: `\(searched[0])`")
            return q.call == .update ? update(searched) : delete(searched)
        }
    }

    // MARK: Add

    mutating func add(_ groups: [String]) -> KeychainAnswer {
        let group: String
        if let g = q.group {
            group = g
            step(.keychainDefaultGroup, .note, "the item goes to the group given, `\(g)`")
        } else {
            group = groups[0]
            step(.keychainDefaultGroup, .note, "no group given: the item goes to the first access group, `\(group)`")
        }
        let pdmn = q.accessible ?? .default(for: q.cls)
        let state = self.lock
        if !pdmn.available(in: state) {
            return end(
                .interactionNotAllowed, .keychainKeyLocked,
                "`\(pdmn.rawValue)` (\(pdmn.code), class \(pdmn.protectionClass)): the class key is not available \(stateWords(state)), so the item cannot be encrypted"
            )
        }
        if pdmn == .whenPasscodeSetThisDeviceOnly && !self.state.device.passcode {
            return end(.authFailed, .keychainPasscodeRequired, "`whenPasscodeSetThisDeviceOnly` needs a passcode, and the device has none")
        }
        step(.keychainKeyAvailable, .defer, "`\(pdmn.rawValue)` (\(pdmn.code), class \(pdmn.protectionClass)): the class key is available \(stateWords(state))")
        if let ac = q.accessControl {
            if ac.flags.contains(where: \.isBiometry) && !self.state.device.biometryEnrolled {
                return end(
                    .authFailed, .keychainBiometryNotEnrolled,
                    "the access control asks for biometry (\(ac.text)) and none is enrolled: the item cannot be bound to it")
            }
            step(.keychainAuthenticated, .note, "Add never prompts: the access control (\(ac.text)) is bound to the new item")
        }
        var item = KeychainItem(
            id: self.state.nextID, cls: q.cls, attributes: q.attributes, group: group, accessible: pdmn,
            synchronizable: q.sync == .yes, accessControl: q.accessControl, creator: app.bundleID,
            biometryGeneration: self.state.device.biometryGeneration)
        if let i = self.state.items.firstIndex(where: { $0.store == .dataProtection && $0.identity == item.identity }) {
            let old = self.state.items[i]
            if brokenBinding(old) {
                step(.keychainUnique, .note, "\(old.name) has the same identity but can never be decrypted again (its biometry set changed): it is replaced")
                self.state.items.remove(at: i)
            } else {
                return end(
                    .duplicateItem, .keychainDuplicate,
                    "\(old.name) already has this identity (class, \(q.cls.primaryKey.joined(separator: ", ")), group and sync); accessibility, access control, label and data are not part of it"
                )
            }
        }
        item.id = self.state.nextID
        self.state.nextID += 1
        self.state.items.append(item)
        answer.items = [item]
        return end(.success, .keychainUnique, "no item has this identity: \(item.name) is added to `\(group)`")
    }

    // MARK: Reading rows

    /// An item bound to `biometryCurrentSet` after an enrolment change (K14).
    func brokenBinding(_ item: KeychainItem) -> Bool {
        guard let ac = item.accessControl, item.biometryGeneration != state.device.biometryGeneration else { return false }
        if ac.flags.contains(.biometryCurrentSet) { return true }
        return ac.flags.contains(.biometryAny) && !a.biometryAnySurvives
    }

    enum RowResult { case ok, skipped, stop(KeychainStatus, RuleID, String) }

    /// Decodes one matching row as securityd does: class key, then the broken-binding purge,
    /// then access control. `needsData`: the call uses the secret (reads it or rewrites it).
    mutating func decodeRow(_ item: KeychainItem, authenticate: Bool) -> RowResult {
        let st = lock
        if !item.accessible.available(in: st) {
            return .stop(
                .interactionNotAllowed, .keychainKeyLocked,
                "\(item.name) is `\(item.accessible.rawValue)` (class \(item.accessible.protectionClass)): its class key is not available \(stateWords(st)); the call stops at this row"
            )
        }
        step(
            .keychainKeyAvailable, .defer,
            "\(item.name) is `\(item.accessible.rawValue)` (class \(item.accessible.protectionClass)): its class key is available \(stateWords(st))")
        if brokenBinding(item) {
            let flag = item.accessControl?.flags.first(where: \.isBiometry)?.rawValue ?? "biometry"
            if a.biometryChangedStatus != .itemNotFound {
                assume("biometryChangedStatus", "an item whose biometry set changed gives \(a.biometryChangedStatus.text)")
                return .stop(
                    a.biometryChangedStatus, .keychainBiometryChanged,
                    "\(item.name) is bound to `\(flag)` and the enrolled biometry changed since it was written")
            }
            assume("biometryChangedStatus", "an item whose biometry set changed is purged and reads as not found")
            if flag == "biometryAny" { assume("biometryAnySurvives", "biometryAny does not survive an enrolment change") }
            step(
                .keychainBiometryChanged, .note,
                "\(item.name) is bound to `\(flag)` and the enrolled biometry changed since it was written: it can never be decrypted again, and is purged")
            state.items.removeAll { $0 == item }
            return .skipped
        }
        if let ac = item.accessControl, ac.flags.contains(.biometryAny), item.biometryGeneration != state.device.biometryGeneration {
            assume("biometryAnySurvives", "biometryAny survives an enrolment change")
        }
        guard let ac = item.accessControl, ac.needsAuthentication, authenticate else { return .ok }
        if q.attributesOnly { assume("attributesOnlyAuthenticates", "an attributes-only read of an item with access control asks for authentication") }
        if q.ui == .skip {
            step(.keychainUISkip, .note, "\(item.name) needs authentication (\(ac.text)) and the query skips such items")
            return .skipped
        }
        if q.ui == .fail {
            return .stop(.interactionNotAllowed, .keychainAuthRefused, "\(item.name) needs authentication (\(ac.text)) and the query allows no UI")
        }
        answer.prompted = true
        let canAuth = authPossible(ac)
        switch (q.prompt, canAuth) {
        case (.cancel, _):
            return .stop(.userCanceled, .keychainAuthRefused, "\(item.name) needs \(ac.text): the user cancels the prompt")
        case (.fail, _):
            return .stop(.authFailed, .keychainAuthRefused, "\(item.name) needs \(ac.text): authentication fails")
        case (.authenticate, false):
            return .stop(
                .authFailed, .keychainAuthRefused,
                "\(item.name) needs \(ac.text), which this device cannot satisfy (\(state.device.passcode ? "no biometry enrolled" : "no passcode"))")
        case (.authenticate, true):
            step(.keychainAuthenticated, .allow, "\(item.name) needs \(ac.text): the user authenticates")
            return .ok
        }
    }

    /// Whether the device can satisfy the constraints at all.
    func authPossible(_ ac: KeychainAccessControl) -> Bool {
        let d = state.device
        func one(_ f: AccessControlFlag) -> Bool {
            switch f {
            case .userPresence: d.passcode || d.biometryEnrolled
            case .biometryAny, .biometryCurrentSet: d.biometryEnrolled
            case .devicePasscode: d.passcode
            case .applicationPassword, .privateKeyUsage: true
            }
        }
        let cs = ac.constraints
        return ac.isOr ? cs.contains(where: one) : cs.allSatisfy(one)
    }

    func matching(_ groups: [String]) -> [KeychainItem] {
        state.items.filter { $0.store == .dataProtection && groups.contains($0.group) && q.matches($0) }
    }

    mutating func syncNote() {
        switch q.sync {
        case .unset: step(.keychainSyncFilter, .note, "no `synchronizable` in the query: only items that do not sync match")
        case .no: step(.keychainSyncFilter, .note, "`synchronizable: false`: only items that do not sync match")
        case .yes: step(.keychainSyncFilter, .note, "`synchronizable: true`: only items that sync match")
        case .any: step(.keychainSyncFilter, .note, "`synchronizable: any`: items that sync and items that do not match")
        }
    }

    mutating func nothing(_ what: String) -> KeychainAnswer {
        if lock != .unlocked && a.noMatchWhileLockedNotFound {
            assume("noMatchWhileLockedNotFound", "a query matching no row gives −25300 even while locked")
        }
        return end(.itemNotFound, .keychainNotFound, what)
    }

    // MARK: CopyMatching

    mutating func copy(_ groups: [String]) -> KeychainAnswer {
        syncNote()
        let rows = matching(groups)
        if rows.isEmpty { return nothing("no \(q.cls.label) in \(quoted(groups)) matches the query") }
        var out: [KeychainItem] = []
        for item in rows {
            switch decodeRow(item, authenticate: true) {
            case .stop(let s, let r, let t): return end(s, r, t)
            case .skipped: continue
            case .ok: out.append(item)
            }
            if !q.limitAll { break }
        }
        if out.isEmpty { return nothing("every matching row was left out") }
        answer.items = out
        return end(.success, .keychainMatched, "returned: " + out.map(\.name).joined(separator: "; ") + (q.limitAll ? "" : " (match limit one)"))
    }

    // MARK: Update

    mutating func update(_ groups: [String]) -> KeychainAnswer {
        syncNote()
        let rows = matching(groups)
        var changed: [KeychainItem] = []
        for item in rows {
            switch decodeRow(item, authenticate: true) {
            case .stop(let s, let r, let t): return end(s, r, t)
            case .skipped: continue
            case .ok:
                var n = item
                for (k, v) in q.update { n.attributes[k] = v }
                if let g = q.updateGroup { n.group = g }
                if let p = q.updateAccessible {
                    if !p.available(in: lock) {
                        return end(
                            .interactionNotAllowed, .keychainKeyLocked,
                            "the new accessibility `\(p.rawValue)` (class \(p.protectionClass)) has no key \(stateWords(lock))")
                    }
                    n.accessible = p
                }
                changed.append(n)
            }
        }
        let ids = Set(changed.map(\.id))
        var seen: [[String]: KeychainItem] = [:]
        for o in state.items where o.store == .dataProtection && !ids.contains(o.id) { seen[o.identity] = o }
        for n in changed {
            if let other = seen[n.identity] {
                return end(.duplicateItem, .keychainDuplicate, "after the update \(n.name) would have the identity of \(other.name)")
            }
            seen[n.identity] = n
        }
        if changed.isEmpty { return nothing("no \(q.cls.label) in \(quoted(groups)) matches the query") }
        for n in changed { if let i = state.items.firstIndex(where: { $0.id == n.id }) { state.items[i] = n } }
        answer.items = changed
        return end(.success, .keychainUnique, "updated: " + changed.map(\.name).joined(separator: "; "))
    }

    // MARK: Delete

    mutating func delete(_ groups: [String]) -> KeychainAnswer {
        syncNote()
        let rows = matching(groups)
        if rows.isEmpty { return nothing("no \(q.cls.label) in \(quoted(groups)) matches the query") }
        if lock != .unlocked {
            if !a.deleteWhileLocked {
                assume("deleteWhileLocked", "deleting while locked is refused")
                return end(.interactionNotAllowed, .keychainKeyLocked, "the device is \(lock.rawValue)")
            }
            assume("deleteWhileLocked", "deleting while locked succeeds")
        }
        step(.keychainDeleteNoAuth, .note, "Delete needs no authentication and no class key, and removes every match")
        let ids = Set(rows.map(\.id))
        state.items.removeAll { ids.contains($0.id) }
        answer.items = rows
        return end(.success, .keychainDeleteNoAuth, "deleted: " + rows.map(\.name).joined(separator: "; "))
    }

    func stateWords(_ s: DeviceState) -> String {
        switch s {
        case .unlocked: "while the device is unlocked"
        case .locked: "while the device is locked"
        case .beforeFirstUnlock: "before the first unlock since boot"
        }
    }
}
