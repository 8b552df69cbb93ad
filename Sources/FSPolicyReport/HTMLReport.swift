import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// `fspolicy report`: one self-contained HTML page (docs/report.md). Everything is inline — the
/// data as a JSON block, one style sheet, one script — and the page declares a
/// Content-Security-Policy that allows exactly that style sheet and that script (by their
/// SHA-256) and nothing else: no network, no other script, no inline handler.
/// Why no page was written.
public struct ReportError: Error, Sendable {
    public var message: String
    /// What was built before the report was refused.
    public var stats = ReportStats()
}

public enum HTMLReport {
    /// The page, and the sizes of what it holds. The same inputs give the same bytes.
    public static func render(_ inputs: [ReportInput], options: ReportOptions = ReportOptions(), version: String) throws(ReportError) -> (
        html: String, stats: ReportStats
    ) {
        let b = ReportBuilder(options: options)
        var budget = options.explainedCells
        let worlds = inputs.map { b.world($0, explainBudget: &budget) }
        if let why = b.tooBig { throw ReportError(message: why, stats: b.stats) }
        let data = JSON.object([
            ("version", .int(1)),
            ("tool", .string(options.toolName)),
            ("lines", .array(b.lines.map { .string($0) })),
            ("worlds", .array(worlds))
        ])
        var json = ""
        json.reserveCapacity(1 << 20)
        compact(data, into: &json)

        let css = PageStyle.text
        let js = PageScript.text
        let csp = "default-src 'none'; script-src \(SHA256.cspSource(js)); style-src \(SHA256.cspSource(css)); img-src data:"
        let files = inputs.map { Escaping.line($0.policy.file) }
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(csp)\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"color-scheme\" content=\"light dark\">\n"
        out += "<meta name=\"generator\" content=\"fspolicy \(html(version))\">\n"
        out += "<title>fspolicy report: \(html(files.joined(separator: ", ")))</title>\n"
        out += "<style>" + css + "</style>\n</head>\n<body>\n"
        out += "<header>\n<h1>fspolicy report</h1>\n"
        // Each keychain's history is run once, for the summary and for its section.
        let keychains = inputs.map { $0.policy.keychain?.outcomes() }
        for (k, input) in inputs.enumerated() {
            out += summary(input, file: files[k], stats: worlds[k], keychain: keychains[k])
        }
        out += "</header>\n"
        out += "<noscript><p>The tree, the grid and the search need JavaScript; the summary above is complete without it.</p></noscript>\n"
        out += "<div id=\"app\" hidden>\n"
        out += "<nav aria-label=\"Search and filter\">\n"
        out += "<label id=\"world-field\">File <select id=\"world\"></select></label>\n"
        out += "<label>Search <input id=\"search\" type=\"search\" placeholder=\"part of a path, or an owner or group name\" autocomplete=\"off\"></label>\n"
        out += "<label>Show only what <select id=\"f-user\"></select> can <select id=\"f-op\"></select></label>\n"
        out += "</nav>\n<div id=\"results\" role=\"region\" aria-label=\"Search results\" aria-live=\"polite\" hidden></div>\n"
        out += "<main>\n<section id=\"tree-pane\" aria-label=\"Tree\"><ul id=\"tree\" role=\"tree\" aria-label=\"The file tree\"></ul></section>\n"
        out += "<section id=\"node-pane\" aria-labelledby=\"node-title\"><h2 id=\"node-title\"></h2><div id=\"node-info\"></div>\n"
        out += "<table id=\"grid\" role=\"grid\"></table>\n<div id=\"explain\" aria-live=\"polite\"></div></section>\n</main>\n"
        out += "</div>\n"
        out +=
            "<section class=\"list\" id=\"expectations\" aria-labelledby=\"h-expect\"><h2 id=\"h-expect\">Expectations (check)</h2><div id=\"expect-list\"></div></section>\n"
        out +=
            "<section class=\"list\" id=\"findings\" aria-labelledby=\"h-lint\"><h2 id=\"h-lint\">Findings (lint)</h2><div id=\"lint-list\"></div></section>\n"
        out += keychainSection(inputs, outcomes: keychains)
        out += "<footer>Made by fspolicy \(html(version)). Every answer in this page was decided by fspolicy when the page was made; "
        out +=
            "full explanations are embedded for \(b.stats.explainedNodes) of \(b.stats.nodes) nodes, the others name the command that prints them.</footer>\n"
        out += "<script type=\"application/json\" id=\"data\">" + json + "</script>\n"
        out += "<script>" + js + "</script>\n</body>\n</html>\n"
        return (out, b.stats)
    }

