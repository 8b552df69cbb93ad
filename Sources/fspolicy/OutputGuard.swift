import ArgumentParser
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

/// An `--output`/`-o` file that is one of the command's inputs would be destroyed by the output
/// (`check p.yaml --output p.yaml` replaced the policy with its report). Refused before anything
/// is read or written: the same file is the same device and inode, whatever path, symlink or
/// hard link names it.
enum OutputGuard {
    struct Identity: Equatable, Sendable { var dev: UInt64; var ino: UInt64 }

    /// The file `path` names, following symlinks; nil when there is none. An input `-` is
    /// standard input, which may be a file too (`--batch - < FILE`).
    static func identity(_ path: String, input: Bool = false) -> Identity? {
        var st = stat()
        if input && (path == "-" || path == "/dev/stdin") {
            guard fstat(0, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        } else {
            guard stat(path, &st) == 0 else { return nil }
        }
        return Identity(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
    }

    /// Exits 3 when `output` is the same file as an input (`role` says which, for the message),
    /// or lies inside an input folder that is read whole (an OCI layout: `below: true`); then
    /// returns the host the command loads its policies with, whose every import answers to the
    /// same rule before it is read.
    static func check(output: String?, inputs: [(path: String, role: String, below: Bool)]) throws -> LoaderHost {
        var host = LoaderHost.commandLine
        guard let out = output, !OutputSink.isStandardOutput(out), let target = identity(out) else { return host }
        for input in inputs {
            let same = identity(input.path, input: true) == target
            if same || (input.below && isBelow(out, input.path)) {
                let how = same ? "is the same file as" : "is inside"
                printError(
                    "fspolicy: error: the output `\(out)` \(how) \(input.role) `\(input.path)`: writing it would destroy the input\n  help: write the output to another file"
                )
                throw ExitCode.invalid
            }
        }
        host.importGuard = { path in
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            if Identity(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino)) == target {
                // Whatever the command still writes (a report of the other files), never there.
                SafeOutput.refuse(dev: target.dev, ino: target.ino, why: "it is the imported file `\(path)` (an input)")
                return "is the same file as the output `\(out)`: writing the output would destroy it"
            }
            if st.st_mode & S_IFMT == S_IFDIR, isBelow(out, path) {
                return "is a folder the output `\(out)` is inside: writing the output would change it"
            }
            return nil
        }
        return host
    }

    /// Whether the existing file `path` is below the folder `dir` (both resolved).
    static func isBelow(_ path: String, _ dir: String) -> Bool {
        guard let p = realpath(path, nil), let d = realpath(dir, nil) else { return false }
        defer { free(p); free(d) }
        let ps = String(cString: p), ds = String(cString: d)
        return ps.hasPrefix(ds == "/" ? "/" : ds + "/")
    }
}

extension LoaderHost {
    /// What the command line lets a policy's imports read: on Linux this machine's trees and
    /// accounts, tar archives and OCI images; elsewhere nothing (such imports say so).
    static var commandLine: LoaderHost {
        #if os(Linux)
            LoaderHost.linux.readingArchives()
        #else
            LoaderHost.none
        #endif
    }
}
