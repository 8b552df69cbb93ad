import FSPolicy
import Foundation
import FSPolicyYAML

/// The keys of `units:` (docs/policy-format.md, "Units"): every service of a host's unit folders.
let unitsKeys = ["root", "files"]
/// The keys of one entry of `units: files:`, as `scan --units` writes them.
let unitFileKeys = ["path", "text", "link"]

extension Compiler {
    /// `units: {root: DIR}` reads the unit folders under DIR (relative to this file's folder);
    /// with `files:` (what `scan --units` writes) the folders' files are those listed, and `root`
    /// only says where they were read. Each unit with a `[Service]` section becomes a service named
    /// after it; one declared under `services:` keeps its declaration.
    mutating func readUnits(_ n: YNode) {
        guard let m = r.mapping(n, what: "`units`") else { return }
        let k = r.keyed(m, known: unitsKeys, context: "`units`")
        guard let rv = k["root"], let rootText = r.string(rv, what: "`root` of `units`") else {
            r.diags.error(n.loc, code: "missing-key", "`units` has no `root`", help: "name the folder whose unit folders are read: `units: {root: /}`")
            return
        }
        var folders = UnitFolders()
        var shownRoot = rootText
        if let fv = k["files"] {
            guard let list = r.list(fv, what: "`files` of `units`") else { return }
            for item in list {
                guard let im = r.mapping(item, what: "an entry of `units: files`") else { continue }
                let ik = r.keyed(im, known: unitFileKeys, context: "an entry of `units: files`")
                guard let pv = ik["path"], let path = r.string(pv, what: "`path`") else {
                    r.diags.error(item.loc, code: "missing-key", "an entry of `units: files` has no `path`", help: "write the file's absolute path in the root")
                    continue
                }
                guard path.hasPrefix("/"), YAMLText.lexicalPath(path) == path, path.count > 1 else {
                    r.diags.error(
                        pv.loc, code: "bad-path", "`\(path)` is not an absolute path without `.`, `..` or `//`", help: "e.g. /etc/systemd/system/nginx.service")
                    continue
                }
                switch (ik["text"], ik["link"]) {
                case (let t?, nil): if let s = r.string(t, what: "`text`") { folders.entries[path] = .file(Array(s.utf8)) }
                case (nil, let l?): if let s = r.string(l, what: "`link`") { folders.entries[path] = .link(s) }
                default:
                    r.diags.error(
                        item.loc, code: "bad-value", "an entry of `units: files` needs one of `text` and `link`",
                        help: "`text` for a file, `link` for a symlink's target")
                }
            }
        } else {
            let full = PolicyLoader.join(baseDir, rootText)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir), isDir.boolValue else {
                r.diags.error(
                    rv.loc, code: "unreadable", "cannot read the folder `\(rootText)`",
                    help: "relative paths are relative to this file's folder; `/` is this host")
                return
            }
            let (f, problems) = UnitFolders.collect(root: full)
            folders = f
            for problem in problems {
                r.diags.warning(
                    rv.loc, code: "unit-folder-unreadable", "\(NameEscaping.escape(Array(problem.utf8))): services it would give are left out",
                    help: "run as a user who may read the unit folders")
            }
            shownRoot = full
        }
        var added = 0
        let prefix = shownRoot == "/" ? "" : (shownRoot.hasSuffix("/") ? String(shownRoot.dropLast()) : shownRoot)
        for unit in folders.resolve().units {
            guard Compiler.isServiceName(unit.name) else {
                r.diags.warning(
                    rv.loc, code: "bad-name", "the unit `\(NameEscaping.escape(Array(unit.name.utf8))).service` has no valid unit name: it is left out",
                    help: "systemd takes letters, digits and `-_.@:\\` in unit names")
                continue
            }
            if p.world.serviceIndex(unit.name) != nil { continue }
            var u = UnitFile()
            for f in unit.files { u.parse(Data(f.bytes), file: prefix + f.path) }
            var svc = Service(name: unit.name, uid: 0)
            applyUnitFile(u, at: rv.loc, to: &svc, name: unit.name, unitName: unit.name + ".service")
            p.world.services.append(svc)
            p.serviceLocations[unit.name] = rv.loc
            added += 1
        }
        if p.semantics != .linux, added > 0 {
            r.diags.warning(
                n.loc, code: "services-not-linux",
                "the services of `units` are decided as their users under `\(p.semantics.rawValue)`: capabilities are Linux's",
                help: "set `semantics: linux` (or `--semantics linux`) to decide with their capabilities")
        }
    }
}

extension UnitFolders {
    /// The `units:` section `scan --units` writes: the root, and every file read, in path order.
    public func yaml(root: String) -> String {
        var out = "units:\n  root: \(YAMLText.quote(root))\n"
        if entries.isEmpty { return out + "  files: []\n" }
        out += "  files:\n"
        for path in entries.keys.sorted() {
            switch entries[path]! {
            case .file(let b): out += "    - {path: \(YAMLText.quote(path)), text: \(YAMLText.quote(String(decoding: b, as: UTF8.self)))}\n"
            case .link(let t): out += "    - {path: \(YAMLText.quote(path)), link: \(YAMLText.quote(t))}\n"
            }
        }
        return out
    }
}
