#if os(Linux)
    import FSPolicy
    import Foundation

    /// Turns the log of `strace -f -s 4096 -o LOG` into a policy's steps and expectations, in
    /// the order the calls were made: a call that succeeded and changes the world is a step, one
    /// that succeeded and changes nothing an expectation `result: allow`, one that failed an
    /// expectation `result: deny` with its errno (`after:` the steps before it). Each call is
    /// asked as the process that made it: its uid, its supplementary groups once a `setgroups`
    /// set them, its umask. Only calls on absolute paths under `root` are translated; others
    /// (the loader's, the shell's PATH search) are left out and counted.
    ///
    /// Translated: open, openat, creat (`op: open` with the flags that change a check), mkdir,
    /// mkdirat, link, linkat (without AT_SYMLINK_FOLLOW), symlink, symlinkat, mknod and mknodat of
    /// a FIFO (`mkfifo`) or a block or character device (`mknod` with `type:`), rename, renameat, renameat2 (RENAME_NOREPLACE is
    /// `rename` unless it answered EEXIST), unlink, unlinkat (AT_REMOVEDIR: `rmdir`), rmdir,
    /// stat, lstat, newfstatat, statx, chmod, fchmodat (without flags), chown, lchown, fchownat
    /// with their two ids (`chown`, `lchown`, each id or -1; owner -1 alone is `chgrp`), utimensat
    /// (`touch` for NULL times, else `settimes` with `atime:`/`mtime:` each `set`, `now` or
    /// `omit`), chdir (`search`).
    ///
    /// Not translated (each counted under its name): fchmodat2 with AT_SYMLINK_NOFOLLOW (`lchmod`:
    /// this machine's strace prints the call as an unknown system call, its path as an address),
    /// utimensat of a symlink itself, access/faccessat (the real uid), truncate, the xattr calls, execve, and every call
    /// relative to a directory descriptor other than AT_FDCWD.
    struct StraceTranslator {
        struct Cred {
            var uid: UInt32 = 0
            var gid: UInt32 = 0
            var groups: [UInt32]? = nil
            var umask: UInt16 = 0o022
        }

        /// One system call, its arguments split at the top level, and its answer.
        struct Call {
            var line: Int
            var pid: Int
            var name: String
            var args: [String]
            /// nil: it succeeded; else the errno name.
            var errno: String?
            var value: Int
        }

        let root: String
        var creds: [Int: Cred] = [:]
        var parentOf: [Int: Int] = [:]
        var first: Cred
        private(set) var steps: [String] = []
        private(set) var expectations: [String] = []
        /// Calls on paths under `root` that were not translated, by syscall name.
        private(set) var skipped: [String: Int] = [:]
        /// Translated calls by the op they became.
        private(set) var byOp: [String: Int] = [:]

        init(root: String, startingAs cred: Cred) {
            self.root = root
            first = cred
        }

        // MARK: Reading the log

        /// The calls of a log, with `<unfinished ...>` and `<... resumed>` halves joined.
        static func calls(_ log: String) -> [Call] {
            var pending: [Int: String] = [:]
            var out: [Call] = []
            for (i, raw) in log.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
                var text = String(raw)
                let pidEnd = text.firstIndex(of: " ") ?? text.startIndex
                guard let pid = Int(text[..<pidEnd]) else { continue }
                text = text[pidEnd...].trimmingCharacters(in: .whitespaces)
                if text.hasSuffix("<unfinished ...>") {
                    pending[pid] = String(text.dropLast("<unfinished ...>".count)).trimmingCharacters(in: .whitespaces)
                    continue
                }
                if text.hasPrefix("<... "), let close = text.range(of: " resumed>") {
                    text = (pending.removeValue(forKey: pid) ?? "") + text[close.upperBound...]
                }
                if let c = parse(text, pid: pid, line: i + 1) { out.append(c) }
            }
            return out
        }

        /// `name(args) = value [ERRNO (text)]`; strace pads short calls with spaces before `=`.
        static func parse(_ text: String, pid: Int, line: Int) -> Call? {
            guard let eq = text.range(of: " = ", options: .backwards) else { return nil }
            let head = text[..<eq.lowerBound].trimmingCharacters(in: .whitespaces)
            guard head.hasSuffix(")"), let open = head.firstIndex(of: "(") else { return nil }
            let name = String(head[..<open])
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
            let argText = String(head[head.index(after: open)..<head.index(before: head.endIndex)])
            let answer = text[eq.upperBound...].split(separator: " ")
            guard let first = answer.first, let value = Int(first) else { return nil }
            let errno = value < 0 && answer.count > 1 ? String(answer[1]) : nil
            return Call(line: line, pid: pid, name: name, args: splitArgs(argText), errno: errno, value: value)
        }

        /// Arguments split at top-level commas: not inside quotes, `[]`, `{}` or `()`.
        static func splitArgs(_ s: String) -> [String] {
            var out: [String] = []
            var cur = ""
            var depth = 0
            var quoted = false
            var escaped = false
            for ch in s {
                if quoted {
                    cur.append(ch)
                    if escaped { escaped = false } else if ch == "\\" { escaped = true } else if ch == "\"" { quoted = false }
                    continue
                }
                switch ch {
                case "\"": quoted = true; cur.append(ch)
                case "[", "{", "(": depth += 1; cur.append(ch)
                case "]", "}", ")": depth -= 1; cur.append(ch)
                case "," where depth == 0: out.append(cur.trimmingCharacters(in: .whitespaces)); cur = ""
                default: cur.append(ch)
                }
            }
            if !cur.trimmingCharacters(in: .whitespaces).isEmpty { out.append(cur.trimmingCharacters(in: .whitespaces)) }
            return out
        }

        /// The text of a quoted argument (`"/a/b"`), with strace's escapes for `"` and `\`.
        static func string(_ arg: String) -> String? {
            guard arg.count >= 2, arg.hasPrefix("\""), arg.hasSuffix("\"") else { return nil }
            return String(arg.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
        }

        static func words(_ arg: String) -> [String] { arg.split(separator: "|").map(String.init) }

        // MARK: Translating

        mutating func translate(_ log: String) {
            let all = StraceTranslator.calls(log)
            // Who made whom, first: with `-f` a child's first calls may be logged before its
            // parent's fork returns.
            for c in all where ["clone", "clone3", "fork", "vfork"].contains(c.name) && c.errno == nil && c.value > 0 { parentOf[c.value] = c.pid }
            for c in all { translate(c) }
        }

        /// The credential of process `pid`: its own once seen, else its parent's (a child
        /// inherits them at fork).
        mutating func cred(_ pid: Int) -> Cred {
            if let c = creds[pid] { return c }
            var c = first
            if let parent = parentOf[pid] { c = cred(parent) }
            creds[pid] = c
            return c
        }

        mutating func translate(_ c: Call) {
            var me = cred(c.pid)
            func id(_ i: Int) -> UInt32? { c.args.count > i ? UInt32(c.args[i]) : nil }
            switch c.name {
            case "clone", "clone3", "fork", "vfork":
                if c.errno == nil && c.value > 0 && creds[c.value] == nil { creds[c.value] = me }
                return
            case "setuid": if c.errno == nil, let u = id(0) { me.uid = u }
            case "setreuid", "setresuid": if c.errno == nil, let u = id(1) { me.uid = u }
            case "setgid": if c.errno == nil, let g = id(0) { me.gid = g }
            case "setregid", "setresgid": if c.errno == nil, let g = id(1) { me.gid = g }
            case "setgroups":
                if c.errno == nil, c.args.count == 2 {
                    me.groups = c.args[1].trimmingCharacters(in: CharacterSet(charactersIn: "[]")).split(separator: ",").compactMap {
                        UInt32($0.trimmingCharacters(in: .whitespaces))
                    }
                }
            case "umask": if c.errno == nil, let m = UInt16(c.args.first ?? "", radix: 8) { me.umask = m }
            default:
                translateFileCall(c, me)
                return
            }
            creds[c.pid] = me
        }

        /// A path argument under `root`, or nil (then the call is not ours).
        func path(_ c: Call, _ i: Int) -> String? {
            guard c.args.count > i, let p = StraceTranslator.string(c.args[i]), p == root || p.hasPrefix(root + "/") else { return nil }
            return p
        }

        /// Whether the directory-descriptor argument `i` is AT_FDCWD.
        func cwd(_ c: Call, _ i: Int) -> Bool { c.args.count > i && c.args[i] == "AT_FDCWD" }

        mutating func translateFileCall(_ c: Call, _ me: Cred) {
            var fields: [(String, String)] = []
            var op = ""
            var changes = c.errno == nil
            func skip() { if c.args.contains(where: { StraceTranslator.string($0).map { $0.hasPrefix(root) } ?? false }) { skipped[c.name, default: 0] += 1 } }
            func q(_ s: String) -> String { "\"" + s + "\"" }
            func mode(_ arg: String) -> String? {
                let digits = StraceTranslator.words(arg).last ?? ""
                guard let m = UInt16(digits, radix: 8) else { return nil }
                return q("0" + String(m & 0o7777, radix: 8))
            }
            switch c.name {
            case "open", "openat", "creat":
                let base = c.name == "openat" ? 1 : 0
                guard c.name != "openat" || cwd(c, 0), let p = path(c, base) else { return skip() }
                var flags: [String] = []
                let given =
                    c.name == "creat" ? ["O_WRONLY", "O_CREAT", "O_TRUNC"] : StraceTranslator.words(c.args.count > base + 1 ? c.args[base + 1] : "O_RDONLY")
                for w in given where !OpenFlags.ignoredWords.contains(w) {
                    guard OpenFlags.named(w) != nil else { return skip() }
                    flags.append(w)
                }
                op = "open"
                fields = [("path", q(p)), ("flags", "[" + flags.joined(separator: ", ") + "]")]
                if flags.contains("O_CREAT"), c.args.count > base + 2, let m = mode(c.args[base + 2]) { fields.append(("mode", m)) }
                changes = changes && (flags.contains("O_CREAT") || flags.contains("O_TRUNC")) && !flags.contains("O_PATH")
            case "mkdir", "mkdirat":
                let base = c.name == "mkdirat" ? 1 : 0
                guard c.name == "mkdir" || cwd(c, 0), let p = path(c, base) else { return skip() }
                op = "mkdir"
                fields = [("path", q(p))]
                if c.args.count > base + 1, let m = mode(c.args[base + 1]) { fields.append(("mode", m)) }
            case "link", "linkat":
                let (a, b) = c.name == "link" ? (0, 1) : (1, 3)
                guard c.name == "link" || (cwd(c, 0) && cwd(c, 2) && (c.args.count < 5 || c.args[4] == "0")), let p = path(c, a), let t = path(c, b) else {
                    return skip()
                }
                op = "link"
                fields = [("path", q(p)), ("to", q(t))]
            case "symlink", "symlinkat":
                let at = c.name == "symlink" ? 1 : 2
                guard c.name == "symlink" || cwd(c, 1), let p = path(c, at), let target = StraceTranslator.string(c.args[0]) else { return skip() }
                op = "symlink"
                fields = [("path", q(p)), ("to", q(target))]
            case "mknod", "mknodat":
                let base = c.name == "mknodat" ? 1 : 0
                guard c.name == "mknod" || cwd(c, 0), let p = path(c, base), c.args.count > base + 1 else { return skip() }
                let kind = StraceTranslator.words(c.args[base + 1]).first ?? ""
                guard kind == "S_IFIFO" || kind == "S_IFCHR" || kind == "S_IFBLK" else { return skip() }
                op = kind == "S_IFIFO" ? "mkfifo" : "mknod"
                fields = [("path", q(p))]
                if op == "mknod" { fields.append(("type", kind == "S_IFBLK" ? "block" : "char")) }
                if let m = mode(c.args[base + 1]) { fields.append(("mode", m)) }
            case "rename", "renameat", "renameat2":
                let (a, b) = c.name == "rename" ? (0, 1) : (1, 3)
                let noReplace = c.name == "renameat2" && c.args.count > 4 && c.args[4] == "RENAME_NOREPLACE"
                let plain = c.name != "renameat2" || c.args.count < 5 || c.args[4] == "0" || (noReplace && c.errno != "EEXIST")
                guard plain, c.name == "rename" || (cwd(c, 0) && cwd(c, 2)), let p = path(c, a), let t = path(c, b) else { return skip() }
                op = "rename"
                fields = [("path", q(p)), ("to", q(t))]
            case "unlink", "rmdir":
                guard let p = path(c, 0) else { return skip() }
                op = c.name
                fields = [("path", q(p))]
            case "unlinkat":
                guard cwd(c, 0), let p = path(c, 1), c.args.count > 2 else { return skip() }
                op = c.args[2] == "AT_REMOVEDIR" ? "rmdir" : c.args[2] == "0" ? "unlink" : ""
                guard !op.isEmpty else { return skip() }
                fields = [("path", q(p))]
            case "stat", "lstat", "newfstatat", "statx":
                let base = c.name == "stat" || c.name == "lstat" ? 0 : 1
                guard base == 0 || cwd(c, 0), let p = path(c, base) else { return skip() }
                let flagArg = c.name == "newfstatat" ? 3 : c.name == "statx" ? 2 : -1
                let nofollow = c.name == "lstat" || (flagArg > 0 && c.args.count > flagArg && c.args[flagArg].contains("AT_SYMLINK_NOFOLLOW"))
                op = nofollow ? "lstat" : "stat"
                fields = [("path", q(p))]
                changes = false
            case "chmod", "fchmodat":
                let base = c.name == "fchmodat" ? 1 : 0
                guard c.name == "chmod" || (cwd(c, 0) && (c.args.count < 4 || c.args[3] == "0")), let p = path(c, base), c.args.count > base + 1,
                    let m = mode(c.args[base + 1])
                else { return skip() }
                op = "chmod"
                fields = [("path", q(p)), ("mode", m)]
            case "chown", "lchown", "fchownat":
                let base = c.name == "fchownat" ? 1 : 0
                guard c.name != "fchownat" || cwd(c, 0), let p = path(c, base), c.args.count > base + 2 else { return skip() }
                let nofollow = c.name == "lchown" || (c.name == "fchownat" && c.args.count > 4 && c.args[4].contains("AT_SYMLINK_NOFOLLOW"))
                let owner = c.args[base + 1], group = c.args[base + 2]
                if owner == "-1" && group != "-1" && !nofollow {
                    op = "chgrp"
                    fields = [("path", q(p)), ("group", group)]
                } else {
                    // chown(2)'s two ids, each -1 for no change (O27).
                    op = nofollow ? "lchown" : "chown"
                    fields = [("path", q(p)), ("owner", owner), ("group", group)]
                }
            case "utimensat":
                // utimensat(AT_FDCWD, path, times, flags): NULL is `touch`; each time UTIME_NOW,
                // UTIME_OMIT or a given time (O26). A symlink's own times are not a request.
                guard cwd(c, 0), let p = path(c, 1), c.args.count > 3, !c.args[3].contains("AT_SYMLINK_NOFOLLOW") else { return skip() }
                if c.args[2] == "NULL" {
                    op = "touch"
                    fields = [("path", q(p))]
                } else {
                    let inner = c.args[2].dropFirst().dropLast()
                    let times = StraceTranslator.splitArgs(String(inner)).map { $0.contains("UTIME_NOW") ? "now" : $0.contains("UTIME_OMIT") ? "omit" : "set" }
                    guard times.count == 2 else { return skip() }
                    op = "settimes"
                    fields = [("path", q(p)), ("atime", times[0]), ("mtime", times[1])]
                }
            case "chdir":
                guard let p = path(c, 0) else { return skip() }
                op = "search"
                fields = [("path", q(p))]
                changes = false
            default:
                return skip()
            }
            if let e = c.errno, Errno(rawValue: e) == nil { return skip() }
            byOp[op, default: 0] += 1
            var entry = [("as", String(me.uid)), ("op", op)] + fields
            if let g = me.groups { entry.append(("groups", "[" + g.map(String.init).joined(separator: ", ") + "]")) }
            if changes && ["open", "mkdir", "mkfifo", "mknod"].contains(op) { entry.append(("umask", q("0" + String(me.umask, radix: 8)))) }
            if changes {
                steps.append("  - {" + (entry + [("name", q("log line \(c.line): \(c.name)"))]).map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}")
            } else {
                entry.append(("result", c.errno == nil ? "allow" : "deny"))
                if let e = c.errno { entry.append(("errno", e)) }
                entry += [("after", String(steps.count)), ("name", q("log line \(c.line): \(c.name)"))]
                expectations.append("  - {" + entry.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}")
            }
        }

        /// The steps and expectations, as the YAML to append to a policy file.
        var yaml: String {
            (steps.isEmpty ? "" : "steps:\n" + steps.joined(separator: "\n") + "\n")
                + (expectations.isEmpty ? "" : "expect:\n" + expectations.joined(separator: "\n") + "\n")
        }
    }
#endif
