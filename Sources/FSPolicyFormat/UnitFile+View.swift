import FSPolicy

/// The sandbox options of a unit file that fspolicy models (docs/services.md, rules U1–U3): the
/// mounts each one adds, as systemd's src/core/namespace.c builds them.
extension Compiler {
    /// The mounts `ProtectSystem=` adds for each value (namespace.c's protect_system tables):
    /// `strict` leaves the kernel's API trees and the homes writable, for `ProtectHome=` to decide.
    static let protectSystem: [String: [(String, ViewEntry.Mode)]] = [
        "yes": [("/usr", .readOnly), ("/boot", .readOnly), ("/efi", .readOnly)],
        "full": [("/usr", .readOnly), ("/boot", .readOnly), ("/efi", .readOnly), ("/etc", .readOnly)],
        "strict": [("/", .readOnly), ("/proc", .readWriteImplicit), ("/sys", .readWriteImplicit), ("/dev", .readWriteImplicit),
                   ("/home", .readWriteImplicit), ("/run/user", .readWriteImplicit), ("/root", .readWriteImplicit)],
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
            default: lists[a.key] = []; return false     // yes, tmpfs: inaccessible nodes or an empty tmpfs
            }
        default:
            let mode: ViewEntry.Mode = a.key == "ReadOnlyPaths" ? .readOnly : a.key == "ReadWritePaths" ? .readWrite
                : a.key == "NoExecPaths" ? .noexec : .exec
            if a.value.isEmpty { lists[a.key] = []; return true }
            var out = lists[a.key] ?? []
            for raw in a.value.split(separator: " ", omittingEmptySubsequences: true) {
                var w = Substring(raw)
                // `-`: ignored when missing; `+`: relative to RootDirectory=, which is not modelled.
                while let c = w.first, c == "-" || c == "+" {
                    if c == "+" {
                        r.diags.warning(a.location, code: "unit-option-not-modelled", "`\(raw)` in \(a.key)= of service `\(name)` is relative to RootDirectory=, which is not modelled: the path is taken from /",
                                        help: "docs/services.md lists the sandbox options fspolicy models")
                    }
                    w = w.dropFirst()
                }
                guard let p = Compiler.unitPath(String(w)) else {
                    r.diags.error(a.location, code: "bad-path", "`\(raw)` in \(a.key)= of service `\(name)` is not an absolute path",
                                  help: "systemd takes absolute paths without `.` or `..`, separated by spaces, e.g. \(a.key)=/var/lib/app")
                    continue
                }
                out.append(ViewEntry(path: p, mode: mode, option: "\(a.key)=\(raw)", place: place))
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
