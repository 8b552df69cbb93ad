/// Who an ACE applies to (`kauth_ace_t.ace_applicable`, a GUID in XNU).
public enum ACESubject: Hashable, Sendable {
    case user(UID)
    case group(GID)
    /// `everyone` (EVERYBODY, gid 12): always applies.
    case everyone
    /// `owner@`: applies iff the caller owns the object.
    case owner
    /// `group@`: applies iff the caller is in the object's group.
    case owningGroup
}

public enum ACEKind: UInt8, Hashable, Sendable {
    case allow, deny
    public var word: String { self == .allow ? "allow" : "deny" }
}

/// ACE flag bits (`KAUTH_ACE_*`, kauth.h L585–651).
public struct ACEFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// `KAUTH_ACE_INHERITED` — set on copies made by inheritance; no effect on evaluation.
    public static let inherited = ACEFlags(rawValue: 1 << 4)
    /// `KAUTH_ACE_FILE_INHERIT` — copied to new files.
    public static let fileInherit = ACEFlags(rawValue: 1 << 5)
    /// `KAUTH_ACE_DIRECTORY_INHERIT` — copied to new directories.
    public static let directoryInherit = ACEFlags(rawValue: 1 << 6)
    /// `KAUTH_ACE_LIMIT_INHERIT` — the copy loses every inherit flag.
    public static let limitInherit = ACEFlags(rawValue: 1 << 7)
    /// `KAUTH_ACE_ONLY_INHERIT` — ignored when evaluating this object.
    public static let onlyInherit = ACEFlags(rawValue: 1 << 8)

    public static let inheritControl: ACEFlags = [.fileInherit, .directoryInherit, .limitInherit, .onlyInherit]

    public static let words: [(String, ACEFlags)] = [
        ("file_inherit", .fileInherit), ("directory_inherit", .directoryInherit),
        ("limit_inherit", .limitInherit), ("only_inherit", .onlyInherit)
    ]
}

/// One access control entry.
public struct ACE: Hashable, Sendable {
    public var subject: ACESubject
    public var kind: ACEKind
    public var rights: AccessRights
    public var flags: ACEFlags

    public init(subject: ACESubject, kind: ACEKind, rights: AccessRights, flags: ACEFlags = []) {
        self.subject = subject
        self.kind = kind
        self.rights = rights
        self.flags = flags
    }

    @inlinable public var isInherited: Bool { flags.contains(.inherited) }
}

/// An ordered list of ACEs. Stored order is evaluation order under `macos`; the kernel never
/// sorts. An empty ACL is not the same as no ACL (`KAUTH_FILESEC_NOACL`): it simply defers.
public struct ACL: Hashable, Sendable {
    public var entries: [ACE]
    public init(_ entries: [ACE] = []) { self.entries = entries }
    @inlinable public var isEmpty: Bool { entries.isEmpty }
    @inlinable public var count: Int { entries.count }

    /// The guide's documented order ("explicit deny, explicit allow, inherited in parent order"),
    /// as a stable permutation of indices into `entries`.
    public var guideOrder: [Int] {
        let idx = Array(entries.indices)
        let explicitDeny = idx.filter { !entries[$0].isInherited && entries[$0].kind == .deny }
        let explicitAllow = idx.filter { !entries[$0].isInherited && entries[$0].kind == .allow }
        let inherited = idx.filter { entries[$0].isInherited }
        return explicitDeny + explicitAllow + inherited
    }

    /// True when the stored order already is the guide's order: explicit denies, then explicit
    /// allows, then inherited entries (one pass, no allocation; asked on every guide decision).
    public var isCanonical: Bool {
        var rank = 0
        for e in entries {
            let r = e.isInherited ? 2 : (e.kind == .deny ? 0 : 1)
            if r < rank { return false }
            rank = r
        }
        return true
    }
}

// MARK: - Text (`chmod +a` syntax in, `ls -le` style out)

/// A problem in ACE text, with the 0-based character offset of the offending word.
public struct ACETextError: Error, Hashable, Sendable {
    public var offset: Int
    public var length: Int
    public var message: String
    public var help: String?
}

