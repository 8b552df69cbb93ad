import FSPolicy
import Foundation
import FSPolicyYAML

/// Where an app's settings were written: diagnostics and findings point there.
public struct AppSource: Sendable {
    /// The bundle id under `apps`.
    public var location: SourceLocation
    /// Each entitlement key: where it is written (inline), its line in an XML plist, or where
    /// the plist file is named.
    public var entitlements: [String: SourceLocation] = [:]
    /// Where `info` is given.
    public var info: SourceLocation?
    /// Each bookmark, in order.
    public var bookmarks: [SourceLocation] = []
    public var tcc: [String: SourceLocation] = [:]

    public init(location: SourceLocation) { self.location = location }
}

/// A property list read from a file, with the line of each top-level key when the file is XML.
struct PlistFile {
    var dictionary: [String: Any]
    var keyLocations: [String: SourceLocation]
}

extension Compiler {
    // MARK: Apps

    mutating func readApps(_ n: YNode) {
        guard let m = r.mapping(n, what: "`apps`") else { return }
        for (kn, v) in m {
            guard let id = r.string(kn, what: "a bundle id") else { continue }
            if !id.contains(".") {
                r.diags.error(kn.loc, code: "bad-bundle-id", "`\(id)` does not look like a bundle id", help: "bundle ids look like `com.example.Notes`")
            }
            p.appIDs.append(id)
            guard let f = r.mapping(v, what: "app `\(id)`") else { continue }
            let k = r.keyed(f, known: appKeys, context: "app `\(id)`")
            var src = AppSource(location: kn.loc)
            var uid: UID? = nil
            if let u = k["user"] {
                uid = readOwner(u, what: "`user` of app `\(id)`")
            } else {
                r.diags.error(kn.loc, code: "missing-key", "app `\(id)` has no `user`", help: "add `user: <name>`: the user the app runs as")
            }
            var platform = AppPlatform.macos
            if let pl = k["platform"], let s = r.string(pl, what: "`platform`") {
                if let x = AppPlatform(rawValue: s) {
                    platform = x
                } else {
                    r.diags.error(pl.loc, code: "bad-value", "unknown platform `\(s)`", help: "use `macos` or `ios`")
                }
            }
            var entitlements: [String: EntitlementValue] = [:]
            if let e = k["entitlements"] { entitlements = readEntitlements(e, app: id, locations: &src.entitlements) }
            var info: [String: String] = [:]
            if let i = k["info"] {
                src.info = i.loc
                info = readInfo(i, app: id)
            }
            var selected: [String] = []
            if let s = k["selected"], let list = r.stringList(s, what: "`selected`") {
                for (path, node) in list { if let x = checkPath(node, path, what: "selected item") { selected.append(x) } }
            }
            var bookmarks: [Bookmark] = []
            if let b = k["bookmarks"], let list = r.list(b, what: "`bookmarks`") {
                for item in list {
                    guard let bm = r.mapping(item, what: "a bookmark") else { continue }
                    let bk = r.keyed(bm, known: bookmarkKeys, context: "a bookmark")
                    var mark = Bookmark(path: "/")
                    var ok = true
                    if let pv = bk["path"], let path = r.string(pv, what: "`path`"), let x = checkPath(pv, path, what: "bookmark path") {
                        mark.path = x
                    } else {
                        ok = false
                        if bk["path"] == nil { r.diags.error(item.loc, code: "missing-key", "a bookmark needs a `path`") }
                    }
                    if let sv = bk["scope"], let s = r.string(sv, what: "`scope`") {
                        if let sc = Bookmark.Scope(rawValue: s) {
                            mark.scope = sc
                        } else {
                            r.diags.error(sv.loc, code: "bad-value", "unknown bookmark scope `\(s)`", help: "use `app` or `document`")
                        }
                    }
                    if let x = bk["readOnly"], let b = r.bool(x, what: "`readOnly`") { mark.readOnly = b }
                    if let x = bk["stale"], let b = r.bool(x, what: "`stale`") { mark.stale = b }
                    if let x = bk["started"], let c = r.int(x, what: "`started`", min: 0) { mark.started = c }
                    if let x = bk["stopped"], let c = r.int(x, what: "`stopped`", min: 0) { mark.stopped = c }
                    if ok {
                        bookmarks.append(mark)
                        src.bookmarks.append(item.loc)
                    }
                }
            }
            var tcc: [TCCService: Consent] = [:]
            var fda = false
            if let t = k["tcc"], let tm = r.mapping(t, what: "`tcc`") {
                let tk = r.keyed(tm, known: tccKeys, context: "`tcc`")
                for (key, value) in tk.sorted(by: { $0.key < $1.key }) {
                    src.tcc[key] = value.loc
                    if key == "fullDiskAccess" { fda = r.bool(value, what: "`fullDiskAccess`") ?? false; continue }
                    guard let s = r.string(value, what: "`\(key)`") else { continue }
                    if let c = Consent(rawValue: s), let service = TCCService(rawValue: key) {
                        tcc[service] = c
                    } else {
                        r.diags.error(
                            value.loc, code: "bad-value", "unknown consent `\(s)` for `\(key)`",
                            help: nearest(s, in: Consent.allCases.map(\.rawValue)).map { "did you mean `\($0)`?" }
                                ?? "use `granted`, `denied` or `notDetermined`")
                    }
                }
            }
            var umask: UInt16? = nil
            if let u = k["umask"] { umask = readUmask(u, what: "`umask` of app `\(id)`") }
            var paths: [String: String] = [:]
            for key in ["container", "bundle", "groupContainers"] {
                if let x = k[key], let s = r.string(x, what: "`\(key)`"), let path = checkPath(x, s, what: "`\(key)`") { paths[key] = path }
            }
            var readable: [String]? = nil
            if let x = k["systemReadable"], let list = r.stringList(x, what: "`systemReadable`") {
                readable = list.compactMap { checkPath($0.1, $0.0, what: "a `systemReadable` location") }
            }
            if platform == .macos && entitlements[Entitlement.appSandbox] != .bool(true) {
                let sandboxOnly = entitlements.keys.filter { $0.hasPrefix("com.apple.security.") && $0 != Entitlement.appSandbox }.sorted()
                if let first = sandboxOnly.first {
                    r.diags.warning(
                        src.entitlements[first] ?? kn.loc, code: "ineffective-entitlement",
                        "`\(first)` has no effect: app `\(id)` is not sandboxed",
                        help: "add `\(Entitlement.appSandbox): true`, or remove the sandbox entitlements")
                }
            }
            if k["team"] != nil || k["provisioned"] != nil {
                let team = k["team"].flatMap { r.string($0, what: "`team`") }
                let prov = k["provisioned"].flatMap { r.bool($0, what: "`provisioned`") } ?? true
                p.keychainTeams[id] = (team, prov)
            }
            guard let uid else { continue }
            let home = p.world.user(uid: uid)?.home ?? (macLike ? "/Users/\(uid)" : "/home/\(uid)")
            let app = App(
                bundleID: id, uid: uid, home: home, platform: platform, entitlements: entitlements, info: info,
                selected: selected, bookmarks: bookmarks, tcc: tcc, fullDiskAccess: fda, umask: umask,
                container: paths["container"], bundle: paths["bundle"], groupContainers: paths["groupContainers"],
                systemReadable: readable)
            p.world.apps.append(app)
            p.appSources[id] = src
        }
    }

