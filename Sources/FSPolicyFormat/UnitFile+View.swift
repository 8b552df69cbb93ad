import FSPolicy

/// The sandbox options of a unit file that fspolicy models (docs/services.md, rules U1–U5): the
/// mounts each one adds, as systemd's src/core/namespace.c builds them.
extension Compiler {
    /// The options that make a service's view, in the order their entries are listed.
    static let viewOptions = [
        "ProtectSystem", "ProtectHome", "PrivateTmp", "ReadOnlyPaths", "ReadWritePaths", "InaccessiblePaths", "NoExecPaths", "ExecPaths",
        "TemporaryFileSystem", "BindPaths", "BindReadOnlyPaths"
    ]

    /// The homes `ProtectHome=` covers, with the mode `ProtectHome=tmpfs` gives each one's tmpfs
    /// (namespace.c's protect_home tables; systemd ignores one that is missing).
    static let homes: [(String, UInt16)] = [("/home", 0o755), ("/run/user", 0o755), ("/root", 0o700)]

    /// `TemporaryFileSystem=` mount options that change nothing fspolicy decides.
    static let harmlessTmpfsOptions: Set<String> = ["nosuid", "suid", "nodev", "dev", "strictatime", "nostrictatime", "relatime", "noatime", "atime"]

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
            case "", "no", "false", "off", "0": lists[a.key] = []
            case "read-only": lists[a.key] = entries(Compiler.homes.map { ($0.0, .readOnly) })
            case "yes", "true", "on", "1": lists[a.key] = entries(Compiler.homes.map { ($0.0, .inaccessible) })
            case "tmpfs":
                lists[a.key] = Compiler.homes.map {
                    ViewEntry(path: $0.0, mode: .tmpfs, option: option, place: place, ro: true, nodeMode: FileMode($0.1))
                }
            default:
                r.diags.error(a.location, code: "bad-value", "ProtectHome=\(a.value) is not a value systemd accepts", help: "yes, read-only, tmpfs or no")
            }
            return true
        case "PrivateTmp":
            switch a.value.lowercased() {
            case "", "no", "false", "off", "0": lists[a.key] = []
            case "yes", "true", "on", "1":
                lists[a.key] = ["/tmp", "/var/tmp"].map { ViewEntry(path: $0, mode: .privateTmp, option: option, place: place, nodeMode: FileMode(0o1777)) }
            default: return false  // `disconnected` (systemd 256) and what later versions add
            }
            return true
        default:
            let modes: [String: ViewEntry.Mode] = [
                "ReadOnlyPaths": .readOnly, "ReadWritePaths": .readWrite, "NoExecPaths": .noexec, "ExecPaths": .exec,
                "InaccessiblePaths": .inaccessible, "TemporaryFileSystem": .tmpfs, "BindPaths": .bind, "BindReadOnlyPaths": .bind
            ]
            let mode = modes[a.key] ?? .exec
            if a.value.isEmpty {
                lists[a.key] = []
                // An empty BindPaths= or BindReadOnlyPaths= resets both lists (systemd.exec(5)).
                if mode == .bind { lists["BindPaths"] = []; lists["BindReadOnlyPaths"] = [] }
                return true
            }
            var out = lists[a.key] ?? []
            for word in a.value.split(separator: " ", omittingEmptySubsequences: true) {
                var raw = word
                // TemporaryFileSystem=PATH[:OPTIONS]: the options after the first colon.
                var ro = false
                var nodeMode: FileMode? = nil
                var options = ""
                if mode == .tmpfs, let colon = word.firstIndex(of: ":") {
                    raw = word[..<colon]
                    options = NameEscaping.escape(Array(String(word[colon...]).utf8))
                    guard let (r, m) = tmpfsOptions(word[word.index(after: colon)...], a: a, svc: &svc, name: name) else { continue }
                    (ro, nodeMode) = (r, m)
                }
                var destination: String? = nil
                var recursive = true
                if mode == .bind {
                    ro = a.key == "BindReadOnlyPaths"
                    // SRC[:DST[:rbind|norbind]] (U6).
                    let parts = word.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                    raw = parts[0]
                    if parts.count > 1 { options = NameEscaping.escape(Array(String(word[raw.endIndex...]).utf8)) }
                    if parts.count > 2 {
                        let opts = parts[2].split(separator: ",")
                        guard opts.allSatisfy({ $0 == "rbind" || $0 == "norbind" }) else {
                            notModelledBind(String(word), a: a, svc: &svc, name: name, why: "has options other than `rbind` and `norbind`")
                            continue
                        }
                        recursive = opts.last != "norbind"
                    }
                    if parts.count > 1, !parts[1].isEmpty {
                        let shownDst = NameEscaping.escape(Array(String(parts[1]).utf8))
                        guard let dst = Compiler.unitPath(shownDst) else {
                            r.diags.error(
                                a.location, code: "bad-path", "`\(shownDst)` in \(a.key)= of service `\(name)` is not an absolute destination path",
                                help: "systemd takes SRC[:DST[:rbind|norbind]] with absolute paths, e.g. \(a.key)=/srv/data:/var/lib/app")
                            continue
                        }
                        destination = dst
                    }
                }
                var w = Substring(raw)
                // `-`: ignored when missing; `+`: relative to RootDirectory=, which is not modelled.
                while let c = w.first, c == "-" || c == "+" {
                    if c == "+" {
                        svc.notModelled.append("\(a.key)=\(NameEscaping.escape(Array(String(raw).utf8))) (relative to RootDirectory=)")
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
                if let dst = destination, dst != p {
                    out.append(
                        ViewEntry(
                            path: dst, mode: mode, option: "\(a.key)=\(shown)\(options)", place: place, ro: ro, source: p, recursive: recursive))
                    continue
                }
                if mode == .bind && !recursive {
                    notModelledBind(String(word), a: a, svc: &svc, name: name, why: "binds a path onto itself with `norbind`")
                    continue
                }
                out.append(ViewEntry(path: p, mode: mode, option: "\(a.key)=\(shown)\(options)", place: place, ro: ro, nodeMode: nodeMode))
            }
            lists[a.key] = out
            return true
        }
    }

    /// A tmpfs's options (`ro,mode=0700`): read-only, and the mode of its root. An option that
    /// bears on access and is not modelled is named; a malformed `mode=` is an error (nil).
    mutating func tmpfsOptions(_ text: Substring, a: UnitFile.Assignment, svc: inout Service, name: String) -> (Bool, FileMode?)? {
        var ro = false
        var mode: FileMode? = nil
        for o in text.split(separator: ",") {
            if o == "ro" { ro = true; continue }
            if o == "rw" { ro = false; continue }
            if o.hasPrefix("mode=") {
                let v = o.dropFirst(5)
                guard !v.isEmpty, v.count <= 4, v.allSatisfy({ $0 >= "0" && $0 <= "7" }), let m = UInt16(v, radix: 8) else {
                    r.diags.error(
                        a.location, code: "bad-mode", "`\(o)` in TemporaryFileSystem= of service `\(name)` is not an octal mode", help: "e.g. mode=0755")
                    return nil
                }
                mode = FileMode(m)
                continue
            }
            if o.hasPrefix("size=") || o.hasPrefix("nr_inodes=") || Compiler.harmlessTmpfsOptions.contains(String(o)) { continue }
            svc.notModelled.append("TemporaryFileSystem= option \(NameEscaping.escape(Array(String(o).utf8)))")
            r.diags.warning(
                a.location, code: "unit-option-not-modelled",
                "the option `\(NameEscaping.escape(Array(String(o).utf8)))` in TemporaryFileSystem= of service `\(name)` is not modelled: answers about the tmpfs do not account for it",
                help: "docs/services.md lists the tmpfs options fspolicy models: ro, rw, mode=")
        }
        return (ro, mode)
    }

    /// A `BindPaths=` word fspolicy does not model, named and warned about.
    mutating func notModelledBind(_ word: String, a: UnitFile.Assignment, svc: inout Service, name: String, why: String) {
        let shown = NameEscaping.escape(Array(word.utf8))
        svc.notModelled.append("\(a.key)=\(shown)")
        r.diags.warning(
            a.location, code: "unit-option-not-modelled",
            "`\(shown)` in \(a.key)= of service `\(name)` \(why), which is not modelled: answers about it do not account for it",
            help: "docs/services.md lists the sandbox options fspolicy models; a path bound onto itself (BindPaths=/srv) is")
    }

    /// An absolute path with `//` and a trailing `/` folded; nil for a relative one, `.` or `..`.
    static func unitPath(_ s: String) -> String? {
        guard s.hasPrefix("/") else { return nil }
        let parts = s.split(separator: "/", omittingEmptySubsequences: true)
        if parts.contains(where: { $0 == "." || $0 == ".." }) { return nil }
        return parts.isEmpty ? "/" : "/" + parts.joined(separator: "/")
    }
}
