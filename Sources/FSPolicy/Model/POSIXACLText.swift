/// getfacl text for POSIX ACLs: `user::rwx`, `user:bob:r-x`, `group::r-x`, `group:staff:rwx`,
/// `mask::rwx`, `other::---`, with optional `default:` prefixes, single-letter tags, and
/// trailing `#effective:` comments.
public struct POSIXACLLine: Hashable, Sendable {
    public enum Tag: Hashable, Sendable { case userObj, user(UInt32), groupObj, group(UInt32), mask, other }
    public var tag: Tag
    public var perms: RWX
    public var isDefault: Bool
    /// The `#effective:` value printed by getfacl, if any (checked, never trusted).
    public var effective: RWX?
    public init(tag: Tag, perms: RWX, isDefault: Bool, effective: RWX?) {
        self.tag = tag
        self.perms = perms
        self.isDefault = isDefault
        self.effective = effective
    }
}

public struct POSIXACLTextError: Error, Hashable, Sendable {
    public var offset: Int
    public var length: Int
    public var message: String
    public var help: String?
}

extension POSIXACLLine {
    /// True when `text` looks like a getfacl line rather than a macOS ACE.
    public static func looksLikeGetfacl(_ text: String) -> Bool {
        var t = Substring(text)
        if t.hasPrefix("default:") { t = t.dropFirst(8) } else if t.hasPrefix("d:") { t = t.dropFirst(2) }
        let parts = t.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        let tags = ["user", "group", "mask", "other", "u", "g", "m", "o"]
        guard tags.contains(String(parts[0])) else { return false }
        let perm = parts[2].prefix { $0 != " " && $0 != "\t" && $0 != "#" }
        return perm.count <= 3 && perm.allSatisfy { "rwx-".contains($0) } && !perm.isEmpty
    }

    public static func parse(_ text: String, user: (String) -> UInt32?, group: (String) -> UInt32?) -> Result<POSIXACLLine?, POSIXACLTextError> {
        var body = Substring(text)
        var effective: RWX? = nil
        var commentAt = -1
        if let hash = body.firstIndex(of: "#") {
            let comment = body[body.index(after: hash)...].trimmingSpaces
            commentAt = body.distance(from: body.startIndex, to: hash)
            body = body[..<hash]
            if comment.hasPrefix("effective:") {
                let e = comment.dropFirst("effective:".count)
                guard let r = parsePerms(e) else {
                    return .failure(
                        POSIXACLTextError(
                            offset: commentAt, length: comment.count + 1,
                            message: "bad `#effective:` value `\(e)`", help: "it is three characters of `rwx-`"))
                }
                effective = r
            }
        }
        let trimmed = body.trimmingSpaces
        if trimmed.isEmpty { return .success(nil) }
        let lead = body.prefix { $0 == " " || $0 == "\t" }.count
        var t = trimmed
        var isDefault = false
        var off = lead
        if t.hasPrefix("default:") {
            isDefault = true; t = t.dropFirst(8); off += 8
        } else if t.hasPrefix("d:") {
            isDefault = true; t = t.dropFirst(2); off += 2
        }
        let parts = t.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(
                POSIXACLTextError(
                    offset: off, length: t.count, message: "bad ACL entry `\(trimmed)`",
                    help: "entries look like `user:bob:r-x`, `group::r--`, `mask::rw-`, `other::---`"))
        }
        let tagWord = String(parts[0])
        let qual = String(parts[1])
        let qualOff = off + parts[0].count + 1
        let permOff = qualOff + parts[1].count + 1
        guard let perms = parsePerms(parts[2]) else {
            return .failure(
                POSIXACLTextError(
                    offset: permOff, length: parts[2].count, message: "bad permissions `\(parts[2])`",
                    help: "permissions are three characters of `rwx-`, e.g. `r-x`"))
        }
        let tag: Tag
        switch tagWord {
        case "user", "u":
            if qual.isEmpty {
                tag = .userObj
            } else if let u = user(qual) {
                tag = .user(u)
            } else if let n = numericID(qual) {
                tag = .user(n)
            } else {
                return .failure(POSIXACLTextError(offset: qualOff, length: qual.count, message: "unknown user `\(qual)` in ACL entry", help: nil))
            }
        case "group", "g":
            if qual.isEmpty {
                tag = .groupObj
            } else if let g = group(qual) {
                tag = .group(g)
            } else if let n = numericID(qual) {
                tag = .group(n)
            } else {
                return .failure(POSIXACLTextError(offset: qualOff, length: qual.count, message: "unknown group `\(qual)` in ACL entry", help: nil))
            }
        case "mask", "m":
            guard qual.isEmpty else {
                return .failure(POSIXACLTextError(offset: qualOff, length: qual.count, message: "`mask` takes no name", help: "write `mask::rwx`"))
            }
            tag = .mask
        case "other", "o":
            guard qual.isEmpty else {
                return .failure(POSIXACLTextError(offset: qualOff, length: qual.count, message: "`other` takes no name", help: "write `other::r--`"))
            }
            tag = .other
        default:
            return .failure(
                POSIXACLTextError(
                    offset: off, length: tagWord.count, message: "unknown ACL entry type `\(tagWord)`",
                    help: "use `user`, `group`, `mask` or `other`"))
        }
        return .success(POSIXACLLine(tag: tag, perms: perms, isDefault: isDefault, effective: effective))
    }

    static func parsePerms(_ s: Substring) -> RWX? {
        let p = s.trimmingSpaces
        guard !p.isEmpty, p.count <= 3 else { return nil }
        var r: RWX = []
        for ch in p {
            switch ch {
            case "r": if r.contains(.read) { return nil }; r.insert(.read)
            case "w": if r.contains(.write) { return nil }; r.insert(.write)
            case "x": if r.contains(.execute) { return nil }; r.insert(.execute)
            case "-": break
            default: return nil
            }
        }
        return r
    }
}

