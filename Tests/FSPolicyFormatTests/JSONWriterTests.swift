import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// Issue 20: JSON (and the XML of JUnit reports) is written into one byte buffer, runs of text
/// that need no escape copied at once. These tests pin the bytes: exact expected text for deep
/// nesting, empty containers and every kind of unsafe code point, and random values rendered by
/// the buffer writer and by the plain recursive renderer it replaced (kept here as the reference).
/// A small seeded generator (same seed, same run).
struct WriterRng {
    var s: UInt64
    mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s >> 33 }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ k: Int) -> Bool { below(k) == 0 }
}

/// The same bytes (`==` on strings compares canonical equivalence, not bytes).
func sameBytes(_ a: String, _ b: String) -> Bool { Array(a.utf8) == Array(b.utf8) }

@Suite("JSON and XML writers")
struct JSONWriterTests {
    /// Every kind of code point the writers escape, and some they do not (noncharacters made from
    /// their numbers: Swift does not take some of them in a literal).
    static let tricky =
        "q\"b\\n\n\r\t\u{0}\u{1F}\u{7F}\u{80}\u{85}\u{9F}\u{61C}\u{200E}\u{202E}\u{2066}\u{2028}\u{FEFF}"
        + String(String.UnicodeScalarView([0xFDD0, 0xFFFE, 0x1FFFF, 0x10FFFF].map { Unicode.Scalar($0)! })) + "é😀a\u{301}<>&/"

