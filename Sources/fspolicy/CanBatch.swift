import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
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
    /// Whether common questions take the byte-level way: text questions (a JSON line is read
    /// as a whole).
    let fast: Bool

    init(policy: Policy, evaluator: Evaluator, after: Int?, jsonl: Bool, inputName: String) {
        self.policy = policy
        self.evaluator = evaluator
        self.after = after
        self.jsonl = jsonl
        self.inputName = inputName
        self.resolver = RequestResolver(policy: policy)
        self.fast = !jsonl
    }

    /// Answers every question read from the file descriptor `fd`; returns how many lines were
    /// errors. The answers are handed to `emit` in pieces: before each read of more questions
    /// (so the answers to what has been read go out before waiting for more), when 64 KiB are
    /// pending, and after every answer when `flushEach`. `emit`'s second argument says whether
    /// the piece holds only answers of the common way (`allow` and `deny` lines: ASCII letters,
    /// digits, `.`, `-`, `_`, tabs and newlines, which the terminal escaping leaves as they are).
    ///
    /// The common text question — a subject already answered once, an operation that needs only
    /// its path and a path in canonical form, nothing else on the line — is read straight from
    /// the bytes and decided with what earlier lines prepared; every other line takes
    /// `question(_:)`, whose answers are the same (BatchTests holds both to `can`'s answers).
    ///
    /// What it earns: 1,000,000 text questions on a 10,000-node tree (the shape of
    /// `scripts/bench-growth --only batch`) in 0.35 s against 1.85 s with every line read by
    /// `question(_:)`, 5.3× (CPU 0.31 against 1.72 s; 2026-11-29, medians of 3).
    func run(fd: Int32, emit: ([UInt8], Bool) throws -> Void, flushEach: Bool) throws -> Int {
        var state = FastState(authorizer: evaluator.authorizer(after: after))
        var errors = 0
        var lineNo = 0
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        var plain = true
        var buf = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 18)
        defer { buf.deallocate() }
        var start = 0, end = 0, eof = false
        while true {
            let base = buf.baseAddress!
            var lineEnd = end
            if end > start, let nl = memchr(base + start, 0x0A, end - start) {
                lineEnd = nl.assumingMemoryBound(to: UInt8.self) - base
            } else if !eof {
                // No whole line left: send the answers so far, then read more.
                if !out.isEmpty { try emit(out, plain); out.removeAll(keepingCapacity: true); plain = true }
                if start > 0 {
                    if end > start { memmove(buf.baseAddress!, buf.baseAddress! + start, end - start) }
                    end -= start; start = 0
                }
                if end == buf.count {
                    let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buf.count * 2)
                    _ = bigger.initialize(from: buf)
                    buf.deallocate()
                    buf = bigger
                }
                let n = read(fd, buf.baseAddress! + end, buf.count - end)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { eof = true } else { end += n }
                continue
            } else if start == end {
                break
            }
            let next = lineEnd < end ? lineEnd + 1 : end
            lineNo += 1
            var bytes = UnsafeBufferPointer(rebasing: buf[start..<lineEnd])
            start = next
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
            var k = 0
            while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x09 { k += 1 }
            if k == bytes.count || bytes[k] == 0x23 { continue }
            if !fast || !answerFast(bytes, state: &state, into: &out) {
                errors += answerSlowly(bytes, lineNo: lineNo, state: &state, into: &out)
                plain = false
            }
            if flushEach || out.count >= 1 << 16 { try emit(out, plain); out.removeAll(keepingCapacity: true); plain = true }
        }
        if !out.isEmpty { try emit(out, plain) }
        return errors
    }

    /// What the common questions need, prepared by earlier lines.
    struct FastState {
        /// Decides every common question.
        let authorizer: Authorizer
        /// Subjects by the bytes of their `as` field: an open-addressing table of indices into
        /// `hashes` (FNV-1a), `whoBytes` and `requests`, -1 for a free slot, at most half full.
        var slots = [Int32](repeating: -1, count: 64)
        var hashes: [UInt64] = []
        var whoBytes: [[UInt8]] = []
        /// The request each subject makes; a question sets its operation and path in place.
        var requests: [Request] = []
        /// Operation words seen (their first eight bytes as a number, zeros after a shorter
        /// word, and all their bytes) and the operation a plain question may ask (nil: not one).
        var ops: [(head: UInt64, bytes: [UInt8], op: FSPolicy.Operation?)] = []
        /// The subject whose `as` field has the hash `h`, if one was recorded.
        func subject(_ h: UInt64) -> Int? {
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h) & mask
            while true {
                let e = Int(slots[i])
                if e < 0 { return nil }
                if hashes[e] == h { return e }
                i = (i + 1) & mask
            }
        }

        /// Records a subject's `as` bytes (whose hash is `h`, not yet recorded) and request.
        mutating func add(_ h: UInt64, _ who: [UInt8], _ request: Request) {
            if (hashes.count + 1) * 2 > slots.count {
                slots = [Int32](repeating: -1, count: slots.count * 2)
                let all = hashes
                hashes = []
                for x in all { place(x) }
            }
            place(h)
            whoBytes.append(who)
            requests.append(request)
        }

        private mutating func place(_ h: UInt64) {
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(hashes.count)
            hashes.append(h)
        }

        /// The text of each denial seen, newline included.
        var denials: [(errno: Errno?, layer: Layer, rule: RuleID, text: [UInt8])] = []
        /// The credential of each subject, as `question(_:)` resolves them.
        var credentials: [SubjectRef: Credential] = [:]
    }

    static func hash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        FNV1a.hash(b)
    }

    static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { memcmp($0.baseAddress!, b.baseAddress!, b.count) == 0 }
    }

    /// Answers a common question (see `run`); false, with nothing written, for any other line.
    func answerFast(_ line: UnsafeBufferPointer<UInt8>, state: inout FastState, into out: inout [UInt8]) -> Bool {
        // The two tabs, a few bytes in, found byte by byte (cheaper than calls to `memchr` for so
        // short a way); a third field (a tab in what follows) fails `isPlainPath` below.
        let n = line.count
        var t1 = 0
        while t1 < n && line[t1] != 0x09 { t1 += 1 }
        guard t1 < n else { return false }
        var t2 = t1 + 1
        while t2 < n && line[t2] != 0x09 { t2 += 1 }
        guard t2 < n else { return false }
        let who = UnsafeBufferPointer(rebasing: line[0..<t1])
        let word = UnsafeBufferPointer(rebasing: line[(t1 + 1)..<t2])
        let path = UnsafeBufferPointer(rebasing: line[(t2 + 1)...])
        guard let s = state.subject(BatchAsker.hash(who)), BatchAsker.equal(state.whoBytes[s], who) else { return false }
        var head: UInt64 = 0
        for k in 0..<min(word.count, 8) { head |= UInt64(word[k]) << (UInt64(k) &* 8) }
        var op: FSPolicy.Operation? = nil
        var known = false
        for e in state.ops where e.head == head && e.bytes.count == word.count && (word.count <= 8 || BatchAsker.equal(e.bytes, word)) {
            op = e.op
            known = true
            break
        }
        if !known && state.ops.count < 64 {
            op = RequestResolver.plainOperation(String(decoding: word, as: UTF8.self))
            state.ops.append((head, Array(word), op))
        }
        guard let op, RequestResolver.isPlainPath(path) else { return false }
        // What `evaluator.decide(RequestSpec(op: op, path: path), credential:, after:)` decides.
        state.requests[s].op = op
        let d: Decision
        if let quick = state.authorizer.decide(inPlace: &state.requests[s], pathBytes: path) {
            // An existing node the path index finds: decided from the bytes, no string made.
            d = quick
        } else {
            state.requests[s].path = String(decoding: path, as: UTF8.self)
            d = state.authorizer.decide(inPlace: &state.requests[s])
        }
        if d.allowed {
            out.append(contentsOf: BatchAnswer.allowLine)
        } else if let i = state.denials.firstIndex(where: { $0.errno == d.errno && $0.layer == d.layer && $0.rule == d.rule }) {
            out.append(contentsOf: state.denials[i].text)
        } else {
            let text = Array((BatchAnswer.line(d, jsonl: jsonl, line: 0) + "\n").utf8)
            state.denials.append((d.errno, d.layer, d.rule, text))
            out.append(contentsOf: text)
        }
        return true
    }

    /// Answers any line through `question(_:)`; returns 1 if the line is an error, else 0.
    func answerSlowly(_ bytes: UnsafeBufferPointer<UInt8>, lineNo: Int, state: inout FastState, into out: inout [UInt8]) -> Int {
        // A byte that is not UTF-8 is `\ooo`, as in the tree's names (not U+FFFD, which named another path).
        let line = String(validating: bytes, as: UTF8.self) ?? RawArguments.escapingInvalidUTF8(Array(bytes))
        var errors = 0
        let answer: String
        switch question(line) {
        case .failure(let message):
            errors += 1
            printError("\(inputName):\(lineNo): error: \(message)")
            answer = BatchAnswer.error(message, jsonl: jsonl, line: lineNo)
        case .success(let (subject, spec)):
            if let c = state.credentials[subject] ?? evaluator.credential(subject, after: after) {
                state.credentials[subject] = c
                answer = BatchAnswer.line(evaluator.decide(spec, credential: c, after: after), jsonl: jsonl, line: lineNo)
                if fast, let tab = bytes.firstIndex(of: 0x09) {
                    // The subject is known now: its next questions may take the common way.
                    let who = UnsafeBufferPointer(rebasing: bytes[..<tab])
                    let h = BatchAsker.hash(who)
                    if state.subject(h) == nil, Array(String(decoding: who, as: UTF8.self).utf8).elementsEqual(who) {
                        state.add(h, Array(who), evaluator.request(RequestSpec(op: .read, path: "/"), credential: c))
                    }
                }
            } else {
                errors += 1
                let message = "unknown subject"
                printError("\(inputName):\(lineNo): error: \(message)")
                answer = BatchAnswer.error(message, jsonl: jsonl, line: lineNo)
            }
        }
        out.append(contentsOf: answer.utf8)
        out.append(0x0A)
        return errors
    }

    enum Parsed { case success((SubjectRef, RequestSpec)), failure(String) }

    func question(_ line: String) -> Parsed {
        let req: CommandLineRequest
        if jsonl {
            guard let data = line.data(using: .utf8),
                let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else {
                return .failure("not a JSON object")
            }
            let known: Set<String> = ["as", "op", "path", "to", "mode", "owner", "group", "flags", "acl", "atime", "mtime", "type"]
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
            for k in ["as", "op", "path", "to", "mode", "owner", "group", "atime", "mtime", "type"] where str(k) == nil {
                return .failure("`\(k)` must be a string")
            }
            for k in ["flags", "acl"] where list(k) == nil { return .failure("`\(k)` must be a list of strings") }
            guard let who = str("as")!, let op = str("op")!, let path = str("path")! else {
                return .failure("a question needs `as`, `op` and `path`")
            }
            var full = CommandLineRequest(
                asText: who, op: op, path: path, to: str("to")!, mode: str("mode")!, owner: str("owner")!,
                group: str("group")!, flags: list("flags")! ?? (op == "chflags" ? [] : nil),
                acl: list("acl")! ?? (op == "setacl" ? [] : nil))
            full.atime = str("atime")!
            full.mtime = str("mtime")!
            full.type = str("type")!
            req = full
        } else {
            // A tab is a control character: it is always a character of its own, so splitting the
            // bytes is splitting the text.
            let f = line.utf8.split(separator: 0x09, omittingEmptySubsequences: false).map { String(Substring($0)) }
            guard f.count >= 3 else { return .failure("a question is `as<TAB>op<TAB>path`, then what the op needs") }
            let (who, op, path) = (f[0], f[1], f[2])
            let rest = Array(f.dropFirst(3))
            var r = CommandLineRequest(asText: who, op: op, path: path)
            switch op {
            case "rename", "link", "symlink":
                guard rest.count == 1 else { return .failure("`\(op)` takes \(op == "symlink" ? "the link's target" : "the new path") as a fourth field") }
                r.to = rest[0]
            case "chmod", "lchmod", "create", "mkdir", "mkfifo", "mknod":
                let needsMode = op == "chmod" || op == "lchmod"
                guard rest.count <= 1, !needsMode || rest.count == 1 else { return .failure("`\(op)` takes the mode as a fourth field") }
                r.mode = rest.first
            case "chown", "lchown":
                // The owner, then optionally the group; `-1` for either is no change.
                guard rest.count == 1 || rest.count == 2 else {
                    return .failure("`\(op)` takes the new owner (and group) as fourth (and fifth) fields, -1 for no change")
                }
                r.owner = rest[0]
                if rest.count == 2 { r.group = rest[1] }
            case "chgrp":
                guard rest.count == 1 else { return .failure("`chgrp` takes the new group as a fourth field") }
                r.group = rest[0]
            case "chflags":
                guard rest.count == 1 else { return .failure("`chflags` takes the complete new flag set as a fourth field (`-` for none)") }
                r.flags = rest[0] == "-" ? [] : rest[0].split(separator: ",").map(String.init)
            case "open":
                guard rest.count <= 1 else { return .failure("`open` takes its flags as a fourth field, e.g. `O_RDONLY|O_TRUNC`") }
                r.flags = rest.first.map { $0.split(whereSeparator: { $0 == "|" || $0 == "," }).map(String.init) }
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
