#if os(Linux)
    import CLibArchive
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyIO
    import Foundation
    import Glibc

    /// Reads an OCI image layout directory (`oci-layout`, `index.json`, `blobs/sha256/…`, as
    /// `skopeo copy … oci:DIR`, `buildah push … oci:DIR` or `docker buildx build --output type=oci`
    /// write it) as the tree a container of the image starts from: index → manifest (chosen by
    /// platform) → layers, each a tar archive (plain, gzip or zstd), applied in order with the OCI
    /// whiteouts. Every blob read is checked against its sha256 digest and size first. Also reads
    /// the legacy `docker save` folder (`manifest.json`; layers checked against the configuration's
    /// diff_ids), and either one packed into a tar file (`docker save -o`), unpacked first into a
    /// temporary folder.
    public enum OCIReader {
        /// What the tree was read from, for the header of `scan --oci`.
        public struct Summary: Sendable, Equatable {
            public var manifestDigest: String
            public var platform: String?
            public var layers: Int
            public var user: String?
        }

        /// The platform chosen when the index lists several images and none is asked for.
        public static let defaultPlatform = "linux/amd64"

        /// Reads the layout at `dir`. `platform` is `os/arch[/variant]` or a manifest digest
        /// (`sha256:…`); nil picks the only image, else `linux/amd64`.
        /// `accounts`: where names in ACL entries the image does not list are looked up.
        public static func read(_ dir: String, platform: String? = nil, accounts: HostAccounts = .none, progress: (@Sendable (Int) -> Void)? = nil) -> Result<
            ScannedTree, ArchiveFailure
        > {
            var reader = Layout(dir: dir)
            reader.accounts = accounts
            switch reader.read(platform: platform, progress: progress) {
            case .failure(let f): return .failure(f)
            case .success(let (tree, _)): return .success(tree)
            }
        }

        /// As `read`, with what was read.
        public static func readWithSummary(
            _ dir: String, platform: String? = nil, accounts: HostAccounts = .none, progress: (@Sendable (Int) -> Void)? = nil
        ) -> Result<(ScannedTree, Summary), ArchiveFailure> {
            var reader = Layout(dir: dir)
            reader.accounts = accounts
            return reader.read(platform: platform, progress: progress)
        }
    }

    private let indexTypes: Set<String> = ["application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"]
    private let manifestTypes: Set<String> = ["application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"]
    /// Layer media types whose blob is a tar archive, plain or compressed (libarchive finds out which).
    private let layerTypes: Set<String> = [
        "application/vnd.oci.image.layer.v1.tar", "application/vnd.oci.image.layer.v1.tar+gzip", "application/vnd.oci.image.layer.v1.tar+zstd",
        "application/vnd.oci.image.layer.nondistributable.v1.tar", "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
        "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd",
        "application/vnd.docker.image.rootfs.diff.tar", "application/vnd.docker.image.rootfs.diff.tar.gzip",
        "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip"
    ]

    private struct Descriptor {
        var mediaType: String?
        var digest: String
        var size: UInt64?
        var platform: String?
        var refName: String?
        var attestation: Bool

        /// `os/arch[/variant]`.
        static func platformText(_ p: [String: Any]?) -> String? {
            guard let p, let os = p["os"] as? String, let arch = p["architecture"] as? String else { return nil }
            if let v = p["variant"] as? String, !v.isEmpty { return "\(os)/\(arch)/\(v)" }
            return "\(os)/\(arch)"
        }
    }

    private struct Layout {
        let dir: String
        /// How messages name the layout (the archive's path when it was unpacked from one).
        var shown: String? = nil
        /// Read from a tar file (`docker save -o`, an OCI archive) unpacked into a temporary folder.
        var packed = false
        /// For a packed layout, where the files asked for are taken from.
        var source: PackedArchive? = nil
        /// Where names in ACL entries the image does not list are looked up.
        var accounts = HostAccounts.none
        var shownDir: String { shown ?? NameEscaping.escape(Array(dir.utf8)) }
        var layoutWord: String { packed ? "OCI image archive" : "OCI image layout" }
        var saveWord: String { packed ? "`docker save` archive" : "`docker save` folder" }

        func fail(_ message: String, _ help: String) -> Result<(ScannedTree, OCIReader.Summary), ArchiveFailure> {
            .failure(ArchiveFailure(message: message, help: help))
        }

        func text(_ s: String) -> String { NameEscaping.escape(Array(s.utf8)) }

        /// The blob's path for a digest, after checking the digest's form (no path can hide in it).
        func blobPath(_ digest: String) -> (path: String, rel: String)? {
            let parts = digest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "sha256", parts[1].count == 64,
                parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else { return nil }
            let rel = "blobs/sha256/" + parts[1]
            return (dir + "/" + rel, rel)
        }

        /// Whether the blob `rel`, of `size` bytes and sha256 `sum`, is what `d` says; the failure names it.
        func check(_ d: Descriptor, what: String, rel: String, digest sum: String, size: UInt64) -> ArchiveFailure? {
            if let want = d.size, want != size {
                return .init(
                    message: "\(what) `\(shownDir)/\(rel)` has \(size) bytes; its descriptor says \(want)",
                    help: "the blob was changed or cut short after the layout was written; copy the image again")
            }
            if "sha256:" + sum != d.digest {
                return .init(
                    message: "\(what) `\(shownDir)/\(rel)` does not match its digest: its content is sha256:\(sum)",
                    help: "the blob was changed after the layout was written; copy the image again")
            }
            return nil
        }

        /// A file of the layout named by the format (`oci-layout`, `index.json`, `manifest.json`);
        /// an archive's were read into memory by its first pass.
        func ownFile(_ name: String) -> Data? {
            if let source { return source.own[name].map { Data($0) } }
            return FileManager.default.contents(atPath: dir + "/" + name)
        }

        /// Reads a blob after checking its size and digest; the failure names it. A layer of a
        /// plain image archive is checked as it is read instead (`LayerSource.member`): here only
        /// that it is there and that its header gives the descriptor's size.
        func blob(_ d: Descriptor, what: String, readData: Bool) -> Result<(source: LayerSource, data: Data?), ArchiveFailure> {
            guard let (path, rel) = blobPath(d.digest) else {
                if d.digest.hasPrefix("sha512:") {
                    return .failure(
                        .init(
                            message: "\(what) in `\(shownDir)` has a sha512 digest, which fspolicy does not check",
                            help: "copy the image again with sha256 digests (the usual ones), e.g. `skopeo copy oci:OLD oci:NEW`"))
                }
                return .failure(
                    .init(
                        message: "\(what) in `\(shownDir)` has the malformed digest `\(text(d.digest))`",
                        help: "a digest is `sha256:` followed by 64 lowercase hex digits"))
            }
            let missing = ArchiveFailure(
                message: "\(what) is missing: `\(shownDir)/\(rel)` does not exist",
                help: "the layout is incomplete; copy the image again (e.g. `skopeo copy docker://IMAGE oci:\(shownDir)`), or it was written without this blob")
            if let source, !source.compressed {
                if readData {
                    // Into memory: as big as the descriptor says, and 16 MiB at most.
                    switch source.load(rel, limit: min(d.size ?? PackedArchive.layoutFileLimit, PackedArchive.layoutFileLimit)) {
                    case .failure(let f): return .failure(f)
                    case .success(nil): return .failure(missing)
                    case .success(let bytes?):
                        if let f = check(d, what: what, rel: rel, digest: SHA256.hex(bytes), size: UInt64(bytes.count)) { return .failure(f) }
                        return .success((.file(path), Data(bytes)))
                    }
                }
                guard let m = source.members[rel] else { return .failure(missing) }
                if let want = d.size, m.size > want { return .failure(source.bigger(m.raw, limit: want)) }
                if let want = d.size, m.size < want {
                    return .failure(check(d, what: what, rel: rel, digest: "", size: m.size) ?? missing)
                }
                let layout = self
                return .success(
                    (.member(source, rel: rel, limit: d.size, verify: { layout.check(d, what: what, rel: rel, digest: $0, size: $1) }), nil))
            }
            if let source, let f = source.take([(rel, d.size ?? (readData ? PackedArchive.layoutFileLimit : nil))]) { return .failure(f) }
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return .failure(missing) }
            guard let (sum, size) = SHA256.file(path) else {
                return .failure(.init(message: "cannot read `\(shownDir)/\(rel)` (\(what))", help: "check the file's permissions"))
            }
            if let f = check(d, what: what, rel: rel, digest: sum, size: size) { return .failure(f) }
            return .success((.file(path), readData ? FileManager.default.contents(atPath: path) : nil))
        }

        func json(_ data: Data, _ name: String) -> Result<[String: Any], ArchiveFailure> {
            guard let obj = try? JSONSerialization.jsonObject(with: data), let m = obj as? [String: Any] else {
                return .failure(.init(message: "\(name) in `\(shownDir)` is not a JSON object", help: "the layout is damaged; copy the image again"))
            }
            return .success(m)
        }

        func descriptor(_ any: Any, _ name: String) -> Result<Descriptor, ArchiveFailure> {
            guard let m = any as? [String: Any], let digest = m["digest"] as? String else {
                return .failure(
                    .init(message: "\(name) in `\(shownDir)` has a descriptor without a `digest`", help: "the layout is damaged; copy the image again"))
            }
            let size = (m["size"] as? NSNumber).flatMap { UInt64(exactly: $0.doubleValue) }
            let annotations = m["annotations"] as? [String: Any]
            let platform = Descriptor.platformText(m["platform"] as? [String: Any])
            return .success(
                Descriptor(
                    mediaType: m["mediaType"] as? String, digest: digest, size: size, platform: platform,
                    refName: annotations?["org.opencontainers.image.ref.name"] as? String,
                    attestation: annotations?["vnd.docker.reference.type"] as? String == "attestation-manifest"
                        || platform == "unknown/unknown"))
        }

        mutating func read(platform: String?, progress: (@Sendable (Int) -> Void)?) -> Result<(ScannedTree, OCIReader.Summary), ArchiveFailure> {
            var st = stat()
            guard stat(dir, &st) == 0 else {
                return fail(
                    "cannot read `\(shownDir)`: no such file or directory", "check the path; in a policy file, relative paths are relative to its folder")
            }
            let saveHint =
                "an image layout is a folder (`skopeo copy … oci:DIR`) or the tar file of `docker save`; a single tar archive (`docker export`, one layer) is read with `tar:` / `scan --tar`"
            if !packed, (st.st_mode & S_IFMT) == S_IFREG {
                return readArchive(platform: platform, progress: progress)
            }
            guard packed || (st.st_mode & S_IFMT) == S_IFDIR else {
                return fail(
                    "`\(shownDir)` is neither a folder nor a file; an OCI image layout is a folder with `oci-layout`, `index.json` and `blobs/`", saveHint)
            }
            guard let layoutData = ownFile("oci-layout") else {
                if let data = ownFile("manifest.json") {
                    return readDockerSave(data, platform: platform, progress: progress)
                }
                return fail("`\(shownDir)` is not an OCI image layout: it has no `oci-layout` file (nor the `manifest.json` of `docker save`)", saveHint)
            }
            switch json(layoutData, "`oci-layout`") {
            case .failure(let f): return .failure(f)
            case .success(let m):
                guard let v = m["imageLayoutVersion"] as? String, v.hasPrefix("1.") else {
                    return fail(
                        "`\(shownDir)/oci-layout` gives an image layout version other than 1.x",
                        "fspolicy reads version 1.0.0 layouts, which every current tool writes")
                }
            }
            guard let indexData = ownFile("index.json") else {
                return fail("`\(shownDir)/index.json` is missing", "an OCI image layout has an `index.json` naming its images; copy the image again")
            }
            var index: [String: Any]
            switch json(indexData, "`index.json`") {
            case .failure(let f): return .failure(f)
            case .success(let m): index = m
            }
            // Follow indexes down to one image manifest.
            var where_ = "`index.json`"
            var manifest: Descriptor? = nil
            for _ in 0..<8 {
                guard let list = index["manifests"] as? [Any] else {
                    return fail("\(where_) in `\(shownDir)` has no `manifests` list", "the layout is damaged; copy the image again")
                }
                var all: [Descriptor] = []
                for item in list {
                    switch descriptor(item, where_) {
                    case .failure(let f): return .failure(f)
                    case .success(let d):
                        if let t = d.mediaType, !indexTypes.contains(t) && !manifestTypes.contains(t) { continue }
                        all.append(d)
                    }
                }
                let images = all.filter { !$0.attestation }
                func choice(_ d: Descriptor) -> String {
                    (d.platform.map(text) ?? "no platform") + " " + text(d.digest) + (d.refName.map { " (\(text($0)))" } ?? "")
                }
                let listing = images.map(choice).joined(separator: ", ")
                let picked: Descriptor
                if let want = platform {
                    let matches =
                        want.hasPrefix("sha256:")
                        ? images.filter { $0.digest == want }
                        : images.filter { $0.platform == want || (want.split(separator: "/").count == 2 && $0.platform?.hasPrefix(want + "/") == true) }
                    // A nested index, or a manifest whose descriptor does not say its platform
                    // (skopeo writes a single image that way): its own content says; checked below.
                    let unsaid = images.filter { $0.platform == nil }
                    if matches.count == 1 {
                        picked = matches[0]
                    } else if matches.isEmpty && unsaid.count == 1 {
                        picked = unsaid[0]
                    } else if matches.isEmpty {
                        return fail(
                            "\(where_) in `\(shownDir)` has no image for the platform `\(text(want))`; it lists: \(listing.isEmpty ? "nothing" : listing)",
                            "choose one of those with `--platform os/arch[/variant]` (`platform:` in a policy file), or by its manifest digest")
                    } else {
                        return fail(
                            "\(where_) in `\(shownDir)` has \(matches.count) images for `\(text(want))`: \(matches.map(choice).joined(separator: ", "))",
                            "choose one by its manifest digest: `--platform sha256:…` (`platform:` in a policy file)")
                    }
                } else if images.count == 1 {
                    picked = images[0]
                } else if let d = images.first(where: { $0.platform == OCIReader.defaultPlatform }),
                    images.filter({ $0.platform == OCIReader.defaultPlatform }).count == 1
                {
                    picked = d
                } else {
                    return fail(
                        images.isEmpty
                            ? "\(where_) in `\(shownDir)` lists no image"
                            : "\(where_) in `\(shownDir)` lists \(images.count) images and none is \(OCIReader.defaultPlatform): \(listing)",
                        images.isEmpty
                            ? "the layout is empty or damaged; copy the image again"
                            : "choose one with `--platform os/arch[/variant]` (`platform:` in a policy file), or by its manifest digest")
                }
                let shown = "the \(picked.mediaType.map(indexTypes.contains) == true ? "index" : "manifest") \(text(picked.digest))"
                let data: Data
                switch blob(picked, what: shown, readData: true) {
                case .failure(let f): return .failure(f)
                case .success(let b):
                    guard let d = b.data else { return fail("cannot read \(shown) in `\(shownDir)`", "check the file's permissions") }
                    data = d
                }
                let obj: [String: Any]
                switch json(data, shown) {
                case .failure(let f): return .failure(f)
                case .success(let m): obj = m
                }
                let type =
                    picked.mediaType ?? (obj["mediaType"] as? String)
                    ?? (obj["manifests"] != nil ? "application/vnd.oci.image.index.v1+json" : "application/vnd.oci.image.manifest.v1+json")
                if indexTypes.contains(type) {
                    index = obj
                    where_ = shown
                    continue
                }
                var p = picked
                p.mediaType = type
                manifest = p
                index = obj
                break
            }
            guard var m = manifest else {
                return fail("the indexes of `\(shownDir)` nest more than 8 deep", "the layout is damaged; copy the image again")
            }
            let manifestObj = index
            let shownManifest = "the manifest \(text(m.digest))"
            // A packed layout: the configuration and the layers taken out in one pass (what is
            // wrong with their descriptors is said below).
            if let source, source.compressed {
                let named = ([manifestObj["config"] as Any] + ((manifestObj["layers"] as? [Any]) ?? []))
                    .compactMap { (try? descriptor($0, shownManifest).get()) }
                    .compactMap { d in blobPath(d.digest).map { (rel: $0.rel, limit: d.size) } }
                if let f = source.take(named) { return .failure(f) }
            }
            // The configuration: its platform and user, for the header.
            var user: String? = nil
            if let c = manifestObj["config"] {
                switch descriptor(c, shownManifest) {
                case .failure(let f): return .failure(f)
                case .success(let cd):
                    switch blob(cd, what: "the image configuration \(text(cd.digest))", readData: true) {
                    case .failure(let f): return .failure(f)
                    case .success(let b):
                        if let data = b.data, let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                            if m.platform == nil {
                                m.platform = Descriptor.platformText(obj)
                                if let want = platform, !want.hasPrefix("sha256:"), let got = m.platform,
                                    got != want && !(want.split(separator: "/").count == 2 && got.hasPrefix(want + "/"))
                                {
                                    return fail(
                                        "the only image in `\(shownDir)` is for \(text(got)), not `\(text(want))`",
                                        "leave out `--platform` (`platform:` in a policy file), or copy the image for that platform")
                                }
                            }
                            if let u = (obj["config"] as? [String: Any])?["User"] as? String, !u.isEmpty { user = u }
                        }
                    }
                }
            }
            guard let layerList = manifestObj["layers"] as? [Any] else {
                return fail("\(shownManifest) in `\(shownDir)` has no `layers` list", "the layout is damaged; copy the image again")
            }
            var layers: [Descriptor] = []
            for item in layerList {
                switch descriptor(item, shownManifest) {
                case .failure(let f): return .failure(f)
                case .success(let d): layers.append(d)
                }
            }

            // Each layer's blob is checked before it is read (in a plain archive, as it is read).
            var paths: [(source: LayerSource, what: String)] = []
            for (i, d) in layers.enumerated() {
                let what = "layer \(i + 1) of \(layers.count) (\(text(d.digest)))"
                if let t = d.mediaType, !layerTypes.contains(t) {
                    return fail(
                        "\(what) of \(shownManifest) has the media type `\(text(t))`, which is not a tar layer",
                        "fspolicy reads tar layers, plain, gzip or zstd (application/vnd.oci.image.layer.v1.tar…); an encrypted layer must be decrypted first")
                }
                switch blob(d, what: what, readData: false) {
                case .failure(let f): return .failure(f)
                case .success(let b): paths.append((b.source, what))
                }
            }
            let summary = OCIReader.Summary(manifestDigest: m.digest, platform: m.platform, layers: layers.count, user: user)
            let origin =
                "the \(layoutWord) \(shownDir) (manifest \(text(m.digest))\(m.platform.map { ", " + text($0) } ?? ""), \(layers.count) \(layers.count == 1 ? "layer" : "layers"))"
            return LayerStack.apply(paths, origin: origin, checked: "every blob matched its sha256 digest", user: user, accounts: accounts, progress: progress)
                .map {
                    ($0, summary)
                }
        }

        /// A tar file holding a layout (`docker save -o`, `podman save`, `skopeo copy … oci-archive:`),
        /// read through `PackedArchive`: a plain tar in place, without any temporary file; a
        /// compressed one as a folder, a private temporary one (removed afterwards) into which only
        /// the blobs its descriptors name are taken out. Nothing but regular files with plain
        /// relative names is written.
        func readArchive(platform: String?, progress: (@Sendable (Int) -> Void)?) -> Result<(ScannedTree, OCIReader.Summary), ArchiveFailure> {
            let notImage =
                "a single tar archive (`docker export`, one layer) is read with `tar:` / `scan --tar`; an image archive (`docker save`, `skopeo copy … oci-archive:`) has `oci-layout` or `manifest.json` at its root"
            // One pass: is it an image archive at all, compressed or not, where its members are,
            // and the layout's own files.
            let source = PackedArchive(archive: dir, shown: shownDir)
            if let f = source.index() { return .failure(f) }
            guard source.members["oci-layout"] != nil || source.members["manifest.json"] != nil else {
                return fail("`\(shownDir)` is a file but not an image archive: it has no `oci-layout` or `manifest.json`", notImage)
            }
            var inner = Layout(dir: dir, shown: shownDir, packed: true)
            inner.accounts = accounts
            inner.source = source
            // A plain tar is read in place: no temporary file at all.
            guard source.compressed else { return inner.read(platform: platform, progress: progress) }
            var template = Array((NSTemporaryDirectory() + "/fspolicy-oci-XXXXXX").utf8CString)
            // Made and registered in one step: a SIGINT or SIGTERM removes it with what it holds.
            let made: String? = SignalCleanup.locked {
                guard let m = mkdtemp(&template) else { return nil }
                let path = String(cString: m)
                SignalCleanup.register(folder: path)
                return path
            }
            guard let tmp = made else {
                return fail(
                    "cannot make a temporary folder to unpack `\(shownDir)` into",
                    "set TMPDIR to a writable folder with room for the image, or decompress it first (`gunzip -k FILE`: a plain tar is read in place)")
            }
            defer {
                SignalCleanup.locked {
                    SignalCleanup.removeTree(tmp)
                    SignalCleanup.unregister(folder: tmp)
                }
            }
            source.folder = tmp
            inner = Layout(dir: tmp, shown: shownDir, packed: true)
            inner.accounts = accounts
            inner.source = source
            return inner.read(platform: platform, progress: progress)
        }

        /// A path inside the folder as `manifest.json` gives it: relative, without `..`.
        func inside(_ rel: String) -> String? {
            let comps = rel.split(separator: "/", omittingEmptySubsequences: true)
            guard !rel.hasPrefix("/"), !comps.isEmpty, !comps.contains("..") else { return nil }
            return dir + "/" + rel
        }

        /// The folder `docker save` (before Docker 25) and `podman save` write, unpacked: a
        /// `manifest.json` naming the configuration file and the layer tars. Their names are not
        /// digests, but the configuration's `rootfs.diff_ids` are the digests of the (uncompressed)
        /// layers, and the configuration file is named by its own digest: both are checked.
        func readDockerSave(_ data: Data, platform: String?, progress: (@Sendable (Int) -> Void)?) -> Result<(ScannedTree, OCIReader.Summary), ArchiveFailure> {
            let damaged = "the folder is damaged; save the image again (`docker save IMAGE -o image.tar`, then unpack it)"
            guard let list = (try? JSONSerialization.jsonObject(with: data)) as? [Any] else {
                return fail("`manifest.json` in `\(shownDir)` is not a JSON list", damaged)
            }
            let images = list.compactMap { $0 as? [String: Any] }
            guard images.count == 1, let image = images.first else {
                let tags = images.map { (($0["RepoTags"] as? [String]) ?? []).map(text).joined(separator: " ") }.map { $0.isEmpty ? "(untagged)" : $0 }
                return fail(
                    "`manifest.json` in `\(shownDir)` lists \(images.count) images" + (tags.isEmpty ? "" : ": " + tags.joined(separator: ", ")),
                    "fspolicy reads one image from a `docker save` folder: save one at a time (`docker save IMAGE -o image.tar`)")
            }
            guard let configRel = image["Config"] as? String, let layerRels = image["Layers"] as? [String] else {
                return fail("`manifest.json` in `\(shownDir)` has no `Config` or no `Layers`", damaged)
            }
            guard let configPath = inside(configRel) else {
                return fail("`manifest.json` in `\(shownDir)` names the configuration `\(text(configRel))`, outside the folder", damaged)
            }
            // A compressed archive: the configuration and the layers taken out in one pass.
            let inPlace = source.map { !$0.compressed } ?? false
            if let source, source.compressed {
                let named = ([(configRel, Optional(PackedArchive.layoutFileLimit))] + layerRels.map { ($0, nil) })
                    .compactMap { r, limit in inside(r) == nil ? nil : PackedArchive.rel(r).map { (rel: $0, limit: limit) } }
                if let f = source.take(named) { return .failure(f) }
            }
            let configData: Data
            let configMissing = "the image configuration is missing: `\(shownDir)/\(text(configRel))` does not exist"
            if let source, inPlace {
                switch source.load(PackedArchive.rel(configRel) ?? "", limit: PackedArchive.layoutFileLimit) {
                case .failure(let f): return .failure(f)
                case .success(nil): return fail(configMissing, damaged)
                case .success(let bytes?): configData = Data(bytes)
                }
            } else {
                guard let d = FileManager.default.contents(atPath: configPath) else { return fail(configMissing, damaged) }
                configData = d
            }
            // The configuration is named by its digest (`<hex>.json`, or `blobs/sha256/<hex>`).
            let configDigest = SHA256.hex(Array(configData))
            var named = String(configRel.split(separator: "/").last ?? "")
            if named.hasSuffix(".json") { named.removeLast(5) }
            if named.count == 64, named.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }), named != configDigest {
                return fail(
                    "the image configuration `\(shownDir)/\(text(configRel))` does not match its name: its content is sha256:\(configDigest)",
                    "the file was changed after the image was saved; save the image again")
            }
            guard let config = (try? JSONSerialization.jsonObject(with: configData)) as? [String: Any],
                let diffIDs = (config["rootfs"] as? [String: Any])?["diff_ids"] as? [String]
            else {
                return fail("the image configuration `\(shownDir)/\(text(configRel))` has no `rootfs.diff_ids`", damaged)
            }
            guard diffIDs.count == layerRels.count else {
                return fail("`manifest.json` in `\(shownDir)` names \(layerRels.count) layers and the configuration \(diffIDs.count)", damaged)
            }
            let plat = Descriptor.platformText(config)
            if let want = platform, !want.hasPrefix("sha256:"), let got = plat,
                got != want && !(want.split(separator: "/").count == 2 && got.hasPrefix(want + "/"))
            {
                return fail(
                    "the image in `\(shownDir)` is for \(text(got)), not `\(text(want))`",
                    "leave out `--platform` (`platform:` in a policy file), or save the image for that platform")
            }
            let user = ((config["config"] as? [String: Any])?["User"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            var paths: [(source: LayerSource, what: String)] = []
            for (i, rel) in layerRels.enumerated() {
                let what = "layer \(i + 1) of \(layerRels.count) (`\(text(rel))`)"
                guard let path = inside(rel) else {
                    return fail("`manifest.json` in `\(shownDir)` names \(what), outside the folder", damaged)
                }
                let mismatch = { (sum: String) -> ArchiveFailure in
                    ArchiveFailure(
                        message:
                            "\(what) `\(shownDir)/\(text(rel))` does not match the configuration's diff_id \(text(diffIDs[i])): its content is sha256:\(sum)",
                        help: "the file was changed after the image was saved; save the image again")
                }
                // In place: checked against its diff_id as it is read.
                if let source, inPlace {
                    guard let member = PackedArchive.rel(rel), source.members[member] != nil else {
                        return fail("\(what) is missing: `\(shownDir)/\(text(rel))` does not exist", damaged)
                    }
                    let want = diffIDs[i]
                    paths.append((.member(source, rel: member, limit: nil, verify: { sum, _ in "sha256:" + sum == want ? nil : mismatch(sum) }), what))
                    continue
                }
                var st = stat()
                guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                    return fail("\(what) is missing: `\(shownDir)/\(text(rel))` does not exist", damaged)
                }
                guard let (sum, _) = SHA256.file(path) else {
                    return fail("cannot read `\(shownDir)/\(text(rel))` (\(what))", "check the file's permissions")
                }
                if "sha256:" + sum != diffIDs[i] { return .failure(mismatch(sum)) }
                paths.append((.file(path), what))
            }
            let tags = ((image["RepoTags"] as? [String]) ?? []).map(text)
            let summary = OCIReader.Summary(manifestDigest: "sha256:" + configDigest, platform: plat, layers: layerRels.count, user: user)
            let origin =
                "the \(saveWord) \(shownDir) (image sha256:\(configDigest)\(tags.isEmpty ? "" : " " + tags.joined(separator: " "))\(plat.map { ", " + text($0) } ?? ""), \(layerRels.count) \(layerRels.count == 1 ? "layer" : "layers"))"
            return LayerStack.apply(
                paths, origin: origin, checked: "every layer matched its diff_id in the image configuration, whose file name is its digest",
                user: user, accounts: accounts, progress: progress
            ).map { ($0, summary) }
        }
    }
#endif
