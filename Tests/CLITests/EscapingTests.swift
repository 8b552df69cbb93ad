import Foundation
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

/// Issue 13: every code point class that a terminal acts on, that YAML or XML refuses, or that
/// forges lines goes through every command and output format; the bytes that come out are
/// checked (text: no raw control or unsafe character; JSON and SARIF: valid JSON; JUnit:
/// well-formed XML).
@Suite struct EscapingTests {
    /// One of each class: C0 (ESC with an OSC title, BEL, CR, NUL), C1 (CSI, NEL), DEL, bidi
    /// controls, noncharacters, line and paragraph separators, a newline that would forge a line.
    static let hostile = "a\u{1B}]0;pwned\u{07}b\u{9B}31m\u{85}\u{7F}\u{202E}\u{2066}\u{FFFE}\u{FFFF}\u{2028}\u{2029}\r\nFORGED\u{0}z"

    static func q(_ s: String) -> String { YAMLText.quote(s) }
    /// Descriptions and hints are multi-line text: their line breaks are kept (everything else
    /// unsafe is escaped), so they get the classes without the line break.
    static let hostileText = hostile.replacingOccurrences(of: "\r\n", with: " ")

    static var policy: String {
        """
        fspolicy: 1
        semantics: linux
        description: \(q("desc " + hostileText))
        users:
          bob: {uid: 501}
        tree:
          /: {type: dir, mode: "0755"}
          \(q("/d" + hostile)): {type: dir, mode: "0755"}
          \(q("/d" + hostile + "/f" + hostile)): {owner: bob, mode: "0640"}
          \(q("/l" + hostile)): {type: symlink, target: \(q("t" + hostile))}
        expect:
          - {as: bob, op: read, path: \(q("/d" + hostile + "/f" + hostile)), result: deny, name: \(q("n " + hostile)), quiz: true, hint: \(q("h " + hostileText))}
          - {as: bob, op: write, path: \(q("/d" + hostile + "/f" + hostile)), result: allow, name: \(q("fails " + hostile))}
        """ + "\n"
    }

    /// Unsafe bytes in text output: C0 other than newline and tab, DEL, C1, bidi controls,
    /// separators, noncharacters; or bytes that are not UTF-8.
    static func unsafe(_ data: Data) -> String? {
        guard let s = String(data: data, encoding: .utf8) else { return "not UTF-8" }
        for u in s.unicodeScalars where Escaping.isUnsafe(u.value) && u != "\n" && u != "\t" {
            return "raw U+" + String(u.value, radix: 16)
        }
        return nil
    }

