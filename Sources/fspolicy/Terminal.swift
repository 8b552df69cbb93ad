import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyIO
import FSPolicyRender
import FSPolicyReport
import Foundation

/// When the command line colours its output and shows progress: the conventions CI systems and
/// terminals expect, in one place.
///
/// - Colour: never with `--no-color`, when writing to a file, or when `NO_COLOR` is set (to
///   anything); always when `FORCE_COLOR` is set to anything but `0` (and `NO_COLOR` is not);
///   otherwise only when standard output is a terminal.
/// - Progress (on standard error, rewritten in place): only when standard error is a terminal and
///   `CI` is not set (CI systems that give jobs a pseudo-terminal set it), and never with `--quiet`.
enum Terminal {
    static func env(_ name: String) -> String? {
        // getenv, not ProcessInfo's environment (which copies the whole environment each time).
        guard let c = getenv(name) else { return nil }
        let v = String(cString: c)
        return v.isEmpty ? nil : v
    }

    static func colorWanted(disabled: Bool = false, toFile: Bool = false) -> Bool {
        if disabled || toFile || env("NO_COLOR") != nil { return false }
        if let f = env("FORCE_COLOR"), f != "0", f.lowercased() != "false" { return true }
        return isatty(STDOUT_FILENO) == 1
    }

    static func progressWanted(quiet: Bool = false) -> Bool {
        if quiet { return false }
        if let ci = env("CI"), ci != "0", ci.lowercased() != "false" { return false }
        return isatty(STDERR_FILENO) == 1
    }
}

/// `--no-color` for the commands that write text and take no `CommonOptions`: their text is
/// coloured as `explain`'s is, under the same rules (`Terminal.colorWanted`).
struct ColorOption: ParsableArguments {
    @Flag(name: .long, help: "Never use color (color is on only on a terminal, off when NO_COLOR is set, on when FORCE_COLOR is set).")
    var noColor = false

    /// The style for text written to `output` (nil or `-`: standard output).
    func style(output: String?) -> Style {
        Style(enabled: Terminal.colorWanted(disabled: noColor, toFile: output.map { !OutputSink.isStandardOutput($0) } ?? false))
    }
}

/// Values the shells complete (`fspolicy --generate-completion-script bash|zsh|fish`).
enum Completions {
    /// The operation words a request may use (the administrator operations are for steps only).
    static let ops: [String] = Operation.allWords.filter { Operation(word: $0)?.isAdministrative != true }

    /// `--as`: the users and apps of the policy file already on the command line, if any.
    @Sendable static func subjects(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        guard let file = words.dropFirst().first(where: { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && FileManager.default.isReadableFile(atPath: $0) })
        else { return [] }
        let p = PolicyLoader.load(path: file, semanticsOverride: nil, host: .commandLine)
        let names = p.world.users.map(\.name) + p.world.apps.map(\.bundleID)
        return names.filter { $0.hasPrefix(prefix) && !$0.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true }) }
    }
}
