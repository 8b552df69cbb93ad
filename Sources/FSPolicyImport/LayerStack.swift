#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import Foundation

    /// The merged tree of an image's layers, with an index of every folder's names (members and the
    /// folders implied above them), so a whiteout, an opaque folder or a file over a folder removes
    /// a subtree by looking it up: each layer costs what it holds and what it removes, never a pass
    /// over everything the layers below made (200 whiteout layers over a 40,000-entry base took 13 s
    /// when each filtered the whole merged tree).
    struct MergedLayers {
        private(set) var members: [[[UInt8]]: TarLayer.Member] = [:]
        /// Folder (by its components) → the names below it, members or not.
        private var kids: [[[UInt8]]: Set<[UInt8]>] = [:]
        /// Entries of the index visited while removing (for tests: proportional to what is removed).
        private(set) var visited = 0

        subscript(key: [[UInt8]]) -> TarLayer.Member? { members[key] }

        mutating func set(_ key: [[UInt8]], _ m: TarLayer.Member) {
            if members.updateValue(m, forKey: key) != nil || key.isEmpty { return }
            // Register the name in its folder, and the folders above until one is known.
            var k = key
            while let last = k.last {
                k.removeLast()
                if !kids[k, default: []].insert(last).inserted { break }
            }
        }

        /// Removes `key` and everything below it; returns how many members went.
        mutating func removeSubtree(_ key: [[UInt8]]) -> Int {
            var removed = removeBelow(key)
            visited += 1
            if members.removeValue(forKey: key) != nil { removed += 1 }
            if let last = key.last {
                let parent = Array(key.dropLast())
                kids[parent]?.remove(last)
            }
            return removed
        }

        /// Removes everything below `key` (not `key`); returns how many members went.
        mutating func removeBelow(_ key: [[UInt8]]) -> Int {
            guard let names = kids.removeValue(forKey: key) else { return 0 }
            var removed = 0
            var stack: [[[UInt8]]] = names.map { key + [$0] }
            while let k = stack.popLast() {
                visited += 1
                if members.removeValue(forKey: k) != nil { removed += 1 }
                if let below = kids.removeValue(forKey: k) {
                    for n in below { stack.append(k + [n]) }
                }
            }
            return removed
        }
    }

    /// Where a layer's tar comes from.
    enum LayerSource {
        /// A file (a blob of a layout folder, checked before it is read).
        case file(String)
        /// A member of a plain image archive, read in place; its size and digest are checked by
        /// `verify` as it is read (`PackedArchive.stream`).
        case member(PackedArchive, rel: String, limit: UInt64?, verify: (_ digest: String, _ size: UInt64) -> ArchiveFailure?)
    }

    enum LayerStack {
        /// Applies the layers (tar files, bottom first) as a container engine unpacks them.
        /// `visited` (for tests) receives how many index entries the whiteouts and replaced folders visited.
        static func apply(
            _ layers: [(path: String, what: String)], origin: String, checked: String, user: String?, accounts: HostAccounts = .none,
            progress: (@Sendable (Int) -> Void)?, visited: UnsafeMutablePointer<Int>? = nil
        ) -> Result<ScannedTree, ArchiveFailure> {
            apply(
                layers.map { (source: LayerSource.file($0.path), what: $0.what) }, origin: origin, checked: checked, user: user, accounts: accounts,
                progress: progress, visited: visited)
        }

        /// As above, from files or members of an image archive read in place.
        static func apply(
            _ layers: [(source: LayerSource, what: String)], origin: String, checked: String, user: String?, accounts: HostAccounts = .none,
            progress: (@Sendable (Int) -> Void)?, visited: UnsafeMutablePointer<Int>? = nil
        ) -> Result<ScannedTree, ArchiveFailure> {
            var merged = MergedLayers()
            var passwd: [UInt8]? = nil
            var group: [UInt8]? = nil
            var problems: [ScannedTree.Problem] = []
            var throughLinks: [[[UInt8]]] = []
            var total = 0
            var hidden = 0
            let etcPasswd = [Array("etc".utf8), Array("passwd".utf8)]
            let etcGroup = [Array("etc".utf8), Array("group".utf8)]
            defer { visited?.pointee = merged.visited }
            for (i, (source, what)) in layers.enumerated() {
                var layer = TarLayer()
                let base = total
                var step: (@Sendable (Int) -> Void)? = nil
                if let p = progress {
                    step = { @Sendable (n: Int) -> Void in p(base + n) }
                }
                let failure: ArchiveFailure?
                switch source {
                case .file(let path):
                    failure = layer.read(path, progress: step, whiteoutAware: true, lower: merged.members).map {
                        ArchiveFailure(message: "\(what): " + $0.message, help: $0.help)
                    }
                case .member(let archive, let rel, let limit, let verify):
                    let shown = archive.shown + "/" + NameEscaping.escape(Array(rel.utf8))
                    failure = archive.stream(rel, limit: limit, verify: verify) { open in
                        layer.read(shown: shown, progress: step, whiteoutAware: true, lower: merged.members, open: open).map {
                            ArchiveFailure(message: "\(what): " + $0.message, help: $0.help)
                        }
                    }
                }
                if let failure { return .failure(failure) }
                total += layer.count
                // Whiteouts and opaque folders hide what the layers below put there, not this
                // layer's own: a whiteout removes its name with all below it, an opaque folder
                // what is below it (the root too).
                for key in layer.whiteouts where !key.isEmpty { hidden += merged.removeSubtree(key) }
                for key in layer.opaque { hidden += merged.removeBelow(key) }
                // An entry over a folder that is not a folder replaces the whole folder.
                for (key, m) in layer.members where m.entry.type != .dir {
                    if let old = merged[key], old.entry.type == .dir { _ = merged.removeBelow(key) }
                }
                // A path below what the layers beneath made a symlink or a file: container engines
                // resolve the link and write where it points (or fail); nothing is ever made beneath
                // the link's own name, so this reader leaves the path out and says so (kept, it made
                // a tree with a node below a symlink, which no policy file can hold).
                var below: [ScannedTree.Problem] = []
                var leftOut: Set<[[UInt8]]> = []
                for key in layer.members.keys where key.count > 1 {
                    for n in 1..<key.count {
                        let prefix = Array(key.prefix(n))
                        if layer.members[prefix] == nil, let lower = merged[prefix], lower.entry.type != .dir {
                            below.append(
                                .init(
                                    path: TarLayer.display(key),
                                    message:
                                        "layer \(i + 1): below `\(TarLayer.display(prefix))`, a \(lower.entry.type.word) in the layers beneath; a container engine would write it where that link points (or fail), never beneath the link; left out"
                                ))
                            leftOut.insert(key)
                            if lower.entry.type == .symlink { throughLinks.append(key) }
                            break
                        }
                    }
                }
                problems += below.sorted { $0.path < $1.path }
                for (key, m) in layer.members where !leftOut.contains(key) { merged.set(key, m) }
                if merged[etcPasswd]?.entry.type != .file { passwd = nil }
                if merged[etcGroup]?.entry.type != .file { group = nil }
                if let p = layer.passwd { passwd = p }
                if let g = layer.group { group = g }
                problems += layer.problems.map { .init(path: $0.path, message: "layer \(i + 1): " + $0.message) }
                throughLinks += layer.throughLinks
            }
            var all = TarLayer()
            all.members = merged.members
            all.problems = problems
            all.throughLinks = throughLinks
            all.passwd = passwd
            all.group = group
            all.count = total
            all.noun = "image"
            var tree = ScannedTree(root: "/")
            tree.origin = origin
            tree.notes.append("the layers were applied in order with their whiteouts (.wh. files, opaque folders); " + checked)
            if hidden > 0 {
                tree.notes.append(
                    "\(hidden) \(hidden == 1 ? "entry" : "entries") of lower layers are deleted by whiteouts and absent here, but their contents are still stored in those layers' blobs: anyone who can pull the image can read them"
                )
            }
            if let u = user { tree.notes.append("the image's configuration runs its process as user `\(NameEscaping.escape(Array(u.utf8)))` (config.User)") }
            all.finish(into: &tree, accounts: accounts)
            return .success(tree)
        }
    }
#endif