/// How ACE text names are resolved: `user:` / `group:` prefixes force the type; a bare name is
/// tried as a user first, then as a group (chmod's `parse_entry`).
public struct ACENameResolver: Sendable {
    public var user: @Sendable (String) -> UID?
    public var group: @Sendable (String) -> GID?
    public var suggestions: @Sendable (String) -> String?
    public init(
        user: @escaping @Sendable (String) -> UID?, group: @escaping @Sendable (String) -> GID?,
        suggestions: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.user = user
        self.group = group
        self.suggestions = suggestions
    }
}

extension ACE {
    /// Parses `<user|group>:<name> [inherited] <allow|deny> <perm>[,<perm>...]`.
    /// Also accepted: `everyone`, `owner@`, `group@` as subjects (with or without `group:`),
    /// and `ls -le` output with its leading index (`0: user:bob allow read`).
    public static func parse(_ text: String, resolver: ACENameResolver) -> Result<ACE, ACETextError> {
        // Tokenize on spaces, remembering offsets.
        var tokens: [(String, Int)] = []
        var cur = ""
        var start = 0
        for (i, ch) in text.enumerated() {
            if ch == " " || ch == "\t" {
                if !cur.isEmpty { tokens.append((cur, start)); cur = "" }
            } else {
                if cur.isEmpty { start = i }
                cur.append(ch)
            }
        }
        if !cur.isEmpty { tokens.append((cur, start)) }
        let err = { (t: (String, Int), m: String, h: String?) -> Result<ACE, ACETextError> in
            .failure(ACETextError(offset: t.1, length: t.0.count, message: m, help: h))
        }
        if tokens.isEmpty {
            return .failure(
                ACETextError(
                    offset: 0, length: 0, message: "empty ACE",
                    help: "write it as `user:NAME allow read,write`"))
        }
        // Skip an `ls -le` index like `0:`.
        if let first = tokens.first, first.0.hasSuffix(":"), first.0.dropLast().allSatisfy(\.isNumber), first.0.count > 1 {
            tokens.removeFirst()
            if tokens.isEmpty {
                return .failure(
                    ACETextError(
                        offset: 0, length: first.0.count, message: "`\(first.0)` is an `ls -le` index with no ACE after it",
                        help: "write the ACE after the index, e.g. `0: user:bob allow read`, or leave the index out"))
            }
        }
        guard tokens.count >= 3 else {
            let kinds = ["allow", "deny"]
            if tokens.count == 2 && !kinds.contains(tokens[1].0) && tokens[1].0 != "inherited" {
                return err(
                    tokens[1], "expected `allow` or `deny` before `\(tokens[1].0)`",
                    "an ACE reads `user:bob allow read,write`")
            }
            let t = tokens.last!
            if tokens.count == 1 {
                return err(
                    (t.0, t.1), "expected `allow` or `deny` and rights after `\(t.0)`",
                    "an ACE reads `user:bob allow read,write`")
            }
            return err((t.0, t.1), "no rights after `\(t.0)`", "e.g. `\(tokens[0].0) \(t.0) read,write`")
        }
        // Subject
        let subjTok = tokens[0]
        var subject: ACESubject
        var tag: String? = nil
        var name = subjTok.0
        if let colon = subjTok.0.firstIndex(of: ":") {
            tag = String(subjTok.0[..<colon])
            name = String(subjTok.0[subjTok.0.index(after: colon)...])
        }
        let nameTok: (String, Int) = (name, subjTok.1 + (tag.map { $0.count + 1 } ?? 0))
        if let t = tag, t != "user", t != "group" {
            return err(
                (t, subjTok.1), "unknown ACE subject type `\(t)`",
                (nearest(t, in: ["user", "group"]).map { "did you mean `\($0):`? " } ?? "") + "use `user:NAME` or `group:NAME`")
        }
        if name.isEmpty { return err(subjTok, "ACE subject `\(subjTok.0)` has no name", "e.g. `user:bob`") }
        switch (tag, name) {
        case (_, "everyone") where tag != "user": subject = .everyone
        case (_, "owner@"): subject = .owner
        case (_, "group@"): subject = .owningGroup
        case ("user", _):
            if let uid = resolver.user(name) {
                subject = .user(uid)
            } else if let n = numericID(name) {
                subject = .user(n)
            } else {
                return err(nameTok, "unknown user `\(name)`", resolver.suggestions(name))
            }
        case ("group", _):
            if let gid = resolver.group(name) {
                subject = .group(gid)
            } else if let n = numericID(name) {
                subject = .group(n)
            } else {
                return err(nameTok, "unknown group `\(name)`", resolver.suggestions(name))
            }
        default:
            if let uid = resolver.user(name) {
                subject = .user(uid)
            } else if let gid = resolver.group(name) {
                subject = .group(gid)
            } else {
                return err(nameTok, "unknown user or group `\(name)`", resolver.suggestions(name))
            }
        }
        var i = 1
        var flags: ACEFlags = []
        if tokens[i].0 == "inherited" { flags.insert(.inherited); i += 1 }
        guard i < tokens.count else { return err(tokens[i - 1], "missing `allow` or `deny`", nil) }
        let kind: ACEKind
        switch tokens[i].0 {
        case "allow": kind = .allow
        case "deny": kind = .deny
        default:
            return err(
                tokens[i], "expected `allow` or `deny`, found `\(tokens[i].0)`",
                "the word after the subject is `allow` or `deny`")
        }
        i += 1
        guard i < tokens.count else { return err(tokens[i - 1], "no rights after `\(kind.word)`", "e.g. `read,write`") }
        // The rest: comma-separated words (spaces after commas tolerated). Words separated by
        // spaces alone are refused: `chmod +a` and `ls -le` separate rights with commas, and
        // `read write` is more likely a missing comma than a meaning (`fspolicy fmt` adds it).
        var rights: AccessRights = []
        var sawRight = false
        for (k, t) in tokens[i...].enumerated() where k > 0 {
            let prev = tokens[i + k - 1].0
            if !prev.hasSuffix(",") && !t.0.hasPrefix(",") {
                let words = tokens[i...].map(\.0).joined(separator: ",").split(separator: ",").joined(separator: ",")
                return err(
                    t, "rights must be separated by commas, found a space before `\(t.0)`",
                    "write `\(words)` (`fspolicy fmt` rewrites it so)")
            }
        }
        for t in tokens[i...] {
            var off = t.1
            for part in t.0.split(separator: ",", omittingEmptySubsequences: false) {
                let w = String(part)
                defer { off += w.count + 1 }
                if w.isEmpty { continue }
                if let r = AccessRights.named(w) { rights.formUnion(r); sawRight = true; continue }
                if w == "inherited" { flags.insert(.inherited); continue }
                if let f = ACEFlags.words.first(where: { $0.0 == w }) { flags.insert(f.1); continue }
                let known = AccessRights.words.map(\.word) + ACEFlags.words.map(\.0)
                let near = nearest(w, in: known)
                return .failure(
                    ACETextError(
                        offset: off, length: w.count, message: "unknown ACE right `\(w)`",
                        help: near.map { "did you mean `\($0)`?" } ?? "rights are chmod(1) words: read, write, execute, delete, append, …"))
            }
        }
        if !sawRight && flags.subtracting(.inherited).isEmpty {
            return err(tokens[i], "no rights after `\(kind.word)`", "e.g. `read,write`")
        }
        return .success(ACE(subject: subject, kind: kind, rights: rights, flags: flags))
    }

