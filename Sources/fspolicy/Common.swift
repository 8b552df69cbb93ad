import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, junit, sarif
    /// JSON Lines, for `can --batch` only.
    case jsonl
}

/// The `--format` values one command accepts: its help and completions list only those, and a
/// value another command takes is refused by the parser with the command's own list.
protocol FormatChoice: ExpressibleByArgument, CaseIterable, RawRepresentable, Sendable where RawValue == String {
    /// One line for `--help`, naming the values.
    static var help: String { get }
}

extension FormatChoice {
    /// The value as the shared format every writer takes.
    var output: OutputFormat { OutputFormat(rawValue: rawValue)! }
}

/// `explain`, `who`, `validate`, `simulate`, `fmt`.
enum TextOrJSON: String, FormatChoice {
    case text, json
    static let help = "Output format: text or json."
}

/// `check`: expectations for people (text), programs (json), CI servers (junit) and code
/// scanning (sarif).
enum CheckFormat: String, FormatChoice {
    case text, json, junit, sarif
    static let help = "Output format: text, json, junit or sarif."
}

/// `can`: one answer as text or json; `--batch` also answers one JSON object per line.
enum CanFormat: String, FormatChoice {
    case text, json, jsonl
    static let help = "Output format: text or json (jsonl with --batch: one JSON object per line)."
}

extension Semantics: ExpressibleByArgument {}

/// Options every command shares; `F` is the command's own set of `--format` values.
struct CommonOptions<F: FormatChoice>: ParsableArguments {
    @Option(name: .customLong("format"), help: ArgumentHelp(F.help, valueName: "format"))
    var formatChoice: F = F(rawValue: "text")!

    /// The chosen format, as the writers take it.
    var format: OutputFormat { formatChoice.output }

    @Option(
        name: [.customShort("o"), .long],
        help: "Write the output to this file instead of standard output (`-`: standard output). Only a regular file (or a new one) is written.")
    var output: String?

    @Flag(name: .long, help: "With --output: when the file is a symbolic link, write to the file it points to (refused otherwise).")
    var followSymlinks = false

    @Option(name: .long, help: "Rule set that decides, overriding the file: macos, guide or linux.")
    var semantics: Semantics?

    @Flag(name: .long, help: "Never use color (color is on only on a terminal, off when NO_COLOR is set, on when FORCE_COLOR is set).")
    var noColor = false

    @Flag(
        name: [.customShort("q"), .long],
        help:
            "Text output says only what went wrong (check: failures and findings; validate: errors and warnings; simulate: unexpected steps); can, explain and who print nothing and answer with their exit code. No progress. json, junit and sarif are unchanged."
    )
    var quiet = false

    var colorAllowed: Bool { Terminal.colorWanted(disabled: noColor, toFile: output != nil) }

    var style: Style { Style(enabled: colorAllowed) }

    /// Refuses junit and sarif for commands that have no expectations to report.
    func requireTextOrJSON(_ command: String) throws {
        if format == .junit || format == .sarif {
            throw ValidationError("`--format \(format.rawValue)` is for `check`; `\(command)` prints text or json")
        }
        if format == .jsonl {
            throw ValidationError("`--format jsonl` is for `can --batch`; `\(command)` prints text or json")
        }
    }

    /// The command's output: standard output or `--output`, written safely; text output goes
    /// through the one escaping rule (`Escaping.terminal`). A file that cannot be written is
    /// `fspolicy: error: …` and exit 3, before anything is written.
    func sink() throws -> OutputSink {
        try OutputSink.open(output, followSymlinks: followSymlinks, mode: format == .text ? .escaped(color: colorAllowed) : .raw)
    }

    /// Writes the whole output at once, through `sink()`.
    func emit(_ text: String) throws {
        let s = try sink()
        s.write(text)
        try s.close()
    }
}

/// How the command line opens and closes the one output sink: any failure is
/// `fspolicy: error: cannot write …` and exit 3.
extension OutputSink {
    /// Standard output (nil, `-`, `/dev/stdout`) or the regular file `path`.
    static func open(_ path: String?, followSymlinks: Bool = false, mode: Mode = .raw) throws -> OutputSink {
        do { return try OutputSink(path: path, followSymlinks: followSymlinks, mode: mode) } catch {
            printError("fspolicy: error: \(error.message)")
            throw ExitCode.invalid
        }
    }

    /// The whole of an output written at once.
    static func write(_ text: String, to path: String?, followSymlinks: Bool = false, mode: Mode = .raw) throws {
        let s = try open(path, followSymlinks: followSymlinks, mode: mode)
        s.write(text)
        try s.close()
    }

    /// Writes out what is gathered now (an answer a terminal waits for).
    func flushOrExit() throws {
        do { try flush() } catch {
            printError("fspolicy: error: \(error.message)")
            throw ExitCode.invalid
        }
    }

