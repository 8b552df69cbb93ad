import Foundation

/// Reading a host's unit folders from disk, under a root (`/` for this host, or a folder holding a
/// copy of one). Symlinks are followed inside the root: an absolute target is taken from the
/// root, never from the real `/`, and `..` never climbs above it.
extension UnitFolders {
    /// The most entries read, and the largest file (a unit file is a few KiB).
    static let maxEntries = 100_000
    static let maxFileBytes = 4 << 20

    /// The entries of the unit folders under `root`, and a line for each that could not be read.
    public static func collect(root: String) -> (UnitFolders, [String]) {
        let reader = Reader(root: root)
        var seen: [String: String] = [:]  // the folder as resolved → the first folder that is it
        for folder in searchPath {
            guard let real = reader.resolve(folder), reader.isDirectory(real) else { continue }
            if seen[real] != nil {
                reader.folders.duplicateFolders.append(folder)
                continue
            }
            seen[real] = folder
            for name in reader.list(real) {
                let logical = folder + "/" + name
                let onDisk = real + "/" + name
                if let t = reader.linkTarget(onDisk) {
                    if name.hasSuffix(".service") {
                        reader.add(logical, .link(t))
                        reader.pull(UnitFolders.absolute(t, from: folder))
                    }
                    continue
                }
                if name.hasSuffix(".service") {
                    reader.readFile(onDisk, as: logical)
                } else if name.hasSuffix(".d"), reader.isDirectory(onDisk) {
                    for conf in reader.list(onDisk) where conf.hasSuffix(".conf") {
                        let p = onDisk + "/" + conf
                        if let t = reader.linkTarget(p) {
                            reader.add(logical + "/" + conf, .link(t))
                            reader.pull(UnitFolders.absolute(t, from: logical))
                        } else {
                            reader.readFile(p, as: logical + "/" + conf)
                        }
                    }
                } else if name.hasSuffix(".wants") || name.hasSuffix(".requires"), reader.isDirectory(onDisk) {
                    // Only the names of enabled instances matter (`getty@tty1.service`).
                    for unit in reader.list(onDisk) where UnitFolders.isInstance(unit) {
                        reader.add(logical + "/" + unit, .link(reader.linkTarget(onDisk + "/" + unit) ?? ""))
                    }
                }
            }
        }
        return (reader.folders, reader.problems)
    }

    /// The state of one collection (a class: its helpers add to it).
    final class Reader {
        let prefix: String
        var folders = UnitFolders()
        var problems: [String] = []

        init(root: String) {
            var r = root
            while r.count > 1 && r.hasSuffix("/") { r.removeLast() }
            prefix = r == "/" ? "" : r
        }

        func add(_ path: String, _ e: Entry) {
            guard folders.entries.count < UnitFolders.maxEntries else {
                if problems.last != "too many unit files: the rest is not read" { problems.append("too many unit files: the rest is not read") }
                return
            }
            folders.entries[path] = e
        }

        func attributes(_ p: String) -> [FileAttributeKey: Any]? { try? FileManager.default.attributesOfItem(atPath: prefix + p) }
        func isDirectory(_ p: String) -> Bool {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix + p, isDirectory: &d) && d.boolValue
        }
        func list(_ p: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: prefix + p)) ?? []).sorted() }
        func linkTarget(_ p: String) -> String? {
            guard attributes(p)?[.type] as? FileAttributeType == .typeSymbolicLink else { return nil }
            return try? FileManager.default.destinationOfSymbolicLink(atPath: prefix + p)
        }

        /// Reads a regular file at `onDisk` (a path in the root, symlinks resolved) as `logical`.
        func readFile(_ onDisk: String, as logical: String) {
            guard let a = attributes(onDisk), a[.type] as? FileAttributeType == .typeRegular else { return }
            if let size = a[.size] as? Int, size > UnitFolders.maxFileBytes {
                problems.append("\(logical) is over 4 MiB: not read")
                return
            }
            guard let d = FileManager.default.contents(atPath: prefix + onDisk) else {
                problems.append("\(logical) cannot be read")
                return
            }
            add(logical, .file([UInt8](d)))
        }

        /// The file a symlink points to, read into the entries under its path (once).
        func pull(_ target: String) {
            guard target != "/dev/null", folders.entries[target] == nil else { return }
            guard let real = resolve(target) else {
                problems.append("\(target), a symlink's target, is not in the root")
                return
            }
            if real == "/dev/null" { add(target, .link("/dev/null")); return }
            readFile(real, as: target)
        }

        /// `path` with every symlink of it followed inside the root (at most 40); nil when a
        /// component is missing.
        func resolve(_ path: String) -> String? {
            var todo = path.split(separator: "/").map(String.init)
            var done: [String] = []
            var hops = 0
            while !todo.isEmpty {
                let c = todo.removeFirst()
                if c == "." { continue }
                if c == ".." { if !done.isEmpty { done.removeLast() }; continue }
                let here = "/" + (done + [c]).joined(separator: "/")
                if let t = linkTarget(here) {
                    hops += 1
                    if hops > 40 { return nil }
                    if t.hasPrefix("/") { done = [] }
                    todo = t.split(separator: "/").map(String.init) + todo
                    continue
                }
                if attributes(here) == nil { return here == "/dev/null" ? here : nil }
                done.append(c)
            }
            return "/" + done.joined(separator: "/")
        }
    }
}
