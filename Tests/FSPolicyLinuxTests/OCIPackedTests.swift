#if os(Linux)
    import FSPolicy
    @testable import FSPolicyImport
    import FSPolicyFormat
    import FSPolicyRender
    import FSPolicyAudit
    import Foundation
    import Glibc
    import Testing

    /// Image archives cost what their named blobs hold, and whiteouts cost what they remove.
    @Suite("OCI image archives and whiteouts at scale")
    struct OCIPackedTests {
        static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/examples/image-oci/layout").path

        /// The example layout packed with a 50 MB file of zeros as a blob no descriptor names: read
        /// under a 10 MB limit on the size of any file written (`prlimit --fsize`), as unpacking
        /// every member into $TMPDIR (what was done before) cannot be.
        @Test func unnamedBlobsAreNeverWritten() throws {
            guard let bin = fspolicyBinary() else { Issue.record("the fspolicy binary is missing: run `swift build`"); return }
            guard sh(["which", "prlimit"]).0 == 0 else { return }  // util-linux; present wherever the suite runs
            let t = try TempTree("ocipacked")
            #expect(sh(["cp", "-r", Self.example, t.path + "/img"]).0 == 0)
            #expect(sh(["sh", "-c", "head -c 50000000 /dev/zero > '\(t.path)/img/blobs/sha256/\(String(repeating: "f", count: 64))'"]).0 == 0)
            #expect(sh(["tar", "-czf", t.path + "/img.tar.gz", "-C", t.path + "/img", "."]).0 == 0)
            let tmp = t.path + "/tmp"
            try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
            let (status, out) = sh([
                "env", "TMPDIR=" + tmp, "prlimit", "--fsize=10000000", bin, "scan", "--oci", t.path + "/img.tar.gz",
                "-o", t.path + "/packed.yaml"
            ])
            #expect(status == 0, "\(out)")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: tmp)) == [], "the temporary folder is removed")
            // The same tree as the folder itself gives.
            #expect(sh([bin, "scan", "--oci", t.path + "/img", "-o", t.path + "/folder.yaml"]).0 == 0)
            let packed = try String(contentsOfFile: t.path + "/packed.yaml", encoding: .utf8)
            let folder = try String(contentsOfFile: t.path + "/folder.yaml", encoding: .utf8)
            func body(_ s: String) -> [Substring] { s.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("description:") } }
            #expect(body(packed) == body(folder))
        }

        /// A named blob bigger than its descriptor says is refused while it is taken out, at the
        /// size the descriptor gives, not after it has been written whole.
        @Test func aBlobBiggerThanItsDescriptorIsRefusedAsItIsRead() throws {
            let t = try TempTree("ocibigger")
            #expect(sh(["cp", "-r", Self.example, t.path + "/img"]).0 == 0)
            let index = try String(contentsOfFile: t.path + "/img/index.json", encoding: .utf8)
            guard let r = index.range(of: #"sha256:[0-9a-f]{64}"#, options: .regularExpression) else { Issue.record("no digest in the example"); return }
            let manifest = t.path + "/img/blobs/sha256/" + index[r].dropFirst(7)
            let data = try Data(contentsOf: URL(fileURLWithPath: manifest))
            try? FileManager.default.removeItem(atPath: manifest)
            try (data + Data(count: 5_000_000)).write(to: URL(fileURLWithPath: manifest))
            #expect(sh(["tar", "-cf", t.path + "/img.tar", "-C", t.path + "/img", "."]).0 == 0)
            guard case .failure(let f) = OCIReader.read(t.path + "/img.tar") else { Issue.record("a blob bigger than its descriptor was read"); return }
            #expect(f.message.contains("is bigger than the \(data.count) bytes its descriptor says"), "\(f.message)")
        }

        /// A tar layer of these (name, is a folder) entries.
        static func layer(_ path: String, _ entries: [(String, Bool)]) throws {
            var script = "import tarfile, io, sys\nt = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)\n"
            script += "for n, d in [" + entries.map { "(\"\($0.0)\", \($0.1 ? "True" : "False"))" }.joined(separator: ", ") + "]:\n"
            script += "    i = tarfile.TarInfo(n); i.type = tarfile.DIRTYPE if d else tarfile.REGTYPE; i.mode = 0o755 if d else 0o644\n"
            script += "    t.addfile(i, None if d else io.BytesIO(b''))\nt.close()\n"
            let (status, out) = sh(["python3", "-c", script, path])
            #expect(status == 0, "\(out)")
        }

        /// 50 layers, each deleting one folder of a 4,000-entry base with a whiteout, visit only what
        /// they delete (each filtered all the entries below before: 200,000 visits), and give the
        /// tree that applying them by the book gives. No timing: the count of entries visited.
        @Test func whiteoutsCostWhatTheyRemove() throws {
            let t = try TempTree("ociwhiteouts")
            var base: [(String, Bool)] = []
            for d in 0..<80 {
                base.append(("d\(d)", true))
                for f in 0..<49 { base.append(("d\(d)/f\(f)", false)) }
            }
            try Self.layer(t.path + "/0.tar", base)
            var layers = [(path: t.path + "/0.tar", what: "layer 1")]
            for k in 0..<50 {
                let p = t.path + "/\(k + 1).tar"
                // Every tenth layer makes its folder opaque and puts one file back instead.
                if k % 10 == 9 {
                    try Self.layer(p, [("d\(k)", true), ("d\(k)/.wh..wh..opq", false), ("d\(k)/again", false)])
                } else {
                    try Self.layer(p, [(".wh.d\(k)", false)])
                }
                layers.append((p, "layer \(k + 2)"))
            }
            var visited = 0
            let result = LayerStack.apply(layers, origin: "test", checked: "", user: nil, progress: nil, visited: &visited)
            guard case .success(let tree) = result else { Issue.record("\(result)"); return }
            // 45 folders of 50 entries removed whole, 5 emptied of their 49 files.
            #expect(visited <= 45 * 50 + 5 * 49, "visited \(visited)")
            var want: Set<String> = []
            for d in 0..<80 {
                if d < 50 && d % 10 != 9 { continue }
                want.insert("d\(d)")
                if d < 50 { want.insert("d\(d)/again") } else { for f in 0..<49 { want.insert("d\(d)/f\(f)") } }
            }
            let got = Set(tree.entries.map(\.relativePath).filter { !$0.isEmpty && $0 != "." })
            #expect(got == want, "\(got.subtracting(want).sorted().prefix(5)) extra, \(want.subtracting(got).sorted().prefix(5)) missing")
            #expect(tree.notes.contains { $0.hasPrefix("\(45 * 50 + 5 * 49) entries of lower layers are deleted by whiteouts") }, "\(tree.notes)")
        }

        /// A symlink member with an empty target (the `tar` fuzz target's first finding): tar cannot
        /// make it, so it is left out with a warning; it was written as `target: ""`, which does
        /// not load.
        @Test func aSymlinkWithAnEmptyTargetIsLeftOut() throws {
            let t = try TempTree("tarempty")
            let script = """
                import tarfile, io, sys
                t = tarfile.open(sys.argv[1], 'w', format=tarfile.GNU_FORMAT)
                i = tarfile.TarInfo('srv'); i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)
                l = tarfile.TarInfo('srv/empty'); l.type = tarfile.SYMTYPE; l.linkname = ''; t.addfile(l)
                f = tarfile.TarInfo('srv/file'); t.addfile(f, io.BytesIO(b''))
                t.close()
                """
            #expect(sh(["python3", "-c", script, t.path + "/a.tar"]).0 == 0)
            guard case .success(let tree) = TarReader.read(t.path + "/a.tar") else { Issue.record("unreadable"); return }
            #expect(!tree.entries.contains { $0.relativePath == "srv/empty" })
            #expect(tree.entries.contains { $0.relativePath == "srv/file" })
            #expect(tree.problems.contains { $0.path == "/srv/empty" && $0.message.contains("empty target") }, "\(tree.problems)")
            let p = PolicyLoader.load(text: ScanWriter.yaml(tree), file: "scan.yaml", host: testHost)
            #expect(!p.diagnostics.sorted.contains { $0.severity == .error }, "\(p.diagnostics.sorted.map(\.rendered))")
        }
    }
#endif