    @Test func deepNestingEmptiesAndUnsafeCodePoints() {
        let v: JSON = .object([
            ("a", .array([])),
            ("b", .object([])),
            ("deep", .array([.array([.object([("x", .array([.int(-12), .null, .bool(true), .bool(false), .array([]), .object([])]))])])])),
            ("s", .string(Self.tricky)),
            ("k\u{1}\u{202E}ey", .int(Int.min)),
            ("", .string(""))
        ])
        let expected = #"""
            {
              "a": [],
              "b": {},
              "deep": [
                [
                  {
                    "x": [
                      -12,
                      null,
                      true,
                      false,
                      [],
                      {}
                    ]
                  }
                ]
              ],
              "s": "q\"b\\n\n\r\t\u0000\u001f\u007f\u0080\u0085\u009f\u061c\u200e\u202e\u2066\u2028\ufeff\ufdd0\ufffe\ud83f\udfff\udbff\udfffé😀a\#u{301}<>&/",
              "k\u0001\u202eey": -9223372036854775808,
              "": ""
            }
            """#
        #expect(sameBytes(v.render(), expected))
        var bytes = ByteBuffer(capacity: 0)
        bytes.append("x: ")
        v.write(into: &bytes)
        #expect(bytes.bytes == Array(("x: " + expected).utf8))
    }

    @Test func indentAndStep() {
        let v: JSON = .array([.object([("k", .array([.int(7)]))]), .string("z")])
        #expect(v.render(indent: 3, step: 4) == "[\n       {\n           \"k\": [\n               7\n           ]\n       },\n       \"z\"\n   ]")
        #expect(JSON.int(0).render() == "0")
        #expect(JSON.int(Int.max).render() == "9223372036854775807")
    }

    @Test func htmlSafeQuote() {
        var s = "<"
        JSON.quote("</script><!--&\u{2028}é", htmlSafe: true, into: &s)
        #expect(sameBytes(s, #"<"\u003c/script\u003e\u003c!--\u0026\u2028é""#))
        #expect(JSON.quote("<&>") == #""<&>""#)
    }

    @Test func xmlEscapes() {
        #expect(
            sameBytes(
                Reports.xml(Self.tricky),
                #"q&quot;b\n\#n\015\#t\000\037\177\302\200\302\205\302\237\330\234\342\200\216\342\200\256\342\201\246\342\200\250\357\273\277\357\267\220\357\277\276\360\237\277\277\364\217\277\277é😀a\#u{301}&lt;&gt;&amp;/"#
            ))
        #expect(Reports.xml("it's") == "it&apos;s")
        #expect(Reports.xml("") == "")
    }

    /// The escaping reads eight bytes at a time and goes straight to the first that needs a
    /// look: each such byte, alone or two of them, at every place of a 24-byte text, escapes as
    /// the reference does (a byte before a non-ASCII one in the same eight, a flag that only
    /// looks, like `#` or `=`, then one that needs an entity).
    @Test func xmlEscapesAtEveryPlace() {
        let odd: [String] = ["&", "<", ">", "\"", "'", "#", "$", "%", "=", "\n", "\t", "\u{7F}", "\u{1}", "é", "\u{2028}", "😀"]
        var checked = 0
        for a in odd {
            for at in 0..<24 {
                for b in ["", "&", "é", "<"] {
                    for gap in [1, 3, 8] {
                        var chars = Array(repeating: "a", count: 24)
                        chars[at] = a
                        if !b.isEmpty && at + gap < 24 { chars[at + gap] = b }
                        let s = chars.joined()
                        #expect(sameBytes(Reports.xml(s), Self.referenceXML(s)), "\(s.debugDescription)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 16 * 24 * 4 * 3)
    }

    // MARK: the renderers the writers replaced, as the reference

    static func referenceRender(_ j: JSON, indent: Int = 0, step: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        let inner = String(repeating: " ", count: indent + step)
        switch j {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .string(let s): return referenceQuote(s)
        case .array(let a):
            if a.isEmpty { return "[]" }
            return "[\n" + a.map { inner + referenceRender($0, indent: indent + step, step: step) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let o):
            if o.isEmpty { return "{}" }
            return "{\n" + o.map { inner + referenceQuote($0.0) + ": " + referenceRender($0.1, indent: indent + step, step: step) }.joined(separator: ",\n")
                + "\n" + pad + "}"
        }
    }

    static func referenceQuote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if Escaping.isUnsafe(u.value) {
                    for unit in String(u).utf16 {
                        let hex = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    static func referenceXML(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if Escaping.isUnsafe(u.value) && u != "\n" && u != "\t" { out += Escaping.line(String(u)) } else { out.unicodeScalars.append(u) }
            }
        }
        return out
    }

    /// Code points around every boundary the writers look at (0x21–0x28 and 0x3B–0x3F: the
    /// ranges the XML writer's eight-byte test takes in, with the bytes just outside them).
    static let pool: [UInt32] = [
        0x0, 0x8, 0x9, 0xA, 0xD, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x28, 0x2F, 0x3B, 0x3C, 0x3D, 0x3E,
        0x3F, 0x41, 0x5C, 0x7E, 0x7F,
        0x80, 0x85, 0x9F, 0xA0, 0xE9, 0x301, 0x5FF, 0x61B, 0x61C, 0x61D, 0x7FF, 0x800, 0x200D, 0x200E, 0x200F,
        0x2029, 0x202A, 0x202E, 0x202F, 0x2066, 0x2069, 0x206A, 0xD7FF, 0xE000, 0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0,
        0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1F600, 0x1FFFE, 0x1FFFF, 0x20000, 0x10FFFD, 0x10FFFE, 0x10FFFF
    ]

    static func randomString(_ rng: inout WriterRng) -> String {
        var s = String.UnicodeScalarView()
        for _ in 0..<rng.below(40) {
            // Mostly plain letters, so runs of text that need no escape are long enough to matter.
            let v = rng.chance(2) ? UInt32(0x61 + rng.below(26)) : pool[rng.below(pool.count)]
            s.append(Unicode.Scalar(v)!)
        }
        return String(s)
    }

    static func randomValue(_ rng: inout WriterRng, depth: Int) -> JSON {
        switch depth > 6 ? rng.below(4) : rng.below(6) {
        case 0: return .null
        case 1: return .bool(rng.chance(2))
        case 2: return .int(Int(truncatingIfNeeded: rng.next() << 31 ^ rng.next()) * (rng.chance(2) ? 1 : -1))
        case 3: return .string(randomString(&rng))
        case 4: return .array((0..<rng.below(4)).map { _ in randomValue(&rng, depth: depth + 1) })
        default: return .object((0..<rng.below(4)).map { _ in (randomString(&rng), randomValue(&rng, depth: depth + 1)) })
        }
    }

    @Test func randomValuesMatchTheReference() {
        var rng = WriterRng(s: 20)
        for _ in 0..<2000 {
            let v = Self.randomValue(&rng, depth: 0)
            let indent = rng.below(5), step = rng.below(4)
            #expect(sameBytes(v.render(indent: indent, step: step), Self.referenceRender(v, indent: indent, step: step)))
            let s = Self.randomString(&rng)
            #expect(sameBytes(JSON.quote(s), Self.referenceQuote(s)))
            // Written in place, then escaped when it must be.
            var w = JSONWriter(bytes: ByteBuffer(capacity: 1))
            w.string { $0.append(string: s) }
            #expect(sameBytes(w.bytes.string, Self.referenceQuote(s)))
            // HTML-safe: the same, `<`, `>` and `&` (which no escape contains) as `\u` escapes.
            var html = ""
            JSON.quote(s, htmlSafe: true, into: &html)
            // (Byte by byte: a combining mark after `<` makes one Character of the two.)
            var expectedBytes: [UInt8] = []
            for b in Self.referenceQuote(s).utf8 {
                switch b {
                case 0x3C: expectedBytes += Array("\\u003c".utf8)
                case 0x3E: expectedBytes += Array("\\u003e".utf8)
                case 0x26: expectedBytes += Array("\\u0026".utf8)
                default: expectedBytes.append(b)
                }
            }
            let expected = String(decoding: expectedBytes, as: UTF8.self)
            #expect(sameBytes(html, expected))
            #expect(sameBytes(Reports.xml(s), Self.referenceXML(s)))
        }
    }
}

/// The JSON of each result of a report, emitted once into a `JSON` tree (what `can --format
/// json` renders) and once straight into bytes (what `check --format json` writes): the same
/// text, for every expectation of every fixture policy (every kind of evidence they have).
@Suite("JSON of results: tree and writer agree")
struct JSONTreeWriterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyFixtureResult() throws {
        let fm = FileManager.default
        let fixtures = Self.root.appendingPathComponent("fixtures")
        let e = try #require(fm.enumerator(atPath: fixtures.path))
        var results = 0, decisions = 0
        while let rel = e.nextObject() as? String {
            guard rel.hasSuffix(".yaml"), !rel.hasPrefix("invalid/") else { continue }
            let p = PolicyLoader.load(path: fixtures.appendingPathComponent(rel).path)
            guard !p.diagnostics.items.contains(where: { $0.severity == .error }), !p.expectations.isEmpty else { continue }
            let report = Evaluator(policy: p).checkAll()
            let renderers = RendererCache(report)
            report.forEachOutcome { o in
                for passTraces in [false, true] {
                    var tree = JSONTree()
                    Reports.emit(o, renderers.renderer(for: o), semantics: p.semantics, passTraces: passTraces, to: &tree)
                    var w = JSONWriter(indent: 8)
                    Reports.emit(o, renderers.renderer(for: o), semantics: p.semantics, passTraces: passTraces, to: &w)
                    #expect(sameBytes(w.bytes.string, tree.result.render(indent: 8)), "\(rel): \(o.expectation.label)")
                }
                if let d = o.decision {
                    let t = report.renderer(for: o)
                    var dw = JSONWriter(indent: 3, step: 3)
                    t.emit(d, spec: o.expectation.request, who: o.expectation.asText ?? "", semantics: p.semantics, to: &dw)
                    #expect(
                        sameBytes(
                            dw.bytes.string,
                            t.json(d, spec: o.expectation.request, who: o.expectation.asText ?? "", semantics: p.semantics).render(indent: 3, step: 3)))
                    decisions += 1
                }
                results += 1
            }
        }
        // The fixtures do have results with decisions (this test compared something).
        #expect(results > 50 && decisions > 50, "\(results) results, \(decisions) decisions")
    }

    /// The renderers of a `RendererCache` keep the JSON of the search steps they write and copy
    /// it for the same step again (`StepJSONCache`): on a generated file where thousands of
    /// failures share their directories, every result written that way is the tree's text.
    @Test func cachedStepsAreTheSameText() throws {
        let p = ParallelCheckTests.policy()
        let report = Evaluator(policy: p).checkAll()
        let renderers = RendererCache(report)
        var results = 0, steps = 0
        report.forEachOutcome { o in
            guard results < 1500 else { return }
            var tree = JSONTree()
            Reports.emit(o, report.renderer(for: o), semantics: p.semantics, passTraces: true, to: &tree)
            var w = JSONWriter(indent: 8)
            Reports.emit(o, renderers.renderer(for: o), semantics: p.semantics, passTraces: true, to: &w)
            #expect(sameBytes(w.bytes.string, tree.result.render(indent: 8)), "\(o.expectation.label)")
            results += 1
            steps += o.decision?.trace.filter { StepJSONCache.keys($0, in: report.world(for: o)) != nil }.count ?? 0
        }
        // Thousands of steps went through the cache, most of them copies of ones written before.
        // (The file's expectations go back and forth between two worlds: each keeps its own.)
        let kept = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.keys.count ?? 0) }
        #expect(renderers.made.count == 2)
        #expect(results == 1500 && steps > 10 * kept && kept > 20, "\(results) results, \(steps) steps, \(kept) kept")
        // And most traces were written whole, from the text of an earlier trace of their shape.
        let traces = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.traceUses ?? 0) }
        let shapes = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.traces.count ?? 0) }
        #expect(traces > 500 && shapes > 2 && traces > 5 * shapes, "\(traces) traces written whole, \(shapes) shapes kept")
    }

    /// The text reports keep a trace line's text after its path column for steps of one
    /// template (`TextRenderer.textTailKey`): every failure's trace and JUnit case, written by a
    /// renderer that keeps them, is the text a plain renderer writes; with colours nothing is kept.
    @Test func keptTraceLinesAreTheSameText() throws {
        let p = ParallelCheckTests.policy()
        let report = Evaluator(policy: p).checkAll()
        let renderers = RendererCache(report)
        let coloured = RendererCache(report, style: Style(enabled: true))
        var failures = 0
        report.forEachOutcome { o in
            guard failures < 1500, !o.passed, let d = o.decision else { return }
            failures += 1
            let plain = report.renderer(for: o), kept = renderers.renderer(for: o)
            var a = ByteBuffer(), b = ByteBuffer()
            plain.appendTrace(d, indent: "  ", to: &a)
            kept.appendTrace(d, indent: "  ", to: &b)
            #expect(sameBytes(a.string, b.string), "\(o.expectation.label)")
            var ja = ByteBuffer(), jb = ByteBuffer()
            Reports.junitCase(o, plain, fileAttribute: Array("f".utf8), into: &ja)
            Reports.junitCase(o, kept, fileAttribute: Array("f".utf8), into: &jb)
            #expect(sameBytes(ja.string, jb.string), "\(o.expectation.label)")
            var ca = ByteBuffer(), cb = ByteBuffer()
            report.renderer(for: o, style: Style(enabled: true)).appendTrace(d, indent: "  ", to: &ca)
            coloured.renderer(for: o).appendTrace(d, indent: "  ", to: &cb)
            #expect(sameBytes(ca.string, cb.string), "\(o.expectation.label) in colour")
        }
        let uses = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.textTailUses ?? 0) }
        let colouredUses = coloured.made.reduce(0) { $0 + ($1.renderer.stepCache?.textTailUses ?? 0) }
        #expect(failures == 1500 && uses > 5 * failures, "\(failures) failures, \(uses) lines ended with kept text")
        #expect(colouredUses == 0)
    }

    /// A step met for the first time is written from the template of an earlier one of the
    /// same shape (its text less its two paths), the paths written in: with directory names
    /// that need escaping (quotes, backslashes, line feeds, control bytes, non-ASCII), every
    /// result written that way is the tree's text.
    @Test func templatedStepsAreTheSameText() throws {
        let names = ["plain", "q\\\"uote", "back\\\\slash", "line\\nfeed", "ctl\\u0001x", "caf\u{E9}", "tab\\tx", "sp ace"]
        var t = "fspolicy: 1\nsemantics: linux\ngroups:\n  g0: {gid: 3000}\n  g1: {gid: 3001}\nusers:\n"
        for u in 0..<6 { t += "  u\(u): {uid: \(5000 + u), group: g\(u % 2)}\n" }
        t += "tree:\n"
        var files: [String] = []
        for (i, a) in names.enumerated() {
            t += "  \"/srv/\(a)\(i)\": {type: dir, owner: u\(i % 6), group: g\(i % 2), mode: \"0755\"}\n"
            for (j, b) in names.enumerated() {
                let dir = "/srv/\(a)\(i)/\(b)\(j)"
                t += "  \"\(dir)\": {type: dir, owner: u\(j % 6), group: g\(j % 2), mode: \"\(["0755", "0711", "0751"][j % 3])\"}\n"
                t += "  \"\(dir)/f\": {owner: u\((i + j) % 6), group: g0, mode: \"0600\"}\n"
                files.append(dir + "/f")
            }
        }
        t += "expect:\n"
        for k in 0..<600 {
            t += "  - {as: u\(k % 6), op: read, path: \"\(files[(k * 7) % files.count])\", result: allow}\n"
        }
        let p = PolicyLoader.load(text: t, file: "names.yaml")
        #expect(!p.diagnostics.items.contains { $0.severity == .error }, "\(p.diagnostics.items.map(\.rendered))")
        var results = 0, escaped = 0
        let renderers = Self.writtenAsTree(p) { o, text in
            if text.contains("\\u0001") || text.contains("\\\"") || text.contains("\\n") || text.contains("\\\\") { escaped += 1 }
            results += 1
        }
        let uses = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.templateUses ?? 0) }
        #expect(results == 600 && uses > 100 && escaped > 100, "\(results) results, \(uses) steps from templates, \(escaped) with escapes")
        // Traces whose paths need no escape were written whole (the others step by step).
        let traces = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.traceUses ?? 0) }
        #expect(traces > 20, "\(traces) traces written whole")
    }
}

extension JSONTreeWriterTests {
    /// Every result of `p`, with its trace, written by renderers with their caches and built as
    /// a tree by a renderer without: the same text, each (`each` is given the outcome and the
    /// text). Returns the caching renderers, for their counts.
    static func writtenAsTree(_ p: Policy, _ each: (ExpectationOutcome, String) -> Void) -> RendererCache {
        let report = Evaluator(policy: p).checkAll()
        let renderers = RendererCache(report)
        report.forEachOutcome { o in
            var tree = JSONTree()
            Reports.emit(o, report.renderer(for: o), semantics: p.semantics, passTraces: true, to: &tree)
            var w = JSONWriter(indent: 8)
            Reports.emit(o, renderers.renderer(for: o), semantics: p.semantics, passTraces: true, to: &w)
            let text = tree.result.render(indent: 8)
            #expect(sameBytes(w.bytes.string, text), "\(o.expectation.label)")
            each(o, text)
        }
        return renderers
    }

    /// A trace is written whole only when every path in it is the deepest step's or one of its
    /// ancestors' (`JSONWriter.traceSteps`); through a symbolic link to a directory elsewhere,
    /// its steps leave that line, and it is written step by step: the same text either way.
    @Test func tracesThroughLinksAreTheSameText() throws {
        var t = "fspolicy: 1\nsemantics: linux\ngroups:\n  g0: {gid: 3000}\nusers:\n"
        for u in 0..<4 { t += "  u\(u): {uid: \(5000 + u), group: g0}\n" }
        t += "tree:\n  /srv: {type: dir, owner: u0, group: g0, mode: \"0755\"}\n"
        t += "  /data: {type: dir, owner: u1, group: g0, mode: \"0711\"}\n"
        var paths: [String] = []
        for d in 0..<6 {
            t += "  /data/d\(d): {type: dir, owner: u\(d % 4), group: g0, mode: \"\(["0755", "0750", "0700"][d % 3])\"}\n"
            t += "  /srv/l\(d): {type: symlink, owner: u0, group: g0, target: /data/d\(d)}\n"
            for f in 0..<5 {
                t += "  /data/d\(d)/f\(f): {owner: u\(f % 4), group: g0, mode: \"0640\"}\n"
                paths += ["/data/d\(d)/f\(f)", "/srv/l\(d)/f\(f)"]
            }
        }
        t += "expect:\n"
        for k in 0..<400 {
            t += "  - {as: u\(k % 4), op: \(["read", "write"][k % 2]), path: \"\(paths[(k * 7) % paths.count])\", result: allow}\n"
        }
        let p = PolicyLoader.load(text: t, file: "links.yaml")
        #expect(!p.diagnostics.items.contains { $0.severity == .error }, "\(p.diagnostics.items.map(\.rendered))")
        var results = 0, throughLinks = 0
        let renderers = Self.writtenAsTree(p) { o, text in
            if o.expectation.request.path.hasPrefix("/srv/l") && text.contains("\"path\": \"/data/d") { throughLinks += 1 }
            results += 1
        }
        let traces = renderers.made.reduce(0) { $0 + ($1.renderer.stepCache?.traceUses ?? 0) }
        // Both kinds came up: traces written whole (the direct paths) and traces through a link.
        #expect(results == 400 && traces > 50 && throughLinks > 50, "\(results) results, \(traces) whole, \(throughLinks) through links")
        #expect(traces < results, "traces through links must be written step by step")
    }
}

/// `check --format json` decides a passed expectation again without its trace (unless
/// `--all-traces`): apart from the `trace` key, its decision must be the traced one, for every
/// result of every fixture policy, and a failure's is the same either way.
@Suite("JSON report: passes without their trace")
struct JSONPassTraceTests {
    /// Every fixture policy with expectations, and the generated one of ParallelCheckTests
    /// (big enough to be rendered on several threads, about half of it failing).
    static func policies() throws -> [(String, Policy)] {
        let fm = FileManager.default
        let fixtures = JSONTreeWriterTests.root.appendingPathComponent("fixtures")
        let e = try #require(fm.enumerator(atPath: fixtures.path))
        var out: [(String, Policy)] = [("generated", ParallelCheckTests.policy())]
        while let rel = e.nextObject() as? String {
            guard rel.hasSuffix(".yaml"), !rel.hasPrefix("invalid/") else { continue }
            let p = PolicyLoader.load(path: fixtures.appendingPathComponent(rel).path)
            guard !p.diagnostics.items.contains(where: { $0.severity == .error }), !p.expectations.isEmpty else { continue }
            out.append((rel, p))
        }
        return out
    }

    @Test func untracedPassesAreTheTracedOnesWithoutTrace() throws {
        var passes = 0, failures = 0
        for (rel, p) in try Self.policies() {
            let streamed = StreamedFileReport(evaluator: Evaluator(policy: p), threads: 2)
            func results(_ passTraces: Bool) throws -> [[String: Any]] {
                let text = Reports.json([streamed], diagnostics: [], passTraces: passTraces)
                let doc = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                let files = try #require(doc["files"] as? [[String: Any]])
                return try #require(files.first?["results"] as? [[String: Any]])
            }
            let lean = try results(false), full = try results(true)
            #expect(lean.count == full.count && lean.count == streamed.count, "\(rel)")
            for (l, f) in zip(lean, full) {
                let passed = try #require(l["passed"] as? Bool)
                guard let fd = f["decision"] as? [String: Any] else { #expect(l["decision"] == nil); continue }
                let ld = try #require(l["decision"] as? [String: Any], "\(rel): \(l["name"] ?? "")")
                #expect(fd["trace"] != nil)
                #expect((ld["trace"] == nil) == passed, "\(rel): \(l["name"] ?? ""): a pass has no trace, a failure has one")
                var stripped = fd
                if passed { stripped["trace"] = nil; passes += 1 } else { failures += 1 }
                #expect(NSDictionary(dictionary: ld).isEqual(to: stripped), "\(rel): \(l["name"] ?? "")")
            }
        }
        #expect(passes > 500 && failures > 500, "\(passes) passes, \(failures) failures compared")
    }

    /// `check --format json` counts while it writes (`StreamedFileReport.uncounted`): one
    /// decision an expectation, with the trace first or after, as the thread's failures so far
    /// suggest. Its report must be the counted report's, byte for byte, on one thread and on
    /// several, with and without the passes' traces; and so must its counts.
    @Test func reportCountedWhileWrittenIsTheCountedOne() throws {
        var compared = 0
        for (rel, p) in try Self.policies() {
            for threads in [1, 2] {
                let counted = StreamedFileReport(evaluator: Evaluator(policy: p), threads: threads)
                for passTraces in [false, true] {
                    let uncounted = StreamedFileReport.uncounted(evaluator: Evaluator(policy: p), threads: threads)
                    let a = Reports.json([counted], diagnostics: [], passTraces: passTraces)
                    let b = Reports.json([uncounted], diagnostics: [], passTraces: passTraces)
                    #expect(sameBytes(b, a), "\(rel), \(threads) thread(s), pass traces \(passTraces)")
                    #expect(uncounted.passed == counted.passed && uncounted.failed == counted.failed, "\(rel)")
                    compared += 1
                }
                // The other renderings count too: every outcome, one after the other.
                let other = StreamedFileReport.uncounted(evaluator: Evaluator(policy: p), threads: threads)
                var n = 0
                other.forEachOutcome(decidingPassed: false) { _ in n += 1 }
                #expect(n == counted.count && other.passed == counted.passed, "\(rel)")
            }
        }
        #expect(compared > 20, "\(compared) reports compared")
        // The generated file: thousands of results on two threads, about half failing (both
        // orders of decision are taken), counted right.
        let big = try #require(try Self.policies().first { $0.0 == "generated" }).1
        let r = StreamedFileReport.uncounted(evaluator: Evaluator(policy: big), threads: 2)
        _ = Reports.json([r], diagnostics: [])
        #expect(r.count > 4096 && r.passed > 1000 && r.failed > 1000, "\(r.passed) passed, \(r.failed) failed")
    }

    /// A decision that rests on an assumed folder says so in its notes, which come from its
    /// trace: a pass written without its trace keeps the note.
    @Test func assumedFolderNoteStaysOnAPass() throws {
        let p = PolicyLoader.load(
            text: """
                fspolicy: 1
                semantics: linux
                users:
                  bob: {uid: 1000}
                tree:
                  "/": {type: dir, owner: root, group: root, mode: "0755", assumed: true}
                  /srv: {type: dir, owner: root, group: root, mode: "0755"}
                  /srv/a.txt: {type: file, owner: root, group: root, mode: "0644"}
                expect:
                  - {as: bob, op: read, path: /srv/a.txt, result: allow}
                """, file: "assumed.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        let text = Reports.json([StreamedFileReport(evaluator: Evaluator(policy: p))], diagnostics: [])
        #expect(text.contains("is assumed, not read from the host"), "\(text)")
        #expect(!text.contains("\"trace\""))
    }
}
