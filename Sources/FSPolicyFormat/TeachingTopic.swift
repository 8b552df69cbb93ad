import FSPolicy

/// What a rule number is about, in a learner's words: the topics `fspolicy quiz` suggests to
/// revisit. The numbers are those of docs/semantics.md and docs/sandbox.md, plus the three of
/// docs/inheritance.md (`I1`–`I3`), which decide no access themselves but are what many
/// questions about new files test.
public enum TeachingTopic {
    /// Topics that are not the number of a decision rule: docs/inheritance.md's.
    public static let inheritanceNumbers = ["I1", "I2", "I3"]

    public static func title(_ number: String) -> String? {
        switch number {
        case "I1": "what a new file or folder inherits: the ACEs with file_inherit / directory_inherit, or the default ACL"
        case "I2": "the owner, group and mode of a new file: the parent's group (macOS) or setgid (Linux), the umask"
        case "I3": "changing inheritance afterwards: propagating re-copies, nothing flows down by itself"
        case "P1": "search (x) on every directory of the path"
        case "P2", "P3", "P4", "P5": "path lookup: missing names, symlinks, names that exist, other volumes"
        case "O1", "O2", "O3", "O4", "O5", "O6", "O7": "what each operation asks for (and exec needs an x bit)"
        case "M1", "M2": "read-only and noexec volumes come first, root included"
        case "M3", "M5": "what root can and cannot do"
        case "M4": "file flags (uchg, uappnd, schg) are checked first, root included"
        case "M6": "deleting: an ACE on the file, an ACE on the folder, the folder's w bit, the sticky bit"
        case "M7", "M9": "the owner's implicit rights: writesecurity always, writeattr unless denied"
        case "M8": "the ACL: stored order, allows accumulate, a deny ends the walk"
        case "M10": "ignore-ownership volumes and uid 99: a rewrite of who owns what, not a grant"
        case "M11": "mode bits: one class, the best match (owner, group, other), never the sum"
        case "M12": "what mode bits never grant: writesecurity and chown"
        case "A1", "A2", "A3", "A4", "A5", "A6": "changing owner, group, mode, flags and times"
        case "G2": "guide vs macOS: ignoring ownership (the guide allows; the kernel rewrites owners)"
        case "G3": "guide vs macOS: the ACL before the flags (the guide) or the flags first (the kernel)"
        case "G4": "guide vs macOS: the guide's ACE order (deny, allow, inherited) vs stored order"
        case "G5": "guide vs macOS: the owner's security rights"
        case "G6": "guide vs macOS: root and files without an x bit"
        case "G7": "guide vs macOS: an execute ACE without an x bit"
        case "G8", "G9", "G10": "guide vs macOS: timestamps and flags"
        case "L1": "Linux: search on every directory"
        case "L2": "Linux: the owner's bits, the ACL, then group or other (and the mask --- quirk)"
        case "L3": "Linux ACLs: named users, one group entry must cover, the mask"
        case "L4": "Linux: root's capabilities and their limits"
        case "L5", "L9": "Linux: opening files, append-only and immutable, chattr"
        case "L6", "L7": "Linux: creating, deleting, renaming and linking (sticky: EPERM)"
        case "L8", "L10": "Linux: attribute changes and user xattrs"
        case "D1", "D2", "D3", "D4": "Data Protection: which class keys the device holds when locked, and before the first unlock"
        case "D5", "D6", "D7": "Data Protection: creating a file needs the key of the class it gets (locked stops more than reading)"
        default: nil
        }
    }
}
