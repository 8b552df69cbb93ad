import FSPolicy
import FSPolicyFormat

/// Keychain answers as text and JSON (docs/keychain.md, docs/cli.md). Every phrase comes from
/// the engine's steps and the rule catalog; nothing here decides.
public struct KeychainRenderer {
    public var style: Style
    public init(style: Style) { self.style = style }

    public func deviceWords(_ d: KeychainDevice) -> String {
        let lock =
            switch d.lock {
            case .unlocked: "unlocked"
            case .locked: "locked"
            case .beforeFirstUnlock: "not unlocked since boot"
            }
        return [
            d.platform == .ios ? "iOS" : "macOS", lock, d.passcode ? "passcode set" : "no passcode",
            d.biometryEnrolled ? "biometry enrolled" : "no biometry", "iCloud Keychain \(d.iCloudKeychain ? "on" : "off")"
        ].joined(separator: ", ")
    }

    /// Text from the policy or the command line (names, attribute values) on one line: control
    /// codes and newlines escaped, never written raw (docs/robustness.md).
    public func safe(_ s: String) -> String { Escaping.line(s) }

    public func question(_ q: KeychainQuery) -> String { safe(rawQuestion(q)) }

    func rawQuestion(_ q: KeychainQuery) -> String {
        var parts = ["\(q.call.function) by \(q.app): \(q.cls.rawValue) (\(q.cls.label))"]
        for (k, v) in q.attributes.sorted(by: { $0.key < $1.key }) { parts.append("\(KeychainClass.word(forAttribute: k))=\(v)") }
        if let g = q.group { parts.append("group=\(g)") }
        if q.sync != .unset { parts.append("synchronizable=\(q.sync.rawValue)") }
        if let a = q.accessible { parts.append("accessible=\(a.rawValue)") }
        if let ac = q.accessControl { parts.append("accessControl=\(ac.text)") }
        if q.limitAll { parts.append("limit=all") }
        if q.ui != .allow { parts.append("ui=\(q.ui.rawValue)") }
        if q.prompt != .authenticate { parts.append("prompt=\(q.prompt.rawValue)") }
        for (k, v) in q.update.sorted(by: { $0.key < $1.key }) { parts.append("set \(KeychainClass.word(forAttribute: k))=\(v)") }
        if let g = q.updateGroup { parts.append("set group=\(g)") }
        if q.dataProtection { parts.append("dataProtection") }
        return parts.joined(separator: " ")
    }

    /// `allow errSecSuccess (0): #1 genp …` or `deny errSecItemNotFound (-25300) (keychain: why)`.
    public func oneLine(_ a: KeychainAnswer) -> String {
        let flagged = a.assumptions.isEmpty ? "" : " [assumed: " + a.assumptions.joined(separator: "; ") + "]"
        if a.allowed {
            let what = a.items.isEmpty ? "" : ": " + a.items.map(\.name).joined(separator: "; ")
            return style.green("allow") + " " + safe(a.status.text + what + flagged)
        }
        let why = a.steps.last?.text ?? a.rule.info.summary
        return style.red("deny") + " " + safe(a.status.text + " (keychain: \(why))" + flagged)
    }

    public func explain(_ a: KeychainAnswer, device: KeychainDevice) -> String {
        var out: [String] = []
        out.append(style.bold("Question:") + " " + question(a.query))
        out.append(style.bold("Device:") + "   " + deviceWords(device))
        let verdict = a.allowed ? style.green("allow") : style.red("deny")
        out.append(style.bold("Answer:") + "   \(verdict) \(a.status.text) — decided by the keychain layer, rule \(a.rule.rawValue)")
        if !a.items.isEmpty {
            let verb =
                switch a.query.call {
                case .add: "added"
                case .copy: "returned"
                case .update: "updated"
                case .delete: "deleted"
                }
            out.append("          \(verb): " + safe(a.items.map(\.name).joined(separator: "; ")))
        }
        out.append("")
        out.append("Steps, in securityd's order (parameters, access groups, class key and access control, uniqueness):")
        let width = String(a.steps.count).count
        for (i, s) in a.steps.enumerated() {
            let n = String(i + 1)
            let mark = i == a.steps.count - 1 ? "→" : " "
            let num = s.rule.info.number
            out.append(
                "\(mark) \(String(repeating: " ", count: width - n.count))\(n)  keychain  \(num.padding(toLength: 3, withPad: " ", startingAt: 0))  \(s.verdict.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(safe(s.text))  [\(s.rule.rawValue)]"
            )
        }
        out.append("")
        let info = a.rule.info
        out.append("Why: rule \(info.number) (\(a.rule.rawValue)): \(info.summary).")
        out.append("Source: \(info.source).")
        if a.prompted { out.append("The system shows an authentication prompt for this call.") }
        for s in a.assumptions { out.append("Assumed: \(safe(s)); docs/keychain.md says how to change it.") }
        return out.joined(separator: "\n")
    }

    public func json(_ a: KeychainAnswer, device: KeychainDevice) -> JSON {
        func item(_ i: KeychainItem) -> JSON {
            var fields: [(String, JSON)] = [
                ("id", .int(i.id)), ("class", .string(i.cls.rawValue)), ("group", .string(i.group)),
                ("accessible", .string(i.accessible.rawValue)), ("synchronizable", .bool(i.synchronizable)),
                ("store", .string(i.store.rawValue))
            ]
            fields.append(
                ("attributes", .object(i.attributes.sorted { $0.key < $1.key }.map { (KeychainClass.word(forAttribute: $0.key), JSON.string($0.value)) })))
            if let ac = i.accessControl { fields.append(("accessControl", .string(ac.text))) }
            return .object(fields)
        }
        return .object([
            ("schemaVersion", .int(1)),
            ("call", .string(a.query.call.function)),
            ("app", .string(a.query.app)),
            ("question", .string(rawQuestion(a.query))),
            ("device", .string(deviceWords(device))),
            ("result", .string(a.allowed ? "allow" : "deny")),
            ("status", .int(a.status.rawValue)),
            ("statusName", .string(a.status.name)),
            ("layer", .string(Layer.keychain.rawValue)),
            ("rule", .string(a.rule.rawValue)),
            ("ruleNumber", .string(a.rule.info.number)),
            ("items", .array(a.items.map(item))),
            ("prompted", .bool(a.prompted)),
            ("assumptions", .array(a.assumptions.map { .string($0) })),
            (
                "trace",
                .array(
                    a.steps.map { s in
                        .object([
                            ("layer", .string("keychain")), ("rule", .string(s.rule.rawValue)),
                            ("number", .string(s.rule.info.number)), ("verdict", .string(s.verdict.rawValue)),
                            ("text", .string(s.text))
                        ])
                    })
            )
        ])
    }

    /// The same question on iOS, on macOS's data protection keychain and (for macOS) its
    /// file-based keychain: one line each, then where they differ.
    public static func compare(_ q: KeychainQuery, state: KeychainState, app: KeychainApp?) -> [(String, KeychainAnswer)] {
        var out: [(String, KeychainAnswer)] = []
        var ios = state
        ios.device.platform = .ios
        out.append(("iOS", ios.decide(q, app: app)))
        var mac = state
        mac.device.platform = .macos
        var dp = q
        dp.dataProtection = true
        out.append(("macOS data protection keychain", mac.decide(dp, app: app)))
        var fb = q
        fb.dataProtection = false
        out.append(("macOS without kSecUseDataProtectionKeychain", mac.decide(fb, app: app)))
        return out
    }
}
