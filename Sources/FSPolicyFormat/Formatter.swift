import Foundation
import FSPolicy
import FSPolicyYAML

/// Canonical formatting of policy files: keys in the contract's order, the tree sorted by path,
/// short entries in flow style on one line, ACE lists one entry per line in their order,
/// scalars exactly as written, and every comment kept (attached to the entry that follows it).
public enum Formatter {
    public struct Failure: Error, Sendable { public var diagnostics: [Diagnostic] }

    public static func format(_ text: String, file: String) -> Result<String, Failure> {
        var diags = DiagnosticBag()
        // Line breaks as YAML reads them: CRLF and a lone CR are one break each (inside
        // quoted scalars too), so the file is rewritten with LF alone.
        var text = text
        if text.utf8.contains(0x0D) { text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") }
        guard let root = parseYAML(text, file: file, diags: &diags) else { return .failure(Failure(diagnostics: diags.sorted)) }
        // A duplicated key is set aside by the parser so that `validate` can go on; rewriting
        // would drop it silently, so `fmt` stops at any such error.
        if diags.items.contains(where: { $0.severity == .error }) { return .failure(Failure(diagnostics: diags.sorted)) }
        // Canonical form has no anchors: rewriting would expand every alias into a copy.
        if text.utf8.contains(0x2A), usesAlias(root) {
            diags.error(
                SourceLocation(file: file, line: 1, column: 1), code: "fmt-aliases",
                "`fmt` does not rewrite files that use YAML aliases (`*name`): canonical form would expand them",
                help: "write the entries out, or leave this file as it is")
            return .failure(Failure(diagnostics: diags.sorted))
        }
        let (nonScalarKey, emptyKey) = firstOddKeys(root)
        if let k = nonScalarKey {
            diags.error(
                k.loc, code: "fmt-complex-key", "`fmt` does not rewrite files with a list or a mapping as a key",
                help: "no key of a policy file is a list or a mapping; write it as text")
            return .failure(Failure(diagnostics: diags.sorted))
        }
        // An entry with no key (`{: x}`, or an anchor alone before the colon) would be written
        // as `: x`, which YAML refuses: the rewritten file would not load.
        if let k = emptyKey {
            diags.error(
                k.loc, code: "fmt-empty-key", "`fmt` does not rewrite a mapping entry that has no key",
                help: "write the key before the `:`, or remove the entry")
            return .failure(Failure(diagnostics: diags.sorted))
        }
        // A policy file is a mapping; anything else (a scalar such as an XML file, a list)
        // would come out empty or changed: refuse, so nothing the user wrote is lost.
        if root.mapping == nil {
            diags.error(
                root.loc, code: "fmt-not-a-mapping",
                "`fmt` rewrites policy files, whose top level is a mapping of keys (`fspolicy: 1`, `tree:`, …); this document's top level is \(root.sequence != nil ? "a list" : "a single value")",
                help: "check that this is the policy file you meant; `fmt` leaves other files as they are")
            return .failure(Failure(diagnostics: diags.sorted))
        }
        var f = Emitter(text: text, file: file)
        f.collectComments(root)
        f.collectOwners(root)
        f.assignComments()
        if let m = root.mapping {
            f.emitMapping(m, indent: 0, context: .top)
        }
        f.flushRemaining()
        var out = f.lines.joined(separator: "\n")
        while out.hasSuffix("\n") { out.removeLast() }
        return .success(out + "\n")
    }
}

/// In one walk: the first key that is not a scalar (`? [a, b]: x`), which canonical form
/// cannot write, and the first key that is empty and plain (a null key).
func firstOddKeys(_ n: YNode) -> (nonScalar: YNode?, empty: YNode?) {
    var nonScalar: YNode? = nil, empty: YNode? = nil
    var stack = [n]
    while let x = stack.popLast() {
        if let m = x.mapping {
            for (k, v) in m {
                if k.isScalarNode {
                    if empty == nil && k.isNull && k.scalar == "" { empty = k }
                } else if nonScalar == nil {
                    nonScalar = k
                }
                stack.append(v)
            }
        } else if let q = x.sequence {
            stack.append(contentsOf: q)
        }
    }
    return (nonScalar, empty)
}

enum Context: Equatable {
    case top, groups, group, users, user, volumes, volume, defaults, tree, node, imports, importItem, apps, app,
        bookmarks, bookmark, tcc, device, linux, steps, step, expect, expectation, acl, plain
}

struct Emitter {
    let text: String
    let file: String
    let srcLines: [Substring]
    /// The text's bytes, and where each line starts in them (the comment finder and the
    /// quoted scalars' ends work on bytes, with the parser's columns).
    let source: [UInt8]
    let lineStarts: [Int]
    var lines: [String] = []
    /// line → full-line comments (text) before it; line → trailing comment
    var fullComments: [(line: Int, text: String)] = []
    var trailing: [Int: String] = [:]
    var ownerLines: [Int] = []
    var before: [Int: [String]] = [:]
    var emittedComments: Set<Int> = []
    var endComments: [String] = []

