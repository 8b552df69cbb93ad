import FSPolicy

/// The output of `ls -leOR` (also with `-a` and `-@`) as printed by macOS `ls`, read line by
/// line. Pure text processing: names stay names here; the policy loader resolves them.
///
/// Line kinds (docs/policy-format.md, "macOS listings", says the same for users):
/// - a section header `PATH:` (the first line, or after a blank line),
/// - `total N` right after a header (or at the start),
/// - an entry: mode with its marker, links, owner, group, the `-O` flags column, size, date,
///   name, and `-> target` for symlinks,
/// - an extended-attribute line `<TAB>name<TAB>size` (`-@`) after an entry,
/// - an ACE line ` N: subject [inherited] allow|deny words` (`-e`) after an entry,
/// - an `ls: …` message (stderr mixed in with `2>&1`), kept as a warning,
/// - blank lines between sections.
/// Anything else is an error with its line and column.
public enum MacListing {
    /// A problem with its 1-based line and column (columns count bytes).
    public struct Problem: Error, Sendable, Hashable {
        public var line: Int
        public var column: Int
        public var code: String
        public var message: String
        public var help: String?
    }

    /// Who an ACE line names, as written.
    public enum Subject: Sendable, Hashable {
        case user(String)
        case group(String)
        /// `group:everyone`, or the EVERYBODY GUID.
        case everyone
        /// The OWNER (`owner@`) and GROUP (`group@`) GUIDs.
        case owner, owningGroup
        /// A compatibility GUID that carries a number: `FFFFEEEE-DDDD-CCCC-BBBB-AAAA` + uid,
        /// `ABCDEFAB-CDEF-ABCD-EFAB-CDEF` + gid.
        case uid(UInt32), gid(UInt32)
    }

    public struct ACELine: Sendable, Hashable {
        public var subject: Subject
        public var kind: ACEKind
        public var rights: AccessRights
        public var flags: ACEFlags
        public var line: Int
        /// Column of the subject (for unknown names).
        public var subjectColumn: Int
        public static func == (a: ACELine, b: ACELine) -> Bool {
            a.subject == b.subject && a.kind == b.kind && a.rights == b.rights && a.flags == b.flags
        }
        public func hash(into h: inout Hasher) { h.combine(subject); h.combine(rights.rawValue); h.combine(flags.rawValue) }
    }

    public struct Entry: Sendable {
        /// Path below the listing's root, components joined by `/` ("" for the root itself);
        /// names escaped like scanned names (`NameEscaping`).
        public var relativePath: String
        /// True for the top section's `..`: the directory above the root.
        public var aboveRoot = false
        public var name: String
        public var type: NodeType
        public var mode: FileMode
        /// The character after the mode: `+` (ACL), `@` (extended attributes), `%` (dataless)
        /// or a space.
        public var marker: Character
        public var owner: String
        public var ownerColumn: Int
        public var group: String
        public var groupColumn: Int
        public var flags: FileFlags = []
        /// Flag words that `ls -O` prints but the model does not carry (`restricted`, …).
        public var otherFlags: [String] = []
        public var target: String?
        public var aces: [ACELine] = []
        public var xattrs: [String] = []
        public var line: Int

        /// What two descriptions of one path must agree on (`.`, `..` and the parent's entry).
        func sameObject(as o: Entry) -> Bool {
            type == o.type && mode == o.mode && owner == o.owner && group == o.group && flags == o.flags
                && otherFlags == o.otherFlags && aces == o.aces && target == o.target
        }
    }

    public struct Listing: Sendable {
        /// The root as the listing spells it (`/Users/alice`, `.`), when a header says it.
        public var rootText: String?
        /// Entries in listing order; a path appears once (repeats must agree and are dropped).
        public var entries: [Entry] = []
        /// Directories listed without a section of their own (not recursive, or unreadable).
        public var directoriesWithoutSection: [Entry] = []
        /// False when the entries have no flags column (`-O` was not given).
        public var hasFlagsColumn = true
        public var warnings: [Problem] = []
    }

    /// Flag words of macOS `ls -O` (Libc `fflagstostr`) that the model carries.
    static let modelledFlags: [String: FileFlags] = [
        "sappnd": .systemAppend, "arch": .systemArchived, "schg": .systemImmutable, "uappnd": .userAppend,
        "uchg": .userImmutable, "nodump": .userNoDump, "opaque": .userOpaque, "hidden": .userHidden
    ]
    /// Words `ls -O` prints for flags that do not change a kauth decision (kept, no effect).
    static let inertFlags = ["sunlnk", "compressed", "dataless"]
    /// Words for flags enforced outside kauth (SIP, MAC policies): kept with a warning.
    static let unmodelledFlags = ["restricted", "datavault"]
    static var allFlagWords: [String] { modelledFlags.keys.sorted() + inertFlags + unmodelledFlags }

