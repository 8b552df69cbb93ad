import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// The report's Keychain section (docs/keychain.md, docs/report.md): for each file with a
/// `keychain:` section, its items and what each history step and expectation answered. Plain
/// HTML, complete without JavaScript; every value escaped.
extension HTMLReport {
    /// `outcomes`: each input's keychain outcomes (nil without a keychain), in input order.
    static func keychainSection(_ inputs: [ReportInput], outcomes all: [[KeychainOutcome]?]) -> String {
        let withKeychain = zip(inputs, all).filter { $0.0.policy.keychain != nil }
        guard !withKeychain.isEmpty else { return "" }
        func e(_ s: String) -> String { html(Escaping.line(s)) }
        var out = "<section class=\"list\" id=\"keychain\" aria-labelledby=\"h-keychain\"><h2 id=\"h-keychain\">Keychain</h2>\n"
        let r = KeychainRenderer(style: Style(enabled: false))
        for (input, kept) in withKeychain {
            guard let kc = input.policy.keychain else { continue }
            out += "<h3>\(e(input.policy.file))</h3>\n<p>Device: \(e(r.deviceWords(kc.initial.device)))</p>\n"
            out += "<table><thead><tr><th>item</th><th>group</th><th>accessible</th><th>sync</th><th>access control</th></tr></thead><tbody>\n"
            for i in kc.initial.items {
                out += "<tr><td>\(e(i.name))</td><td>\(e(i.store == .fileBased ? "(file-based)" : i.group))</td><td>\(e(i.accessible.rawValue))</td>"
                out += "<td>\(i.synchronizable ? "yes" : "no")</td><td>\(e(i.accessControl?.text ?? "-"))</td></tr>\n"
            }
            out += "</tbody></table>\n"
            let outcomes = kept ?? []
            guard !outcomes.isEmpty else { continue }
            out += "<table><thead><tr><th>step</th><th>answer</th><th>rule</th><th>expected</th></tr></thead><tbody>\n"
            for o in outcomes {
                let answer = o.answer.map { $0.status.text } ?? o.steps.map(\.text).joined(separator: "; ")
                let rule = o.answer.map { "\($0.rule.info.number) \($0.rule.rawValue)" } ?? ""
                let expected = o.isCheck ? KeychainReport.expected(o.entry) + (o.passed ? " — passed" : " — FAILED") : ""
                out += "<tr><td>\(e(KeychainReport.label(o)))</td><td>\(e(answer))</td><td>\(e(rule))</td><td>\(e(expected))</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        return out + "</section>\n"
    }
}
