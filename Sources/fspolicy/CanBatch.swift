import ArgumentParser
import FSPolicy
import FSPolicyFormat
import Foundation

/// `fspolicy can POLICY --batch FILE|-`: one question a line, one answer a line, in order.
///
/// Text questions are tab-separated: `as`, `op`, `path`, then what the op needs — `to` (rename,
/// link), `mode` (chmod; optional for create, mkdir), `owner` (chown), `group` (chgrp), the flag
/// set (chflags: comma-separated, `-` for none) or one ACE per field (setacl; none: an empty ACL).
/// Blank lines and lines starting with `#` are skipped. Answers: `allow`, or
/// `deny<TAB>ERRNO<TAB>layer<TAB>rule`, or `error<TAB>message` for a line that is not a valid
/// question (also reported on standard error with its line number); the rest continue.
/// With `--format jsonl`, each question is a JSON object with the same keys as an expectation
/// (`as`, `op`, `path`, `to`, `mode`, `owner`, `group`, `flags`, `acl`) and each answer a JSON
/// object on one line.
struct BatchAsker {
    let policy: Policy
    let evaluator: Evaluator
    let after: Int?
    let jsonl: Bool
    let inputName: String
    let resolver: RequestResolver

    init(policy: Policy, evaluator: Evaluator, after: Int?, jsonl: Bool, inputName: String) {
        self.policy = policy
        self.evaluator = evaluator
        self.after = after
        self.jsonl = jsonl
        self.inputName = inputName
        self.resolver = RequestResolver(policy: policy)
    }

    /// Answers every question of `input`; returns how many lines were errors.
    func run(input: UnsafeMutablePointer<FILE>, write: (String) throws -> Void, flush: () throws -> Void, flushEach: Bool) throws -> Int {
        var errors = 0
        var lineNo = 0
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(buffer) }
        var answered = 0
        // The world does not change during a batch: each subject's credential is made once.
        var credentials: [SubjectRef: Credential] = [:]
        while true {
            let n = getline(&buffer, &capacity, input)
            if n < 0 { break }
            lineNo += 1
            var bytes = UnsafeBufferPointer(start: UnsafeRawPointer(buffer!).assumingMemoryBound(to: UInt8.self), count: n)
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
            let line = String(decoding: bytes, as: UTF8.self)
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let answer: String
            switch question(line) {
            case .failure(let message):
                errors += 1
                printError("\(inputName):\(lineNo): error: \(message)")
                answer = jsonl ? "{\"line\": \(lineNo), \"error\": \(JSON.quote(message))}" : "error\t" + message.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
            case .success(let (subject, spec)):
                if let c = credentials[subject] ?? evaluator.credential(subject, after: after) {
                    credentials[subject] = c
                    answer = render(evaluator.decide(spec, credential: c, after: after), line: lineNo)
                } else {
                    errors += 1
                    let message = "unknown subject"
                    printError("\(inputName):\(lineNo): error: \(message)")
                    answer = jsonl ? "{\"line\": \(lineNo), \"error\": \(JSON.quote(message))}" : "error\t" + message
                }
            }
            try write(answer + "\n")
            answered += 1
            if flushEach || answered % 1024 == 0 { try flush() }
        }
        return errors
    }

    func render(_ d: Decision, line: Int) -> String {
        if jsonl {
            if d.allowed { return "{\"line\": \(line), \"answer\": \"allow\"}" }
            return "{\"line\": \(line), \"answer\": \"deny\", \"errno\": \(d.errno.map { JSON.quote($0.rawValue) } ?? "null"), \"layer\": \(JSON.quote(d.layer.rawValue)), \"rule\": \(JSON.quote(d.rule.rawValue))}"
        }
        if d.allowed { return "allow" }
        return "deny\t\(d.errno?.rawValue ?? "-")\t\(d.layer.rawValue)\t\(d.rule.rawValue)"
    }

    enum Parsed { case success((SubjectRef, RequestSpec)), failure(String) }

    func question(_ line: String) -> Parsed {
        let req: CommandLineRequest
        if jsonl {
            guard let data = line.data(using: .utf8),
                  let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return .failure("not a JSON object")
            }
            let known: Set<String> = ["as", "op", "path", "to", "mode", "owner", "group", "flags", "acl"]
            if let bad = obj.keys.sorted().first(where: { !known.contains($0) }) { return .failure("unknown key `\(bad)`") }
            func str(_ k: String) -> String?? {
                guard let v = obj[k] else { return .some(nil) }
                if let s = v as? String { return .some(s) }
                if let n = v as? NSNumber, !(v is Bool) { return .some(n.stringValue) }
                return nil
            }
            func list(_ k: String) -> [String]?? {
                guard let v = obj[k] else { return .some(nil) }
                if let s = v as? String { return .some(s.split(separator: ",").map(String.init)) }
                if let a = v as? [Any], a.allSatisfy({ $0 is String }) { return .some(a as? [String]) }
                return nil
            }
            for k in ["as", "op", "path", "to", "mode", "owner", "group"] where str(k) == nil { return .failure("`\(k)` must be a string") }
            for k in ["flags", "acl"] where list(k) == nil { return .failure("`\(k)` must be a list of strings") }
            guard let who = str("as")!, let op = str("op")!, let path = str("path")! else {
                return .failure("a question needs `as`, `op` and `path`")
            }
            req = CommandLineRequest(asText: who, op: op, path: path, to: str("to")!, mode: str("mode")!, owner: str("owner")!,
                                     group: str("group")!, flags: list("flags")! ?? (op == "chflags" ? [] : nil),
                                     acl: list("acl")! ?? (op == "setacl" ? [] : nil))
        } else {
            // A tab is a control character: it is always a character of its own, so splitting the
            // bytes is splitting the text.
            let f = line.utf8.split(separator: 0x09, omittingEmptySubsequences: false).map { String(Substring($0)) }
            guard f.count >= 3 else { return .failure("a question is `as<TAB>op<TAB>path`, then what the op needs") }
            let (who, op, path) = (f[0], f[1], f[2])
            let rest = Array(f.dropFirst(3))
            var r = CommandLineRequest(asText: who, op: op, path: path)
            switch op {
            case "rename", "link":
                guard rest.count == 1 else { return .failure("`\(op)` takes the new path as a fourth field") }
                r.to = rest[0]
            case "chmod", "create", "mkdir":
                guard rest.count <= 1, op != "chmod" || rest.count == 1 else { return .failure("`\(op)` takes the mode as a fourth field") }
                r.mode = rest.first
            case "chown", "chgrp":
                guard rest.count == 1 else { return .failure("`\(op)` takes the new \(op == "chown" ? "owner" : "group") as a fourth field") }
                if op == "chown" { r.owner = rest[0] } else { r.group = rest[0] }
            case "chflags":
                guard rest.count == 1 else { return .failure("`chflags` takes the complete new flag set as a fourth field (`-` for none)") }
                r.flags = rest[0] == "-" ? [] : rest[0].split(separator: ",").map(String.init)
            case "setacl":
                r.acl = rest
            default:
                guard rest.isEmpty else { return .failure("`\(op)` takes no field after the path") }
            }
            req = r
        }
        switch resolver.resolve(req) {
        case .success(let (subject?, spec)): return .success((subject, spec))
        case .success: return .failure("a question needs `as`")
        case .failure(let e):
            return .failure(e.diagnostics.first.map { $0.message + ($0.help.map { " (help: \($0))" } ?? "") } ?? "not a valid question")
        }
    }
}
