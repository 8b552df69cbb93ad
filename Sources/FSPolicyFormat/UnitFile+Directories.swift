import FSPolicy

/// `StateDirectory=`, `CacheDirectory=`, `LogsDirectory=`, `RuntimeDirectory=` and
/// `ConfigurationDirectory=` of a unit file, with their `*DirectoryMode=` (docs/services.md, U7):
/// the directories systemd makes when the unit starts, each then bound onto itself (or, with
/// `DynamicUser=yes`, its private directory bound onto it) in the service's view.
extension Compiler {
    /// Each option and the folder its names are below, for a system service (systemd.exec(5)).
    static let directoryOptions: [(key: String, base: String)] = [
        ("RuntimeDirectory", "/run"), ("StateDirectory", "/var/lib"), ("CacheDirectory", "/var/cache"), ("LogsDirectory", "/var/log"),
        ("ConfigurationDirectory", "/etc")
    ]
    /// The options whose directories are private with `DynamicUser=yes` (below `BASE/private`).
    static let privateWithDynamicUser: Set<String> = ["StateDirectory", "CacheDirectory", "LogsDirectory"]

    /// The names and modes read so far.
    struct UnitDirectories {
        var names: [String: [(String, UnitFile.Assignment)]] = [:]
        var modes: [String: FileMode] = [:]
    }

    /// Reads one directory option or its mode; false when `a` is neither.
    mutating func readDirectoryOption(_ a: UnitFile.Assignment, into d: inout UnitDirectories, svc: inout Service, name: String) -> Bool {
        if a.key.hasSuffix("DirectoryMode"), Compiler.directoryOptions.contains(where: { $0.key + "Mode" == a.key }) {
            let v = a.value
            guard !v.isEmpty, v.count <= 4, v.allSatisfy({ $0 >= "0" && $0 <= "7" }), let m = UInt16(v, radix: 8) else {
                r.diags.error(a.location, code: "bad-mode", "\(a.key)=\(v) is not an octal mode", help: "e.g. \(a.key)=0750")
                return true
            }
            d.modes[String(a.key.dropLast(4))] = FileMode(m)
            return true
        }
        guard Compiler.directoryOptions.contains(where: { $0.key == a.key }) else { return false }
        if a.value.isEmpty { d.names[a.key] = []; return true }
        for w in a.value.split(separator: " ", omittingEmptySubsequences: true) {
            let shown = NameEscaping.escape(Array(String(w).utf8))
            if w.contains(":") {
                svc.notModelled.append("\(a.key)=\(shown) (a symlink to the directory)")
                r.diags.warning(
                    a.location, code: "unit-option-not-modelled",
                    "`\(shown)` in \(a.key)= of service `\(name)` also makes a symlink, which is not modelled: the directory is, the link is left out",
                    help: "docs/services.md lists what fspolicy models of the unit's directories")
            }
            let dir = String(w.prefix { $0 != ":" })
            let parts = dir.split(separator: "/", omittingEmptySubsequences: true)
            guard !dir.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0 == "." || $0 == ".." }) else {
                r.diags.error(
                    a.location, code: "bad-path", "`\(shown)` in \(a.key)= of service `\(name)` is not a relative directory name",
                    help: "systemd takes names below its folder, without `..`, e.g. \(a.key)=app")
                continue
            }
            d.names[a.key, default: []].append((NameEscaping.escape(Array(parts.joined(separator: "/").utf8)), a))
        }
        return true
    }

    /// The view's entries for the directories read, once the service's user is known.
    func directoryEntries(_ d: UnitDirectories, svc: Service, dynamic: Bool) -> [ViewEntry] {
        let gid = svc.gid ?? p.world.user(uid: svc.uid)?.gid ?? GID(svc.uid)
        var out: [ViewEntry] = []
        for (key, base) in Compiler.directoryOptions {
            for (dir, a) in d.names[key] ?? [] {
                let isPrivate = dynamic && Compiler.privateWithDynamicUser.contains(key)
                let creation = DirectoryCreation(
                    uid: svc.uid, gid: gid, mode: d.modes[key] ?? FileMode(0o755), chown: key != "ConfigurationDirectory",
                    privateParent: isPrivate ? base + "/private" : nil)
                var e = ViewEntry(
                    path: base + "/" + dir, mode: .bind, option: "\(key)=\(dir)", place: "\(a.location.file):\(a.location.line)",
                    source: isPrivate ? base + "/private/" + dir : nil)
                e.creates = creation
                out.append(e)
            }
        }
        return out
    }
}
