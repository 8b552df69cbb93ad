#if os(Linux)
    import CLibArchive
    import FSPolicyFormat
    import FSPolicyIO
    import Foundation
    import Glibc

    /// A tar file holding an image (`docker save -o`, `podman save`, `skopeo copy … oci-archive:`),
    /// read as a folder whose files are taken out of the archive only when the reader asks for
    /// them: the layout's own files (`oci-layout`, `index.json`, `manifest.json`), then the blobs
    /// the descriptors name (index → manifest → configuration and layers), each into a private
    /// temporary folder and no bigger than its descriptor says. A member nothing names is never
    /// written: an archive of 9 MB holding 2 GB of zeros in an unnamed blob wrote 2 GB before.
    /// Each request is one pass over the archive (libarchive reads members in order; a compressed
    /// archive is decompressed again), the layers and configuration together in one.
    final class PackedArchive {
        let archive: String
        let shown: String
        let folder: String
        /// Relative paths already asked for (taken out, or not in the archive).
        private var asked: Set<String> = []
        /// The layout's own small files, named by the format, not by a descriptor: at most this many bytes each.
        static let layoutFileLimit: UInt64 = 16 << 20

        init(archive: String, shown: String, folder: String) {
            self.archive = archive
            self.shown = shown
            self.folder = folder
        }

        /// Takes the members at these relative paths out of the archive into the folder, each
        /// refused past its limit (nil: as big as it is). Paths asked before are skipped; a path the
        /// archive lacks is simply not made (the reader then says it is missing).
        func take(_ wanted: [(rel: String, limit: UInt64?)]) -> ArchiveFailure? {
            var want: [String: UInt64?] = [:]
            for w in wanted where !asked.contains(w.rel) { want[w.rel] = w.limit }
            if want.isEmpty { return nil }
            asked.formUnion(want.keys)
            return pass(names: nil, want: want)
        }

        /// The relative names of the archive's regular files, taking out those of `wanted` in the
        /// same pass (as `take` does).
        func list(taking wanted: [(rel: String, limit: UInt64?)]) -> Result<Set<String>, ArchiveFailure> {
            var want: [String: UInt64?] = [:]
            for w in wanted { want[w.rel] = w.limit }
            asked.formUnion(want.keys)
            var names: Set<String> = []
            if let f = pass(names: { names.insert($0) }, want: want) { return .failure(f) }
            return .success(names)
        }

        /// A relative path as the archive's members are matched: components without `.` or empty ones.
        static func rel(_ path: String) -> String? {
            guard let comps = normalize(Array(path.utf8)), !comps.isEmpty else { return nil }
            return String(decoding: Array(comps.joined(separator: [0x2f])), as: UTF8.self)
        }

        private func corrupt(_ a: OpaquePointer, _ raw: [UInt8]? = nil) -> ArchiveFailure {
            let why = bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error"
            return ArchiveFailure(
                message: "the archive `\(shown)` is corrupt" + (raw.map { " in `\(NameEscaping.escape($0))`" } ?? "") + ": \(why)",
                help: "a truncated download or copy gives this; save the image again")
        }

        private func cannot(_ what: String = "") -> ArchiveFailure {
            ArchiveFailure(
                message: "cannot unpack `\(shown)`: \(String(cString: strerror(errno)))\(what)",
                help: "set TMPDIR to a writable folder with room for the image's layers")
        }

        private func pass(names: ((String) -> Void)?, want: [String: UInt64?]) -> ArchiveFailure? {
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
            while names != nil || left > 0 {
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
                names?(rel)
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
                        let what = limit == Self.layoutFileLimit ? "fspolicy reads of a layout's own file" : "its descriptor says"
                        return ArchiveFailure(
                            message: "`\(shown)/\(NameEscaping.escape(raw))` is bigger than the \(limit) bytes \(what)",
                            help: "the archive was changed after the image was saved, or is not what it claims; save the image again")
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