    static func summary(_ input: ReportInput, file: String, stats w: JSON, keychain: [KeychainOutcome]? = nil) -> String {
        var expect = (0, 0, 0), lint = (0, 0, 0), count = 0
        if case .object(let fields) = w {
            for (k, v) in fields {
                if k == "count", case .int(let n) = v { count = n }
                if k == "expect", case .object(let e) = v {
                    for (ek, ev) in e {
                        if case .int(let n) = ev {
                            if ek == "count" { expect.0 = n } else if ek == "passed" { expect.1 = n } else if ek == "failed" { expect.2 = n }
                        }
                    }
                }
                if k == "lint", case .array(let items) = v {
                    for item in items {
                        if case .object(let f) = item, let sev = f.first(where: { $0.0 == "severity" }), case .string(let s) = sev.1 {
                            if s == "error" { lint.0 += 1 } else if s == "warning" { lint.1 += 1 } else { lint.2 += 1 }
                        }
                    }
                }
            }
        }
        var s = "<ul class=\"summary\" aria-label=\"Summary of \(html(file))\">"
        s += "<li><strong>\(html(file))</strong></li>"
        let others = input.semantics.dropFirst().map(\.rawValue)
        s += "<li>rule set: \(input.semantics[0].rawValue)" + (others.isEmpty ? "" : ", compared with " + others.joined(separator: " and ")) + "</li>"
        s += "<li>\(count) node\(count == 1 ? "" : "s")</li>"
        s +=
            opsLine(input)
        s += "<li>expectations: \(expect.0), \(expect.1) passed, "
        s += expect.2 > 0 ? "<strong>\(expect.2) failed</strong></li>" : "0 failed</li>"
        if let outcomes = keychain {
            // The keychain's expectations are counted apart (its section lists them).
            let c = KeychainReport.counts([(file, outcomes)])
            s += "<li>keychain expectations: \(c.expectations), \(c.expectations - c.failed) passed, "
            s += c.failed > 0 ? "<strong>\(c.failed) failed</strong></li>" : "0 failed</li>"
        }
        s += "<li>findings: \(lint.0) error\(lint.0 == 1 ? "" : "s"), \(lint.1) warning\(lint.1 == 1 ? "" : "s"), \(lint.2) note\(lint.2 == 1 ? "" : "s")</li>"
        return s + "</ul>\n"
    }

    /// Text for HTML (element content and quoted attribute values).
    public static func html(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// JSON without spaces, safe inside a `<script>` element: `<`, `>`, `&`, U+2028, U+2029
    /// (and every unsafe code point) are `\uXXXX`, so no `</script>` or `<!--` can appear.
    static func compact(_ j: JSON, into out: inout String) {
        switch j {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .string(let s): JSON.quote(s, htmlSafe: true, into: &out)
        case .array(let a):
            out += "["
            for (k, x) in a.enumerated() {
                if k > 0 { out += "," }
                compact(x, into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (k, x) in o.enumerated() {
                if k > 0 { out += "," }
                JSON.quote(x.0, htmlSafe: true, into: &out)
                out += ":"
                compact(x.1, into: &out)
            }
            out += "}"
        }
    }
}

extension HTMLReport {
    /// The summary's line of users and ops: the ops by node type when the grid shows them so.
    static func opsLine(_ input: ReportInput) -> String {
        let users = "\(input.users.count) user\(input.users.count == 1 ? "" : "s")"
        guard let t = input.opsByType else {
            return "<li>\(users) × \(input.ops.count) op\(input.ops.count == 1 ? "" : "s"): \(html(input.ops.map(\.word).joined(separator: ", ")))</li>"
        }
        func words(_ ks: [Int]) -> String { html(ks.map { input.ops[$0].word }.joined(separator: ", ")) }
        return "<li>\(users) × \(t.file.count) ops a node: \(words(t.file)) on files; \(words(t.directory)) on directories</li>"
    }
}
