import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// Content-Security-Policy sources for the report's inline script and style.
extension SHA256 {
    /// `sha256-…` as a Content-Security-Policy source for an inline element whose text is `text`.
    public static func cspSource(_ text: String) -> String { "'sha256-" + base64(digest(Array(text.utf8))) + "'" }

    public static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i]), b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0, b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? table[Int(n >> 6 & 63)] : "=")
            out.append(i + 2 < bytes.count ? table[Int(n & 63)] : "=")
            i += 3
        }
        return out
    }
}
