#if os(Linux)
    import Foundation
    import Testing

    @Suite("scan --oci")
    struct OCICommandTests {
        static let layout = "fixtures/examples/image-oci/layout"

        @Test("reads the example layout: the header names the manifest and the layers; --at places it")
        func scansTheExample() throws {
            let r = try fspolicy(["scan", "--oci", Self.layout, "--no-schema-comment"])
            #expect(r.status == 0, "\(r.stderr)")
            let first = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                first.hasPrefix("# Read from the OCI image layout \(Self.layout) (manifest sha256:")
                    && first.hasSuffix(", linux/amd64, 3 layers) by fspolicy scan."), "\(first)")
            #expect(!r.stdout.contains("debug.key") && !r.stdout.contains("stale-entry") && !r.stdout.contains("/.wh."), "whiteouts applied")
            let placed = try fspolicy(["scan", "--oci", Self.layout, "--platform", "linux/amd64", "--at", "/img"])
            #expect(placed.status == 0, "\(placed.stderr)")
            #expect(placed.stdout.contains("\"/img/app/config.yaml\": {owner: \"app\", group: \"www-data\", mode: \"0640\"}"), "\(placed.stdout)")
            #expect(placed.stdout.contains(", placed at /img."))
        }

        @Test("one source only; --platform needs --oci; a platform the layout lacks and a changed blob exit 3 with the reason")
        func errors() throws {
            let both = try fspolicy(["scan", "Sources", "--oci", Self.layout])
            #expect(both.status != 0 && both.stderr.contains("give one of a directory, `--tar FILE` or `--oci DIR`, not several"), "\(both.stderr)")
            let tarAndOCI = try fspolicy(["scan", "--tar", "x.tar", "--oci", Self.layout])
            #expect(tarAndOCI.status != 0 && tarAndOCI.stderr.contains("not several"))
            let platform = try fspolicy(["scan", "Sources", "--platform", "linux/arm64"])
            #expect(platform.status != 0 && platform.stderr.contains("`--platform` goes with `--oci DIR`"))
            let arm = try fspolicy(["scan", "--oci", Self.layout, "--platform", "linux/arm64"])
            #expect(
                arm.status == 3 && arm.stderr.contains("has no image for the platform `linux/arm64`; it lists: linux/amd64 sha256:")
                    && arm.stderr.contains("\n  help: "), "\(arm.stderr)")
            #expect(arm.stdout.isEmpty)

            // A copy of the layout with one byte of one layer changed.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-ocicli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            try FileManager.default.copyItem(at: packageRoot.appendingPathComponent(Self.layout), to: dir)
            let blobs = dir.appendingPathComponent("blobs/sha256")
            var biggest: (URL, Int)? = nil
            for name in try FileManager.default.contentsOfDirectory(atPath: blobs.path) {
                let u = blobs.appendingPathComponent(name)
                let n = try Data(contentsOf: u).count
                if n > (biggest?.1 ?? 0) { biggest = (u, n) }
            }
            let (blob, _) = try #require(biggest)
            var data = try Data(contentsOf: blob)
            data[600] ^= 0x20
            try data.write(to: blob)
            let bad = try fspolicy(["scan", "--oci", dir.path])
            #expect(bad.status == 3, "\(bad.stderr)")
            #expect(
                bad.stderr.contains("layer 1 of 3") && bad.stderr.contains("blobs/sha256/\(blob.lastPathComponent)` does not match its digest"), "\(bad.stderr)"
            )
            #expect(bad.stdout.isEmpty)
        }
    }
#endif
