// `ls -le@` listings: the extended-attribute and ACE lines that follow an entry.

import FSPolicy

extension MacListingParser {
    mutating func xattrLine(_ l: [UInt8], line n: Int) {
        if sectionRel == nil { return }  // the section's header was refused; it says why
        guard current != nil || pendingDuplicate != nil else {
            error(n, 1, "an extended-attribute line before any entry", "`-@` prints them under the entry they belong to")
            return
        }
        let body = Array(l.dropFirst())
        guard let tab = body.lastIndex(of: 0x09), tab > 0 else {
            error(
                n, 2, "an extended-attribute line reads TAB name TAB size",
                "`ls -@` prints each attribute of the entry above as a tab, its name, a tab and its size")
            return
        }
        let size = String(decoding: body[(tab + 1)...], as: UTF8.self).trimmingSpacesCompat
        guard isSize(String(size)) else {
            error(n, tab + 3, "expected the size of the extended attribute, found `\(NameEscaping.escape(Array(body[(tab + 1)...])))`", nil)
            return
        }
        let name = NameEscaping.escape(Array(body[..<tab]))
        if pendingDuplicate != nil { pendingDuplicate!.xattrs.append(name) } else { listing.entries[current!].xattrs.append(name) }
    }

    mutating func aceLine(_ l: [UInt8], line n: Int) {
        if sectionRel == nil { return }  // the section's header was refused; it says why
        guard current != nil || pendingDuplicate != nil else {
            error(n, 1, "an ACE line before any entry", "`-e` prints ACE lines under the entry they belong to")
            return
        }
        currentSawACELine = true
        var e = pendingDuplicate ?? listing.entries[current!]
        defer { if pendingDuplicate != nil { pendingDuplicate = e } else { listing.entries[current!] = e } }
        if e.marker == " " {
            error(n, 1, "ACE lines under an entry without `+` or `@` after its mode", "ls marks an entry that has an ACL with `+`")
            return
        }
        var t = LineBytes(l)
        guard let (idxTok, icol) = t.token(), idxTok.hasSuffix(":"), let index = Int(idxTok.dropLast()) else {
            error(n, 2, "an ACE line starts with its index, like ` 0: `", "ACE lines read ` 0: user:bob allow read`")
            return
        }
        if index != e.aces.count {
            error(n, icol + 1, "ACE #\(index) where #\(e.aces.count) is next", "ls numbers an entry's ACEs from 0, one by one")
            return
        }
        guard let (subj, scol) = t.token() else { return aceMissing(n, l, "the subject") }
        let subject: MacListing.Subject
        if subj == "group:everyone" {
            subject = .everyone
        } else if subj.hasPrefix("user:") && subj.count > 5 {
            subject = .user(String(subj.dropFirst(5)))
        } else if subj.hasPrefix("group:") && subj.count > 6 {
            subject = .group(String(subj.dropFirst(6)))
        } else if let s = uuidSubject(subj) {
            subject = s
        } else if isUUID(subj) {
            error(
                n, scol + 1, "the ACE names `\(subj)`, a UUID that macOS could not turn into a user or group",
                "ls prints a UUID for a deleted account, or for every ACE with `-n`; list without `-n`, or remove the ACE on the Mac (`chmod -a# \(index) FILE`)"
            )
            return
        } else {
            error(n, scol + 1, "unknown ACE subject `\(subj)`", "ls prints `user:NAME`, `group:NAME` or a UUID")
            return
        }
        guard var (w, wcol) = t.token() else { return aceMissing(n, l, "`allow` or `deny`") }
        var flags: ACEFlags = []
        if w == "inherited" {
            flags.insert(.inherited)
            guard let x = t.token() else { return aceMissing(n, l, "`allow` or `deny`") }
            (w, wcol) = x
        }
        let kind: ACEKind
        switch w {
        case "allow": kind = .allow
        case "deny": kind = .deny
        default:
            error(n, wcol + 1, "expected `allow` or `deny`, found `\(w)`", "ls prints ` N: SUBJECT [inherited] allow|deny RIGHTS`")
            return
        }
        var rights: AccessRights = []
        if let (words, rcol) = t.token() {
            if let (extra, xcol) = t.token() {
                error(n, xcol + 1, "unexpected `\(extra)` after the rights", "ls joins the rights with commas, without spaces")
                return
            }
            let isDir = e.type == .dir
            var off = rcol
            for word in words.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                defer { off += word.utf8.count + 1 }
                if let rw = AccessRights.words.first(where: { $0.word == word }) {
                    if isDir ? !rw.onDirectories : !rw.onFiles {
                        let other = AccessRights.words.first { $0.right == rw.right && $0.word != word }?.word ?? word
                        error(
                            n, off + 1, "`\(word)` on a \(isDir ? "directory" : "file"): ls prints `\(other)` for this right there",
                            "ls -le names rights by the object's type: read/write/execute/append on files, list/add_file/search/add_subdirectory/delete_child on directories"
                        )
                        return
                    }
                    rights.formUnion(rw.right)
                    continue
                }
                if let f = ACEFlags.words.first(where: { $0.0 == word }) {
                    if !isDir && f.1 != .limitInherit {
                        error(n, off + 1, "`\(word)` on a file: ls prints it only for directories", nil)
                        return
                    }
                    flags.insert(f.1)
                    continue
                }
                let known = AccessRights.words.map(\.word) + ACEFlags.words.map(\.0)
                error(
                    n, off + 1, "unknown ACE right `\(word)`",
                    nearest(word, in: known).map { "did you mean `\($0)`?" }
                        ?? "ls -le prints the words of chmod(1): read, write, execute, delete, append, readattr, …")
                return
            }
        }
        e.aces.append(MacListing.ACELine(subject: subject, kind: kind, rights: rights, flags: flags, line: n, subjectColumn: scol + 1))
    }

    mutating func aceMissing(_ n: Int, _ l: [UInt8], _ what: String) {
        error(n, l.count + 1, "the ACE line ends before \(what)", "ACE lines read ` 0: user:bob allow read`")
    }

    func isUUID(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && s.allSatisfy { $0 == "-" || $0.isHexDigit }
    }

    /// The compatibility GUIDs that carry an id (membership's fallback when a record has no
    /// GeneratedUID), and the kernel's well-known ones.
    func uuidSubject(_ s: String) -> MacListing.Subject? {
        guard isUUID(s) else { return nil }
        let u = s.uppercased()
        let tail = UInt32(u.suffix(8), radix: 16)
        if u.hasPrefix("FFFFEEEE-DDDD-CCCC-BBBB-AAAA"), let id = tail { return .uid(id) }
        if u.hasPrefix("ABCDEFAB-CDEF-ABCD-EFAB-CDEF"), let id = tail {
            switch id {
            case 0x0c: return .everyone
            case 0x0a: return .owner
            case 0x10: return .owningGroup
            default: return .gid(id)
            }
        }
        return nil
    }
}
