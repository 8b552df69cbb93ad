import Foundation

/// Nodes on one line or within brackets: a value's anchor, alias or tag, and flow mappings
/// and lists (`{…}`, `[…]`), which may run over several lines.
extension FastYAMLParser {
    /// A scalar, `{…}`, `[…]`, an anchored node or an alias, starting at `i`. `flow`: inside
    /// `{…}`/`[…]`. `key`: a key, which ends before its `:`.
    package mutating func inlineNode(flow: Bool, key: Bool = false) throws -> Int32 {
        // (Kept small: a nested `[…]` is this call and `flowSequence` again, 1,000 times at most.)
        let b = cur
        if b == 0x7B || b == 0x5B { return try flowCollection() }
        if b == 0x26 || b == 0x2A || b == 0x21 || b == 0x7C || b == 0x3E { return try propertyOrBlock(flow: flow, key: key) }
        return try flowScalar(flow: flow, key: key)
    }

    /// `{…}` or `[…]` at `i`, one level deeper.
    package mutating func flowCollection() throws -> Int32 {
        try enter(i, flow: true)
        let node = cur == 0x7B ? try flowMapping() : try flowSequence()
        depth -= 1
        flowDepth -= 1
        return node
    }

    /// An anchored node, an alias, a tag (refused) or a block scalar at `i`.
    @inline(never)
    package mutating func propertyOrBlock(flow: Bool, key: Bool) throws -> Int32 {
        switch cur {
        case 0x26: return try anchored(flow: flow, key: key)
        case 0x2A: return try alias(flow: flow)
        case 0x21:
            var k = i
            while !isBlankOrEOL(at(k)) && !(flow && Self.isFlowIndicator(at(k))) { k += 1 }
            let tag = String(decoding: UnsafeBufferPointer(rebasing: buf[i..<k]), as: UTF8.self)
            throw error(
                at: i, "tags are not part of the policy format; remove `\(tag)`",
                help: "values are read as they are written; quote a value to keep it as text")
        default:
            if flow || key {
                throw error(
                    at: i, syntax: "a block scalar (`|`, `>`) cannot be written here",
                    help: "quote the value, or give it as the value of a key on lines of its own")
            }
            return try blockScalar()
        }
    }

