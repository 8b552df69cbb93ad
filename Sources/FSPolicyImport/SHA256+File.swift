#if os(Linux)
    import FSPolicyFormat
    import Glibc

    extension SHA256 {
        /// The digest and size of a file, read in 1 MiB chunks; nil when it cannot be opened or read.
        static func file(_ path: String) -> (digest: String, size: UInt64)? {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var s = SHA256()
            var size: UInt64 = 0
            var buf = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue }; return nil }
                if n == 0 { break }
                size += UInt64(n)
                buf.withUnsafeBytes { s.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            return (s.finish(), size)
        }
    }
#endif