    /// `entitlements:` — an inline mapping, or the path of a `.entitlements` property list.
    mutating func readEntitlements(_ n: YNode, app id: String, locations: inout [String: SourceLocation]) -> [String: EntitlementValue] {
        var out: [String: EntitlementValue] = [:]
        if let path = n.scalar, !n.isNull {
            guard let plist = readPlist(n, path: path, what: "entitlements") else { return [:] }
            for (key, value) in plist.dictionary.sorted(by: { $0.key < $1.key }) {
                let loc = plist.keyLocations[key] ?? n.loc
                locations[key] = loc
                if let v = entitlementValue(key, plistValue: value, at: loc) { out[key] = v }
            }
            return out
        }
        guard let m = r.mapping(n, what: "`entitlements` of app `\(id)`") else { return [:] }
        for (kn, v) in m {
            guard let key = r.string(kn, what: "an entitlement key") else { continue }
            locations[key] = kn.loc
            checkEntitlementName(key, at: kn.loc)
            if let value = entitlementValue(key, yaml: v) { out[key] = value }
        }
        return out
    }

    /// A probable typo of a file-access entitlement is worth a warning: it would silently grant nothing.
    mutating func checkEntitlementName(_ key: String, at loc: SourceLocation) {
        let fileFamilies = [
            "com.apple.security.files.", "com.apple.security.assets.", "com.apple.security.temporary-exception.files.",
            "com.apple.security.app-", "com.apple.security.application-", "com.apple.developer.ubiquity-"
        ]
        guard !Entitlement.known.contains(key), fileFamilies.contains(where: { key.hasPrefix($0) }) else { return }
        r.diags.warning(
            loc, code: "unknown-entitlement", "unknown file-access entitlement `\(key)`: it grants nothing here",
            help: nearest(key, in: Entitlement.known).map { "did you mean `\($0)`?" } ?? "see docs/sandbox.md for the entitlements fspolicy models")
    }

