#if os(Linux)
    import CLibArchive
    import FSPolicyFormat
    import FSPolicyIO
    import Foundation
    import Glibc

    /// A tar file holding an image (`docker save -o`, `podman save`, `skopeo copy … oci-archive:`),
    /// read without unpacking it. A first pass lists its members (where each header starts, its
    /// size) and keeps the layout's own small files (`oci-layout`, `index.json`, `manifest.json`)
    /// in memory. Then what the descriptors name (index → manifest → configuration and layers) is
    /// read on demand, no bigger than its descriptor says; a member nothing names is never read:
    ///
    /// - a plain tar (what `docker save` and `skopeo` write): in place. Each request opens the
    ///   archive at the member's header; JSON blobs are read into memory, and a layer's tar is
    ///   fed straight from the member to the layer reader, its digest and size checked on the
    ///   bytes as they pass (`PackedArchive+InPlace.swift`). No temporary file is made.
    /// - a compressed one (`image.tar.gz`), which cannot be entered in the middle: the named blobs
    ///   are taken out into a private temporary folder (`folder`), each request one pass that
    ///   decompresses the archive again, the configuration and the layers together in one.
    ///   Reading it in place instead would decompress it again up to each layer: for the 336 MB
    ///   image of `scripts/bench-oci-packed` (8 layers) about 4 more passes of 1.27 s of CPU
    ///   each (`gzip -dc`), some 5 s on top of the 1.73 s the whole read takes with the folder.
    ///
    /// An archive of 9 MB holding 2 GB of zeros in an unnamed blob wrote 2 GB before either.
    final class PackedArchive {
        let archive: String
        let shown: String
        /// Where a compressed archive's blobs are taken out (set once it is known to be one).
        var folder: String = ""
        /// Relative paths already asked for (taken out, or not in the archive).
        private var asked: Set<String> = []
        /// The layout's own small files, named by the format, not by a descriptor: at most this many bytes each.
        static let layoutFileLimit: UInt64 = 16 << 20
        /// The layout's own files (`oci-layout`, `index.json`, `manifest.json`), read in the first pass.
        static let ownFiles: Set<String> = ["oci-layout", "index.json", "manifest.json"]
        /// The first regular member of each relative name (a repeated one is ignored, as when
        /// blobs were taken out: the first one stands): where its header starts, and its size.
        struct Member {
            var header: Int64
            var size: UInt64
            var raw: [UInt8]
        }
        var members: [String: Member] = [:]
        var own: [String: [UInt8]] = [:]
        /// Whether a filter (gzip, zstd, xz…) wraps the tar: then blobs go through `folder`.
        var compressed = false
        /// The archive, open from the first pass to the end: every pass reads the same file.
        var fd: Int32 = -1
        /// Reads that found their member elsewhere than where the first pass saw its header (for tests: 0).
        var rescans = 0

        init(archive: String, shown: String) {
            self.archive = archive
            self.shown = shown
        }

        deinit { if fd >= 0 { close(fd) } }

        /// Takes the members at these relative paths out of the archive into the folder, each
        /// refused past its limit (nil: as big as it is). Paths asked before are skipped; a path the
        /// archive lacks is simply not made (the reader then says it is missing).
        func take(_ wanted: [(rel: String, limit: UInt64?)]) -> ArchiveFailure? {
            var want: [String: UInt64?] = [:]
            for w in wanted where !asked.contains(w.rel) { want[w.rel] = w.limit }
            if want.isEmpty { return nil }
            asked.formUnion(want.keys)
            return pass(want: want)
        }

        /// A relative path as the archive's members are matched: components without `.` or empty ones.
        static func rel(_ path: String) -> String? {
            guard let comps = normalize(Array(path.utf8)), !comps.isEmpty else { return nil }
            return String(decoding: Array(comps.joined(separator: [0x2f])), as: UTF8.self)
        }

        func corrupt(_ a: OpaquePointer, _ raw: [UInt8]? = nil) -> ArchiveFailure {
            let why = bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error"
            return ArchiveFailure(
                message: "the archive `\(shown)` is corrupt" + (raw.map { " in `\(NameEscaping.escape($0))`" } ?? "") + ": \(why)",
                help: "a truncated download or copy gives this; save the image again")
        }

        func cannot(_ what: String = "") -> ArchiveFailure {
            ArchiveFailure(
                message: "cannot unpack `\(shown)`: \(String(cString: strerror(errno)))\(what)",
                help: "set TMPDIR to a writable folder with room for the image's layers")
        }

        /// A member past its limit: the descriptor's size, or what fspolicy reads of a JSON file.
        func bigger(_ raw: [UInt8], limit: UInt64) -> ArchiveFailure {
            let what = limit == Self.layoutFileLimit ? "fspolicy reads of a layout's own file" : "its descriptor says"
            return ArchiveFailure(
                message: "`\(shown)/\(NameEscaping.escape(raw))` is bigger than the \(limit) bytes \(what)",
                help: "the archive was changed after the image was saved, or is not what it claims; save the image again")
        }

        private func pass(want: [String: UInt64?]) -> ArchiveFailure? {
            let savedLocale = clibarchive_use_utf8()
            defer { clibarchive_restore_locale(savedLocale) }
            guard let a = archive_read_new() else { return ArchiveFailure(message: "libarchive could not start", help: "") }
            defer { archive_read_free(a) }
            archive_read_support_filter_all(a)
            archive_read_support_format_tar(a)
            archive_read_support_format_gnutar(a)
            if archive_read_open_filename(a, archive, 1 << 16) != ARCHIVE_OK {
                return ArchiveFailure(
                    message: "cannot read `\(shown)`: \(bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error")",
                    help: "an image archive is a tar file (`docker save -o`); an image layout is a folder")
            }
            var left = want.count
            var entry: OpaquePointer? = nil
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            while left > 0 {
                let r = archive_read_next_header(a, &entry)
                if r == ARCHIVE_EOF { return nil }
                guard r == ARCHIVE_OK || r == ARCHIVE_WARN, let e = entry else { return corrupt(a) }
                let raw = bytes(archive_entry_pathname(e)) ?? []
                guard let comps = normalize(raw) else {
                    return ArchiveFailure(
                        message: "the archive `\(shown)` has a member with `..` in its name: `\(NameEscaping.escape(raw))`",
                        help: "an image archive never has one; fspolicy refuses it")
                }
                // Only regular files (blobs, JSON); the symlinks Docker adds for old readers are not needed.
                guard UInt32(archive_entry_mode(e)) & 0o170000 == 0o100000, !comps.isEmpty, archive_entry_hardlink(e) == nil else { continue }
                let rel = String(decoding: Array(comps.joined(separator: [0x2f])), as: UTF8.self)
                guard let limit = want[rel] else { continue }
                left -= 1
                var path = folder
                for c in comps.dropLast() {
                    path += "/" + String(decoding: c, as: UTF8.self)
                    if mkdir(path, 0o700) != 0 && errno != EEXIST { return cannot(" (making a folder)") }
                }
                path += "/" + String(decoding: comps.last!, as: UTF8.self)
                let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard fd >= 0 else {
                    if errno == EEXIST { continue }  // a repeated member: the first one stands
                    return cannot()
                }
                defer { close(fd) }
                var written: UInt64 = 0
                while true {
                    let n = buf.withUnsafeMutableBytes { archive_read_data(a, $0.baseAddress, $0.count) }
                    if n == 0 { break }
                    if n < 0 { return corrupt(a, raw) }
                    written += UInt64(n)
                    if let limit, written > limit {
                        return bigger(raw, limit: limit)
                    }
                    var done = 0
                    while done < n {
                        let w = buf.withUnsafeBytes { write(fd, $0.baseAddress! + done, n - done) }
                        if w < 0 {
                            if errno == EINTR { continue }
                            return cannot()
                        }
                        done += w
                    }
                }
            }
            return nil
        }
    }
#endif