    /// `ls -le` style text without the index: `user:bob inherited allow read,write,file_inherit`.
    /// `forDirectory` selects the directory words (`list`, `add_file`, …); `nil` gives the
    /// file words (for text that can be fed back to `chmod +a`).
    public func text(names: (ACESubject) -> String, forDirectory: Bool?) -> String {
        var s = names(subject)
        if isInherited { s += " inherited" }
        s += " " + kind.word + " "
        var words: [String] = []
        let r = rights.text(forDirectory: forDirectory)
        if !r.isEmpty { words.append(r) }
        for (w, f) in ACEFlags.words where flags.contains(f) { words.append(w) }
        return s + words.joined(separator: ",")
    }
}

/// Nearest word by edit distance (for "did you mean" hints); nil if nothing is close.
public func nearest(_ word: String, in candidates: [String]) -> String? {
    var best: (String, Int)? = nil
    let a = Array(word.lowercased())
    for c in candidates {
        let b = Array(c.lowercased())
        var prev = Array(0...b.count)
        for i in 1...max(a.count, 1) where a.count > 0 {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where b.count > 0 {
                row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = row
        }
        let d = prev[b.count]
        if best == nil || d < best!.1 { best = (c, d) }
    }
    guard let (w, d) = best else { return nil }
    return d <= max(2, a.count / 3) ? w : nil
}
