#if os(Linux)
    import CLibArchive
    import FSPolicyFormat
    import Glibc

    /// Reading an image archive in place: the first pass that lists it, and the reads of one
    /// member of a plain (uncompressed) tar, which start at the member's own header.
    extension PackedArchive {
        /// The first pass: every regular member's name, header offset and size, the layout's own
        /// files in memory (refused past `layoutFileLimit`), and whether the tar is compressed.
        func index() -> ArchiveFailure? {
            fd = open(archive, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                return ArchiveFailure(
                    message: "cannot read `\(shown)`: \(String(cString: strerror(errno)))",
                    help: "an image archive is a tar file (`docker save -o`); an image layout is a folder")
            }
            let savedLocale = clibarchive_use_utf8()
            defer { clibarchive_restore_locale(savedLocale) }
            guard let a = archive_read_new() else { return ArchiveFailure(message: "libarchive could not start", help: "") }
            defer { archive_read_free(a) }
            archive_read_support_filter_all(a)
            archive_read_support_format_tar(a)
            archive_read_support_format_gnutar(a)
            if archive_read_open_fd(a, fd, 1 << 16) != ARCHIVE_OK {
                return ArchiveFailure(
                    message: "cannot read `\(shown)`: \(bytes(archive_error_string(a)).map { NameEscaping.escape($0) } ?? "unknown error")",
                    help: "an image archive is a tar file (`docker save -o`); an image layout is a folder")
            }
            // The filters were chosen when it was opened: only the client's own ("none") for a plain tar.
            compressed = !(archive_filter_count(a) == 1 && archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE)
            var entry: OpaquePointer? = nil
            while true {
                let r = archive_read_next_header(a, &entry)
                if r == ARCHIVE_EOF { return nil }
                guard r == ARCHIVE_OK || r == ARCHIVE_WARN, let e = entry else { return corrupt(a) }
                guard let (rel, raw) = regular(e) else {
                    if normalize(bytes(archive_entry_pathname(e)) ?? []) == nil { return dotDot(e) }
                    continue
                }
                if members[rel] != nil { continue }
                members[rel] = Member(header: archive_read_header_position(a), size: UInt64(max(0, archive_entry_size(e))), raw: raw)
                if Self.ownFiles.contains(rel) {
                    switch readAll(a, members[rel]!, limit: Self.layoutFileLimit) {
                    case .failure(let f): return f
                    case .success(let data): own[rel] = data
                    }
                }
            }
        }

        /// The relative name and raw name of a regular member (blobs, JSON), or nil (folders, and
        /// the symlinks Docker adds for old readers, are not needed; a `..` name is nil too).
        private func regular(_ e: OpaquePointer) -> (String, [UInt8])? {
            let raw = bytes(archive_entry_pathname(e)) ?? []
            guard let comps = normalize(raw), !comps.isEmpty, UInt32(archive_entry_mode(e)) & 0o170000 == 0o100000, archive_entry_hardlink(e) == nil
            else { return nil }
            return (String(decoding: Array(comps.joined(separator: [0x2f])), as: UTF8.self), raw)
        }

        private func dotDot(_ e: OpaquePointer) -> ArchiveFailure {
            ArchiveFailure(
                message: "the archive `\(shown)` has a member with `..` in its name: `\(NameEscaping.escape(bytes(archive_entry_pathname(e)) ?? []))`",
                help: "an image archive never has one; fspolicy refuses it")
        }

        /// The data of the current member, refused (before any is read) when its header says more
        /// than `limit`, and when more than that arrives anyway.
        private func readAll(_ a: OpaquePointer, _ m: Member, limit: UInt64) -> Result<[UInt8], ArchiveFailure> {
            if m.size > limit { return .failure(bigger(m.raw, limit: limit)) }
            var out: [UInt8] = []
            out.reserveCapacity(Int(m.size))
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buf.withUnsafeMutableBytes { archive_read_data(a, $0.baseAddress, $0.count) }
                if n == 0 { return .success(out) }
                if n < 0 { return .failure(corrupt(a, m.raw)) }
                if UInt64(out.count + n) > limit { return .failure(bigger(m.raw, limit: limit)) }
                out += buf[0..<n]
            }
        }

        /// Opens the plain archive at the header of the member `rel` and gives `body` the archive
        /// positioned at its data. The first pass's offset is tried first; should the header there
        /// not be that member (it cannot, unless the file changed), the archive is read from its
        /// start to the member's first header.
        private func at<T>(_ rel: String, _ body: (OpaquePointer, Member) -> Result<T, ArchiveFailure>) -> Result<T, ArchiveFailure> {
            let gone = ArchiveFailure(
                message: "`\(shown)/\(NameEscaping.escape(Array(rel.utf8)))` is no longer in the archive: the file changed while it was read",
                help: "read the image again once nothing writes to it")
            guard let m = members[rel] else { return .failure(gone) }
            let savedLocale = clibarchive_use_utf8()
            defer { clibarchive_restore_locale(savedLocale) }
            for start in [m.header, 0] {
                if start == 0 && m.header != 0 { rescans += 1 }
                guard let a = archive_read_new() else { return .failure(ArchiveFailure(message: "libarchive could not start", help: "")) }
                defer { archive_read_free(a) }
                // A plain tar: no filter is looked for (a name in a header cannot pass for gzip).
                archive_read_support_format_tar(a)
                archive_read_support_format_gnutar(a)
                guard lseek(fd, off_t(start), SEEK_SET) == off_t(start), archive_read_open_fd(a, fd, 1 << 16) == ARCHIVE_OK else { continue }
                var entry: OpaquePointer? = nil
                var r = ARCHIVE_OK
                while true {
                    r = archive_read_next_header(a, &entry)
                    guard r == ARCHIVE_OK || r == ARCHIVE_WARN, let e = entry else { break }
                    if let (name, _) = regular(e), name == rel { return body(a, m) }
                    if start != 0 { break }
                }
                if start == 0 { return .failure(r == ARCHIVE_EOF ? gone : corrupt(a, m.raw)) }
            }
            return .failure(gone)
        }

        /// A JSON file of the layout (index, manifest, configuration) into memory, at most `limit`
        /// bytes; nil when the archive has no such member.
        func load(_ rel: String, limit: UInt64) -> Result<[UInt8]?, ArchiveFailure> {
            if let o = own[rel] { return .success(o) }
            guard members[rel] != nil else { return .success(nil) }
            return at(rel) { a, m in readAll(a, m, limit: limit).map { Optional($0) } }
        }

        /// Reads the layer `rel` in place: `read` reads a tar archive that its argument opens,
        /// and that archive's bytes come straight from the member, hashed and counted as they
        /// pass; what the layer's tar leaves unread (its end blocks, padding) is read after it.
        /// The member's size and digest are then given to `verify`. Precedence: a damaged outer
        /// archive, then a member past `limit` (never read on), then `verify`'s failure, then
        /// `read`'s: a layer that is not what its digest says is reported as such, whatever its
        /// tar reader made of it.
        func stream(
            _ rel: String, limit: UInt64?, verify: (_ digest: String, _ size: UInt64) -> ArchiveFailure?,
            read: ((OpaquePointer) -> ArchiveFailure?) -> ArchiveFailure?
        ) -> ArchiveFailure? {
            let shownMember = shown + "/" + NameEscaping.escape(Array(rel.utf8))
            let r: Result<ArchiveFailure?, ArchiveFailure> = at(rel) { a, m in
                if let limit, m.size > limit { return .failure(bigger(m.raw, limit: limit)) }
                let s = MemberStream(outer: a, limit: limit)
                let inner = withExtendedLifetime(s) {
                    read { innerArchive in
                        let ctx = Unmanaged.passUnretained(s).toOpaque()
                        let opened = archive_read_open(
                            innerArchive, ctx, nil,
                            { _, ctx, out in
                                let s = Unmanaged<MemberStream>.fromOpaque(ctx!).takeUnretainedValue()
                                out?.pointee = UnsafeRawPointer(s.buffer)
                                return s.next()
                            }, nil)
                        return opened == ARCHIVE_OK ? nil : TarLayer.unreadable(innerArchive, shown: shownMember)
                    }
                }
                s.drain()
                if s.broken { return .failure(corrupt(a, m.raw)) }
                if let limit, s.count > limit { return .failure(bigger(m.raw, limit: limit)) }
                if let f = verify(s.hash.finish(), s.count) { return .failure(f) }
                return .success(inner)
            }
            switch r {
            case .failure(let f): return f
            case .success(let f): return f
            }
        }
    }

    /// The bytes of one member of the outer archive, handed to the inner archive's reader piece
    /// by piece, hashed and counted on the way; stops (an error for the reader) past `limit`.
    final class MemberStream {
        let outer: OpaquePointer
        let limit: UInt64?
        let buffer: UnsafeMutableRawPointer
        static let capacity = 1 << 18
        var hash = SHA256()
        var count: UInt64 = 0
        /// The outer archive failed (truncated, corrupt).
        var broken = false

        init(outer: OpaquePointer, limit: UInt64?) {
            self.outer = outer
            self.limit = limit
            buffer = .allocate(byteCount: Self.capacity, alignment: 16)
        }

        deinit { buffer.deallocate() }

        /// The next piece in `buffer`: its length, 0 at the member's end, -1 (an error for the
        /// reader) when the outer archive fails or the member passes its limit.
        func next() -> Int {
            if broken { return -1 }
            if let limit, count > limit { return -1 }
            let n = archive_read_data(outer, buffer, Self.capacity)
            if n < 0 {
                broken = true
                return -1
            }
            count += UInt64(n)
            if let limit, count > limit { return -1 }
            hash.update(UnsafeRawBufferPointer(start: buffer, count: n))
            return n
        }

        /// Reads what the reader left of the member, for its size and digest.
        func drain() { while next() > 0 {} }
    }
#endif
