import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit

/// The fuzz targets: each takes arbitrary bytes and checks a property that must hold for every
/// input; a violation stops the process (`fatalError`), which libFuzzer records as a crash with
/// the input that caused it. The same functions replay a corpus in an ordinary build
/// (`fspolicy-fuzz TARGET FILE…`), which is how `scripts/test` runs the seeds and every input a
/// fuzzer ever found.
enum FuzzTargets {
    static let names = ["loader", "fmt", "ace", "getfacl", "scanwriter", "tar", "oci", "lsle", "plist"]

    /// The file being replayed (empty under libFuzzer, which saves the input itself).
    nonisolated(unsafe) static var inputName = ""

    static func fail(_ message: String) -> Never {
        fatalError((inputName.isEmpty ? "" : "input \(inputName): ") + message)
    }

    static func run(_ target: String, _ data: [UInt8]) {
        switch target {
        case "loader": loader(data)
        case "fmt": fmt(data)
        case "ace": ace(data)
        case "getfacl": getfacl(data)
        case "scanwriter": scanWriter(data)
        case "tar": tar(data)
        case "oci": oci(data)
        case "lsle": lsle(data)
        case "plist": plist(data)
        default: fail("unknown fuzz target \(target)")
        }
    }

    /// Nothing a diagnostic says may carry a control character other than its line breaks, or
    /// any other code point the one escaping rule calls unsafe.
    static func requireSafe(_ text: String, _ what: String) {
        for u in text.unicodeScalars where u != "\n" {
            if Escaping.isUnsafe(u.value) { fail("\(what) carries U+\(String(u.value, radix: 16, uppercase: true)) raw") }
        }
    }

    /// Lines as YAML (and editors) count them: CR LF, a lone CR, LF, NEL and the Unicode line
    /// and paragraph separators each end one.
    static func yamlLines(_ text: String) -> Int {
        var n = 1
        var afterCR = false
        for u in text.unicodeScalars {
            switch u {
            case "\r": n += 1; afterCR = true; continue
            case "\n": if !afterCR { n += 1 }
            case "\u{85}", "\u{2028}", "\u{2029}": n += 1
            default: break
            }
            afterCR = false
        }
        return n
    }

    /// Any bytes: the loader answers with a policy or diagnostics, each safe to print, at a
    /// position inside the text; a valid file's expectations can all be decided.
    static func loader(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        let p = PolicyLoader.load(text: text, file: "fuzz.yaml")
        let lines = yamlLines(text)
        for d in p.diagnostics.sorted {
            requireSafe(Escaping.terminal(d.rendered), "a diagnostic as printed")
            if d.location.file == "fuzz.yaml" && d.location.line > lines + 1 {
                fail("diagnostic at line \(d.location.line) of a \(lines)-line text: \(d.rendered)")
            }
        }
        guard !p.diagnostics.sorted.contains(where: { $0.severity == .error }) else { return }
        let report = Evaluator(policy: p).checkAll()
        _ = report.outcomes.count
    }

    /// `fmt` either refuses with diagnostics or gives a text that formats to itself and loads to
    /// the same world with the same expectations (the round trip that catches lost characters,
    /// re-typed scalars and moved comments).
    static func fmt(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        guard case .success(let once) = Formatter.format(text, file: "fuzz.yaml") else { return }
        guard case .success(let twice) = Formatter.format(once, file: "fuzz.yaml") else {
            fail("fmt's own output is refused by fmt:\n\(once)")
        }
        if twice != once { fail("fmt is not idempotent:\n--- once\n\(once)\n--- twice\n\(twice)") }
        let a = PolicyLoader.load(text: text, file: "fuzz.yaml"), b = PolicyLoader.load(text: once, file: "fuzz.yaml")
        let aOK = !a.diagnostics.sorted.contains { $0.severity == .error }
        let bOK = !b.diagnostics.sorted.contains { $0.severity == .error }
        if aOK != bOK {
            fail(
                "fmt changed whether the file is valid (\(aOK) → \(bOK)):\n\(b.diagnostics.sorted.map(\.rendered).joined(separator: "\n"))\n--- input\n\(text)\n--- formatted\n\(once)"
            )
        }
        guard aOK else { return }
        let fa = Fingerprint.of(a), fb = Fingerprint.of(b)
        if fa != fb { fail("fmt changed the document:\n--- before\n\(fa)\n--- after\n\(fb)\n--- formatted\n\(once)") }
    }

    static let resolver = ACENameResolver(user: { ["alice": 501, "bob": 502][$0] }, group: { ["staff": 20, "admin": 80][$0] })

