// The catalog of lint rules: code, name, severity, texts and rule sets of each.
import FSPolicy

/// The catalog of lint rules, in the order they are reported.
public enum LintCatalog {
    static let mac: [Semantics] = [.macos, .guide]

    public static let rules: [LintRule] = [
        LintRule(
            code: "FSL001", name: "world-writable-directory", severity: .error,
            summary: "A directory every user may write has no sticky bit",
            description:
                "The directory's mode grants write to others (o+w) and the sticky bit is not set, so every user may create entries in it and delete or rename anyone's entries, including files they do not own."
        ),
        LintRule(
            code: "FSL002", name: "world-writable-file", severity: .warning,
            summary: "A regular file every user may write",
            description: "The file's mode grants write to others (o+w): every user who can reach it may change or truncate its content."),
        LintRule(
            code: "FSL003", name: "setid-writable-by-others", severity: .error,
            summary: "A setuid/setgid executable someone other than its owner or root may modify or replace",
            description:
                "A setuid or setgid executable is a program the system trusts to run with its owner's or group's privileges; whoever may write it, or delete it from its directory and put another file in its place, decides what runs when anyone uses it. The kernel drops the setuid bit when an unprivileged user writes the file, so the attack is a trojan rather than a privilege kept, but the program is no longer what the owner installed."
        ),
        LintRule(
            code: "FSL004", name: "setid-on-nosuid-volume", severity: .note,
            summary: "A setuid/setgid executable on a volume mounted nosuid, where the bits have no effect",
            description:
                "On a volume mounted with nosuid, execve ignores the setuid and setgid bits: the program runs with the caller's own ids. The bits are either a leftover (a copied or restored tree) or a program that will not work as its owner expects."
        ),
        LintRule(
            code: "FSL005", name: "home-or-service-dir-writable", severity: .error,
            summary: "A home or service directory someone other than its owner (or root) may write",
            description:
                "A user's home directory, or a directory a service keeps its state or configuration in, where another user may create, delete or rename entries: they can plant startup files, keys or configuration that the owner (or the service) then reads and trusts, or remove what is there."
        ),
        LintRule(
            code: "FSL006", name: "acl-deny-after-allow", severity: .warning,
            summary: "A macOS ACL is not in canonical order: a deny comes after an allow (or an explicit entry after an inherited one)",
            description:
                "macOS evaluates ACEs in stored order and stops at the first entry that decides a right, so a deny stored after an allow does not refuse what the allow already granted. Tools that add entries (chmod +a, Finder) assume the canonical order: explicit denies, explicit allows, inherited entries.",
            semantics: mac),
        LintRule(
            code: "FSL007", name: "acl-inherit-flags-on-file", severity: .warning,
            summary: "An ACE of a file carries inheritance flags, which only a directory uses",
            description:
                "file_inherit, directory_inherit, limit_inherit and only_inherit tell a directory what to copy to new entries; on a file nothing is ever created below, so the flags do nothing, and only_inherit makes the entry ignored altogether. They usually mark an ACL copied from a directory by a script.",
            semantics: mac),
        LintRule(
            code: "FSL008", name: "acl-only-inherit-without-target", severity: .warning,
            summary: "An only_inherit ACE of a directory that no new entry inherits",
            description:
                "only_inherit means the entry is not used for the directory itself and exists only to be copied to new entries; without file_inherit or directory_inherit it is copied to nothing, so it has no effect at all.",
            semantics: mac),
        LintRule(
            code: "FSL009", name: "acl-everyone-may-write", severity: .error,
            summary: "An allow ACE gives everyone a right to change or delete",
            description:
                "An ACE for everyone applies to every process, whatever its user; an allow of write, append, delete, delete_child, writesecurity or chown rights for everyone is a world-writable file or directory that the mode does not show.",
            semantics: mac),
        LintRule(
            code: "FSL010", name: "acl-entry-unknown-id", severity: .warning,
            summary: "An ACL entry names a user or group id no account has",
            description:
                "A named ACL entry for an id that no declared account has grants to whoever is given that id next, usually the next account created; it is left behind when an account is removed or a tree is copied between systems."
        ),
        LintRule(
            code: "FSL011", name: "unknown-owner", severity: .warning,
            summary: "A node's owner or group is an id no account has",
            description:
                "A node owned by a uid, or in a gid, that no declared account has belongs to whoever gets that id next: that user or group will own it, with the owner's rights (chmod, chown of the group, ACL changes)."
        ),
        LintRule(
            code: "FSL012", name: "sensitive-file-exposed", severity: .error,
            summary: "A file that holds secrets may be read or written by someone other than its owner or root",
            description:
                "Private keys, password databases, credential files and keychains must be readable and writable by their owner only. The decision is made with the rule set, for every subject class, so a group bit, an ACL entry and an everyone ACE count alike; a file no one else can reach is not reported. A file a scan read and found to hold only certificates or public keys (`content: certificate` or `public-key`) is public material and is not reported."
        ),
        LintRule(
            code: "FSL013", name: "app-missing-purpose-string", severity: .warning,
            summary: "An app reaches a privacy-protected location without the Info.plist purpose string",
            description:
                "Without the purpose string the system refuses (and on macOS terminates) the app when it asks for the protected resource, and App Review rejects it.",
            semantics: mac, appCode: "missing-purpose-string"),
        LintRule(
            code: "FSL014", name: "app-temporary-exception", severity: .warning,
            summary: "An app uses a temporary-exception entitlement, which App Review asks to justify",
            description:
                "Temporary-exception entitlements open fixed paths past the sandbox; App Review asks for a justification of each, and an item the user picks or a security-scoped bookmark usually does the job.",
            semantics: mac, appCode: "temporary-exception"),
        LintRule(
            code: "FSL015", name: "app-unbalanced-bookmark", severity: .warning,
            summary: "A security-scoped bookmark's start and stop calls do not balance",
            description:
                "Each successful startAccessingSecurityScopedResource needs one stop; leaked starts hold kernel resources, and a stop without a start ends access another part of the app still uses.",
            semantics: mac, appCode: "unbalanced-bookmark"),
        LintRule(
            code: "FSL016", name: "app-stale-bookmark", severity: .note,
            summary: "A security-scoped bookmark resolved as stale and should be renewed",
            description: "A stale bookmark still resolves, but the system asks the app to create a new one from the resolved URL; one day it will not resolve.",
            semantics: mac, appCode: "stale-bookmark"),
        LintRule(
            code: "FSL017", name: "app-unused-entitlement", severity: .warning,
            summary: "An entitlement grants more than the expectations use",
            description: "An entitlement no expectation needs, or a read-write one used only for reading, widens what a compromised app can reach for nothing.",
            semantics: mac, appCode: "unused-entitlement"),
        LintRule(
            code: "FSL018", name: "unused-suppression", severity: .warning,
            summary: "A suppression in the findings: section matches no finding",
            description:
                "A suppression that matches nothing is either stale (the problem was fixed, or the path moved) or mistyped; either way it would silently hide a later finding on that path."
        ),
        LintRule(
            code: "FSL019", name: "dead-grant", severity: .note,
            summary: "An ACL entry grants rights nobody can use",
            description:
                "An allow ACE or a named POSIX ACL entry whose rights decide nothing for any possible subject: every subject it applies to is refused the search of a directory above, or is always decided by something else first (an earlier ACE, a mask that removes its rights). It misleads whoever reads the ACL into thinking someone has access."
        ),
        LintRule(
            code: "FSL020", name: "dead-mode-class", severity: .note,
            summary: "A class of the mode bits grants rights nobody can use",
            description:
                "The owner, group or other bits of a file or directory grant a right no possible subject of that class can use: every subject of the class is refused the search of a directory above, or is decided by an ACL entry first. The mode then says the file is open to someone it is not; often a directory above was tightened and the bits below no longer mean anything, or the other way round, loosening that directory would expose them. Off unless the findings: section gives it a severity: on a real tree every file created with a loose umask in a private directory has such bits.",
            onByDefault: false),
        LintRule(
            code: "FSL021", name: "default-acl-on-file", severity: .warning,
            summary: "A file (not a directory) has a POSIX default ACL",
            description:
                "Linux keeps a default ACL only on a directory and refuses to set one on anything else, so a default ACL on a file cannot come from a real Linux file system: the tree was imported badly (an archive or scan written by another tool, a hand-edited file). Its entries are never applied, and whoever reads them is misled about what new files would get."
        ),
        LintRule(
            code: "FSL022", name: "keychain-before-first-unlock", severity: .warning,
            summary: "A keychain secret is readable before the first unlock after a restart",
            description:
                "An item with the accessibility `always` or `alwaysThisDeviceOnly` is encrypted with a key that is there from the moment the device starts, before anyone has entered the passcode: whoever holds the device can have it read. The constants are deprecated; `afterFirstUnlock` serves background work.",
            semantics: mac, appCode: "keychain-before-first-unlock"),
        LintRule(
            code: "FSL023", name: "keychain-group-wider", severity: .warning,
            summary: "A shared keychain access group is open to more apps than use it",
            description:
                "Every app that lists an access group may read, change and delete all of its items; a group listed by apps none of whose keychain calls touch it widens what a compromised app can take.",
            semantics: mac, appCode: "keychain-group-wider"),
        LintRule(
            code: "FSL024", name: "keychain-this-device-only-restored", severity: .warning,
            summary: "A keychain call after a restore onto a new device expects a ThisDeviceOnly item",
            description:
                "ThisDeviceOnly items never move to another device, whatever the backup: after a restore onto a new phone they are gone, and an app that counts on one must treat its absence as a first launch.",
            semantics: mac, appCode: "keychain-this-device-only-restored"),
        LintRule(
            code: "FSL025", name: "privileged-program", severity: .note,
            summary: "A setuid or setgid program: who may run it, who may replace it",
            description:
                "The inventory of programs that run with more than their caller's rights: each setuid or setgid regular file with an x bit (on a volume not mounted nosuid), with the users who may run it and the users who may replace it (write it, or delete it from its directory), as the rule set decides them. Not a problem by itself; the list an audit starts from, in place of find -perm -4000."
        ),
        LintRule(
            code: "FSL026", name: "service-capability-reach", severity: .warning,
            summary: "A service reads or writes a home, a service directory or a secret only through its capabilities",
            description:
                "A service running as a user other than root, with capabilities its user does not have (AmbientCapabilities=, such as CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE), may read a file that holds secrets, list a home directory, or create entries in a service directory such as /etc, where the same process without those capabilities is refused. Whoever takes over the service takes that reach with it; a sandbox option (InaccessiblePaths=, ReadOnlyPaths=) or a narrower capability set keeps it to what the service needs.",
            semantics: [.linux])
    ]

    public static func rule(_ code: String) -> LintRule? { rules.first { $0.code == code } }
    /// A rule by its code or its name.
    public static func rule(named s: String) -> LintRule? { rules.first { $0.code == s || $0.name == s } }
    public static func rule(appCode: String) -> LintRule? { rules.first { $0.appCode == appCode } }
}