    public static func parse(_ data: [UInt8]) -> (Listing, [Problem]) {
        var p = MacListingParser()
        p.run(data)
        return (p.listing, p.errors)
    }

    /// A path as the listing prints it, normalized: `//` folded, a trailing `/` dropped.
    static func normalizePath(_ s: String) -> String {
        var out = ""
        var lastSlash = false
        for ch in s {
            if ch == "/" { if lastSlash { continue }; lastSlash = true } else { lastSlash = false }
            out.append(ch)
        }
        if out.count > 1 && out.hasSuffix("/") { out.removeLast() }
        return out
    }

    static func dirname(_ s: String) -> String {
        guard let i = s.lastIndex(of: "/") else { return "." }
        if i == s.startIndex { return "/" }
        return String(s[..<i])
    }

    static func basename(_ s: String) -> String {
        guard let i = s.lastIndex(of: "/") else { return s }
        return String(s[s.index(after: i)...])
    }
}

/// Bytes of one line with byte-offset tokenizing.
struct LineBytes {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }
    var atEnd: Bool { i >= b.count }
    mutating func skipSpaces() { while i < b.count && b[i] == 0x20 { i += 1 } }
    /// The next space-separated token and its 0-based start offset.
    mutating func token() -> (String, Int)? {
        skipSpaces()
        guard i < b.count else { return nil }
        let s = i
        while i < b.count && b[i] != 0x20 { i += 1 }
        return (NameEscaping.escape(Array(b[s..<i])), s)
    }
}

/// The reader of one listing (`MacListing.parse`); extended attributes and ACE lines are
/// read in MacListing+ACE.swift.
struct MacListingParser {
    var listing = MacListing.Listing()
    var errors: [MacListing.Problem] = []

    // Section state.
    var sectionRel: String? = ""  // relative path of the current section's directory
    var sawHeader = false
    var sectionHasTotal = false
    var sectionHasEntries = false
    var expectHeader = false
    var firstHeaderPending = true  // the root text still comes from the first header
    var current: Int? = nil  // index in `listing.entries` of the last entry (for ACE/xattr lines)
    var currentSawACELine = false  // an ACE line (even a malformed one) followed the entry
    var pendingDuplicate: MacListing.Entry? = nil
    var pendingDuplicateOf: Int? = nil
    var byPath: [String: Int] = [:]  // relativePath ("..": above root) → entry index
    var namesInSection: Set<String> = []
    var sectioned: Set<String> = [""]  // directories that have a section
    var flagsColumnSeen: (Bool, Int)? = nil  // (has flags, line) of the first entry

    mutating func error(_ line: Int, _ col: Int, _ msg: String, _ help: String? = nil, code: String = "bad-listing") {
        errors.append(MacListing.Problem(line: line, column: col, code: code, message: msg, help: help))
    }

