import FSPolicy
import Foundation
import FSPolicyYAML

/// ACLs of the tree and of requests: macOS ACEs and POSIX ACL entries, with the cache of
/// ACLs already read in a tree.
extension Compiler {
    /// The text of an ACL given as a list of strings, with `extra` (what else the result
    /// depends on: the mode's bits, access or default), as a key for `aclCache`; nil for any
    /// other shape. Within one tree the users, groups and rule set do not change.
    func aclCacheKey(_ n: YNode, _ extra: [UInt8]) -> [UInt8]? {
        // Each entry's length (four bytes) and bytes: no two lists of entries share a key.
        func add(_ key: inout [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: bytes)
        }
        do {
            let d = n.doc, i = n.index
            // The entries' bytes straight from the text, without a node list or strings.
            let seq = d.nodes[Int(i)]
            guard seq.kind == 2, seq.b > 0 else { return nil }
            var key = extra
            for c in Int(seq.a)..<Int(seq.a + seq.b) {
                // (Not a scalar: no bytes, nil.)
                guard !YNode(fast: d, d.children[c]).isNull, d.withScalarBytes(d.children[c], { add(&key, $0) }) != nil else { return nil }
            }
            return key
        }
        guard let items = n.sequence, !items.isEmpty else { return nil }
        var key = extra
        for it in items {
            guard var s = it.scalar, !it.isNull else { return nil }
            s.withUTF8 { add(&key, $0) }
        }
        return key
    }

