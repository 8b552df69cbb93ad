import FSPolicy

/// The sandbox options of a unit file that fspolicy models (docs/services.md, rules U1–U3): the
/// mounts each one adds, as systemd's src/core/namespace.c builds them.
extension Compiler {
    /// The mounts `ProtectSystem=` adds for each value (namespace.c's protect_system tables):
    /// `strict` leaves the kernel's API trees and the homes writable, for `ProtectHome=` to decide.
    static let protectSystem: [String: [(String, ViewEntry.Mode)]] = [
        "yes": [("/usr", .readOnly), ("/boot", .readOnly), ("/efi", .readOnly)],
        "full": [("/usr", .readOnly), ("/boot", .readOnly), ("/efi", .readOnly), ("/etc", .readOnly)],
        "strict": [
            ("/", .readOnly), ("/proc", .readWriteImplicit), ("/sys", .readWriteImplicit), ("/dev", .readWriteImplicit),
            ("/home", .readWriteImplicit), ("/run/user", .readWriteImplicit), ("/root", .readWriteImplicit)
        ]
    ]

    /// Reads one sandbox assignment into `lists` (keyed by option; an empty value resets it).
    /// false when its value is one fspolicy does not model (`ProtectHome=yes`).
    mutating func applyViewOption(_ a: UnitFile.Assignment, to svc: inout Service, name: String, lists: inout [String: [ViewEntry]]) -> Bool {
        let place = "\(a.location.file):\(a.location.line)"
        let option = "\(a.key)=\(a.value)"
        func entries(_ list: [(String, ViewEntry.Mode)]) -> [ViewEntry] {
            list.map { ViewEntry(path: $0.0, mode: $0.1, option: option, place: place) }
        }
        switch a.key {
        case "ProtectSystem":
            switch a.value.lowercased() {
            case "", "no", "false", "off", "0": lists[a.key] = []
            case "yes", "true", "on", "1": lists[a.key] = entries(Compiler.protectSystem["yes"]!)
            case "full", "strict": lists[a.key] = entries(Compiler.protectSystem[a.value.lowercased()]!)
            default:
                r.diags.error(a.location, code: "bad-value", "ProtectSystem=\(a.value) is not a value systemd accepts", help: "yes, full, strict or no")
            }
            return true
        case "ProtectHome":
            switch a.value.lowercased() {
            case "", "no", "false", "off", "0": lists[a.key] = []; return true
            case "read-only": lists[a.key] = entries([("/home", .readOnly), ("/run/user", .readOnly), ("/root", .readOnly)]); return true
            default: lists[a.key] = []; return false  // yes, tmpfs: inaccessible nodes or an empty tmpfs
            }
        default:
            let mode: ViewEntry.Mode =
                a.key == "ReadOnlyPaths"
                ? .readOnly
                : a.key == "ReadWritePaths"
                    ? .readWrite
                    : a.key == "NoExecPaths" ? .noexec : .exec
            if a.value.isEmpty { lists[a.key] = []; return true }
            var out = lists[a.key] ?? []
            for raw in a.value.split(separator: " ", omittingEmptySubsequences: true) {
                var w = Substring(raw)
                // `-`: ignored when missing; `+`: relative to RootDirectory=, which is not modelled.
                while let c = w.first, c == "-" || c == "+" {
                    if c == "+" {
                        r.diags.warning(
                            a.location, code: "unit-option-not-modelled",
                            "`\(raw)` in \(a.key)= of service `\(name)` is relative to RootDirectory=, which is not modelled: the path is taken from /",
                            help: "docs/services.md lists the sandbox options fspolicy models")
                    }
                    w = w.dropFirst()
                }
                // A name that is not UTF-8 was replaced while reading: it names no node here.
                if w.unicodeScalars.contains("\u{FFFD}") {
                    r.diags.warning(
                        a.location, code: "unit-option-not-modelled",
                        "a path in \(a.key)= of service `\(name)` is not valid UTF-8: it is left out, and answers about it do not account for it",
                        help: "name the path in UTF-8, or declare the service's view in the policy file")
                    svc.notModelled.append("\(a.key)= (a path not in UTF-8)")
                    continue
                }
                // Names are kept as policy files write them (NameEscaping): a control character
                // becomes `\ooo`, as in the tree.
                let prefix = raw.prefix(raw.count - w.count)
                let shown = String(prefix) + NameEscaping.escape(Array(String(w).utf8))
                guard let p = Compiler.unitPath(NameEscaping.escape(Array(String(w).utf8))) else {
                    r.diags.error(
                        a.location, code: "bad-path", "`\(shown)` in \(a.key)= of service `\(name)` is not an absolute path",
                        help: "systemd takes absolute paths without `.` or `..`, separated by spaces, e.g. \(a.key)=/var/lib/app")
                    continue
                }
                out.append(ViewEntry(path: p, mode: mode, option: "\(a.key)=\(shown)", place: place))
            }
            lists[a.key] = out
            return true
        }
    }

    /// An absolute path with `//` and a trailing `/` folded; nil for a relative one, `.` or `..`.
    static func unitPath(_ s: String) -> String? {
        guard s.hasPrefix("/") else { return nil }
        let parts = s.split(separator: "/", omittingEmptySubsequences: true)
        if parts.contains(where: { $0 == "." || $0 == ".." }) { return nil }
        return parts.isEmpty ? "/" : "/" + parts.joined(separator: "/")
    }
}
