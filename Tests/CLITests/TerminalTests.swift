import Foundation
import Testing

/// What CI systems expect: no escape codes unless asked for, no progress in a job's log.
@Suite("Terminal conventions: NO_COLOR, FORCE_COLOR, CI, no terminal")
struct TerminalTests {
    static let commands: [[String]] = [
        ["check", "fixtures/examples/team-share/policy.yaml"],
        ["check", "fixtures/golden/drift.yaml"],
        ["explain", "fixtures/examples/team-share/policy.yaml", "--as", "dave", "--op", "delete", "/Shared/Dropbox/bob-notes.txt"],
        ["explain", "fixtures/examples/flags/policy.yaml", "--as", "bob", "--op", "write", "/Users/alice/contract.pdf", "--compare"],
        ["who", "fixtures/examples/team-share/policy.yaml", "--op", "delete", "/Shared/Design/brief.txt"],
        ["can", "fixtures/examples/team-share/policy.yaml", "--as", "carol", "--op", "write", "/Shared/Design/brief.txt"],
        ["simulate", "fixtures/examples/figure-b1/policy.yaml"],
        ["validate", "fixtures/invalid/unknown-op.yaml"],
        ["quiz", "fixtures/exercises/04-sticky-bit", "--answers", "nyny"]
    ]

    static func hasEscape(_ s: String) -> Bool { s.utf8.contains(0x1B) }

    @Test("with no terminal, nothing any command prints has an escape code", arguments: commands)
    func noTerminalNoEscapes(_ args: [String]) throws {
        let r = try fspolicy(args, env: ["NO_COLOR": "", "FORCE_COLOR": "", "CI": ""])
        #expect(!r.crashed)
        #expect(!Self.hasEscape(r.stdout), "escape code on stdout of \(args)")
        #expect(!Self.hasEscape(r.stderr), "escape code on stderr of \(args)")
    }

    @Test("FORCE_COLOR colours a log; NO_COLOR wins over it; FORCE_COLOR=0 does not")
    func forceColor() throws {
        let args = ["check", "fixtures/golden/drift.yaml"]
        let forced = try fspolicy(args, env: ["NO_COLOR": "", "FORCE_COLOR": "1"])
        #expect(Self.hasEscape(forced.stdout), "FORCE_COLOR=1 should colour: \(forced.stdout)")
        let both = try fspolicy(args, env: ["NO_COLOR": "1", "FORCE_COLOR": "1"])
        #expect(!Self.hasEscape(both.stdout))
        let zero = try fspolicy(args, env: ["NO_COLOR": "", "FORCE_COLOR": "0"])
        #expect(!Self.hasEscape(zero.stdout))
        let flag = try fspolicy(args + ["--no-color"], env: ["NO_COLOR": "", "FORCE_COLOR": "1"])
        #expect(!Self.hasEscape(flag.stdout))
        // The same text once the escapes are taken out.
        let plain = try fspolicy(args, env: ["NO_COLOR": "1"])
        #expect(Self.stripEscapes(forced.stdout) == plain.stdout)
    }

    static func stripEscapes(_ s: String) -> String {
        var out = "", i = s.startIndex
        while i < s.endIndex {
            if s[i] == "\u{1B}" {
                // CSI: ESC [ parameters final-byte
                var j = s.index(after: i)
                if j < s.endIndex, s[j] == "[" {
                    j = s.index(after: j)
                    while j < s.endIndex, let a = s[j].asciiValue, !(0x40...0x7E).contains(a) { j = s.index(after: j) }
                    if j < s.endIndex { j = s.index(after: j) }
                }
                i = j
                continue
            }
            out.append(s[i])
            i = s.index(after: i)
        }
        return out
    }

