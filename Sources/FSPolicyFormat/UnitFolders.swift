/// The services of a host's systemd unit folders (docs/services.md, "Every unit of a host"): the
/// unit files of the five folders systemd searches for system units, with its override rules
/// (systemd.unit(5), "Unit File Load Path" and the drop-in paragraphs). This part is pure: it
/// works on the entries of the folders as read (`UnitFolders.collect`, or a scan file's
/// `units: files:`), so a scan file gives the same services as the host it was read from.
public struct UnitFolders: Sendable, Equatable {
    /// A file of a unit folder as read: its bytes, or a symlink's target as written.
    public enum Entry: Sendable, Equatable {
        case file([UInt8])
        case link(String)
    }

    /// The folders, highest first: a unit file in one hides a file of the same name below.
    /// systemd's control, transient and generator folders are not read: they hold what a running
    /// system makes, not what is installed.
    public static let searchPath = [
        "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"
    ]

    /// Every entry by its absolute path in the root (`/etc/systemd/system/nginx.service`): the
    /// unit files and symlinks directly in a folder, the `.conf` files of its `*.d` folders, the
    /// symlinks of its `*.wants` and `*.requires` folders, and the files symlinks point to.
    public var entries: [String: Entry] = [:]
    /// The folders of `searchPath` that are the same folder as a higher one (`/lib` a symlink to
    /// `/usr/lib`): systemd reads such a folder once, and so does this.
    public var duplicateFolders: [String] = []

    public init(entries: [String: Entry] = [:], duplicateFolders: [String] = []) {
        self.entries = entries
        self.duplicateFolders = duplicateFolders
    }

    /// One service found: its name (the unit's without `.service`), and the files that make it,
    /// in the order systemd applies them (the unit file, then its drop-ins).
    public struct Unit: Sendable, Equatable {
        public var name: String
        public var files: [(path: String, bytes: [UInt8])]
        public static func == (a: Unit, b: Unit) -> Bool {
            a.name == b.name && a.files.map(\.path) == b.files.map(\.path) && a.files.map(\.bytes) == b.files.map(\.bytes)
        }
    }

    /// What resolving found: the services, and a note for each unit left out and why.
    public struct Resolved: Sendable {
        public var units: [Unit] = []
        public var notes: [String] = []
    }

    /// The folders searched, without those that duplicate a higher one.
    var folders: [String] { UnitFolders.searchPath.filter { !duplicateFolders.contains($0) } }

    /// The services of the folders, sorted by name.
    public func resolve() -> Resolved {
        var out = Resolved()
        // Names directly in a folder, the highest folder's entry first.
        var fragment: [String: String] = [:]
        var instanceNames: Set<String> = []
        for path in entries.keys.sorted() {
            guard let (dir, name) = split(path) else { continue }
            if folders.contains(dir), name.hasSuffix(".service"), name != ".service" {
                if let have = fragment[name], rank(of: have) <= rank(of: path) { continue }
                fragment[name] = path
            } else if let (parent, _) = split(dir), folders.contains(parent), dir.hasSuffix(".wants") || dir.hasSuffix(".requires"),
                UnitFolders.isInstance(name)
            {
                // An enabled instance of a template (`getty@tty1.service` in `getty.target.wants`).
                instanceNames.insert(name)
            }
        }
        var names = Set(fragment.keys.filter { !UnitFolders.isTemplate($0) })
        for n in instanceNames { names.insert(n) }
        for name in names.sorted() {
            let base = String(name.dropLast(".service".count))
            var fragPath = fragment[name]
            if fragPath == nil, UnitFolders.isInstance(name) { fragPath = fragment[UnitFolders.template(of: name)] }
            guard let start = fragPath else {
                out.notes.append("\(name): an instance whose template \(UnitFolders.template(of: name)) is in no unit folder: left out")
                continue
            }
            switch follow(start, name: name) {
            case .masked(let why): out.notes.append("\(name): masked (\(why)): no service")
            case .alias(let target): out.notes.append("\(name): an alias of \(target): its service is named after \(target)")
            case .missing(let p): out.notes.append("\(name): \(p) cannot be read: left out")
            case .file(let path, let bytes):
                let files = [(path: path, bytes: bytes)] + dropIns(for: name)
                guard files.contains(where: { UnitFolders.hasServiceSection($0.bytes) }) else {
                    out.notes.append("\(name): no [Service] section: no service")
                    continue
                }
                out.units.append(Unit(name: base, files: files))
            }
        }
        return out
    }

    enum Followed {
        case file(String, [UInt8])
        case masked(String)
        case alias(String)
        case missing(String)
    }

