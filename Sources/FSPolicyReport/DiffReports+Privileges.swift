import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// `diff`'s words for a change of what a program gives or a directory passes on: one sentence
/// each, saying what changed and what it means for who runs the program or creates files there.
extension PrivilegeChange {
    /// `added`, `removed` or `changed`, or `new` for a path new in NEW.
    package var change: String {
        if isNew { return "new" }
        if before.isEmpty { return "added" }
        return after.isEmpty ? "removed" : "changed"
    }

    /// `/usr/bin/mycat`'s `set-user-ID root added (mode 0755 → 4755): anyone who may execute it
    /// runs it as root`.
    package var sentence: String {
        switch kind {
        case .setuid, .setgid: return setIDSentence
        case .capabilities: return capabilitiesSentence
        case .defaultACL:
            return aclSentence(
                what: "default ACL", newThing: "new directory with a default ACL", entries: before, after, quoted: false,
                who: "files created here", one: true)
        case .inheritableACEs:
            let who =
                reachesFiles && reachesFolders ? "files and folders created here" : reachesFolders ? "folders created here" : "files created here"
            return aclSentence(
                what: "inheritable ACEs", newThing: "new folder with inheritable ACEs", entries: before, after, quoted: true, who: who,
                one: false)
        }
    }

    var setIDSentence: String {
        let uidBit = kind == .setuid
        let bit = kind.rawValue
        let mode: String
        if let o = oldMode, let n = newMode, o != n { mode = "mode \(o.octal) → \(n.octal)" } else { mode = "mode \((newMode ?? oldMode)?.octal ?? "")" }
        let gets: String
        if isDirectory {
            gets = after.first.map { "entries created here take group \($0), and new folders the bit" } ?? "entries created here take their creator's group"
        } else if let who = after.first {
            gets = "anyone who may execute it runs it " + (uidBit ? "as \(who)" : "with group \(who)") + noEffect
        } else {
            gets = "it no longer runs " + (uidBit ? "as \(before[0])" : "with group \(before[0])")
        }
        let what: String
        switch change {
        case "new": what = "new \(isDirectory ? "directory with " : "")\(bit) \(after[0])\(isDirectory ? "" : " program")"
        case "added": what = "\(bit) \(after[0]) added"
        case "removed": what = "\(bit) \(before[0]) removed"
        default: what = "\(bit) \(before[0]) → \(after[0])"
        }
        return "\(what) (\(mode)): \(gets)"
    }

    /// `; but its mount is nosuid: …` when NEW's mount ignores what was added.
    var noEffect: String { nosuid ? " (but its mount is nosuid: there it gives nothing)" : "" }

    var capabilitiesSentence: String {
        switch change {
        case "new": return "new program with capabilities \(after[0]): " + PrivilegeChange.effect(newCaps) + noEffect
        case "added": return "capabilities \(after[0]) added: " + PrivilegeChange.effect(newCaps) + noEffect
        case "removed": return "capabilities \(before[0]) removed: who runs it no longer gains them"
        default: return "capabilities \(before[0]) → \(after[0]): " + PrivilegeChange.effect(newCaps) + noEffect
        }
    }

    /// What who runs a program with these file capabilities may do.
    static func effect(_ caps: FileCapabilities?) -> String {
        guard let caps else { return "" }
        guard !caps.permitted.isEmpty else { return "who runs it gains them only if it holds them as inheritable already" }
        var phrases: [String] = []
        for i in 0..<64 where caps.permitted.rawValue & (1 << UInt64(i)) != 0 {
            let name = i < Capabilities.names.count ? Capabilities.names[i] : "cap_\(i)"
            phrases.append(capabilityWords[name] ?? "use " + name.uppercased())
        }
        var s = "who runs it may " + (caps.effective ? "" : "(once the program raises them) ")
        s += phrases.count < 2 ? phrases.joined() : phrases.dropLast().joined(separator: ", ") + " and " + phrases.last!
        if let r = caps.rootUID, r != 0 { s += " (only in the user namespace whose root is uid \(r))" }
        return s
    }

