import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

/// Issue 13, "fmt breaks files": each case is formatted, and the result must read back as the
/// same document (same scalars, same structure), be canonical (formatting it again changes
/// nothing), and keep its comments.
@Suite("fmt: the round trip keeps the document")
struct FormatterRoundTripTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    static let longPath = "/" + String(repeating: "long-directory-name/", count: 60) + "f"

    static let cases: [Case] = [
        Case(
            name: "plain scalars with flow indicators",
            text: "fspolicy: 1\nexpect:\n  - as: bob\n    op: read\n    path: /a\n    result: allow\n    name: a,b [c] {d}\n"),
        Case(name: "CRLF line ends", text: "fspolicy: 1\r\n# a comment\r\ntree:\r\n  /b: {type: dir}  # trailing\r\n  /a: {type: dir}\r\n"),
        Case(name: "lone CR line ends", text: "fspolicy: 1\r# a comment\rtree:\r  /a: {type: dir}\r"),
        Case(name: "a quoted scalar with a line break", text: "fspolicy: 1\ntree:\n  /l: {type: symlink, target: \"x\\ny\"}\n"),
        Case(
            name: "characters YAML rejects raw",
            text: "fspolicy: 1\ndescription: \"bell \\a nel \\N ls \\L ps \\P fffe \\uFFFE ffff \\uFFFF c1 \\x85\\x9b esc \\e bidi \\u202E\\u2066 del \\x7f\"\n"
        ),
        Case(name: "a long key", text: "fspolicy: 1\ntree:\n  ? \"\(longPath)\"\n  : {type: file}\n  /: {type: dir}\n"),
        Case(name: "deep empty collections", text: "fspolicy: 1\ntree: {}\nsteps: [[], {}, [[]], {a: {}}]\nexpect:\n  - {}\nx: {a: {b: {}}, c: []}\n"),
        Case(name: "a comment after an apostrophe", text: "fspolicy: 1\ndescription: Bob's file  # keep this comment\ntree:\n  /: {type: dir}\n"),
        Case(
            name: "literal blocks and their chomping", text: "fspolicy: 1\ndescription: |-\n  no final break\n  here\nx: |+\n  two\n  breaks\n\ny: |\n  one\n"),
        Case(name: "a single-quoted scalar with a tab escape", text: "fspolicy: 1\ntree:\n  '/x\\011b': {}\n  \"/y\\tz\": {}\n"),
        Case(
            name: "the linux: sysctls, flow style, keys out of order, after the tree",
            text:
                "fspolicy: 1\nsemantics: linux\ntree:\n  /tmp: {type: dir, mode: \"1777\"}\nlinux: {protectedFifos: 2, protectedHardlinks: 0}  # host values\n"),
        Case(
            name: "a comment above a list item's first key, which fmt moves later",
            text:
                "fspolicy: 1\nexpect:\n  - zz-unknown: x\n    # why this one\n    op: delete\n    path: /a\n    result: deny\n    long: \"\(String(repeating: "x", count: 100))\"\n"
        ),
        Case(
            name: "plain scalars starting with : or ? in flow style",
            text: "fspolicy: 1\nexpect:\n  - {as: bob, op: read, path: /a, result: allow}\nx: [a]\ny:\n  - :/\n  - ?q\n  - a:?b\n"),
        Case(
            name: "null items in a list fmt writes in flow style (fuzzing: `[, \"b\"]` is not YAML)",
            text: "fspolicy: 1\nzzz:\n  k:\n    acl:\n      -  # an empty item\n      - \"b\"\nx: [~, a, null]\n"),
        Case(
            name: "quoted scalars over several lines, with lines that start with # and with '' (fuzzing: taken for comments, fmt not idempotent)",
            text:
                "fspolicy: 1\ndescription: 'first\n  # not a comment\n  it''s # still text'\nname: \"a\n  # not a comment either\n  b\"  # a real comment\nx: y  # another real one\n"
        ),
        Case(
            name: "a quote inside a plain scalar opens nothing (fuzzing: `path:\"/x` swallowed the next comment)",
            text:
                "fspolicy: 1\nexpect:\n  - {op: write, x: null, path:\"/app/config.yaml: null}\n# kept\nquiz{tar: ./image.tar.gz}\nz: 'q\n  # not a comment'\nw: {a: \"a\n  b\", v: \"c\n  # not a comment\"}  # after them\n"
        ),
        Case(name: "quotes and hashes in scalars", text: "fspolicy: 1\ndescription: \"it's a #tag\"  # real comment\nname: 'say \"hi\" # not a comment'\n")
    ]

    @Test("fmt puts the linux: section after securelevel, its keys in table order, and the policy loads the same")
    func linuxSection() throws {
        let text =
            "fspolicy: 1\nsemantics: linux\ntree:\n  /tmp: {type: dir, mode: \"1777\"}\nlinux: {protectedFifos: 2, protectedHardlinks: 0}\nsecurelevel: 0\n"
        guard case .success(let out) = Formatter.format(text, file: "t.yaml") else { Issue.record("fmt refused"); return }
        let lines = out.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex(of: "linux:"), "\(out)")
        #expect(lines.firstIndex(of: "securelevel: 0")! < at && at < lines.firstIndex(of: "tree:")!, "\(out)")
        #expect(Array(lines[(at + 1)...(at + 2)]) == ["  protectedHardlinks: 0", "  protectedFifos: 2"], "\(out)")
        let before = PolicyLoader.load(text: text, file: "a.yaml"), after = PolicyLoader.load(text: out, file: "b.yaml")
        #expect(before.world.linux == after.world.linux && after.world.linux == LinuxTunables(protectedHardlinks: 0, protectedFifos: 2))
    }

    @Test("fmt keeps the document", arguments: cases)
    func roundTrip(_ c: Case) throws {
        guard case .success(let out) = Formatter.format(c.text, file: "t.yaml") else {
            Issue.record("fmt refused \(c.name)")
            return
        }
        let before = try #require(Formatter.shape(c.text))
        let after = try #require(Formatter.shape(out), "the formatted text does not parse:\n\(out)")
        #expect(after == before, "formatted:\n\(out)")
        guard case .success(let again) = Formatter.format(out, file: "t.yaml") else { Issue.record("fmt refused its own output"); return }
        #expect(again == out, "fmt is not idempotent")
        #expect(!out.contains("\r"))
        // No character YAML rejects, and nothing unsafe, is written raw.
        #expect(!out.unicodeScalars.contains { Escaping.isUnsafe($0.value) && $0 != "\n" }, "\(out.debugDescription)")
        // Comments survive.
        for line in c.text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) where line.contains("# ") && !line.contains("not a comment") {
            let comment = line[line.range(of: "# ")!.lowerBound...]
            #expect(out.contains(comment), "comment `\(comment)` lost:\n\(out)")
        }
    }

    @Test("quotes the parser did not read as quotes open nothing; those it did hide the # inside them (fuzzing)")
    func quotesAsTheParserReadsThem() throws {
        // `a-"` is a plain scalar: its quote opens nothing, so ` #c` is inside "b #c" and no comment.
        let cases: [(String, String)] = [
            ("fspolicy: 1\nx: [a-\", \"b #c\"]\n", "fspolicy: 1\n\nx:\n  - a-\"\n  - \"b #c\"\n"),
            // A quote inside a plain key, then a real comment on the next line.
            ("fspolicy: 1\nk: {p:\"/x: 1}\n# real\nz: 2\n", "fspolicy: 1\n\nk:\n  p:\"/x: 1\n# real\nz: 2\n"),
            // A quoted scalar over two lines whose second line starts with #, then a comment after
            // it (a trailing comment of a later line than the entry's first goes above the entry).
            ("fspolicy: 1\nd: \"a\n  # b\"  # c\n", "fspolicy: 1\n# c\nd: \"a # b\"\n")
        ]
        for (input, expected) in cases {
            guard case .success(let out) = Formatter.format(input, file: "t.yaml") else { Issue.record("fmt refused \(input)"); continue }
            #expect(out == expected, "\(input.debugDescription) → \(out.debugDescription)")
        }
    }

    @Test func complexKeysAreRefused() {
        guard case .failure(let f) = Formatter.format("fspolicy: 1\n? [a, b]\n: x\n", file: "t.yaml") else { Issue.record("accepted"); return }
        #expect(f.diagnostics.first?.code == "fmt-complex-key")
    }

    @Test func formattedFileLoadsToTheSameDecisions() throws {
        // `"x\ny"` as a symlink target: a block would add a line break and change the target.
        let text = "fspolicy: 1\nsemantics: linux\ntree:\n  /: {type: dir, mode: \"0755\"}\n  /t: {type: symlink, target: \"x\\ny\"}\n"
        guard case .success(let out) = Formatter.format(text, file: "t.yaml") else { Issue.record("refused"); return }
        let a = PolicyLoader.load(text: text, file: "t.yaml"), b = PolicyLoader.load(text: out, file: "t.yaml")
        let ta = a.world.lookup("/t").flatMap { a.world.symlinkTargets[$0] }
        let tb = b.world.lookup("/t").flatMap { b.world.symlinkTargets[$0] }
        #expect(ta != nil && ta == tb, "\(String(describing: ta)) vs \(String(describing: tb))")
    }

    // Found by the fmt fuzz target's round-trip property on the repository's own files.
    @Test func documentsThatAreNotMappingsAreRefused() {
        // An XML property list is one long plain scalar to YAML: fmt wrote "\n" in its place.
        let plist = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict/>\n</plist>\n"
        for text in [plist, "- a\n- b\n", "just words\n"] {
            guard case .failure(let f) = Formatter.format(text, file: "x.yaml") else { Issue.record("fmt rewrote \(text)"); continue }
            #expect(f.diagnostics.first?.code == "fmt-not-a-mapping")
        }
    }

    @Test func duplicateKeysAreRefusedNotDropped() {
        // The parser sets a duplicated key's second entry aside so that validate goes on; fmt
        // used to write the file without it (mode 0600 silently gone, an invalid file made valid).
        let text = "fspolicy: 1\ntree:\n  /a: {mode: \"0640\"}\n  /b: {}\n  /a: {mode: \"0600\"}\n"
        guard case .failure(let f) = Formatter.format(text, file: "x.yaml") else { Issue.record("fmt dropped the duplicate"); return }
        #expect(f.diagnostics.contains { $0.code == "duplicate-key" && $0.location.line == 5 })
    }

    @Test func entriesWithoutAKeyAreRefused() {
        // Found by the fmt fuzz target: `&a: 1` in a flow mapping is an anchor on an empty key;
        // fmt wrote `{uid: 1, : 1}`, which YAML refuses.
        for text in ["fspolicy: 1\nusers:\n  carol: {uid: 503, &mask: 0o77}\n", "fspolicy: 1\nusers: {&a : 1}\n"] {
            guard case .failure(let f) = Formatter.format(text, file: "x.yaml") else { Issue.record("fmt rewrote \(text)"); continue }
            #expect(f.diagnostics.first?.code == "fmt-empty-key", "\(f.diagnostics)")
        }
    }

    @Test func commentsAfterAnEscapedLineBreakStayWhereTheyAre() {
        // Found by the fmt fuzz target: a one-line quoted scalar holding `\n` escapes was taken
        // to span one source line per break, so it swallowed the comments of the lines below
        // (they moved into the tree on the second run).
        let text = """
            fspolicy: 1
            tree:
              /a:
                owner: root
                mode: "0\\n\\n\\n\\n\\n\\n644"
            expect:
              # first
              - {as: root, op: read, path: /a, result: allow}
              # second
              - {as: root, op: write, path: /a, result: allow}

            """
        guard case .success(let once) = Formatter.format(text, file: "x.yaml") else { Issue.record("refused"); return }
        guard case .success(let twice) = Formatter.format(once, file: "x.yaml") else { Issue.record("refused"); return }
        #expect(once == twice)
        let lines = once.split(separator: "\n").map(String.init)
        let first = lines.firstIndex(of: "  # first"), second = lines.firstIndex(of: "  # second")
        #expect(
            first != nil && second != nil && lines[first! + 1].hasPrefix("  - {as: root, op: read") && lines[second! + 1].hasPrefix("  - {as: root, op: write"),
            "\(once)")
    }
}