    /// Writes what is left and puts the file in place.
    func close() throws {
        do { try finish() } catch {
            printError("fspolicy: error: \(error.message)")
            throw ExitCode.invalid
        }
    }
}

/// Standard output where an error cannot be thrown (quiz prompts, reports written in `defer`):
/// a failure prints the error and exits 3 at once.
func say(_ text: String, color: Bool = false) {
    do {
        let s = try OutputSink(path: nil, mode: .escaped(color: color))
        s.write(text)
        try s.finish()
    } catch {
        printError("fspolicy: error: \(error.message)")
        exit(ExitCode.invalid.rawValue)
    }
}

/// Progress on standard error, rewritten in place; nothing is said when it cannot be written.
func printProgress(_ text: String) {
    SafeOutput.stderr(text)
}

func printError(_ s: String) {
    SafeOutput.stderr(Escaping.terminal(s) + "\n")
}

/// Prints diagnostics to stderr; returns true when any is an error.
@discardableResult
func report(_ diags: [Diagnostic]) -> Bool {
    for d in diags { printError(d.rendered) }
    return diags.contains { $0.severity == .error }
}

/// What a command made that may live until the process ends. A loaded policy of a million
/// nodes or expectations is a million allocations (names, paths, lists): taken apart one by one
/// when the command returns, it costs a tenth of a second on one thread, just before `exit`
/// gives all the memory back at once. A command hands its big values here instead, so they are
/// never taken apart. (Only the command line does: tests and other programs using the library
/// free what they load as usual.)
enum ProcessLifetime {
    nonisolated(unsafe) private static var kept: [Any] = []
    /// Keeps `value` (and all it holds) until the process exits. Called on the main thread.
    static func keep(_ value: Any) { kept.append(value) }
}

/// The diagnostics of a file a command uses (not `validate`, which lists every one): all its
/// errors, and of its warnings the first three of each kind, then how many more there are. A
/// host's scan warns about each unit option of each service it does not model, a hundred or
/// more lines before every answer otherwise. `quiet`: errors only. Returns true when any is an
/// error.
@discardableResult
func reportForUse(_ diags: [Diagnostic], file: String, quiet: Bool = false) -> Bool {
    var shown: [String: Int] = [:]
    for d in diags where d.severity == .error || !quiet {
        if d.severity != .error {
            shown[d.code, default: 0] += 1
            if shown[d.code]! > 3 { continue }
        }
        printError(d.rendered)
    }
    for (code, n) in shown.sorted(by: { $0.key < $1.key }) where n > 3 {
        printError(
            "\(Escaping.line(file)): warning: \(n - 3) more `\(code)` warnings like these\n  help: `fspolicy validate \(Escaping.line(file))` lists them all")
    }
    return diags.contains { $0.severity == .error }
}

/// Loads a policy, printing its diagnostics (`reportForUse`); exits 3 when it has errors.
/// `host`: what its imports may read (`OutputGuard.check` gives the one for the command's output).
func loadOrExit(_ path: String, semantics: Semantics?, host: LoaderHost = .commandLine, quiet: Bool = false) throws -> Policy {
    let p = PolicyLoader.load(path: path, semanticsOverride: semantics, host: host)
    ProcessLifetime.keep(p)
    if reportForUse(p.diagnostics.sorted, file: path, quiet: quiet) { throw ExitCode.invalid }
    return p
}

/// Two files loaded at once, one on another thread (`diff`: two million-node scans load in the
/// time of one on two cores). The diagnostics are reported in the files' order, as two
/// `loadOrExit` calls would.
func loadBothOrExit(_ first: String, _ second: String, semantics: Semantics?, host: LoaderHost = .commandLine) throws -> (Policy, Policy) {
    final class Box: @unchecked Sendable { var policy: Policy? = nil }
    let other = Box()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        other.policy = PolicyLoader.load(path: second, semanticsOverride: semantics, host: host)
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    let a = PolicyLoader.load(path: first, semanticsOverride: semantics, host: host)
    done.wait()
    let b = other.policy!
    ProcessLifetime.keep(a)
    ProcessLifetime.keep(b)
    let badA = reportForUse(a.diagnostics.sorted, file: first)
    let badB = reportForUse(b.diagnostics.sorted, file: second)
    if badA || badB { throw ExitCode.invalid }
    return (a, b)
}