    /// What a capability lets a process do, in words (capabilities(7)).
    static let capabilityWords: [String: String] = [
        "cap_chown": "give any file to any owner", "cap_dac_override": "read and write any file and search any directory",
        "cap_dac_read_search": "read any file and search any directory", "cap_fowner": "change the mode, ACL and times of any file",
        "cap_fsetid": "keep set-ID bits on files it changes", "cap_kill": "signal any process", "cap_setgid": "take any group",
        "cap_setuid": "become any user", "cap_linux_immutable": "set and clear the immutable and append-only flags",
        "cap_net_bind_service": "listen on ports below 1024", "cap_net_admin": "configure the network", "cap_net_raw": "use raw sockets",
        "cap_sys_module": "load kernel modules", "cap_sys_rawio": "reach devices and memory directly", "cap_sys_ptrace": "trace and change any process",
        "cap_sys_admin": "mount file systems and administer the system", "cap_mknod": "create device files",
        "cap_setfcap": "give programs file capabilities"
    ]

    /// A sentence about a set of ACL entries: named ones shown when it was added or removed as
    /// a whole (the others are the mode's), the entries that differ when it changed.
    func aclSentence(what: String, newThing: String, entries old: [String], _ new: [String], quoted: Bool, who: String, one: Bool) -> String {
        func list(_ es: [String]) -> String { es.map { quoted ? "\"\($0)\"" : $0 }.joined(separator: ", ") }
        func shown(_ es: [String]) -> [String] {
            let named = es.filter { e in !(e.hasPrefix("user::") || e.hasPrefix("group::") || e.hasPrefix("mask::") || e.hasPrefix("other::")) }
            return named.isEmpty ? es : named
        }
        let it = one ? "it" : "them"
        switch change {
        case "new": return "\(newThing) (\(list(shown(new)))): \(who) get \(it)"
        case "added": return "\(what) added (\(list(shown(new)))): \(who) get \(it)"
        case "removed": return "\(what) removed (\(list(shown(old)))): \(who) no longer get \(it)"
        default:
            let added = new.filter { !old.contains($0) }, removed = old.filter { !new.contains($0) }
            var parts: [String] = []
            if !added.isEmpty { parts.append("added " + list(added)) }
            if !removed.isEmpty { parts.append("removed " + list(removed)) }
            if parts.isEmpty { parts.append("reordered") }
            return "\(what) changed (\(parts.joined(separator: "; "))): \(who) get the new \(one ? "one" : "ones")"
        }
    }

    /// The JSON of one change.
    package var json: JSON {
        var f: [(String, JSON)] = [
            ("path", .string(path)), ("kind", .string(kind.rawValue)), ("change", .string(change)),
            ("before", .array(before.map { .string($0) })), ("after", .array(after.map { .string($0) }))
        ]
        if kind == .setuid || kind == .setgid {
            f.append(("mode", .object([("old", oldMode.map { .string($0.octal) } ?? .null), ("new", newMode.map { .string($0.octal) } ?? .null)])))
        }
        f.append(("text", .string(sentence)))
        return .object(f)
    }
}

extension DiffReport {
    /// The text section: a heading, then one indented line per change.
    func privilegeSection(write: (String) -> Void) {
        guard !privilegeChanges.isEmpty else { return }
        write("privileges and inheritance:\n")
        for c in privilegeChanges { write("  " + safe(c.path) + ": " + safe(c.sentence) + "\n") }
    }

    /// `; 2 change(s) of privileges or inheritance` for the last line, empty when there is none.
    var privilegeCount: String {
        privilegeChanges.isEmpty ? "" : "; \(privilegeChanges.count) change(s) of privileges or inheritance"
    }

    /// The SARIF rules of these changes (none when there is no such change).
    var privilegeRules: [JSON] {
        guard !privilegeChanges.isEmpty else { return [] }
        return [
            Reports.sarifRule("privilege-gained", "A program now gives more, or a directory passes on new entries"),
            Reports.sarifRule("privilege-lost", "A program no longer gives, or a directory no longer passes on, what it did")
        ]
    }

    /// The SARIF result of one change (`privilege-gained` a warning, `privilege-lost` a note).
    func privilegeResult(_ c: PrivilegeChange) -> JSON {
        let lost = c.change == "removed"
        let l = newPolicy.nodeLocation(c.path)
        return Reports.sarifResult(
            rule: lost ? "privilege-lost" : "privilege-gained", level: lost ? "note" : "warning", text: c.path + ": " + c.sentence, uri: newFile,
            line: l?.line ?? 0, column: l?.column ?? 0)
    }
}