extension POSIXACL {
    /// Builds an ACL from parsed lines (all access or all default). Nil with a message when an
    /// entry is missing or repeated.
    public struct BuildError: Error, Sendable { public var message: String }

    public static func build(_ lines: [POSIXACLLine]) -> Result<POSIXACL, BuildError> {
        var uo: RWX? = nil, go: RWX? = nil, m: RWX? = nil, o: RWX? = nil
        var us: [Entry] = [], gs: [Entry] = []
        for l in lines {
            switch l.tag {
            case .userObj: if uo != nil { return .failure(BuildError(message: "`user::` appears twice")) }; uo = l.perms
            case .groupObj: if go != nil { return .failure(BuildError(message: "`group::` appears twice")) }; go = l.perms
            case .mask: if m != nil { return .failure(BuildError(message: "`mask::` appears twice")) }; m = l.perms
            case .other: if o != nil { return .failure(BuildError(message: "`other::` appears twice")) }; o = l.perms
            case .user(let id): us.append(Entry(id: id, perms: l.perms))
            case .group(let id): gs.append(Entry(id: id, perms: l.perms))
            }
        }
        guard let userObj = uo else { return .failure(BuildError(message: "the ACL has no `user::` entry")) }
        guard let groupObj = go else { return .failure(BuildError(message: "the ACL has no `group::` entry")) }
        guard let other = o else { return .failure(BuildError(message: "the ACL has no `other::` entry")) }
        do throws(Invalid) {
            return .success(try POSIXACL(userObj: userObj, users: us, groupObj: groupObj, groups: gs, mask: m, other: other))
        } catch {
            switch error {
            case .missingMask: return .failure(BuildError(message: "named entries need a `mask::` entry"))
            case .duplicateUser(let u): return .failure(BuildError(message: "user \(u) appears twice"))
            case .duplicateGroup(let g): return .failure(BuildError(message: "group \(g) appears twice"))
            }
        }
    }

    /// getfacl lines, in canonical order, with names from `user`/`group`.
    public func lines(prefix: String = "", user: (UInt32) -> String, group: (UInt32) -> String, effective: Bool = true) -> [String] {
        var out = [prefix + "user::" + userObj.text]
        func eff(_ p: RWX) -> String {
            guard effective, let m = mask else { return "" }
            let e = p.intersection(m)
            return e == p ? "" : "\t#effective:" + e.text
        }
        for u in users { out.append(prefix + "user:" + user(u.id) + ":" + u.perms.text + eff(u.perms)) }
        out.append(prefix + "group::" + groupObj.text + eff(groupObj))
        for g in groups { out.append(prefix + "group:" + group(g.id) + ":" + g.perms.text + eff(g.perms)) }
        if let m = mask { out.append(prefix + "mask::" + m.text) }
        out.append(prefix + "other::" + other.text)
        return out
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

extension POSIXACL {
    /// The rights an `r`, `w`, `x` bit stands for in an ACE.
    static func aceRights(_ p: RWX) -> AccessRights {
        var r: AccessRights = []
        if p.contains(.read) { r.formUnion([.readData, .readExtAttributes]) }
        if p.contains(.write) { r.formUnion([.writeData, .appendData, .deleteChild, .writeAttributes, .writeExtAttributes]) }
        if p.contains(.execute) { r.insert(.execute) }
        return r
    }

    /// The documented, lossy mapping of a POSIX access ACL to macOS ACEs (docs/semantics.md §L11),
    /// used when a Linux ACL is evaluated under `macos` or `guide`: each named user gets an
    /// allow of its effective bits (entry ∩ mask) and a deny of the rest, so that, as on Linux,
    /// its entry alone decides; each named group gets an allow of its effective bits. The
    /// `user::`, `group::` and `other::` entries are the mode bits and stay there. What cannot
    /// be expressed: Linux's "one group entry must cover the whole request" rule (ACE allows
    /// accumulate across groups) and the mask-`---` quirk.
    public func mappedACEs() -> ACL {
        let mask = self.mask ?? .all
        var entries: [ACE] = []
        for u in users {
            let eff = u.perms.intersection(mask)
            if !eff.isEmpty { entries.append(ACE(subject: .user(u.id), kind: .allow, rights: POSIXACL.aceRights(eff))) }
            let rest = RWX.all.subtracting(eff)
            if !rest.isEmpty { entries.append(ACE(subject: .user(u.id), kind: .deny, rights: POSIXACL.aceRights(rest))) }
        }
        for g in groups {
            let eff = g.perms.intersection(mask)
            if !eff.isEmpty { entries.append(ACE(subject: .group(g.id), kind: .allow, rights: POSIXACL.aceRights(eff))) }
        }
        return ACL(entries)
    }
}
