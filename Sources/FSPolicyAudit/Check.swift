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
    func renderOutcomes(passed: PassedOutcomes, tracing: Bool, style: Style,
                        render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
                        write: (UnsafeBufferPointer<UInt8>) throws -> Void) throws
}

extension CheckedFile {
    /// One outcome after the other, on this thread.
    public func renderOutcomes(passed: PassedOutcomes, tracing: Bool, style: Style,
                               render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
                               write: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
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

/// A checked file whose outcomes are not kept: the expectations are decided once to count them
/// (without a trace; which passed is kept, a bit each), and those a report needs are decided
/// again, one at a time, while it is written, so memory does not grow with their number.
/// Decisions are deterministic and the trace never changes a verdict, so both passes agree
/// (`CheckPassesTests` compares them).
///
/// A report that writes its counts after its results (JSON) needs no counting pass:
/// `uncounted` decides each expectation once, as it is written, and counts it then; `passed`
/// is known once the outcomes have been rendered (`renderOutcomes`, `forEachOutcome`).
public struct StreamedFileReport: CheckedFile {
    public let evaluator: Evaluator
    public let count: Int
    public var findings: [Diagnostic] = []
    public var policy: Policy { evaluator.policy }
    /// How many passed: counted before (`init`), or while the outcomes were last rendered.
    public var passed: Int {
        guard let tally else { return countedPassed }
        guard let n = tally.passed else { preconditionFailure("an uncounted report's passes are known once its outcomes are rendered") }
        return n
    }
    let countedPassed: Int
    /// Bit `i` is set when expectation `i` passed (empty when uncounted).
    let passBits: [UInt64]
    /// Set for a report counted while it is rendered.
    let tally: Tally?
    /// Told of every index as the expectations are decided (for a progress line).
    let progress: (Int) -> Void
    /// How many threads decide and render a big file's expectations (as many as cores, up to 8).
    let threads: Int

    /// The threads asked for, or as many as cores; from 1 to 8.
    static func threadCount(_ asked: Int?) -> Int { Workers.count(asked) }

    /// How many passed, once an uncounted report has been rendered.
    final class Tally: @unchecked Sendable {
        var passed: Int? = nil
    }

    /// How many are unknown: none in a world that holds everything it names (no `unread`
    /// mark); otherwise the failures are decided again once, without a trace, and counted.
    public var unknown: Int {
        if let n = unknownCount.value { return n }
        var n = 0
        if !evaluator.policy.world.unread.isEmpty {
            n = evaluator.checkSteps().count { $0.isUnknown }
            var credentials = CredentialCache()
            for (i, e) in evaluator.policy.expectations.enumerated() {
                if tally == nil && passBits[i >> 6] & (1 << UInt64(i & 63)) != 0 { continue }
                if evaluator.check(e, tracing: false, credentials: &credentials).isUnknown { n += 1 }
            }
        }
        unknownCount.value = n
        return n
    }
    final class UnknownCount: @unchecked Sendable { var value: Int? = nil }
    let unknownCount = UnknownCount()

    /// Leaves the expectations undecided until the report is rendered (its `passed` is known
    /// from then on); `progress(i)` is called as they are decided then.
    public static func uncounted(evaluator: Evaluator, threads: Int? = nil, progress: @escaping (Int) -> Void = { _ in }) -> StreamedFileReport {
        StreamedFileReport(uncounted: evaluator, threads: threads, progress: progress)
    }

    private init(uncounted evaluator: Evaluator, threads: Int?, progress: @escaping (Int) -> Void) {
        self.evaluator = evaluator
        self.threads = StreamedFileReport.threadCount(threads)
        self.count = evaluator.checkSteps().count + evaluator.policy.expectations.count
        self.passBits = []
        self.countedPassed = 0
        self.tally = Tally()
        // (Nothing to render, nothing passed.)
        if count == 0 { tally?.passed = 0 }
        self.progress = progress
    }

    /// Decides every expectation once, counting; `progress(i)` is called as they go.
    public init(evaluator: Evaluator, threads: Int? = nil, progress: (Int) -> Void = { _ in }) {
        self.evaluator = evaluator
        self.threads = StreamedFileReport.threadCount(threads)
        let steps = evaluator.checkSteps()
        self.count = steps.count + evaluator.policy.expectations.count
        self.tally = nil
        self.progress = { _ in }
        var passed = steps.count { $0.passed }
        let expectations = evaluator.policy.expectations
        var bits = [UInt64](repeating: 0, count: (expectations.count + 63) / 64)
        let n = expectations.count
        let workers = n >= 4096 ? self.threads : 1
        // Rounds of chunks, taken by the threads one at a time (a chunk is whole words of the
        // bit set, so no two threads write the same word); progress is told of every index
        // after each round.
        let chunk = 512, perRound = 8 * workers
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        defer { counts.deallocate() }
        bits.withUnsafeMutableBufferPointer { words in
            var start = 0
            while start < n {
                let end = min(n, start + chunk * perRound)
                counts.initialize(repeating: 0)
                let job = CountJob(evaluator: evaluator, words: words, counts: counts, start: start, end: end, chunk: chunk)
                if workers == 1 { job.run(0) } else {
                    DispatchQueue.concurrentPerform(iterations: workers) { job.run($0) }
                }
                passed += counts.reduce(0, +)
                for i in start..<end { progress(i) }
                start = end
            }
        }
        self.passBits = bits
        self.countedPassed = passed
    }

    public func forEachOutcome(_ body: (ExpectationOutcome) -> Void) { forEachOutcome(decidingPassed: true, body) }

    public func forEachOutcome(decidingPassed: Bool, _ body: (ExpectationOutcome) -> Void) {
        forEachOutcome(decidingPassed: decidingPassed, tracing: true, body)
    }

    public func forEachOutcome(decidingPassed: Bool, tracing: Bool, _ body: (ExpectationOutcome) -> Void) {
        var passed = 0
        for o in evaluator.checkSteps() {
            if o.passed { passed += 1 }
            body(o)
        }
        let expectations = evaluator.policy.expectations
        var credentials = CredentialCache()
        for i in expectations.indices {
            if !decidingPassed && tally == nil && passBits[i >> 6] & (1 << UInt64(i & 63)) != 0 {
                body(ExpectationOutcome(expectation: expectations[i], passed: true))
            } else {
                let o = evaluator.check(expectations[i], tracing: tracing ? nil : false, credentials: &credentials)
                if o.passed { passed += 1 }
                body(o)
            }
        }
        tally?.passed = passed
    }

    public func renderer(for o: ExpectationOutcome, style: Style) -> TextRenderer {
        TextRenderer(policy: policy, style: style, world: evaluator.worlds[worldIndex(for: o)])
    }

    /// Expectations are rendered in chunks on several threads (as many as cores, up to 8; one
    /// for a small file), the chunks written in order, each round's while the next is rendered.
    /// Each thread has its own credentials and renderers; the world and the policy are only read.
    public func renderOutcomes(passed: PassedOutcomes, tracing: Bool, style: Style,
                               render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
                               write: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let expectations = evaluator.policy.expectations
        let n = expectations.count
        let workers = n >= 4096 ? self.threads : 1
        var out = ByteBuffer(capacity: 1 << 16)
        let steps = RendererCache(self, style: style)
        var stepsPassed = 0
        for o in evaluator.checkSteps() {
            if o.passed { stepsPassed += 1 }
            if passed != .skipped || !o.passed { render(o, steps.renderer(for: o), &out) }
        }
        try write(out.bytes(from: 0))
        out.removeAll()
        let slices = (0..<workers).map { _ in RenderSlice(self, style: style) }
        // The note that a decision rests on assumed folders is made from its trace: in a world
        // with any, a pass is decided with it (a report leaves it out all the same).
        let passTrace: Bool
        if case .decided(let traced) = passed { passTrace = traced || !evaluator.policy.world.assumedNodes.isEmpty } else { passTrace = false }
        // Rounds of chunks, taken by the threads one at a time, each rendered into its own
        // buffer. With several threads, a round is rendered into one set of buffers while this
        // thread writes the round before from the other, in order: writing a big report to a
        // file or a pipe costs the kernel about as much as rendering it, and the threads would
        // otherwise wait for it at the end of every round.
        let chunk = 256, perRound = 8 * workers
        let sets = (0..<(workers == 1 ? 1 : 2)).map { _ in (0..<perRound).map { _ in ChunkBytes() } }
        /// The round rendered last and not written yet.
        var pending: (outs: [ChunkBytes], chunks: Int)? = nil
        func writeRound(_ r: (outs: [ChunkBytes], chunks: Int)) throws {
            for k in 0..<r.chunks where !r.outs[k].out.isEmpty { try write(r.outs[k].out.bytes(from: 0)) }
        }
        var start = 0, round = 0
        while start < n {
            let end = min(n, start + chunk * perRound)
            let outs = sets[round % sets.count]
            let job = RenderJob(report: self, slices: slices, outs: outs, counter: ChunkCounter(), start: start, end: end,
                                chunk: chunk, passed: passed, tracing: tracing, passTrace: passTrace, render: render)
            if workers == 1 {
                job.run(0)
                try writeRound((outs, job.chunks))
            } else if let r = pending {
                // The first of the round's tasks writes the round before (the thread that takes
                // it renders too once it is done); the others render.
                let failure = try withoutActuallyEscaping(writeRound) { writeRound in
                    let writer = RoundWriter(r, writeRound)
                    DispatchQueue.concurrentPerform(iterations: workers + 1) { w in
                        if w == 0 { writer.run() } else { job.run(w - 1) }
                    }
                    return writer.failure
                }
                if let failure { throw failure }
            } else {
                DispatchQueue.concurrentPerform(iterations: workers) { job.run($0) }
            }
            if workers > 1 { pending = (outs, job.chunks) }
            if tally != nil { for i in start..<end { progress(i) } }
            start = end
            round += 1
        }
        if let r = pending { try writeRound(r) }
        tally?.passed = slices.reduce(stepsPassed) { $0 + $1.passed }
    }

    /// Renders expectation `i`'s outcome into `out` (a pass as `passed` says, decided with its
    /// trace when `passTrace`), with the credentials and renderers of `s`, the thread's slice.
    /// The expectation is read where it is in the policy's list (`all`): a copy of it would
    /// retain and release each of its strings, for every expectation of the file.
    func render(_ i: Int, of all: UnsafePointer<Expectation>, passed: PassedOutcomes, tracing: Bool, passTrace: Bool, slice s: RenderSlice,
                render: (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void, into out: inout ByteBuffer) {
        let e = all + i
        let o: ExpectationOutcome
        if tally != nil {
            // Not counted before: decided now, once, and counted. A pass is decided as the
            // counted report decides it (with its trace only when `passTrace`: a traced decision
            // may carry notes an untraced one leaves out, so a pass must not take the trace just
            // because it was cheaper); a failure decided without its trace is decided again
            // with it (only a plain `as:` expectation has one: the others ignore `tracing`).
            var d = evaluator.checkForReport(e.pointee, passTrace: passTrace, failTrace: tracing, credentials: &s.credentials)
            if d.passed {
                s.passed += 1
                switch passed {
                case .skipped: return
                case .undecided: d = ExpectationOutcome(expectation: e.pointee, passed: true)
                case .decided: break
                }
            }
            o = d
        } else if passBits[i >> 6] & (1 << UInt64(i & 63)) != 0 {
            switch passed {
            case .skipped: return
            case .undecided: o = ExpectationOutcome(expectation: e.pointee, passed: true)
            case .decided:
                o = evaluator.check(e.pointee, tracing: passTrace ? nil : false, credentials: &s.credentials)
            }
        } else {
            o = evaluator.check(e.pointee, tracing: tracing ? nil : false, credentials: &s.credentials)
        }
        render(o, s.renderers.renderer(for: o), &out)
    }

    public func worldIndex(for o: ExpectationOutcome) -> Int {
        let index = o.expectation.index
        let k = index < 0 ? -1 - index : (o.expectation.after ?? evaluator.worlds.count - 1)
        return min(max(k, 0), evaluator.worlds.count - 1)
    }
}

/// A round's chunks, handed out one at a time in order: a thread that drew quick ones takes
/// more, so none waits long for another at the end of a round.
final class ChunkCounter: @unchecked Sendable {
    private let next = Atomic<Int>(0)
    func take() -> Int { next.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// One round of counting: the threads decide the chunks of [start, end) they take, setting the
/// bits of those chunks' words and adding to their own count (`counts[w]`).
struct CountJob: @unchecked Sendable {
    let evaluator: Evaluator
    let words: UnsafeMutableBufferPointer<UInt64>
    let counts: UnsafeMutableBufferPointer<Int>
    let start: Int, end: Int, chunk: Int
    let counter = ChunkCounter()

    func run(_ w: Int) {
        let expectations = evaluator.policy.expectations
        var credentials = CredentialCache()
        var passed = 0
        let ahead = ReadAhead()
        while true {
            let from = start + counter.take() * chunk
            guard from < end else { break }
            for i in from..<min(end, from + chunk) {
                ahead.before(i, of: expectations, upTo: end, in: evaluator)
                if evaluator.passes(expectations[i], credentials: &credentials) {
                    passed += 1
                    words[i >> 6] |= 1 << UInt64(i & 63)
                }
            }
        }
        counts[w] = passed
    }
}

/// Reading ahead for a thread that decides expectations in order: before every `batch`-th one,
/// what deciding the next `batch` will read in the world after all steps (`World.readAhead`),
/// so that their cache misses overlap instead of each decision waiting for its own in turn.
final class ReadAhead {
    static let batch = 16
    let hashes = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: ReadAhead.batch)
    /// The expectations it has read ahead for (one thread uses it: not checked at run time).
    @exclusivity(unchecked) var done = 0..<0
    /// Folds what was read (so that the loads are kept).
    @exclusivity(unchecked) var sink: Int32 = 0
    deinit { hashes.deallocate() }

    @inline(__always) func before(_ i: Int, of expectations: [Expectation], upTo end: Int, in ev: Evaluator) {
        if done.contains(i) { return }
        done = i..<min(end, i + ReadAhead.batch)
        var k = 0
        let last = ev.worlds.count - 1
        expectations.withUnsafeBufferPointer { all in
            for j in done where (all[j].after ?? last) >= last {
                // The path's bytes read in place (a copy of the string would retain it).
                if let h = all[j].request.path.utf8.withContiguousStorageIfAvailable({ World.fnv($0) }) { hashes[k] = h } else {
                    var p = all[j].request.path
                    hashes[k] = p.withUTF8 { World.fnv($0) }
                }
                k += 1
            }
        }
        sink ^= ev.authorizer.readAhead(UnsafeMutableBufferPointer(rebasing: hashes[0..<k]))
    }
}

/// What one thread renders with: its own credentials and renderers.
final class RenderSlice: @unchecked Sendable {
    // One thread renders with a slice: its accesses are not checked at run time.
    @exclusivity(unchecked) var credentials = CredentialCache()
    /// How many of the expectations it decided passed (for a report counted as it is rendered).
    @exclusivity(unchecked) var passed = 0
    let ahead = ReadAhead()
    let renderers: RendererCache
    init(_ r: StreamedFileReport, style: Style) { renderers = RendererCache(r, style: style) }
}

/// Writes a round's chunks from a rendering task (`renderOutcomes`); only that task calls the
/// writing function, while the caller waits for the round.
final class RoundWriter: @unchecked Sendable {
    let round: (outs: [ChunkBytes], chunks: Int)
    let write: ((outs: [ChunkBytes], chunks: Int)) throws -> Void
    var failure: Error?
    init(_ round: (outs: [ChunkBytes], chunks: Int), _ write: @escaping ((outs: [ChunkBytes], chunks: Int)) throws -> Void) {
        self.round = round
        self.write = write
    }
    func run() {
        do { try write(round) } catch { failure = error }
    }
}

/// The bytes of one chunk of a round (one thread writes them, the round's caller reads them).
final class ChunkBytes: @unchecked Sendable {
    // Written by one thread, then read by another after the round (not checked at run time).
    @exclusivity(unchecked) var out = ByteBuffer(capacity: 1 << 14)
}

/// One round of `renderOutcomes`: chunk `k` of [start, end) is rendered by whichever thread
/// takes it, with that thread's `RenderSlice`, into `outs[k]`.
struct RenderJob: @unchecked Sendable {
    let report: StreamedFileReport
    let slices: [RenderSlice]
    let outs: [ChunkBytes]
    let counter: ChunkCounter
    let start: Int, end: Int, chunk: Int
    let passed: PassedOutcomes, tracing: Bool
    /// Whether a pass is decided with its trace (`StreamedFileReport.render`).
    let passTrace: Bool
    let render: @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void
    /// How many chunks the round has.
    var chunks: Int { (end - start + chunk - 1) / chunk }

    func run(_ w: Int) {
        let s = slices[w]
        let expectations = report.evaluator.policy.expectations
        while true {
            let k = counter.take()
            guard k < chunks else { break }
            let o = outs[k]
            o.out.removeAll()
            let from = start + k * chunk
            expectations.withUnsafeBufferPointer { all in
                for i in from..<min(end, from + chunk) {
                    s.ahead.before(i, of: expectations, upTo: end, in: report.evaluator)
                    report.render(i, of: all.baseAddress!, passed: passed, tracing: tracing, passTrace: passTrace, slice: s,
                                  render: render, into: &o.out)
                }
            }
        }
    }
}

/// Each subject's credential, made once while many expectations are checked (making one walks
/// the subject's groups).
public struct CredentialCache {
    var made: [Key: Credential?] = [:]
    struct Key: Hashable {
        var subject: SubjectRef
        var after: Int
    }
    /// Users' credentials in the world after all steps (the common expectation's), by uid in
    /// 64 slots, each the last uid that fell in it: found without hashing a `Key`.
    var users = [(uid: UID, credential: Credential?)?](repeating: nil, count: 64)
    /// A request of each user in the world after all steps, in 64 slots like `users`, its
    /// operation and path changed for each question (`withRequest`).
    let requests = RequestSlots()
    public init() {}

    /// `body` with the request of user `uid` in the world after all steps, its operation and
    /// path those of `spec` (which has no other argument): what `Evaluator.request(spec,
    /// credential:)` makes of the user's credential, made once and changed in place.
    mutating func withRequest<R>(user uid: UID, _ spec: RequestSpec, in ev: Evaluator, _ body: (inout Request) -> R) -> R? {
        let slot = Int(truncatingIfNeeded: uid & 63)
        let r = requests.requests + slot
        if requests.users[slot] != Int64(uid) {
            guard let c = credential(.user(uid), after: nil, in: ev) else { return nil }
            let made = ev.request(RequestSpec(op: spec.op, path: spec.path), credential: c)
            if requests.users[slot] >= 0 { r.pointee = made } else { r.initialize(to: made) }
            requests.users[slot] = Int64(uid)
        }
        r.pointee.op = spec.op
        r.pointee.path = spec.path
        return body(&r.pointee)
    }

    /// `requests`' slots: the requests where they are (an array's element is checked for
    /// uniqueness each time it is changed) and the user of each, -1 for an empty slot. One
    /// thread uses a cache (each rendering thread has its own).
    final class RequestSlots {
        let requests = UnsafeMutablePointer<Request>.allocate(capacity: 64)
        let users = UnsafeMutablePointer<Int64>.allocate(capacity: 64)
        init() { users.initialize(repeating: -1, count: 64) }
        deinit {
            for k in 0..<64 where users[k] >= 0 { (requests + k).deinitialize(count: 1) }
            requests.deallocate()
            users.deallocate()
        }
    }

    mutating func credential(_ s: SubjectRef, after: Int?, in ev: Evaluator) -> Credential? {
        if after == nil, case .user(let uid) = s {
            let slot = Int(truncatingIfNeeded: uid & 63)
            if let u = users[slot], u.uid == uid { return u.credential }
            let c = ev.credential(s, after: nil)
            users[slot] = (uid, c)
            return c
        }
        let k = Key(subject: s, after: after ?? -1)
        if let c = made[k] { return c }
        let c = ev.credential(s, after: after)
        made[k] = c
        return c
    }
}

/// Everything needed to ask questions of one loaded policy.
public struct Evaluator: Sendable {
    public let policy: Policy
    /// Decides in the world after all steps.
    public let authorizer: Authorizer
    public let semantics: Semantics
    /// `worlds[k]` is the world after the first k steps (`worlds[0]` is the file's tree). Only
    /// the first, the last and those expectations ask for are kept; the others are made again
    /// from the nearest kept one when asked for, so steps do not each hold a copy of the world.
    public let worlds: StepWorlds
    /// What each step did (authorized, then applied when allowed).
    public let stepOutcomes: [StepOutcome]
    /// How many counterexamples of a quantified expectation are reported with their
    /// explanation (`check --max-examples`); all are counted.
    public var maxExamples = 5

    public init(policy: Policy, semantics: Semantics? = nil, tracing: Bool = true) {
        self.policy = policy
        let sem = semantics ?? policy.semantics
        self.semantics = sem
        var wanted = Set(policy.expectations.compactMap(\.after))
        wanted.insert(0)
        var kept: [Int: World] = [0: policy.world]
        var outcomes: [StepOutcome] = []
        var w = policy.world
        for (i, step) in policy.steps.enumerated() {
            if let o = StepWorlds.apply(step, to: &w, semantics: sem, tracing: tracing) { outcomes.append(o) }
            if wanted.contains(i + 1) { kept[i + 1] = w }
        }
        kept[policy.steps.count] = w
        self.worlds = StepWorlds(policy: policy, semantics: sem, tracing: tracing, kept: kept)
        self.stepOutcomes = outcomes
        self.authorizer = Authorizer(world: w, semantics: sem, tracing: tracing)
    }

    static func makeRequest(_ spec: RequestSpec, subject: Subject) -> Request {
        var r = Request(subject: subject, op: spec.op, path: spec.path)
        // Most requests have no extra argument: nothing to copy or look at.
        if spec.hasExtras {
            r.allExtras = spec.extras
            // A credential of this call only (`groups:`, `umask:`).
            if let g = spec.groups { r.subject = Subject(uid: subject.uid, gid: subject.gid, groups: g, umask: subject.umask) }
            if let m = spec.umask { r.subject.umask = m }
        }
        return r
    }

    /// The world after the first `after` steps (all of them when nil).
    public func world(after: Int?) -> World { worlds[min(after ?? worlds.count - 1, worlds.count - 1)] }

    public func request(_ spec: RequestSpec, uid: UID, after: Int? = nil) -> Request {
        Evaluator.makeRequest(spec, subject: world(after: after).subject(uid: uid))
    }

    public func decide(_ spec: RequestSpec, uid: UID, after: Int? = nil) -> Decision {
        if after == nil || after! >= worlds.count - 1 { return authorizer.decide(request(spec, uid: uid)) }
        return Authorizer(world: world(after: after), semantics: semantics, tracing: authorizer.tracing).decide(request(spec, uid: uid, after: after))
    }

    /// Every declared user (root included), in declaration order, with their decision.
    public func who(_ spec: RequestSpec, after: Int? = nil) -> [(name: String, uid: UID, decision: Decision)] {
        policy.userOrder.compactMap { name in
            guard let u = policy.world.user(named: name) else { return nil }
            return (name, u.uid, decide(spec, uid: u.uid, after: after))
        }
    }

    /// A node's state against the expected one: one line per difference.
    public func stateMismatches(_ st: NodeState, path: String, after: Int?) -> [String] {
        let w = world(after: after)
        let t = TextRenderer(policy: policy, world: w)
        guard let n = w.lookup(path) else {
            return st.exists ? ["\(path) does not exist"] : []
        }
        if !st.exists { return ["\(path) exists"] }
        let node = w[n]
        var out: [String] = []
        if let x = st.type, x != node.type { out.append("type: expected \(x.word), got \(node.type.word)") }
        if let x = st.owner, x != node.uid { out.append("owner: expected \(w.userName(x)), got \(w.userName(node.uid))") }
        if let x = st.group, x != node.gid { out.append("group: expected \(w.groupName(x)), got \(w.groupName(node.gid))") }
        if let x = st.mode, x != node.mode { out.append("mode: expected \(x.octal), got \(node.mode.octal)") }
        if let x = st.flags, x != node.flags { out.append("flags: expected [\(t.flagNames(x).joined(separator: ", "))], got [\(t.flagNames(node.flags).joined(separator: ", "))]") }
        if st.aclGiven {
            if semantics == .linux || st.posixACL != nil {
                let actual = w.posixACL(of: n)
                if actual != st.posixACL {
                    func show(_ a: POSIXACL?) -> String { a.map { t.posixLines($0).joined(separator: ", ") } ?? "none" }
                    out.append("acl: expected [\(show(st.posixACL))], got [\(show(actual))]")
                }
            } else {
                let actual = w.acl(of: n)
                if actual != st.acl {
                    func show(_ a: ACL?) -> String { a.map { $0.entries.map { "\"" + w.aceText($0, forDirectory: nil) + "\"" }.joined(separator: ", ") } ?? "none" }
                    out.append("acl: expected [\(show(st.acl))], got [\(show(actual))]")
                }
            }
        }
        if st.defaultACLGiven, w.defaultPOSIXACL(of: n) != st.defaultACL {
            func show(_ a: POSIXACL?) -> String { a.map { t.posixLines($0).joined(separator: ", ") } ?? "none" }
            out.append("defaultAcl: expected [\(show(st.defaultACL))], got [\(show(w.defaultPOSIXACL(of: n)))]")
        }
        return out
    }

    /// Steps as checks: each must be allowed (or denied, when it says `result: deny`).
    public func checkSteps() -> [ExpectationOutcome] {
        var outs: [ExpectationOutcome] = []
        for (i, step) in policy.steps.enumerated() where i < stepOutcomes.count {
            var e = Expectation(index: -1 - i, location: step.location, request: step.request)
            e.name = "step \(i + 1): " + step.label
            e.asText = step.asText
            e.subject = step.subject
            e.result = !step.expectDeny
            e.errno = step.errno
            e.layer = step.layer
            let d = stepOutcomes[i].decision
            var o = ExpectationOutcome(expectation: e, passed: true, decision: d)
            if d.allowed == step.expectDeny {
                o.mismatches.append(step.expectDeny ? "the step was expected to be denied, but it was allowed (and applied)"
                                                     : "the step was denied, so it was not applied")
            }
            if let x = step.errno, x != d.errno { o.mismatches.append("errno: expected \(x.rawValue), got \(d.errno?.rawValue ?? "none")") }
            if let x = step.layer, x != d.layer { o.mismatches.append("layer: expected \(x.rawValue), got \(d.layer.rawValue)") }
            o.passed = o.mismatches.isEmpty
            outs.append(o)
        }
        return outs
    }

    public func check(_ e: Expectation) -> ExpectationOutcome {
        var credentials = CredentialCache()
        return check(e, credentials: &credentials)
    }

    /// `tracing: false`: the decision has no trace (the verdict, errno, layer and rule are the
    /// same); for counting.
    public func check(_ e: Expectation, tracing: Bool? = nil, credentials: inout CredentialCache) -> ExpectationOutcome {
        if e.isQuantified { return checkQuantified(e) }
        if let st = e.state {
            var out = ExpectationOutcome(expectation: e, passed: true)
            out.mismatches = stateMismatches(st, path: e.request.path, after: e.after)
            out.passed = out.mismatches.isEmpty
            return out
        }
        if let allowed = e.allowed {
            var out = ExpectationOutcome(expectation: e, passed: true)
            // Apps count only when the list names one (format v1).
            let apps = allowed.contains(where: policy.appIDs.contains) ? whoApps(e.request, after: e.after) : []
            let actual = (who(e.request, after: e.after) + apps).filter { $0.decision.allowed }.map(\.name)
            out.actualAllowed = actual
            out.unexpectedlyAllowed = actual.filter { !allowed.contains($0) }
            out.unexpectedlyDenied = allowed.filter { !actual.contains($0) }
            if !out.unexpectedlyAllowed.isEmpty { out.mismatches.append("also allowed: " + out.unexpectedlyAllowed.joined(separator: ", ")) }
            if !out.unexpectedlyDenied.isEmpty { out.mismatches.append("not allowed: " + out.unexpectedlyDenied.joined(separator: ", ")) }
            out.passed = out.mismatches.isEmpty
            return out
        }
        guard let subject = e.subject, let d = decide(e, subject, tracing: tracing, credentials: &credentials) else {
            return ExpectationOutcome(expectation: e, passed: false, mismatches: ["unknown subject `\(e.asText ?? "?")`"])
        }
        let mismatches = Evaluator.mismatches(e, d)
        // The outcome made once, the decision moved into it (a copy retains its trace).
        return ExpectationOutcome(expectation: e, passed: mismatches.isEmpty, decision: consume d, mismatches: mismatches)
    }

    /// What differs between the decision `d` and what the expectation `e` of one request says.
    static func mismatches(_ e: Expectation, _ d: Decision) -> [String] {
        // Neither allowed nor denied (P6): whatever it expects, the expectation cannot hold.
        if d.unknown {
            let want = e.result.map { $0 ? "allow" : "deny" } ?? e.errno.map { "deny \($0.rawValue)" } ?? e.layer.map { "layer \($0.rawValue)" } ?? "an answer"
            return ["result: expected \(want), got unknown"]
        }
        // The common failure, the verdict alone: one of two lists made once (not a list a failure).
        if let want = e.result, want != d.allowed, e.errno == nil || e.errno == d.errno, e.layer == nil || e.layer == d.layer {
            return want ? expectedAllow : expectedDeny
        }
        var mismatches: [String] = []
        if let want = e.result, want != d.allowed {
            mismatches.append(want ? expectedAllow[0] : expectedDeny[0])
        }
        if let want = e.errno, want != d.errno {
            mismatches.append("errno: expected \(want.rawValue), got \(d.errno?.rawValue ?? "none")")
        }
        if let want = e.layer, want != d.layer {
            mismatches.append("layer: expected \(want.rawValue), got \(d.layer.rawValue)")
        }
        return mismatches
    }

    static let expectedAllow = ["result: expected allow, got deny"]
    static let expectedDeny = ["result: expected deny, got allow"]

    /// Whether the decision `d` is what the expectation `e` of one request says.
    @inline(__always) static func holds(_ e: Expectation, _ d: Decision) -> Bool {
        if d.unknown { return false }
        if let want = e.result, want != d.allowed { return false }
        if let want = e.errno, want != d.errno { return false }
        if let want = e.layer, want != d.layer { return false }
        return true
    }

    /// `check(e, tracing: passTrace ? nil : false, …)` for a report that decides each
    /// expectation as it is written, a failure decided again with its trace when `failTrace`
    /// (a pass decided without it, unless `passTrace`: see `StreamedFileReport.render`). An
    /// expectation of one subject's request makes one outcome (and one list of mismatches),
    /// however often it is decided.
    public func checkForReport(_ e: Expectation, passTrace: Bool, failTrace: Bool, credentials: inout CredentialCache) -> ExpectationOutcome {
        guard e.decidesOneRequest, let subject = e.subject,
              let d = decide(e, subject, tracing: passTrace ? nil : false, credentials: &credentials) else {
            return check(e, tracing: passTrace ? nil : false, credentials: &credentials)
        }
        if Evaluator.holds(e, d) { return ExpectationOutcome(expectation: e, passed: true, decision: consume d) }
        // The verdict, errno, layer and rule of a traced decision are the untraced one's.
        if failTrace && !passTrace, let traced = decide(e, subject, tracing: nil, credentials: &credentials) {
            let mismatches = Evaluator.mismatches(e, traced)
            return ExpectationOutcome(expectation: e, passed: false, decision: consume traced, mismatches: mismatches)
        }
        let mismatches = Evaluator.mismatches(e, d)
        return ExpectationOutcome(expectation: e, passed: false, decision: consume d, mismatches: mismatches)
    }

    /// Whether `e` holds: `check(e, tracing: false, …).passed`, without writing the words of
    /// its mismatches for the common expectation of one subject's request (for counting).
    public func passes(_ e: Expectation, credentials: inout CredentialCache) -> Bool {
        guard !e.isQuantified, e.state == nil, e.allowed == nil, let subject = e.subject,
              let d = decide(e, subject, tracing: false, credentials: &credentials) else {
            return check(e, tracing: false, credentials: &credentials).passed
        }
        return Evaluator.holds(e, d)
    }

    /// The decision of the request of `e`, asked by `subject` (its own), nil for an unknown
    /// subject. The common question, a user's in the world after all steps with no argument
    /// but the path, is asked with the user's request kept in `credentials` and changed in
    /// place: making a request copies the credential's subject, retaining and releasing its
    /// lists of groups, on every expectation of a file.
    func decide(_ e: Expectation, _ subject: SubjectRef, tracing: Bool?, credentials: inout CredentialCache) -> Decision? {
        if e.after == nil, case .user(let uid) = subject, !e.request.hasExtras {
            let a = authorizer(after: nil, tracing: tracing)
            return credentials.withRequest(user: uid, e.request, in: self) { a.decide(inPlace: &$0) }
        }
        guard let c = credentials.credential(subject, after: e.after, in: self) else { return nil }
        return decide(e.request, credential: c, after: e.after, tracing: tracing)
    }

    public func checkAll() -> FileReport {
        FileReport(policy: policy, outcomes: checkSteps() + policy.expectations.map(check), worlds: (0..<worlds.count).map { worlds[$0] })
    }
}

/// The worlds between steps, without a copy per step: the kept ones (the file's tree, the final
/// world, those expectations name with `after`) and one more, the last made again on demand by
/// replaying steps from the nearest kept world before it (asked in order, as reports do, each
/// step is replayed once).
public final class StepWorlds: @unchecked Sendable {
    let policy: Policy
    let semantics: Semantics
    let tracing: Bool
    let kept: [Int: World]
    private var recent: (index: Int, world: World)? = nil
    private let lock = NSLock()

    init(policy: Policy, semantics: Semantics, tracing: Bool, kept: [Int: World]) {
        self.policy = policy
        self.semantics = semantics
        self.tracing = tracing
        self.kept = kept
    }

    /// How many worlds there are: one more than there are steps.
    public var count: Int { policy.steps.count + 1 }
    public var last: World? { self[count - 1] }

    public subscript(k: Int) -> World {
        if let w = kept[k] { return w }
        lock.lock()
        defer { lock.unlock() }
        var start = kept.keys.filter { $0 < k }.max() ?? 0
        var w = kept[start]!
        if let r = recent, r.index <= k, r.index >= start { start = r.index; w = r.world }
        recent = nil
        for i in start..<k { _ = StepWorlds.apply(policy.steps[i], to: &w, semantics: semantics, tracing: false) }
        recent = (k, w)
        return w
    }

    /// Applies one step (authorized first); nil when its subject is unknown.
    static func apply(_ step: Step, to w: inout World, semantics: Semantics, tracing: Bool) -> StepOutcome? {
        var r: Request? = nil
        switch step.subject {
        case .user(let uid)?: r = Evaluator.makeRequest(step.request, subject: w.subject(uid: uid))
        case .app(let id)?:
            // An app's step passes its sandbox and TCC first, and creates with its umask.
            if let i = w.appIndex(id) { r = Evaluator.makeRequest(step.request, subject: w.subject(app: i)); r?.app = i }
        case .service(let name)?:
            if let i = w.serviceIndex(name) { r = Evaluator.makeRequest(step.request, subject: w.subject(service: i)) }
        case .process(let uid, let caps)?:
            r = Evaluator.makeRequest(step.request, subject: w.subject(uid: uid, caps: caps))
        case nil: break
        }
        guard let r else { return nil }
        return Mutator.apply(r, to: &w, semantics: semantics, tracing: tracing)
    }
}