    init(text: String, file: String) {
        self.text = text
        self.file = file
        // By bytes: a line feed is always a character of its own (no CR is left by now).
        self.srcLines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        self.source = Array(text.utf8)
        var starts = [0]
        for (k, b) in source.enumerated() where b == 0x0A { starts.append(k + 1) }
        self.lineStarts = starts
    }

    // MARK: Comments

    mutating func collectOwners(_ n: YNode) {
        if let m = n.mapping {
            for (k, v) in m { ownerLines.append(k.loc.line); collectOwners(v) }
        } else if let s = n.sequence {
            for it in s { ownerLines.append(it.loc.line); collectOwners(it) }
        }
    }

    mutating func assignComments() {
        guard !fullComments.isEmpty else { return }
        // A comment belongs to the first owner line after it (binary search in the sorted lines).
        let owners = ownerLines.sorted()
        for c in fullComments {
            var lo = 0, hi = owners.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if owners[mid] > c.line { hi = mid } else { lo = mid + 1 }
            }
            if lo < owners.count { before[owners[lo], default: []].append(c.text) } else { endComments.append(c.text) }
        }
    }

    mutating func flushRemaining() {
        // Comments whose owner line never got emitted (should not happen) go to the end.
        for (line, cs) in before.sorted(by: { $0.key < $1.key }) where !emittedComments.contains(line) {
            endComments.insert(contentsOf: cs, at: 0)
            _ = line
        }
        lines.append(contentsOf: endComments)
    }

    /// Comments attached to source lines `range`, as full lines; marks them emitted.
    mutating func takeComments(lines range: ClosedRange<Int>, keepTrailingOf first: Int?) -> (before: [String], trailing: String?) {
        var out: [String] = []
        var trail: String? = nil
        for l in range {
            if let cs = before[l], !emittedComments.contains(l) { out.append(contentsOf: cs); emittedComments.insert(l) }
        }
        for l in range {
            guard let t = trailing[l] else { continue }
            if l == first { trail = t } else { out.append(t) }
            trailing[l] = nil
        }
        return (out, trail)
    }

    func lastLine(_ n: YNode) -> Int {
        var m = n.loc.line
        if let map = n.mapping { for (k, v) in map { m = max(m, k.loc.line, lastLine(v)) } }
        if let s = n.sequence { for it in s { m = max(m, lastLine(it)) } }
        if n.scalar != nil { m = max(m, scalarEndLine(n)) }
        return m
    }

    /// The source line a scalar ends on. Its value's line breaks say nothing about that: a
    /// quoted `"a\nb"` is one line, a quoted scalar folded over three lines holds no break.
    /// Quoted scalars end at their closing quote; block and plain scalars go on while the lines
    /// are blank or indented deeper than the line they start on.
    func scalarEndLine(_ n: YNode) -> Int {
        guard let string = n.scalar, let style = n.style else { return n.loc.line }
        let start = n.loc.line
        guard start >= 1 && start <= srcLines.count else { return start }
        switch style {
        case .doubleQuoted, .singleQuoted:
            guard let open = quoteOffset(n, double: style == .doubleQuoted),
                let close = quotedClose(after: open + 1, double: style == .doubleQuoted)
            else { return start }
            return line(ofOffset: close - 1, from: start)
        default:
            guard string.contains("\n") || style == .literal || style == .folded else { return start }
            func indent(_ l: Substring) -> Int { l.prefix { $0 == " " }.count }
            let base = indent(srcLines[start - 1])
            var end = start
            var l = start + 1
            while l <= srcLines.count {
                let t = srcLines[l - 1]
                if t.allSatisfy({ $0 == " " }) { l += 1; continue }
                if indent(t) <= base { break }
                end = l
                l += 1
            }
            return end
        }
    }

