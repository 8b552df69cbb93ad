import Foundation

/// The reader of policy files' YAML. It reads the YAML the format allows (docs/policy-format.md,
/// "The YAML the format reads") into a `FastYAMLDocument`, and refuses the rest (tags,
/// directives, a second document, control characters, tabs as indentation, nesting past
/// 1,000 levels…) with a `Refusal`: a line, a column, a code, a message and a hint.
package enum FastYAML {
    /// Why a text cannot be read, and where (1-based line and column, in characters).
    package struct Refusal: Error, Equatable {
        package var line: Int
        package var column: Int
        /// `yaml-syntax`, `tab-indent`, `empty-file` or `alias-limit`.
        package var code: String
        package var message: String
        package var help: String?
    }

    /// A half of a big section could not be read on its own (it began inside something, or
    /// met an alias): the text is read again without halves.
    package struct SplitFailed: Error {}

    /// The document nests deeper than the caller's stack safely holds: it is read again on a
    /// thread of its own (`deepStackBytes`).
    package struct NeedsDeepStack: Error {}
    package static let deepStackBytes = 512 << 20

    /// A top-level section (the block collection under a key of the document's mapping) longer
    /// than this many bytes is read in two halves, the second on a thread of its own.
    package static let defaultSplitBytes = 4 << 20

    /// The document, or nil when the text is refused (`parse` says why).
    package static func read(_ text: String, file: String, splitBytes: Int = defaultSplitBytes, entryShortcut: Bool = true) -> FastYAMLDocument? {
        try? parse(text, file: file, splitBytes: splitBytes, entryShortcut: entryShortcut).get()
    }

    package static func parse(_ text: String, file: String, splitBytes: Int = defaultSplitBytes, entryShortcut: Bool = true) -> Result<
        FastYAMLDocument, Refusal
    > {
        var text = text
        if text.utf8.count >= Int(Int32.max) {
            return .failure(
                Refusal(
                    line: 1, column: 1, code: "yaml-syntax", message: "the file is larger than 2 GiB",
                    help: "split the policy into files of their own and `import:` them"))
        }
        var ascii = text.withUTF8 { acceptableBytes($0) }
        if ascii == nil {
            // Line breaks as YAML reads them (CRLF and a lone CR are one break each), no
            // byte-order mark; then every character looked at.
            if text.utf8.contains(0x0D) { text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") }
            if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
            switch text.withUTF8({ characters($0) }) {
            case .success(let a): ascii = a
            case .failure(let r): return .failure(r)
            }
        }
        var result = read(text, file: file, ascii: ascii!, splitBytes: splitBytes, entryShortcut: entryShortcut)
        if case .failure(let e) = result, e is SplitFailed {
            result = read(text, file: file, ascii: ascii!, splitBytes: Int.max, entryShortcut: entryShortcut)
        }
        if case .failure(let e) = result, e is NeedsDeepStack {
            let box = ResultBox()
            let done = DispatchSemaphore(value: 0)
            let isASCII = ascii!
            let t = Thread { [text] in
                box.result = read(text, file: file, ascii: isASCII, splitBytes: Int.max, entryShortcut: entryShortcut, stackBudget: deepStackBytes / 2)
                done.signal()
            }
            t.stackSize = deepStackBytes
            t.start()
            done.wait()
            result = box.result ?? .failure(SplitFailed())
        }
        switch result {
        case .success(let d): return .success(d)
        case .failure(let e as Refusal): return .failure(e)
        case .failure: return .failure(Refusal(line: 1, column: 1, code: "yaml-syntax", message: "YAML syntax error", help: nil))
        }
    }

    private final class ResultBox: @unchecked Sendable { var result: Result<FastYAMLDocument, Error>? }

    private static func read(
        _ text: String, file: String, ascii: Bool, splitBytes: Int, entryShortcut: Bool,
        stackBudget: Int = 256 << 10
    ) -> Result<FastYAMLDocument, Error> {
        var text = text
        let doc = FastYAMLDocument(text: text, file: file)
        return text.withUTF8 { buf -> Result<FastYAMLDocument, Error> in
            var p = FastYAMLParser(buf: buf, doc: doc)
            p.ascii = ascii
            p.splitBytes = splitBytes
            p.entryShortcut = entryShortcut
            p.stackBudget = stackBudget
            p.nodes.reserveCapacity(buf.count / 6)
            p.children.reserveCapacity(buf.count / 6)
            do {
                try p.document()
                doc.nodes = p.nodes
                doc.children = p.children
                doc.unescaped = p.unescaped
                doc.duplicates = p.duplicates
                doc.splitSections = p.splitSections
                doc.quickEntries = p.quickEntries
                doc.folded = Set(p.folded)
                doc.aliases = p.aliases
                if p.aliases > 0 {
                    let limit = YAMLLimits.expandedNodes(bytes: buf.count)
                    if doc.expandedNodeCount(limit: limit) == nil {
                        let (l, c) = place(of: p.firstAlias, in: buf)
                        return .failure(
                            Refusal(
                                line: l, column: c, code: "alias-limit",
                                message: "YAML aliases expand the document beyond the limit of \(limit) nodes",
                                help: "the limit is 10,000 plus twice the file's size in bytes; write the entries out instead of nesting aliases"))
                    }
                }
                return .success(doc)
            } catch { return .failure(error) }
        }
    }

    /// Line and column (1-based, in characters) of byte `k` of `buf` (the end of the text
    /// when `k` is past it). For refusals and the rare node placed after the fact.
    package static func place(of k: Int, in buf: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        let k = min(max(k, 0), buf.count)
        var line = 1, start = 0
        if let base = buf.baseAddress {
            var j = 0
            while j < k, let nl = memchr(base + j, 0x0A, k - j) {
                let at = UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base
                line += 1
                start = at + 1
                j = at + 1
            }
        }
        var column = 1
        for j in start..<k where buf[j] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }

    /// Every character of a text that `acceptableBytes` did not pass: tabs are let through (the
    /// reader refuses them as indentation), every other control character, DEL, the C1 controls,
    /// the line and paragraph separators, a byte-order mark after the start, U+FFFE and U+FFFF
    /// are refused where they are. Returns whether the text is all ASCII.
    package static func characters(_ buf: UnsafeBufferPointer<UInt8>) -> Result<Bool, Refusal> {
        var ascii = true
        var k = 0
        func refuse(_ k: Int, _ v: UInt32) -> Result<Bool, Refusal> {
            let (l, c) = place(of: k, in: buf)
            let hex = String(v, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            if v < 0x20 || (0x7F...0x9F).contains(v) {
                return .failure(
                    Refusal(
                        line: l, column: c, code: "yaml-syntax", message: "cannot read the file: control characters are not allowed (\(code))",
                        help: "policy files are UTF-8 text; write a control character in a name as `\\ooo` (e.g. `\\011` for a tab)"))
            }
            return .failure(
                Refusal(
                    line: l, column: c, code: "yaml-syntax", message: "cannot read the file: the character \(code) is not allowed in a policy file",
                    help: "write it as an escape in a double-quoted value (`\"\\u\(hex)\"`)"))
        }
        while k < buf.count {
            let b = buf[k]
            if b < 0x80 {
                if (b < 0x20 && b != 0x0A && b != 0x09) || b == 0x7F { return refuse(k, UInt32(b)) }
                k += 1
                continue
            }
            ascii = false
            if b == 0xC2, k + 1 < buf.count, buf[k + 1] < 0xA0 { return refuse(k, UInt32(buf[k + 1])) }
            if b == 0xE2, k + 2 < buf.count, buf[k + 1] == 0x80, buf[k + 2] == 0xA8 || buf[k + 2] == 0xA9 {
                return refuse(k, 0x2000 + UInt32(buf[k + 2] - 0x80))
            }
            if b == 0xEF, k + 2 < buf.count, buf[k + 1] == 0xBB && buf[k + 2] == 0xBF { return refuse(k, 0xFEFF) }
            if b == 0xEF, k + 2 < buf.count, buf[k + 1] == 0xBF && buf[k + 2] >= 0xBE { return refuse(k, 0xFFC0 + UInt32(buf[k + 2] - 0x80)) }
            k += 1
        }
        return .success(ascii)
    }

    /// No byte or character outside the quick check: controls other than the line feed (tabs
    /// and carriage returns included), DEL, C1 controls (U+0085 among them), the line and
    /// paragraph separators, the byte-order mark, U+FFFE and U+FFFF. Returns nil when there is
    /// one (`characters` then looks closer), else whether the text is all ASCII.
    /// A big text is looked at in parts, one a thread.
    /// (`parts`: how many, for the tests.)
    package static func acceptableBytes(_ buf: UnsafeBufferPointer<UInt8>, parts asked: Int? = nil) -> Bool? {
        let parts = SWAR.parts(ofBytes: buf.count, asked: asked)
        if parts == 1 { return acceptableBytes(buf, from: 0, to: buf.count) }
        let job = AcceptJob(buf: buf, parts: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { job.run($0) }
        return job.result
    }

    /// `acceptableBytes` of the parts of a text, `run(k)` the `k`-th.
    package final class AcceptJob: @unchecked Sendable {
        package let buf: UnsafeBufferPointer<UInt8>, parts: Int
        /// 0: acceptable and ASCII; 1: acceptable, not all ASCII; 2: not acceptable.
        package let results: UnsafeMutableBufferPointer<UInt8>
        package init(buf: UnsafeBufferPointer<UInt8>, parts: Int) {
            self.buf = buf; self.parts = parts
            results = .allocate(capacity: parts)
            results.initialize(repeating: 2)
        }
        deinit { results.deallocate() }
        package func run(_ k: Int) {
            let r = FastYAML.acceptableBytes(buf, from: buf.count * k / parts, to: buf.count * (k + 1) / parts)
            results[k] = r == nil ? 2 : r! ? 0 : 1
        }
        package var result: Bool? { results.contains(2) ? nil : !results.contains(1) }
    }

    /// The same for the characters that start in `from..<to` (one may end past `to`; a part
    /// that starts inside a character takes its bytes as not ASCII, which the text is not).
    package static func acceptableBytes(_ buf: UnsafeBufferPointer<UInt8>, from: Int, to n: Int) -> Bool? {
        guard let base = UnsafeRawPointer(buf.baseAddress) else { return true }
        var i = from
        var ascii = true
        while i < n {
            // Eight bytes at a time while they are printable ASCII or line feeds (no byte of
            // 0x80 or more, below 0x20 but a line feed, or equal to 0x7F: exact tests).
            while i + 8 <= n {
                if SWAR.notLineASCII(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { break }
                i += 8
            }
            // Then the next eight (a line feed, a non-ASCII character) one by one.
            let stop = min(n, i + 8)
            while i < stop {
                let b = buf[i]
                if b < 0x80 {
                    if (b < 0x20 && b != 0x0A) || b == 0x7F { return nil }
                    i += 1
                    continue
                }
                ascii = false
                let end = buf.count
                if b == 0xC2, i + 1 < end, buf[i + 1] < 0xA0 { return nil }
                if b == 0xE2, i + 2 < end, buf[i + 1] == 0x80, buf[i + 2] == 0xA8 || buf[i + 2] == 0xA9 { return nil }
                if b == 0xEF, i + 2 < end, (buf[i + 1] == 0xBB && buf[i + 2] == 0xBF) || (buf[i + 1] == 0xBF && buf[i + 2] >= 0xBE) { return nil }
                i += 1
            }
        }
        return ascii
    }
}
