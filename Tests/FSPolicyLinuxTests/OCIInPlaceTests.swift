#if os(Linux)
    import FSPolicy
    @testable import FSPolicyImport
    import FSPolicyFormat
    import Foundation
    import Glibc
    import Testing

    /// A plain (uncompressed) image archive is read in place: no temporary file, each layer fed
    /// from its member to the layer reader, its size and digest checked as it passes.
    @Suite("OCI image archives read in place")
    struct OCIInPlaceTests {
        static let example = OCIPackedTests.example

        /// Copies the example layout to `dir`; `edit` may replace its manifest's layer list (the
        /// manifest blob and index.json follow). Returns the layer descriptors it ends with.
        @discardableResult
        static func layout(_ dir: String, edit: (([[String: Any]]) -> [[String: Any]])? = nil) throws -> [[String: Any]] {
            #expect(sh(["cp", "-r", example, dir]).0 == 0)
            var index = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/index.json"))) as! [String: Any]
            var manifests = index["manifests"] as! [[String: Any]]
            let digest = manifests[0]["digest"] as! String
            var manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/blobs/sha256/" + digest.dropFirst(7)))) as! [String: Any]
            guard let edit else { return manifest["layers"] as! [[String: Any]] }
            manifest["layers"] = edit(manifest["layers"] as! [[String: Any]])
            let data = try JSONSerialization.data(withJSONObject: manifest)
            let hex = SHA256.hex(Array(data))
            try data.write(to: URL(fileURLWithPath: dir + "/blobs/sha256/" + hex))
            manifests[0]["digest"] = "sha256:" + hex
            manifests[0]["size"] = data.count
            index["manifests"] = manifests
            try JSONSerialization.data(withJSONObject: index).write(to: URL(fileURLWithPath: dir + "/index.json"))
            return manifest["layers"] as! [[String: Any]]
        }

        /// What a tree holds, without where it was read from.
        static func shape(_ t: ScannedTree) -> [String] {
            t.entries.map { "\($0.relativePath) \($0.type) \($0.uid):\($0.gid) \(String($0.mode.rawValue, radix: 8)) \($0.target ?? "")" }
                + t.problems.map { "\($0.path) \($0.message)" }
        }

        static func read(_ path: String) -> Result<ScannedTree, ArchiveFailure> { OCIReader.read(path, accounts: .linux) }

        /// The command reads a plain archive with TMPDIR pointing nowhere (a temporary folder
        /// cannot be made) and under a file-size limit of 0 (no file can be written), and gives
        /// the tree the folder gives; the same archive gzipped needs its temporary folder.
        @Test func aPlainArchiveMakesNoTemporaryFile() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build`"); return }
            let t = try TempTree("ociinplace")
            try Self.layout(t.path + "/img")
            #expect(sh(["tar", "-cf", t.path + "/img.tar", "-C", t.path + "/img", "."]).0 == 0)
            #expect(sh(["tar", "-czf", t.path + "/img.tgz", "-C", t.path + "/img", "."]).0 == 0)
            try FileManager.default.createDirectory(atPath: t.path + "/tmp", withIntermediateDirectories: false)
            let nowhere = "TMPDIR=" + t.path + "/tmp/missing"
            let (status, out) = sh(["env", nowhere, bin, "scan", "--oci", t.path + "/img.tar", "-o", t.path + "/plain.yaml"])
            #expect(status == 0, "\(out)")
            #expect(sh([bin, "scan", "--oci", t.path + "/img", "-o", t.path + "/folder.yaml"]).0 == 0)
            func body(_ path: String) throws -> [Substring] {
                try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("description:") }
            }
            #expect(try body(t.path + "/plain.yaml") == body(t.path + "/folder.yaml"))
            if sh(["which", "prlimit"]).0 == 0 {
                let (limited, text) = sh(["prlimit", "--fsize=0", "env", nowhere, bin, "scan", "--oci", t.path + "/img.tar"])
                #expect(limited == 0 && text.contains("/etc/passwd"), "\(text)")
            }
            let (gz, gzOut) = sh(["env", nowhere, bin, "scan", "--oci", t.path + "/img.tgz", "-o", t.path + "/gz.yaml"])
            #expect(gz != 0 && gzOut.contains("cannot make a temporary folder"), "\(gzOut)")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: t.path + "/tmp")) == [])
        }

        /// Each member is found at the header offset the first pass noted (no read from the
        /// start again), in GNU, pax and ustar archives, names over 100 bytes too, and reads back
        /// the bytes of its file.
        @Test func membersAreFoundWhereTheirHeadersLie() throws {
            let t = try TempTree("ocioffsets")
            try Self.layout(t.path + "/img")
            let long = String(repeating: "n", count: 150)
            try Data("long".utf8).write(to: URL(fileURLWithPath: t.path + "/img/" + long))
            let files = try FileManager.default.subpathsOfDirectory(atPath: t.path + "/img").filter {
                var d: ObjCBool = false
                return FileManager.default.fileExists(atPath: t.path + "/img/" + $0, isDirectory: &d) && !d.boolValue
            }
            for format in ["gnu", "pax", "ustar"] {
                let tar = t.path + "/\(format).tar"
                let names = format == "ustar" ? files.filter { $0 != long } : files
                #expect(sh(["tar", "--format=" + format, "-cf", tar, "-C", t.path + "/img"] + names).0 == 0)
                let a = PackedArchive(archive: tar, shown: format)
                #expect(a.index() == nil && !a.compressed)
                for name in names {
                    guard case .success(let got?) = a.load(name, limit: PackedArchive.layoutFileLimit) else {
                        Issue.record("\(format): \(name) unread"); continue
                    }
                    #expect(Data(got) == (try Data(contentsOf: URL(fileURLWithPath: t.path + "/img/" + name))), "\(format): \(name)")
                }
                #expect(a.rescans == 0, "\(format): \(a.rescans) members read from the start")
            }
        }

        /// A layer changed after the image was saved (one byte, same size) is refused with the
        /// message a folder gives, naming its member, also when the change breaks its gzip or
        /// zstd stream before the layer's tar reader reaches the end.
        @Test func aLayerThatDoesNotMatchItsDigestIsRefusedAtItsMember() throws {
            let t = try TempTree("ocidigest")
            let layers = try Self.layout(t.path + "/orig")
            for (i, l) in layers.enumerated() {
                let hex = String((l["digest"] as! String).dropFirst(7))
                let dir = t.path + "/img\(i)"
                #expect(sh(["cp", "-r", t.path + "/orig", dir]).0 == 0)
                let blob = dir + "/blobs/sha256/" + hex
                var data = try Data(contentsOf: URL(fileURLWithPath: blob))
                data[data.count / 2] ^= 0x5a
                try? FileManager.default.removeItem(atPath: blob)
                try data.write(to: URL(fileURLWithPath: blob))
                #expect(sh(["tar", "-cf", dir + ".tar", "-C", dir, "."]).0 == 0)
                guard case .failure(let packed) = Self.read(dir + ".tar"), case .failure(let folder) = Self.read(dir) else {
                    Issue.record("layer \(i + 1) changed and accepted"); continue
                }
                #expect(packed.message.contains("layer \(i + 1) of \(layers.count)"), "\(packed.message)")
                #expect(packed.message.contains("`\(dir).tar/blobs/sha256/\(hex)` does not match its digest: its content is sha256:"), "\(packed.message)")
                #expect(packed.message.replacingOccurrences(of: dir + ".tar/", with: dir + "/") == folder.message, "\(packed.message) | \(folder.message)")
                #expect(packed.help == folder.help)
            }
        }

        /// A manifest that names a layer twice (identical empty layers are common), or in another
        /// order, gives what the folder gives: each member is read again where it lies.
        @Test func aLayerNamedTwice() throws {
            let t = try TempTree("ocitwice")
            let edits: [([[String: Any]]) -> [[String: Any]]] = [{ [$0[0], $0[0]] }, { [$0[0], $0[1], $0[1], $0[2]] }, { [$0[2], $0[0], $0[2]] }]
            for (k, edit) in edits.enumerated() {
                let dir = t.path + "/img\(k)"
                try Self.layout(dir, edit: edit)
                #expect(sh(["tar", "-cf", dir + ".tar", "-C", dir, "."]).0 == 0)
                guard case .success(let packed) = Self.read(dir + ".tar"), case .success(let folder) = Self.read(dir) else {
                    Issue.record("edit \(k): \(Self.read(dir + ".tar")) \(Self.read(dir))"); continue
                }
                #expect(Self.shape(packed) == Self.shape(folder), "edit \(k)")
            }
        }

        /// The layout's own files after the blobs, a member no descriptor names after everything,
        /// and a second member with a layer's name but other bytes after the first (the first
        /// stands, as when blobs were taken out): the tree the folder gives.
        @Test func membersAfterTheLayers() throws {
            let t = try TempTree("ociorder")
            let layers = try Self.layout(t.path + "/img")
            let hex = String((layers[1]["digest"] as! String).dropFirst(7))
            try FileManager.default.createDirectory(atPath: t.path + "/late/blobs/sha256", withIntermediateDirectories: true)
            try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: t.path + "/late/blobs/sha256/" + hex))
            try Data("extra".utf8).write(to: URL(fileURLWithPath: t.path + "/late/extra"))
            let script = "tar -cf img.tar -C img blobs index.json oci-layout && tar -rf img.tar -C late blobs/sha256/\(hex) extra"
            #expect(sh(["sh", "-c", "cd '\(t.path)' && " + script]).0 == 0)
            guard case .success(let packed) = Self.read(t.path + "/img.tar"), case .success(let folder) = Self.read(t.path + "/img") else {
                Issue.record("\(Self.read(t.path + "/img.tar"))"); return
            }
            #expect(Self.shape(packed) == Self.shape(folder))
        }

        /// An archive cut short inside a layer is refused as corrupt; cut anywhere, it is refused
        /// or (cut in its end blocks) gives the whole tree, and never crashes.
        @Test func aTruncatedArchive() throws {
            let t = try TempTree("ocitrunc")
            let layers = try Self.layout(t.path + "/img")
            #expect(sh(["tar", "-cf", t.path + "/img.tar", "-C", t.path + "/img", "."]).0 == 0)
            guard case .success(let whole) = Self.read(t.path + "/img.tar") else { Issue.record("unreadable"); return }
            let full = try Data(contentsOf: URL(fileURLWithPath: t.path + "/img.tar"))
            // Where the first layer's data starts, by Python's tarfile (not the code under test).
            let hex = String((layers[0]["digest"] as! String).dropFirst(7))
            let (status, out) = sh([
                "python3", "-c",
                "import tarfile,sys\nfor m in tarfile.open(sys.argv[1]):\n    if m.name.endswith(sys.argv[2]): print(m.offset_data, m.size)",
                t.path + "/img.tar", hex
            ])
            let fields = out.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            #expect(status == 0 && fields.count == 2, "\(out)")
            guard fields.count == 2 else { return }
            var cuts = (1..<12).map { full.count * $0 / 12 }
            cuts.append(fields[0] + fields[1] / 2)
            for cut in cuts {
                let path = t.path + "/cut\(cut).tar"
                try full.prefix(cut).write(to: URL(fileURLWithPath: path))
                switch Self.read(path) {
                case .failure(let f):
                    if cut == cuts.last { #expect(f.message.contains("corrupt"), "\(f.message)") }
                    #expect(!f.message.isEmpty && !f.message.contains("\n"))
                case .success(let tree):
                    #expect(cut != cuts.last, "an archive cut inside a layer was accepted")
                    #expect(Self.shape(tree) == Self.shape(whole), "cut at \(cut)")
                }
            }
        }

        /// Bytes this process has read (`rchar` of /proc/self/io).
        static func bytesRead() -> Int {
            let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
        }

        /// A member whose header says 6 GB (a sparse file) where the descriptor says a few bytes:
        /// a layer, or the manifest. Refused at the descriptor's size from the header alone: the
        /// process reads far less than the member holds.
        @Test func aHugeMemberIsRefusedWithoutReadingIt() throws {
            let t = try TempTree("ocihuge")
            let script = #"""
                import hashlib, json, sys, tarfile
                out, which = sys.argv[1], sys.argv[2]
                HUGE = 6_000_000_000
                def member(f, name, data=None, size=None):
                    i = tarfile.TarInfo(name); i.mode = 0o644
                    i.size = len(data) if data is not None else size
                    f.write(i.tobuf(tarfile.PAX_FORMAT))
                    if data is not None: f.write(data + b"\0" * ((-len(data)) % 512))
                    else: f.seek(size + (-size) % 512, 1)
                sha = lambda b: hashlib.sha256(b).hexdigest()
                layer = sha(b"layer")
                cfg = json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer]}}).encode()
                man = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + sha(cfg), "size": len(cfg)},
                    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": "sha256:" + layer, "size": 1000}]}).encode()
                index = json.dumps({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "digest": "sha256:" + sha(man), "size": len(man)}]}).encode()
                with open(out, "wb") as f:
                    member(f, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
                    member(f, "index.json", index)
                    member(f, "blobs/sha256/" + sha(man), *((None, HUGE) if which == "manifest" else (man,)))
                    member(f, "blobs/sha256/" + sha(cfg), cfg)
                    if which == "layer": member(f, "blobs/sha256/" + layer, None, HUGE)
                    f.write(b"\0" * 1024)
                print(len(man))
                """#
            for which in ["layer", "manifest"] {
                let path = t.path + "/\(which).tar"
                let (status, out) = sh(["python3", "-c", script, path, which])
                #expect(status == 0, "\(out)")
                let size = which == "layer" ? "1000" : out.trimmingCharacters(in: .whitespacesAndNewlines)
                let before = Self.bytesRead()
                guard case .failure(let f) = Self.read(path) else { Issue.record("\(which): a 6 GB member was accepted"); continue }
                let read = Self.bytesRead() - before
                #expect(f.message.contains("is bigger than the \(size) bytes its descriptor says"), "\(which): \(f.message)")
                #expect(read < 1_000_000_000, "\(which): \(read) bytes read")
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }
#endif
