import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// `import: - lsle:` — macOS `ls -leOR` listings: every line kind, every malformed line kind with
/// its position, and the loader's use of a listing (names, root, `.`/`..`, positions).
@Suite("macOS ls -leOR listings")
struct MacListingTests {
    static func parse(_ text: String) -> (MacListing.Listing, [MacListing.Problem]) {
        MacListing.parse(Array(text.utf8))
    }

    /// One entry line (with the ACE or xattr lines under it) after `total 0`, and what it must give.
    struct EntryCase: CustomTestStringConvertible, Sendable {
        let lines: String
        let name: String
        let type: NodeType
        let mode: UInt16
        var owner = "alice"
        var group = "staff"
        var flags: FileFlags = []
        var other: [String] = []
        var target: String? = nil
        var aces: [MacListing.ACELine] = []
        var xattrs: [String] = []
        var testDescription: String { lines.split(separator: "\n").first.map(String.init) ?? "" }
    }

    static func ace(_ s: MacListing.Subject, _ k: ACEKind, _ r: AccessRights, _ f: ACEFlags = []) -> MacListing.ACELine {
        MacListing.ACELine(subject: s, kind: k, rights: r, flags: f, line: 0, subjectColumn: 0)
    }

    static let entryCases: [EntryCase] = [
        EntryCase(lines: "-rw-r--r--   1 alice  staff  -  841 Nov 17 20:45 notes.txt", name: "notes.txt", type: .file, mode: 0o644),
        EntryCase(lines: "drwxr-xr-x   3 alice  staff  -   96 Nov 17 20:45 Project Plan", name: "Project Plan", type: .dir, mode: 0o755),
        EntryCase(
            lines: "lrwxr-xr-x   1 alice  staff  -   12 Nov 19 17:22 Current -> Project Plan", name: "Current", type: .symlink,
            mode: 0o755, target: "Project Plan"),
        EntryCase(lines: "prw-r--r--   1 alice  staff  -    0 Nov 19 17:22 fifo", name: "fifo", type: .fifo, mode: 0o644),
        EntryCase(lines: "srwxrwxrwx   1 root   wheel  -    0 Nov 19 17:22 sock", name: "sock", type: .socket, mode: 0o777, owner: "root", group: "wheel"),
        EntryCase(
            lines: "crw-rw-rw-   1 root   wheel  -    3,   2 Nov 24 01:20 null", name: "null", type: .charDevice, mode: 0o666, owner: "root", group: "wheel"),
        EntryCase(
            lines: "brw-r-----   1 root   operator  -  0x1000004 Nov 24 01:20 disk1s4", name: "disk1s4", type: .blockDevice, mode: 0o640,
            owner: "root", group: "operator"),
        EntryCase(
            lines: "-rwsr-xr-x   1 root   wheel  restricted,compressed  1377 Jan  1  2020 sudo", name: "sudo", type: .file, mode: 0o4755,
            owner: "root", group: "wheel", other: ["restricted", "compressed"]),
        EntryCase(lines: "drwxrwsr-T   2 alice  staff  -   64 Nov 19 17:22 odd", name: "odd", type: .dir, mode: 0o3774),
        EntryCase(lines: "drwxrwxrwt   6 root   wheel  -  192 Nov 19 12:40 Shared", name: "Shared", type: .dir, mode: 0o1777, owner: "root", group: "wheel"),
        EntryCase(
            lines: "-rw-------@  1 alice  staff  uchg,hidden  151320 Apr 14  2025 Tax Return 2025.pdf\n\tcom.apple.lastuseddate#PS\t     16 ",
            name: "Tax Return 2025.pdf", type: .file, mode: 0o600, flags: [.userImmutable, .userHidden], xattrs: ["com.apple.lastuseddate#PS"]),
        EntryCase(
            lines: "-rw-r--r--   1 alice  staff  schg,sappnd,uappnd,nodump,opaque,arch,sunlnk,dataless  1 Nov 17 20:45 all",
            name: "all", type: .file, mode: 0o644,
            flags: [.systemImmutable, .systemAppend, .userAppend, .userNoDump, .userOpaque, .systemArchived], other: ["sunlnk", "dataless"]),
        EntryCase(
            lines: "-rw-r--r--   1 501    20     -  1.2K Nov 17 20:45 numeric ids", name: "numeric ids", type: .file, mode: 0o644, owner: "501", group: "20"),
        EntryCase(lines: "-rw-r--r--   1 alice  staff  -  1 17 nov. 20:45 jour d'abord", name: "jour d'abord", type: .file, mode: 0o644),
        EntryCase(lines: "-rw-r--r--   1 alice  staff  -  1 Nov 17 20:45:09 2025 with -T", name: "with -T", type: .file, mode: 0o644),
        EntryCase(lines: "-rw-r--r--%  1 alice  staff  -  1 Nov 17 20:45  leading space", name: " leading space", type: .file, mode: 0o644),
        EntryCase(lines: "-rw-r--r--   1 alice  staff  -  1 Nov 17 20:45 caf\u{e9} -> not a link", name: "caf\u{e9} -> not a link", type: .file, mode: 0o644),
        EntryCase(
            lines:
                "drwxr-xr-x+  3 alice  staff  -   96 Nov 17 20:45 Team\n 0: user:bob allow list,add_file,search,add_subdirectory,delete_child,file_inherit,directory_inherit\n 1: group:staff inherited allow list,search,file_inherit,directory_inherit,limit_inherit,only_inherit\n 2: group:everyone deny delete\n 3: user:carol deny \n 4: ABCDEFAB-CDEF-ABCD-EFAB-CDEF0000000C deny writeattr,writeextattr,writesecurity,chown\n 5: FFFFEEEE-DDDD-CCCC-BBBB-AAAA000001F7 allow readattr,readextattr,readsecurity\n 6: ABCDEFAB-CDEF-ABCD-EFAB-CDEF00000050 allow delete\n 7: ABCDEFAB-CDEF-ABCD-EFAB-CDEF0000000A allow list\n 8: ABCDEFAB-CDEF-ABCD-EFAB-CDEF00000010 allow search",
            name: "Team", type: .dir, mode: 0o755,
            aces: [
                ace(.user("bob"), .allow, [.list, .addFile, .search, .addSubdirectory, .deleteChild], [.fileInherit, .directoryInherit]),
                ace(.group("staff"), .allow, [.list, .search], [.inherited, .fileInherit, .directoryInherit, .limitInherit, .onlyInherit]),
                ace(.everyone, .deny, .delete),
                ace(.user("carol"), .deny, []),
                ace(.everyone, .deny, [.writeAttributes, .writeExtAttributes, .writeSecurity, .takeOwnership]),
                ace(.uid(503), .allow, [.readAttributes, .readExtAttributes, .readSecurity]),
                ace(.gid(80), .allow, .delete),
                ace(.owner, .allow, .list),
                ace(.owningGroup, .allow, .search)
            ]),
        EntryCase(
            lines:
                "-rw-r--r--@  1 bob    staff  -  3120 Nov 18 15:30 minutes.txt\n\tcom.apple.quarantine\t57\n 0: user:alice inherited allow read,write,execute,delete,append,readattr,writeattr,readextattr,writeextattr,readsecurity,writesecurity,chown,limit_inherit",
            name: "minutes.txt", type: .file, mode: 0o644, owner: "bob",
            aces: [
                ace(
                    .user("alice"), .allow,
                    [
                        .readData, .writeData, .execute, .delete, .appendData, .readAttributes, .writeAttributes,
                        .readExtAttributes, .writeExtAttributes, .readSecurity, .writeSecurity, .takeOwnership
                    ],
                    [.inherited, .limitInherit])
            ],
            xattrs: ["com.apple.quarantine"])
    ]

