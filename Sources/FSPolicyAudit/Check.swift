// The outcome of an expectation and what a report needs from a checked file.

import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import Foundation
import Synchronization

/// The outcome of one expectation.
public struct ExpectationOutcome: Sendable {
    public var expectation: Expectation
    public var passed: Bool
    /// The decision (for `as` expectations).
    public var decision: Decision?
    /// For `allowed` expectations: who is actually allowed, and the differences.
    public var actualAllowed: [String]?
    public var unexpectedlyAllowed: [String] = []
    public var unexpectedlyDenied: [String] = []
    /// One line per mismatch, e.g. "result: expected deny, got allow".
    public var mismatches: [String] = []
    /// Quantified expectations: the (subject, path) pairs checked, how many fail, and the
    /// first few failures (`--max-examples`) with their decisions.
    public var pairsChecked = 0
    public var counterexampleCount = 0
    public var counterexamples: [Counterexample] = []
    /// Of the counterexamples, how many are unknown rather than wrong (P6).
    public var unknownPairs = 0

    /// Neither passed nor failed: every answer it needed that did not hold is unknown (the
    /// world lacks what decides it, docs/semantics.md P6). Counted apart from the failures.
    public var isUnknown: Bool {
        guard !passed else { return false }
        if let d = decision { return d.unknown }
        return counterexampleCount > 0 && unknownPairs == counterexampleCount
    }
}

/// One (subject, path) pair for which a quantified expectation does not hold.
public struct Counterexample: Sendable {
    public var user: String
    public var uid: UID
    public var path: String
    public var node: NodeID
    public var decision: Decision
    /// What differs, e.g. "expected deny, got allow".
    public var mismatch: String
}

/// What a report needs from one checked file: its counts first, then its outcomes in order.
public protocol CheckedFile {
    var policy: Policy { get }
    var count: Int { get }
    var passed: Int { get }
    /// How many are unknown (neither passed nor failed; `ExpectationOutcome.isUnknown`).
    var unknown: Int { get }
    var findings: [Diagnostic] { get }
    /// Calls `body` with every outcome, steps first, in file order.
    func forEachOutcome(_ body: (ExpectationOutcome) -> Void)
    /// The same, but when `decidingPassed` is false an expectation that passed may come without
    /// its decision (`passed` true, nothing else filled in): reports that say nothing about a
    /// pass but its name need not decide it again.
    func forEachOutcome(decidingPassed: Bool, _ body: (ExpectationOutcome) -> Void)
    /// The same; `tracing: false` decides without a trace (for writers that show none).
    func forEachOutcome(decidingPassed: Bool, tracing: Bool, _ body: (ExpectationOutcome) -> Void)
    /// A renderer for one outcome (in the world its decision was made in).
    func renderer(for o: ExpectationOutcome, style: Style) -> TextRenderer
    /// Which world `o` is rendered in (its `after` step, or a step's own world).
    func worldIndex(for o: ExpectationOutcome) -> Int
    /// Every outcome, in order (the passes as `passed` says), made into bytes by `render` and
    /// handed to `write` in pieces, in order. A big file may be rendered on several threads at
    /// once; the bytes are the same. `tracing`: whether failures are decided with their trace.
    func renderOutcomes(
        passed: PassedOutcomes, tracing: Bool, style: Style,
        render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
        write: (UnsafeBufferPointer<UInt8>) throws -> Void) throws
}

extension CheckedFile {
    /// One outcome after the other, on this thread.
    public func renderOutcomes(
        passed: PassedOutcomes, tracing: Bool, style: Style,
        render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
        write: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let renderers = RendererCache(self, style: style)
        var out = ByteBuffer(capacity: 1 << 16)
        var failure: Error? = nil
        let deciding: Bool
        if case .decided = passed { deciding = true } else { deciding = false }
        forEachOutcome(decidingPassed: deciding, tracing: tracing) { o in
            guard failure == nil, passed != .skipped || !o.passed else { return }
            render(o, renderers.renderer(for: o), &out)
            if out.count >= 1 << 16 {
                do { try write(out.bytes(from: 0)) } catch { failure = error }
                out.removeAll()
            }
        }
        if let failure { throw failure }
        try write(out.bytes(from: 0))
    }
}