    /// `com.apple.developer.default-data-protection` names one of the four Foundation classes.
    mutating func checkDataProtectionValue(_ s: String, at loc: SourceLocation) -> Bool {
        let names = ProtectionClass.allCases.filter { $0 != .unspecified }.map(\.foundationName)
        if names.contains(s) { return true }
        r.diags.error(
            loc, code: "bad-value", "unknown Data Protection class `\(s)` for `\(Entitlement.defaultDataProtection)`",
            help: nearest(s, in: names).map { "did you mean `\($0)`?" } ?? "use one of " + names.map { "`\($0)`" }.joined(separator: ", "))
        return false
    }

    func typeWord(for key: String) -> String {
        Entitlement.booleans.contains(key) ? "`true` or `false`" : Entitlement.arrays.contains(key) ? "a list of strings" : "a string or a list of strings"
    }

    /// An inline entitlement value, checked against the key's documented type.
    mutating func entitlementValue(_ key: String, yaml v: YNode) -> EntitlementValue? {
        if Entitlement.booleans.contains(key) {
            return r.bool(v, what: "`\(key)`").map(EntitlementValue.bool)
        }
        if Entitlement.arrays.contains(key) {
            guard v.sequence != nil || v.isNull else {
                r.diags.error(
                    v.loc, code: "wrong-type", "`\(key)` must be a list of strings, found \(v.kindWord)", help: "e.g. `[\"group.com.example.shared\"]`")
                return nil
            }
            return r.stringList(v, what: "`\(key)`").map { .strings($0.map(\.0)) }
        }
        if Entitlement.stringOrArray.contains(key) {
            guard let list = r.stringList(v, what: "`\(key)`", allowSingle: true) else { return nil }
            if key.contains("home-relative-path") {
                for (s, node) in list where !s.hasPrefix("/") {
                    r.diags.error(
                        node.loc, code: "bad-path", "a home-relative temporary exception must start with `/`, found `\(s)`",
                        help: "write `/\(s)` (relative to the home; a directory ends with `/`)")
                }
            }
            return v.sequence != nil ? .strings(list.map(\.0)) : .string(list[0].0)
        }
        if key == Entitlement.defaultDataProtection {
            guard let s = r.string(v, what: "`\(key)`") else { return nil }
            return checkDataProtectionValue(s, at: v.loc) ? .string(s) : nil
        }
        if let s = v.scalar, !v.isNull {
            if ["true", "false"].contains(s) && !v.isQuoted { return .bool(s == "true") }
            return .string(s)
        }
        if let items = v.sequence, items.allSatisfy({ $0.scalar != nil }) { return .strings(items.compactMap(\.scalar)) }
        return .other(v.kindWord)
    }

    /// A value read from a property list, checked the same way.
    mutating func entitlementValue(_ key: String, plistValue v: Any, at loc: SourceLocation) -> EntitlementValue? {
        let value: EntitlementValue
        if let b = plistBool(v) {
            value = .bool(b)
        } else if let s = v as? String {
            value = .string(s)
        } else if let a = v as? [Any], a.allSatisfy({ $0 is String }) {
            value = .strings(a.compactMap { $0 as? String })
        } else {
            value = .other(String(describing: type(of: v)))
        }
        let ok: Bool
        switch value {
        case .bool: ok = !Entitlement.arrays.contains(key) && !Entitlement.stringOrArray.contains(key)
        case .string: ok = !Entitlement.booleans.contains(key) && !Entitlement.arrays.contains(key)
        case .strings: ok = !Entitlement.booleans.contains(key)
        case .other: ok = !Entitlement.known.contains(key)
        }
        checkEntitlementName(key, at: loc)
        if key == Entitlement.defaultDataProtection {
            guard case .string(let s) = value else {
                r.diags.error(loc, code: "wrong-type", "`\(key)` must be a string such as `NSFileProtectionComplete`")
                return nil
            }
            return checkDataProtectionValue(s, at: loc) ? value : nil
        }
        if !ok {
            r.diags.error(loc, code: "wrong-type", "`\(key)` must be \(typeWord(for: key))")
            return nil
        }
        if key.contains("home-relative-path") {
            for s in value.stringList where !s.hasPrefix("/") {
                r.diags.error(
                    loc, code: "bad-path", "a home-relative temporary exception must start with `/`, found `\(s)`",
                    help: "write `/\(s)` (relative to the home; a directory ends with `/`)")
            }
        }
        return value
    }