    // MARK: Key order

    func keyOrder(_ ctx: Context) -> [String]? {
        switch ctx {
        case .top:
            return [
                "fspolicy", "semantics", "description", "securelevel", "linux", "import", "groups", "users", "volumes",
                "defaults", "tree", "apps", "services", "units", "device", "steps", "expect", "findings"
            ]
        case .group: return groupKeys
        case .user: return userKeys
        case .volume: return volumeKeys
        case .defaults: return defaultsKeys
        case .node: return nodeKeys
        case .importItem: return importKeys
        case .app: return appKeys
        case .bookmark: return bookmarkKeys
        case .tcc: return tccKeys
        case .device: return deviceKeys
        case .linux: return linuxKeys
        case .step: return stepKeys
        case .expectation: return expectKeys
        default: return nil
        }
    }

    func childContext(_ ctx: Context, key: String) -> Context {
        switch (ctx, key) {
        case (.top, "groups"): return .groups
        case (.top, "users"): return .users
        case (.top, "volumes"): return .volumes
        case (.top, "defaults"): return .defaults
        case (.top, "tree"): return .tree
        case (.top, "import"): return .imports
        case (.top, "apps"): return .apps
        case (.top, "device"): return .device
        case (.top, "linux"): return .linux
        case (.top, "steps"): return .steps
        case (.top, "expect"): return .expect
        case (.groups, _): return .group
        case (.users, _): return .user
        case (.volumes, _): return .volume
        case (.tree, _): return .node
        case (.apps, _): return .app
        case (.app, "bookmarks"): return .bookmarks
        case (.app, "tcc"): return .tcc
        case (.node, "acl"), (.node, "defaultAcl"), (.step, "acl"), (.expectation, "acl"): return .acl
        default: return .plain
        }
    }

    func itemContext(_ ctx: Context) -> Context {
        switch ctx {
        case .imports: return .importItem
        case .bookmarks: return .bookmark
        case .steps: return .step
        case .expect: return .expectation
        case .acl: return .acl
        default: return .plain
        }
    }

    func ordered(_ m: [(key: YNode, value: YNode)], _ ctx: Context) -> [(key: YNode, value: YNode)] {
        if ctx == .tree { return m.sorted { ($0.key.scalar ?? "") < ($1.key.scalar ?? "") } }
        guard let order = keyOrder(ctx) else { return m }
        return m.enumerated().sorted { a, b in
            let ia = order.firstIndex(of: a.element.key.scalar ?? "") ?? order.count
            let ib = order.firstIndex(of: b.element.key.scalar ?? "") ?? order.count
            return ia != ib ? ia < ib : a.offset < b.offset
        }.map(\.element)
    }

    // MARK: Scalars

    /// A scalar as text; `flow`: it goes inside `[…]`/`{…}`, where `,[]{}` end a plain scalar.
    func scalarText(_ n: YNode, flow: Bool = true) -> String {
        guard let string = n.scalar, let style = n.style else { return "" }
        switch style {
        case .singleQuoted:
            // Single quotes cannot hold a line break or an escape: those need double quotes.
            if string.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" || Escaping.isUnsafe($0.value) }) { return YAMLText.quote(string) }
            return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .doubleQuoted: return YAMLText.quote(string)
        case .literal, .folded: return YAMLText.quote(string)
        case .plain:
            if string.isEmpty { return "" }
            return needsQuoting(string, flow: flow) ? YAMLText.quote(string) : string
        }
    }