    static func runRaw(_ args: [String]) throws -> (Int32, Data, Data) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: fspolicyBinary())
        p.arguments = args
        p.currentDirectoryURL = packageRoot
        var e = ProcessInfo.processInfo.environment; e["NO_COLOR"] = "1"; p.environment = e
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, o, r)
    }

    @Test func everyCommandAndFormatEscapes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-esc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/p.yaml"
        try Self.policy.write(toFile: file, atomically: false, encoding: .utf8)
        let path = "/d" + Self.hostile + "/f" + Self.hostile
        let text: [[String]] = [
            ["validate", file], ["check", file], ["explain", file, "--as", "bob", "--op", "read", path],
            ["explain", file, "--as", "bob", "--op", "read", path, "--compare"],
            ["can", file, "--as", "bob", "--op", "read", path], ["who", file, "--op", "read", path],
            ["simulate", file], ["quiz", file, "--answers", "?y"], ["access", file, "--as", "bob", "--op", "read"],
            ["matrix", file], ["can", file, "--as", "nobody" + Self.hostile, "--op", "read", path],
            ["explain", file, "--as", "bob", "--op", "read", "/nothing" + Self.hostile]
        ]
        for args in text {
            let (status, out, err) = try Self.runRaw(args)
            #expect(status != 4 && status < 64, "\(args[0]) exited \(status)")
            #expect(Self.unsafe(out) == nil, "\(args[0]) stdout: \(Self.unsafe(out) ?? "")")
            #expect(Self.unsafe(err) == nil, "\(args[0]) stderr: \(Self.unsafe(err) ?? "")")
            #expect(
                !String(decoding: out, as: UTF8.self).split(separator: "\n").contains { $0.hasPrefix("FORGED") },
                "\(args) forged a line: \(String(decoding: out, as: UTF8.self))")
        }
        for args in [
            ["check", file, "--format", "json"], ["check", file, "--format", "sarif"], ["validate", file, "--format", "json"],
            ["explain", file, "--as", "bob", "--op", "read", path, "--format", "json"],
            ["who", file, "--op", "read", path, "--format", "json"], ["simulate", file, "--format", "json"]
        ] {
            let (_, out, err) = try Self.runRaw(args)
            #expect((try? JSONSerialization.jsonObject(with: out)) != nil, "\(args) is not valid JSON")
            #expect(Self.unsafe(out) == nil, "\(args): \(Self.unsafe(out) ?? "")")
            #expect(Self.unsafe(err) == nil)
        }
        let (_, junit, _) = try Self.runRaw(["check", file, "--format", "junit"])
        #expect(Self.unsafe(junit) == nil)
        if let xmllint = which("xmllint") {
            try junit.write(to: URL(fileURLWithPath: dir + "/j.xml"))
            let r = try run(xmllint, ["--noout", dir + "/j.xml"])
            #expect(r.status == 0, "JUnit is not well-formed XML: \(r.stderr)")
        } else {
            Issue.record("xmllint is missing (scripts/setup installs libxml2-utils): the JUnit output cannot be checked")
        }
        // `--output FILE` is written as it is made, in pieces: each format's file holds the very
        // bytes of its standard output (the text escaped piece by piece as it was whole).
        for format in ["text", "json", "junit", "sarif"] {
            let (_, out, _) = try Self.runRaw(["check", file, "--format", format])
            let (_, none, _) = try Self.runRaw(["check", file, "--format", format, "--output", dir + "/report." + format])
            #expect(none.isEmpty, "\(format): --output printed to standard output")
            #expect(FileManager.default.contents(atPath: dir + "/report." + format) == out, "\(format): the file differs from standard output")
        }
        // fmt: the canonical file keeps every name and loads to the same tree.
        let (st, formatted, _) = try Self.runRaw(["fmt", "--stdout", file])
        #expect(st == 0)
        #expect(Self.unsafe(formatted) == nil)
        let a = PolicyLoader.load(text: Self.policy, file: "a.yaml"), b = PolicyLoader.load(text: String(decoding: formatted, as: UTF8.self), file: "b.yaml")
        #expect(a.diagnostics.sorted.filter { $0.severity == .error }.isEmpty)
        #expect(b.diagnostics.sorted.filter { $0.severity == .error }.isEmpty)
        #expect(a.world.nodeCount == b.world.nodeCount)
        for n in 0..<a.world.nodeCount { #expect(b.world.lookup(a.world.path(of: Int32(n))) != nil) }
    }

    @Test func scanOutputReloadsToTheSameTree() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-escscan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Names with every class, invalid UTF-8 bytes, and a path over 1,024 bytes.
        var names: [[UInt8]] = [
            Array("\u{1B}]0;x\u{07}".utf8), Array("c1\u{85}\u{9B}".utf8), Array("sep\u{2028}\u{2029}".utf8),
            Array("bidi\u{202E}\u{2066}".utf8), Array("non\u{FFFE}\u{FFFF}".utf8), Array("nl\nx\ty\r".utf8),
            [0x62, 0xFF, 0xFE, 0x80, 0x5C], Array("quote\"'#: {x}, [y]".utf8)
        ]
        var long = dir
        for i in 0..<12 { long += "/" + String(repeating: "d", count: 100) + String(i) }
        try FileManager.default.createDirectory(atPath: long, withIntermediateDirectories: true)
        names.append(Array(("x" + String(repeating: "é", count: 100)).utf8))
        for n in names {
            let p = Array(dir.utf8) + [0x2F] + n
            let fd = p.withUnsafeBufferPointer { b -> Int32 in
                var c = Array(b) + [0]
                return c.withUnsafeMutableBufferPointer {
                    open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
                }
            }
            #expect(fd >= 0)
            close(fd)
        }
        for at in [nil, "/srv/a/../b/./c"] as [String?] {
            var args = ["scan", dir, "-o", dir + ".yaml", "--accounts", "owners"]
            if let a = at { args += ["--at", a] }
            let r = try fspolicy(args)
            defer { try? FileManager.default.removeItem(atPath: dir + ".yaml") }
            #expect(r.status == 0, "\(r.stderr)")
            let out = try Data(contentsOf: URL(fileURLWithPath: dir + ".yaml"))
            #expect(Self.unsafe(out) == nil, "\(Self.unsafe(out) ?? "")")
            let v = try fspolicy(["validate", dir + ".yaml"])
            #expect(v.status == 0, "scan output does not load: \(v.stderr)")
            let p = PolicyLoader.load(path: dir + ".yaml")
            let base = at == nil ? dir : "/srv/b/c"
            for n in names { #expect(p.world.lookup(base + "/" + NameEscaping.escape(n)) != nil, "\(NameEscaping.escape(n)) is missing") }
            #expect(p.world.lookup(base + String(long.dropFirst(dir.count))) != nil)
        }
    }

    /// Names that differ only in Unicode normalization are two files to Linux, but YAML compares
    /// keys by canonical equivalence: a scan of both used to write a file that did not load
    /// (a duplicate key). The one not in NFC is written with its non-ASCII bytes escaped.
    @Test func namesThatDifferOnlyInNormalizationStayApart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-nfc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // "café" composed (0644) and decomposed (0600); Hangul "각" as one syllable and as jamo.
        let files: [([UInt8], Int32)] = [
            (Array("caf\u{E9}".utf8), 0o644), (Array("cafe\u{301}".utf8), 0o600),
            (Array("\u{AC01}".utf8), 0o644), (Array("\u{1100}\u{1161}\u{11A8}".utf8), 0o600)
        ]
        for (n, mode) in files {
            var p = Array(dir.utf8) + [0x2F] + n + [0]
            let fd = p.withUnsafeMutableBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, mode_t(mode))
            }
            #expect(fd >= 0)
            _ = p.withUnsafeMutableBufferPointer { chmod(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), mode_t(mode)) }
            close(fd)
        }
        let out = dir + ".yaml"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try fspolicy(["scan", dir, "-o", out, "--accounts", "owners"])
        #expect(r.status == 0, "\(r.stderr)")
        let v = try fspolicy(["validate", out])
        #expect(v.status == 0, "a scan of names equal up to normalization must load: \(v.stderr)")
        #expect(try fspolicy(["fmt", "--check", out]).status == 0)
        let p = PolicyLoader.load(path: out)
        for (n, mode) in files {
            let name = NameEscaping.escape(n)
            guard let id = p.world.lookup(dir + "/" + name) else { Issue.record("\(name) is missing"); continue }
            #expect(p.world[id].mode.rawValue & 0o777 == UInt16(mode), "\(name) has another file's mode")
        }
        // The composed name stays readable; the decomposed one is spelled in escapes.
        #expect(NameEscaping.escape(files[0].0) == "caf\u{E9}")
        #expect(NameEscaping.escape(files[1].0) == "cafe\\314\\201")
        // Typed raw on the command line, each path reaches its own file.
        let nfd = String(decoding: Array(dir.utf8) + [0x2F] + files[1].0, as: UTF8.self)
        let asked = try fspolicy(["can", out, "--as", "1234", "--op", "read", nfd])
        #expect(asked.status == 2, "the decomposed name is the 0600 file: \(asked.stdout)")
        let composed = try fspolicy(["can", out, "--as", "1234", "--op", "read", dir + "/caf\u{E9}"])
        #expect(composed.status == 0, "the composed name is the 0644 file: \(composed.stdout)")
    }

    /// A name that starts with a combining mark (U+0323) or ends with a prepended one (U+0600)
    /// would make one character with the `/` next to it, so text-level splitting saw no `/`
    /// there (found by the scanwriter fuzz target). Such names are written escaped, and typed
    /// raw they still reach their own node.
    @Test func namesThatWouldJoinASlashStayNames() throws {
        #expect(NameEscaping.escape(Array("\u{323}".utf8)) == "\\314\\243")
        #expect(NameEscaping.escape(Array("\u{600}".utf8)) == "\\330\\200")
        #expect(NameEscaping.escape(Array("x\u{33F}".utf8)) == "x\u{33F}", "a mark after a letter is an ordinary NFC name")
        let text =
            "fspolicy: 1\nsemantics: linux\nusers:\n  bob: {uid: 1000}\ntree:\n  /fz: {type: dir, mode: \"0755\"}\n"
            + "  \"/fz/\u{323}\": {mode: \"0600\"}\n  \"/fz/\u{600}\": {type: dir, mode: \"0755\"}\n  \"/fz/\u{600}/x\": {mode: \"0644\"}\n"
        let p = PolicyLoader.load(text: text, file: "join.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        guard let fz = p.world.lookup("/fz"), let mark = p.world.lookup("/fz/\\314\\243"),
            let pre = p.world.lookup("/fz/\\330\\200"), let x = p.world.lookup("/fz/\\330\\200/x")
        else {
            Issue.record("a node is missing: \(p.world.nodes.count) nodes"); return
        }
        #expect(p.world[mark].parent == fz && p.world[pre].parent == fz && p.world[x].parent == pre)
        #expect(p.world.nodes.count == 5, "/, /fz and three names: no invented node")
    }

    /// A path argument whose bytes are not UTF-8 names the node whose name has those bytes (as
    /// its `\ooo` spelling does), in a question, a batch line and a scan's root; a file to
    /// read or write named so is refused with a message, never another file (U+FFFD named
    /// another path: a confident ENOENT, an output under another name).
    @Test func argumentsThatAreNotUTF8KeepTheirBytes() throws {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-raw-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: d) }
        let bin = fspolicyBinary()
        func bash(_ script: String) throws -> RunResult { try run("/bin/bash", ["-c", "cd '\(d)' && " + script]) }
        _ = try bash("mkdir -p t $'t/d\\xff' && printf x > $'t/bad\\xff\\xfe' && printf y > $'t/d\\xff/f' && chmod -R a+rX t")
        let scan = try bash("'\(bin)' scan t -o s.yaml")
        #expect(scan.status == 0, "\(scan.stderr)")
        for q in ["$'\(d)/t/bad\\xff\\xfe'", "'\(d)/t/bad\\377\\376'", "$'\(d)/t/d\\xff/f'"] {
            let r = try bash("'\(bin)' can s.yaml --as root --op read \(q)")
            #expect(r.status == 0 && r.stdout == "allow\n", "\(q): \(r.stdout) \(r.stderr)")
        }
        let batch = try bash("printf 'root\\tread\\t\(d)/t/bad\\xff\\xfe\\n' | '\(bin)' can s.yaml --batch -")
        #expect(batch.stdout == "allow\n", "\(batch.stdout) \(batch.stderr)")
        // The folder itself given by its bytes.
        let root = try bash("'\(bin)' scan $'t/d\\xff' -o s2.yaml && '\(bin)' can s2.yaml --as root --op read $'\(d)/t/d\\xff/f'")
        #expect(root.status == 0 && root.stdout == "allow\n", "\(root.stdout) \(root.stderr)")
        // Files named by such an argument: refused, nothing made under another name.
        let out = try bash("'\(bin)' validate s.yaml --quiet; '\(bin)' check s.yaml --output $'out\\xff.yaml'")
        #expect(out.status == 3 && out.stderr.contains("cannot write `out\\377.yaml`: the name is not UTF-8 text"), "\(out.stderr)")
        let read = try bash("'\(bin)' validate $'p\\xff.yaml'")
        #expect(read.status == 3 && read.stderr.contains("cannot read `p\\377.yaml`: the name is not UTF-8 text"), "\(read.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: d).sorted()
        #expect(left == ["s.yaml", "s2.yaml", "t"], "\(left)")
    }

    /// The escaping itself: valid sequences stay (a tab, a backslash, `é`, an emoji), every byte
    /// of an invalid one (a lone continuation, an overlong form, a surrogate, past U+10FFFF, a
    /// cut sequence) is `\ooo`.
    @Test func invalidUTF8IsEscapedByteByByte() {
        #expect(RawArguments.escapingInvalidUTF8(Array("a\tb\\c é 🙂".utf8)) == "a\tb\\c é 🙂")
        #expect(RawArguments.escapingInvalidUTF8([0x61, 0xFF, 0xFE]) == "a\\377\\376")
        #expect(RawArguments.escapingInvalidUTF8([0xC0, 0xAF]) == "\\300\\257")
        #expect(RawArguments.escapingInvalidUTF8([0xED, 0xA0, 0x80]) == "\\355\\240\\200")
        #expect(RawArguments.escapingInvalidUTF8([0xF4, 0x90, 0x80, 0x80]) == "\\364\\220\\200\\200")
        #expect(RawArguments.escapingInvalidUTF8([0xE2, 0x82]) == "\\342\\202")
        #expect(RawArguments.escapingInvalidUTF8([0xE2, 0x82, 0xAC, 0x80]) == "€\\200")
        let args = RawArguments.arguments([Array("fspolicy".utf8), [0x2F, 0x78, 0xFF]])
        #expect(args == ["fspolicy", "/x\\377"] && RawArguments.notUTF8.contains("/x\\377") && !RawArguments.notUTF8.contains("fspolicy"))
    }
}
