#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

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

    /// What this process must never write, whichever name reaches it: output names that are
    /// not what the user typed (command-line arguments that were not UTF-8, written with `\ooo`
    /// escapes by the command line: refused, never created under their escaped spelling), and a
    /// file found to be one of the command's inputs (an imported file that is the `--output`
    /// target: its device, inode and why). Set while the command starts and while it loads its
    /// inputs (on any thread), read by every write.
    private static let refusals = Mutex<(names: Set<String>, target: (dev: UInt64, ino: UInt64, why: String)?)>(([], nil))

    /// Refuses to write any of `names` (as the command line spells them).
    public static func refuse(names: Set<String>) {
        refusals.withLock { $0.names.formUnion(names) }
    }

    /// Refuses to write the file with this device and inode, for the reason given.
    public static func refuse(dev: UInt64, ino: UInt64, why: String) {
        refusals.withLock { $0.target = (dev, ino, why) }
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
        let (refusedNames, refusedTarget) = refusals.withLock { ($0.names, $0.target) }
        if refusedNames.contains(path) {
            throw OutputError(
                "cannot write `\(path)`: the name is not UTF-8 text, and fspolicy names the files it writes by text (write to standard output and redirect it)")
        }
        var target = path
        var hops = 0
        while true {
            var st = stat()
            if lstat(target, &st) != 0 {
                let e = errno
                if e == ENOENT { return target }
                // ENOTDIR, or ENOENT from a folder above: name the folder to make.
                throw OutputError("cannot write `\(path)`: \(errnoText(e))" + missingFolderHint(target))
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                if let r = refusedTarget, UInt64(st.st_dev) == r.dev, UInt64(st.st_ino) == r.ino {
                    throw OutputError("cannot write `\(path)`: \(r.why)")
                }
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
                throw OutputError(
                    "cannot write `\(path)`: it is \(what); fspolicy writes only regular files (use `-` or a shell redirection for anything else)")
            }
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// The bytes of an output: a whole array, or the first `size` bytes of a file already
    /// written (a stream's temporary file), copied in pieces.
    enum Content {
        case bytes([UInt8])
        case file(fd: Int32, size: Int)

        var count: Int {
            switch self {
            case .bytes(let b): return b.count;
            case .file(_, let size): return size
            }
        }

        /// Writes the content to `fd` from its current offset.
        func write(to fd: Int32) throws(OutputError) {
            switch self {
            case .bytes(let b): try writeAll(fd: fd, b)
            case .file(let src, let size):
                var chunk = [UInt8](repeating: 0, count: min(size, 1 << 20))
                var off = 0
                while off < size {
                    let n = chunk.withUnsafeMutableBufferPointer { pread(src, $0.baseAddress!, min($0.count, size - off), off_t(off)) }
                    if n < 0 { if errno == EINTR { continue }; throw OutputError(errnoText(errno)) }
                    if n == 0 { throw OutputError("the temporary file ended early") }
                    try chunk.withUnsafeBufferPointer { p throws(OutputError) in try writeAll(fd: fd, UnsafeBufferPointer(rebasing: p[0..<n])) }
                    off += n
                }
            }
        }
    }

    /// Temporary file next to `target`, then rename. `keep`: the old file's stat, whose owner
    /// and mode the new file takes (falls back to writing in place when the owner cannot be kept).
    static func replace(_ target: String, _ bytes: [UInt8], keep: stat?, shown: String? = nil) throws(OutputError) {
        let shown = shown ?? target
        let fd: Int32, tmp: String
        do { (fd, tmp) = try temporaryFile(for: target, shown: shown) } catch {
            // No temporary file in the directory (not ours to write), but the file may be:
            // written in place, as the shell's `>` would (its own refusal is the message then).
            if keep != nil, SafeOutput.mayWriteInPlace(target) { return try inPlace(target, bytes, shown: shown) }
            throw error
        }
        var ok = false
        defer { if !ok { _ = close(fd); SafeOutput.discard(tmp) } }
        do throws(OutputError) {
            try writeAll(fd: fd, bytes)
        } catch {
            throw OutputError("cannot write `\(shown)`: \(error.message)")
        }
        ok = true
        try install(fd: fd, tmp: tmp, target: target, content: .bytes(bytes), keep: keep, shown: shown)
    }

    /// A new temporary file (mode 0600) in `target`'s directory, `.NAME.fspolicy-XXXXXX`: its
    /// descriptor and path.
    static func temporaryFile(for target: String, shown: String) throws(OutputError) -> (fd: Int32, path: String) {
        let base = target.split(separator: "/").last.map(String.init) ?? "out"
        var template = Array((directory(of: target) + "/." + String(base.prefix(200)) + ".fspolicy-XXXXXX").utf8CString)
        // Made and registered in one step: a SIGINT or SIGTERM removes it (SignalCleanup).
        let (fd, path) = SignalCleanup.locked { () -> (Int32, String) in
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd < 0 { return (fd, "") }
            let path = String(cString: template)
            SignalCleanup.register(file: path)
            return (fd, path)
        }
        if fd < 0 {
            let e = errno
            throw OutputError("cannot write `\(shown)`: \(errnoText(e))" + (e == ENOENT || e == ENOTDIR ? missingFolderHint(target) : ""))
        }
        return (fd, path)
    }

    /// " (the folder `D` does not exist)" when the folder `path` would go in is missing or is
    /// not a folder, else "".
    static func missingFolderHint(_ path: String) -> String {
        let dir = directory(of: path)
        var st = stat()
        if stat(dir, &st) != 0 { return " (the folder `\(dir)` does not exist: make it first)" }
        if st.st_mode & S_IFMT != S_IFDIR { return " (`\(dir)` is not a folder)" }
        return ""
    }

    /// Removes a temporary file and its registration.
    static func discard(_ tmp: String) {
        SignalCleanup.locked {
            _ = unlink(tmp)
            SignalCleanup.unregister(file: tmp)
        }
    }

    /// Puts a temporary file (`tmp`, open as `fd`, in the target's directory, holding the whole
    /// content) in the place of `target`: with the old file's owner and mode (`keep`) or a new
    /// file's, flushed, then renamed over it; when the old owner cannot be given to it, the
    /// content is written into the old file in place instead. Closes `fd`; `tmp` is gone after.
    static func install(fd: Int32, tmp: String, target: String, content: Content, keep: stat?, shown: String) throws(OutputError) {
        var renamed = false
        var closed = false
        defer {
            if !closed { _ = close(fd) }
            if !renamed { SafeOutput.discard(tmp) }
        }
        // Not allowed to give the file its owner: rewritten in place instead (outside the `do`
        // below, whose messages would say "cannot write" a second time around inPlace's own).
        if let old = keep, fchown(fd, old.st_uid, old.st_gid) != 0 {
            return try inPlace(target, content, shown: shown)
        }
        do throws(OutputError) {
            if let old = keep {
                if fchmod(fd, old.st_mode & 0o7777) != 0 { throw OutputError(errnoText(errno)) }
            } else {
                // mkstemp makes 0600; a new file gets what a plain creation would (0666 & ~umask).
                let mask = umask(0); _ = umask(mask)
                if fchmod(fd, 0o666 & ~mask) != 0 { throw OutputError(errnoText(errno)) }
            }
            if fsync(fd) != 0 { throw OutputError(errnoText(errno)) }
            closed = true
            if close(fd) != 0 { throw OutputError(errnoText(errno)) }
        } catch {
            throw OutputError("cannot write `\(shown)`: \(error.message)")
        }
        // Renamed and unregistered in one step: a signal now leaves the finished file in place.
        let moved = SignalCleanup.locked { () -> Int32 in
            if rename(tmp, target) != 0 { return errno }
            SignalCleanup.unregister(file: tmp)
            return 0
        }
        if moved != 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(moved))") }
        renamed = true
    }

    /// Whether `target` is a regular file this process may open for writing (checked by
    /// opening it, without changing it): a directory it cannot add a temporary file to then
    /// still lets it be rewritten in place.
    static func mayWriteInPlace(_ target: String) -> Bool {
        let fd = open(target, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return false }
        defer { _ = close(fd) }
        var st = stat()
        return fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// A temporary file for a stream whose target's directory takes none: in `$TMPDIR` (or
    /// /tmp), its name removed at once; the content is copied into the target in place at the end.
    static func detachedTemporaryFile(shown: String) throws(OutputError) -> Int32 {
        var dir = "/tmp"
        if let t = getenv("TMPDIR"), t.pointee != 0 { dir = String(cString: t) }
        var template = Array((dir + "/.fspolicy-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(errno))") }
        _ = unlink(String(cString: template))
        return fd
    }

    /// Rewrites a regular file in place (keeps its inode: owner, mode, hard links).
    static func inPlace(_ target: String, _ bytes: [UInt8], shown: String) throws(OutputError) {
        try inPlace(target, .bytes(bytes), shown: shown)
    }

    static func inPlace(_ target: String, _ content: Content, shown: String) throws(OutputError) {
        // A signal waits until the file is whole again (SignalCleanup): never half-written.
        try SignalCleanup.locked { () throws(OutputError) in try inPlaceUnlocked(target, content, shown: shown) }
    }

    private static func inPlaceUnlocked(_ target: String, _ content: Content, shown: String) throws(OutputError) {
        let fd = open(target, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { throw OutputError("cannot write `\(shown)`: \(errnoText(errno))") }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw OutputError("cannot write `\(shown)`: it is not a regular file")
        }
        let size = content.count
        if size > 0 {
            #if os(Linux)
                let r = posix_fallocate(fd, 0, off_t(size))
                if r != 0 && r != EOPNOTSUPP && r != EINVAL { throw OutputError("cannot write `\(shown)`: \(errnoText(r))") }
            #endif
        }
        do throws(OutputError) {
            try content.write(to: fd)
            if ftruncate(fd, off_t(size)) != 0 { throw OutputError(errnoText(errno)) }
            if fsync(fd) != 0 { throw OutputError(errnoText(errno)) }
        } catch {
            throw OutputError("cannot write `\(shown)`: \(error.message)")
        }
    }
}

/// An output written in pieces (large tables, reports, scan files), with the same rules as
/// `SafeOutput.writeFile`: the pieces go to a temporary file next to the target, and `finish()`
/// puts that file in place (renamed over the target with its owner and mode, or, for a
/// hard-linked target, copied into it in place), so the whole output is never held in memory;
/// standard output is written as it comes.
public final class SafeStream {
    private var buffer: [UInt8] = []
    private var fd: Int32
    private var tmp: String?
    private let target: String?
    /// The path as the user gave it, for messages.
    private let given: String
    private var failure: OutputError?
    private var finished = false
    /// The temporary file is not beside the target (`detachedTemporaryFile`): it has no name,
    /// and `finish` copies it into the target in place.
    private var detached = false

    /// `path` nil, `-` or `/dev/stdout`: standard output.
    public init(path: String?, followSymlinks: Bool = false) throws(OutputError) {
        guard let p = path, !SafeOutput.isStandardOutput(p) else {
            fd = 1; tmp = nil; target = nil; given = "-"
            return
        }
        given = p
        // Refuses what writeFile refuses (a directory, device, FIFO, socket, or a symlink
        // without followSymlinks) before anything is written, then streams into a temporary
        // file in the target's directory.
        let resolved = try SafeOutput.resolveTarget(p, followSymlinks: followSymlinks)
        target = resolved
        do { (fd, tmp) = try SafeOutput.temporaryFile(for: resolved, shown: p) } catch {
            // The directory takes no temporary file, but the file may be written: the output
            // goes to a temporary file elsewhere and is copied into it in place at the end.
            guard SafeOutput.mayWriteInPlace(resolved) else { throw error }
            fd = try SafeOutput.detachedTemporaryFile(shown: p)
            tmp = nil
            detached = true
        }
        buffer.reserveCapacity(1 << 20)
    }

    deinit {
        // Never finished (an error on the way): the temporary file goes.
        if let tmp, !finished { _ = close(fd); SafeOutput.discard(tmp) }
        if detached && !finished { _ = close(fd) }
    }

    public func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 20 { push() }
    }

    /// Bytes as they are (the caller's text, UTF-8).
    public func write(bytes: UnsafeBufferPointer<UInt8>) {
        if buffer.count + bytes.count >= 1 << 20 {
            push()
            if bytes.count >= 1 << 19 {
                if failure == nil { do { try SafeOutput.writeAll(fd: fd, bytes) } catch { failure = error } }
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    /// Writes what is buffered now (answers a terminal waits for); throws a failure so far.
    public func flush() throws(OutputError) {
        push()
        guard let f = failure else { return }
        throw OutputError(target == nil ? "cannot write standard output: \(f.message)" : "cannot write `\(given)`: \(f.message)")
    }

    private func push() {
        guard failure == nil, !buffer.isEmpty else { buffer.removeAll(keepingCapacity: true); return }
        do { try SafeOutput.writeAll(fd: fd, buffer) } catch { failure = error }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left and puts the file in place; any failure on the way is thrown here.
    public func finish() throws(OutputError) {
        push()
        if detached, let target {
            finished = true
            defer { _ = close(fd) }
            if let f = failure { throw OutputError("cannot write `\(given)`: \(f.message)") }
            let size = lseek(fd, 0, SEEK_END)
            if size < 0 { throw OutputError("cannot write `\(given)`: \(errnoText(errno))") }
            let now = try SafeOutput.resolveTarget(target, followSymlinks: false)
            return try SafeOutput.inPlace(now, .file(fd: fd, size: Int(size)), shown: given)
        }
        guard let tmp, let target else {
            finished = true
            if let f = failure { throw OutputError("cannot write standard output: \(f.message)") }
            return
        }
        finished = true
        if let f = failure {
            _ = close(fd); SafeOutput.discard(tmp)
            throw OutputError("cannot write `\(given)`: \(f.message)")
        }
        let size = lseek(fd, 0, SEEK_END)
        if size < 0 {
            let e = errno
            _ = close(fd); SafeOutput.discard(tmp)
            throw OutputError("cannot write `\(given)`: \(errnoText(e))")
        }
        // The target as it is now, with writeFile's rules (it may have changed since the start:
        // a symlink or anything but a regular file put there meanwhile is refused).
        let now: String
        do { now = try SafeOutput.resolveTarget(target, followSymlinks: false) } catch {
            _ = close(fd); SafeOutput.discard(tmp)
            throw error
        }
        var st = stat()
        let content = SafeOutput.Content.file(fd: fd, size: Int(size))
        if lstat(now, &st) != 0 {
            try SafeOutput.install(fd: fd, tmp: tmp, target: now, content: content, keep: nil, shown: given)
        } else if st.st_nlink > 1 {
            defer { _ = close(fd); SafeOutput.discard(tmp) }
            try SafeOutput.inPlace(now, content, shown: given)
        } else {
            try SafeOutput.install(fd: fd, tmp: tmp, target: now, content: content, keep: st, shown: given)
        }
    }
}