/// What `renderOutcomes` does with the expectations that passed.
public enum PassedOutcomes: Sendable, Equatable {
    /// Left out.
    case skipped
    /// Rendered without a decision (a report that needs only a pass's name).
    case undecided
    /// Decided again and rendered with the decision, with its trace or without one.
    case decided(traced: Bool)
}

/// The renderer of each world, made once while a report is written: making one per outcome
/// (with its world looked up) costs more than writing a line. For one thread: its renderers keep
/// the JSON of the trace steps they write (`StepJSONCache`), which nothing else may touch.
public final class RendererCache {
    let file: any CheckedFile
    let style: Style
    /// The renderers made, by world index, the last used first; at most eight (a file whose
    /// expectations go back and forth between a few worlds keeps each one's).
    /// (Used by one thread: its accesses are not checked at run time, which cost about as much
    /// as finding the renderer.)
    @exclusivity(unchecked) var made: [(index: Int, renderer: TextRenderer)] = []

    public init(_ file: any CheckedFile, style: Style = Style(enabled: false)) {
        self.file = file
        self.style = style
    }

    public func renderer(for o: ExpectationOutcome) -> TextRenderer {
        let k = file.worldIndex(for: o)
        if let first = made.first, first.index == k { return first.renderer }
        if let i = made.firstIndex(where: { $0.index == k }) {
            let m = made.remove(at: i)
            made.insert(m, at: 0)
            return m.renderer
        }
        // Used by one thread: its renderers may keep what they wrote (`StepJSONCache`).
        let t = file.renderer(for: o, style: style).cachingSteps()
        made.insert((k, t), at: 0)
        if made.count > 8 { made.removeLast() }
        return t
    }
}

extension CheckedFile {
    public var failed: Int { count - passed - unknown }
    public func renderer(for o: ExpectationOutcome) -> TextRenderer { renderer(for: o, style: Style(enabled: false)) }
    public func forEachOutcome(decidingPassed: Bool, _ body: (ExpectationOutcome) -> Void) { forEachOutcome(body) }
    public func forEachOutcome(decidingPassed: Bool, tracing: Bool, _ body: (ExpectationOutcome) -> Void) {
        forEachOutcome(decidingPassed: decidingPassed, body)
    }
}

public struct FileReport: Sendable, CheckedFile {
    public var policy: Policy
    public var outcomes: [ExpectationOutcome] { didSet { passed = outcomes.count { $0.passed } } }
    public var unknown: Int { outcomes.count { $0.isUnknown } }
    /// The world after each number of steps (`worlds[0]` is the file's tree).
    public var worlds: [World]
    /// Warnings about the file's apps (`Findings.analyze`), reported with the results.
    public var findings: [Diagnostic] = []
    /// How many outcomes passed (counted once, when the outcomes are set).
    public private(set) var passed: Int
    public init(policy: Policy, outcomes: [ExpectationOutcome], worlds: [World]? = nil) {
        self.policy = policy
        self.outcomes = outcomes
        self.worlds = worlds ?? [policy.world]
        self.passed = outcomes.count { $0.passed }
    }

    /// The world an outcome's decision was made in (a step's: the world before it).
    public func world(for o: ExpectationOutcome) -> World { worlds[worldIndex(for: o)] }

    public func worldIndex(for o: ExpectationOutcome) -> Int {
        let index = o.expectation.index
        let k = index < 0 ? -1 - index : (o.expectation.after ?? worlds.count - 1)
        return min(max(k, 0), worlds.count - 1)
    }

    /// A renderer for one outcome.
    public func renderer(for o: ExpectationOutcome, style: Style) -> TextRenderer {
        TextRenderer(policy: policy, style: style, world: world(for: o))
    }
    public var count: Int { outcomes.count }
    public func forEachOutcome(_ body: (ExpectationOutcome) -> Void) { outcomes.forEach(body) }
}
