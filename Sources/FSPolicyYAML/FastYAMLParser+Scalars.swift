import Foundation

/// Scalars: plain (over several lines where YAML folds them), single- and double-quoted (the
/// same), and block scalars (`|` literal, `>` folded).
extension FastYAMLParser {
    /// A quoted or plain scalar at `i`. `flow`: inside `{…}`/`[…]`. `key`: a key, which ends
    /// before its `: ` and is on one line.
    package mutating func flowScalar(flow: Bool, key: Bool) throws -> Int32 {
        let b = cur
        if b == 0x22 { return try doubleQuoted() }
        if b == 0x27 { return try singleQuoted() }
        // Indicators and anything that could start something other than a plain scalar.
        switch b {
        case 0x2D, 0x3F, 0x3A:  // `-`, `?`, `:`: a plain scalar when a character of one follows
            let n = at(i + 1)
            if isBlankOrEOL(n) || (flow && Self.isFlowIndicator(n)) {
                if b == 0x2D {
                    throw error(
                        at: i, syntax: "a list item (`- `) cannot start here", help: "quote a value that starts with `- `; start a list on a line of its own")
                }
                throw error(at: i, syntax: "`\(b == 0x3F ? "?" : ":") ` cannot start a value here", help: "quote the value")
            }
        case 0x2C, 0x5B, 0x5D, 0x7B, 0x7D:
            throw error(
                at: i, syntax: "`\(Character(Unicode.Scalar(b)))` cannot start a value here", help: "quote the value, or check the brackets around this place")
        case 0x23, 0x25, 0x40, 0x60:
            throw error(
                at: i, syntax: "`\(Character(Unicode.Scalar(b)))` cannot start a plain value",
                help: "quote the value: characters like `@`, `` ` `` and `%` cannot start a plain YAML value")
        case 0x20, 0x09, 0x0A, 0:
            return try emptyScalar(at: i)
        default: break
        }
        let start = i
        var end = i  // after the last non-blank byte
        // Eight bytes at a time up to the first that might end the scalar (`stopBytes`): the
        // bytes before it never do. From there on, byte by byte.
        if let base = buf.baseAddress {
            while i + 8 <= buf.count {
                let m = Self.stopBytes(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                if m == 0 { i += 8; end = i; continue }
                let k = m.trailingZeroBitCount >> 3
                if k > 0 { i += k; end = i }
                break
            }
        }
        while true {
            let c = cur
            // Bytes that never end a plain scalar: `-./0-9`, and above `:` all but the brackets.
            if (c >= 0x2D && c <= 0x39) || (c > 0x3A && c != 0x5B && c != 0x5D && c != 0x7B && c != 0x7D) {
                end = i + 1
                i += 1
                continue
            }
            if c == 0x0A || i >= buf.count { break }
            if c == 0x3A {
                // `: ` ends it (the key's `:`, or a `:` the caller refuses); `:x` is part of it.
                let n = at(i + 1)
                if isBlankOrEOL(n) || (flow && Self.isFlowIndicator(n)) { break }
                end = i + 1
                i += 1
                continue
            }
            if flow && Self.isFlowIndicator(c) { break }
            if Self.isBlank(c) {
                // A comment ends the scalar: the line's end is checked by the caller.
                if at(i + 1) == 0x23 { break }
            } else {
                end = i + 1
            }  // `#` after a non-blank is part of the scalar
            i += 1
        }
        i = end
        if !key, isEOL(at(skipping: end)) { return try plainLines(start: start, end: end, flow: flow) }
        return try newNode(kind: 0, style: 0, at: start, a: Int32(start), b: Int32(end - start))
    }

    /// The offset of the first byte from `k` on that is not a blank.
    @inline(__always) package func at(skipping k: Int) -> UInt8 {
        var k = k
        while Self.isBlank(at(k)) { k += 1 }
        return at(k)
    }

    /// A plain scalar whose first line ends at `end` (`i`): the lines that go on with it (in a
    /// block, those indented more than `parentIndent`; in a flow collection, any), folded as
    /// YAML folds them (a line break is a space, an empty line a line break). One line: the
    /// node as it is.
    package mutating func plainLines(start: Int, end: Int, flow: Bool) throws -> Int32 {
        let place = (line: line, column: column(start))
        var value: [UInt8]? = nil
        var lastEnd = end
        var k = end
        var breaks = 0
        var ln = line, ls = lineStart
        while true {
            // To the next line with content.
            while Self.isBlank(at(k)) { k += 1 }
            guard k < buf.count, buf[k] == 0x0A else { break }
            k += 1; ln += 1; ls = k; breaks += 1
            var s = k
            while at(s) == 0x20 { s += 1 }
            while Self.isBlank(at(s)) { s += 1 }
            let c = at(s)
            if c == 0x0A { k = s; continue }  // an empty line
            if s >= buf.count || c == 0x23 { break }
            if s == ls && isDocumentMarker(s) { break }
            if !flow {
                var ind = 0
                while at(ls + ind) == 0x20 { ind += 1 }
                if ind <= parentIndent { break }
            } else if Self.isFlowIndicator(c) || (c == 0x3A && (isBlankOrEOL(at(s + 1)) || Self.isFlowIndicator(at(s + 1)))) {
                break
            }
            // A line that goes on: up to `: `, ` #`, (in a flow collection) a bracket or `,`, or its end.
            var e = s, last = s
            while true {
                let d = at(e)
                if isEOL(d) && (d == 0x0A || e >= buf.count) { break }
                if d == 0x3A && (isBlankOrEOL(at(e + 1)) || (flow && Self.isFlowIndicator(at(e + 1)))) { break }
                if flow && Self.isFlowIndicator(d) { break }
                if Self.isBlank(d) { if at(e + 1) == 0x23 { break } } else { last = e + 1 }
                e += 1
            }
            if last == s { break }
            if value == nil { value = Array(buf[start..<end]) }
            if breaks == 1 { value!.append(0x20) } else { value!.append(contentsOf: repeatElement(0x0A, count: breaks - 1)) }
            value!.append(contentsOf: buf[s..<last])
            breaks = 0
            lastEnd = last
            line = ln; lineStart = ls
            k = last
            if at(skipping: last) != 0x0A { break }
        }
        i = lastEnd
        colAt = 0; colValue = 1
        guard let v = value else { return newNode(kind: 0, style: 0, place: place, a: Int32(start), b: Int32(end - start)) }
        unescaped.append(String(decoding: v, as: UTF8.self))
        return newNode(kind: 0, style: 0, place: place, a: Int32(unescaped.count - 1), b: -1)
    }

    /// The high bit set in each byte of `w` (the first in the lowest bits) that might end a
    /// plain scalar or be part of one only in some places: below `-` (a space, a `#`, a `,`,
    /// controls…), `:`, and the brackets. Every other byte of a plain scalar, wherever it is, is
    /// part of it. (Each byte is tested on its low seven bits, exactly for ASCII: a byte of
    /// 0x80 or more may be marked too, which only sends it to the byte-by-byte reading.)
    @inline(__always) package static func stopBytes(_ w: UInt64) -> UInt64 {
        let below = ~((w | SWAR.high) &- SWAR.ones &* 0x2D) & SWAR.high
        return below | SWAR.equalLow(w, 0x3A) | SWAR.equalLow(w, 0x5B) | SWAR.equalLow(w, 0x5D)
            | SWAR.equalLow(w, 0x7B) | SWAR.equalLow(w, 0x7D)
    }

    /// At a line feed inside a quoted scalar (`i`): the line break folded into `out` (trailing
    /// blanks dropped; a space, or one line feed per empty line), `i` at the next line's text.
    package mutating func foldQuotedBreak(_ out: inout [UInt8], open: Int, escaped: Bool) throws {
        if !escaped { while let l = out.last, Self.isBlank(l) { out.removeLast() } }
        var breaks = 0
        while cur == 0x0A && i < buf.count {
            i += 1; line += 1; lineStart = i; breaks += 1
            skipBlanks()
        }
        if i >= buf.count { throw unclosedQuote(open) }
        if i == lineStart && isDocumentMarker(i) {
            throw error(at: i, syntax: "a document marker inside a quoted value", help: "close the quote before this line")
        }
        if !escaped {
            if breaks == 1 { out.append(0x20) } else { out.append(contentsOf: repeatElement(0x0A, count: breaks - 1)) }
        } else if breaks > 1 {
            out.append(contentsOf: repeatElement(0x0A, count: breaks - 1))
        }
        colAt = 0; colValue = 1
    }

    @inline(never)
    package func unclosedQuote(_ open: Int) -> FastYAML.Refusal {
        let (l, c) = FastYAML.place(of: open, in: buf)
        let end = buf.count > 0 && buf[buf.count - 1] == 0x0A ? buf.count - 1 : buf.count
        return error(
            at: end, syntax: "found unexpected end of stream while scanning a quoted scalar",
            help: "a quote is not closed (it opens at line \(l), column \(c))")
    }

    package mutating func doubleQuoted() throws -> Int32 {
        let open = i
        let place = (line: line, column: column(i))
        i += 1
        let start = i
        var out: [UInt8]? = nil
        // Eight bytes at a time while none is a quote, a backslash or a line feed; then byte by
        // byte from the word that holds one.
        if let base = buf.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= buf.count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if SWAR.hasByte(w, 0x22) | SWAR.hasByte(w, 0x5C) | SWAR.hasByte(w, 0x0A) != 0 { break }
                i += 8
            }
        }
        while true {
            let c = cur
            if i >= buf.count { throw unclosedQuote(open) }
            if c == 0x22 { break }
            if c == 0x0A {
                if out == nil { out = Array(buf[start..<i]) }
                try foldQuotedBreak(&out!, open: open, escaped: false)
                continue
            }
            if c == 0x5C {
                if out == nil { out = Array(buf[start..<i]) }
                let e = at(i + 1)
                i += 2
                switch e {
                case 0x22: out!.append(0x22)
                case 0x5C: out!.append(0x5C)
                case 0x2F: out!.append(0x2F)
                case 0x20: out!.append(0x20)
                case 0x09: out!.append(0x09)
                case 0x6E: out!.append(0x0A)
                case 0x74: out!.append(0x09)
                case 0x72: out!.append(0x0D)
                case 0x30: out!.append(0)
                case 0x61: out!.append(0x07)
                case 0x62: out!.append(0x08)
                case 0x65: out!.append(0x1B)
                case 0x66: out!.append(0x0C)
                case 0x76: out!.append(0x0B)
                case 0x4E: out!.append(contentsOf: [0xC2, 0x85])
                case 0x5F: out!.append(contentsOf: [0xC2, 0xA0])
                case 0x4C: out!.append(contentsOf: [0xE2, 0x80, 0xA8])
                case 0x50: out!.append(contentsOf: [0xE2, 0x80, 0xA9])
                case 0x0A:
                    i -= 1
                    try foldQuotedBreak(&out!, open: open, escaped: true)
                case 0x78, 0x75, 0x55:
                    let digits = e == 0x78 ? 2 : e == 0x75 ? 4 : 8
                    var v: UInt32 = 0
                    for _ in 0..<digits {
                        let h = cur
                        let d: UInt32
                        if h >= 0x30 && h <= 0x39 {
                            d = UInt32(h - 0x30)
                        } else if h >= 0x41 && h <= 0x46 {
                            d = UInt32(h - 0x41 + 10)
                        } else if h >= 0x61 && h <= 0x66 {
                            d = UInt32(h - 0x61 + 10)
                        } else {
                            throw error(
                                at: i, syntax: "`\\\(Character(Unicode.Scalar(e)))` needs \(digits) hexadecimal digits",
                                help: "write a character by its code, e.g. `\\u00e9` for é")
                        }
                        v = v * 16 + d
                        i += 1
                    }
                    guard let u = Unicode.Scalar(v) else {
                        throw error(
                            at: i - digits - 2, syntax: "`\\\(Character(Unicode.Scalar(e)))` names no character a policy file can hold",
                            help: "the surrogate halves (U+D800 to U+DFFF) and numbers past U+10FFFF are not characters")
                    }
                    out!.append(contentsOf: Array(String(u).utf8))
                default:
                    throw error(
                        at: i - 2, syntax: "found unknown escape character while parsing a quoted scalar",
                        help:
                            "a `\\` in double quotes starts an escape (`\\n`, `\\t`, `\\\\`, `\\\"`, `\\u00e9`…); write `\\\\` for a backslash, or use single quotes"
                    )
                }
                continue
            }
            if out != nil { out!.append(c) }
            i += 1
        }
        return try quotedScalar(style: 2, place: place, start: start, unescaped: out)
    }

    package mutating func singleQuoted() throws -> Int32 {
        let open = i
        let place = (line: line, column: column(i))
        i += 1
        let start = i
        var out: [UInt8]? = nil
        while true {
            let c = cur
            if i >= buf.count { throw unclosedQuote(open) }
            if c == 0x0A {
                if out == nil { out = Array(buf[start..<i]) }
                try foldQuotedBreak(&out!, open: open, escaped: false)
                continue
            }
            if c == 0x27 {
                if at(i + 1) == 0x27 {
                    if out == nil { out = Array(buf[start..<i]) }
                    out!.append(0x27)
                    i += 2
                    continue
                }
                break
            }
            if out != nil { out!.append(c) }
            i += 1
        }
        return try quotedScalar(style: 1, place: place, start: start, unescaped: out)
    }

    /// The node of a quoted scalar whose closing quote is at `i` (stepped over): the text between
    /// the quotes as it is, or `unescaped` when escapes, `''` or line breaks made it differ.
    package mutating func quotedScalar(style: UInt8, place: (line: Int, column: Int32), start: Int, unescaped out: [UInt8]?) throws -> Int32 {
        let end = i
        i += 1
        if let o = out {
            unescaped.append(String(decoding: o, as: UTF8.self))
            return newNode(kind: 0, style: style, place: place, a: Int32(unescaped.count - 1), b: -1)
        }
        return newNode(kind: 0, style: style, place: place, a: Int32(start), b: Int32(end - start))
    }

    /// A block scalar at `i` (`|` or `>`, then a chomping indicator `-`/`+` and an indentation
    /// digit in either order, then a comment or nothing): its lines, those indented more than
    /// `parentIndent` (or as the digit says), kept (`|`) or folded (`>`). `i` is left at the
    /// end of its last line with text.
    package mutating func blockScalar() throws -> Int32 {
        let isFolded = cur == 0x3E
        let place = (line: line, column: column(i))
        i += 1
        var chomp: UInt8 = 0  // 0 clip, `-` strip, `+` keep
        var explicit = 0
        for _ in 0..<2 {
            let c = cur
            if (c == 0x2D || c == 0x2B) && chomp == 0 { chomp = c; i += 1 } else if c >= 0x31 && c <= 0x39 && explicit == 0 { explicit = Int(c - 0x30); i += 1 }
        }
        let headerEnd = i
        skipBlanks()
        if cur == 0x23 && i > headerEnd { while !isEOL(cur) { i += 1 } }
        guard isEOL(cur) else {
            throw error(
                at: i, syntax: "a block scalar's text starts on the line after its `\(isFolded ? ">" : "|")`",
                help: "write `|` (or `>`) at the end of the key's line and the text on the lines below, indented")
        }
        var lastLineEnd = i  // where `i` is left: the end of the last line with text
        var lastLine = line, lastLineStart = lineStart
        var indent = explicit > 0 ? max(parentIndent, 0) + explicit : -1
        var lines: [(from: Int, to: Int)] = []  // each line's text after the indentation; empty lines: from == to
        var textLines = 0  // lines up to the last with text
        var k = i
        while k < buf.count {
            // `k` is at a line feed: look at the next line.
            let ls = k + 1
            if ls >= buf.count { break }
            var s = ls
            while at(s) == 0x20 { s += 1 }
            var e = s
            while !isEOL(at(e)) { e += 1 }
            var t = s
            while t < e && Self.isBlank(buf[t]) { t += 1 }
            if t == e {  // an empty line (blanks only)
                lines.append((e, e))
                k = e
                continue
            }
            if indent < 0 {
                if s - ls <= parentIndent { break }
                indent = s - ls
            }
            if s - ls < indent { break }
            if ls == s && isDocumentMarker(s) { break }
            lines.append((ls + indent, e))
            textLines = lines.count
            lastLineEnd = e
            lastLine = line + lines.count
            lastLineStart = ls
            k = e
        }
        var out: [UInt8] = []
        var breaks = 0  // empty lines since the last line with text
        var prevMore = false  // whether that line was indented more than the text
        var first = true
        for l in lines.prefix(textLines) {
            if l.from == l.to { breaks += 1; continue }
            let more = Self.isBlank(buf[l.from])
            if first {
                out.append(contentsOf: repeatElement(0x0A, count: breaks))
            } else if !isFolded || prevMore || more {
                out.append(contentsOf: repeatElement(0x0A, count: breaks + 1))
            } else if breaks == 0 {
                out.append(0x20)
            } else {
                out.append(contentsOf: repeatElement(0x0A, count: breaks))
            }
            out.append(contentsOf: buf[l.from..<l.to])
            breaks = 0
            prevMore = more
            first = false
        }
        let trailing = lines.count - textLines
        switch chomp {
        case 0x2D: break
        case 0x2B: out.append(contentsOf: repeatElement(0x0A, count: (textLines > 0 ? 1 : 0) + trailing))
        default: if textLines > 0 { out.append(0x0A) }
        }
        i = lastLineEnd
        line = lastLine
        lineStart = lastLineStart
        colAt = 0; colValue = 1
        unescaped.append(String(decoding: out, as: UTF8.self))
        let node = newNode(kind: 0, style: 3, place: place, a: Int32(unescaped.count - 1), b: -1)
        if isFolded { folded.append(node) }
        return node
    }
}
