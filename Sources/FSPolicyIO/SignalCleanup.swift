#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM while a command runs: the temporary files and folders it made are removed,
/// an `--output` target is left as it was, and the process exits 130 or 143 (128 + the signal).
///
/// No signal handler runs Swift code: the two signals are blocked in every thread (`install`
/// blocks them before any other thread starts, and threads inherit the mask), and one thread of
/// its own waits for them with `sigwait`. That thread is an ordinary thread, so it may take the
/// registry's lock, remove a folder with all it holds, and then `_exit`. A path is registered in
/// the same locked step that creates it, and a temporary file is renamed over its target (or
/// copied into it) with the lock held, so the signal thread sees a file either before it exists,
/// while it is registered, or once it is the finished target: never half of a step.
///
/// Its state is global on purpose: the registry belongs to the process, not to any one
/// command, because a signal ends the whole process; the lock below guards every access.
public enum SignalCleanup {
    nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(m, &attr)
        pthread_mutexattr_destroy(&attr)
        return m
    }()
    nonisolated(unsafe) private static var files: [String] = []
    nonisolated(unsafe) private static var folders: [String] = []
    nonisolated(unsafe) private static var installed = false

    /// Blocks SIGINT and SIGTERM in this thread (and so in every thread started after it) and
    /// starts the thread that waits for them. Call once, first thing in `main`. A signal the
    /// parent set to be ignored (a background job's SIGINT) stays ignored.
    public static func install() {
        var set = signals()
        if sigismember(&set, SIGINT) == 0 && sigismember(&set, SIGTERM) == 0 { return }
        _ = mutex
        pthread_sigmask(SIG_BLOCK, &set, nil)
        installed = true
        #if canImport(Darwin)
            var thread: pthread_t? = nil
        #else
            var thread = pthread_t()
        #endif
        let made = pthread_create(
            &thread, nil,
            { _ in
                var set = SignalCleanup.signals()
                var sig: Int32 = 0
                while sigwait(&set, &sig) != 0 {}
                SignalCleanup.removeAll()
                _exit(128 + sig)
            }, nil)
        if made != 0 {
            // No thread: the signals keep their default action (nothing is cleaned up, as before).
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            installed = false
        }
    }

    /// SIGINT and SIGTERM, less any the process started with ignored.
    static func signals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM] {
            var old = sigaction()
            if sigaction(s, nil, &old) == 0, isIgnored(old) { continue }
            sigaddset(&set, s)
        }
        return set
    }

    private static func isIgnored(_ a: sigaction) -> Bool {
        #if canImport(Darwin)
            return unsafeBitCast(a.__sigaction_u.__sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        #else
            return unsafeBitCast(a.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        #endif
    }

    /// Runs `body` so that the signal thread cannot remove anything (or exit) in the middle of
    /// it: creating and registering a path, renaming a finished file over its target.
    public static func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// A temporary file to remove if the process is stopped by a signal. Call with the lock held.
    public static func register(file path: String) { locked { files.append(path) } }
    public static func unregister(file path: String) { locked { if let i = files.lastIndex(of: path) { files.remove(at: i) } } }
    /// A temporary folder to remove, with everything in it, if the process is stopped by a signal.
    public static func register(folder path: String) { locked { folders.append(path) } }
    public static func unregister(folder path: String) { locked { if let i = folders.lastIndex(of: path) { folders.remove(at: i) } } }

    /// Removes every registered path; holds the lock until the process exits.
    static func removeAll() {
        pthread_mutex_lock(mutex)
        for f in files { _ = unlink(f) }
        // Other threads may still be writing into a folder (an image's blobs): what they add
        // after it was emptied keeps it from being removed, so it is emptied again until it
        // is gone (a bounded number of times: they are stopped only by the exit).
        for d in folders {
            for _ in 0..<1000 {
                removeTree(d)
                if access(d, F_OK) != 0 { break }
            }
        }
    }

    /// Removes a folder and everything below it, never following a symlink.
    public static func removeTree(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 { _ = unlink(path); return }
        removeContents(of: fd)
        _ = rmdir(path)
    }

    /// Empties the open folder `dfd` (and closes it): its names are read first, then removed.
    private static func removeContents(of dfd: Int32) {
        guard let dir = fdopendir(dfd) else { _ = close(dfd); return }
        defer { _ = closedir(dir) }
        var names: [[CChar]] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                Array(raw.prefix(while: { $0 != 0 }).map { CChar(bitPattern: $0) }) + [0]
            }
            if name == [0x2e, 0] || name == [0x2e, 0x2e, 0] { continue }
            names.append(name)
        }
        for name in names where unlinkat(dfd, name, 0) != 0 {
            let sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if sub < 0 { continue }
            removeContents(of: sub)
            _ = unlinkat(dfd, name, AT_REMOVEDIR)
        }
    }
}
