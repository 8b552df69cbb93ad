import Foundation
import FSPolicy
import Yams

/// Canonical formatting of policy files: keys in the contract's order, the tree sorted by path,
/// short entries in flow style on one line, ACE lists one entry per line in their order,
/// scalars exactly as written, and every comment kept (attached to the entry that follows it).
public enum Formatter {
    public struct Failure: Error, Sendable { public var diagnostics: [Diagnostic] }

    public static func format(_ text: String, file: String) -> Result<String, Failure> {
        var diags = DiagnosticBag()
        guard let root = parseYAML(text, file: file, diags: &diags) else { return .failure(Failure(diagnostics: diags.sorted)) }
        // Canonical form has no anchors: rewriting would expand every alias into a copy.
        if text.utf8.contains(0x2A), usesAlias(root.node) {
            diags.error(SourceLocation(file: file, line: 1, column: 1), code: "fmt-aliases",
                        "`fmt` does not rewrite files that use YAML aliases (`*name`): canonical form would expand them",
                        help: "write the entries out, or leave this file as it is")
            return .failure(Failure(diagnostics: diags.sorted))
        }
        var f = Emitter(text: text, file: file)
        f.collectComments()
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

enum Context: Equatable {
    case top, groups, group, users, user, volumes, volume, defaults, tree, node, imports, importItem, apps, app,
         bookmarks, bookmark, tcc, device, steps, step, expect, expectation, acl, plain
}

struct Emitter {
    let text: String
    let file: String
    let srcLines: [Substring]
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
        self.srcLines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    // MARK: Comments

    mutating func collectComments() {
        var blockIndent: Int? = nil
        for (i, raw) in srcLines.enumerated() {
            let line = i + 1
            let indent = raw.prefix { $0 == " " }.count
            let trimmed = raw.drop { $0 == " " || $0 == "\t" }
            if let b = blockIndent {
                if trimmed.isEmpty || indent > b { continue }
                blockIndent = nil
            }
            if trimmed.hasPrefix("#") { fullComments.append((line, String(trimmed))); continue }
            if let hash = commentStart(raw) {
                trailing[line] = String(raw[hash...])
            }
            let content = commentStart(raw).map { raw[..<$0] } ?? raw[...]
            let t = content.trimmingCharacters(in: .whitespaces)
            if t.hasSuffix("|") || t.hasSuffix(">") || t.hasSuffix("|-") || t.hasSuffix(">-") || t.hasSuffix("|+") { blockIndent = indent }
        }
    }

    /// Index of a `#` that starts a comment (outside quotes, after a space or at the start).
    func commentStart(_ s: Substring) -> Substring.Index? {
        var inSingle = false, inDouble = false
        var prev: Character = " "
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == "\"" && !inSingle && prev != "\\" { inDouble.toggle() }
            else if c == "'" && !inDouble { inSingle.toggle() }
            else if c == "#" && !inSingle && !inDouble && (prev == " " || prev == "\t") { return i }
            prev = c
            i = s.index(after: i)
        }
        return nil
    }

    mutating func collectOwners(_ n: YNode) {
        if let m = n.mapping {
            for (k, v) in m { ownerLines.append(k.loc.line); collectOwners(v) }
        } else if let s = n.sequence {
            for it in s { ownerLines.append(it.loc.line); collectOwners(it) }
        }
    }

    mutating func assignComments() {
        let owners = Array(Set(ownerLines)).sorted()
        for c in fullComments {
            if let o = owners.first(where: { $0 > c.line }) { before[o, default: []].append(c.text) }
            else { endComments.append(c.text) }
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
        if let sc = n.scalar, sc.contains("\n") { m = max(m, n.loc.line + sc.split(separator: "\n", omittingEmptySubsequences: false).count) }
        return m
    }

    // MARK: Key order

    func keyOrder(_ ctx: Context) -> [String]? {
        switch ctx {
        case .top: return ["fspolicy", "semantics", "description", "securelevel", "import", "groups", "users", "volumes",
                           "defaults", "tree", "apps", "device", "steps", "expect"]
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

    func scalarText(_ n: YNode) -> String {
        guard case .scalar(let s) = n.node else { return "" }
        switch s.style {
        case .singleQuoted: return "'" + s.string.replacingOccurrences(of: "'", with: "''") + "'"
        case .doubleQuoted: return JSON.quote(s.string)
        case .literal, .folded: return JSON.quote(s.string)
        default:
            if s.string.isEmpty { return "" }
            return needsQuoting(s.string) ? JSON.quote(s.string) : s.string
        }
    }

    /// An ACE of an `acl` list in canonical form: single spaces between the words, and the
    /// rights after `allow`/`deny` separated by commas alone (`read, write` and `read write`
    /// become `read,write`). Text that is not a macOS ACE (a POSIX entry) is left alone; nil
    /// when nothing changes.
    func canonicalACE(_ s: String) -> String? {
        let tokens = s.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let k = tokens.firstIndex(where: { $0 == "allow" || $0 == "deny" }), k >= 1, k <= 3, k + 1 < tokens.count else { return nil }
        let rights = tokens[(k + 1)...].joined(separator: ",").split(separator: ",").joined(separator: ",")
        let text = tokens[...k].joined(separator: " ") + " " + rights
        return text == s ? nil : text
    }

    func needsQuoting(_ s: String) -> Bool {
        if s.contains(": ") || s.contains(" #") || s.hasSuffix(":") || s.contains("\n") { return true }
        if let f = s.first, "{}[],&*!|>'\"%@`#".contains(f) { return true }
        if s.hasPrefix("- ") || s.hasPrefix("? ") { return true }
        return false
    }

    func isScalar(_ n: YNode) -> Bool { n.scalar != nil }

    func isFlatList(_ n: YNode) -> Bool { n.sequence?.allSatisfy(isScalar) ?? false }

    /// Flow text of a node if it can be written on one line.
    func flow(_ n: YNode, _ ctx: Context) -> String? {
        if isScalar(n) {
            if let s = n.scalar, s.contains("\n") { return nil }
            if ctx == .acl, let s = n.scalar, !n.isNull, let c = canonicalACE(s) { return JSON.quote(c) }
            return n.isNull ? "" : scalarText(n)
        }
        if let s = n.sequence {
            if ctx == .acl && !s.isEmpty { return nil }
            var parts: [String] = []
            for it in s { guard isScalar(it), let t = flow(it, .plain) else { return nil }; parts.append(t) }
            return "[" + parts.joined(separator: ", ") + "]"
        }
        if let m = n.mapping {
            var parts: [String] = []
            for (k, v) in ordered(m, ctx) {
                let cctx = childContext(ctx, key: k.scalar ?? "")
                guard isScalar(v) || isFlatList(v) || (v.mapping?.allSatisfy { isScalar($0.value) } ?? false) && cctx == .tcc,
                      let t = flow(v, cctx) else { return nil }
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
            let head = pad + scalarText(k) + ":"
            let endLine = max(k.loc.line, lastLine(v))
            if v.isNull {
                let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: k.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                emit(head, trailing: c.trailing)
                continue
            }
            if let s = v.scalar, s.contains("\n") {
                let c = takeComments(lines: k.loc.line...k.loc.line, keepTrailingOf: k.loc.line)
                lines.append(contentsOf: c.before.map { pad + $0 })
                emit(head + " |", trailing: c.trailing)
                var body = s
                if body.hasSuffix("\n") { body.removeLast() }
                for l in body.split(separator: "\n", omittingEmptySubsequences: false) { lines.append(l.isEmpty ? "" : pad + "  " + l) }
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
                emit(head, trailing: c.trailing)
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
            if let m = it.mapping {
                // Block mapping inside a list item: first key on the dash line.
                let start = lines.count
                emitMapping(m, indent: indent + 2, context: ictx)
                if start < lines.count {
                    var firstLine = lines[start]
                    firstLine = pad + "- " + firstLine.dropFirst(indent + 2)
                    lines[start] = firstLine
                }
                if let t = c.trailing { lines[start] += "  " + t }
            } else if let seq = it.sequence {
                emit(pad + "-", trailing: c.trailing)
                emitSequence(seq, indent: indent + 2, context: ictx)
            } else {
                emit(pad + "- " + scalarText(it), trailing: c.trailing)
            }
        }
    }
}