    /// An ACE of an `acl` list in canonical form: single spaces between the words, and the
    /// rights after `allow`/`deny` separated by commas alone (`read, write` and `read write`
    /// become `read,write`). Text that is not a macOS ACE (a POSIX entry) is left alone; nil
    /// when nothing changes.
    func canonicalACE(_ s: String) -> String? {
        // Without the bytes of `allow` or `deny` no word can be either (a POSIX entry, most often).
        let u = Array(s.utf8)
        func has(_ w: [UInt8]) -> Bool {
            guard u.count >= w.count else { return false }
            for i in 0...(u.count - w.count) where u[i] == w[0] && u[i..<(i + w.count)].elementsEqual(w) { return true }
            return false
        }
        if !has([0x61, 0x6C, 0x6C, 0x6F, 0x77]) && !has([0x64, 0x65, 0x6E, 0x79]) { return nil }
        let tokens = s.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let k = tokens.firstIndex(where: { $0 == "allow" || $0 == "deny" }), k >= 1, k <= 3, k + 1 < tokens.count else { return nil }
        let rights = tokens[(k + 1)...].joined(separator: ",").split(separator: ",").joined(separator: ",")
        let text = tokens[...k].joined(separator: " ") + " " + rights
        return text == s ? nil : text
    }

    func needsQuoting(_ s: String, flow: Bool) -> Bool {
        if let r = Emitter.needsQuotingASCII(s, flow: flow) { return r }
        if s.contains(": ") || s.contains(" #") || s.hasSuffix(":") || s.contains("\n") { return true }
        // Flow indicators end a plain scalar inside `[…]`/`{…}`, where fmt may put it.
        if s.unicodeScalars.contains(where: { (flow && ",[]{}".unicodeScalars.contains($0)) || $0 == "\t" || Escaping.isUnsafe($0.value) }) { return true }
        // There, a leading `:` or `?` is a value or key indicator to libyaml even without a space
        // after it (`:/`), and `:?` inside a plain scalar is an error.
        if flow && (s.hasPrefix(":") || s.hasPrefix("?") || s.contains(":?")) { return true }
        if s.first == " " || s.last == " " || s.hasPrefix("-\t") || s == "-" || s == "?" { return true }
        if let f = s.first, "{}[],&*!|>'\"%@`#".contains(f) { return true }
        if s.hasPrefix("- ") || s.hasPrefix("? ") { return true }
        return false
    }

    /// `needsQuoting` of an ASCII string, in one pass over its bytes; nil for other strings.
    /// A control character needs quotes whatever else holds; the rest is printable ASCII, where
    /// each byte is one character, so byte tests say what the character tests below say.
    static func needsQuotingASCII(_ s: String, flow: Bool) -> Bool? {
        var s = s
        return s.withUTF8 { p -> Bool? in
            guard let first = p.first, let last = p.last else { return false }
            var quote = false
            for (i, b) in p.enumerated() {
                if b >= 0x80 { return nil }
                if b < 0x20 || b == 0x7F { quote = true; continue }
                if flow && (b == 0x2C || b == 0x5B || b == 0x5D || b == 0x7B || b == 0x7D) { quote = true }
                if i + 1 < p.count {
                    let n = p[i + 1]
                    if (b == 0x3A && n == 0x20) || (b == 0x20 && n == 0x23) || (flow && b == 0x3A && n == 0x3F) { quote = true }
                }
            }
            if quote || last == 0x3A || first == 0x20 || last == 0x20 { return true }
            if flow && (first == 0x3A || first == 0x3F) { return true }
            if p.count == 1 && (first == 0x2D || first == 0x3F) { return true }
            // {}[],&*!|>'"%@`#
            switch first {
            case 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x27, 0x22, 0x25, 0x40, 0x60, 0x23: return true
            default: break
            }
            if p.count >= 2 && (first == 0x2D || first == 0x3F) && p[1] == 0x20 { return true }
            return false
        }
    }

    func isScalar(_ n: YNode) -> Bool { n.isScalarNode }

