import Testing
import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport

/// The scan file's writer: its order is `fmt`'s, and writing it in pieces gives the same bytes.
@Suite struct ScanWriterTests {
    /// Names that sort differently as bytes, as scalars and after normalization: punctuation
    /// on both sides of `/`, a precomposed and a decomposed é, combining marks at the start of
    /// a name (they follow the `/` in a full path), the ohm sign (its normal form is Ω), a
    /// ligature, an emoji, bytes that are not UTF-8 and a backslash. Paths are escaped as the
    /// scanner escapes them (`NameEscaping`).
    static let pieces: [[UInt8]] =
        [
            "a", "a-b", "a.b", "a0", "a~", "b", "!", "#x", "\u{E9}", "e\u{301}", "\u{301}x", "\u{338}", "a\u{338}",
            "\u{2126}", "\u{3A9}", "\u{FB00}", "\u{1F600}", "z", "back\\slash", "Z", " sp"
        ].map { Array($0.utf8) } + [[0xff, 0xfe], [0x61, 0x80]]

    static func tree(root: String, count: Int, seed: UInt64) -> ScannedTree {
        var rng = WriterRng(s: seed)
        var t = ScannedTree(root: NameEscaping.escape(Array(root.utf8)))
        t.entries.append(.init(relativePath: "", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)))
        var seen: Set<[UInt8]> = []
        while t.entries.count < count {
            let depth = 1 + rng.below(3)
            var rel: [UInt8] = []
            for d in 0..<depth {
                if d > 0 { rel.append(0x2f) }
                rel += pieces[rng.below(pieces.count)]
                if rng.chance(2) { rel += pieces[rng.below(pieces.count)] }
            }
            guard seen.insert(rel).inserted else { continue }
            t.entries.append(.init(relativePath: NameEscaping.escape(rel), type: .file, uid: 0, gid: 0, mode: FileMode(0o644)))
        }
        // The scanner records entries depth first; the writer must not rely on any order.
        for i in stride(from: t.entries.count - 1, to: 0, by: -1) { t.entries.swapAt(i, rng.below(i + 1)) }
        return t
    }

    @Test("the entries' order is the order of their full paths, for any root")
    func orderIsTheFullPathsOrder() {
        for (k, root) in ["/", "/srv/r", "/a-b", "/caf\u{E9}", "/x/\u{301}y"].enumerated() {
            let t = Self.tree(root: root, count: 400, seed: UInt64(k) + 7)
            let prefix = t.root == "/" ? "" : t.root
            let full = ScanWriter.order(t.entries).map { t.entries[$0].relativePath.isEmpty ? t.root : prefix + "/" + t.entries[$0].relativePath }
            var outOfOrder = 0
            for i in 1..<full.count where full[i] < full[i - 1] { outOfOrder += 1 }
            #expect(outOfOrder == 0, "root \(root): \(outOfOrder) pairs out of order")
            #expect(full.first == t.root)
            // The sort is not vacuous: the relative paths came shuffled.
            #expect(full != t.entries.map { $0.relativePath.isEmpty ? t.root : prefix + "/" + $0.relativePath })
        }
    }

    @Test("a scan file is already formatted: fmt leaves it byte for byte, with the folders above the root")
    func scanFileIsFormatted() {
        for (k, (root, at)) in [("/srv/r", nil), ("/srv/r", "/other-place/x"), ("/", nil), ("/a-b", "/a-b")].enumerated() {
            var t = Self.tree(root: root, count: 200, seed: UInt64(k) + 100)
            t.ancestorsRead = false
            let text = ScanWriter.yaml(t, at: at)
            switch Formatter.format(text, file: "scan.yaml") {
            case .success(let formatted):
                #expect(formatted == text, "root \(root) at \(at ?? "-"): fmt changes the scan file")
            case .failure(let f):
                Issue.record("root \(root): fmt refused the scan file: \(f.diagnostics.map(\.rendered))")
            }
        }
    }

    @Test("written in pieces: whole lines, each piece at least the size asked but the last, the same bytes as the whole")
    func piecesMakeTheWhole() {
        let t = Self.tree(root: "/srv/r", count: 300, seed: 42)
        let whole = ScanWriter.yaml(t)
        for chunk in [1, 64, 1000, 1 << 20] {
            var pieces: [[UInt8]] = []
            ScanWriter.write(t, schemaURL: "fspolicy-1.schema.json", chunk: chunk) { pieces.append($0) }
            #expect(String(decoding: pieces.joined(), as: UTF8.self) == SchemaComment.apply(whole, url: "fspolicy-1.schema.json"))
            #expect(pieces.allSatisfy { $0.last == 0x0a }, "chunk \(chunk): a piece ends inside a line")
            #expect(pieces.dropLast().allSatisfy { $0.count >= chunk }, "chunk \(chunk): a piece handed on early")
            if chunk == 1 << 20 { #expect(pieces.count == 1) } else { #expect(pieces.count > 1) }
        }
    }
}
