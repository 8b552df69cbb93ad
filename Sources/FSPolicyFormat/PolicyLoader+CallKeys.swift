import FSPolicy
import FSPolicyYAML

/// The word that stands for "no change" in `owner:` and `group:` of `chown` and `lchown`, as
/// `-1` does in chown(2).
let keepIDText = "-1"

extension Compiler {
    // MARK: The keys of one call: ids, times, the kind of device

    /// `owner` and `group` (`chown`, `lchown`: at least one, each a name, an id or `-1` for no
    /// change; `chgrp`: `group`), `atime` and `mtime` (`settimes`), and `type` (`mknod`: the
    /// kind of device node made).
    mutating func readCallKeys(_ k: [String: YNode], op: Operation, opWord: String, opNode ov: YNode, context: String, into spec: inout RequestSpec) {
        let chown = op == .chown || op == .lchown
        if let x = k["owner"] {
            if !chown {
                r.diags.error(x.loc, code: "unused-key", "`owner` has no meaning for `\(opWord)`", help: "`owner` goes with `chown` and `lchown`")
            } else if x.scalar != keepIDText {
                spec.owner = readOwner(x, what: "`owner` of \(context)")
            }
        }
        if let x = k["group"] {
            if !chown && op != .chgrp {
                r.diags.error(x.loc, code: "unused-key", "`group` has no meaning for `\(opWord)`", help: "`group` goes with `chown`, `lchown` and `chgrp`")
            } else if x.scalar == keepIDText {
                if op == .chgrp {
                    r.diags.error(
                        x.loc, code: "bad-value", "`chgrp` needs a group; `-1` (no change) goes with `chown`",
                        help: "for chown(2) with -1 for both ids write `op: chown, owner: -1, group: -1`")
                }
            } else {
                spec.group = readGroup(x, what: "`group` of \(context)")
            }
        }
        if chown && k["owner"] == nil && k["group"] == nil {
            r.diags.error(
                ov.loc, code: "missing-key", "`\(opWord)` needs `owner` or `group`",
                help: "add the new owner, e.g. `owner: bob`, or the new group; `-1` for either is no change")
        } else if op == .chgrp && k["group"] == nil {
            r.diags.error(ov.loc, code: "missing-key", "`chgrp` needs `group`", help: "add the new group, e.g. `group: staff`")
        }
        for key in ["atime", "mtime"] {
            guard let x = k[key] else { continue }
            guard op == .settimes else {
                r.diags.error(x.loc, code: "unused-key", "`\(key)` has no meaning for `\(opWord)`", help: "`\(key)` goes with `settimes`")
                continue
            }
            guard let w = r.string(x, what: "`\(key)`") else { continue }
            guard let t = TimeChange(word: w) else {
                let words = TimeChange.allCases.map(\.word)
                r.diags.error(
                    x.loc, code: "bad-value", "`\(key)` must be \(words.map { "`\($0)`" }.joined(separator: ", ")), found `\(w)`",
                    help: nearest(w, in: words).map { "did you mean `\($0)`?" } ?? "`now` is UTIME_NOW, `omit` UTIME_OMIT, `set` a given time")
                continue
            }
            if key == "atime" { spec.atime = t } else { spec.mtime = t }
        }
        if op == .mknod, let x = k["type"], let w = r.string(x, what: "`type`") {
            if let t = NodeType(word: w), t.isDevice {
                spec.deviceType = t
            } else {
                let words = NodeType.allCases.filter(\.isDevice).map(\.word)
                r.diags.error(
                    x.loc, code: "bad-value", "`mknod` makes a device node: `type` must be \(words.map { "`\($0)`" }.joined(separator: ", ")), found `\(w)`",
                    help: (nearest(w, in: words).map { "did you mean `\($0)`? " } ?? "")
                        + "a FIFO is `mkfifo`, a socket `socket`; `device` leaves the kind unsaid")
            }
        }
    }
}