    @Test("each kind of entry, ACE and xattr line is read", arguments: entryCases)
    func entryLines(_ c: EntryCase) throws {
        let (listing, errors) = Self.parse("total 0\n" + c.lines + "\n")
        #expect(errors.isEmpty, "\(errors)")
        let e = try #require(listing.entries.first)
        #expect(listing.entries.count == 1)
        #expect(e.name == c.name && e.relativePath == c.name)
        #expect(e.type == c.type)
        #expect(e.mode.rawValue == c.mode, "mode \(e.mode.octal)")
        #expect(e.owner == c.owner && e.group == c.group)
        #expect(e.flags == c.flags)
        #expect(e.otherFlags == c.other)
        #expect(e.target == c.target)
        #expect(e.aces == c.aces)
        #expect(e.xattrs == c.xattrs)
        #expect(e.line == 2)
    }

    @Test("sections: headers, totals, `.` and `..`, `ls:` messages, the root from the first header")
    func sections() throws {
        let text = """
            total 8
            drwxr-x---+ 4 alice  staff  -  128 Nov 20 10:02 .
             0: group:everyone deny delete
            drwxr-xr-x  6 root   admin  -  192 Oct  2 09:11 ..
            drwx------  3 alice  staff  -   96 Nov 20 10:01 My Stuff
            -rw-r--r--  1 alice  staff  -    0 Nov 20 10:01 a.txt

            /Users/alice//My Stuff:
            total 0
            drwx------  3 alice  staff  -   96 Nov 20 10:01 .
            drwxr-x---+ 4 alice  staff  -  128 Nov 20 10:02 ..
             0: group:everyone deny delete
            drwx------  2 alice  staff  -   64 Nov 20 10:01 inner

            /Users/alice/My Stuff/inner:
            ls: /Users/alice/My Stuff/inner: Permission denied

            """
        let (l, errors) = Self.parse(text)
        #expect(errors.isEmpty, "\(errors)")
        #expect(l.rootText == "/Users/alice")
        #expect(l.entries.map(\.relativePath) == ["", "..", "My Stuff", "a.txt", "My Stuff/inner"])
        #expect(l.entries[1].aboveRoot)
        #expect(l.entries[0].aces.count == 1)
        #expect(l.warnings.map(\.line) == [16])
        #expect(l.directoriesWithoutSection.isEmpty)

        // A listing that starts with its header (several operands); relative headers.
        let (l2, e2) = Self.parse("./Docs:\ntotal 0\ndrwx------  2 alice  staff  -  64 Nov 20 10:01 x\n\n./Docs/x:\ntotal 0\n")
        #expect(e2.isEmpty, "\(e2)")
        #expect(l2.rootText == "./Docs")
        #expect(l2.entries.map(\.relativePath) == ["x"])

        // Not recursive, no flags column: both noted.
        let (l3, e3) = Self.parse("total 0\ndrwx------  2 alice  staff  64 Nov 20 10:01 x\n")
        #expect(e3.isEmpty, "\(e3)")
        #expect(!l3.hasFlagsColumn)
        #expect(l3.directoriesWithoutSection.map(\.name) == ["x"])
        #expect(l3.rootText == nil)
    }

