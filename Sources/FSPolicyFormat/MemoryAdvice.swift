#if canImport(Glibc)
    import Glibc
#endif

/// How the process asks the C library for memory (the allocator's settings, set once).
public enum MemoryAdvice {
    /// The allocator's settings for a process that may read a big file, called once at its
    /// start, before any thread: a thread's heap is made with 32 MiB of room (`M_TOP_PAD`)
    /// instead of what its first allocation needs. The expectations' paths, made a million at
    /// a time on the reading threads, otherwise grew those heaps a page at a time: 19,105
    /// `mprotect` calls for a million expectations (3,458 with the setting), each holding the
    /// process's memory map against the other thread's page faults. The room is only
    /// reserved: pages are made when first written, as before (the peak memory does not
    /// change).
    ///
    /// Not for `scan` (`wanted(arguments:)`), which reads a tree, not a policy file.
    ///
    /// Returns whether the setting was taken (false where there is no `mallopt`).
    @discardableResult
    public static func tuneAllocator() -> Bool {
        #if canImport(Glibc)
            // `mallopt` is glibc's (malloc.h, which the Glibc module leaves out): looked up, so
            // that a C library without it is left as it is. M_TOP_PAD is -2.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let f = dlsym(nil, "mallopt") else { return false }
            return unsafeBitCast(f, to: Mallopt.self)(-2, 32 << 20) == 1
        #else
            return false
        #endif
    }

    /// Whether the command line `arguments` (the program's name first) should have the
    /// allocator tuned: every command but `scan`. A scan's threads keep more of what they free
    /// with the room (`fspolicy scan` of 100,000 files: 57 MiB at the peak against 43 MiB
    /// without it, and no faster); the commands that read a policy file do not (the same peak,
    /// within 1%, for `check`, `validate` and `lint` of the benchmark's files).
    public static func wanted(arguments: [String]) -> Bool {
        arguments.dropFirst().first != "scan"
    }
}
