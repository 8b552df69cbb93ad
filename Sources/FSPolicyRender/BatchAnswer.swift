import FSPolicy
import FSPolicyFormat

/// The answers of `can --batch`: one line each, as text (tab-separated) or as a JSON object.
///
/// Text: `allow`, `deny<TAB>ERRNO<TAB>layer<TAB>rule` (`unknown` in place of `deny` when the
/// answer is not known; `-` when there is no errno), or `error<TAB>message` for a line that is not
/// a valid question. JSON Lines: `{"line": N, "answer": "allow"}`, the same with `errno`, `layer`
/// and `rule` for a denial, or `{"line": N, "error": MESSAGE}`. The line number is the question's
/// line in its input.
public enum BatchAnswer {
    /// A decision's answer line, without the newline.
    public static func line(_ d: Decision, jsonl: Bool, line: Int) -> String {
        let answer = d.allowed ? "allow" : d.unknown ? "unknown" : "deny"
        if jsonl {
            if d.allowed { return "{\"line\": \(line), \"answer\": \"allow\"}" }
            let errno = d.errno.map { JSON.quote($0.rawValue) } ?? "null"
            return
                "{\"line\": \(line), \"answer\": \"\(answer)\", \"errno\": \(errno), \"layer\": \(JSON.quote(d.layer.rawValue)), \"rule\": \(JSON.quote(d.rule.rawValue))}"
        }
        if d.allowed { return answer }
        return "\(answer)\t\(d.errno?.rawValue ?? "-")\t\(d.layer.rawValue)\t\(d.rule.rawValue)"
    }

    /// The answer to a line that is not a valid question, without the newline. In text, the
    /// message's tabs and line breaks become spaces, so the answer stays one line of fields.
    public static func error(_ message: String, jsonl: Bool, line: Int) -> String {
        if jsonl { return "{\"line\": \(line), \"error\": \(JSON.quote(message))}" }
        var text = ""
        text.unicodeScalars.reserveCapacity(message.unicodeScalars.count + 6)
        text += "error\t"
        for s in message.unicodeScalars { text.unicodeScalars.append(s == "\t" || s == "\n" ? " " : s) }
        return text
    }

    /// The line `allow` with its newline, as bytes: the common answer, appended as it is.
    public static let allowLine: [UInt8] = Array("allow\n".utf8)
}