    mutating func run(_ data: [UInt8]) {
        var lines: [[UInt8]] = data.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }
        var firstContent = true
        for (idx, raw) in lines.enumerated() {
            var l = raw
            if l.last == 0x0D { l.removeLast() }
            let n = idx + 1
            if l.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                if !l.isEmpty {
                    error(n, 1, "a line of only spaces or tabs", "ls never prints one; remove it")
                    continue
                }
                finishEntry()
                if !firstContent { expectHeader = true }
                continue
            }
            // `ls: PATH: message` on stderr, mixed in with `2>&1`.
            if l.starts(with: Array("ls: ".utf8)) {
                listing.warnings.append(
                    MacListing.Problem(
                        line: n, column: 1, code: "listing-problem",
                        message: "ls reported: " + NameEscaping.escape(Array(l.dropFirst(4))),
                        help: "that part of the tree is missing from the listing; list it again with enough rights (sudo, Full Disk Access)"))
                continue
            }
            if expectHeader || firstContent {
                let wasFirst = firstContent
                firstContent = false
                if l.last == 0x3A /* : */ && !(l.first.map { "-dlpscbw".utf8.contains($0) } == true && looksLikeEntry(l)) {
                    header(l, line: n, atStart: wasFirst)
                    expectHeader = false
                    continue
                }
                if expectHeader && !wasFirst {
                    error(
                        n, 1, "expected a section header `DIRECTORY:` after the blank line",
                        "in `ls -R` output a blank line comes only before the next directory's header")
                    expectHeader = false
                    sectionRel = nil
                    continue
                }
            }
            if l.starts(with: Array("total ".utf8)) {
                let v = String(decoding: l.dropFirst(6), as: UTF8.self)
                if !isSize(v) {
                    error(n, 7, "`total` is followed by a number of blocks, found `\(NameEscaping.escape(Array(l.dropFirst(6))))`")
                } else if sectionHasTotal || sectionHasEntries {
                    error(n, 1, "`total` comes once, right after a section header", "ls prints it before the section's first entry")
                }
                sectionHasTotal = true
                continue
            }
            if l.first == 0x09 {
                xattrLine(l, line: n)
                continue
            }
            if l.first == 0x20 {
                aceLine(l, line: n)
                continue
            }
            if let f = l.first, "-dlpscbw".utf8.contains(f) {
                entryLine(l, line: n)
                continue
            }
            error(
                n, 1, "not a line that `ls -leOR` prints: `\(shorten(l))`",
                "lines are section headers `DIR:`, `total N`, entries (`-rw-r--r--  1 alice  staff  -  0 Nov 20 10:02 name`), ACE lines (` 0: user:bob allow read`), xattr lines (TAB name TAB size) and blank lines"
            )
        }
        finishEntry()
        listing.directoriesWithoutSection = listing.entries.filter {
            $0.type == .dir && !$0.aboveRoot && !sectioned.contains($0.relativePath)
        }
    }

    func shorten(_ l: [UInt8]) -> String {
        let s = NameEscaping.escape(Array(l.prefix(60)))
        return l.count > 60 ? s + "…" : s
    }

    func looksLikeEntry(_ l: [UInt8]) -> Bool {
        guard l.count > 11 else { return false }
        let mode = Array(l[0..<10])
        return FileMode.parse(String(decoding: mode.map { $0 == 0x77 && mode.firstIndex(of: $0) == 0 ? 0x2D : $0 }, as: UTF8.self)) != nil
            && (l[10] == 0x20 || "+@%".utf8.contains(l[10]))
    }

    func isSize(_ s: String) -> Bool {
        guard !s.isEmpty else { return false }
        var body = Substring(s)
        if let last = body.last, "BKMGTPE".contains(last) { body = body.dropLast() }
        return !body.isEmpty && body.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } && body.first!.isNumber
    }

    // MARK: Headers

    mutating func header(_ l: [UInt8], line n: Int, atStart: Bool) {
        finishEntry()
        let text = MacListing.normalizePath(NameEscaping.escape(Array(l.dropLast())))
        sectionHasTotal = false
        sectionHasEntries = false
        namesInSection = []
        if firstHeaderPending {
            firstHeaderPending = false
            if atStart {
                // The listing starts with a header: it names the root.
                listing.rootText = text
                sectionRel = ""
                sawHeader = true
                return
            }
            listing.rootText = MacListing.dirname(text)
        }
        sawHeader = true
        guard let root = listing.rootText else { sectionRel = nil; return }
        let rel: String
        if text == root {
            rel = ""
        } else if root == "/" && text.hasPrefix("/") {
            rel = String(text.dropFirst())
        } else if root == "." && !text.hasPrefix("/") && !text.hasPrefix("./") {
            rel = text
        } else if text.hasPrefix(root + "/") {
            rel = String(text.dropFirst(root.count + 1))
        } else {
            error(
                n, 1, "the section `\(text)` is not below the listing's root `\(root)`",
                "list one tree: `ls -laeOR DIR`")
            sectionRel = nil
            return
        }
        if rel.isEmpty || sectioned.contains(rel) {
            error(n, 1, "`\(text)` has a section already", "each directory is listed once")
            sectionRel = nil
            return
        }
        guard let idx = byPath[rel], listing.entries[idx].type == .dir, !listing.entries[idx].aboveRoot else {
            error(
                n, 1, "the section `\(text)` names a directory that its parent's section does not list",
                "ls -R lists a directory's contents after the directory itself; the listing may be cut or edited")
            sectionRel = nil
            return
        }
        sectioned.insert(rel)
        sectionRel = rel
    }

    // MARK: Entries

    mutating func finishEntry() {
        if let d = pendingDuplicate, let of = pendingDuplicateOf {
            if !listing.entries[of].sameObject(as: d) {
                let first = listing.entries[of]
                error(
                    d.line, 1, "`\(d.name)` describes `\(displayPath(first))` differently from line \(first.line)",
                    "`.`, `..` and a directory's entry in its parent's section are one object; the listing may have been edited, or the tree changed while ls ran"
                )
            }
        } else if let c = current {
            let e = listing.entries[c]
            if e.marker == "+" && !currentSawACELine {
                error(
                    e.line, 11, "`+` says `\(displayPath(e))` has an ACL, but no ACE lines follow",
                    "list with `-e` (`ls -laeOR`) so that the entries' ACEs are printed")
            }
        }
        pendingDuplicate = nil
        pendingDuplicateOf = nil
        current = nil
        currentSawACELine = false
    }

    func displayPath(_ e: MacListing.Entry) -> String {
        e.aboveRoot ? ".." : e.relativePath.isEmpty ? "." : e.relativePath
    }

    mutating func entryLine(_ l: [UInt8], line n: Int) {
        finishEntry()
        sectionHasEntries = true
        guard let dir = sectionRel else { return }  // a bad header already reported
        var t = LineBytes(l)
        guard let (modeTok, _) = t.token() else { return }
        let mchars = Array(modeTok)
        guard mchars.count == 10 || mchars.count == 11 else {
            error(
                n, 1, "the mode `\(modeTok)` has \(mchars.count) characters; ls prints ten, then `+`, `@`, `%` or a space",
                "e.g. `drwxr-xr-x+`; list without `-i` and `-s`, which put numbers before the mode")
            return
        }
        if mchars[0] == "w" {
            error(n, 1, "a whiteout entry (`w`) cannot be imported", "list without `-W`")
            return
        }
        guard let (mode, typeOpt) = FileMode.parse(String(mchars[0..<10])), let type = typeOpt else {
            let body = Array(mchars[1..<10])
            let letters: [Character] = ["r", "w", "x"]
            var col = 1
            for (i, ch) in body.enumerated() where ch != "-" && ch != letters[i % 3] && !(i % 3 == 2 && "sStT".contains(ch)) { col = i + 2; break }
            error(
                n, col, "`\(modeTok)` is not a mode that ls prints",
                "ten characters: the type (`-dlpscb`), then `rwx` triples with `s`/`S`/`t`/`T` for the special bits")
            return
        }
        var marker: Character = " "
        if mchars.count == 11 {
            marker = mchars[10]
            guard "+@%".contains(marker) else {
                error(
                    n, 11, "`\(marker)` after the mode is not a marker that macOS ls prints",
                    marker == "."
                        ? "`.` after the mode is how GNU ls (Linux) marks an SELinux context: on Linux, import the tree with `scan` or `getfacl`"
                        : "`+` (ACL), `@` (extended attributes), `%` (dataless) or nothing")
                return
            }
        }
        guard let (nlink, ncol) = t.token() else { return missing(n, l, "the link count") }
        guard nlink.allSatisfy(\.isNumber) else {
            error(n, ncol + 1, "expected the link count (a number), found `\(nlink)`", "the column after the mode is the number of links")
            return
        }
        guard let (owner, ocol) = t.token() else { return missing(n, l, "the owner") }
        guard let (group, gcol) = t.token() else { return missing(n, l, "the group") }
        guard var (next, ncol2) = t.token() else { return missing(n, l, "the size") }
        var flags: FileFlags = []
        var other: [String] = []
        let isFlags =
            next == "-"
            || next.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { w in
                w.first.map { $0.isLetter } == true
            }
        if isFlags {
            if next != "-" {
                var off = ncol2
                for w in next.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                    if let f = MacListing.modelledFlags[w] {
                        flags.formUnion(f)
                    } else if MacListing.inertFlags.contains(w) || MacListing.unmodelledFlags.contains(w) {
                        other.append(w)
                    } else {
                        error(
                            n, off + 1, "unknown file flag `\(w)`",
                            (nearest(w, in: MacListing.allFlagWords).map { "did you mean `\($0)`? " } ?? "") + "ls -O prints: "
                                + MacListing.allFlagWords.joined(separator: " ") + " (or `-`)")
                        return
                    }
                    off += w.utf8.count + 1
                }
            }
            guard let s = t.token() else { return missing(n, l, "the size") }
            (next, ncol2) = s
        }
        if let (had, firstLine) = flagsColumnSeen {
            if had != isFlags {
                error(
                    n, ncol2 + 1,
                    isFlags
                        ? "this entry has a flags column but the one on line \(firstLine) has none"
                        : "this entry has no flags column but the one on line \(firstLine) has one",
                    "every entry of an `ls -O` listing has its flags (or `-`) between the group and the size")
                return
            }
        } else {
            flagsColumnSeen = (isFlags, n)
            listing.hasFlagsColumn = isFlags
        }
        // Size (or a device's major, minor).
        if type.isDevice && next.hasSuffix(",") {
            guard let (minor, mcol) = t.token(), minor.allSatisfy(\.isNumber) else {
                error(n, ncol2 + 1, "a device entry has `major, minor` where the size goes", nil)
                return
            }
            _ = mcol
        } else if !(isSize(next) || (type.isDevice && next.hasPrefix("0x"))) {
            error(
                n, ncol2 + 1, "expected the size, found `\(next)`",
                "the columns are: mode, links, owner, group, flags (`-O`), size, date, name")
            return
        }
        // Date: `Nov 20 10:02`, `Nov 20  2024`, `20 Nov 10:02` (day first in some locales),
        // or with -T `Nov 20 10:02:33 2025`.
        guard let (d1, d1col) = t.token(), let (d2, _) = t.token(), let (d3, d3col) = t.token() else {
            return missing(n, l, "the date")
        }
        let dayFirst = d1.allSatisfy(\.isNumber)
        let (month, day) = dayFirst ? (d2, d1) : (d1, d2)
        guard !month.isEmpty, !month.allSatisfy(\.isNumber), !day.isEmpty, day.count <= 2, day.allSatisfy(\.isNumber) else {
            error(n, d1col + 1, "expected a date like `Nov 20 10:02`, found `\(d1) \(d2)`", "the date comes after the size")
            return
        }
        let colons = d3.filter { $0 == ":" }.count
        let digitsAndColons = d3.allSatisfy { $0.isNumber || $0 == ":" }
        guard digitsAndColons && (colons == 1 || colons == 2 || (colons == 0 && d3.count == 4)) else {
            error(n, d3col + 1, "expected a time (`10:02`) or a year (`2024`), found `\(d3)`", nil)
            return
        }
        if colons == 2 {
            guard let (y, ycol) = t.token(), y.count == 4, y.allSatisfy(\.isNumber) else {
                return missing(n, l, "the year after the `-T` time")
            }
            _ = ycol
        }
        // The name starts one space after the date.
        guard t.i < l.count, l[t.i] == 0x20, t.i + 1 < l.count else { return missing(n, l, "the name") }
        var nameBytes = Array(l[(t.i + 1)...])
        var target: String? = nil
        let arrow: [UInt8] = Array(" -> ".utf8)
        if type == .symlink {
            guard let k = find(arrow, in: nameBytes) else {
                error(n, t.i + 2, "a symlink entry ends with `-> TARGET`", "ls prints `name -> target` for symlinks")
                return
            }
            target = NameEscaping.escape(Array(nameBytes[(k + arrow.count)...]))
            nameBytes = Array(nameBytes[..<k])
            if target!.isEmpty { error(n, t.i + 2 + k + arrow.count, "the symlink's target is empty"); return }
        }
        let name = NameEscaping.escape(nameBytes)
        if name.isEmpty { return missing(n, l, "the name") }
        if nameBytes.contains(0x2F) {
            error(n, t.i + 2, "`\(name)` contains `/`: an entry is one name", "list a directory (`ls -laeOR DIR`), not single paths")
            return
        }
        if namesInSection.contains(name) {
            error(n, t.i + 2, "`\(name)` is listed twice in this section", nil)
            return
        }
        namesInSection.insert(name)
        var entry = MacListing.Entry(
            relativePath: "", name: name, type: type, mode: mode, marker: marker, owner: owner,
            ownerColumn: ocol + 1, group: group, groupColumn: gcol + 1, flags: flags, otherFlags: other,
            target: target, line: n)
        if name == "." {
            guard type == .dir else { error(n, 1, "`.` is a directory", nil); return }
            entry.relativePath = dir
        } else if name == ".." {
            guard type == .dir else { error(n, 1, "`..` is a directory", nil); return }
            if dir.isEmpty {
                entry.aboveRoot = true
                entry.relativePath = ".."
            } else {
                entry.relativePath = MacListing.dirname(dir) == "." ? "" : MacListing.dirname(dir)
            }
        } else {
            entry.relativePath = dir.isEmpty ? name : dir + "/" + name
        }
        let key = entry.relativePath
        if let of = byPath[key] {
            pendingDuplicate = entry
            pendingDuplicateOf = of
            return
        }
        byPath[key] = listing.entries.count
        current = listing.entries.count
        listing.entries.append(entry)
    }

    mutating func missing(_ n: Int, _ l: [UInt8], _ what: String) {
        error(
            n, l.count + 1, "the entry ends before \(what)",
            "an entry reads `-rw-r--r--  1 alice  staff  -  0 Nov 20 10:02 name` (mode, links, owner, group, flags, size, date, name)")
    }

    func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}
