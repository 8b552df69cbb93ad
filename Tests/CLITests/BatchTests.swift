import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Foundation
import Testing

/// `fspolicy can --batch`: the answers equal `can`'s, question by question.
@Suite("can --batch")
struct BatchTests {
    static let ops: [[String]] = [
        ["read"], ["write"], ["execute"], ["stat"], ["list"], ["search"], ["delete"], ["append"],
        ["readattr"], ["readsecurity"], ["create"], ["mkdir", "0750"], ["chmod", "0600"], ["chown", "root"],
        ["chflags", "-"], ["setacl"], ["rename", "/tmp-renamed"]
    ]

    /// What `can` decides for one question (the same resolution and decision as the command).
    static func canAnswer(_ fields: [String], policy: Policy, evaluator: Evaluator) -> String {
        var r = CommandLineRequest(asText: fields[0], op: fields[1], path: fields[2])
        switch fields[1] {
        case "mkdir", "chmod": r.mode = fields[3]
        case "chown": r.owner = fields[3]
        case "rename": r.to = fields[3]
        case "chflags": r.flags = []
        case "setacl": r.acl = []
        default: break
        }
        guard case .success(let (subject?, spec)) = r.resolve(in: policy), let d = evaluator.decide(spec, subject: subject) else {
            return "error"
        }
        return d.allowed ? "allow" : "\(d.unknown ? "unknown" : "deny")\t\(d.errno?.rawValue ?? "-")\t\(d.layer.rawValue)\t\(d.rule.rawValue)"
    }

