/// Specifiers in a unit file's options (`%i`, `%S`, …), resolved as systemd resolves them for a
/// service of the system manager (systemd.unit(5), "Specifiers"; docs/services.md).
enum UnitSpecifiers {
    /// The specifiers whose value depends only on the unit's name or on the system manager
    /// (for the system manager the user specifiers are root's, whatever `User=` says).
    static func value(of c: Character, unit: String) -> String? {
        let stem = unit.hasSuffix(".service") ? String(unit.dropLast(".service".count)) : unit
        let at = stem.firstIndex(of: "@")
        let prefix = at.map { String(stem[..<$0]) } ?? stem
        let instance = at.map { String(stem[stem.index(after: $0)...]) } ?? ""
        switch c {
        case "n": return unit
        case "N": return stem
        case "p": return prefix
        case "P": return unescape(prefix)
        case "i": return instance
        case "I": return unescape(instance)
        case "j": return prefix.split(separator: "-", omittingEmptySubsequences: false).last.map(String.init) ?? prefix
        case "J": return unescape(prefix.split(separator: "-", omittingEmptySubsequences: false).last.map(String.init) ?? prefix)
        case "f":
            let u = unescape(at != nil ? instance : prefix)
            return u.hasPrefix("/") ? u : "/" + u
        case "u", "g": return "root"
        case "U", "G": return "0"
        case "h": return "/root"
        case "t": return "/run"
        case "S": return "/var/lib"
        case "C": return "/var/cache"
        case "L": return "/var/log"
        case "E": return "/etc"
        case "T": return "/tmp"
        case "V": return "/var/tmp"
        case "%": return "%"
        default: return nil  // the host's name, machine, boot, kernel, OS: not known offline
        }
    }

    /// `text` with its specifiers replaced, and the specifiers that could not be (`%H`); a `%` at
    /// the end is one of them.
    static func resolve(_ text: String, unit: String) -> (String, [String]) {
        guard text.contains("%") else { return (text, []) }
        var out = ""
        var unresolved: [String] = []
        var it = text.makeIterator()
        while let c = it.next() {
            guard c == "%" else { out.append(c); continue }
            guard let s = it.next() else { unresolved.append("%"); break }
            if let v = value(of: s, unit: unit) {
                out += v
            } else {
                unresolved.append("%" + String(s))
                out += "%" + String(s)
            }
        }
        return (out, unresolved)
    }

    /// systemd's unescaping of a unit name's part: `-` is `/`, `\xNN` is the byte NN.
    static func unescape(_ s: String) -> String {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "/"))
                i += 1
            } else if u[i] == UInt8(ascii: "\\"), i + 3 < u.count, u[i + 1] == UInt8(ascii: "x"),
                let v = UInt8(String(decoding: u[(i + 2)...(i + 3)], as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                i += 4
            } else {
                bytes.append(u[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
