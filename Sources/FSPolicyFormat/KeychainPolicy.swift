import FSPolicy

/// The `keychain:` section of a policy (docs/keychain.md, docs/policy-format.md): the items
/// the device starts with, the settings of the uncertain points, a history of calls and
/// events that runs in order, and expectations on the state the history leaves.
public struct KeychainPolicy: Sendable {
    /// The state before the history.
    public var initial: KeychainState
    public var history: [KeychainEntry] = []
    public var expectations: [KeychainEntry] = []
    /// Apps by bundle id, as the keychain sees them.
    public var apps: [String: KeychainApp] = [:]
    public var location: SourceLocation

    public init(initial: KeychainState, location: SourceLocation) {
        self.initial = initial
        self.location = location
    }

    public func app(_ id: String) -> KeychainApp? { apps[id] }

    /// The state after the first `steps` history entries (all when nil).
    public func state(after steps: Int? = nil) -> KeychainState {
        var s = initial
        for e in history.prefix(steps ?? history.count) { _ = run(e, on: &s) }
        return s
    }

    /// Runs one entry on `s`: a call's answer, or an event's steps.
    public func run(_ e: KeychainEntry, on s: inout KeychainState) -> KeychainOutcome {
        let device = s.device
        switch e.action {
        case .call(let q):
            let a = s.perform(q, app: app(q.app))
            return KeychainOutcome(entry: e, answer: a, steps: a.steps, device: device)
        case .event(let ev):
            return KeychainOutcome(entry: e, answer: nil, steps: s.apply(ev), device: device)
        }
    }

    /// Every history entry and expectation with what it expects, in order: history entries
    /// against the state their predecessors leave, expectations against the final state.
    public func outcomes() -> [KeychainOutcome] {
        var s = initial
        var out: [KeychainOutcome] = []
        for e in history { out.append(run(e, on: &s)) }
        for e in expectations {
            var copy = s
            out.append(run(e, on: &copy))
        }
        return out
    }
}

/// One history step or expectation.
public struct KeychainEntry: Sendable {
    public enum Action: Sendable {
        case call(KeychainQuery)
        case event(KeychainEvent)
    }
    public var action: Action
    public var status: KeychainStatus?
    /// How many items the call should return, change or delete.
    public var items: Int?
    public var name: String?
    public var location: SourceLocation
    public var quiz = false
    public var topic: String?
    public var hint: String?

    /// A call as a command line would ask it, for messages.
    public var text: String {
        switch action {
        case .event(let e): return e.text
        case .call(let q):
            var parts = ["\(q.app) \(q.call.function) \(q.cls.rawValue)"]
            for (k, v) in q.attributes.sorted(by: { $0.key < $1.key }) { parts.append("\(KeychainClass.word(forAttribute: k))=\(v)") }
            if let g = q.group { parts.append("group=\(g)") }
            return parts.joined(separator: " ")
        }
    }
}

public struct KeychainOutcome: Sendable {
    public var entry: KeychainEntry
    public var answer: KeychainAnswer?
    public var steps: [KeychainStep]
    /// The device as the entry found it.
    public var device: KeychainDevice

    /// Whether the entry expects anything.
    public var isCheck: Bool { entry.status != nil || entry.items != nil }
    public var passed: Bool {
        guard let a = answer else { return true }
        if let s = entry.status, s != a.status { return false }
        if let n = entry.items, n != a.items.count { return false }
        return true
    }
}

extension Layer {
    /// The layers a file expectation's `layer:` may name: every one but `keychain`, whose
    /// questions are asked in the `keychain:` section.
    public static var fileLayers: [Layer] { allCases.filter { $0 != .keychain } }
}
