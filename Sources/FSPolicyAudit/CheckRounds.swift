// The rounds in which several threads count and render a checked file's expectations.

import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import Foundation
import Synchronization

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
                if let h = all[j].request.path.utf8.withContiguousStorageIfAvailable({ World.fnv($0) }) {
                    hashes[k] = h
                } else {
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
                    report.render(
                        i, of: all.baseAddress!, passed: passed, tracing: tracing, passTrace: passTrace, slice: s,
                        render: render, into: &o.out)
                }
            }
        }
    }
}
