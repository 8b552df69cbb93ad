import FSPolicy
import FSPolicyYAML

/// Finding the comments `fmt` keeps. A `#` starts a comment when it is at the start of a line or
/// after a space or tab, and is not inside a quoted scalar or a block scalar. Which quote opens a
/// quoted scalar, and which lines a block scalar holds, is the parser's word (the node's line and
/// column), not a guess from the characters of a line: a quote inside a plain scalar
/// (`path:"/x`, `rw-"`) opens nothing, and a quoted scalar may go on over several lines.
extension Emitter {
    /// 0-based byte offset in the text of 1-based `column` of `line`, the column counted in
    /// Unicode scalars as both parsers count it; nil past the end of the line.
    func offset(line: Int, column: Int, from memo: (line: Int, column: Int, offset: Int)? = nil) -> Int? {
        guard line >= 1 && line <= lineStarts.count, column >= 1 else { return nil }
        let end = line < lineStarts.count ? lineStarts[line] - 1 : source.count
        var c = 0
        var k = lineStarts[line - 1]
        // Counting on from an earlier column of the same line (nodes come in order on a line).
        if let m = memo, m.line == line, m.column <= column { c = m.column - 1; k = m.offset }
        while k < end {
            if source[k] & 0xC0 != 0x80 {
                c += 1
                if c == column { return k }
            }
            k += 1
        }
        return nil
    }

    /// The line (1-based) that byte `k` is on, `k` being on line `first` or a later one:
    /// counted on from `first` (a quoted scalar's closing quote is on its opening line or a few
    /// after; a binary search of a million line starts for each scalar was a tenth of `fmt`).
    func line(ofOffset k: Int, from first: Int) -> Int {
        var l = max(first, 1)
        while l < lineStarts.count && lineStarts[l] <= k { l += 1 }
        return l
    }

    /// Where the opening quote of quoted scalar `n` is: at its column, or after a tag or anchor
    /// written before it on the same line; nil if there is no such quote.
    func quoteOffset(_ n: YNode, double: Bool) -> Int? {
        offset(line: n.loc.line, column: n.loc.column).flatMap { quote(from: $0, double: double) }
    }

    /// The first quote of the kind at or after byte `k`, on its line.
    func quote(from k: Int, double: Bool) -> Int? {
        var k = k
        let quote: UInt8 = double ? 0x22 : 0x27
        while k < source.count && source[k] != 0x0A {
            if source[k] == quote { return k }
            k += 1
        }
        return nil
    }

    /// The byte after the closing quote of a quoted scalar whose text starts at byte `from`
    /// (just after its opening quote), by YAML's rules: in double quotes a backslash escapes
    /// the next byte, a line break included; in single quotes `''` is a quote. Nil when the
    /// text ends first.
    func quotedClose(after from: Int, double: Bool) -> Int? {
        var k = from
        let n = source.count
        while k < n {
            let b = source[k]
            if double {
                if b == 0x5C { k += 2; continue }
                if b == 0x22 { return k + 1 }
            } else if b == 0x27 {
                if k + 1 < n && source[k + 1] == 0x27 { k += 2; continue }
                return k + 1
            }
            k += 1
        }
        return nil
    }

    mutating func collectComments(_ root: YNode) {
        // Where quoted scalars open (byte offsets, in order, and whether in double quotes), and
        // the lines block scalars start on.
        var quotes: [(offset: Int, double: Bool)] = []
        var blockStarts: Set<Int> = []
        var memo: (line: Int, column: Int, offset: Int)? = nil
        func walk(_ n: YNode) {
            if let m = n.mapping {
                for (k, v) in m { walk(k); walk(v) }
            } else if let seq = n.sequence {
                for it in seq { walk(it) }
            } else if n.scalar != nil, let style = n.style {
                switch style {
                case .doubleQuoted, .singleQuoted:
                    let double = style == .doubleQuoted
                    if let at = offset(line: n.loc.line, column: n.loc.column, from: memo) {
                        memo = (n.loc.line, n.loc.column, at)
                        if let k = quote(from: at, double: double) { quotes.append((k, double)) }
                    }
                case .literal, .folded:
                    blockStarts.insert(n.loc.line)
                default: break
                }
            }
        }
        walk(root)
        quotes.sort { $0.offset < $1.offset }
        var next = 0  // the first quote not yet passed

        var resume = 0  // scanning goes on from here (past a quoted scalar's close)
        var blockIndent: Int? = nil
        for i in 0..<lineStarts.count {
            let line = i + 1
            let start = lineStarts[i]
            let end = line < lineStarts.count ? lineStarts[line] - 1 : source.count
            if resume > end { continue }  // the whole line is inside a quoted scalar
            let inside = resume > start  // the line starts inside one, which closes here
            var indent = 0
            while start + indent < end && source[start + indent] == 0x20 { indent += 1 }
            if !inside, let b = blockIndent {
                var blank = true
                for k in start..<end where source[k] != 0x20 && source[k] != 0x09 { blank = false; break }
                if blank || indent > b { continue }  // a line of the block scalar's text
                blockIndent = nil
            }
            var k = inside ? resume : start
            var onlySpace = !inside
            while k < end {
                let b = source[k]
                while next < quotes.count && quotes[next].offset < k { next += 1 }
                if next < quotes.count && quotes[next].offset == k {
                    let double = quotes[next].double
                    guard let close = quotedClose(after: k + 1, double: double) else { resume = source.count + 1; break }
                    resume = close
                    if close > end { break }
                    k = close
                    onlySpace = false
                    continue
                }
                if b == 0x23 && (k == start || source[k - 1] == 0x20 || source[k - 1] == 0x09) {
                    let text = String(decoding: source[k..<end], as: UTF8.self)
                    if onlySpace { fullComments.append((line, text)) } else { trailing[line] = text }
                    break
                }
                if b != 0x20 && b != 0x09 { onlySpace = false }
                k += 1
            }
            if blockStarts.contains(line) { blockIndent = indent }
        }
    }
}
