import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// The documents of the keychain questions (docs/keychain.md): `explain --keychain --compare`
/// (one query on iOS and the two macOS keychains) and `who --keychain` (every declared app asks
/// the same query), as text or JSON. One answer alone is `KeychainRenderer`'s.
public enum KeychainAnswers {
    /// `explain --keychain --compare`: `all` are the platforms' answers, iOS first.
    public static func compareJSON(_ all: [(String, KeychainAnswer)], device: KeychainDevice, renderer r: KeychainRenderer) -> String {
        JSON.object([
            ("schemaVersion", .int(1)),
            ("decisions", .array(all.map { .object([("platform", .string($0.0)), ("answer", r.json($0.1, device: device))]) })),
            ("agree", .bool(agree(all)))
        ]).render() + "\n"
    }

    public static func compareText(_ all: [(String, KeychainAnswer)], query q: KeychainQuery, renderer r: KeychainRenderer) -> String {
        var out = [r.style.bold("Question:") + " " + r.question(q), ""]
        for (name, ans) in all { out.append("  \(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(r.oneLine(ans))") }
        out.append("")
        if agree(all) {
            out.append("All three agree.")
        } else {
            for (name, ans) in all where ans.status != all[0].1.status {
                out.append(
                    "\(name) differs from iOS: \(ans.status.text) by rule \(ans.rule.info.number) (\(ans.rule.rawValue)) where iOS answers \(all[0].1.status.text) by rule \(all[0].1.rule.info.number) (\(all[0].1.rule.rawValue))."
                )
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Whether every platform gives the same status.
    static func agree(_ all: [(String, KeychainAnswer)]) -> Bool { Set(all.map { $0.1.status }).count == 1 }

    /// One app's answers for `who --keychain`: on the device as it is, and in each lock state.
    public struct WhoRow: Sendable {
        public var app: String
        public var now: KeychainAnswer
        public var byState: [KeychainAnswer]
        public init(app: String, now: KeychainAnswer, byState: [KeychainAnswer]) {
            self.app = app
            self.now = now
            self.byState = byState
        }
    }

    /// The lock states of `WhoRow.byState`, in order.
    public static let lockStates: [DeviceState] = [.unlocked, .locked, .beforeFirstUnlock]

    /// `who --keychain` as JSON; `question` is the query's words for any app (`APP`).
    public static func whoJSON(_ rows: [WhoRow], question: String, device: KeychainDevice, renderer r: KeychainRenderer) -> String {
        JSON.object([
            ("schemaVersion", .int(1)), ("question", .string(question)), ("device", .string(r.deviceWords(device))),
            (
                "apps",
                .array(
                    rows.map { row in
                        .object([
                            ("app", .string(row.app)), ("result", .string(row.now.allowed ? "allow" : "deny")),
                            ("status", .int(row.now.status.rawValue)), ("statusName", .string(row.now.status.name)),
                            ("rule", .string(row.now.rule.rawValue)),
                            ("byState", .object(zip(lockStates, row.byState).map { ($0.rawValue, JSON.int($1.status.rawValue)) }))
                        ])
                    })
            )
        ]).render() + "\n"
    }

    public static func whoText(_ rows: [WhoRow], question: String, device: KeychainDevice, renderer r: KeychainRenderer) -> String {
        let style = r.style
        var out = ["Who gets errSecSuccess from \(question)?", "Device now: " + r.deviceWords(device)]
        let width = max(8, rows.map(\.app.count).max() ?? 0)
        func name(_ row: WhoRow) -> String { "  " + r.safe(row.app).padding(toLength: width + 2, withPad: " ", startingAt: 0) }
        let allowed = rows.filter { $0.now.allowed }, denied = rows.filter { !$0.now.allowed }
        out.append(style.bold("allowed now:") + (allowed.isEmpty ? " " + PrincipalName.noOne : ""))
        for row in allowed { out.append(name(row) + r.oneLine(row.now)) }
        out.append(style.bold("denied now:") + (denied.isEmpty ? " " + PrincipalName.noOne : ""))
        for row in denied { out.append(name(row) + r.oneLine(row.now)) }
        out.append(style.bold("by lock state") + " (unlocked / locked / before first unlock):")
        for row in rows {
            out.append(name(row) + row.byState.map { $0.allowed ? "allow" : "\($0.status.rawValue)" }.joined(separator: " / "))
        }
        return out.joined(separator: "\n") + "\n"
    }
}
