import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// Findings about a policy's keychain (docs/keychain.md, docs/findings.md FSL022–FSL024):
/// warnings `check` and `validate` print, and `lint` reports under catalog codes.
extension Findings {
    static func keychainFindings(_ policy: Policy, into bag: inout DiagnosticBag) {
        guard let kc = policy.keychain else { return }
        let loc = kc.location
        // FSL022: a secret whose key is there before the first unlock after a restart.
        for item in kc.initial.items
        where item.store == .dataProtection && item.cls != .cert
            && (item.accessible == .always || item.accessible == .alwaysThisDeviceOnly)
        {
            bag.warning(
                loc, code: "keychain-before-first-unlock",
                "keychain item \(item.name) is `\(item.accessible.rawValue)`: readable before the first unlock after a restart, by anyone holding the device",
                help: "use `afterFirstUnlock` for what background work needs and `whenUnlocked` for the rest; the `always` classes are deprecated")
        }
        // Every call of the history and the expectations, with the state it meets.
        var calls: [(KeychainEntry, KeychainQuery, KeychainState)] = []
        var restored: [(afterIndex: Int, lost: [KeychainItem])] = []
        var s = kc.initial
        for e in kc.history {
            if case .call(let q) = e.action { calls.append((e, q, s)) }
            if case .event(.restore(_, let same)) = e.action, !same {
                restored.append((calls.count, s.items.filter { $0.store == .dataProtection && $0.accessible.thisDeviceOnly }))
            }
            _ = kc.run(e, on: &s)
        }
        for e in kc.expectations { if case .call(let q) = e.action { calls.append((e, q, s)) } }
        // FSL024: a call after a restore to a new device that counts on a ThisDeviceOnly item.
        for (start, lost) in restored where !lost.isEmpty {
            for (e, q, _) in calls[start...] where (q.call == .copy || q.call == .update) && (e.status == nil || e.status == .success) {
                let groups = kc.app(q.app)?.accessGroups(on: kc.initial.device.platform) ?? []
                guard let item = lost.first(where: { q.matches($0) && groups.contains($0.group) && (q.group == nil || q.group == $0.group) }) else { continue }
                bag.warning(
                    e.location, code: "keychain-this-device-only-restored",
                    "`\(q.app)` expects \(item.name) after a restore onto a new device, but `\(item.accessible.rawValue)` items never move to another device",
                    help:
                        "treat a missing item as a first launch (sign in or enrol again), or use an accessibility without ThisDeviceOnly if the secret may travel in encrypted backups"
                )
            }
        }
        // FSL023: a shared group that more apps can reach than the calls use.
        guard !calls.isEmpty else { return }
        let platform = kc.initial.device.platform
        var used: [String: Set<String>] = [:]
        // An app uses the groups its calls search: the one named, else all of its own.
        for (_, q, _) in calls {
            for g in q.group.map({ [$0] }) ?? (kc.app(q.app)?.accessGroups(on: platform) ?? []) { used[g, default: []].insert(q.app) }
        }
        let itemGroups = Set(kc.initial.items.map(\.group) + calls.compactMap { $0.1.group })
        for g in itemGroups.sorted() where !g.isEmpty {
            let holders = kc.apps.values.filter { $0.accessGroups(on: platform).contains(g) }.map(\.bundleID).sorted()
            guard holders.count > 1, let users = used[g], !users.isEmpty else { continue }
            let idle = holders.filter { !users.contains($0) }
            guard !idle.isEmpty else { continue }
            bag.warning(
                loc, code: "keychain-group-wider",
                "the access group `\(g)` is open to \(holders.map { "`\($0)`" }.joined(separator: ", ")), but only \(users.sorted().map { "`\($0)`" }.joined(separator: ", ")) \(users.count == 1 ? "uses" : "use") it here",
                help: "remove the group from the entitlements of " + idle.map { "`\($0)`" }.joined(separator: ", ")
                    + ", or give them a group of their own: every app listed can read and delete its items")
        }
    }
}
