import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyImport
import FSPolicyLinux
import FSPolicyRender
import FSPolicyReport
import Foundation

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a real directory tree and write it as a policy file.",
        discussion: """
            Reads type, owner, group, mode and inode flags (statx), access and default ACLs (their \
            extended attributes) and \
            symlink targets of DIR and everything below it, and of every directory from / down to DIR \
            (those nodes only); every mount met becomes a volume with its options (read-only, noexec, \
            nodev, nosuid, file-system type). It writes a format-version-1 policy file with \
            `semantics: linux`, the tree, the volumes and every user and group of the host. Each node \
            is read through one descriptor opened without following symlinks, so a node renamed during \
            the scan cannot lend its attributes to another. It never follows a symlink, never opens a \
            file, fifo, socket or device for reading, and never changes anything. A path it cannot \
            read is reported on stderr and the scan goes on. With --at the real folders above DIR are \
            not read: they are written as `assumed: true`.

            With `--tar FILE` it reads a tar archive instead (`docker export`, `podman export`, an \
            image layer; plain, gzip, zstd, xz or bzip2) without extracting it: the same fields, \
            ACLs from the PAX headers of `tar --acls` / `bsdtar --acls`, file flags where stored, \
            and the accounts of the archive's own /etc/passwd and /etc/group. The archive's root \
            is `/` unless `--at` says otherwise.

            With `--oci DIR` it reads an OCI image layout (a folder with `oci-layout`, `index.json` \
            and `blobs/`, as `skopeo copy … oci:DIR` writes it; or the tar file of `docker save`, \
            unpacked into a temporary folder first): the \
            image chosen by `--platform` \
            (default: the only one, else linux/amd64), its layers applied in order with their \
            whiteouts, every blob checked against its sha256 digest first.

            With `--units ROOT` it also reads the systemd unit folders under ROOT (`/` for this \
            host: /etc/systemd/system, /run/systemd/system, /usr/local/lib/systemd/system, \
            /usr/lib/systemd/system, /lib/systemd/system) and writes their files in a `units:` \
            section: every unit with a [Service] section is a service of the file, named after the \
            unit, with systemd's override order, masks and drop-ins (docs/services.md).

            Examples:
              fspolicy scan /etc -o etc.yaml
              fspolicy scan /etc --units / -o host.yaml
              fspolicy scan --at /srv/shared fixtures/examples > shared.yaml
              fspolicy scan --tar fixtures/examples/image/image.tar.gz -o image.yaml
              fspolicy scan --oci fixtures/examples/image-oci/layout --platform linux/amd64

            Exit codes: 0 · 1 some folders or links could not be read (reported per path; what they hold is `unknown`) · 3 invalid input.
            """)

    @Argument(help: "The directories (or files) to read; several make one file.") var dirs: [String] = []
    @Option(name: .long, help: "Read this tar archive (plain or compressed) instead of a directory.") var tar: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read this OCI image layout directory, or `docker save` tar file (its layers applied in order), instead of a directory.", valueName: "dir"))
    var oci: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --oci: the image of a multi-platform layout, os/arch[/variant] or a manifest digest (default: the only one, else linux/amd64).",
            valueName: "platform")) var platform: String?
    @Option(name: [.customShort("o"), .long], help: "Write the policy file here instead of standard output.") var output: String?
    @Flag(name: .long, help: "With -o: when the file is a symbolic link, write to the file it points to (refused otherwise).") var followSymlinks = false
    @Option(name: .long, help: "Where the tree appears in the policy (default: its real absolute path). The folders above it are then assumed, not read.")
    var at: String?
    @Option(name: .long, help: "`all`: every user and group of the host (default); `owners`: only the owners and groups seen in the tree.") var accounts:
        String = "all"
    @Option(
        name: .long, help: ArgumentHelp("The JSON Schema named on the file's first line for editors (`# yaml-language-server: $schema=URL`).", valueName: "url")
    ) var schemaComment: String = SchemaComment.defaultURL
    @Flag(name: .long, help: "Do not write the `# yaml-language-server: $schema=…` first line.") var noSchemaComment = false
    @Flag(name: [.customShort("q"), .long], help: "No progress display; warnings and errors are still printed.") var quiet = false
    @Option(
        name: .long, help: ArgumentHelp("Record folders deeper than N levels below the root without reading their entries (`unread: depth`).", valueName: "n"))
    var maxDepth: Int?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Record a folder whose absolute path matches GLOB (`*`, `?`, `**`) without entering it (`unread: excluded`); repeatable.", valueName: "glob"))
    var exclude: [String] = []
    @Flag(name: .long, help: "Do not enter folders on another file system than the root's (`unread: mount`).") var oneFileSystem = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also write the services of the systemd unit folders under this root (`/` for this host) in a `units:` section.", valueName: "root"))
    var units: String?
    @Flag(name: .long, help: "Enter pseudo file systems met below the root (/proc, /sys, cgroups), which are otherwise recorded as mounts and not entered.")
    var pseudo = false

    func validate() throws {
        if let a = at, !a.hasPrefix("/") { throw ValidationError("`--at` takes an absolute path, e.g. `--at /srv/shared`") }
        if accounts != "all" && accounts != "owners" { throw ValidationError("`--accounts` takes `all` or `owners`") }
        let sources = (dirs.isEmpty ? 0 : 1) + [tar, oci].compactMap { $0 }.count
        if dirs.count > 1 && at != nil { throw ValidationError("`--at` places one tree: give one directory with it") }
        if sources == 0 { throw ValidationError("give a directory to read, `--tar FILE` or `--oci DIR`") }
        if sources > 1 { throw ValidationError("give one of a directory, `--tar FILE` or `--oci DIR`, not several") }
        if platform != nil && oci == nil { throw ValidationError("`--platform` goes with `--oci DIR`") }
        if !SchemaComment.isValid(schemaComment) { throw ValidationError("`--schema-comment` takes a URL or file name on one line") }
        if let d = maxDepth, d < 0 { throw ValidationError("`--max-depth` takes a number of levels, 0 or more") }
        if (tar != nil || oci != nil) && (maxDepth != nil || !exclude.isEmpty || oneFileSystem || pseudo) {
            throw ValidationError("`--max-depth`, `--exclude`, `--one-file-system` and `--pseudo` go with a directory scan")
        }
        if let u = units, u.isEmpty { throw ValidationError("`--units` takes a folder: `/` for this host's unit folders") }
        if (tar != nil || oci != nil) && accounts != "all" {
            throw ValidationError("`--accounts` goes with a directory scan; an archive's accounts are its own /etc/passwd and /etc/group")
        }
    }

    func run() throws {
        _ = try OutputGuard.check(
            output: output,
            inputs: dirs.map { ($0, "the file scanned", false) }
                + [tar.map { ($0, "the archive", false) }, oci.map { ($0, "the image", true) }].compactMap { $0 })
        #if os(Linux)
            let terminal = Terminal.progressWanted(quiet: quiet)
            let report: @Sendable (Int) -> Void = { n in
                printProgress("\rscanned \(n) entries")
            }
            let tree: ScannedTree
            if tar != nil || oci != nil {
                let result =
                    tar.map { TarReader.read($0, accounts: .linux, progress: terminal ? report : nil) }
                    ?? OCIReader.read(oci!, platform: platform, accounts: .linux, progress: terminal ? report : nil)
                if terminal { printProgress("\r\u{1B}[K") }
                switch result {
                case .failure(let f):
                    printError("fspolicy: error: \(f.message)")
                    if !f.help.isEmpty { printError("  help: \(f.help)") }
                    throw ExitCode.invalid
                case .success(let t): tree = t
                }
            } else {
                tree = ScannedTree.merged(try dirs.map { try scanDirectory($0, terminal: terminal, report: report) })
            }
            try write(tree)
        #else
            printError("fspolicy: error: `scan` reads Linux trees (statx, libacl) and is only available in the Linux build")
            throw ExitCode.invalid
        #endif
    }

    #if os(Linux)
        func scanDirectory(_ dir: String, terminal: Bool, report: @escaping @Sendable (Int) -> Void) throws -> ScannedTree {
            // By its bytes (an argument that was not UTF-8 is `\ooo` here), without following a
            // last symlink (a dangling one is scanned as the link it is).
            let bytes = RawArguments.bytes(of: dir)
            var st = stat()
            guard (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer({ lstat($0.baseAddress!, &st) }) == 0 else {
                printError("fspolicy: error: cannot read `\(dir)`: no such file or directory")
                throw ExitCode.invalid
            }
            let options = ScanOptions(
                readAncestors: at == nil, allAccounts: accounts == "all", maxDepth: maxDepth, exclude: exclude,
                oneFileSystem: oneFileSystem, pseudo: pseudo)
            let tree = TreeScanner.scan(dir, options: options, progress: terminal ? report : nil)
            if terminal { printProgress("\r\u{1B}[K") }
            return tree
        }

        func write(_ tree: ScannedTree) throws {
            // Written as it is made (a piece of about 1 MB at a time): the file is never whole in memory.
            let sink = try OutputSink.open(output, followSymlinks: followSymlinks)
            ScanWriter.write(tree, at: at, schemaURL: noSchemaComment ? nil : schemaComment) { piece in
                piece.withUnsafeBufferPointer { sink.write(bytes: $0) }
            }
            var unitProblems: [String] = []
            if let root = units {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
                    try? sink.close()
                    printError("fspolicy: error: cannot read `\(root)` for `--units`: not a folder")
                    throw ExitCode.invalid
                }
                let absolute = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
                let (folders, problems) = UnitFolders.collect(root: absolute)
                unitProblems = problems
                let text =
                    "# The files of the systemd unit folders under \(absolute), read by `scan --units`: each unit\n"
                    + "# with a [Service] section is a service of this file (docs/services.md).\n" + folders.yaml(root: YAMLText.lexicalPath(absolute))
                Array(text.utf8).withUnsafeBufferPointer { sink.write(bytes: $0) }
            }
            try sink.close()
            for p in tree.problems { printError("fspolicy: warning: \(p.path): \(p.message)") }
            for p in unitProblems { printError("fspolicy: warning: \(p)") }
            // An entry that vanished while the tree was read is nothing to act on (exit 0).
            let unreadable = tree.problems.filter { !$0.vanished }.count
            if unreadable > 0 {
                printError(
                    "fspolicy: \(unreadable) path(s) could not be read; the rest of the tree was scanned, and answers that depend on what was not read are `unknown`"
                )
                throw ExitCode.failed
            }
        }
    #endif
}