    /// A malformed listing and where its (first) error must be.
    struct BadCase: CustomTestStringConvertible, Sendable {
        let what: String
        let text: String
        let line: Int
        let column: Int
        let message: String
        var testDescription: String { what }
    }

    static let head = "total 0\ndrwxr-xr-x  3 alice  staff  -  96 Nov 20 10:01 .\n"
    static let badCases: [BadCase] = [
        BadCase(what: "unknown line", text: head + "hello world\n", line: 3, column: 1, message: "not a line that `ls -leOR` prints"),
        BadCase(
            what: "blank line not followed by a header", text: head + "\n-rw-r--r--  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 4, column: 1,
            message: "expected a section header"),
        BadCase(what: "spaces-only line", text: head + "   \n", line: 3, column: 1, message: "only spaces"),
        BadCase(what: "total twice", text: head + "total 4\n", line: 3, column: 1, message: "`total` comes once"),
        BadCase(what: "total without a number", text: "total many\n", line: 1, column: 7, message: "number of blocks"),
        BadCase(what: "mode too short", text: head + "-rw-r--r  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 1, message: "has 8 characters"),
        BadCase(what: "bad mode letter", text: head + "-rw-r--q--  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 8, message: "not a mode"),
        BadCase(what: "bad marker", text: head + "-rw-r--r--*  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 11, message: "not a marker"),
        BadCase(what: "whiteout", text: head + "w---------  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 1, message: "whiteout"),
        BadCase(what: "link count", text: head + "-rw-r--r--  x alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 13, message: "link count"),
        BadCase(
            what: "unknown flag", text: head + "-rw-r--r--  1 alice  staff  uchg,hiden  0 Nov 20 10:01 a\n", line: 3, column: 34,
            message: "unknown file flag `hiden`"),
        BadCase(
            what: "flags column missing on one entry", text: head + "-rw-r--r--  1 alice  staff  0 Nov 20 10:01 a\n", line: 3, column: 29,
            message: "no flags column"),
        BadCase(what: "size", text: head + "-rw-r--r--  1 alice  staff  -  big Nov 20 10:01 a\n", line: 3, column: 32, message: "expected the size"),
        BadCase(what: "date", text: head + "-rw-r--r--  1 alice  staff  -  0 Nov twenty 10:01 a\n", line: 3, column: 34, message: "expected a date"),
        BadCase(what: "time", text: head + "-rw-r--r--  1 alice  staff  -  0 Nov 20 ten a\n", line: 3, column: 41, message: "a time"),
        BadCase(what: "no name", text: head + "-rw-r--r--  1 alice  staff  -  0 Nov 20 10:01\n", line: 3, column: 46, message: "before the name"),
        BadCase(what: "symlink without target", text: head + "lrwxr-xr-x  1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 47, message: "-> TARGET"),
        BadCase(
            what: "name twice", text: head + "-rw-r--r--  1 alice  staff  -  0 Nov 20 10:01 a\n-rw-r--r--  1 alice  staff  -  0 Nov 20 10:01 a\n",
            line: 4, column: 47, message: "listed twice"),
        BadCase(
            what: "`+` without ACE lines", text: head + "-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n", line: 3, column: 11, message: "no ACE lines follow"
        ),
        BadCase(what: "ACE line before any entry", text: "total 0\n 0: user:bob allow read\n", line: 2, column: 1, message: "before any entry"),
        BadCase(what: "ACE under an entry without a marker", text: head + " 0: user:bob allow list\n", line: 3, column: 1, message: "without `+` or `@`"),
        BadCase(
            what: "ACE index gap", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 1: user:bob allow read\n", line: 3, column: 2,
            message: "ACE #1 where #0"),
        BadCase(
            what: "ACE without index", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n user:bob allow read\n", line: 3, column: 2,
            message: "starts with its index"),
        BadCase(
            what: "ACE subject", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: usr:bob allow read\n", line: 3, column: 5,
            message: "unknown ACE subject"),
        BadCase(
            what: "ACE UUID without an id",
            text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: 6A3C1E0B-2F7D-4C55-9B0E-0D5E2A9C7F11 allow read\n",
            line: 3, column: 5, message: "a UUID that macOS could not turn"),
        BadCase(
            what: "ACE verb", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob permit read\n", line: 3, column: 14,
            message: "expected `allow` or `deny`"),
        BadCase(
            what: "ACE without verb", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob inherited\n", line: 3, column: 23,
            message: "ends before `allow` or `deny`"),
        BadCase(
            what: "ACE directory word on a file", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob allow read,add_file\n",
            line: 3, column: 25, message: "`add_file` on a file: ls prints `write`"),
        BadCase(
            what: "ACE file word on a directory", text: head.replacingOccurrences(of: "x  3", with: "x+ 3") + " 0: user:bob allow list,write\n",
            line: 3, column: 25, message: "`write` on a directory: ls prints `add_file`"),
        BadCase(
            what: "ACE inheritance flag on a file", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob allow read,file_inherit\n",
            line: 3, column: 25, message: "only for directories"),
        BadCase(
            what: "ACE unknown right", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob allow read,wirte\n",
            line: 3, column: 25, message: "unknown ACE right `wirte`"),
        BadCase(
            what: "ACE words with a space", text: "total 0\n-rw-r--r--+ 1 alice  staff  -  0 Nov 20 10:01 a\n 0: user:bob allow read, write\n",
            line: 3, column: 26, message: "after the rights"),
        BadCase(what: "xattr line before any entry", text: "total 0\n\tcom.apple.quarantine\t57\n", line: 2, column: 1, message: "before any entry"),
        BadCase(what: "xattr line without size", text: head + "\tcom.apple.quarantine\n", line: 3, column: 2, message: "TAB name TAB size"),
        BadCase(
            what: "header outside the root", text: "/Users/alice:\ntotal 0\ndrwx------  2 alice  staff  -  64 Nov 20 10:01 x\n\n/Users/bob/x:\n",
            line: 5, column: 1, message: "not below the listing's root"),
        BadCase(
            what: "header for a directory its parent did not list", text: "/Users/alice:\ntotal 0\n\n/Users/alice/x:\n",
            line: 4, column: 1, message: "does not list"),
        BadCase(
            what: "`.` disagrees with the parent's entry",
            text: "/r:\ntotal 0\ndrwx------  2 alice  staff  -  64 Nov 20 10:01 x\n\n/r/x:\ntotal 0\ndrwxr-xr-x  2 alice  staff  -  64 Nov 20 10:01 .\n",
            line: 7, column: 1, message: "differently from line 3")
    ]

    @Test("a refused section header is one error, not one per line of its section")
    func noCascade() {
        let (_, errors) = Self.parse(
            "/r:\ntotal 0\n\n/r/x:\ntotal 0\n-rw-r--r--+ 1 a  b  -  0 Nov 20 10:01 f\n 0: user:bob allow read\n\tcom.apple.quarantine\t57\n")
        #expect(errors.map(\.line) == [4], "\(errors)")
    }

    @Test("each malformed line is refused at its line and column", arguments: badCases)
    func malformed(_ c: BadCase) throws {
        let (_, errors) = Self.parse(c.text)
        let e = try #require(errors.first, "no error for \(c.what)")
        #expect(e.line == c.line && e.column == c.column, "\(e.line):\(e.column) \(e.message)")
        #expect(e.message.contains(c.message), "\(e.message)")
        #expect(e.code == "bad-listing")
        #expect(e.help != nil || e.message.contains("`"), "a hint or the offending text")
    }

    @Test("hostile bytes in names and lines are escaped, never raw, and nothing crashes")
    func hostile() throws {
        var bytes = Array("total 0\n-rw-r--r--  1 alice  staff  -  0 Nov 20 10:01 a\u{1b}[31m\\".utf8)
        bytes += [0xff, 0x0a]
        bytes += Array("\u{7}bell line\n".utf8)
        let (l, errors) = MacListing.parse(bytes)
        #expect(l.entries.first?.name == "a\\033[31m\\134\\377")
        let e = try #require(errors.first)
        #expect(e.line == 3 && !e.message.contains("\u{7}") && e.message.contains("\\007"))
        // Random truncations of a valid listing never crash.
        let full = Array(try String(contentsOfFile: "fixtures/examples/macos-listing/alice.lsle", encoding: .utf8).utf8)
        for cut in stride(from: 0, to: full.count, by: 97) { _ = MacListing.parse(Array(full[..<cut])) }
        // Deterministic single-byte changes (a tab, a newline, a space, a NUL, 0xff, a digit…) never
        // crash, and every error they cause is inside the listing.
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        let lineCount = full.filter { $0 == 0x0A }.count + 1
        for _ in 0..<300 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            var m = full
            m[Int(x % UInt64(m.count))] = [0x09, 0x0A, 0x20, 0x00, 0xFF, 0x31, 0x2B, 0x3A][Int((x >> 32) % 8)]
            let (_, errs) = MacListing.parse(m)
            #expect(errs.allSatisfy { $0.line >= 1 && $0.line <= lineCount + 1 && $0.column >= 1 })
        }
    }

    // MARK: The loader

    func withFiles(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-lsle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        try body(dir)
    }

    static let listing = """
        total 8
        drwxr-x---+ 4 alice  staff  -  128 Nov 20 10:02 .
         0: group:everyone deny delete
        drwxr-xr-x  6 root   admin  -  192 Oct  2 09:11 ..
        -rw-r--r--+ 1 alice  staff  uchg  0 Nov 20 10:01 a.txt
         0: user:bob allow read
         1: group:design inherited deny write
        lrwxr-xr-x  1 501    20     -  5 Nov 20 10:01 link -> a.txt

        """

    @Test("the loader resolves names against the file's own users, places the root, keeps positions")
    func loader() throws {
        try withFiles([
            "h.lsle": Self.listing,
            "p.yaml": """
            fspolicy: 1
            groups:
              admin: {gid: 80}
              design: {gid: 701}
            users:
              alice: {uid: 501, group: staff}
              bob: {uid: 502, group: staff}
            import:
              - lsle: ./h.lsle
                at: /Users/alice
            """
        ]) { dir in
            let p = PolicyLoader.load(path: dir + "/p.yaml")
            #expect(!p.diagnostics.hasErrors && p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
            let w = p.world
            let home = try #require(w.lookup("/Users/alice"))
            #expect(w[home].uid == 501 && w[home].mode.rawValue == 0o750 && w.acl(of: home)?.entries == [ACE(subject: .everyone, kind: .deny, rights: .delete)])
            let users = try #require(w.lookup("/Users"))
            #expect(w[users].uid == 0 && w[users].gid == 80, "`..` describes the root's parent")
            let a = try #require(w.lookup("/Users/alice/a.txt"))
            #expect(w[a].flags == .userImmutable)
            #expect(
                w.acl(of: a)?.entries == [
                    ACE(subject: .user(502), kind: .allow, rights: .readData),
                    ACE(subject: .group(701), kind: .deny, rights: .writeData, flags: .inherited)
                ])
            let link = try #require(w.lookup("/Users/alice/link"))
            #expect(w[link].type == .symlink && w.symlinkTargets[link] == "a.txt" && w[link].uid == 501 && w[link].gid == 20)
            #expect(p.nodeLocation("/Users/alice/a.txt") == SourceLocation(file: dir + "/h.lsle", line: 5, column: 1))
            #expect(p.aceLocations["/Users/alice/a.txt"]?.map(\.line) == [6, 7])
        }
    }

    @Test("undeclared names are errors at their first use in the listing, with a count")
    func unknownNames() throws {
        try withFiles(["h.lsle": Self.listing, "p.yaml": "fspolicy: 1\nusers:\n  alice: {uid: 501}\nimport:\n  - lsle: ./h.lsle\n    at: /Users/alice\n"]) {
            dir in
            let p = PolicyLoader.load(path: dir + "/p.yaml")
            let errs = p.diagnostics.sorted.filter { $0.severity == .error }
            #expect(
                errs.map { "\($0.location.line):\($0.location.column) \($0.code)" } == ["4:22 unknown-group", "6:10 unknown-user", "7:11 unknown-group"],
                "\(errs.map(\.rendered))")
            #expect(errs.allSatisfy { $0.location.file == dir + "/h.lsle" && $0.help?.contains("declare it") == true })
        }
    }

    @Test("where the listing sits: `at`, the first header, or an error")
    func placement() throws {
        let rel = "total 0\ndrwx------  2 501  20  -  64 Nov 20 10:01 x\n\n./x:\ntotal 0\n"
        let abs = rel.replacingOccurrences(of: "./x:", with: "/Volumes/Data/x:")
        try withFiles([
            "rel.lsle": rel, "abs.lsle": abs,
            "a.yaml": "fspolicy: 1\nimport:\n  - lsle: ./rel.lsle\n",
            "b.yaml": "fspolicy: 1\nimport:\n  - lsle: ./abs.lsle\n",
            "c.yaml": "fspolicy: 1\nsemantics: linux\nimport:\n  - lsle: ./h.lsle\n    at: /x\n",
            "h.lsle": Self.listing
        ]) { dir in
            let a = PolicyLoader.load(path: dir + "/a.yaml")
            #expect(a.diagnostics.items.first { $0.severity == .error }.map { "\($0.location.line):\($0.location.column) \($0.code)" } == "3:11 bad-import")
            let b = PolicyLoader.load(path: dir + "/b.yaml")
            #expect(!b.diagnostics.hasErrors, "\(b.diagnostics.sorted.map(\.rendered))")
            #expect(b.world.lookup("/Volumes/Data/x") != nil)
            // The root has no `.` entry: a warning says it gets the defaults.
            #expect(b.diagnostics.items.contains { $0.severity == .warning && $0.message.contains("does not describe `/Volumes/Data`") })
            let c = PolicyLoader.load(path: dir + "/c.yaml")
            #expect(c.diagnostics.items.contains { $0.code == "mac-ace-under-linux" && $0.location.line == 3 && $0.location.file.hasSuffix("h.lsle") })
        }
    }

    @Test("what a listing leaves unknown is said in warnings at the listing's lines")
    func warnings() throws {
        let noFlags = "total 0\ndrwxr-xr-x  3 501  20  96 Nov 20 10:01 .\ndrwx------  2 501  20  64 Nov 20 10:01 sub\n"
        let sip =
            "total 0\ndrwxr-xr-x  3 0  0  -  96 Nov 20 10:01 .\n-rwxr-xr-x  1 0  0  restricted,compressed  9 Jan  1  2020 sudo\n"
            + "-rwxr-xr-x  1 0  0  restricted  9 Jan  1  2020 su\n\n/x/gone:\nls: /x/gone: Permission denied\n"
        try withFiles([
            "a.lsle": noFlags, "b.lsle": sip,
            "p.yaml": "fspolicy: 1\nimport:\n  - lsle: ./a.lsle\n    at: /a\n  - lsle: ./b.lsle\n    at: /b\n"
        ]) { dir in
            let p = PolicyLoader.load(path: dir + "/p.yaml")
            let w = p.diagnostics.sorted.filter { $0.severity == .warning }
            let summary = w.map { "\(($0.location.file as NSString).lastPathComponent):\($0.location.line) \($0.code)" }
            // `/x/gone:` is a header for a directory that b.lsle's root section does not list: an error.
            #expect(p.diagnostics.items.contains { $0.severity == .error && $0.location.line == 6 && $0.location.file.hasSuffix("b.lsle") })
            #expect(summary.contains("a.lsle:2 listing-problem"), "no flags column: \(summary)")
            #expect(w.contains { $0.message.contains("no section of its own") && $0.location.line == 3 }, "\(summary)")
            #expect(w.contains { $0.message.contains("ls reported") && $0.location.line == 7 }, "\(summary)")
            #expect(!p.world.users.isEmpty)
        }
        try withFiles([
            "b.lsle":
                "total 0\ndrwxr-xr-x  3 0  0  -  96 Nov 20 10:01 .\n-rwxr-xr-x  1 0  0  restricted,compressed  9 Jan  1  2020 sudo\n-rwxr-xr-x  1 0  0  restricted  9 Jan  1  2020 su\n",
            "p.yaml": "fspolicy: 1\nimport:\n  - lsle: ./b.lsle\n    at: /usr/bin\n"
        ]) { dir in
            let p = PolicyLoader.load(path: dir + "/p.yaml")
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            let w = p.diagnostics.sorted.filter { $0.severity == .warning }
            #expect(w.count == 1 && w[0].location.line == 3 && w[0].message.contains("`restricted` on `sudo` (and 1 more entries)"), "\(w.map(\.rendered))")
            let sudo = try #require(p.world.lookup("/usr/bin/sudo"))
            #expect(p.world[sudo].flags.isEmpty, "restricted and compressed change no decision here")
        }
    }

    /// A random tree, written the way `ls -laeOR /r` prints it on a Mac, comes back node for node.
    @Test("random trees written as ls -laeOR listings come back node for node")
    func roundTrip() throws {
        struct Node {
            var name: String; var type: NodeType; var mode: UInt16; var owner: String; var group: String
            var flags: FileFlags; var aces: [ACE]; var target: String?; var children: [Node]
        }
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Int(x % UInt64(n)) }
        let users = ["alice": UID(501), "bob": 502, "root": 0], groups = ["staff": GID(20), "wheel": 0, "admin": 80]
        let names = ["a", "My Docs", "notes.txt", "x -> y", "caf\u{e9}", " lead", "trail ", "Ünïcödé", "a:b:", "tab\there"]
        func randomACE(dir: Bool) -> ACE {
            let subjects: [ACESubject] = [.user(501), .user(502), .group(20), .group(80), .everyone]
            let words = AccessRights.words.filter { dir ? $0.onDirectories : $0.onFiles }
            var r: AccessRights = []
            for _ in 0..<next(4) { r.formUnion(words[next(words.count)].right) }
            var f: ACEFlags = next(3) == 0 ? .inherited : []
            if next(3) == 0 { f.insert(.limitInherit) }
            if dir { for (_, fl) in ACEFlags.words where next(3) == 0 { f.insert(fl) } }
            return ACE(subject: subjects[next(subjects.count)], kind: next(2) == 0 ? .allow : .deny, rights: r, flags: f)
        }
        func randomNode(_ name: String, depth: Int) -> Node {
            var t: NodeType = depth < 3 && next(3) == 0 ? .dir : [.file, .file, .symlink, .fifo][next(4)]
            // A symlink's name ends at the first ` -> ` (documented): no such names for links.
            if t == .symlink && name.contains(" -> ") { t = .file }
            var flags: FileFlags = []
            for (_, f) in FileFlags.names where next(6) == 0 { flags.insert(f) }
            var n = Node(
                name: name, type: t, mode: UInt16(next(0o7777 + 1)), owner: ["alice", "bob", "root"][next(3)],
                group: ["staff", "wheel", "admin"][next(3)], flags: flags,
                aces: (0..<(next(3) == 0 ? next(4) + 1 : 0)).map { _ in randomACE(dir: t == .dir) },
                target: t == .symlink ? ["../up", "My Docs/x", "/abs path"][next(3)] : nil, children: [])
            if t == .dir {
                var used: Set<String> = []
                for _ in 0..<next(5) { let nm = names[next(names.count)]; if used.insert(nm).inserted { n.children.append(randomNode(nm, depth: depth + 1)) } }
                n.children.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
            }
            return n
        }
        func nameOf(_ s: ACESubject) -> String {
            switch s {
            case .user(let u): return "user:" + users.first { $0.value == u }!.key
            case .group(let g): return "group:" + groups.first { $0.value == g }!.key
            default: return "group:everyone"
            }
        }
        func line(_ n: Node, as name: String) -> [String] {
            let marker = n.aces.isEmpty ? " " : "+"
            let flags = FileFlags.names.filter { n.flags.contains($0.1) }.map(\.0).joined(separator: ",")
            var l = "\(n.type.lsChar)\(FileMode(n.mode).symbolic)\(marker) 1 \(n.owner)  \(n.group)  \(flags.isEmpty ? "-" : flags) 0 Nov 20 10:01 \(name)"
            if let t = n.target { l += " -> " + t }
            return [l] + n.aces.enumerated().map { " \($0.offset): " + $0.element.text(names: nameOf, forDirectory: n.type == .dir) }
        }
        func listing(_ n: Node, path: String, parent: Node, top: Bool) -> [String] {
            var out = top ? [] : ["", path + ":"]
            out.append("total 0")
            out += line(n, as: ".") + line(parent, as: "..")
            for c in n.children { out += line(c, as: c.name) }
            for c in n.children where c.type == .dir { out += listing(c, path: path + "/" + c.name, parent: n, top: false) }
            return out
        }
        var compared = 0
        for round in 0..<60 {
            var root = randomNode("r", depth: 0)
            root.type = .dir
            root.target = nil
            if root.children.isEmpty { root.children = [randomNode("a", depth: 1)] }
            root.aces = root.aces.map {
                var a = $0; a.rights = a.rights; return a
            }
            let up = Node(name: "..", type: .dir, mode: 0o755, owner: "root", group: "admin", flags: [], aces: [], target: nil, children: [])
            let text = listing(root, path: "/Volumes/Data/r", parent: up, top: true).joined(separator: "\n") + "\n"
            let (l, errors) = Self.parse(text)
            #expect(errors.isEmpty, "round \(round): \(errors.prefix(3))\n\(text)")
            try withFiles([
                "t.lsle": text,
                "p.yaml":
                    "fspolicy: 1\ngroups:\n  admin: {gid: 80}\nusers:\n  alice: {uid: 501}\n  bob: {uid: 502}\nimport:\n  - lsle: ./t.lsle\n    at: /Volumes/Data/r\n"
            ]) { dir in
                let p = PolicyLoader.load(path: dir + "/p.yaml")
                #expect(!p.diagnostics.hasErrors, "round \(round): \(p.diagnostics.sorted.prefix(3).map(\.rendered))\n\(text)")
                func check(_ n: Node, _ path: String) {
                    guard let id = p.world.lookup(path) else { Issue.record("round \(round): \(path) is missing"); return }
                    let w = p.world[id]
                    // A file's ACE prints no inheritance flags but limit_inherit: compare what ls shows.
                    let shown = n.aces.map { a -> ACE in
                        var a = a; if n.type != .dir { a.flags.formIntersection([.inherited, .limitInherit]) }; return a
                    }
                    #expect(
                        w.type == n.type && w.mode.rawValue == n.mode && w.uid == users[n.owner] && w.gid == groups[n.group] && w.flags == n.flags,
                        "round \(round): \(path)")
                    #expect((p.world.acl(of: id)?.entries ?? []) == shown, "round \(round): ACL of \(path)")
                    #expect(p.world.symlinkTargets[id] == n.target, "round \(round): target of \(path)")
                    compared += 1
                    // Control characters are kept as `\ooo` escapes, like scanned names.
                    for c in n.children { check(c, path + "/" + NameEscaping.escape(Array(c.name.utf8))) }
                }
                check(root, "/Volumes/Data/r")
                let upID = try #require(p.world.lookup("/Volumes/Data"))
                #expect(p.world[upID].gid == 80)
            }
            _ = l
        }
        #expect(compared >= 200, "only \(compared) nodes compared")
    }

    @Test("the bundled macOS listing example builds the tree its listing describes")
    func bundledExample() throws {
        let p = PolicyLoader.load(path: "fixtures/examples/macos-listing/policy.yaml")
        #expect(p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
        let w = p.world
        let tax = try #require(w.lookup("/Users/alice/Documents/Tax Return 2025.pdf"))
        #expect(w[tax].flags == .userImmutable && w[tax].mode.rawValue == 0o600)
        let lib = try #require(w.lookup("/Users/alice/Library"))
        #expect(w[lib].flags == .userHidden && w.acl(of: lib)?.count == 1)
        let budget = try #require(w.lookup("/Users/alice/Documents/Project Plan/budget.csv"))
        #expect(w.acl(of: budget)?.entries.map(\.isInherited) == [false, true, true])
        let shared = try #require(w.lookup("/Users/Shared"))
        #expect(w[shared].mode.rawValue == 0o1777 && w[shared].gid == 0)
        let cur = try #require(w.lookup("/Users/alice/Documents/Current"))
        #expect(w.symlinkTargets[cur] == "Project Plan")
        #expect(w.lookup("/Users/alice/Library/Application Support/AddressBook") != nil)
    }
}
