// A checked file whose outcomes are decided while the report is written, not kept.

import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import Foundation
import Synchronization

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
                if workers == 1 {
                    job.run(0)
                } else {
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
    public func renderOutcomes(
        passed: PassedOutcomes, tracing: Bool, style: Style,
        render: @escaping @Sendable (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void,
        write: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
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
            let job = RenderJob(
                report: self, slices: slices, outs: outs, counter: ChunkCounter(), start: start, end: end,
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
    func render(
        _ i: Int, of all: UnsafePointer<Expectation>, passed: PassedOutcomes, tracing: Bool, passTrace: Bool, slice s: RenderSlice,
        render: (ExpectationOutcome, TextRenderer, inout ByteBuffer) -> Void, into out: inout ByteBuffer
    ) {
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
