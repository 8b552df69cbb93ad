#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output could not be written: a message for `fspolicy: error: …`.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

func errnoText(_ e: Int32) -> String { String(cString: strerror(e)) }

/// Writing to standard output, standard error and files without ever crashing: every failure
/// is an `OutputError` (full disk, closed stream, a target that is not a regular file).
public enum SafeOutput {
    /// Call once at startup. A standard stream the caller closed (`>&-`) gets `/dev/null`
    /// opened in the other direction: writes to it then fail (EBADF) and are reported, and no
    /// file opened later can take its descriptor (a policy written to "standard output" would
    /// otherwise land in whatever file got descriptor 1).
    public static func guardStandardStreams() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY)
            if n >= 0 && n != fd { _ = dup2(n, fd); _ = close(n) }
        }
    }

    /// Writes every byte to `fd`, retrying short writes and EINTR.
    public static func writeAll(fd: Int32, _ bytes: [UInt8]) throws(OutputError) {
        try bytes.withUnsafeBufferPointer { p throws(OutputError) in try writeAll(fd: fd, p) }
    }

    public static func writeAll(fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) throws(OutputError) {
        guard let base = bytes.baseAddress else { return }
        var off = 0
        while off < bytes.count {
            let n = write(fd, base + off, bytes.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError(errnoText(errno))
            }
            off += n
        }
    }

    /// Standard output, given as bytes.
    public static func stdout(bytes: UnsafeBufferPointer<UInt8>) throws(OutputError) {
        do { try writeAll(fd: 1, bytes) } catch { throw OutputError("cannot write standard output: \(error.message)") }
    }

    /// Standard output, as the CLI uses it.
    public static func stdout(_ text: String) throws(OutputError) {
        do { try writeAll(fd: 1, Array(text.utf8)) } catch { throw OutputError("cannot write standard output: \(error.message)") }
    }

    /// Standard error; failures are ignored (there is nowhere left to report them).
    public static func stderr(_ text: String) {
        try? writeAll(fd: 2, Array(text.utf8))
    }

    /// Paths that mean standard output for `--output`/`-o`.
    public static func isStandardOutput(_ path: String) -> Bool { path == "-" || path == "/dev/stdout" }

    /// Writes `bytes` to the file `path` without ever leaving it half-written, and without
    /// writing through anything that is not a regular file:
    ///
    /// - absent, or a regular file with one link: a temporary file in the same directory gets
    ///   the bytes (and the old file's owner and mode), is flushed, and is renamed over it;
    /// - a regular file with several hard links, or one whose owner cannot be given to the
    ///   temporary file: the bytes are written in place (space reserved first, so a full disk
    ///   fails before the old content is touched), so every link sees the new content;
    /// - a symlink: refused, unless `followSymlinks`, then the rules apply to its final target;
    /// - a directory, device, FIFO or socket: refused.
    public static func writeFile(_ path: String, _ bytes: [UInt8], followSymlinks: Bool = false) throws(OutputError) {
        let target = try resolveTarget(path, followSymlinks: followSymlinks)
        var st = stat()
        if lstat(target, &st) != 0 { return try replace(target, bytes, keep: nil, shown: path) }
        if st.st_nlink > 1 { return try inPlace(target, bytes, shown: path) }
        return try replace(target, bytes, keep: st, shown: path)
    }

    /// The file to write for `path`: itself, or with `followSymlinks` the end of its chain of
    /// symlinks. Throws for a symlink without `followSymlinks`, a directory, a device, a FIFO
    /// or a socket. The result is absent or a regular file.
    public static func resolveTarget(_ path: String, followSymlinks: Bool) throws(OutputError) -> String {
        var target = path
        var hops = 0
        while true {
            var st = stat()
            if lstat(target, &st) != 0 {
                let e = errno
                if e == ENOENT { return target }
                throw OutputError("cannot write `\(path)`: \(errnoText(e))")
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                return target
            case S_IFLNK:
                guard followSymlinks else {
                    throw OutputError("cannot write `\(path)`: it is a symbolic link (give --follow-symlinks to write to the file it points to)")
                }
                hops += 1
                if hops > 40 { throw OutputError("cannot write `\(path)`: \(errnoText(ELOOP))") }
                var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let n = readlink(target, &buf, Int(PATH_MAX))
                if n < 0 { throw OutputError("cannot write `\(path)`: \(errnoText(errno))") }
                let link = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                target = link.hasPrefix("/") ? link : directory(of: target) + "/" + link
            case S_IFDIR:
                throw OutputError("cannot write `\(path)`: it is a directory")
            default:
                let what: String
                switch st.st_mode & S_IFMT {
                case S_IFCHR, S_IFBLK: what = "a device"
                case S_IFIFO: what = "a FIFO"
                case S_IFSOCK: what = "a socket"
                default: what = "not a regular file"
                }
                throw OutputError("cannot write `\(path)`: it is \(what); fspolicy writes only regular files (use `-` or a shell redirection for anything else)")
            }
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// Temporary file next to `target`, then rename. `keep`: the old file's stat, whose owner
    /// and mode the new file takes (falls back to writing in place when the owner cannot be kept).
    static func replace(_ target: String, _ bytes: [UInt8], keep: stat?, shown: String? = nil) throws(OutputError) {
        let shown = shown ?? target
        let dir = directory(of: target)
        let base = target.split(separator: "/").last.map(String.init) ?? "out"
        var template = Array((dir + "/." + String(base.prefix(200)) + ".fspolicy-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(errno))") }
        let tmp = String(cString: template)
        var ok = false
        defer { if !ok { _ = unlink(tmp) } }
        do throws(OutputError) {
            if let old = keep {
                if fchown(fd, old.st_uid, old.st_gid) != 0 {
                    _ = close(fd); _ = unlink(tmp); ok = true
                    // Not allowed to give the file its owner: rewrite it in place instead.
                    return try inPlace(target, bytes, shown: shown)
                }
                if fchmod(fd, old.st_mode & 0o7777) != 0 { throw OutputError(errnoText(errno)) }
            } else {
                // mkstemp makes 0600; a new file gets what a plain creation would (0666 & ~umask).
                let mask = umask(0); _ = umask(mask)
                if fchmod(fd, 0o666 & ~mask) != 0 { throw OutputError(errnoText(errno)) }
            }
            try writeAll(fd: fd, bytes)
            if fsync(fd) != 0 { throw OutputError(errnoText(errno)) }
            if close(fd) != 0 { throw OutputError(errnoText(errno)) }
        } catch {
            _ = close(fd)
            throw OutputError("cannot write `\(shown)`: \(error.message)")
        }
        if rename(tmp, target) != 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(errno))") }
        ok = true
    }

    /// Rewrites a regular file in place (keeps its inode: owner, mode, hard links).
    static func inPlace(_ target: String, _ bytes: [UInt8], shown: String) throws(OutputError) {
        let fd = open(target, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(errno))") }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw OutputError("cannot write `\(shown)`: it is not a regular file")
        }
        if bytes.count > 0 {
            #if os(Linux)
            let r = posix_fallocate(fd, 0, off_t(bytes.count))
            if r != 0 && r != EOPNOTSUPP && r != EINVAL { throw OutputError("cannot write `\(shown)`: \(errnoText(r))") }
            #endif
        }
        do throws(OutputError) {
            try writeAll(fd: fd, bytes)
            if ftruncate(fd, off_t(bytes.count)) != 0 { throw OutputError(errnoText(errno)) }
            if fsync(fd) != 0 { throw OutputError(errnoText(errno)) }
        } catch {
            throw OutputError("cannot write `\(shown)`: \(error.message)")
        }
    }
}

