/// The macOS file-based keychain (docs/keychain.md, K20–K21): where an Add goes when it does
/// not ask for the data protection keychain, and the per-item ACL of trusted apps that
/// replaces access groups and accessibility there. The sources say little; what is assumed
/// is named in the answer.

extension KeychainRun {
    mutating func fileBasedAdd() -> KeychainAnswer {
        var item = KeychainItem(
            id: state.nextID, cls: q.cls, attributes: q.attributes, group: "", accessible: q.accessible,
            synchronizable: false, creator: app.bundleID, store: .fileBased, trustedApps: [app.bundleID])
        let identity = [q.cls.rawValue] + q.cls.primaryKey.map(item.keyValue)
        if let old = state.items.first(where: { $0.store == .fileBased && [$0.cls.rawValue] + $0.cls.primaryKey.map($0.keyValue) == identity }) {
            assume("fileBasedUniqueness", "the file-based keychain refuses a second item with the same class and primary key")
            return end(.duplicateItem, .keychainDuplicate, "the file-based keychain already holds \(old.name) with this class and primary key")
        }
        item.id = state.nextID
        state.nextID += 1
        state.items.append(item)
        answer.items = [item]
        return end(.success, .keychainFileBasedTrusted, "\(item.name) is added to the file-based keychain; its ACL trusts its creator, `\(app.bundleID)`")
    }

    /// One file-based row: the creator and the apps its ACL lists use it silently; any other
    /// app gets a prompt (K21).
    mutating func fileBasedRow(_ item: KeychainItem) -> RowResult {
        if item.creator == app.bundleID || item.trustedApps.contains(app.bundleID) {
            step(.keychainFileBasedTrusted, .allow, "\(item.name) (file-based): its ACL trusts `\(app.bundleID)`")
            return .ok
        }
        switch q.ui {
        case .skip:
            step(.keychainUISkip, .note, "\(item.name) (file-based) would prompt, and the query skips such items")
            return .skipped
        case .fail:
            return .stop(
                .interactionNotAllowed, .keychainFileBasedPrompt,
                "\(item.name) (file-based): its ACL does not trust `\(app.bundleID)`, and the query allows no UI")
        case .allow: break
        }
        answer.prompted = true
        switch q.prompt {
        case .authenticate:
            step(.keychainFileBasedPrompt, .allow, "\(item.name) (file-based): its ACL does not trust `\(app.bundleID)`; the user allows it in the prompt")
            return .ok
        case .cancel:
            return .stop(.userCanceled, .keychainFileBasedPrompt, "\(item.name) (file-based): the user cancels the prompt")
        case .fail:
            assume("fileBasedDenyStatus", "the file-based keychain answers a denied prompt with \(a.fileBasedDenyStatus.text)")
            return .stop(a.fileBasedDenyStatus, .keychainFileBasedPrompt, "\(item.name) (file-based): the user denies the prompt")
        }
    }

    /// CopyMatching, Update and Delete without `kSecUseDataProtectionKeychain` on macOS: both
    /// keychains, results merged, a missing-entitlement refusal of the data protection side dropped.
    mutating func bothKeychains() -> KeychainAnswer {
        if q.call != .copy {
            assume("bothKeychainsForWrites", "Update and Delete without the data protection flag act on both keychains, as CopyMatching searches both")
        }
        var dp = KeychainRun(state: state, query: q, app: app)
        let dpAnswer = dp.dataProtectionCall()
        answer.steps += dpAnswer.steps.map { KeychainStep($0.rule, $0.verdict, "data protection keychain: " + $0.text) }
        answer.assumptions += dpAnswer.assumptions.filter { !answer.assumptions.contains($0) }
        answer.prompted = dpAnswer.prompted
        switch dpAnswer.status {
        case .success:
            state = dp.state
        case .itemNotFound: break
        case .missingEntitlement:
            step(.keychainFileBasedRoute, .note, "the data protection keychain's missing-entitlement refusal is dropped")
        default:
            answer.status = dpAnswer.status
            answer.rule = dpAnswer.rule
            return answer
        }
        var out = dpAnswer.status == .success ? dpAnswer.items : []
        let rows = state.items.filter { $0.store == .fileBased && q.matches($0) }
        var touched: [KeychainItem] = []
        for item in rows {
            switch fileBasedRow(item) {
            case .stop(let s, let r, let t): return end(s, r, t)
            case .skipped: continue
            case .ok: touched.append(item)
            }
            if q.call == .copy && !q.limitAll && out.isEmpty { break }
        }
        switch q.call {
        case .delete:
            let ids = Set(touched.map(\.id))
            state.items.removeAll { ids.contains($0.id) }
        case .update:
            for t in touched {
                guard let i = state.items.firstIndex(where: { $0.id == t.id }) else { continue }
                for (k, v) in q.update { state.items[i].attributes[k] = v }
            }
        default: break
        }
        out += touched
        if q.call == .copy && !q.limitAll { out = Array(out.prefix(1)) }
        if out.isEmpty { return end(.itemNotFound, .keychainNotFound, "neither keychain holds a matching \(q.cls.label)") }
        answer.items = out
        let verb = q.call == .copy ? "returned" : q.call == .delete ? "deleted" : "updated"
        return end(
            .success, q.call == .copy ? .keychainMatched : q.call == .delete ? .keychainDeleteNoAuth : .keychainUnique,
            "\(verb): " + out.map { $0.name + ($0.store == .fileBased ? " (file-based)" : "") }.joined(separator: "; "))
    }
}
