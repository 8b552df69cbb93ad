import FSPolicy
@testable import FSPolicyYAML
import Foundation
import Testing

/// The YAML reader (`FastYAML`), construct by construct: the nodes it makes (kind, line, column,
/// style, value) for each construct the format reads (docs/policy-format.md, "The YAML the
/// format reads"), and where and how it refuses the rest and hostile input.
@Suite("the YAML reader, construct by construct")
struct YAMLReaderTests {
    /// The document as lines, depth first: `L:C kind` and, for a scalar, its style and value.
    static func nodes(_ text: String) -> [String] {
        switch FastYAML.parse(text, file: "t.yaml") {
        case .failure(let r): return ["refused \(r.line):\(r.column) \(r.code): \(r.message)"]
        case .success(let d):
            var out: [String] = []
            func walk(_ n: YNode) {
                let at = "\(n.line):\(n.column)"
                if let s = n.scalar {
                    out.append("\(at) \(n.style.map { "\($0)" } ?? "?") \(s.debugDescription)")
                } else if let m = n.mapping {
                    out.append("\(at) map \(m.count)")
                    for (k, v) in m { walk(k); walk(v) }
                } else if let q = n.sequence {
                    out.append("\(at) list \(q.count)")
                    for it in q { walk(it) }
                }
            }
            walk(YNode(fast: d, d.root))
            return out
        }
    }

    static func refusal(_ text: String) -> FastYAML.Refusal? {
        if case .failure(let r) = FastYAML.parse(text, file: "t.yaml") { return r }
        return nil
    }

