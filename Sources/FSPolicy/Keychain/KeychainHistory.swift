/// What happens to a device between calls (docs/keychain.md, K19): locking, a reboot, a
/// passcode removed, a biometry enrolment changed, iCloud Keychain switched, a restore from a
/// backup. Each returns the steps that say what changed.

public enum BackupKind: String, Sendable, CaseIterable {
    /// An encrypted Finder/iTunes backup.
    case encrypted
    /// An unencrypted Finder/iTunes backup.
    case unencrypted
    case iCloud
}

public enum KeychainEvent: Hashable, Sendable {
    case lock, unlock, reboot
    case passcodeRemoved, passcodeSet
    case biometryChanged, biometryRemoved
    case iCloudKeychain(Bool)
    /// Restored from a backup of `kind` onto the same device or another one.
    case restore(BackupKind, sameDevice: Bool)

    public var text: String {
        switch self {
        case .lock: "the device locks"
        case .unlock: "the user unlocks the device"
        case .reboot: "the device restarts (no unlock since boot)"
        case .passcodeRemoved: "the passcode is removed"
        case .passcodeSet: "a passcode is set"
        case .biometryChanged: "a face or fingerprint is enrolled or removed"
        case .biometryRemoved: "biometry is switched off (nothing enrolled)"
        case .iCloudKeychain(let on): "iCloud Keychain is switched \(on ? "on" : "off")"
        case .restore(let k, let same): "restored from \(k == .iCloud ? "an iCloud" : "an \(k.rawValue)") backup onto \(same ? "the same" : "another") device"
        }
    }
}

extension KeychainState {
    /// Applies `e`; returns what it did, one step per consequence.
    public mutating func apply(_ e: KeychainEvent) -> [KeychainStep] {
        var out: [KeychainStep] = []
        func gone(_ rule: RuleID, _ why: String, _ test: (KeychainItem) -> Bool) {
            let lost = items.filter(test)
            items.removeAll(where: test)
            for i in lost { out.append(KeychainStep(rule, .note, "\(i.name) is gone: \(why)")) }
        }
        switch e {
        case .lock: device.lock = .locked
        case .unlock: device.lock = .unlocked
        case .reboot: device.lock = .beforeFirstUnlock
        case .passcodeSet: device.passcode = true
        case .passcodeRemoved:
            device.passcode = false
            gone(.keychainPasscodeRemoved, "`whenPasscodeSetThisDeviceOnly` items are deleted with the passcode") {
                $0.accessible == .whenPasscodeSetThisDeviceOnly
            }
        case .biometryChanged: device.biometryGeneration += 1; device.biometryEnrolled = true
        case .biometryRemoved: device.biometryGeneration += 1; device.biometryEnrolled = false
        case .iCloudKeychain(let on): device.iCloudKeychain = on
        case .restore(let kind, let same):
            device.lock = .unlocked
            let keepSync = device.iCloudKeychain
            if same {
                gone(.keychainRestore, "`whenPasscodeSetThisDeviceOnly` items are never backed up") {
                    $0.accessible == .whenPasscodeSetThisDeviceOnly && $0.store == .dataProtection
                }
            } else {
                device.biometryGeneration += 1
                gone(.keychainRestore, "a `ThisDeviceOnly` item never moves to another device") { $0.store == .dataProtection && $0.accessible.thisDeviceOnly }
                if kind != .encrypted {
                    gone(.keychainRestore, "only an encrypted backup carries keychain items to another device\(keepSync ? "" : ", and iCloud Keychain is off")")
                    {
                        $0.store == .dataProtection && !$0.accessible.thisDeviceOnly && !($0.synchronizable && keepSync)
                    }
                    for i in items where i.synchronizable && i.store == .dataProtection {
                        out.append(KeychainStep(.keychainRestore, .note, "\(i.name) returns through iCloud Keychain"))
                    }
                }
            }
        }
        return out
    }
}