/// An output written in pieces (large tables), with the same rules as `SafeOutput.writeFile`:
/// the pieces go to a temporary file next to the target, and `finish()` puts it in place (by
/// rename, or by copying into a hard-linked file); standard output is written as it comes.
public final class SafeStream {
    private var buffer: [UInt8] = []
    private var fd: Int32
    private var tmp: String?
    private let target: String?
    private let shown: String
    private var failure: OutputError?

    /// `path` nil, `-` or `/dev/stdout`: standard output.
    public init(path: String?, followSymlinks: Bool = false) throws(OutputError) {
        guard let p = path, !SafeOutput.isStandardOutput(p) else {
            fd = 1; tmp = nil; target = nil; shown = "standard output"
            return
        }
        shown = "`\(p)`"
        // Checks the target as writeFile does (an empty write that refuses what it must refuse),
        // then streams into a temporary file; finish() writes it with writeFile's rules.
        let resolved = try SafeOutput.resolveTarget(p, followSymlinks: followSymlinks)
        target = resolved
        var template = Array((SafeOutput.directory(of: resolved) + "/.fspolicy-stream-XXXXXX").utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw OutputError("cannot write `\(p)`: \(errnoText(errno))") }
        tmp = String(cString: template)
        buffer.reserveCapacity(1 << 20)
    }

    public func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        guard failure == nil, !buffer.isEmpty else { buffer.removeAll(keepingCapacity: true); return }
        do { try SafeOutput.writeAll(fd: fd, buffer) } catch { failure = error }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left and puts the file in place; any failure on the way is thrown here.
    public func finish() throws(OutputError) {
        flush()
        guard let tmp, let target else {
            if let f = failure { throw OutputError("cannot write standard output: \(f.message)") }
            return
        }
        defer { _ = close(fd); _ = unlink(tmp) }
        if let f = failure { throw OutputError("cannot write \(shown): \(f.message)") }
        // Read the bytes back and write them with writeFile's rules (rename or in place).
        let size = lseek(fd, 0, SEEK_END)
        if size < 0 || lseek(fd, 0, SEEK_SET) != 0 { throw OutputError("cannot write \(shown): \(errnoText(errno))") }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBufferPointer { read(fd, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { if n < 0 && errno == EINTR { continue }; throw OutputError("cannot write \(shown): \(errnoText(errno))") }
            off += n
        }
        try SafeOutput.writeFile(target, bytes, followSymlinks: false)
    }
}
