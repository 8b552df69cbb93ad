import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import Foundation

enum LintFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif
}

extension LintSeverity: ExpressibleByArgument {}

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Findings about a tree and its apps: the catalog of docs/findings.md (world-writable, setuid, home and service directories, ACL hygiene, exposed secrets, apps).",
        discussion: """
        Runs the catalog of docs/findings.md over each file's tree (after its steps) under the \
        file's rule set. Text output groups the findings by rule, with a count per rule; JSON and \
        SARIF carry the same findings (SARIF lists every rule of the catalog in \
        tool.driver.rules).

        Examples:
          fspolicy lint fixtures/lint/world-writable-directory.yaml
          fspolicy lint fixtures/lint/setid-writable-by-others.yaml --format sarif
          fspolicy lint fixtures/lint/world-writable-file.yaml --fail-on warning

        Exit codes: 0 no finding at or above --fail-on · 1 some · 3 invalid input.
        """)

    @Argument(help: "Policy files or scans.") var files: [String]
    @Option(name: .long, help: "text, json or sarif.") var format: LintFormat = .text
    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding has this severity or a higher one: note, warning or error.") var failOn: LintSeverity = .error
    @Option(name: .long, help: "Write to this file instead of standard output.") var output: String?
    @Option(name: .long, help: "Rule set that decides, overriding the files: macos, guide or linux.") var semantics: Semantics?

    typealias Item = LintItem

    func run() throws {
        var items: [Item] = []
        var runs: [(String, Semantics)] = []
        for file in files {
            let p = try loadOrExit(file, semantics: semantics)
            let (sem, found) = LintItem.collect(p, file: file, semantics: semantics)
            runs.append((file, sem))
            items += found
        }
        let sink = try OutputSink(path: output)
        switch format {
        case .text: sink.write(text(items))
        case .json: sink.write(json(items, runs).render() + "\n")
        case .sarif: sink.write(sarif(items).render() + "\n")
        }
        sink.close()
        if items.contains(where: { $0.finding.severity >= failOn }) { throw ExitCode(1) }
    }

    func place(_ i: Item) -> String {
        if let l = i.location, l.line > 0 { return "\(i.file):\(l.line):\(max(1, l.column))" }
        return i.file
    }

    func text(_ items: [Item]) -> String {
        var out = ""
        for rule in LintCatalog.rules {
            let mine = items.filter { $0.finding.code == rule.code }
            if mine.isEmpty { continue }
            out += "\(rule.code) \(rule.name) (\(rule.severity.rawValue)): \(mine.count) finding\(mine.count == 1 ? "" : "s")\n"
            for i in mine {
                let what = i.finding.path.isEmpty ? "" : "\(safe(i.finding.path)): "
                out += "  \(safe(place(i))): \(what)\(safe(i.finding.message))\n"
                out += "    fix: \(safe(i.finding.fix))\n"
            }
        }
        let counts = LintSeverity.allCases.reversed().map { s in (s, items.filter { $0.finding.severity == s }.count) }.filter { $0.1 > 0 }
        if items.isEmpty {
            out += "no findings in \(files.count) file\(files.count == 1 ? "" : "s")\n"
        } else {
            out += "\(items.count) finding\(items.count == 1 ? "" : "s"): " + counts.map { "\($0.1) \($0.0.rawValue)\($0.1 == 1 ? "" : "s")" }.joined(separator: ", ") + "\n"
        }
        return out
    }

    func json(_ items: [Item], _ runs: [(String, Semantics)]) -> JSON {
        .object([
            ("schemaVersion", .int(1)),
            ("files", .array(runs.map { .object([("file", .string($0.0)), ("semantics", .string($0.1.rawValue))]) })),
            ("findings", .array(items.map { i in
                var f: [(String, JSON)] = [
                    ("code", .string(i.finding.code)), ("rule", .string(LintCatalog.rule(i.finding.code)?.name ?? "")),
                    ("severity", .string(i.finding.severity.rawValue)), ("file", .string(i.file)),
                ]
                if let l = i.location, l.line > 0 { f.append(("line", .int(l.line))); f.append(("column", .int(max(1, l.column)))) }
                f += [("path", .string(i.finding.path)), ("message", .string(i.finding.message)), ("fix", .string(i.finding.fix)),
                      ("affected", .array(i.finding.affected.map { .string($0) })), ("semantics", .string(i.semantics.rawValue))]
                return .object(f)
            })),
            ("counts", .object(LintSeverity.allCases.reversed().map { s in (s.rawValue, .int(items.filter { $0.finding.severity == s }.count)) })),
        ])
    }

    func sarif(_ items: [Item]) -> JSON {
        let rules = LintCatalog.rules
        let results: [JSON] = items.map { i in
            var loc: [(String, JSON)] = [("artifactLocation", .object([("uri", .string(i.file))]))]
            if let l = i.location, l.line > 0 {
                loc.append(("region", .object([("startLine", .int(l.line)), ("startColumn", .int(max(1, l.column)))])))
            }
            return .object([
                ("ruleId", .string(i.finding.code)),
                ("ruleIndex", .int(rules.firstIndex { $0.code == i.finding.code } ?? 0)),
                ("level", .string(i.finding.severity.rawValue)),
                ("message", .object([("text", .string((i.finding.path.isEmpty ? "" : "\(i.finding.path): ") + "\(i.finding.message). Fix: \(i.finding.fix)"))])),
                ("locations", .array([.object([
                    ("physicalLocation", .object(loc)),
                    ("logicalLocations", .array([.object([("fullyQualifiedName", .string(i.finding.path)), ("kind", .string("resource"))])])),
                ])])),
                ("properties", .object([("path", .string(i.finding.path)), ("fix", .string(i.finding.fix)),
                                        ("affected", .array(i.finding.affected.map { .string($0) })),
                                        ("semantics", .string(i.semantics.rawValue))])),
            ])
        }
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object([
                    ("name", .string("fspolicy")), ("version", .string(fspolicyVersion)),
                    ("rules", .array(rules.map { r in .object([
                        ("id", .string(r.code)), ("name", .string(r.name)),
                        ("shortDescription", .object([("text", .string(r.summary))])),
                        ("fullDescription", .object([("text", .string(r.description))])),
                        ("helpUri", .string("docs/findings.md#" + r.anchor)),
                        ("help", .object([("text", .string("See docs/findings.md, section \"\(r.code) \(r.name)\"."))])),
                        ("defaultConfiguration", .object([("level", .string(r.severity.rawValue))])),
                        ("properties", .object([("semantics", .array(r.semantics.map { .string($0.rawValue) }))])),
                    ]) })),
                ]))])),
                ("results", .array(results)),
            ])])),
        ])
    }
}