    /// The name of the anchor or alias at `i` (`&name`, `*name`), `i` moved past it.
    package mutating func propertyName(flow: Bool) throws -> String {
        let at0 = i
        i += 1
        while Self.isNameByte(cur) { i += 1 }
        guard i > at0 + 1 else {
            throw error(
                at: at0, syntax: "an \(buf[at0] == 0x26 ? "anchor (`&`)" : "alias (`*`)") without a name",
                help: "quote a value that starts with `\(buf[at0] == 0x26 ? "&" : "*")` (for example `as: \"*\"`)")
        }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[(at0 + 1)..<i]), as: UTF8.self)
    }

    /// Whether `b` may be part of an anchor's name: letters, digits, `_` and `-`.
    @inline(__always) package static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
    }

    /// `&name` and the node it names (an empty scalar when a `:` or the end of an entry follows).
    package mutating func anchored(flow: Bool, key: Bool) throws -> Int32 {
        let place = (line: Int32(line), column: column(i))
        let name = try propertyName(flow: flow)
        skipBlanks()
        let b = cur
        let node: Int32
        if b == 0x3A && (isBlankOrEOL(at(i + 1)) || flow) || isEOL(b) || (flow && (b == 0x2C || b == 0x7D || b == 0x5D)) {
            node = try emptyScalar(at: i)
        } else if b == 0x26 || b == 0x2A {
            throw error(at: i, syntax: "a node has one anchor and is not an alias as well", help: "remove the second `&` or `*`")
        } else {
            node = try inlineNode(flow: flow, key: key)
        }
        nodes[Int(node)].place(line: place.line, column: place.column)
        anchors[name] = node
        return node
    }

    /// `*name`: the node its anchor names (the same node, read once; `YAMLLimits` bounds what
    /// the aliases expand to).
    package mutating func alias(flow: Bool) throws -> Int32 {
        let at0 = i
        if isSecondHalf { throw FastYAML.SplitFailed() }
        let name = try propertyName(flow: flow)
        guard let node = anchors[name] else {
            throw error(
                at: at0, syntax: "the alias `*\(name)` names no anchor before it",
                help: "an alias repeats a node marked `&\(name)` earlier in the file; a value that starts with `*` needs quotes (for example `as: \"*\"`)")
        }
        aliases += 1
        if firstAlias < 0 { firstAlias = at0 }
        return node
    }

    /// Blanks, line breaks and comments between the parts of a flow collection.
    @inline(__always) package mutating func skipFlowSpace() {
        while cur == 0x20 { i += 1 }
        let c = cur
        if c == 0x09 || c == 0x0A || c == 0x23 { skipFlowSpaceSlowly() }
    }

    /// `skipFlowSpace` past a tab, a line break or a comment.
    package mutating func skipFlowSpaceSlowly() {
        while true {
            let c = cur
            if c == 0x20 || c == 0x09 { i += 1; continue }
            if c == 0x0A && i < buf.count { i += 1; line += 1; lineStart = i; continue }
            if c == 0x23 && (i == lineStart || Self.isBlank(at(i - 1))) {
                while !isEOL(cur) { i += 1 }
                continue
            }
            return
        }
    }

    /// The error for a flow collection opened at `open` that does not go on or close at `i`.
    @inline(never)
    package func notClosed(_ open: Int, _ closer: UInt8) -> FastYAML.Refusal {
        let (l, c) = FastYAML.place(of: open, in: buf)
        let k = i >= buf.count && buf.count > 0 && buf[buf.count - 1] == 0x0A ? buf.count - 1 : i
        return error(
            at: k, syntax: "did not find expected ',' or '\(closer == 0x7D ? "}" : "]")'",
            help: "a `{` or `[` is not closed (it opens at line \(l), column \(c))")
    }

    package mutating func flowMapping() throws -> Int32 {
        let open = i
        let node = try newNode(kind: 1, style: 0, at: i, a: 0, b: 0)
        i += 1
        skipFlowSpace()
        let base = pending.count
        while cur != 0x7D {
            if cur == 0x2C {
                throw error(at: i, syntax: "an entry is missing before this `,`", help: "remove the extra `,`")
            }
            if i >= buf.count { throw notClosed(open, 0x7D) }
            let start = i, startLine = line
            let k: Int32
            if cur == 0x3A && (isBlankOrEOL(at(i + 1)) || Self.isFlowIndicator(at(i + 1))) {
                k = try emptyScalar(at: i)
            } else if cur == 0x3F && isBlankOrEOL(at(i + 1)) {
                throw error(
                    at: i, syntax: "an explicit key (`? `) inside `{…}` is not part of the policy format",
                    help: "write the entry as `key: value`")
            } else {
                if cur == 0x7B || cur == 0x5B {
                    throw error(
                        at: i, syntax: "a list or a mapping as a key inside `{…}` is not part of the policy format",
                        help: "keys in a policy file are plain names and paths")
                }
                k = try inlineNode(flow: true, key: true)
            }
            skipFlowSpace()
            let v: Int32
            if cur == 0x3A {
                if i - start > 1024 && line == startLine && Int(column(i)) - Int(column(start)) > 1024 { throw longKey(at: i) }
                i += 1
                skipFlowSpace()
                if cur == 0x2C || cur == 0x7D { v = try emptyScalar(at: i) } else { v = try inlineNode(flow: true) }
                skipFlowSpace()
            } else {
                v = try emptyScalar(at: i)
            }
            pending.append(k); pending.append(v)
            if cur == 0x2C {
                i += 1
                skipFlowSpace()
                continue
            }
            guard cur == 0x7D else { throw notClosed(open, 0x7D) }
        }
        i += 1
        try checkDuplicates(from: base)
        setChildren(node, from: base, pairs: true)
        return node
    }

    package mutating func flowSequence() throws -> Int32 {
        let open = i
        let node = try newNode(kind: 2, style: 0, at: i, a: 0, b: 0)
        i += 1
        skipFlowSpace()
        let base = pending.count
        while cur != 0x5D {
            if cur == 0x2C {
                throw error(at: i, syntax: "an item is missing before this `,`", help: "remove the extra `,`")
            }
            if i >= buf.count { throw notClosed(open, 0x5D) }
            let item = try inlineNode(flow: true)
            pending.append(item)
            skipFlowSpace()
            if cur == 0x3A {
                throw error(
                    at: i, syntax: "a `key: value` pair inside `[…]` is not part of the policy format",
                    help: "write a mapping as `{key: value}`, or quote an item that holds `: `")
            }
            if cur == 0x2C {
                i += 1
                skipFlowSpace()
                continue
            }
            guard cur == 0x5D else { throw notClosed(open, 0x5D) }
        }
        i += 1
        setChildren(node, from: base, pairs: false)
        return node
    }
}
