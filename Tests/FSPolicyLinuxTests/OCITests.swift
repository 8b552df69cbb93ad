#if os(Linux)
    import FSPolicy
    @testable import FSPolicyImport
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// An OCI image layout being written by a test: blobs named by the digest `sha256sum` gives.
    private struct LayoutWriter {
        let dir: String
        init(_ dir: String) throws {
            self.dir = dir
            try FileManager.default.createDirectory(atPath: dir + "/blobs/sha256", withIntermediateDirectories: true)
            try #"{"imageLayoutVersion":"1.0.0"}"#.write(toFile: dir + "/oci-layout", atomically: true, encoding: .utf8)
        }

        /// The file's digest by the coreutils tool (not the code under test).
        static func digest(_ file: String) -> String {
            let (status, out) = sh(["sha256sum", file])
            precondition(status == 0, out)
            return "sha256:" + out.prefix(64)
        }

        /// Copies `file` in as a blob; returns its descriptor (JSON).
        func add(_ file: String, mediaType: String, extra: String = "") -> String {
            let d = Self.digest(file)
            let dest = dir + "/blobs/sha256/" + d.dropFirst(7)
            if !FileManager.default.fileExists(atPath: dest) { try! FileManager.default.copyItem(atPath: file, toPath: dest) }
            let size = (try! FileManager.default.attributesOfItem(atPath: file)[.size] as! NSNumber).intValue
            return #"{"mediaType":"\#(mediaType)","digest":"\#(d)","size":\#(size)\#(extra)}"#
        }

        func addJSON(_ text: String, mediaType: String, extra: String = "") -> String {
            let tmp = dir + "/.tmp-json"
            try! text.write(toFile: tmp, atomically: true, encoding: .utf8)
            defer { unlink(tmp) }
            return add(tmp, mediaType: mediaType, extra: extra)
        }

        /// A manifest over these layer files (each `(path, mediaType, uncompressed tar)`), with its config.
        func manifest(_ layers: [(String, String, String)], os: String = "linux", arch: String = "amd64", user: String = "app") -> String {
            let diffIDs = layers.map { "\"" + Self.digest($0.2) + "\"" }.joined(separator: ",")
            let config = addJSON(
                #"{"architecture":"\#(arch)","os":"\#(os)","config":{"User":"\#(user)"},"rootfs":{"type":"layers","diff_ids":[\#(diffIDs)]}}"#,
                mediaType: "application/vnd.oci.image.config.v1+json")
            let ls = layers.map { add($0.0, mediaType: $0.1) }.joined(separator: ",")
            return #"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":\#(config),"layers":[\#(ls)]}"#
        }

        func index(_ manifests: [String]) {
            try! #"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[\#(manifests.joined(separator: ","))]}"#
                .write(toFile: dir + "/index.json", atomically: true, encoding: .utf8)
        }
    }

    private let manifestType = "application/vnd.oci.image.manifest.v1+json"
    private let indexType = "application/vnd.oci.image.index.v1+json"

    /// The three layers of the test image, their staging folders kept for the by-hand extraction.
    /// Layer 1 (GNU tar, plain): the base. Layer 2 (bsdtar from an mtree spec, gzip): deletes a
    /// file and a folder, makes /data opaque, replaces /app/config with another owner and mode and
    /// the folder /srv with a file, /bin/tool with a symlink. Layer 3 (GNU tar, zstd): a new
    /// /app/cache where the old one was deleted, a file and a hard link to it.
    private func buildImage(_ t: TempTree) throws -> (layers: [(String, String, String)], whiteouts: [[String]]) {
        // Layer 1.
        t.dir("l1", mode: 0o755)
        for d in ["etc", "app", "app/cache", "app/cache/sub", "data", "srv", "bin"] { t.dir("l1/" + d) }
        t.dir("l1/tmp", mode: 0o1777)
        t.file("l1/etc/passwd", "root:x:0:0::/root:/bin/sh\napp:x:4242:4242::/app:/bin/sh\n")
        t.file("l1/etc/group", "root:x:0:\napp:x:4242:\n")
        t.file("l1/app/config", mode: 0o644)
        t.file("l1/app/old.txt", mode: 0o666)
        t.file("l1/app/cache/a", mode: 0o666)
        t.file("l1/app/cache/sub/b", mode: 0o666)
        t.file("l1/data/x", mode: 0o666)
        t.file("l1/data/.hidden", mode: 0o666)
        t.file("l1/srv/f", mode: 0o666)
        t.file("l1/bin/tool", mode: 0o4755)
        t.file("l1/bin/keep", mode: 0o755)
        symlink("app/config", t.path + "/l1/lnk")
        #expect(sh(["sh", "-c", "cd '\(t.path)' && tar --numeric-owner --owner=0 --group=0 -cf l1.tar -C l1 ."]).0 == 0)

        // Layer 2: whiteout files are ordinary empty files in the layer.
        t.dir("l2/app")
        t.dir("l2/data")
        t.file("l2/app/.wh.old.txt", "")
        t.file("l2/app/.wh.cache", "")
        t.file("l2/app/config", "new", mode: 0o600)
        t.file("l2/data/.wh..wh..opq", "")
        t.file("l2/data/z", mode: 0o640)
        t.file("l2/srv", "now a file", mode: 0o600)
        let spec = """
            #mtree
            ./app type=dir mode=0755 uid=0 gid=0
            ./app/.wh.old.txt type=file mode=0644 uid=0 gid=0
            ./app/.wh.cache type=file mode=0644 uid=0 gid=0
            ./app/config type=file mode=0600 uid=4242 gid=4242
            ./data type=dir mode=0775 uid=4242 gid=4242
            ./data/.wh..wh..opq type=file mode=0644 uid=0 gid=0
            ./data/z type=file mode=0640 uid=4242 gid=4242
            ./srv type=file mode=0600 uid=4242 gid=0
            ./bin/tool type=link link=keep mode=0777 uid=0 gid=0

            """
        try spec.write(toFile: t.path + "/l2.mtree", atomically: true, encoding: .utf8)
        #expect(sh(["sh", "-c", "cd '\(t.path)/l2' && bsdtar -cf ../l2.tar @../l2.mtree && gzip -n -c ../l2.tar > ../l2.tar.gz"]).0 == 0)

        // Layer 3.
        t.dir("l3/app/cache", mode: 0o700)
        t.file("l3/app/cache/new", mode: 0o600)
        t.dir("l3/etc")
        #expect(
            sh([
                "sh", "-c",
                "cd '\(t.path)' && cp -a l1/bin/keep l3/keep && ln l3/keep l3/etc/keep-link && "
                    + "tar --numeric-owner --owner=4242 --group=4242 -cf l3.tar -C l3 app/cache && "
                    + "tar --numeric-owner --owner=0 --group=0 -rf l3.tar -C l3 ./keep ./etc/keep-link && zstd -q -c l3.tar > l3.tar.zst"
            ]).0 == 0)
        return (
            [
                (t.path + "/l1.tar", "application/vnd.oci.image.layer.v1.tar", t.path + "/l1.tar"),
                (t.path + "/l2.tar.gz", "application/vnd.oci.image.layer.v1.tar+gzip", t.path + "/l2.tar"),
                (t.path + "/l3.tar.zst", "application/vnd.oci.image.layer.v1.tar+zstd", t.path + "/l3.tar")
            ],
            [[], ["app/old.txt", "app/cache", "data/*", "data/.hidden", "srv", "bin/tool"], []]
        )
    }

    @Suite("OCI image layouts as trees")
    struct OCITests {

        @Test("SHA-256 agrees with sha256sum across block boundaries, and with the standard's examples")
        func sha256() throws {
            #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            #expect(
                SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                    == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
            let t = try TempTree("sha")
            var g = SystemRandomNumberGenerator()
            for size in [1, 55, 56, 63, 64, 65, 119, 127, 128, 1000, (1 << 20) + 3, (3 << 20) + 77] {
                let data = (0..<size).map { _ in UInt8.random(in: 0...255, using: &g) }
                let f = t.path + "/b\(size)"
                try Data(data).write(to: URL(fileURLWithPath: f))
                let want = String(LayoutWriter.digest(f).dropFirst(7))
                #expect(SHA256.hex(data) == want, "\(size) bytes at once")
                #expect(SHA256.file(f)?.digest == want && SHA256.file(f)?.size == UInt64(size), "\(size) bytes from a file")
                // Fed in odd pieces.
                var s = SHA256()
                var i = 0
                while i < data.count { let n = min(37, data.count - i); s.update(Array(data[i..<i + n])); i += n }
                #expect(s.finish() == want, "\(size) bytes in pieces of 37")
            }
        }

        @Test("layers applied in order with whiteouts and an opaque folder give the tree that extracting them by hand gives")
        func layersAndWhiteouts() throws {
            let t = try TempTree("oci")
            for tool in ["bsdtar", "zstd", "gzip", "sha256sum"] where sh(["sh", "-c", "command -v \(tool)"]).0 != 0 {
                Issue.record("`\(tool)` is missing: run scripts/setup (it installs libarchive-tools, zstd)")
                return
            }
            let (layers, whiteouts) = try buildImage(t)
            let w = try LayoutWriter(t.path + "/layout")
            w.index([w.addJSON(w.manifest(layers), mediaType: manifestType)])

            guard case .success(let (tree, summary)) = OCIReader.readWithSummary(w.dir, accounts: .linux) else {
                Issue.record("the layout is unreadable: \(OCIReader.read(w.dir, accounts: .linux))")
                return
            }
            #expect(tree.problems.isEmpty, "\(tree.problems)")
            // index.json does not say the platform here (as skopeo writes one image): the configuration does.
            guard case .success = OCIReader.read(w.dir, platform: "linux/amd64", accounts: .linux) else { Issue.record("linux/amd64 refused"); return }
            guard case .failure(let wrong) = OCIReader.read(w.dir, platform: "linux/arm64", accounts: .linux) else {
                Issue.record("linux/arm64 accepted"); return
            }
            #expect(wrong.message == "the only image in `\(w.dir)` is for linux/amd64, not `linux/arm64`", "\(wrong.message)")
            #expect(summary.layers == 3 && summary.platform == "linux/amd64" && summary.user == "app")
            #expect(summary.manifestDigest == LayoutWriter.digest(w.dir + "/blobs/sha256/" + summary.manifestDigest.dropFirst(7)))
            func entry(_ rel: String) -> ScannedTree.Entry? { tree.entries.first { $0.relativePath == rel } }
            let names = Set(tree.entries.map(\.relativePath))
            #expect(!names.contains { $0.split(separator: "/").contains { $0.hasPrefix(".wh.") } }, "whiteout files never appear: \(names.sorted())")
            for gone in ["app/old.txt", "app/cache/a", "app/cache/sub", "app/cache/sub/b", "data/x", "data/.hidden", "srv/f"] {
                #expect(!names.contains(gone), "\(gone) is deleted by layer 2")
            }
            for kept in ["etc/passwd", "app", "bin/keep", "lnk", "data", "data/z", "app/cache", "app/cache/new", "tmp"] {
                #expect(names.contains(kept), "\(kept) is in the image")
            }
            #expect(entry("app/config")?.mode.rawValue == 0o600 && entry("app/config")?.uid == 4242 && entry("app/config")?.gid == 4242, "layer 2 replaced it")
            #expect(entry("data")?.mode.rawValue == 0o775 && entry("data")?.uid == 4242, "an opaque folder takes its own layer's attributes")
            #expect(entry("srv")?.type == .file && entry("srv")?.mode.rawValue == 0o600 && entry("srv")?.gid == 0)
            #expect(entry("bin/tool")?.type == .symlink && entry("bin/tool")?.target == "keep", "a setuid file replaced by a symlink")
            #expect(entry("app/cache")?.mode.rawValue == 0o700 && entry("app/cache")?.uid == 4242, "re-created in layer 3")
            #expect(entry("app")?.mode.rawValue == 0o755 && entry("app")?.assumed == false, "layer 3 implies /app but layer 2's entry stays")
            #expect(entry("etc/keep-link")?.mode.rawValue == 0o755 && entry("etc/keep-link")?.type == .file)
            #expect(entry("tmp")?.mode.rawValue == 0o1777)
            #expect(tree.users.map(\.name) == ["app"], "accounts from the image's /etc/passwd")
            #expect(tree.notes.contains { $0.hasPrefix("7 entries of lower layers are deleted by whiteouts") }, "\(tree.notes)")
            #expect(tree.origin?.contains("3 layers") == true && tree.origin?.contains(summary.manifestDigest) == true, "\(tree.origin ?? "")")
            let yaml = ScanWriter.yaml(tree, at: "/img")
            #expect(
                yaml.contains(
                    "# Read from the OCI image layout \(w.dir) (manifest \(summary.manifestDigest), linux/amd64, 3 layers) by fspolicy scan, placed at /img."),
                "\(yaml)")
            #expect(yaml.contains("runs its process as user `app`"))

            // The policy file import, and decisions that depend on the whiteouts.
            let p = try importPolicy(t.path, "oci.yaml", "  - oci: ./layout\n    at: /img\n")
            #expect(!p.diagnostics.hasErrors && p.diagnostics.items.isEmpty, "\(p.diagnostics.sorted.map(\.rendered))")
            let ev = Evaluator(policy: p)
            #expect(!ev.decide(RequestSpec(op: .read, path: "/img/app/old.txt"), uid: 65534).allowed, "deleted: no such file")
            #expect(ev.decide(RequestSpec(op: .read, path: "/img/app/old.txt"), uid: 65534).errno?.rawValue == "ENOENT")
            #expect(!ev.decide(RequestSpec(op: .read, path: "/img/app/config"), uid: 65534).allowed, "0600 in layer 2")
            #expect(ev.decide(RequestSpec(op: .read, path: "/img/app/config"), uid: 4242).allowed)
            #expect(ev.decide(RequestSpec(op: .create, path: "/img/data/new"), uid: 4242).allowed, "/data is 4242's in layer 2")

            // As root: extract the layers in order, apply the whiteouts by hand, scan; same answers.
            guard getuid() == 0 else {
                print("note: not root, so the layers cannot be extracted with their owners; the by-hand comparison is not run")
                return
            }
            t.dir("x")
            for (i, layer) in layers.enumerated() {
                for wh in whiteouts[i] { #expect(sh(["sh", "-c", "cd '\(t.path)/x' && rm -rf \(wh)"]).0 == 0) }
                let (status, out) = sh(["sh", "-c", "cd '\(t.path)' && tar --numeric-owner -xpf '\(layer.2)' -C x --exclude='.wh.*'"])
                #expect(status == 0, "extracting layer \(i + 1): \(out)")
            }
            let byHand = try importPolicy(t.path, "x.yaml", "  - scan: ./x\n    at: /img\n    accounts: owners\n")
            #expect(!byHand.diagnostics.hasErrors, "\(byHand.diagnostics.sorted.map(\.rendered))")
            let scanned = TreeScanner.scan(t.path + "/x")
            let scannedNames = Set(scanned.entries.map(\.relativePath))
            #expect(scannedNames == names, "by hand: \(scannedNames.symmetricDifference(names).sorted())")
            let paths =
                (names.sorted().map { "/img/" + $0 } + [
                    "/img", "/img/app/old.txt", "/img/data/x", "/img/srv/f", "/img/new", "/img/data/new", "/img/app/cache/x"
                ])
            let ops: [FSPolicy.Operation] = [.read, .write, .list, .search, .delete, .create, .execute, .stat, .chmod, .chown, .rename]
            let uids: [UID] = [0, 4242, 65534]
            let a = answers(p, uids: uids, paths: paths, ops: ops, renameTo: "/img/tmp/renamed")
            let b = answers(byHand, uids: uids, paths: paths, ops: ops, renameTo: "/img/tmp/renamed")
            #expect(a.count == uids.count * paths.count * ops.count && a.count == b.count)
            var differ = 0
            #expect(placedRootAnswersHold(b, "/img"), "\(b.filter { onPlacedRoot($0, "/img") })")
            for (x, y) in zip(a, b) where x != y && !onPlacedRoot(x, "/img") { differ += 1; Issue.record("image vs extracted: \(x) / \(y)") }
            #expect(differ == 0)
        }

        @Test("the accounts are the final tree's: a whiteout removes /etc/passwd, a later layer brings another; a hard link may point into a lower layer")
        func accountsAndLinks() throws {
            let t = try TempTree("ociacct")
            t.dir("l1/etc")
            t.dir("l1/bin")
            t.file("l1/etc/passwd", "root:x:0:0::/root:/bin/sh\none:x:5001:5001::/:/bin/sh\n")
            t.file("l1/etc/group", "root:x:0:\ng1:x:5001:\n")
            t.file("l1/bin/keep", mode: 0o750)
            #expect(sh(["tar", "--numeric-owner", "--owner=5001", "--group=5001", "-cf", t.path + "/l1.tar", "-C", t.path + "/l1", "."]).0 == 0)
            // Layer 2: the passwd whiteout, and a hard link whose target is only in layer 1 (GNU tar
            // writes the link as a link to the first name; deleting that member leaves the link alone).
            t.dir("l2/etc")
            t.dir("l2/bin")
            t.file("l2/etc/.wh.passwd", "")
            t.file("l2/bin/keep", mode: 0o750)
            link(t.path + "/l2/bin/keep", t.path + "/l2/etc/hl")
            #expect(
                sh([
                    "sh", "-c",
                    "cd '\(t.path)/l2' && tar --numeric-owner --owner=0 --group=0 -cf ../l2.tar etc/.wh.passwd bin/keep etc/hl && tar --delete -f ../l2.tar bin/keep"
                ]).0 == 0)
            #expect(
                sh(["sh", "-c", "tar -tvf '\(t.path)/l2.tar' | grep -q 'etc/hl link to bin/keep'"]).0 == 0,
                "the layer holds a hard link to a member it does not have")
            t.dir("l3/etc")
            t.file("l3/etc/passwd", "root:x:0:0::/root:/bin/sh\ntwo:x:5002:5001::/:/bin/sh\n")
            #expect(sh(["tar", "--numeric-owner", "--owner=0", "--group=0", "-cf", t.path + "/l3.tar", "-C", t.path + "/l3", "etc/passwd"]).0 == 0)
            let type = "application/vnd.oci.image.layer.v1.tar"
            let layers = ["l1", "l2", "l3"].map { (t.path + "/\($0).tar", type, t.path + "/\($0).tar") }
            let two = try LayoutWriter(t.path + "/two")
            two.index([two.addJSON(two.manifest(Array(layers.prefix(2))), mediaType: manifestType)])
            let three = try LayoutWriter(t.path + "/three")
            three.index([three.addJSON(three.manifest(layers), mediaType: manifestType)])
            guard case .success(let a) = OCIReader.read(two.dir, accounts: .linux), case .success(let b) = OCIReader.read(three.dir, accounts: .linux) else {
                Issue.record("unreadable: \(OCIReader.read(two.dir, accounts: .linux)) \(OCIReader.read(three.dir, accounts: .linux))")
                return
            }
            #expect(a.users.isEmpty && a.groups.map(\.name) == ["g1"], "no /etc/passwd after layer 2: \(a.users)")
            #expect(!a.entries.contains { $0.relativePath == "etc/passwd" })
            #expect(b.users.map(\.name) == ["two"] && b.groups.map(\.name) == ["g1"], "layer 3's /etc/passwd: \(b.users)")
            let hl = a.entries.first { $0.relativePath == "etc/hl" }
            #expect(hl?.type == .file && hl?.mode.rawValue == 0o750 && hl?.uid == 5001, "the link has layer 1's inode: \(String(describing: hl))")
            #expect(a.problems.isEmpty, "\(a.problems)")

            // A later layer's path below what a lower layer made a symlink is left out, with a warning.
            t.dir("s1/usr/lib")
            symlink("usr/lib", t.path + "/s1/lib")
            t.dir("s2/lib")
            t.file("s2/lib/x")
            #expect(sh(["tar", "-cf", t.path + "/s1.tar", "-C", t.path + "/s1", "."]).0 == 0)
            #expect(sh(["tar", "-cf", t.path + "/s2.tar", "-C", t.path + "/s2", "lib/x"]).0 == 0)
            let sl = try LayoutWriter(t.path + "/symlinked")
            sl.index([
                sl.addJSON(
                    sl.manifest([(t.path + "/s1.tar", type, t.path + "/s1.tar"), (t.path + "/s2.tar", type, t.path + "/s2.tar")]), mediaType: manifestType)
            ])
            guard case .success(let c) = OCIReader.read(sl.dir, accounts: .linux) else {
                Issue.record("unreadable: \(OCIReader.read(sl.dir, accounts: .linux))"); return
            }
            #expect(
                c.problems.map(\.path) == ["/lib/x"] && c.problems.first?.message.hasPrefix("layer 2: below `/lib`, a symlink in the layers beneath") == true,
                "\(c.problems)")
            #expect(
                !c.entries.contains { $0.relativePath == "lib/x" } && c.problems.first?.message.hasSuffix("left out") == true,
                "\(c.entries.map(\.relativePath))")
            // An engine writes it where the link points: what /usr/lib holds is not known.
            #expect(c.entries.filter { $0.unread != nil }.map { "\($0.relativePath) \($0.unread!.rawValue)" } == ["usr/lib extraction"])
            let p = try importPolicy(t.path, "sl.yaml", "  - oci: ./symlinked\n")
            #expect(
                p.diagnostics.sorted.map(\.rendered).joined().contains("warning: while reading `./symlinked`: /lib/x: layer 2: below `/lib`"),
                "\(p.diagnostics.sorted.map(\.rendered))")
        }

        @Test("an unpacked legacy `docker save` folder (manifest.json) gives the same tree; its layers are checked against the configuration's diff_ids")
        func dockerSave() throws {
            let t = try TempTree("ocisave")
            let (layers, _) = try buildImage(t)
            let w = try LayoutWriter(t.path + "/layout")
            w.index([w.addJSON(w.manifest(layers), mediaType: manifestType)])
            // As `docker save` before Docker 25 lays it out: <config digest>.json, <id>/layer.tar.
            let s = t.path + "/saved"
            var rels: [String] = []
            var diffIDs: [String] = []
            for (i, l) in layers.enumerated() {
                try FileManager.default.createDirectory(atPath: s + "/id\(i)", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: l.2, toPath: s + "/id\(i)/layer.tar")
                rels.append("id\(i)/layer.tar")
                diffIDs.append("\"" + LayoutWriter.digest(l.2) + "\"")
            }
            let config =
                #"{"architecture":"amd64","os":"linux","config":{"User":"app"},"rootfs":{"type":"layers","diff_ids":[\#(diffIDs.joined(separator: ","))]}}"#
            try config.write(toFile: s + "/c.json", atomically: true, encoding: .utf8)
            let configHex = String(LayoutWriter.digest(s + "/c.json").dropFirst(7))
            try FileManager.default.moveItem(atPath: s + "/c.json", toPath: s + "/\(configHex).json")
            let manifest =
                #"[{"Config":"\#(configHex).json","RepoTags":["example/app:1"],"Layers":[\#(rels.map { "\"" + $0 + "\"" }.joined(separator: ","))]}]"#
            try manifest.write(toFile: s + "/manifest.json", atomically: true, encoding: .utf8)

            guard case .success(let oci) = OCIReader.read(w.dir, accounts: .linux),
                case .success(let (saved, summary)) = OCIReader.readWithSummary(s, accounts: .linux)
            else {
                Issue.record("unreadable: \(OCIReader.read(s, accounts: .linux))")
                return
            }
            func shape(_ t: ScannedTree) -> [String] {
                t.entries.map { "\($0.relativePath) \($0.type) \($0.uid):\($0.gid) \(String($0.mode.rawValue, radix: 8)) \($0.target ?? "")" }
            }
            #expect(shape(saved) == shape(oci) && saved.entries.count > 10, "\(shape(saved)) / \(shape(oci))")
            #expect(saved.users == oci.users && saved.groups.map(\.name) == oci.groups.map(\.name))
            #expect(summary.manifestDigest == "sha256:" + configHex && summary.layers == 3 && summary.platform == "linux/amd64")
            #expect(saved.origin == "the `docker save` folder \(s) (image sha256:\(configHex) example/app:1, linux/amd64, 3 layers)", "\(saved.origin ?? "")")
            guard case .failure(let arm) = OCIReader.read(s, platform: "linux/arm64", accounts: .linux) else { Issue.record("linux/arm64 accepted"); return }
            #expect(arm.message.contains("is for linux/amd64, not `linux/arm64`"))

            // The same two, packed into tar files as `docker save -o` and `skopeo copy … oci-archive:`
            // write them: unpacked into a temporary folder that is gone afterwards.
            // What a packed read leaves behind is checked in a command with a TMPDIR of its own:
            // other tests (in this process and others) unpack images into the shared one meanwhile.
            let privateTmp = t.path + "/private-tmp"
            try FileManager.default.createDirectory(atPath: privateTmp, withIntermediateDirectories: true)
            func leftoversAfterReading(_ archive: String) -> [String] {
                guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build`"); return [] }
                _ = sh(["TMPDIR=" + privateTmp, bin, "scan", "--oci", archive, "-o", t.path + "/scan-out.yaml"])
                return (try? FileManager.default.contentsOfDirectory(atPath: privateTmp)) ?? []
            }
            #expect(sh(["tar", "-czf", t.path + "/layout.tgz", "-C", w.dir, "."]).0 == 0)
            #expect(sh(["sh", "-c", "cd '\(s)' && tar -cf ../saved.tar * && ln -s id0/layer.tar ../link && tar -rf ../saved.tar -C .. link"]).0 == 0)
            guard case .success(let packedOCI) = OCIReader.read(t.path + "/layout.tgz", accounts: .linux),
                case .success(let packedSave) = OCIReader.read(t.path + "/saved.tar", accounts: .linux)
            else {
                Issue.record(
                    "unreadable: \(OCIReader.read(t.path + "/layout.tgz", accounts: .linux)) \(OCIReader.read(t.path + "/saved.tar", accounts: .linux))")
                return
            }
            #expect(shape(packedOCI) == shape(oci) && shape(packedSave) == shape(oci))
            #expect(packedOCI.origin?.hasPrefix("the OCI image archive \(t.path)/layout.tgz (manifest sha256:") == true, "\(packedOCI.origin ?? "")")
            #expect(
                packedSave.origin?.hasPrefix("the `docker save` archive \(t.path)/saved.tar (image sha256:\(configHex)") == true, "\(packedSave.origin ?? "")")
            #expect(
                leftoversAfterReading(t.path + "/layout.tgz").isEmpty && leftoversAfterReading(t.path + "/saved.tar").isEmpty,
                "the temporary folders are removed")
            // Errors inside a packed layout name the archive.
            try FileManager.default.removeItem(atPath: w.dir + "/blobs/sha256/" + LayoutWriter.digest(layers[0].0).dropFirst(7))
            #expect(sh(["tar", "-cf", t.path + "/broken.tar", "-C", w.dir, "."]).0 == 0)
            guard case .failure(let broken) = OCIReader.read(t.path + "/broken.tar", accounts: .linux) else {
                Issue.record("a packed layout without a layer was accepted"); return
            }
            #expect(broken.message.contains("is missing: `\(t.path)/broken.tar/blobs/sha256/"), "\(broken.message)")
            #expect(leftoversAfterReading(t.path + "/broken.tar").isEmpty, "the temporary folders are removed after an error too")

            // A changed layer, a changed configuration, a path out of the folder, two images.
            var data = try Data(contentsOf: URL(fileURLWithPath: s + "/id1/layer.tar"))
            data[700] ^= 0x01
            try data.write(to: URL(fileURLWithPath: s + "/id1/layer.tar"))
            guard case .failure(let f) = OCIReader.read(s, accounts: .linux) else { Issue.record("a changed layer was accepted"); return }
            #expect(
                f.message.contains("layer 2 of 3 (`id1/layer.tar`) `\(s)/id1/layer.tar` does not match the configuration's diff_id sha256:"), "\(f.message)")
            try (config + " ").write(toFile: s + "/\(configHex).json", atomically: true, encoding: .utf8)
            guard case .failure(let g) = OCIReader.read(s, accounts: .linux) else { Issue.record("a changed configuration was accepted"); return }
            #expect(g.message.contains("does not match its name"), "\(g.message)")
            try #"[{"Config":"../../etc/passwd","Layers":[]}]"#.write(toFile: s + "/manifest.json", atomically: true, encoding: .utf8)
            guard case .failure(let h) = OCIReader.read(s, accounts: .linux) else { Issue.record("a path out of the folder was accepted"); return }
            #expect(h.message.contains("outside the folder"), "\(h.message)")
            try #"[{"Config":"a.json","RepoTags":["a:1"],"Layers":[]},{"Config":"b.json","RepoTags":["b:1"],"Layers":[]}]"#.write(
                toFile: s + "/manifest.json", atomically: true, encoding: .utf8)
            guard case .failure(let k) = OCIReader.read(s, accounts: .linux) else { Issue.record("two images were accepted"); return }
            #expect(k.message.contains("lists 2 images: a:1, b:1") && k.help.contains("save one at a time"), "\(k.message)")
        }

        @Test("a tampered or missing blob, a malformed digest and a file are errors that name them")
        func blobErrors() throws {
            let t = try TempTree("ocibad")
            let (layers, _) = try buildImage(t)
            let w = try LayoutWriter(t.path + "/layout")
            w.index([w.addJSON(w.manifest(layers), mediaType: manifestType)])
            let layer2 = String(LayoutWriter.digest(layers[1].0).dropFirst(7))
            let blob = w.dir + "/blobs/sha256/" + layer2
            // Tampered: one byte changed, same size.
            var data = try Data(contentsOf: URL(fileURLWithPath: blob))
            data[data.count / 2] ^= 0x01
            try data.write(to: URL(fileURLWithPath: blob))
            guard case .failure(let f) = OCIReader.read(w.dir, accounts: .linux) else { Issue.record("a tampered blob was accepted"); return }
            #expect(f.message.contains("layer 2 of 3") && f.message.contains("blobs/sha256/\(layer2)` does not match its digest"), "\(f.message)")
            // Cut short: the size is checked too.
            try data.prefix(10).write(to: URL(fileURLWithPath: blob))
            guard case .failure(let f2) = OCIReader.read(w.dir, accounts: .linux) else { Issue.record("a short blob was accepted"); return }
            #expect(f2.message.contains("has 10 bytes; its descriptor says"), "\(f2.message)")
            // Missing.
            unlink(blob)
            guard case .failure(let f3) = OCIReader.read(w.dir, accounts: .linux) else { Issue.record("a missing blob was accepted"); return }
            #expect(f3.message == "layer 2 of 3 (sha256:\(layer2)) is missing: `\(w.dir)/blobs/sha256/\(layer2)` does not exist", "\(f3.message)")
            #expect(!f3.help.isEmpty)
            // In a policy file: at the import's file:line:column.
            let p = try importPolicy(t.path, "p.yaml", "  # the image\n  - oci: ./layout\n")
            let rendered = p.diagnostics.sorted.map(\.rendered).joined(separator: "\n")
            #expect(rendered.contains(t.path + "/p.yaml:5:10: error") && rendered.contains("is missing") && rendered.contains("help: "), "\(rendered)")

            // A digest that tries to be a path.
            let w2 = try LayoutWriter(t.path + "/evil")
            w2.index([#"{"mediaType":"\#(manifestType)","digest":"sha256:../../../etc/passwd","size":1}"#])
            guard case .failure(let f4) = OCIReader.read(w2.dir, accounts: .linux) else { Issue.record("a malformed digest was accepted"); return }
            #expect(f4.message.contains("malformed digest `sha256:../../../etc/passwd`"), "\(f4.message)")
            // A plain file (a `docker save` tar not unpacked), no folder.
            guard case .failure(let f6) = OCIReader.read(layers[0].0, accounts: .linux) else { Issue.record("a tar file was accepted"); return }
            #expect(f6.message.contains("is a file but not an image archive") && f6.help.contains("scan --tar"), "\(f6.message)")
            // A packed layout with a `..` member is refused before anything is written.
            #expect(sh(["sh", "-c", "cd '\(t.path)/layout' && tar -cPf ../evil.tar oci-layout index.json blobs/../index.json"]).0 == 0)
            guard case .failure(let dots) = OCIReader.read(t.path + "/evil.tar", accounts: .linux) else { Issue.record("a `..` member was accepted"); return }
            #expect(dots.message.contains("has a member with `..` in its name: `blobs/../index.json`"), "\(dots.message)")
            guard case .failure(let f7) = OCIReader.read(t.path + "/nothing", accounts: .linux) else { Issue.record("a missing folder was accepted"); return }
            #expect(f7.message.hasPrefix("cannot read `"), "\(f7.message)")
            // `platform` belongs to `oci` imports.
            let q = try importPolicy(t.path, "q.yaml", "  - tar: ./l1.tar\n    platform: linux/arm64\n")
            #expect(q.diagnostics.sorted.map(\.rendered).joined().contains("`platform` goes with `oci` imports only"))
        }

        @Test("several images: linux/amd64 by default, else a choice by platform or digest; nested indexes are followed; no choice is an error listing them")
        func platforms() throws {
            let t = try TempTree("ociplat")
            t.dir("a/etc")
            t.file("a/etc/arch", "arm64", mode: 0o600)
            t.dir("b/etc")
            t.file("b/etc/arch", "armv7", mode: 0o640)
            t.dir("c/etc")
            t.file("c/etc/arch", "amd64", mode: 0o644)
            for n in ["a", "b", "c"] {
                #expect(sh(["tar", "--numeric-owner", "--owner=0", "--group=0", "-cf", t.path + "/\(n).tar", "-C", t.path + "/\(n)", "."]).0 == 0)
            }
            let layerType = "application/vnd.oci.image.layer.v1.tar"
            let w = try LayoutWriter(t.path + "/two")
            let arm64 = w.addJSON(
                w.manifest([(t.path + "/a.tar", layerType, t.path + "/a.tar")], arch: "arm64"), mediaType: manifestType,
                extra: #","platform":{"os":"linux","architecture":"arm64"}"#)
            let armv7 = w.addJSON(
                w.manifest([(t.path + "/b.tar", layerType, t.path + "/b.tar")], arch: "arm"), mediaType: manifestType,
                extra: #","platform":{"os":"linux","architecture":"arm","variant":"v7"}"#)
            w.index([arm64, armv7])
            guard case .failure(let f) = OCIReader.read(w.dir, accounts: .linux) else { Issue.record("two images without a choice were accepted"); return }
            #expect(
                f.message.contains("lists 2 images and none is linux/amd64: linux/arm64 sha256:") && f.message.contains(", linux/arm/v7 sha256:"),
                "\(f.message)")
            #expect(f.help.contains("--platform"))
            func mode(_ r: Result<ScannedTree, ArchiveFailure>) -> UInt16? {
                guard case .success(let tree) = r else { return nil }
                return tree.entries.first { $0.relativePath == "etc/arch" }?.mode.rawValue
            }
            #expect(mode(OCIReader.read(w.dir, platform: "linux/arm64", accounts: .linux)) == 0o600)
            #expect(mode(OCIReader.read(w.dir, platform: "linux/arm/v7", accounts: .linux)) == 0o640)
            #expect(mode(OCIReader.read(w.dir, platform: "linux/arm", accounts: .linux)) == 0o640, "os/arch matches any variant when only one")
            let armDigest = String(armv7.split(separator: "\"")[7])
            #expect(armDigest.hasPrefix("sha256:"))
            #expect(mode(OCIReader.read(w.dir, platform: armDigest, accounts: .linux)) == 0o640, "by manifest digest")
            guard case .failure(let g) = OCIReader.read(w.dir, platform: "linux/s390x", accounts: .linux) else {
                Issue.record("a platform not in the index was accepted"); return
            }
            #expect(g.message.contains("has no image for the platform `linux/s390x`; it lists: linux/arm64"), "\(g.message)")
            // In a policy file.
            let p = try importPolicy(t.path, "p.yaml", "  - oci: ./two\n    platform: linux/arm64\n")
            #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
            #expect(!Evaluator(policy: p).decide(RequestSpec(op: .read, path: "/etc/arch"), uid: 65534).allowed, "arm64's file is 0600")
            let q = try importPolicy(t.path, "q.yaml", "  - oci: ./two\n")
            #expect(q.diagnostics.sorted.map(\.rendered).joined().contains("q.yaml:4:10: error: `index.json` in"), "\(q.diagnostics.sorted.map(\.rendered))")

            // Names from the JSON are escaped in messages: an architecture with a terminal escape.
            let e = try LayoutWriter(t.path + "/escape")
            let odd = e.addJSON(
                e.manifest([(t.path + "/a.tar", layerType, t.path + "/a.tar")], arch: "arm64"), mediaType: manifestType,
                extra: #","platform":{"os":"linux","architecture":"x\u001b[31m"}"#)
            e.index([odd, odd])
            guard case .failure(let esc) = OCIReader.read(e.dir, accounts: .linux) else { Issue.record("two images without a choice were accepted"); return }
            #expect(!esc.message.unicodeScalars.contains { $0.value == 0x1b } && esc.message.contains("linux/x\\033[31m sha256:"), "\(esc.message)")

            // A nested index (as buildx writes): index.json → an index → amd64, arm64 and an attestation.
            let n = try LayoutWriter(t.path + "/nested")
            let amd = n.addJSON(
                n.manifest([(t.path + "/c.tar", layerType, t.path + "/c.tar")]), mediaType: manifestType,
                extra: #","platform":{"os":"linux","architecture":"amd64"}"#)
            let arm = n.addJSON(
                n.manifest([(t.path + "/a.tar", layerType, t.path + "/a.tar")], arch: "arm64"), mediaType: manifestType,
                extra: #","platform":{"os":"linux","architecture":"arm64"}"#)
            let att = n.addJSON(
                n.manifest([(t.path + "/b.tar", layerType, t.path + "/b.tar")], os: "unknown", arch: "unknown"), mediaType: manifestType,
                extra: #","platform":{"os":"unknown","architecture":"unknown"},"annotations":{"vnd.docker.reference.type":"attestation-manifest"}"#)
            let inner = n.addJSON(#"{"schemaVersion":2,"mediaType":"\#(indexType)","manifests":[\#(amd),\#(arm),\#(att)]}"#, mediaType: indexType)
            n.index([inner])
            #expect(mode(OCIReader.read(n.dir, accounts: .linux)) == 0o644, "linux/amd64 by default")
            #expect(mode(OCIReader.read(n.dir, platform: "linux/arm64", accounts: .linux)) == 0o600)
            guard case .failure(let h) = OCIReader.read(n.dir, platform: "unknown/unknown", accounts: .linux) else {
                Issue.record("an attestation was taken for an image"); return
            }
            #expect(h.message.contains("it lists: linux/amd64") && !h.message.contains("unknown/unknown sha256"), "\(h.message)")
        }
    }
#endif
