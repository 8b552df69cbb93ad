import FSPolicy
import FSPolicyYAML

extension Compiler {
    /// `flags:` of `open`: open(2) flag words (O21). One access mode at most; O_PATH only under
    /// linux; the flags that change no check are refused with a hint, so that a policy says
    /// only what the kernel looks at.
    mutating func readOpenFlags(_ x: YNode) -> OpenFlags? {
        guard let list = r.stringList(x, what: "`flags`") else { return nil }
        var f: OpenFlags = []
        var modes: [String] = []
        var ok = true
        for (w, node) in list {
            let word = w.uppercased()
            if let fl = OpenFlags.named(word) {
                if ["O_RDONLY", "O_WRONLY", "O_RDWR"].contains(word) {
                    modes.append(word)
                    if modes.count == 2 {
                        r.diags.error(
                            node.loc, code: "conflicting-keys", "`flags` gives two access modes, `\(modes[0])` and `\(word)`",
                            help: "an open has one access mode: O_RDONLY, O_WRONLY or O_RDWR")
                        ok = false
                    }
                }
                if fl == .path && p.semantics != .linux {
                    r.diags.error(
                        node.loc, code: "not-for-macos", "`O_PATH` is Linux's: macOS has no such open flag",
                        help: "under `\(p.semantics.rawValue)`, ask `stat` or `lstat` for what a path lookup alone allows")
                    ok = false
                }
                f.formUnion(fl)
            } else if OpenFlags.ignoredWords.contains(word) {
                r.diags.error(
                    node.loc, code: "bad-flag", "`\(word)` changes nothing the kernel checks: leave it out of `flags`",
                    help: "the open flags fspolicy reads: " + OpenFlags.words.map(\.0).joined(separator: ", "))
                ok = false
            } else {
                r.diags.error(
                    node.loc, code: "bad-flag", "unknown open flag `\(w)`",
                    help: nearest(word, in: OpenFlags.words.map(\.0)).map { "did you mean `\($0)`?" }
                        ?? "the open flags: " + OpenFlags.words.map(\.0).joined(separator: ", "))
                ok = false
            }
        }
        return ok ? f : nil
    }
}