    mutating func readACL(
        _ n: YNode, path: String, resolver: ACENameResolver, mac: inout ACL?, posix: inout POSIXACL?,
        aceLocs: inout [SourceLocation], isDefault: Bool, modeGroup: RWX?, modeOwnerOther: (RWX, RWX)? = nil
    ) {
        // A list of entries, or one multi-line string (getfacl output).
        var items: [(String, SourceLocation, YNode, Int)] = []
        if let s = n.scalar, !n.isNull {
            var line = 0
            for l in s.split(separator: "\n", omittingEmptySubsequences: false) {
                var loc = n.loc
                if n.isQuoted || s.contains("\n") { loc.line += line + (n.isQuoted ? 0 : 1); loc.column = n.isQuoted ? loc.column + 1 : loc.column + 2 }
                let t = String(l)
                if !t.trimmingCharacters(in: .whitespaces).isEmpty && !t.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                    items.append((t, loc, n, -1))
                }
                line += 1
            }
        } else if let list = r.list(n, what: "`acl` of `\(path)`") {
            for it in list {
                if let s = r.string(it, what: "an ACL entry") { items.append((s, it.loc, it, 0)) }
            }
        } else {
            return
        }
        if items.isEmpty {
            if isDefault { return }
            if p.semantics == .linux {
                r.diags.error(
                    n.loc, code: "bad-acl", "an empty POSIX ACL is not valid", help: "give at least `user::`, `group::` and `other::`, or remove `acl`")
            } else {
                mac = ACL([])
            }
            return
        }
        if p.semantics == .linux,
            let mac = items.first(where: { !POSIXACLLine.looksLikeGetfacl($0.0) && ($0.0.contains(" allow ") || $0.0.contains(" deny ")) })
        {
            r.diags.error(
                mac.1, code: "mac-ace-under-linux", "`\(mac.0)` is a macOS ACE; Linux has POSIX ACLs only",
                help: "write getfacl entries such as `user:bob:r--` (with `mask::` and the base entries), or use `semantics: macos`")
            return
        }
        let getfacl = isDefault || p.semantics == .linux || items.allSatisfy { POSIXACLLine.looksLikeGetfacl($0.0) }
        if !getfacl {
            var entries: [ACE] = []
            for (text, loc, node, _) in items {
                if POSIXACLLine.looksLikeGetfacl(text) {
                    r.diags.error(
                        loc, code: "mixed-acl", "a getfacl entry `\(text)` in a list of macOS ACEs",
                        help: "write all entries in one style: `user:bob allow read` (macOS) or `user:bob:r--` (POSIX)")
                    continue
                }
                switch ACE.parse(text, resolver: resolver) {
                case .success(let ace): entries.append(ace); aceLocs.append(loc)
                case .failure(let e):
                    var l = loc
                    if node.scalar == text { l = node.location(atOffset: e.offset) }
                    r.diags.error(l, code: "bad-ace", e.message + " in ACE `\(text)`", help: e.help)
                }
            }
            mac = ACL(entries)
            return
        }
        var access: [POSIXACLLine] = []
        var defaults: [POSIXACLLine] = []
        var ok = true
        for (text, loc, node, _) in items {
            switch POSIXACLLine.parse(text, user: { [userNames] in userNames[$0] }, group: { [groupNames] in groupNames[$0] }) {
            case .success(let line?):
                if line.isDefault && !isDefault {
                    defaults.append(line)
                } else {
                    (isDefault ? { defaults.append(line) } : { access.append(line) })()
                }
            case .success(nil): break
            case .failure(let e):
                ok = false
                var l = loc
                if node.scalar == text { l = node.location(atOffset: e.offset) }
                let hint =
                    e.message.hasPrefix("unknown user") || e.message.hasPrefix("unknown group") ? "declare it under `users`/`groups`, or use a number" : e.help
                r.diags.error(l, code: "bad-acl", e.message + " in `\(text)`", help: hint)
            }
        }
        guard ok else { return }
        if !access.isEmpty {
            switch POSIXACL.build(access) {
            case .success(let a):
                posix = a.isMinimal ? nil : a
                if let m = modeOwnerOther {
                    for (entry, acl, bits) in [("user::", a.userObj, m.0), ("other::", a.other, m.1)] where acl != bits {
                        let at =
                            items.first {
                                $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry)
                                    || $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry.prefix(1) + "::")
                            }?.1 ?? n.loc
                        r.diags.error(
                            at, code: "mask-mismatch",
                            "`\(entry)\(acl.text)` disagrees with the \(entry == "user::" ? "owner" : "other") bits `\(bits.text)` of the mode of `\(path)`",
                            help: "the mode and the ACL's `\(entry)` entry are the same bits: make them agree")
                    }
                }
                if let g = modeGroup, a.groupClass != g {
                    let entry = a.mask != nil ? "mask::" : "group::"
                    let at =
                        items.first {
                            $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry)
                                || $0.0.trimmingCharacters(in: .whitespaces).hasPrefix(entry.prefix(1) + "::")
                        }?.1 ?? n.loc
                    let digit = String(a.groupClass.rawValue)
                    r.diags.error(
                        at, code: "mask-mismatch",
                        "`\(entry)\(a.groupClass.text)` disagrees with the group bits `\(g.text)` of the mode of `\(path)`",
                        help:
                            "with an ACL the mode's group digit is the \(a.mask != nil ? "mask" : "group entry"): make it \(digit) (`\(a.groupClass.text)`), or change `\(entry)` to `\(g.text)`"
                    )
                }
                for l in access where l.effective != nil {
                    let base: RWX
                    switch l.tag {
                    case .user(let id): base = a.users.first { $0.id == id }!.perms
                    case .group(let id): base = a.groups.first { $0.id == id }!.perms
                    case .groupObj: base = a.groupObj
                    default: base = l.perms
                    }
                    let want = a.mask.map { base.intersection($0) } ?? base
                    if want != l.effective! {
                        r.diags.error(
                            n.loc, code: "effective-mismatch",
                            "`#effective:\(l.effective!.text)` on `\(path)` does not match the entries (they give `\(want.text)`)",
                            help: "the comment is only checked, never used; fix or remove it")
                    }
                }
            case .failure(let e):
                r.diags.error(
                    n.loc, code: "bad-acl", "invalid POSIX ACL on `\(path)`: \(e.message)",
                    help: "a POSIX ACL needs `user::`, `group::`, `other::`, and `mask::` once it has named entries")
            }
        }
        if !defaults.isEmpty {
            switch POSIXACL.build(defaults) {
            case .success(let a):
                if isDefault {
                    posix = a
                } else {
                    r.diags.error(
                        n.loc, code: "default-in-acl", "`default:` entries belong under `defaultAcl` of `\(path)`",
                        help: "move them to `defaultAcl:`")
                }
            case .failure(let e):
                r.diags.error(
                    n.loc, code: "bad-acl", "invalid default ACL on `\(path)`: \(e.message)",
                    help: "a POSIX ACL needs `user::`, `group::`, `other::`, and `mask::` once it has named entries")
            }
        }
    }
}