/// One finding of one input file, with where the file declares its node.
struct LintItem {
    var file: String
    var semantics: Semantics
    var finding: LintFinding
    var location: SourceLocation?

    /// The findings of a loaded policy (its tree after its steps, and its apps) under its rule
    /// set or `semantics`.
    static func collect(_ p: Policy, file: String, semantics: Semantics?) -> (Semantics, [LintItem]) {
        let ev = Evaluator(policy: p, semantics: semantics, tracing: false)
        let world = ev.world(after: ev.worlds.count - 1)
        let users = p.userOrder.compactMap { n in p.world.user(named: n).map { (name: n, subject: world.subject(uid: $0.uid)) } }
        var items: [LintItem] = []
        for f in Linter.run(world: world, semantics: ev.semantics, subjects: users) {
            items.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: p.nodeLocations[f.path]))
        }
        // The app findings (docs/sandbox.md), under the catalog's codes.
        var policy = p
        policy.semantics = ev.semantics
        for d in Findings.analyze(policy) {
            guard let rule = LintCatalog.rule(appCode: d.code), rule.semantics.contains(ev.semantics) else { continue }
            let f = LintFinding(code: rule.code, severity: rule.severity, node: -1, path: "", message: d.message,
                                fix: d.help ?? "", affected: [], detail: d.message)
            items.append(LintItem(file: file, semantics: ev.semantics, finding: f, location: d.location))
        }
        let order = Dictionary(uniqueKeysWithValues: LintCatalog.rules.enumerated().map { ($1.code, $0) })
        // Catalog order, then the order each rule found them in (stable).
        let sorted = items.enumerated().sorted { a, b in
            let (x, y) = (order[a.element.finding.code] ?? 0, order[b.element.finding.code] ?? 0)
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        return (ev.semantics, sorted)
    }
}