    @Test("every bundled example: each user × 17 operations × up to 40 paths, answered alike by can and can --batch")
    func batchEqualsCan() throws {
        let examples = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("fixtures/examples").path).sorted()
        var compared = 0
        for ex in examples {
            let file = "fixtures/examples/\(ex)/policy.yaml"
            guard FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(file).path) else { continue }
            let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
            guard !p.diagnostics.hasErrors else { continue }
            let ev = Evaluator(policy: p)
            let paths = (0..<min(p.world.nodeCount, 40)).map { p.world.path(of: NodeID($0)) }
            var questions: [[String]] = []
            for u in p.userOrder { for op in BatchTests.ops { for path in paths { questions.append([u, op[0], path] + op.dropFirst()) } } }
            questions.append(["nobody-such", "read", "/"])
            questions.append(["", "read", "/"])
            let input = questions.map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n"
            let r = try run(fspolicyBinary(), ["can", file, "--batch", "-"], stdin: input)
            #expect(!r.crashed)
            let got = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.hasPrefix("error\t") ? "error" : String($0) }
            let want = questions.map { BatchTests.canAnswer($0, policy: p, evaluator: ev) }
            #expect(got.count == want.count, "\(file): \(got.count) answers for \(want.count) questions")
            for (i, (g, w)) in zip(got, want).enumerated() where g != w {
                Issue.record("\(file): question \(i + 1) `\(questions[i].joined(separator: " "))`: batch says \(g), can says \(w)")
            }
            #expect(r.status == 3, "an error line makes the exit code 3")
            #expect(r.stderr.contains("<stdin>:\(questions.count - 1): error: unknown user or app `nobody-such`"))
            #expect(r.stderr.contains("<stdin>:\(questions.count): error: the question names no one to ask as (its user is empty)"), "\(r.stderr.suffix(300))")
            compared += questions.count
        }
        #expect(compared > 5_000)
    }

    @Test("the command itself: a few questions through `can` as a process give the batch's answers")
    func processesAgree() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        let questions = [
            ["alice", "read", "/Shared/Design/brief.txt"], ["carol", "write", "/Shared/Design/logo.svg"],
            ["dave", "delete", "/Shared/Dropbox/bob-notes.txt"], ["bob", "chmod", "/Shared/Design", "0700"]
        ]
        let batch = try run(fspolicyBinary(), ["can", file, "--batch", "-"], stdin: questions.map { $0.joined(separator: "\t") }.joined(separator: "\n"))
        let lines = batch.stdout.split(separator: "\n").map(String.init)
        #expect(batch.status == 0 && lines.count == questions.count)
        for (q, line) in zip(questions, lines) {
            var args = ["can", file, "--as", q[0], "--op", q[1], q[2], "--format", "json"]
            if q[1] == "chmod" { args += ["--mode", q[3]] }
            let one = try run(fspolicyBinary(), args)
            #expect(one.status == (line == "allow" ? 0 : 2))
            let j = try #require(JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any])
            if line != "allow" {
                let f = line.split(separator: "\t").map(String.init)
                #expect(j["errno"] as? String == f[1] && j["layer"] as? String == f[2] && j["rule"] as? String == f[3], "\(j)")
            }
        }
    }

    @Test("JSON Lines in and out; bad lines answered with an error and the rest continue; comments and blanks skipped")
    func jsonl() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        let input = """
            {"as": "alice", "op": "read", "path": "/Shared/Design/brief.txt"}
            # a comment

            {"as": "carol", "op": "write", "path": "/Shared/Design/logo.svg"}
            [1, 2]
            {"as": "alice", "op": "read", "path": "/Shared/Design/brief.txt", "colour": "red"}
            {"as": "alice", "op": "rename", "path": "/Shared/Dropbox/bob-notes.txt", "to": "/Shared/notes.txt"}
            """
        let r = try run(fspolicyBinary(), ["can", file, "--batch", "-", "--format", "jsonl"], stdin: input)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        let objs = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objs.count == 5)
        #expect(objs.map { $0["line"] as? Int } == [1, 4, 5, 6, 7])
        #expect(objs[0]["answer"] as? String == "allow")
        #expect(objs[1]["answer"] as? String == "deny" && objs[1]["errno"] as? String == "EACCES")
        #expect(objs[2]["error"] != nil && objs[3]["error"] != nil)
        #expect(objs[4]["answer"] != nil)
        #expect(r.stderr.contains("<stdin>:6: error: unknown key `colour`"))
        #expect(r.status == 3)
    }

    @Test("--batch refuses --as, --op and a path; can without --batch still needs them")
    func usage() throws {
        let file = "fixtures/examples/team-share/policy.yaml"
        #expect(try run(fspolicyBinary(), ["can", file, "--batch", "-", "--as", "alice"], stdin: "").status == 64)
        #expect(try run(fspolicyBinary(), ["can", file, "--op", "read", "/x"]).status == 64)
        #expect(try run(fspolicyBinary(), ["can", file, "--as", "alice", "/x"]).status == 64)
        #expect(try run(fspolicyBinary(), ["check", file, "--format", "jsonl"]).status == 64)
        #expect(try run(fspolicyBinary(), ["who", file, "--op", "read", "/x", "--format", "jsonl"]).status == 64)
    }

    /// Questions of every kind, common and odd, in a fixed pseudo-random order: known and unknown
    /// subjects, every operation with and without its extra field, paths in canonical and other
    /// spellings, comments, blanks, CRLF, stray tabs and spaces, unicode, invalid UTF-8, a line
    /// longer than the reading buffer, and no newline after the last line.
    static func oddQuestions(users: [String], paths: [String], count: Int) -> [UInt8] {
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let ops = [
            "read", "write", "execute", "stat", "list", "search", "delete", "append", "readattr", "readsecurity",
            "create", "mkdir", "chmod", "chown", "chgrp", "chflags", "setacl", "rename", "link", "READ", "frobnicate", ""
        ]
        let who = users + ["nobody-such", "", " \(users[0])", "\(users[0]) ", "0", "ü", "app:com.example.none"]
        var out: [UInt8] = []
        for k in 0..<count {
            let p = paths[next(paths.count)]
            let path: String
            switch next(12) {
            case 0: path = p + "/"
            case 1: path = p.replacingOccurrences(of: "/", with: "//")
            case 2: path = p + "/./x"
            case 3: path = p + "/.."
            case 4: path = "relative" + p
            case 5: path = p + "/é-ü"
            case 6: path = ""
            default: path = p
            }
            let u = who[next(who.count)], op = ops[next(ops.count)]
            var fields = [u, op, path]
            switch next(6) {
            case 0: fields.append(["0700", "root", "wheel", "-", "uchg,hidden", "/new-name", "user:alice allow read"][next(7)])
            case 1: fields += ["a", "b"]
            default: break
            }
            var line = Array(fields.joined(separator: "\t").utf8)
            switch next(40) {
            case 0: line = Array("# a comment \(k)".utf8)
            case 1: line = []
            case 2: line = Array("   ".utf8)
            case 3: line = Array(" \t# indented comment".utf8)
            case 4: line += [0x0D]
            case 5: line += [0xFF, 0xFE]
            case 6: line.insert(0x80, at: 0)
            case 7: line += [0x0D, 0x0D]
            case 8: line = Array("\t\t".utf8)
            case 9: line += [0x09]
            default: break
            }
            out += line
            out.append(0x0A)
            if k == count / 2 { out += Array("\(users[0])\tread\t/\(String(repeating: "a/", count: 200_000))b\n".utf8) }
        }
        out += Array("\(users[0])\tread\t/".utf8)
        return out
    }

    @Test("odd lines: one answer a question line, in order, the common ones equal to can's; --output gets the same")
    func oddLines() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: dir) }
        var compared = 0
        for ex in ["team-share", "flags", "sandboxed-editor", "linux-default-acl"] {
            let file = "fixtures/examples/\(ex)/policy.yaml"
            guard FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(file).path) else { continue }
            let p = PolicyLoader.load(path: packageRoot.appendingPathComponent(file).path)
            guard !p.diagnostics.hasErrors else { continue }
            let ev = Evaluator(policy: p)
            let paths = (0..<p.world.nodeCount).map { p.world.path(of: NodeID($0)) }
            let input = dir.appendingPathComponent("\(ex).txt")
            let bytes = BatchTests.oddQuestions(users: p.userOrder + p.appIDs, paths: paths, count: 3_000)
            try Data(bytes).write(to: input)
            let r = try run(fspolicyBinary(), ["can", file, "--batch", input.path])
            #expect(!r.crashed)
            #expect(r.status == 3)
            // The question lines: not blank, not a comment (as the batch skips them).
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
            if lines.last?.isEmpty == true { lines.removeLast() }
            let questions = lines.filter { l in
                var t = l
                while let last = t.last, last == 0x0A || last == 0x0D { t.removeLast() }
                guard let first = t.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return false }
                return t[first] != 0x23
            }
            let answers = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(answers.count == questions.count, "\(file): \(answers.count) answers for \(questions.count) questions")
            // Each well-formed common question (a known subject, an op needing only its path, a
            // path) is answered as `can` answers it; error lines are reported on
            // standard error.
            var common = 0
            for (q, a) in zip(questions, answers) {
                guard let text = String(validating: q, as: UTF8.self) else { continue }
                let f = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard f.count == 3, !f[2].hasSuffix("\r"), (p.userOrder + p.appIDs).contains(f[0]),
                    ["read", "write", "execute", "stat", "list", "search"].contains(f[1])
                else { continue }
                #expect((a.hasPrefix("error\t") ? "error" : String(a)) == BatchTests.canAnswer(f, policy: p, evaluator: ev), "\(file): `\(text)`")
                common += 1
            }
            #expect(common > 100, "\(file)")
            #expect(r.stderr.contains(": error: "))
            // --output: the same answers, written to the file at the end.
            let outFile = dir.appendingPathComponent("\(ex).out")
            let toFile = try run(fspolicyBinary(), ["can", file, "--batch", input.path, "--output", outFile.path])
            #expect(toFile.status == 3 && toFile.stdout.isEmpty)
            #expect(String(decoding: try Data(contentsOf: outFile), as: UTF8.self) == r.stdout)
            #expect(answers.filter { $0 == "allow" || $0.hasPrefix("deny\t") }.count > 200, "\(file)")
            compared += answers.count
        }
        #expect(compared > 9_000)
    }

    @Test("streaming: through a pipe, the answer to the first question comes out before the second question is written")
    func answersStream() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: fspolicyBinary())
        p.arguments = ["can", "fixtures/examples/team-share/policy.yaml", "--batch", "-"]
        p.currentDirectoryURL = packageRoot
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data("alice\tread\t/Shared/Design/brief.txt\n".utf8))
        // Wait for the first answer with the input still open; a program that waited for more
        // input would never answer, so give up (and stop it) after a minute instead of hanging.
        let got = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var first = Data()
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            while !first.contains(0x0A) {
                let d = reader.availableData
                if d.isEmpty { break }
                first.append(d)
            }
            got.signal()
        }
        let answered = got.wait(timeout: .now() + 60) == .success
        if !answered { p.terminate() }
        #expect(answered, "no answer to the first question while the input stayed open")
        input.fileHandleForWriting.write(Data("carol\twrite\t/Shared/Design/brief.txt\n".utf8))
        try input.fileHandleForWriting.close()
        if answered { first.append(reader.readDataToEndOfFile()) }
        p.waitUntilExit()
        if answered {
            #expect(String(decoding: first, as: UTF8.self) == "allow\ndeny\tEACCES\tacl\tacl.deny-matched\n")
            #expect(p.terminationStatus == 0)
        }
    }
}
