import FSPolicy
import Foundation
import FSPolicyYAML

/// A systemd unit file's `[Service]` assignments, with their places: the file itself, then its
/// drop-ins (`NAME.d/*.conf` beside it, in the order of their file names, as systemd applies
/// them). Lines are read as systemd.syntax(7) says: `#` and `;` start comments, a trailing `\`
/// joins the next line, `[Section]` starts a section.
struct UnitFile {
    struct Assignment { var key: String; var value: String; var location: SourceLocation }
    var assignments: [Assignment] = []

    /// nil and why, when the file cannot be read.
    static func read(path: String, shown: String) -> (UnitFile?, String?) {
        guard let main = FileManager.default.contents(atPath: path) else { return (nil, "cannot read the unit file `\(shown)`") }
        guard main.count <= 4 << 20 else { return (nil, "the unit file `\(shown)` is over 4 MiB") }
        var u = UnitFile()
        u.parse(main, file: shown)
        let dropDir = path + ".d"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: dropDir) {
            for name in names.filter({ $0.hasSuffix(".conf") }).sorted() {
                if let d = FileManager.default.contents(atPath: dropDir + "/" + name), d.count <= 4 << 20 {
                    u.parse(d, file: shown + ".d/" + name)
                }
            }
        }
        return (u, nil)
    }

    mutating func parse(_ data: Data, file: String) {
        let text = String(decoding: data, as: UTF8.self)
        var section = ""
        var pending: (String, Int)? = nil
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            if var (acc, start) = pending {
                if line.hasSuffix("\\") { acc += " " + line.dropLast(); pending = (acc, start); continue }
                acc += " " + line
                pending = nil
                take(acc, section: section, file: file, line: start)
                continue
            }
            let t = line.trimmingSpaces
            if t.isEmpty || t.hasPrefix("#") || t.hasPrefix(";") { continue }
            if t.hasPrefix("[") && t.hasSuffix("]") { section = String(t.dropFirst().dropLast()); continue }
            if t.hasSuffix("\\") { pending = (String(t.dropLast()), i + 1); continue }
            take(t, section: section, file: file, line: i + 1)
        }
        if let (acc, start) = pending { take(acc, section: section, file: file, line: start) }
    }

    mutating func take(_ line: String, section: String, file: String, line n: Int) {
        guard section == "Service", let eq = line.firstIndex(of: "=") else { return }
        let key = String(line[..<eq]).trimmingSpaces
        let value = String(line[line.index(after: eq)...]).trimmingSpaces
        assignments.append(Assignment(key: key, value: value, location: SourceLocation(file: file, line: n, column: 1)))
    }

    /// The `[Service]` options this model reads.
    static let modelled: Set<String> = [
        "User", "Group", "SupplementaryGroups", "AmbientCapabilities", "CapabilityBoundingSet",
        "NoNewPrivileges", "UMask", "ReadOnlyPaths", "ReadWritePaths", "NoExecPaths", "ExecPaths", "InaccessiblePaths",
        "TemporaryFileSystem", "PrivateTmp", "BindPaths", "BindReadOnlyPaths", "DynamicUser"
    ]
    /// The old names systemd still reads for the path lists.
    static let aliases = ["ReadOnlyDirectories": "ReadOnlyPaths", "ReadWriteDirectories": "ReadWritePaths", "InaccessibleDirectories": "InaccessiblePaths"]
    /// `[Service]` options with no bearing on what the process may do to files.
    static let unrelated: Set<String> = [
        "Type", "ExecStart", "ExecStartPre", "ExecStartPost", "ExecReload", "ExecStop", "ExecStopPost", "ExecCondition",
        "Restart", "RestartSec", "RestartPreventExitStatus", "RestartForceExitStatus", "SuccessExitStatus", "TimeoutSec",
        "TimeoutStartSec", "TimeoutStopSec", "TimeoutAbortSec", "RuntimeMaxSec", "WatchdogSec", "PIDFile", "BusName",
        "RemainAfterExit", "GuessMainPID", "KillMode", "KillSignal", "SendSIGKILL", "SendSIGHUP", "Environment",
        "EnvironmentFile", "PassEnvironment", "UnsetEnvironment", "StandardInput", "StandardOutput", "StandardError",
        "SyslogIdentifier", "SyslogFacility", "SyslogLevel", "LogLevelMax", "Nice", "CPUSchedulingPolicy", "CPUSchedulingPriority",
        "IOSchedulingClass", "IOSchedulingPriority", "OOMScoreAdjust", "LimitNOFILE", "LimitNPROC", "LimitCORE", "LimitMEMLOCK",
        "TasksMax", "MemoryMax", "MemoryHigh", "CPUQuota", "CPUWeight", "Slice", "Delegate", "NotifyAccess", "FileDescriptorStoreMax",
        "NonBlocking", "Sockets", "TTYPath", "TTYReset", "TTYVHangup", "TTYVTDisallocate", "UtmpIdentifier", "UtmpMode",
        "WorkingDirectory", "OOMPolicy", "ExitType", "RestartMode", "KillUserProcesses", "IgnoreSIGPIPE", "TimerSlackNSec",
        "CPUAffinity", "NUMAPolicy", "NUMAMask", "LogRateLimitIntervalSec", "LogRateLimitBurst", "LogExtraFields", "Personality",
        "LockPersonality", "MemoryDenyWriteExecute", "RestrictRealtime", "RestrictNamespaces",
        "RestrictAddressFamilies", "SystemCallArchitectures", "IPAddressDeny", "IPAddressAllow", "ProtectClock", "ProtectHostname",
        // What happens when the service stops or fails, and how its runtime folder is kept
        // between runs: nothing about what it may reach while it runs.
        "RestartKillSignal", "FinalKillSignal", "WatchdogSignal", "FailureAction", "SuccessAction", "FailureActionExitStatus",
        "SuccessActionExitStatus", "TimeoutStartFailureMode", "TimeoutStopFailureMode", "RuntimeDirectoryPreserve",
        "CoredumpFilter", "CoredumpReceive", "LimitAS", "LimitCPU", "LimitDATA", "LimitFSIZE", "LimitRSS", "LimitSTACK",
        "LimitLOCKS", "LimitSIGPENDING", "LimitMSGQUEUE", "LimitNICE", "LimitRTPRIO", "LimitRTTIME", "MemoryMin", "MemoryLow",
        "MemorySwapMax", "IOWeight", "StartupCPUWeight", "StartupIOWeight", "AllowedCPUs", "ManagedOOMSwap",
        "ManagedOOMMemoryPressure", "USBFunctionDescriptors", "USBFunctionStrings"
    ]
}

