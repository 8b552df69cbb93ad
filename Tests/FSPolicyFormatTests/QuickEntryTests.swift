import Testing
@testable import FSPolicyFormat
@testable import FSPolicyYAML
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport

/// `FastYAMLParser.quickEntry` reads an `expect:` entry of the common shape without the general
/// steps of `flowMapping`: it must make the same nodes for what it reads, and leave everything
/// else to `flowMapping` (which then reads, or gives up on, exactly what it did before).
@Suite("the quick reading of one entry")
struct QuickEntryTests {
    /// A document around one list item.
    static func document(_ item: String) -> String {
        "fspolicy: 1\nsemantics: linux\nusers:\n  bob: {uid: 1000}\nexpect:\n  - \(item)\n  - {as: bob, op: read, path: /srv, result: allow}\n"
    }

    /// Reads `text` with and without the shortcut: nil when either reading gave up (then both
    /// must have), else how many entries the shortcut read.
    static func compare(_ text: String, _ label: String) -> Int? {
        let with = FastYAML.read(text, file: "e.yaml")
        let without = FastYAML.read(text, file: "e.yaml", entryShortcut: false)
        #expect((with == nil) == (without == nil), "\(label): one reading gave up, the other did not")
        guard let with, let without else { return nil }
        #expect(FastYAMLSplitTests.same(with, without), "\(label): the nodes differ")
        #expect(without.quickEntries == 0)
        return with.quickEntries
    }

    @Test("every file, and generated entries of every form, read the same with the shortcut as without")
    func everyFile() {
        var files = FastYAMLTests.repositoryFiles()
        for (h, header) in [QuickExpectTests.linuxHeader, QuickExpectTests.macHeader].enumerated() {
            for seed in 0..<6 {
                files.append(("generated \(h) \(seed)", QuickExpectTests.file(header: header, entries: 300, seed: UInt64(100 * h + seed))))
            }
        }
        files.append(("generated with duplicates", FastYAMLSplitTests.generated(entries: 3000, duplicates: true)))
        var read = 0, compared = 0
        for (path, text) in files {
            guard let n = Self.compare(text, path) else { continue }
            read += n
            compared += 1
            // Two halves read their entries the same way.
            if let halves = FastYAML.read(text, file: "e.yaml", splitBytes: 1), let whole = FastYAML.read(text, file: "e.yaml") {
                #expect(halves.quickEntries == whole.quickEntries, "\(path)")
            }
        }
        #expect(compared > 100 && read > 1000, "\(compared) files compared, \(read) entries read by the shortcut")
    }

    @Test(
        "entries of the common shape are read by the shortcut",
        arguments: [
            "{as: bob, op: read, path: /srv/a, result: allow}",
            "{as: bob, op: read, path: \"/srv/a b\", result: deny, errno: EACCES, layer: mode}",
            "{ as: bob ,op: read,  path: /srv/a , result: allow }",
            "{as: \"\", op: read, path: \"\", result: allow}",
            "{result: allow, path: /srv/a, op: write, as: 1000}",
            "{as: bob, op: read, path: /srv/a, result: allow, name: n_1, after: 2, hint: x.y~z}",
            "{as: bob, op: read, path: /srv/a, result: allow}  # a comment",
            "{as: null, op: ~, path: .., result: allow}"
        ])
    func taken(_ item: String) {
        #expect(Self.compare(Self.document(item), item) == 2, "\(item)")
    }

    @Test(
        "entries of any other shape are left to the general reading",
        arguments: [
            "{}", "{ }", "{as: bob}x", "{as: bob, }", "{as: bob,, op: read}", "{as: bob, as: alice}",
            "{\"as\": bob}", "{'as': bob}", "{As: bob}", "{user: bob}", "{ass: bob}", "{a: bob}",
            "{as : bob}", "{as:bob}", "{as: bob op: read}", "{as: bob, op: [read]}", "{as: {x: y}}",
            "{as: 'bob'}", "{as: \"b\\\\ob\"}", "{as: \"b\\\"ob\"}", "{as: -bob}", "{as: b:ob}", "{as: b#ob}",
            "{as: bob #x}", "{as: b ob}", "{as: b,ob}", "{as: ?bob}", "{as: *bob}", "{as: &bob}", "{as: !bob}",
            "{as: \"bob}", "{as: bob", "{as: bob, op: read, path: /a, result: allow, errno: E, layer: l, name: n, after: 1, hint: h, x: y}"
        ])
    func leftAlone(_ item: String) {
        let n = Self.compare(Self.document(item), item)
        #expect(n == nil || n == 1, "\(item): read by the shortcut")
    }

    @Test("a value of every printable ASCII byte reads the same either way")
    func everyByte() {
        var taken = 0
        for b in UInt8(0x20)..<0x7F {
            let c = String(UnicodeScalar(b))
            for value in ["x\(c)y", "\(c)y", "x\(c)", "\"x\(c)y\""] {
                let item = "{as: \(value), op: read}"
                if Self.compare(Self.document(item), item) == 2 { taken += 1 }
            }
        }
        // Letters, digits and `_./~-` in the middle of a plain value, among others.
        #expect(taken > 150, "\(taken)")
    }

    @Test("the keys the shortcut takes are the quick reading's, each its own bit")
    func keys() {
        func word(_ k: String) -> UInt64 {
            k.utf8.enumerated().reduce(UInt64(k.utf8.count) << 56) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
        }
        let bits = Compiler.quickExpectKeys.map { FastYAMLParser.entryKeyBit(word(String(decoding: $0, as: UTF8.self))) }
        #expect(bits.allSatisfy { $0 != 0 } && Set(bits).count == bits.count, "\(bits)")
        for other in ["a", "ass", "paths", "resul", "Path", "op ", "name\u{0}", "user", "mode"] {
            #expect(FastYAMLParser.entryKeyBit(word(other)) == 0, "\(other)")
        }
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~-".utf8)
        for b in 0...255 { #expect(FastYAMLParser.entryPlain(UInt8(b)) == plain.contains(UInt8(b)), "byte \(b)") }
    }
}