    /// A multi-line scalar written as a literal block (`|`, `|-`, `|+`): only one that was a
    /// block and that a block can hold exactly (no unsafe characters, no tabs or spaces that
    /// would change the block's indentation or be dropped).
    func asBlock(_ n: YNode) -> String? {
        guard let v = n.scalar, n.style == .literal || n.style == .folded, v.contains("\n") else { return nil }
        if v.unicodeScalars.contains(where: { $0 == "\t" || Escaping.isUnsafe($0.value) && $0 != "\n" }) { return nil }
        if v.hasPrefix(" ") || v.hasPrefix("\n") { return nil }
        for l in v.split(separator: "\n", omittingEmptySubsequences: false) where l.hasSuffix(" ") || (l.allSatisfy { $0 == " " } && !l.isEmpty) { return nil }
        var body = Substring(v)
        var breaks = 0
        while body.hasSuffix("\n") { body = body.dropLast(); breaks += 1 }
        if body.isEmpty { return nil }
        return (breaks == 0 ? "|-" : breaks == 1 ? "|" : "|+") + "\n" + body + String(repeating: "\n", count: max(0, breaks - 1))
    }

    /// A key as text: long keys (YAML's 1,024-character limit on implicit keys) are written
    /// as explicit keys, `? KEY` on a line of its own.
    func isLongKey(_ k: YNode) -> Bool {
        // Written, a byte of the value takes at most 4 characters (`\\x00`), plus the quotes.
        if let v = k.scalar, 4 * v.utf8.count + 2 <= YAMLText.implicitKeyLimit - 24 { return false }
        return scalarText(k).unicodeScalars.count > YAMLText.implicitKeyLimit - 24
    }

    func isFlatList(_ n: YNode) -> Bool { n.sequence?.allSatisfy(isScalar) ?? false }

    /// Flow text of a node if it can be written on one line.
    func flow(_ n: YNode, _ ctx: Context, nested: Bool = false) -> String? {
        if isScalar(n) {
            if asBlock(n) != nil { return nil }
            if ctx == .acl, let s = n.scalar, !n.isNull, let c = canonicalACE(s) { return YAMLText.quote(c) }
            return n.isNull ? "" : scalarText(n, flow: nested)
        }
        if let s = n.sequence {
            if ctx == .acl && !s.isEmpty { return nil }
            var parts: [String] = []
            // A null item is written `null`: an empty item (`[, x]`) is not YAML.
            for it in s { guard isScalar(it), let t = flow(it, .plain, nested: true) else { return nil }; parts.append(t.isEmpty ? "null" : t) }
            return "[" + parts.joined(separator: ", ") + "]"
        }
        if let m = n.mapping {
            var parts: [String] = []
            for (k, v) in ordered(m, ctx) {
                let cctx = childContext(ctx, key: k.scalar ?? "")
                if isLongKey(k) { return nil }
                guard isScalar(v) || isFlatList(v) || (v.mapping?.allSatisfy { isScalar($0.value) } ?? false) && cctx == .tcc,
                    let t = flow(v, cctx, nested: true)
                else { return nil }
                if cctx == .acl, !(v.sequence?.isEmpty ?? true) { return nil }
                parts.append(scalarText(k) + ": " + (t.isEmpty ? "null" : t))
            }
            return "{" + parts.joined(separator: ", ") + "}"
        }
        return nil
    }

    // MARK: Emission

    mutating func emit(_ line: String, trailing t: String?) {
        lines.append(t.map { line + "  " + $0 } ?? line)
    }