    /// `info:` — an inline mapping of Info.plist keys, or the path of an Info.plist. Only string
    /// values matter (purpose strings); other values are kept out.
    mutating func readInfo(_ n: YNode, app id: String) -> [String: String] {
        var out: [String: String] = [:]
        if let path = n.scalar, !n.isNull {
            guard let plist = readPlist(n, path: path, what: "Info.plist") else { return [:] }
            for (key, value) in plist.dictionary { if let s = value as? String { out[key] = s } }
            return out
        }
        guard let m = r.mapping(n, what: "`info` of app `\(id)`") else { return [:] }
        for (kn, v) in m {
            guard let key = r.string(kn, what: "an Info.plist key") else { continue }
            if let s = v.scalar, !v.isNull { out[key] = s }
        }
        return out
    }

    /// Reads a property list (XML or binary) named relative to this policy file.
    mutating func readPlist(_ n: YNode, path pathText: String, what: String) -> PlistFile? {
        let full = PolicyLoader.join(baseDir, pathText)
        guard let data = FileManager.default.contents(atPath: full) else {
            r.diags.error(
                n.loc, code: "unreadable", "cannot read the \(what) file `\(pathText)`",
                help: "relative paths are relative to this file's folder")
            return nil
        }
        if data.starts(with: Array("bplist".utf8)), let why = BinaryPlistCheck.problem(Array(data)) {
            r.diags.error(
                n.loc, code: "bad-plist", "`\(pathText)` is not a property list: \(why)",
                help: "give an XML or binary plist (as Xcode writes `.entitlements` and Info.plist files), or an inline mapping")
            return nil
        }
        let obj: Any
        do { obj = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            r.diags.error(
                n.loc, code: "bad-plist", "`\(pathText)` is not a property list" + (detail.map { ": " + $0.prefix(1).lowercased() + $0.dropFirst() } ?? ""),
                help: "give an XML or binary plist (as Xcode writes `.entitlements` and Info.plist files), or an inline mapping")
            return nil
        }
        guard let dict = obj as? [String: Any] else {
            r.diags.error(
                n.loc, code: "bad-plist", "`\(pathText)` holds \(type(of: obj)), not a dictionary",
                help: "the top level of an \(what) file is a `<dict>`")
            return nil
        }
        var locs: [String: SourceLocation] = [:]
        if let text = String(data: data, encoding: .utf8), text.contains("<plist") {
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var rest = line[...]
                while let open = rest.range(of: "<key>"), let close = rest[open.upperBound...].range(of: "</key>") {
                    let key = String(rest[open.upperBound..<close.lowerBound])
                    let col = line.distance(from: line.startIndex, to: open.lowerBound) + 1
                    if locs[key] == nil { locs[key] = SourceLocation(file: full, line: i + 1, column: col) }
                    rest = rest[close.upperBound...]
                }
            }
        }
        return PlistFile(dictionary: dict, keyLocations: locs)
    }

    // MARK: Device

    /// `linux: {protectedHardlinks: 1, protectedSymlinks: 1, protectedRegular: 2, protectedFifos: 1}`
    mutating func readLinux(_ n: YNode) {
        guard let m = r.mapping(n, what: "`linux`") else { return }
        let k = r.keyed(m, known: linuxKeys, context: "`linux`")
        for t in LinuxTunable.allCases {
            guard let v = k[t.rawValue] else { continue }
            let max = Int(LinuxTunables.max(t))
            let allowed = (0...max).map(String.init).joined(separator: ", ")
            guard let s = v.scalar, !v.isNull, let x = Int(s), (0...max).contains(x) else {
                r.diags.error(
                    v.loc, code: "bad-value", "`\(t.rawValue)` (\(t.sysctl)) must be one of \(allowed), found `\(v.scalar ?? v.kindWord)`",
                    help: "write the number `cat /proc/sys/fs/\(t.sysctl.dropFirst(3))` prints on the host (\(allowed))")
                continue
            }
            p.world.linux[t] = UInt8(x)
            p.linuxLocations[t.rawValue] = v.loc
        }
    }

    mutating func readDevice(_ n: YNode) {
        guard let m = r.mapping(n, what: "`device`") else { return }
        let k = r.keyed(m, known: deviceKeys, context: "`device`")
        if let s = k["state"], let w = r.string(s, what: "`state`") {
            if let st = DeviceState(rawValue: w) {
                p.world.device = st
            } else {
                r.diags.error(
                    s.loc, code: "bad-value", "unknown device state `\(w)`",
                    help: nearest(w, in: DeviceState.allCases.map(\.rawValue)).map { "did you mean `\($0)`?" }
                        ?? "use `unlocked`, `locked` or `beforeFirstUnlock`")
            }
        }
        readKeychainDevice(k)
    }
}

/// A property-list boolean (not a number that happens to be 0 or 1).
func plistBool(_ v: Any) -> Bool? {
    if type(of: v) == Bool.self { return v as? Bool }
    #if canImport(Darwin)
        if let n = v as? NSNumber, CFGetTypeID(n) == CFBooleanGetTypeID() { return n.boolValue }
    #endif
    return nil
}