    @Test func commentsAndQuotingStyles() {
        let text = "# head\na: 1   # one\nb: \"x y\"\nc: 'it''s'\nd: \"t\\tab \\u00e9\"\ne: user:bob allow read\nf: a#b\n"
        #expect(
            Self.nodes(text) == [
                "2:1 map 6",
                "2:1 plain \"a\"", "2:4 plain \"1\"",
                "3:1 plain \"b\"", "3:4 doubleQuoted \"x y\"",
                "4:1 plain \"c\"", "4:4 singleQuoted \"it\\'s\"",
                "5:1 plain \"d\"", "5:4 doubleQuoted \"t\\tab é\"",
                "6:1 plain \"e\"", "6:4 plain \"user:bob allow read\"",
                "7:1 plain \"f\"", "7:4 plain \"a#b\""
            ])
    }

    @Test func blockAndFlowCollections() {
        let text = "a:\n  - x\n  - {k: v, l: [1, 2]}\nb:\n- y\nc: {}\nd: []\ne:\n"
        #expect(
            Self.nodes(text) == [
                "1:1 map 5",
                "1:1 plain \"a\"", "2:3 list 2", "2:5 plain \"x\"",
                "3:5 map 2", "3:6 plain \"k\"", "3:9 plain \"v\"", "3:12 plain \"l\"", "3:15 list 2", "3:16 plain \"1\"", "3:19 plain \"2\"",
                "4:1 plain \"b\"", "5:1 list 1", "5:3 plain \"y\"",
                "6:1 plain \"c\"", "6:4 map 0",
                "7:1 plain \"d\"", "7:4 list 0",
                "8:1 plain \"e\"", "8:3 plain \"\""
            ])
    }

    @Test func flowCollectionsOverSeveralLines() {
        let text = "a: {k: v,\n    l: [1,\n  2], # c\n  }\n"
        #expect(
            Self.nodes(text) == [
                "1:1 map 1", "1:1 plain \"a\"",
                "1:4 map 2", "1:5 plain \"k\"", "1:8 plain \"v\"", "2:5 plain \"l\"", "2:8 list 2", "2:9 plain \"1\"", "3:3 plain \"2\""
            ])
    }

    @Test func scalarsOverSeveralLines() {
        let text = "a: one\n  two\n\n  three\nb: \"x\n  y\"\nc: 'p\n\n  q'\n"
        #expect(
            Self.nodes(text) == [
                "1:1 map 3",
                "1:1 plain \"a\"", "1:4 plain \"one two\\nthree\"",
                "5:1 plain \"b\"", "5:4 doubleQuoted \"x y\"",
                "7:1 plain \"c\"", "7:4 singleQuoted \"p\\nq\""
            ])
    }

    @Test func blockScalars() {
        let text = "a: |\n  one\n   two\n\nb: >\n  x\n  y\n\n  z\nc: |-\n  s\nd: |+\n  k\n\ne: >2\n   i\n"
        #expect(
            Self.nodes(text) == [
                "1:1 map 5",
                "1:1 plain \"a\"", "1:4 literal \"one\\n two\\n\"",
                "5:1 plain \"b\"", "5:4 folded \"x y\\nz\\n\"",
                "10:1 plain \"c\"", "10:4 literal \"s\"",
                "12:1 plain \"d\"", "12:4 literal \"k\\n\\n\"",
                "15:1 plain \"e\"", "15:4 folded \" i\\n\""
            ])
    }

    @Test func anchorsAndAliases() {
        let text = "a: &x {k: v}\nb: *x\nc: &s word\nd: [*s, *x]\n"
        #expect(
            Self.nodes(text) == [
                "1:1 map 4",
                "1:1 plain \"a\"", "1:4 map 1", "1:8 plain \"k\"", "1:11 plain \"v\"",
                "2:1 plain \"b\"", "1:4 map 1", "1:8 plain \"k\"", "1:11 plain \"v\"",
                "3:1 plain \"c\"", "3:4 plain \"word\"",
                "4:1 plain \"d\"", "4:4 list 2", "3:4 plain \"word\"", "1:4 map 1", "1:8 plain \"k\"", "1:11 plain \"v\""
            ])
        #expect(FastYAML.read(text, file: "t.yaml")?.aliases == 3)
        #expect(Self.refusal("a: *nope\n")?.message == "YAML syntax error: the alias `*nope` names no anchor before it")
    }

    @Test func aliasBombsAreRefused() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for k in 1..<8 { text += "a\(k): &a\(k) [" + Array(repeating: "*a\(k - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let r = Self.refusal(text)
        #expect(r?.code == "alias-limit" && r?.line == 2 && r?.column == 10, "\(String(describing: r))")
        // A few aliases are fine.
        #expect(Self.refusal("a: &a [1, 2]\nb: [*a, *a]\n") == nil)
    }

    @Test func documentsMarkersBOMAndLineBreaks() {
        #expect(Self.nodes("---\na: 1\n...\n# end\n") == ["2:1 map 1", "2:1 plain \"a\"", "2:4 plain \"1\""])
        #expect(
            Self.nodes("\u{FEFF}a: 1\r\nb: 2\rc: 3\r\n") == [
                "1:1 map 3", "1:1 plain \"a\"", "1:4 plain \"1\"", "2:1 plain \"b\"", "2:4 plain \"2\"",
                "3:1 plain \"c\"", "3:4 plain \"3\""
            ])
        let second = Self.refusal("a: 1\n---\nb: 2\n")
        #expect(second?.line == 2 && second?.column == 1 && second?.message == "YAML syntax error: a second YAML document starts here (`---`)")
        #expect(Self.refusal("%YAML 1.2\n---\na: 1\n")?.message.contains("directives") == true)
        for empty in ["", "\n\n", "# only a comment\n", "---\n"] {
            #expect(Self.refusal(empty)?.code == "empty-file", "\(empty.debugDescription)")
        }
    }

    @Test func tagsAreRefusedWithAHint() {
        let r = Self.refusal("a: !!str 0755\n")
        #expect(r?.line == 1 && r?.column == 4 && r?.message == "tags are not part of the policy format; remove `!!str`")
        #expect(r?.help?.contains("quote") == true)
    }

    @Test func tabsAndControlCharacters() {
        let tab = Self.refusal("a:\n\tb: 1\n")
        #expect(tab?.code == "tab-indent" && tab?.line == 2 && tab?.column == 1)
        // A tab after the indentation or inside a value is text, and blank on a comment line.
        #expect(
            Self.nodes("a:\t1\n\t# c\nb: \"x\ty\"\n") == ["1:1 map 2", "1:1 plain \"a\"", "1:4 plain \"1\"", "3:1 plain \"b\"", "3:4 doubleQuoted \"x\\ty\""])
        let bell = Self.refusal("a: x\u{7}y\n")
        #expect(bell?.line == 1 && bell?.column == 5 && bell?.message == "cannot read the file: control characters are not allowed (U+0007)")
        for (c, code) in [("\u{85}", "U+0085"), ("\u{2028}", "U+2028"), ("\u{FEFF}", "U+FEFF"), ("\u{FFFE}", "U+FFFE")] {
            let r = Self.refusal("a: é\(c)\n")
            #expect(r?.line == 1 && r?.column == 5 && r?.message.contains(code) == true, "\(code): \(String(describing: r))")
        }
        // Written as escapes, they are text.
        #expect(FastYAML.read("a: \"\\x85\\u2028\"\n", file: "t.yaml")?.scalar(2) == "\u{85}\u{2028}")
        #expect(FastYAML.read("a: \"x\\0y\\x00\"\n", file: "t.yaml")?.scalar(2) == "x\u{0}y\u{0}")
    }

    @Test func deepNestingIsRefusedNotACrash() {
        for (open, column) in [("[", 5), ("{a: ", 8)] {
            let r = Self.refusal("a: " + String(repeating: open, count: 100_000) + "\n")
            #expect(r?.line == 1 && r?.column == column && r?.message.contains("nest too deeply") == true, "\(open): \(String(describing: r))")
        }
        var block = "a:\n"
        for k in 0..<1_100 { block += String(repeating: " ", count: 2 * k + 2) + "-\n" }
        #expect(Self.refusal(block)?.message.contains("nest too deeply") == true)
        // 900 levels are read.
        #expect(Self.refusal("a: " + String(repeating: "[", count: 900) + String(repeating: "]", count: 900) + "\n") == nil)
    }

    @Test func hugeScalarsAndLongKeys() {
        let long = String(repeating: "x", count: 2_000_000)
        #expect(FastYAML.read("a: \(long)\nb: \"\(long)\"\n", file: "t.yaml")?.scalar(2).utf8.count == 2_000_000)
        let key = String(repeating: "k", count: 1_100)
        let r = Self.refusal("\(key): 1\n")
        #expect(r?.line == 1 && r?.column == 1_101 && r?.help?.contains("explicit") == true)
        // Written explicitly, it is read.
        #expect(Self.nodes("? \(key)\n: 1\n").count == 3)
    }

    @Test func syntaxErrorsAtTheirPlace() {
        let cases: [(String, Int, Int, String)] = [
            ("a: {b: c\n", 1, 9, "YAML syntax error: did not find expected ',' or '}'"),
            ("a: [b, c\nd: e\n", 2, 2, "YAML syntax error: a `key: value` pair inside `[…]` is not part of the policy format"),
            ("a: [b, c\n", 1, 9, "YAML syntax error: did not find expected ',' or ']'"),
            ("a:\n  b: 1\n c: 2\n", 3, 2, "YAML syntax error: did not find expected key"),
            ("a: b: c\n", 1, 5, "YAML syntax error: mapping values are not allowed in this context"),
            ("a: \"open\n", 1, 9, "YAML syntax error: found unexpected end of stream while scanning a quoted scalar"),
            ("a: @x\n", 1, 4, "YAML syntax error: `@` cannot start a plain value"),
            ("a: \"\\q\"\n", 1, 5, "YAML syntax error: found unknown escape character while parsing a quoted scalar"),
            ("a: [1,,2]\n", 1, 7, "YAML syntax error: an item is missing before this `,`"),
            ("- a\nb: c\n", 2, 1, "YAML syntax error: did not find expected '-' indicator")
        ]
        for (text, line, column, message) in cases {
            let r = Self.refusal(text)
            #expect(r?.line == line && r?.column == column && r?.message == message, "\(text.debugDescription): \(String(describing: r))")
            #expect(r?.help != nil)
        }
    }
}