    /// Follows a unit file's symlinks (at most 8): to `/dev/null` or an empty file it is masked;
    /// to a file of another name it is an alias.
    func follow(_ start: String, name: String) -> Followed {
        var path = start
        for _ in 0..<8 {
            switch entries[path] {
            case nil: return .missing(path)
            case .file(let b):
                if b.isEmpty { return .masked("\(path) is empty") }
                return .file(path, b)
            case .link(let t):
                if t == "/dev/null" { return .masked("\(path) is a symlink to /dev/null") }
                let target = UnitFolders.absolute(t, from: split(path)?.0 ?? "/")
                let tname = split(target)?.1 ?? ""
                if tname != name && !(UnitFolders.isInstance(name) && tname == UnitFolders.template(of: name)) {
                    return .alias(tname)
                }
                path = target
            }
        }
        return .missing("\(start) (too many symlinks)")
    }

    /// The drop-ins of `name` from every folder, in the order systemd applies them: by file name;
    /// of two of the same file name, the one in the more specific folder (`NAME.service.d`, then
    /// the template's, then the dash prefixes from the longest, then `service.d`) wins, and among
    /// folders of one name the higher unit folder. A drop-in that is a symlink to `/dev/null` or
    /// empty applies nothing and hides the ones of its name below it.
    func dropIns(for name: String) -> [(path: String, bytes: [UInt8])] {
        var dirs = [name + ".d"]
        if UnitFolders.isInstance(name) { dirs.append(UnitFolders.template(of: name) + ".d") }
        let stem = name.dropLast(".service".count)
        var prefixes: [String] = []
        for (i, c) in stem.enumerated() where c == "-" && i > 0 {
            prefixes.append(String(stem.prefix(i + 1)) + ".service.d")
        }
        dirs += prefixes.reversed()
        dirs.append("service.d")
        var chosen: [String: (Int, String)] = [:]  // file name → (rank, path)
        for path in entries.keys {
            guard let (dir, file) = split(path), file.hasSuffix(".conf"), let (unitDir, dname) = split(dir),
                let specific = dirs.firstIndex(of: dname), let folder = folders.firstIndex(of: unitDir)
            else { continue }
            let r = specific * 16 + folder
            if let have = chosen[file], have.0 <= r { continue }
            chosen[file] = (r, path)
        }
        var out: [(path: String, bytes: [UInt8])] = []
        for file in chosen.keys.sorted() {
            let path = chosen[file]!.1
            var p = path
            var bytes: [UInt8]? = nil
            for _ in 0..<8 {
                guard let e = entries[p] else { break }
                if case .file(let b) = e { bytes = b; break }
                if case .link(let t) = e {
                    if t == "/dev/null" { break }
                    p = UnitFolders.absolute(t, from: split(p)?.0 ?? "/")
                }
            }
            if let b = bytes, !b.isEmpty { out.append((path: path, bytes: b)) }
        }
        return out
    }

    /// The rank of a path's folder in `searchPath` (lower is higher).
    func rank(of path: String) -> Int {
        guard let (dir, _) = split(path) else { return .max }
        return folders.firstIndex(of: dir) ?? .max
    }

    /// The folder and the last name of an absolute path.
    func split(_ path: String) -> (String, String)? { UnitFolders.split(path) }

    static func split(_ path: String) -> (String, String)? {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex || path.count > 1 else { return nil }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        return (dir, String(path[path.index(after: slash)...]))
    }

    /// A symlink's target as an absolute path: a relative one is taken from the link's folder;
    /// `.` and `..` are folded (never above `/`).
    static func absolute(_ target: String, from dir: String) -> String {
        let joined = target.hasPrefix("/") ? target : dir + "/" + target
        var parts: [Substring] = []
        for c in joined.split(separator: "/") {
            if c == "." { continue }
            if c == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(c)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `foo@.service`: a template, a service only as an instance.
    static func isTemplate(_ name: String) -> Bool { name.hasSuffix("@.service") }
    /// `foo@bar.service`.
    static func isInstance(_ name: String) -> Bool { name.hasSuffix(".service") && name.contains("@") && !isTemplate(name) }
    /// `foo@bar.service` → `foo@.service`.
    static func template(of name: String) -> String {
        guard let at = name.firstIndex(of: "@") else { return name }
        return String(name[...at]) + ".service"
    }

    /// The file has a `[Service]` section header (systemd.syntax(7): a line `[Service]`).
    static func hasServiceSection(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.split(separator: "\n").contains { $0.trimmedOf(" \t\r") == "[Service]" }
    }
}

extension Substring {
    fileprivate func trimmedOf(_ set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
