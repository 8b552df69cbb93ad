/// Data Protection (docs/sandbox.md, rules D1–D7): a file's class key against the device's lock
/// state. It gates opening contents (read, write, append, execute) of a regular file with a
/// `protection` class, and creating a file whose new per-file key must be wrapped with its
/// class's key, for every subject: the file system enforces it, not a policy.

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

extension World {
    /// The class a regular file created in `parent` gets (docs/sandbox.md, rule D5): the nearest
    /// directory with a class, from `parent` up; else, for an iOS app, its
    /// `com.apple.developer.default-data-protection` entitlement; else, for an iOS app, class C.
    /// nil when none applies (a user's or a macOS app's file in unclassed directories).
    public func newFileProtection(in parent: NodeID, app: App?) -> (ProtectionClass, ProtectionSource)? {
        var d = parent
        while true {
            let c = self[d].protection
            if c != .unspecified && self[d].isDir { return (c, .directory(d)) }
            if d == World.root { break }
            d = self[d].parent
        }
        guard let app, app.platform == .ios else { return nil }
        if case .string(let s)? = app.entitlements[Entitlement.defaultDataProtection],
            let c = ProtectionClass.allCases.first(where: { $0 != .unspecified && $0.foundationName == s })
        {
            return (c, .entitlement)
        }
        return (.completeUntilFirstUserAuthentication, .platformDefault)
    }
}

extension Eval {
    /// Creating a regular file (D5–D7): its new per-file key is wrapped with the class key of
    /// the class it gets, so that key must be available — class A's only while unlocked,
    /// class C's from the first unlock on; class B wraps with its public key, which is always
    /// there, and class D's key is always there. nil when the key is available (recorded),
    /// else the EPERM denial. `dir` is the parent directory, the node the create is asked on.
    mutating func protectionCreateCheck(_ dir: NodeID, _ rights: AccessRights) -> Outcome? {
        guard let nf = newFile else { return nil }
        let state = world.device
        let ev = Evidence.newFileProtection(dir: dir, path: nf.path, nf.cls, state, from: nf.source)
        let rule: RuleID
        switch (nf.cls, state) {
        case (.complete, .locked), (.complete, .beforeFirstUnlock):
            rule = .protectionCreateCompleteLocked
        case (.completeUntilFirstUserAuthentication, .beforeFirstUnlock):
            rule = .protectionCreateBeforeFirstUnlock
        default:
            step(.protection, .protectionCreateKeyAvailable, .defer, dir, rights, rights, ev)
            return nil
        }
        return finish(.deny(.EPERM, .protection, rule, dir, ev), rights)
    }
}
