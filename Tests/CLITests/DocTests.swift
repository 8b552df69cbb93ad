import Foundation
import Testing

/// The documentation's examples are tests: every ```` ```console ```` block in README.md, docs/
/// and the fixtures' READMEs is run, and every relative link must resolve. The rules a block
/// follows are in docs/README.md ("Examples are tested").
@Suite("Documentation: console examples and links")
struct DocTests {
    /// Every Markdown file the project publishes: README.md, docs/**, fixtures/**/README.md.
    static let markdownFiles: [String] = {
        var out = ["README.md"]
        let fm = FileManager.default
        for top in ["docs", "fixtures", "examples"] {
            let base = packageRoot.appendingPathComponent(top)
            guard let e = fm.enumerator(atPath: base.path) else { continue }
            for case let rel as String in e where rel.hasSuffix(".md") {
                if top != "docs" && !rel.hasSuffix("README.md") { continue }
                out.append("\(top)/\(rel)")
            }
        }
        return out.sorted()
    }()

    static let blocks: [ConsoleBlock] = markdownFiles.flatMap { file -> [ConsoleBlock] in
        guard let text = try? String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8) else { return [] }
        return ConsoleBlock.extract(from: text, file: file)
    }

    @Test("the README has console examples, so the doc test tests something")
    func someBlocks() {
        #expect(Self.blocks.contains { $0.file == "README.md" })
        #expect(Self.blocks.flatMap(\.commands).count >= 5)
    }

    @Test("every console example prints exactly what the document shows", arguments: blocks)
    func consoleExample(_ block: ConsoleBlock) throws {
        let sandbox = try DocSandbox.shared()
        for cmd in block.commands {
            let actual = try sandbox.run(cmd.command)
            if let problem = ConsoleBlock.mismatch(expected: cmd.expected, actual: actual) {
                Issue.record(
                    """
                    \(block.file):\(cmd.line): the example's output has drifted (\(problem))
                    $ \(cmd.command)
                    --- the document shows:
                    \(cmd.expected.joined(separator: "\n"))
                    --- the command printed:
                    \(actual)
                    """)
            }
        }
    }

    @Test("every relative link and anchor in the docs resolves", arguments: markdownFiles)
    func links(_ file: String) throws {
        let url = packageRoot.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        for link in MarkdownLinks.links(in: text) {
            let target = link.target
            if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
            var pathPart = target, anchor: String? = nil
            if let hash = target.firstIndex(of: "#") {
                pathPart = String(target[..<hash])
                anchor = String(target[target.index(after: hash)...])
            }
            let dest = pathPart.isEmpty ? url : url.deletingLastPathComponent().appendingPathComponent(pathPart).standardizedFileURL
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dest.path, isDirectory: &isDir) else {
                Issue.record("\(file):\(link.line): link to \(target): \(pathPart) does not exist")
                continue
            }
            if let anchor, !anchor.isEmpty {
                guard !isDir.boolValue, dest.pathExtension == "md",
                    let destText = try? String(contentsOf: dest, encoding: .utf8)
                else {
                    Issue.record("\(file):\(link.line): link to \(target): an anchor needs a Markdown file")
                    continue
                }
                let anchors = MarkdownLinks.anchors(in: destText)
                if !anchors.contains(anchor) {
                    Issue.record("\(file):\(link.line): link to \(target): no heading in \(pathPart.isEmpty ? file : pathPart) has the anchor #\(anchor)")
                }
            }
        }
    }

    /// The subcommands, read from `fspolicy --help`.
    static func subcommands() throws -> [String] {
        let r = try fspolicy(["--help"], env: ["COLUMNS": "1000"])
        guard let range = r.stdout.range(of: "SUBCOMMANDS:") else { return [] }
        return r.stdout[range.upperBound...].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }.filter { $0 != "See" }
    }

    @Test("every example in every command's --help runs on the files it names")
    func helpExamples() throws {
        let subs = try Self.subcommands()
        #expect(subs.count >= 9, "found subcommands \(subs)")
        var ran = 0
        for sub in subs {
            let help = try fspolicy([sub, "--help"], env: ["COLUMNS": "1000"]).stdout
            var inExamples = false
            for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("Examples:") { inExamples = true; continue }
                if inExamples && line.trimmingCharacters(in: .whitespaces).isEmpty { inExamples = false; continue }
                guard inExamples else { continue }
                let cmd = line.trimmingCharacters(in: .whitespaces)
                guard cmd.contains("fspolicy ") else { continue }
                ran += 1
                let out = try DocSandbox.shared().runWithStatus(cmd)
                #expect(
                    out.status != 3 && out.status != 64 && out.status < 128,
                    "`fspolicy \(sub) --help` example `\(cmd)` exits \(out.status):\n\(out.output)")
                #expect(
                    !out.output.contains("no such file or directory") && !out.output.contains("cannot read `"),
                    "`fspolicy \(sub) --help` example `\(cmd)` names a missing file:\n\(out.output)")
            }
        }
        #expect(ran >= subs.count, "only \(ran) examples found in the help of \(subs.count) commands")
    }

    @Test("the block reader and the matcher follow the documented rules")
    func harnessRules() {
        let md = """
            text
            ```console
            $ echo a \\
              b
            a b
            $ printf 'x\\ny\\nz\\n'
            x
            …
            ```
            ```sh
            $ not a test
            ```
            """
        let blocks = ConsoleBlock.extract(from: md, file: "t.md")
        #expect(blocks.count == 1)
        #expect(blocks.first?.commands.map(\.command) == ["echo a \\\n  b", "printf 'x\\ny\\nz\\n'"])
        #expect(blocks.first?.commands.map(\.line) == [3, 6])
        #expect(ConsoleBlock.mismatch(expected: ["x", "…"], actual: "x\ny\nz\n") == nil)
        #expect(ConsoleBlock.mismatch(expected: ["x", "…", "z"], actual: "x\ny\nz\n") == nil)
        #expect(ConsoleBlock.mismatch(expected: ["x", "z"], actual: "x\ny\nz\n") != nil)
        #expect(ConsoleBlock.mismatch(expected: ["a <ANY> c"], actual: "a bbb c\n") == nil)
        #expect(ConsoleBlock.mismatch(expected: ["a <ANY> c"], actual: "a bbb d\n") != nil)
        #expect(ConsoleBlock.mismatch(expected: [], actual: "") == nil)
        #expect(ConsoleBlock.mismatch(expected: [], actual: "something\n") != nil)
        #expect(MarkdownLinks.anchors(in: "# A `b` (c), d!\n## Limits\n").contains("a-b-c-d"))
        #expect(MarkdownLinks.links(in: "see [x](a.md#b) and `[no](c.md)`\n```\n[no](d.md)\n```\n").map(\.target) == ["a.md#b"])
    }
}

