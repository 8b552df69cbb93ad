/// Data Protection (docs/sandbox.md, rules D1–D4): a file's class key against the device's lock
/// state. It gates opening contents (read, write, append, execute) of a regular file with a
/// `protection` class, for every subject: the file system enforces it, not a policy.

/// Rights that open a file's contents.
let protectedContentRights: AccessRights = [.readData, .writeData, .appendData, .execute]

extension Eval {
    /// Whether the protection layer has anything to say about `rights` on `n`.
    func protectionApplies(_ n: NodeID, _ rights: AccessRights) -> Bool {
        let node = world[n]
        return node.protection != .unspecified && node.type == .file && rights.intersects(protectedContentRights)
    }

    /// nil when the class key is available (recorded), else the EPERM denial.
    mutating func protectionCheck(_ n: NodeID, _ rights: AccessRights) -> Outcome? {
        guard protectionApplies(n, rights) else { return nil }
        let node = world[n]
        let state = world.device
        let ev = Evidence.protection(node: n, node.protection, state, open: node.openBeforeLock)
        let rule: RuleID
        var allowed = true
        switch (node.protection, state) {
        case (.none, _), (_, .unlocked):
            rule = .protectionAvailable
        case (.complete, _):
            rule = .protectionCompleteLocked; allowed = false
        case (.completeUnlessOpen, .locked):
            if node.openBeforeLock { rule = .protectionOpenHandle } else { rule = .protectionUnlessOpenLocked; allowed = false }
        case (.completeUnlessOpen, .beforeFirstUnlock):
            rule = .protectionUnlessOpenLocked; allowed = false
        case (.completeUntilFirstUserAuthentication, .locked):
            rule = .protectionAvailable
        case (.completeUntilFirstUserAuthentication, .beforeFirstUnlock):
            rule = .protectionBeforeFirstUnlock; allowed = false
        case (.unspecified, _):
            rule = .protectionAvailable
        }
        if allowed {
            step(.protection, rule, .defer, n, rights, rights, ev)
            return nil
        }
        return finish(.deny(.EPERM, .protection, rule, n, ev), rights)
    }
}
