import FSPolicy

/// The schema of the `keychain:` section and the keys the keychain adds to `apps` and
/// `device` (docs/keychain.md), from the loader's tables.
extension PolicySchema {
    static var keychainSections: [(name: String, keys: [String])] {
        [
            ("keychain", keychainKeys), ("keychainItem", keychainItemKeys), ("keychainCall", keychainQueryKeys),
            ("keychainStep", KeychainCall.allCases.map(\.rawValue) + ["restore"] + keychainEntryKeys),
            ("keychainAccessControl", keychainAccessControlKeys), ("keychainAssumptions", KeychainAssumptions.names),
            ("keychainRestore", ["backup", "device"])
        ]
    }

    static var keychainKeyDocs: [String: [String: (JSON, String)]] {
        let status = anyOf([enumOf(KeychainStatus.allCases.map(\.name)), type("integer"), ref("text")])
        let accessControl = anyOf([listOf(enumOf(AccessControlFlag.allCases.map(\.rawValue))), ref("keychainAccessControl")])
        var attributes: [String: (JSON, String)] = [:]
        for (w, a) in KeychainClass.attributeWords { attributes[w] = (ref("text"), "The `\(a)` attribute.") }
        let item: [String: (JSON, String)] = attributes.merging([
            "class": (enumOf(KeychainClass.allCases.map(\.rawValue)), "The item class: genp, inet, cert, keys or idnt."),
            "group": (ref("text"), "The access group the item lives in (data protection keychain)."),
            "accessible": (enumOf(KeychainAccessibility.allCases.map(\.rawValue)), "kSecAttrAccessible (default whenUnlocked; certificates always)."),
            "synchronizable": (ref("bool"), "The item syncs through iCloud Keychain."),
            "accessControl": (accessControl, "kSecAttrAccessControl: flags, and `operator: or` or `and`."),
            "createdBy": (ref("text"), "The bundle id of the app that created it."),
            "biometryChanged": (ref("bool"), "The enrolled biometry changed since the item was written."),
            "store": (enumOf(KeychainStoreKind.allCases.map(\.rawValue)), "macOS: dataProtection (default) or fileBased."),
            "trusted": (listOf(ref("text")), "File-based items: apps the item's ACL trusts besides its creator.")
        ]) { x, _ in x }
        let call: [String: (JSON, String)] = attributes.merging([
            "app": (ref("text"), "The bundle id of the app that calls."),
            "class": (enumOf(KeychainClass.allCases.map(\.rawValue)), "kSecClass (default genp)."),
            "group": (ref("text"), "kSecAttrAccessGroup."),
            "synchronizable": (anyOf([ref("bool"), enumOf(["any"])]), "kSecAttrSynchronizable: true, false or any (default: not given)."),
            "accessible": (enumOf(KeychainAccessibility.allCases.map(\.rawValue)), "Add: kSecAttrAccessible."),
            "accessControl": (accessControl, "Add: kSecAttrAccessControl."),
            "limit": (enumOf(["one", "all"]), "kSecMatchLimit."),
            "ui": (enumOf(AuthenticationUI.allCases.map(\.rawValue)), "kSecUseAuthenticationUI: allow (default), fail or skip."),
            "prompt": (enumOf(PromptAnswer.allCases.map(\.rawValue)), "What the user does at a prompt: authenticate (default), cancel, fail."),
            "attributesOnly": (ref("bool"), "Only attributes are asked for."),
            "return": (ref("bool"), "The query carries kSecReturn… keys."),
            "dataProtection": (ref("bool"), "macOS: kSecUseDataProtectionKeychain."),
            "set": (mapOf(ref("text")), "Update: the new values (attribute words, group, accessible).")
        ]) { x, _ in x }
        var step: [String: (JSON, String)] = [
            "restore": (ref("keychainRestore"), "A restore from a backup."),
            "status": (status, "The expected OSStatus, by name or number."),
            "items": (ref("integer"), "How many items the call returns, changes or deletes."),
            "name": (ref("text"), "A label for reports."),
            "quiz": (ref("bool"), "Ask this step in fspolicy quiz."),
            "topic": (ref("text"), "The rule number of the idea a quiz question tests."),
            "hint": (ref("text"), "The hint fspolicy quiz shows.")
        ]
        for c in KeychainCall.allCases { step[c.rawValue] = (ref("keychainCall"), "\(c.function), with its query.") }
        var assumptions: [String: (JSON, String)] = [:]
        for n in KeychainAssumptions.names {
            assumptions[n] = (n.hasSuffix("Status") ? status : ref("bool"), "An uncertain point of docs/keychain.md.")
        }
        let entry = anyOf([enumOf(keychainEvents), ref("keychainStep")])
        return [
            "top": ["keychain": (ref("keychain"), "The Keychain: items, a history of calls and events, expectations (docs/keychain.md).")],
            "app": [
                "team": (ref("text"), "The app's team id (its app ID is TEAM.bundleid)."),
                "provisioned": (ref("bool"), "macOS: a provisioning profile validates its app ID and app groups (default true).")
            ],
            "device": [
                "passcode": (ref("bool"), "A passcode is set (default true)."),
                "biometry": (enumOf(["enrolled", "none"]), "Face ID or Touch ID enrolled (default enrolled)."),
                "iCloudKeychain": (ref("bool"), "iCloud Keychain is on (default false).")
            ],
            "keychain": [
                "platform": (enumOf(AppPlatform.allCases.map(\.rawValue)), "ios (default) or macos."),
                "items": (listOf(ref("keychainItem")), "The items on the device before the history."),
                "history": (listOf(entry), "Calls and events, in order."),
                "expect": (listOf(ref("keychainStep")), "Calls checked against the state the history leaves."),
                "assumptions": (ref("keychainAssumptions"), "Settings of the uncertain points.")
            ],
            "keychainItem": item,
            "keychainCall": call,
            "keychainStep": step,
            "keychainAccessControl": [
                "flags": (
                    anyOf([listOf(enumOf(AccessControlFlag.allCases.map(\.rawValue))), enumOf(AccessControlFlag.allCases.map(\.rawValue))]), "The flags."
                ),
                "operator": (anyOf([enumOf(["or", "and"]), listOf(enumOf(["or", "and"]))]), "How the constraints combine (default and).")
            ],
            "keychainAssumptions": assumptions,
            "keychainRestore": [
                "backup": (enumOf(BackupKind.allCases.map(\.rawValue)), "encrypted (default), unencrypted or iCloud."),
                "device": (enumOf(["same", "new"]), "Restored onto the same device (default) or a new one.")
            ]
        ]
    }
}