/// The request options of `can`, `explain` and `who`, declared once. The operation and the
/// path are optional because `can --batch` reads its questions from a file instead; `explain`
/// and `who` check that they are given.
struct RequestOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Operation: \(FSPolicy.Operation.requestWords.joined(separator: " ")), or a raw ACL right word (delete_child, add_file, …).", valueName: "op"),
        completion: .list(Completions.ops))
    var op: String?

    @Argument(help: "The absolute path the request is about.")
    var path: String?

    @Option(name: .long, help: "The new path (rename, link).")
    var to: String?

    @Option(name: .long, help: "The mode: requested mode for create/creat/mkdir, new mode for chmod (e.g. 0640).")
    var mode: String?

    @Option(name: .long, help: "The new owner (chown, lchown; -1: no change, written --owner=-1).")
    var owner: String?

    @Option(name: .customLong("group"), help: "The new group (chgrp; chown, lchown: -1 for no change).")
    var newGroup: String?

    @Option(name: .long, help: "settimes: the access time set to a given time (set, the default), to now (UTIME_NOW) or left as it is (omit).")
    var atime: String?

    @Option(name: .long, help: "settimes: the modification time: set, now or omit.")
    var mtime: String?

    @Option(name: .long, help: "mknod: the kind of device node (block, char).")
    var type: String?

    @Option(
        name: .long,
        help:
            "The complete new flag set (chflags), or the open(2) flags (open), comma-separated or repeated, e.g. --flags uchg,hidden or --flags O_WRONLY,O_TRUNC."
    )
    var flags: [String] = []

    @Option(name: .long, help: "One ACE of the complete new ACL (setacl); repeat for more.")
    var acl: [String] = []

    @Flag(name: .long, help: "With chflags: the new flag set is empty. With setacl: the new ACL is empty.")
    var none = false

    var flagWords: [String] { flags.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == "|" }).map(String.init) } }

    func validate() throws {
        if op == "chflags" && flags.isEmpty && !none {
            throw ValidationError(
                "`--op chflags` needs the complete new flag set: `--flags` with its names (`immutable`, `append`, `nodump` on Linux; `uchg`, `hidden`, … on macOS), or `--none` to clear them all"
            )
        }
        if let op, ["chmod", "lchmod"].contains(op), mode == nil {
            throw ValidationError("`--op \(op)` needs the new mode: `--mode 0640`, for example")
        }
        if let op, ["rename", "link", "symlink"].contains(op), to == nil {
            throw ValidationError("`--op \(op)` needs `--to`: \(op == "symlink" ? "the link's target" : "the new path")")
        }
        if op == "setacl" && acl.isEmpty && !none {
            throw ValidationError("`--op setacl` needs the complete new ACL: one `--acl \"user:bob allow read\"` per entry, or `--none` for an empty ACL")
        }
        if none && op != "chflags" && op != "setacl" {
            throw ValidationError("`--none` goes with `--op chflags` or `--op setacl`")
        }
    }

    func commandLine(as who: String?, op: String? = nil) -> CommandLineRequest {
        let o = op ?? self.op ?? ""
        var r = CommandLineRequest(
            asText: who, op: o, path: path ?? "", to: to, mode: mode, owner: owner, group: newGroup,
            flags: (o == "chflags") ? (none ? [] : flagWords) : (flags.isEmpty ? nil : flagWords),
            acl: (o == "setacl") ? (none ? [] : acl) : (acl.isEmpty ? nil : acl))
        r.atime = atime
        r.mtime = mtime
        r.type = type
        return r
    }
}

/// The subject holding exactly the capabilities of `--caps` (unchanged without it), or exit 3.
/// Under `macos` or `guide`, which know no capabilities, a warning says they are not used
/// (`explain` names the rule set's reading in its subject line too).
func withCapsOrExit(_ subject: SubjectRef?, _ caps: String?, semantics: Semantics, quiet: Bool = false) throws -> SubjectRef? {
    guard let caps, let subject else { return subject }
    if semantics != .linux && !quiet {
        printError(
            "fspolicy: warning: `--caps` is about Linux capabilities; the \(semantics.rawValue) rule set has none and decides as the user alone")
    }
    switch subject.withCapabilities(caps) {
    case .success(let s): return s
    case .failure(let e):
        for d in e.diagnostics {
            var s = "fspolicy: error: " + Escaping.line(d.message)
            if let h = d.help { s += "\n  help: " + Escaping.line(h) }
            printError(s)
        }
        throw ExitCode.invalid
    }
}

/// Resolves a command-line request or exits 3 with its problems.
func resolveOrExit(_ req: CommandLineRequest, in policy: Policy) throws -> (SubjectRef?, RequestSpec) {
    switch req.resolve(in: policy) {
    case .success(let x): return x
    case .failure(let e):
        for d in e.diagnostics {
            var s = "fspolicy: error: " + Escaping.line(d.message)
            if let h = d.help { s += "\n  help: " + Escaping.line(h) }
            printError(s)
        }
        throw ExitCode.invalid
    }
}

/// `--after N`: ask in the world after the first N steps of the file (default: after all).
struct AfterOption: ParsableArguments {
    @Option(name: .long, help: "Decide in the world after the first N steps of the file (default: after all of them).")
    var after: Int?

    func check(_ ev: Evaluator) throws {
        if let a = after, a < 0 || a > ev.policy.steps.count {
            printError(
                "fspolicy: error: `--after \(a)` but the file has \(ev.policy.steps.count) step(s)\n  help: give a number from 0 to \(ev.policy.steps.count)")
            throw ExitCode.invalid
        }
    }
}