    mutating func emitMapping(_ m: [(key: YNode, value: YNode)], indent: Int, context ctx: Context) {
        let pad = String(repeating: " ", count: indent)
        var first = true
        for (k, v) in ordered(m, ctx) {
            let key = k.scalar ?? ""
            let cctx = childContext(ctx, key: key)
            if ctx == .top && !first && (v.mapping != nil || v.sequence != nil) { lines.append("") }
            first = false
            var head = pad + scalarText(k, flow: false) + ":"
            if isLongKey(k) { head = pad + ":" }
            let endLine = max(k.loc.line, lastLine(v))
            if isLongKey(k) {
                let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: nil)
                lines.append(contentsOf: c.before.map { pad + $0 })
                lines.append(pad + "? " + scalarText(k))
            }
            if v.isNull {
                let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: k.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                emit(head, trailing: c.trailing)
                continue
            }
            if let block = asBlock(v) {
                let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: k.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                let parts = block.split(separator: "\n", omittingEmptySubsequences: false)
                emit(head + " " + parts[0], trailing: c.trailing)
                for l in parts.dropFirst() { lines.append(l.isEmpty ? "" : pad + "  " + l) }
                continue
            }
            let oneLine = ctx != .top && cctx != .tree ? flow(v, cctx) : (isScalar(v) ? flow(v, cctx) : nil)
            if let f = oneLine, pad.count + key.count + f.count + 2 <= 110 || isScalar(v) {
                let c = takeComments(lines: k.loc.line...endLine, keepTrailingOf: k.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                emit(head + " " + f, trailing: c.trailing)
                continue
            }
            let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: k.loc.line)
            lines.append(contentsOf: c.before.map { pad + $0 })
            if let sub = v.mapping {
                // An empty mapping stays `{}` (a bare `key:` would be null).
                emit(head + (sub.isEmpty ? " {}" : ""), trailing: c.trailing)
                emitMapping(sub, indent: indent + 2, context: cctx)
            } else if let seq = v.sequence {
                emit(head + (seq.isEmpty ? " []" : ""), trailing: c.trailing)
                emitSequence(seq, indent: indent + 2, context: cctx)
            }
        }
    }

    mutating func emitSequence(_ s: [YNode], indent: Int, context ctx: Context) {
        let pad = String(repeating: " ", count: indent)
        let ictx = itemContext(ctx)
        for it in s {
            let endLine = lastLine(it)
            if let f = flow(it, ictx), pad.count + f.count + 2 <= 110 || isScalar(it) {
                let c = takeComments(lines: it.loc.line...endLine, keepTrailingOf: it.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                emit(pad + "- " + f, trailing: c.trailing)
                continue
            }
            let c = takeComments(lines: it.loc.line...it.loc.line, keepTrailingOf: nil)
            lines.append(contentsOf: c.before.map { pad + $0 })
            if let m = it.mapping, m.isEmpty {
                emit(pad + "- {}", trailing: c.trailing)
            } else if let seq = it.sequence, seq.isEmpty {
                emit(pad + "- []", trailing: c.trailing)
            } else if let m = it.mapping {
                // Block mapping inside a list item: first key on the dash line.
                var start = lines.count
                emitMapping(m, indent: indent + 2, context: ictx)
                // Comments above the first key go above the dash, at the dash's indentation (a
                // comment after `- ` would leave the key on the next line, and move on the next run).
                var k = start
                while k < lines.count, lines[k].drop(while: { $0 == " " }).hasPrefix("#") { k += 1 }
                if k > start && k < lines.count {
                    for j in start..<k { lines[j] = pad + lines[j].drop(while: { $0 == " " }) }
                    start = k
                }
                if start < lines.count {
                    var firstLine = lines[start]
                    firstLine = pad + "- " + firstLine.dropFirst(indent + 2)
                    lines[start] = firstLine
                }
            } else if let seq = it.sequence {
                emit(pad + "-", trailing: c.trailing)
                emitSequence(seq, indent: indent + 2, context: ictx)
            } else {
                emit(pad + "- " + scalarText(it, flow: false), trailing: c.trailing)
            }
        }
    }
}

extension Formatter {
    /// The document's content without its layout: every scalar's value, mappings and lists in
    /// order; nil when the text is not well-formed YAML. Two texts with the same shape read
    /// the same (the `fmt` round-trip property: `shape(format(t)) == shape(t)`).
    public static func shape(_ text: String) -> String? {
        var bag = DiagnosticBag()
        guard let root = parseYAML(text, file: "shape", diags: &bag) else { return nil }
        var out = ""
        func walk(_ n: YNode) {
            if n.isNull { out += "~"; return }
            if let s = n.scalar { out += YAMLText.quote(s); return }
            if let m = n.mapping {
                // Entries in key order: a mapping's order carries no meaning (fmt sorts the tree).
                var entries: [(String, String)] = []
                for (k, v) in m {
                    let saved = out
                    out = ""; walk(k); let kt = out
                    out = ""; walk(v); let vt = out
                    out = saved
                    entries.append((kt, vt))
                }
                out += "{" + entries.sorted { $0.0 < $1.0 }.map { $0.0 + ":" + $0.1 }.joined(separator: ",") + "}"
                return
            }
            if let q = n.sequence { out += "["; for it in q { walk(it); out += "," }; out += "]" }
        }
        walk(root)
        return out
    }
}