    @Test("CI=true: no progress line even on a pseudo-terminal; without CI the terminal gets one")
    func ciHasNoProgress() throws {
        guard let script = which("script") else {
            Issue.record("util-linux `script` is needed to give the command a pseudo-terminal (apt-get install bsdutils)")
            return
        }
        // 2,000 expectations: the size from which `check` shows progress.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var yaml =
            "fspolicy: 1\nsemantics: linux\nusers:\n  ana: {uid: 3001}\ntree:\n  /srv: {type: dir, mode: \"0755\"}\n  /srv/f: {mode: \"0644\"}\nexpect:\n"
        for _ in 0..<2001 { yaml += "  - {as: ana, op: read, path: /srv/f, result: allow}\n" }
        let file = dir.appendingPathComponent("big.yaml").path
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let bin = fspolicyBinary()
        let inner = "'\(bin)' check '\(file)' >/dev/null"
        let withCI = try run(script, ["-qec", inner, "/dev/null"], env: ["CI": "true", "NO_COLOR": "1"])
        #expect(withCI.status == 0, "\(withCI.stdout)\(withCI.stderr)")
        #expect(!withCI.stdout.contains("\r") || !withCI.stdout.contains("/2001"), "progress shown under CI=true: \(withCI.stdout.debugDescription)")
        let withoutCI = try run(script, ["-qec", inner, "/dev/null"], env: ["CI": "", "NO_COLOR": "1"])
        #expect(withoutCI.stdout.contains("/2001"), "no progress on a terminal without CI: \(withoutCI.stdout.debugDescription)")
    }
}

@Suite("Shell completion and manual pages")
struct CompletionTests {
    @Test("bash, zsh and fish completion scripts are generated and parse")
    func scripts() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try fspolicy(["--generate-completion-script", shell])
            #expect(r.status == 0, "\(shell): \(r.stderr)")
            #expect(r.stdout.contains("fspolicy"))
            #expect(r.stdout.contains("readwrite"), "\(shell): the op words are not offered after --op")
        }
        let bash = try fspolicy(["--generate-completion-script", "bash"]).stdout
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("fspolicy.bash").path
        try bash.write(toFile: file, atomically: true, encoding: .utf8)
        let syntax = try run("/bin/bash", ["-n", file])
        #expect(syntax.status == 0, "\(syntax.stderr)")
    }

    @Test("bash completes --op with op words and --as with the policy file's users and apps")
    func bashCompletes() throws {
        let bin = fspolicyBinary()
        let binDir = URL(fileURLWithPath: bin).deletingLastPathComponent().path
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = """
                source <(fspolicy --generate-completion-script bash) 2>/dev/null
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                f=$(complete -p fspolicy | sed -E 's/.*-F ([^ ]+).*/\\1/')
                "$f" fspolicy "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try run("/bin/bash", ["-c", script], env: ["PATH": "\(binDir):/usr/bin:/bin"])
            return r.stdout.split(separator: "\n").map(String.init)
        }
        let ops = try complete(["fspolicy", "can", "--op", "read"])
        #expect(ops.contains("read") && ops.contains("readwrite") && ops.contains("readattr"), "--op completions: \(ops)")
        let users = try complete(["fspolicy", "can", "fixtures/examples/team-share/policy.yaml", "--as", ""])
        #expect(Set(["alice", "bob", "carol", "dave"]).isSubset(of: Set(users)), "--as completions: \(users)")
        let apps = try complete(["fspolicy", "explain", "fixtures/examples/sandboxed-editor/policy.yaml", "--as", "com."])
        #expect(apps.contains("com.example.Editor") && apps.allSatisfy { $0.hasPrefix("com.") }, "--as completions: \(apps)")
    }

    @Test("scripts/gen-man writes a page per command that groff renders without warnings")
    func manPages() throws {
        guard which("python3") != nil else {
            Issue.record("python3 is needed to run scripts/gen-man")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-man-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try run("/usr/bin/env", ["python3", "scripts/gen-man", "--bin", fspolicyBinary(), "--out", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        let subs = try DocTests.subcommands()
        #expect(Set(pages) == Set(["fspolicy.1"] + subs.map { "fspolicy-\($0).1" }), "pages: \(pages.sorted())")
        guard let groff = which("groff") else {
            Issue.record("groff is needed to render the manual pages (apt-get install groff-base)")
            return
        }
        for p in pages {
            let out = try run(groff, ["-man", "-Tutf8", "-ww", "-z", dir.appendingPathComponent(p).path])
            #expect(out.stderr.isEmpty, "\(p): \(out.stderr)")
        }
    }
}