    /// ACE and POSIX ACL entry text: parsed or refused with a position inside the text.
    static func ace(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        switch ACE.parse(text, resolver: resolver) {
        case .success: break
        case .failure(let e): requireSafe(Escaping.terminal(String(describing: e)), "an ACE error as printed")
        }
        _ = POSIXACLLine.parse(text, user: { ["alice": 501, "bob": 502][$0] }, group: { ["staff": 20][$0] })
    }

    /// A `getfacl -R` dump: blocks, or an error on a line of the text.
    static func getfacl(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        if case .failure(let e) = GetfaclDump.parse(text, user: { ["alice": 501][$0] }, group: { ["staff": 20][$0] }) {
            if e.line < 1 || e.line > lines + 1 { fail("getfacl error at line \(e.line) of \(lines)") }
        }
    }

    /// Any names (any bytes but `/` and NUL) with any modes, written by `scan`'s writer, load
    /// back to the same tree: every name found, with its type and mode.
    static func scanWriter(_ data: [UInt8]) {
        var tree = ScannedTree(root: "/fz")
        tree.entries.append(.init(relativePath: "", type: .dir, uid: 0, gid: 0, mode: FileMode(0o755)))
        var seen: Set<String> = [""]
        var expected: [(String, NodeType, FileMode)] = []
        for (i, chunk) in data.split(separator: 0, omittingEmptySubsequences: true).prefix(64).enumerated() {
            var bytes = Array(chunk.dropFirst()).map { $0 == 0x2F ? 0x5F : $0 }
            if bytes.isEmpty || bytes == [0x2E] || bytes == [0x2E, 0x2E] { bytes = Array("n\(i)".utf8) }
            if bytes.count > 255 { bytes = Array(bytes.prefix(255)) }
            let name = NameEscaping.escape(bytes)
            guard !seen.contains(name) else { continue }
            seen.insert(name)
            let m = chunk.first ?? 0
            let type: NodeType = m & 0x80 != 0 ? .dir : (m & 0x40 != 0 ? .symlink : .file)
            let mode = FileMode(UInt16(m & 0x3F) << 3 | 0o400)
            var e = ScannedTree.Entry(relativePath: name, type: type, uid: 0, gid: 0, mode: mode)
            if type == .symlink { e.target = name }
            tree.entries.append(e)
            expected.append((name, type, mode))
        }
        let text = ScanWriter.yaml(tree)
        let p = PolicyLoader.load(text: text, file: "scan.yaml")
        if let err = p.diagnostics.sorted.first(where: { $0.severity == .error }) {
            fail("scan output does not load: \(err.rendered)\n\(text)")
        }
        for (name, type, mode) in expected {
            guard let id = p.world.lookup("/fz/" + name) else { fail("`\(name)` is missing after the round trip\n\(text)") }
            let n = p.world[id]
            if n.type != type || (type != .symlink && n.mode.rawValue != mode.rawValue) {
                fail("`\(name)` came back as \(n.type) \(n.mode), written as \(type) \(mode)")
            }
            if type == .symlink && p.world.symlinkTargets[id] != name { fail("`\(name)`'s target changed") }
        }
    }
}

/// What a loaded policy says, in path order (node ids depend on the order of declaration).
enum Fingerprint {
    static func of(_ p: Policy) -> String {
        let w = p.world
        var lines: [String] = ["semantics \(p.semantics)"]
        for u in w.users { lines.append("user \(u)") }
        for g in w.groups { lines.append("group \(g)") }
        for v in w.volumes { lines.append("volume \(v)") }
        var nodes: [(String, String)] = []
        for i in 0..<w.nodeCount {
            let id = NodeID(i)
            let n = w[id]
            var s = "\(n.type) \(n.uid):\(n.gid) \(n.mode) \(n.flags) \(n.protection) declared=\(n.declared)"
            if let a = w.acl(of: id) { s += " acl=\(a)" }
            if let a = w.posixACL(of: id) { s += " posix=\(a)" }
            if let a = w.defaultPOSIXACL(of: id) { s += " default=\(a)" }
            if let t = w.symlinkTargets[id] { s += " target=\(t)" }
            nodes.append((w.path(of: id), s))
        }
        for (path, s) in nodes.sorted(by: { $0.0 < $1.0 }) { lines.append("\(path) \(s)") }
        for e in p.expectations {
            lines.append("expect \(e.request) \(String(describing: e.result)) \(String(describing: e.errno)) \(String(describing: e.allowed))")
        }
        lines.append("steps \(p.steps.count)")
        return lines.joined(separator: "\n")
    }
}
