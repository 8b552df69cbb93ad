import FSPolicyFormat
import FSPolicyIO

/// The one way a command's output leaves fspolicy: to standard output or to the `--output`
/// file, written safely (`SafeStream`: a file is written through a temporary file put in place
/// at the end, never through a link, never half-written), or kept in memory for a caller that
/// wants the text (`OutputSink()`).
///
/// What is written is gathered (as UTF-8) up to `limit` bytes, then handed on, so a long report
/// never has to exist whole in memory. Text for people (`.escaped`) goes through the one
/// escaping rule, `Escaping.terminal`, one handed-on piece at a time; every other format
/// (`.raw`: JSON, XML, CSV, HTML, YAML) is written as its writer made it.
///
/// Writing never throws: a failure is kept, and `flush()` or `finish()` throws it (`OutputError`:
/// "cannot write …").
public final class OutputSink {
    /// How the bytes are passed on.
    public enum Mode: Sendable, Equatable {
        /// As they are.
        case raw
        /// Through `Escaping.terminal`; `color`: the colors a `Style` asked for become escape
        /// sequences (otherwise they are escaped like any control).
        case escaped(color: Bool)
    }

    private let stream: SafeStream?
    private let mode: Mode
    private let limit: Int
    private var buffer = ByteBuffer(capacity: 1 << 12)

    /// Standard output (`path` nil, `-` or `/dev/stdout`) or the regular file `path` (a
    /// symbolic link only with `followSymlinks`); throws when the file cannot be written, before
    /// anything is.
    public init(path: String?, followSymlinks: Bool = false, mode: Mode = .raw, limit: Int = 1 << 16) throws(OutputError) {
        stream = try SafeStream(path: path, followSymlinks: followSymlinks)
        self.mode = mode
        self.limit = limit
    }

    /// A sink that keeps everything written, for `text`.
    public init() {
        stream = nil
        mode = .raw
        limit = Int.max
    }

    /// Paths that mean standard output for `--output`/`-o`.
    public static func isStandardOutput(_ path: String) -> Bool { SafeOutput.isStandardOutput(path) }

    /// What a sink made by `init()` was given.
    public var text: String { buffer.string }

    public func write(_ s: String) {
        buffer.append(string: s)
        if buffer.count >= limit { handOn() }
    }

    /// Whatever `body` appends to the buffer (valid UTF-8, whole code points), without making a
    /// string of it first.
    public func write(_ body: (inout ByteBuffer) throws -> Void) rethrows {
        try body(&buffer)
        if buffer.count >= limit { handOn() }
    }

    /// Bytes already made (valid UTF-8, whole code points): a big piece goes on as it is, after
    /// what the buffer holds, instead of being copied into it first.
    public func write(bytes: UnsafeBufferPointer<UInt8>) {
        if stream != nil, bytes.count >= limit {
            handOn()
            pass(bytes)
            return
        }
        write { $0.append(bytes) }
    }

    /// A JSON value, emitted by `body` into the buffer through a `JSONWriter` (its inner lines
    /// indented from `indent`; its first line's padding is the caller's).
    public func writeJSON(indent: Int, _ body: (inout JSONWriter) -> Void) {
        var w = JSONWriter(bytes: ByteBuffer(empty: ()), indent: indent)
        swap(&w.bytes, &buffer)
        body(&w)
        swap(&w.bytes, &buffer)
        if buffer.count >= limit { handOn() }
    }

    /// Hands on what is gathered and writes it out now (answers a terminal waits for); throws
    /// a failure so far.
    public func flush() throws(OutputError) {
        handOn()
        try stream?.flush()
    }

    /// Writes what is left and puts the file in place; throws any failure on the way.
    public func finish() throws(OutputError) {
        handOn()
        try stream?.finish()
    }

    /// The gathered bytes, on to the stream (a sink in memory keeps them).
    private func handOn() {
        guard stream != nil, !buffer.isEmpty else { return }
        defer { buffer.removeAll() }
        pass(buffer.bytes(from: 0))
    }

    private func pass(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream else { return }
        switch mode {
        case .escaped(let color) where Escaping.asciiSafe(bytes, keepNewlines: true) != true:
            stream.write(Escaping.terminal(String(decoding: bytes, as: UTF8.self), color: color))
        default:
            stream.write(bytes: bytes)
        }
    }
}
