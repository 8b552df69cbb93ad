#if os(Linux)
    import CLibArchive
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// Members applied as `tar -x` (GNU tar 1.34 and bsdtar 3.6, both checked) applies them, one
    /// after another, rather than each taken on its own; and the members no extraction could make.
    extension TarLayer {
        /// Puts a member in place as extraction would:
        ///
        /// - below a symlink (or a file) an earlier member made, nothing is made: bsdtar refuses
        ///   ("Cannot extract through symlink"), GNU tar fails unless the link is relative and leads
        ///   to a folder it already made, and then writes through it, never beneath the link's name.
        ///   The member is left out, with a warning;
        /// - a member that is not a folder, over a folder that holds names (members, or the folders
        ///   above them): both keep the folder (GNU tar: "File exists", bsdtar: "Directory not
        ///   empty"); left out, with a warning. Over an empty folder it replaces the folder;
        /// - anything else replaces what was at its path (a later header wins).
        mutating func place(_ comps: [[UInt8]], _ m: Member) {
            for n in 1..<max(comps.count, 1) {
                let prefix = Array(comps.prefix(n))
                if let up = members[prefix], up.entry.type != .dir {
                    let how =
                        up.entry.type == .symlink
                        ? "a symlink an earlier member made (→ `\(up.entry.target ?? "")`): tar does not extract through it (bsdtar refuses; GNU tar fails, or writes where the link points when it leads to a folder already made)"
                        : "a \(up.entry.type.word) an earlier member made: extracting it fails (Not a directory)"
                    problems.append(.init(path: Self.display(comps), message: "below `\(Self.display(prefix))`, \(how); left out"))
                    if up.entry.type == .symlink { throughLinks.append(comps) }
                    return
                }
            }
            if m.entry.type != .dir, existing.contains(comps), members[comps].map({ $0.entry.type == .dir }) ?? true,
                names[comps, default: 0] > 0
            {
                problems.append(
                    .init(
                        path: Self.display(comps),
                        message:
                            "a \(m.entry.type.word) over the folder of the same name, which holds other members: tar keeps the folder (GNU tar: File exists; bsdtar: Directory not empty); left out"
                    ))
                return
            }
            members[comps] = m
            var path = comps
            while !existing.contains(path) {
                existing.insert(path)
                path.removeLast()
                names[path, default: 0] += 1
            }
        }

        /// The folders extraction makes above a member it then fails to make (a hard link to
        /// nothing it made): both tools make the missing parents first. Nothing below a symlink or
        /// a file an earlier member made (`place` says why for the members that reach it).
        mutating func makeParents(_ comps: [[UInt8]]) {
            var path = Array(comps.dropLast())
            for n in 1..<(path.count + 1) {
                if let up = members[Array(path.prefix(n))], up.entry.type != .dir { return }
            }
            if !existing.contains(path) { leftOutWithParents.append(comps) }
            while !path.isEmpty && !existing.contains(path) {
                existing.insert(path)
                path.removeLast()
                names[path, default: 0] += 1
            }
        }

        /// Why a member cannot be read into a tree that loads, or extracted at all: an owner or
        /// group outside 0…4,294,967,294 (a pax header can say any number; 4294967295 is
        /// `(uid_t)-1`, which `chown` takes for "no change"), or a name over 255 bytes (`NAME_MAX`:
        /// extraction fails with "File name too long").
        static func refusal(_ e: OpaquePointer, comps: [[UInt8]], shown: String) -> ArchiveFailure? {
            let name = display(comps)
            for (what, id) in [("uid", archive_entry_uid(e)), ("gid", archive_entry_gid(e))] where id < 0 || id > 4_294_967_294 {
                return ArchiveFailure(
                    message: "the archive `\(shown)` gives the member `\(name)` \(what) \(id), out of range",
                    help: "uids and gids go from 0 to 4294967294 (4294967295 is (uid_t)-1, which no file can have); no extraction can give the file that owner")
            }
            if let long = comps.first(where: { $0.count > 255 }) {
                return ArchiveFailure(
                    message: "the archive `\(shown)` has a member with a name of \(long.count) bytes in its path: `\(name)`",
                    help: "a name (one path component) has at most 255 bytes on Linux (NAME_MAX); extracting it fails with File name too long")
            }
            return nil
        }

        /// The folders members reached through a symlink would go to (`throughLinks`): each
        /// member's folder resolved in `all` as the kernel would during extraction (symlinks
        /// followed, at most 40) and marked `unread: extraction`, since GNU tar writes there when
        /// that folder exists and bsdtar does not. With `engine` (an image's layers), the deepest
        /// folder that exists is marked even when the rest is missing: container engines make
        /// the missing folders where the link points. A path that meets a file first fails
        /// under every tool, and changes nothing.
        static func markThroughLinks(_ paths: [[[UInt8]]], in all: inout [[[UInt8]]: Member], engine: Bool) {
            for path in paths {
                var pending = Array(path.dropLast())
                var cur: [[UInt8]] = []
                var hops = 0
                var last: [[UInt8]]? = []
                while !pending.isEmpty {
                    let c = pending.removeFirst()
                    if c.isEmpty || c == [0x2E] { continue }
                    if c == [0x2E, 0x2E] { if !cur.isEmpty { cur.removeLast() }; continue }
                    let next = cur + [c]
                    guard let m = all[next] else {
                        if !engine { last = nil }
                        break
                    }
                    if m.entry.type == .symlink {
                        hops += 1
                        guard hops <= 40, let t = m.entry.target else { last = nil; break }
                        let bytes = NameEscaping.unescape(t)
                        let parts = bytes.split(separator: 0x2F, omittingEmptySubsequences: true).map { Array($0) }
                        if bytes.first == 0x2F { cur = [] }
                        pending = parts + pending
                        continue
                    }
                    guard m.entry.type == .dir else { last = nil; break }
                    cur = next
                    last = cur
                }
                if let folder = last, all[folder]?.entry.type == .dir || folder.isEmpty, all[folder]?.entry.unread == nil {
                    all[folder]?.entry.unread = .extraction
                }
            }
        }
    }
#endif