extension Compiler {
    /// A service's settings from a unit file (`unit:`), then its drop-ins. Every other option
    /// that may bear on file access is kept in `notModelled` and warned about at its place.
    mutating func applyUnit(_ n: YNode, path text: String, to svc: inout Service, name: String) -> Bool {
        let full = PolicyLoader.join(baseDir, text)
        let (unit, why) = UnitFile.read(path: full, shown: full)
        guard let u = unit else {
            r.diags.error(n.loc, code: "unreadable", why ?? "cannot read `\(text)`", help: "relative paths are relative to this file's folder")
            return false
        }
        let file = full.split(separator: "/").last.map(String.init) ?? name + ".service"
        applyUnitFile(u, at: n.loc, to: &svc, name: name, unitName: file.hasSuffix(".service") ? file : name + ".service")
        return true
    }

    /// A service's settings from a unit's files, read (`unit:`, or a unit folder's). `unitName`
    /// is the unit's full name (`nginx.service`), for its specifiers.
    mutating func applyUnitFile(_ u: UnitFile, at loc0: SourceLocation, to svc: inout Service, name: String, unitName: String) {
        var ambientSeen = false, boundingSeen = false
        var viewLists: [String: [ViewEntry]] = [:]
        // User= and Group= are resolved after the whole file: DynamicUser= may come later.
        var userLine: UnitFile.Assignment? = nil, groupLine: UnitFile.Assignment? = nil
        var dynamicLine: UnitFile.Assignment? = nil
        var directories = UnitDirectories()
        for var a in u.assignments {
            if let k = UnitFile.aliases[a.key] { a.key = k }
            let loc = a.location
            if a.value.contains("%") && !UnitFile.unrelated.contains(a.key) {
                // Specifiers resolved as for a system service (UnitSpecifiers); one that depends on
                // the running host (`%H`, `%m`, …) leaves the option out, named.
                let (value, unresolved) = UnitSpecifiers.resolve(a.value, unit: unitName)
                if !unresolved.isEmpty {
                    r.diags.warning(
                        loc, code: "unit-option-not-modelled",
                        "\(a.key)=\(a.value) uses \(unresolved.joined(separator: ", ")), which fspolicy cannot resolve offline: the option is left out",
                        help:
                            "docs/services.md lists the specifiers fspolicy resolves; declare the service's `\(a.key == "User" ? "user" : a.key)` in the policy file instead"
                    )
                    svc.notModelled.append("\(a.key)=\(a.value)")
                    continue
                }
                a.value = value
            }
            switch a.key {
            case "User": userLine = a.value.isEmpty ? nil : a
            case "Group": groupLine = a.value.isEmpty ? nil : a
            case "DynamicUser":
                switch a.value.lowercased() {
                case "yes", "true", "on", "1": dynamicLine = a
                case "", "no", "false", "off", "0": dynamicLine = nil
                default: r.diags.error(loc, code: "bad-value", "DynamicUser=\(a.value) is not a boolean", help: "yes or no")
                }
            case "SupplementaryGroups":
                if a.value.isEmpty { svc.supplementary = []; continue }
                var list = svc.supplementary ?? []
                for w in a.value.split(separator: " ") {
                    if let g = lookupGroup(String(w)) ?? numericID(String(w)) {
                        list.append(g)
                    } else {
                        r.diags.error(
                            loc, code: "unknown-group", "unknown group `\(w)` in SupplementaryGroups= of service `\(name)`",
                            help: hintName(String(w), in: Array(groupNames.keys), kind: "group"))
                    }
                }
                svc.supplementary = list
            case "AmbientCapabilities", "CapabilityBoundingSet":
                let isAmbient = a.key == "AmbientCapabilities"
                guard let (set, inverted) = unitCapabilities(a.value, at: loc, key: a.key) else { continue }
                let first = isAmbient ? !ambientSeen : !boundingSeen
                var current = isAmbient ? svc.ambient : svc.bounding
                if a.value.isEmpty {
                    current = []
                } else if inverted {
                    current = (first ? Capabilities.all : current).subtracting(set)
                } else {
                    current = first ? set : current.union(set)
                }
                if isAmbient { svc.ambient = current; ambientSeen = true } else { svc.bounding = current; boundingSeen = true }
            case "NoNewPrivileges":
                switch a.value.lowercased() {
                case "yes", "true", "on", "1": svc.noNewPrivileges = true
                case "no", "false", "off", "0": svc.noNewPrivileges = false
                default: r.diags.error(loc, code: "bad-value", "NoNewPrivileges=\(a.value) is not a boolean", help: "yes or no")
                }
            case "UMask":
                let v = a.value
                if !v.isEmpty, v.count <= 4, v.allSatisfy({ $0 >= "0" && $0 <= "7" }) {
                    var m: UInt16 = 0
                    for ch in v { m = m * 8 + UInt16(ch.asciiValue! - 48) }
                    svc.umask = m & 0o777
                } else {
                    r.diags.error(loc, code: "bad-mode", "UMask=\(v) is not an octal umask", help: "e.g. UMask=0027")
                }
            case _ where readDirectoryOption(a, into: &directories, svc: &svc, name: name): continue
            case _ where Compiler.viewOptions.contains(a.key):
                if !applyViewOption(a, to: &svc, name: name, lists: &viewLists) {
                    svc.notModelled.append("\(a.key)=\(a.value)")
                    r.diags.warning(
                        loc, code: "unit-option-not-modelled",
                        "\(a.key)=\(a.value) of service `\(name)` is not modelled: answers about it do not account for it",
                        help: "docs/services.md lists the sandbox options and values fspolicy models")
                }
            default:
                if UnitFile.unrelated.contains(a.key) { continue }
                svc.notModelled.append("\(a.key)=\(a.value)")
                r.diags.warning(
                    loc, code: "unit-option-not-modelled", "\(a.key)= of service `\(name)` is not modelled: answers about it do not account for it",
                    help: "docs/services.md lists what a unit file gives a service")
            }
        }
        applyIdentity(user: userLine, group: groupLine, dynamic: dynamicLine, to: &svc, name: name, lists: &viewLists)
        svc.view = Compiler.viewOptions.flatMap { viewLists[$0] ?? [] }
        svc.view += directoryEntries(directories, svc: svc, dynamic: dynamicLine != nil)
        let outside = svc.ambient.subtracting(svc.bounding)
        if !outside.isEmpty {
            r.diags.error(
                loc0, code: "bad-value",
                "the unit gives service `\(name)` ambient \(outside.lowerNames.joined(separator: ", ")), outside its CapabilityBoundingSet=",
                help: "systemd cannot raise an ambient capability the bounding set lacks")
        }
    }

    /// A unit file's capability list: names separated by spaces, `~` first to invert.
    mutating func unitCapabilities(_ v: String, at loc: SourceLocation, key: String) -> (Capabilities, Bool)? {
        var text = Substring(v)
        let inverted = text.hasPrefix("~")
        if inverted { text = text.dropFirst() }
        var set: Capabilities = []
        for w in text.split(separator: " ") {
            guard let c = Capabilities.named(String(w)) else {
                r.diags.error(
                    loc, code: "unknown-capability", "unknown capability `\(w)` in \(key)=",
                    help: nearest(String(w).lowercased(), in: Capabilities.names).map { "did you mean `\($0.uppercased())`?" } ?? "see capabilities(7)")
                return nil
            }
            set.insert(c)
        }
        return (set, inverted)
    }
}