/// One ```` ```console ```` block: `$ ` lines are commands (a line ending in ` \` continues on
/// the next), the lines below a command up to the next one are what it prints.
struct ConsoleBlock: CustomTestStringConvertible, Sendable {
    struct Command: Sendable {
        var command: String
        var line: Int
        var expected: [String]
    }
    var file: String
    var line: Int
    var commands: [Command]

    var testDescription: String { "\(file):\(line)" }

    static func extract(from text: String, file: String) -> [ConsoleBlock] {
        var out: [ConsoleBlock] = []
        let lines = text.components(separatedBy: "\n")
        var i = 0
        while i < lines.count {
            let fence = lines[i].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```") else { i += 1; continue }
            let lang = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let start = i
            i += 1
            var body: [(Int, String)] = []
            while i < lines.count, !lines[i].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append((i + 1, lines[i]))
                i += 1
            }
            i += 1
            guard lang == "console" else { continue }
            var block = ConsoleBlock(file: file, line: start + 1, commands: [])
            var j = 0
            while j < body.count {
                let (n, l) = body[j]
                if l.hasPrefix("$ ") {
                    var cmd = String(l.dropFirst(2))
                    while cmd.hasSuffix("\\"), j + 1 < body.count {
                        j += 1
                        cmd += "\n" + body[j].1
                    }
                    block.commands.append(Command(command: cmd, line: n, expected: []))
                } else if !block.commands.isEmpty {
                    block.commands[block.commands.count - 1].expected.append(l)
                }
                j += 1
            }
            // A blank line between two commands separates them; it is not output.
            for k in block.commands.indices {
                while block.commands[k].expected.last?.trimmingCharacters(in: .whitespaces).isEmpty == true {
                    block.commands[k].expected.removeLast()
                }
            }
            out.append(block)
        }
        return out
    }

    /// nil when `actual` matches: line by line, trailing spaces ignored; a line that is only `…`
    /// stands for any number of lines, and `<ANY>` inside a line for any text.
    static func mismatch(expected: [String], actual: String) -> String? {
        var got = actual.components(separatedBy: "\n").map { trimEnd($0) }
        if got.last == "" { got.removeLast() }
        while got.last?.isEmpty == true { got.removeLast() }
        let want = expected.map { trimEnd($0) }
        return matches(want[...], got[...]) ? nil : "expected \(want.count) lines, got \(got.count)"
    }

    private static func trimEnd(_ s: String) -> String {
        var s = Substring(s)
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s = s.dropLast() }
        return String(s)
    }

    private static func matches(_ want: ArraySlice<String>, _ got: ArraySlice<String>) -> Bool {
        guard let w = want.first else { return got.isEmpty }
        if w == "…" || w == "..." {
            var rest = got
            while true {
                if matches(want.dropFirst(), rest) { return true }
                if rest.isEmpty { return false }
                rest = rest.dropFirst()
            }
        }
        guard let g = got.first, lineMatches(w, g) else { return false }
        return matches(want.dropFirst(), got.dropFirst())
    }

    private static func lineMatches(_ pattern: String, _ line: String) -> Bool {
        let parts = pattern.components(separatedBy: "<ANY>")
        if parts.count == 1 { return pattern == line }
        guard line.hasPrefix(parts[0]) else { return false }
        var rest = line.dropFirst(parts[0].count)
        for (k, p) in parts.enumerated().dropFirst() {
            if k == parts.count - 1 { return rest.hasSuffix(p) }
            guard let r = rest.range(of: p) else { return false }
            rest = rest[r.upperBound...]
        }
        return true
    }
}

/// A copy of the repository's documents and fixtures in a temporary folder, where the examples
/// run (so an example that writes a file writes it there), with the built binaries first on PATH.
final class DocSandbox: @unchecked Sendable {
    let root: URL
    private static let lock = NSLock()
    nonisolated(unsafe) private static var instance: DocSandbox?

    static func shared() throws -> DocSandbox {
        lock.lock(); defer { lock.unlock() }
        if let s = instance { return s }
        let s = try DocSandbox()
        instance = s
        return s
    }

    private init() throws {
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("fspolicy-doctest-\(getpid())")
        try? fm.removeItem(at: root)
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        for item in ["README.md", "docs", "fixtures", "examples", "scripts"] {
            let src = packageRoot.appendingPathComponent(item)
            if fm.fileExists(atPath: src.path) {
                try fm.copyItem(at: src, to: root.appendingPathComponent(item))
            }
        }
        // The copy goes when the test process ends.
        let path = root.path
        atexit_paths.append(path)
        atexit { for p in atexit_paths { try? FileManager.default.removeItem(atPath: p) } }
    }

    /// Runs one example through bash in the copy, stdout and stderr into one stream (in the
    /// order the program wrote them), no terminal, no colour.
    func run(_ command: String) throws -> String { try runWithStatus(command).output }

    func runWithStatus(_ command: String) throws -> (status: Int32, output: String) {
        let binDir = URL(fileURLWithPath: fspolicyBinary()).deletingLastPathComponent().path
        let env = [
            "PATH": "\(binDir):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "NO_COLOR": "1", "COLUMNS": "100", "LC_ALL": "C.UTF-8"
        ]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = root
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = root.appendingPathComponent(".doctest-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let h = try FileHandle(forWritingTo: out)
        p.standardOutput = h
        p.standardError = h
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try h.close()
        return (p.terminationStatus, String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self))
    }
}

nonisolated(unsafe) private var atexit_paths: [String] = []

/// Relative links and heading anchors of a Markdown text (code spans and fenced blocks skipped).
enum MarkdownLinks {
    struct Link { var target: String; var line: Int }

    static func links(in text: String) -> [Link] {
        var out: [Link] = []
        var inFence = false
        for (n, raw) in text.components(separatedBy: "\n").enumerated() {
            if raw.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            // Drop code spans.
            var line = ""
            var inCode = false
            for c in raw {
                if c == "`" { inCode.toggle(); continue }
                if !inCode { line.append(c) }
            }
            var rest = Substring(line)
            while let r = rest.range(of: "](") {
                let after = rest[r.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                var target = String(after[..<close]).trimmingCharacters(in: .whitespaces)
                if let sp = target.firstIndex(of: " ") { target = String(target[..<sp]) }  // [x](url "title")
                if !target.isEmpty { out.append(Link(target: target, line: n + 1)) }
                rest = after[close...]
            }
        }
        return out
    }

    /// GitHub's anchors: lower case, spaces to `-`, punctuation other than `-` and `_` dropped;
    /// repeated headings get `-1`, `-2`, ….
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var out: Set<String> = []
        var inFence = false
        for raw in text.components(separatedBy: "\n") {
            if raw.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, raw.hasPrefix("#") else { continue }
            let title = raw.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for c in title.lowercased() {
                if c.isLetter || c.isNumber || c == "-" || c == "_" { slug.append(c) } else if c == " " { slug.append("-") }
            }
            if let k = seen[slug] {
                seen[slug] = k + 1
                out.insert("\(slug)-\(k + 1)")
            } else {
                seen[slug] = 0
                out.insert(slug)
            }
        }
        return out
    }
}
