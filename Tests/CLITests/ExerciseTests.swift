import Foundation
import Testing

/// The curriculum in fixtures/exercises: every exercise is also a regression fixture.
@Suite("The exercises of the curriculum")
struct ExerciseTests {
    static let root = packageRoot.appendingPathComponent("fixtures/exercises")

    static func folders(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().filter { name in
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path, isDirectory: &isDir) && isDir.boolValue
        }
    }

    static func yamlFiles(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    /// The exercises that can be evaluated today (everything but `pending/`).
    static let exercises: [String] = folders(root).filter { $0 != "pending" }
    static let files: [String] = exercises.flatMap { ex in yamlFiles(root.appendingPathComponent(ex)).map { "fixtures/exercises/\(ex)/\($0)" } }
    static let pending: [String] = folders(root.appendingPathComponent("pending"))
    static let pendingFiles: [String] = pending.flatMap { ex in
        yamlFiles(root.appendingPathComponent("pending/" + ex)).map { "fixtures/exercises/pending/\(ex)/\($0)" }
    }

    @Test("there are at least 14 exercises, numbered in curriculum order, each with policy.yaml and a README")
    func layout() throws {
        #expect(Self.exercises.count >= 14, "only \(Self.exercises.count) exercises")
        for ex in Self.exercises + Self.pending.map({ "pending/" + $0 }) {
            let dir = Self.root.appendingPathComponent(ex)
            let name = ex.split(separator: "/").last.map(String.init) ?? ex
            #expect(name.prefix(3).allSatisfy { $0.isNumber || $0 == "-" } && name.dropFirst(2).hasPrefix("-"), "\(ex) is not named NN-topic")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("policy.yaml").path), "\(ex) has no policy.yaml")
            let readme = try String(contentsOf: dir.appendingPathComponent("README.md"), encoding: .utf8)
            // Its heading carries its own number (`# 04 · …`), as the curriculum's table does.
            #expect(readme.hasPrefix("# \(name.prefix(2)) · "), "\(ex)/README.md's heading does not start with its number")
            for section in ["**Story.**", "**Questions**", "**What it teaches.**", "**Where it comes from.**"] {
                #expect(readme.contains(section), "\(ex)/README.md has no \(section) section")
            }
            // The passage it rests on: a section of Apple's guide named in quotes, or the kernel
            // source. Quotations are in English (our translation): no Japanese inside a `>` block.
            let whereSection = readme.components(separatedBy: "**Where it comes from.**").last ?? ""
            let namesSection = whereSection.range(of: #"(guide|Apple)[^\n]*\n?[^\n]*"[A-Z][^"]+""#, options: .regularExpression) != nil
            #expect(namesSection || readme.contains("kernel"), "\(ex)/README.md names neither the guide's passage nor the kernel")
            let japaneseQuotes = readme.split(separator: "\n").filter { line in
                line.hasPrefix(">") && line.unicodeScalars.contains { (0x3040...0x30FF).contains($0.value) || (0x4E00...0x9FFF).contains($0.value) }
            }
            #expect(japaneseQuotes.isEmpty, "\(ex)/README.md quotes in Japanese; quote in English with the section name: \(japaneseQuotes)")
            for gone in ["shared/reference", "macos-semantics.md", "linux-semantics.md", "apple-sandbox.md", "seed `"] {
                #expect(!readme.contains(gone), "\(ex)/README.md points at `\(gone)`, which is not in the repository")
            }
        }
        #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("README.md").path))
        if !Self.pending.isEmpty {
            #expect(
                FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("pending/README.md").path),
                "fixtures/exercises/pending needs a README saying what each exercise waits for")
        }
        // Numbers are unique across the curriculum, pending exercises included.
        let numbers = (Self.exercises + Self.pending).map { $0.prefix(2) }
        #expect(Set(numbers).count == numbers.count, "two exercises share a number: \(numbers)")
    }

    @Test("every exercise passes check, with no error on stderr (warnings are findings some exercises teach)", arguments: files)
    func passes(_ file: String) throws {
        let r = try fspolicy(["check", file])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains(": error: "), "stderr: \(r.stderr)")
        #expect(r.stdout.contains(" passed, 0 failed"))
    }

    @Test("every exercise is in canonical form (fmt --check)", arguments: files)
    func formatted(_ file: String) throws {
        let r = try fspolicy(["fmt", "--check", file])
        #expect(r.status == 0, "fmt --check: \(r.stdout)\(r.stderr)")
    }

    @Test("every exercise folder asks questions, and every question has a hint")
    func questionsHaveHints() throws {
        for ex in Self.exercises {
            var quizCount = 0
            for f in Self.yamlFiles(Self.root.appendingPathComponent(ex)) {
                let text = try String(contentsOf: Self.root.appendingPathComponent(ex + "/" + f), encoding: .utf8)
                // Expectations are written one key per line when they are quiz questions.
                // (Keychain steps sit one level deeper, under `keychain: history:` and `expect:`.)
                let blocks = text.replacingOccurrences(of: "\n    - ", with: "\n  - ").components(separatedBy: "\n  - ").dropFirst()
                for b in blocks where b.contains("quiz: true") {
                    quizCount += 1
                    #expect(b.contains("hint:"), "\(ex)/\(f): a quiz question without a hint: \(b.prefix(80))")
                }
            }
            #expect(quizCount >= 3, "\(ex) asks only \(quizCount) questions")
        }
    }

    @Test("pending exercises still wait for a feature (move a folder up when its feature lands)", arguments: pendingFiles)
    func pendingStillPending(_ file: String) throws {
        let r = try fspolicy(["validate", file])
        let errors = r.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(r.status == 3, "\(file) is valid now: check it (fspolicy check) and move its folder out of fixtures/exercises/pending")
        for e in errors {
            #expect(
                e.contains("not supported yet") || e.contains("has ") && e.contains("error(s)"),
                "\(file) has an error that is not about a missing feature: \(e)")
        }
    }
}
