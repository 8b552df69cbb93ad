import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import Foundation
#if os(Linux)
    import FSPolicyImport
    import Glibc
#endif

/// Targets for the readers of files that come from others: tar archives, OCI image layouts
/// (folders and archives), `ls -le` listings and property lists. Each writes its input where the
/// reader expects a file (a scratch folder of this process) and reads it as the commands do.
extension FuzzTargets {
    /// This process's scratch folder (made once; the fuzzer runs millions of inputs).
    nonisolated(unsafe) static var scratchFolder: String? = nil

    static func scratch() -> String {
        if let s = scratchFolder { return s }
        var template = Array((NSTemporaryDirectory() + "/fspolicy-fuzz-XXXXXX").utf8CString)
        guard let m = mkdtemp(&template) else { fail("cannot make a scratch folder") }
        let s = String(cString: m)
        scratchFolder = s
        atexit { if let s = FuzzTargets.scratchFolder { try? FileManager.default.removeItem(atPath: s) } }
        return s
    }

    @discardableResult
    static func put(_ rel: String, _ bytes: [UInt8]) -> String {
        let path = scratch() + "/" + rel
        let dir = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fail("cannot write \(path)") }
        return path
    }

    /// A scan of what a reader gave must load, as `scan --tar` / `scan --oci` write it.
    static func requireLoads(_ tree: ScannedTree, _ what: String) {
        for p in tree.problems { requireSafe(Escaping.terminal(p.message), "a \(what) warning as printed") }
        let text = ScanWriter.yaml(tree)
        let p = PolicyLoader.load(text: text, file: "scan.yaml")
        if let err = p.diagnostics.sorted.first(where: { $0.severity == .error }) {
            fail("the scan of a \(what) does not load: \(err.rendered)\n\(text.prefix(4000))")
        }
    }

    /// A tar archive (any compression libarchive reads): a tree whose scan loads, or a failure
    /// that is safe to print.
    static func tar(_ data: [UInt8]) {
        #if os(Linux)
            let path = put("archive.tar", data)
            switch TarReader.read(path) {
            case .success(let tree): requireLoads(tree, "tar archive")
            case .failure(let f):
                requireSafe(Escaping.terminal(f.message + "\n" + f.help), "a tar failure as printed")
            }
        #endif
    }

    /// An OCI image. First byte odd: the rest is an image archive (a tar file holding a layout).
    /// Even: the rest is parts separated by `\n--\n`: `index.json`, then blobs; in every part,
    /// `@N` stands for the digest of blob N and `#N` for its size (blobs name only later blobs,
    /// so they are made from the last one back), so a fuzzer can change the documents' shape
    /// and keep their digests right. A tree whose scan loads, or a failure safe to print.
    static func oci(_ data: [UInt8]) {
        #if os(Linux)
            guard let mode = data.first else { return }
            let result: Result<ScannedTree, ArchiveFailure>
            if mode & 1 == 1 {
                result = OCIReader.read(put("image.tar", Array(data.dropFirst())))
            } else {
                let root = scratch() + "/layout"
                try? FileManager.default.removeItem(atPath: root)
                var parts: [[UInt8]] = []
                var cur: [UInt8] = []
                let sep = Array("\n--\n".utf8)
                var i = 1
                while i < data.count {
                    if data[i] == sep[0], i + sep.count <= data.count, Array(data[i..<(i + sep.count)]) == sep {
                        parts.append(cur); cur = []; i += sep.count
                    } else {
                        cur.append(data[i]); i += 1
                    }
                }
                parts.append(cur)
                parts = Array(parts.prefix(17))
                var digests = [String](repeating: "", count: parts.count), sizes = [Int](repeating: 0, count: parts.count)
                func substitute(_ part: [UInt8], upTo known: Int) -> [UInt8] {
                    var bytes = part
                    for n in stride(from: parts.count - 1, through: known, by: -1) where n > 0 {
                        bytes = replace(bytes, Array("@\(n)".utf8), Array(digests[n].utf8))
                        bytes = replace(bytes, Array("#\(n)".utf8), Array(String(sizes[n]).utf8))
                    }
                    return bytes
                }
                for n in stride(from: parts.count - 1, through: 1, by: -1) {
                    let bytes = substitute(parts[n], upTo: n + 1)
                    let hex = SHA256.hex(bytes)
                    digests[n] = "sha256:" + hex
                    sizes[n] = bytes.count
                    put("layout/blobs/sha256/" + hex, bytes)
                }
                put("layout/oci-layout", Array(#"{"imageLayoutVersion":"1.0.0"}"#.utf8))
                put("layout/index.json", substitute(parts[0], upTo: 1))
                result = OCIReader.read(root)
            }
            switch result {
            case .success(let tree): requireLoads(tree, "image")
            case .failure(let f): requireSafe(Escaping.terminal(f.message + "\n" + f.help), "an OCI failure as printed")
            }
        #endif
    }

    /// `bytes` with every `what` replaced by `with`, bytes kept as they are (layers are binary).
    static func replace(_ bytes: [UInt8], _ what: [UInt8], _ with: [UInt8]) -> [UInt8] {
        guard bytes.count >= what.count, !what.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == what[0], i + what.count <= bytes.count, bytes[i..<(i + what.count)].elementsEqual(what) {
                out += with; i += what.count
            } else {
                out.append(bytes[i]); i += 1
            }
        }
        return out
    }

    /// An `ls -le` listing: problems at a line of the text, safe to print; imported by a
    /// policy, diagnostics inside the listing and safe to print, and a valid file decidable.
    static func lsle(_ data: [UInt8]) {
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).count
        let (_, problems) = MacListing.parse(data)
        for p in problems {
            if p.line < 1 || p.line > lines + 1 { fail("listing problem at line \(p.line) of \(lines): \(p.message)") }
            requireSafe(Escaping.terminal(p.message + "\n" + (p.help ?? "")), "a listing problem as printed")
        }
        let listing = put("listing.lsle", data)
        let policy = """
            fspolicy: 1
            semantics: macos
            import:
              - {lsle: ./listing.lsle, at: /Users/alice}
            users:
              alice: {uid: 501, group: staff}
            expect:
              - {as: alice, op: read, path: /Users/alice, result: allow}
            """
        let p = PolicyLoader.load(text: policy, file: scratch() + "/policy.yaml")
        for d in p.diagnostics.sorted {
            requireSafe(Escaping.terminal(d.rendered), "a diagnostic as printed")
            if d.location.file == listing && d.location.line > lines + 1 {
                fail("diagnostic at line \(d.location.line) of a \(lines)-line listing: \(d.rendered)")
            }
        }
        guard !p.diagnostics.sorted.contains(where: { $0.severity == .error }) else { return }
        _ = Evaluator(policy: p).checkAll().outcomes.count
    }

    /// A property list as an app's entitlements and Info.plist: read, or refused with a
    /// diagnostic that is safe to print; a valid file's expectations decidable.
    static func plist(_ data: [UInt8]) {
        put("app.plist", data)
        let policy = """
            fspolicy: 1
            semantics: macos
            users:
              alice: {uid: 501, group: staff}
            tree:
              /Users/alice/Documents/a.txt: {owner: alice, group: staff, mode: "0644"}
            apps:
              com.example.Fuzz:
                user: alice
                entitlements: ./app.plist
                info: ./app.plist
            expect:
              - {as: com.example.Fuzz, op: read, path: /Users/alice/Documents/a.txt, result: allow}
            """
        let p = PolicyLoader.load(text: policy, file: scratch() + "/policy.yaml")
        for d in p.diagnostics.sorted { requireSafe(Escaping.terminal(d.rendered), "a diagnostic as printed") }
        guard !p.diagnostics.sorted.contains(where: { $0.severity == .error }) else { return }
        _ = Evaluator(policy: p).checkAll().outcomes.count
    }
}
