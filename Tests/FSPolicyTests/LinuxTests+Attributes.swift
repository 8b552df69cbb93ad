import Testing
import FSPolicy

// Rule tables for `semantics: linux` (continued from LinuxTests.swift): attributes, chflags,
// xattrs and the tunables. Sources as in LinuxTests.swift.

extension LinuxTests {
    @Suite("linux L7: link, protected_hardlinks=0")
    struct LinkUnprotected {
        static let world: World = {
            var w = LinuxFixture.world
            w.protectedHardlinks = false
            return w
        }()

        @Test("L7 without fs.protected_hardlinks only may_create, the source flags and the type decide (§3)", arguments: linuxHardlinksOffRows)
        func link(_ row: LRow) { checkLinux(row, in: LinkUnprotected.world) }
    }
}

// MARK: - L8: chmod, settimes, setacl, touch, chown, chgrp (§1.6; L6–L9, N9, N10, N12–N14, W1, W2, X10)

let linuxAttributeRows: [LRow] = [
    LRow("L8: the owner chmods", .u1, .chmod, "/a/f_u1", mode: 0o600, .allow(.ownership, .linuxOwnerOrFowner)),
    LRow("L8: a non-owner chmods", .u2, .chmod, "/a/f_u1", mode: 0o666, .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("L8: write permission does not allow chmod", .u2, .chmod, "/a/f_o666", mode: 0o600, .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("L8: root chmods (CAP_FOWNER)", .root, .chmod, "/a/f_u1", mode: 0o600, .allow(.root, .linuxCapFowner)),
    LRow("§7 L6, rule L2: root chmods an immutable file", .root, .chmod, "/a/f_imm", mode: 0o600, .deny(.EPERM, .flags, .immutable)),
    LRow("N9 L5: root chmods an append-only file", .root, .chmod, "/a/f_app", mode: 0o600, .deny(.EPERM, .flags, .appendOnly)),
    LRow("L2: chmod on a read-only volume", .u1, .chmod, "/ro/f", mode: 0o600, .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("L8: the owner sets explicit times", .u1, .settimes, "/a/f_u1", .allow(.ownership, .linuxOwnerOrFowner)),
    LRow("L8: explicit times by a non-owner with w", .u2, .settimes, "/a/f_o666", .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("L8: root sets explicit times", .root, .settimes, "/a/f_u1", .allow(.root, .linuxCapFowner)),
    LRow("N13 L5: root sets explicit times on an append-only file", .root, .settimes, "/a/f_app", .deny(.EPERM, .flags, .appendOnly)),
    LRow("L2: the owner sets explicit times on her immutable file", .u1, .settimes, "/a/f_immuser", .deny(.EPERM, .flags, .immutable)),
    LRow("W1 L8: a non-owner sets an ACL", .u2, .setacl, "/a/f_u1", .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("W2 L8: the owner sets an ACL", .u1, .setacl, "/a/f_u1", .allow(.ownership, .linuxOwnerOrFowner)),
    LRow("§7 L8, rule L2: root sets an ACL on an immutable file", .root, .setacl, "/a/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("N10 L5: root sets an ACL on an append-only file", .root, .setacl, "/a/f_app", .deny(.EPERM, .flags, .appendOnly)),
    LRow("L8: the owner touches", .u1, .touch, "/a/f_u1", .allow(.ownership, .linuxOwnerOrFowner)),
    LRow(
        "L8: a non-owner with w (owning group) touches", .u2, .touch, "/a/f_o666", .allow(.mode, .groupBitsGrant),
        traceHas: .linuxTouchNeedsWrite),
    LRow("L8: a non-owner with w (other) touches", .u4, .touch, "/a/f_o666", .allow(.mode, .otherBitsGrant)),
    LRow("L8: a non-owner whose w comes from a named ACL entry touches", .u4, .touch, "/a/f_aclw", .allow(.acl, .linuxNamedUser)),
    LRow("L8: a non-owner without w touches", .u4, .touch, "/a/f_o644", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("N14 L8: touch an append-only file with w", .u2, .touch, "/a/f_app", .allow(.mode, .groupBitsGrant)),
    LRow("N12 L8: root touches an append-only file", .root, .touch, "/a/f_app", .allow(.root, .linuxCapFowner)),
    LRow("§7 L9, rule L2: root touches an immutable file", .root, .touch, "/a/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: touch an immutable 0666 file", .u2, .touch, "/a/f_immuser", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: touch on a read-only volume", .u1, .touch, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("L8: root gives a file away (CAP_CHOWN)", .root, .chown, "/a/f_u1", owner: .u2, .allow(.root, .linuxChownNeedsCap)),
    LRow("X10 L8: the owner gives her file away", .u1, .chown, "/a/f_u1", owner: .u2, .deny(.EPERM, .ownership, .linuxChownNeedsCap)),
    LRow("L8: the owner chowns to herself (no change)", .u1, .chown, "/a/f_u1", owner: .u1, .allow(.ownership, .nothingToChange)),
    LRow("L8: a non-owner chowns to the current owner", .u2, .chown, "/a/f_u1", owner: .u1, .deny(.EPERM, .ownership, .linuxChownNeedsCap)),
    LRow("L8: a non-owner takes a writable file", .u2, .chown, "/a/f_o666", owner: .u2, .deny(.EPERM, .ownership, .linuxChownNeedsCap)),
    LRow("L5: root chowns an append-only file", .root, .chown, "/a/f_app", owner: .u2, .deny(.EPERM, .flags, .appendOnly)),
    LRow("§7 L7, rule L2: root chowns an immutable file", .root, .chown, "/a/f_imm", owner: .u1, .deny(.EPERM, .flags, .immutable)),
    LRow("L8: the owner chgrps to the current group", .u1, .chgrp, "/a/f_u1", group: LG.g1, .allow(.ownership, .linuxChgrpNotAllowed)),
    LRow("L8: the owner chgrps to a supplementary group", .u2, .chgrp, "/a/f_u2", group: LG.g1, .allow(.ownership, .linuxChgrpNotAllowed)),
    LRow(
        "L8: the owner chgrps to a group she is not in", .u2, .chgrp, "/a/f_u2", group: LG.g3,
        .deny(.EPERM, .ownership, .linuxChgrpNotAllowed)),
    LRow("L8: u1 chgrps to g2 (not a member)", .u1, .chgrp, "/a/f_u1", group: LG.g2, .deny(.EPERM, .ownership, .linuxChgrpNotAllowed)),
    LRow(
        "L8: a non-owner member of the group chgrps", .u2, .chgrp, "/a/f_u1", group: LG.g1,
        .deny(.EPERM, .ownership, .linuxChgrpNotAllowed)),
    LRow("L8: root chgrps anywhere", .root, .chgrp, "/a/f_u1", group: LG.g3, .allow(.root, .linuxChownNeedsCap)),
    LRow("L8: the owner chgrps to a group that lists her", .u5, .chgrp, "/a/f_u5", group: LG.inner, .allow(.ownership, .linuxChgrpNotAllowed)),
    LRow(
        "L8: the owner chgrps to a group she is in only by nesting", .u5, .chgrp, "/a/f_u5", group: LG.outer,
        .deny(.EPERM, .ownership, .linuxChgrpNotAllowed)),
    LRow("L2: root chgrps an immutable file", .root, .chgrp, "/a/f_imm", group: LG.g1, .deny(.EPERM, .flags, .immutable))
]

extension LinuxTests {
    @Suite("linux L8: ownership")
    struct Attribute {
        @Test("L8 chmod/settimes/setacl owner or root; touch also with w; chown root only; chgrp to own groups (§1.6)", arguments: linuxAttributeRows)
        func attributes(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L9: chflags (§4.2; P1–P5)

let linuxChflagsRows: [LRow] = [
    LRow(
        "P1 L9: the owner sets immutable", .u1, .chflags, "/fl/f_u1", flags: .systemImmutable,
        .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable)),
    LRow(
        "P2 L9: the owner sets append-only", .u1, .chflags, "/fl/f_u1", flags: .systemAppend,
        .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable)),
    LRow(
        "L9 §4.4: uchg maps to immutable, which only root may set", .u1, .chflags, "/fl/f_u1", flags: .userImmutable,
        .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable)),
    LRow("P3 L9: the owner sets nodump", .u1, .chflags, "/fl/f_u1", flags: .userNoDump, .allow(.ownership, .linuxOwnerOrFowner)),
    LRow(
        "L9: a non-owner who can read sets nodump", .u2, .chflags, "/fl/f_u1", flags: .userNoDump,
        .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("L9: root sets immutable", .root, .chflags, "/fl/f_u1", flags: .systemImmutable, .allow(.root, .linuxCapFowner)),
    LRow("P4 L9: a non-owner clears nodump", .u2, .chflags, "/fl/f_d", flags: [], .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("P5 L9: the owner clears nodump", .u1, .chflags, "/fl/f_d", flags: [], .allow(.ownership, .linuxOwnerOrFowner)),
    LRow(
        "L9 §4.1: the ioctl needs an open fd: no read permission (group ---)", .u2, .chflags, "/fl/f_600", flags: .userNoDump,
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow(
        "L9 §4.1: the ioctl needs an open fd: no read permission (other ---)", .u4, .chflags, "/fl/f_600", flags: .userNoDump,
        .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow(
        "L9 §4.2: root adds nodump while immutable stays set", .root, .chflags, "/fl/f_imm", flags: [.systemImmutable, .userNoDump],
        .deny(.EPERM, .flags, .linuxImmutableFreezesFlags)),
    LRow(
        "L9 §4.2: root clears immutable and adds nodump in one call", .root, .chflags, "/fl/f_imm", flags: .userNoDump,
        .allow(.ownership, .linuxOwnerOrFowner)),
    LRow("L9: root clears immutable", .root, .chflags, "/fl/f_imm", flags: [], .allow(.ownership, .linuxOwnerOrFowner)),
    LRow(
        "L9: root sets the flags it already has (nothing changes)", .root, .chflags, "/fl/f_imm", flags: .systemImmutable,
        .allow(.ownership, .nothingToChange)),
    LRow("L9: the owner clears immutable", .u1, .chflags, "/fl/f_imm_u1", flags: [], .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable)),
    LRow(
        "L9 §4.2: the owner adds nodump to her immutable file", .u1, .chflags, "/fl/f_imm_u1", flags: [.systemImmutable, .userNoDump],
        .deny(.EPERM, .flags, .linuxImmutableFreezesFlags)),
    LRow("L9: the owner clears append-only", .u1, .chflags, "/fl/f_app", flags: [], .deny(.EPERM, .ownership, .linuxFlagNeedsCapImmutable)),
    LRow(
        "L9: root adds nodump to an append-only file (append does not freeze)", .root, .chflags, "/fl/f_app",
        flags: [.systemAppend, .userNoDump], .allow(.root, .linuxCapFowner)),
    LRow("L2: chflags on a read-only volume", .u1, .chflags, "/ro/f", flags: .userNoDump, .deny(.EROFS, .volume, .readOnlyVolume))
]

extension LinuxTests {
    @Suite("linux L9: chflags")
    struct Chflags {
        @Test("L9 chflags: read to open, owner or root, i/a need CAP_LINUX_IMMUTABLE, immutable freezes the rest (§4.2)", arguments: linuxChflagsRows)
        func chflags(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L10: user.* extended attributes (§1.6, §4.3; L12)

let linuxXattrRows: [LRow] = [
    LRow("L10: the owner writes a user xattr", .u1, .writeextattr, "/x/f", .allow(.mode, .ownerBitsGrant)),
    LRow("L10: writing a user xattr needs w", .u2, .writeextattr, "/x/f", .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("L10: reading a user xattr needs r", .u2, .readextattr, "/x/f", .allow(.mode, .groupBitsGrant)),
    LRow("L10: reading a user xattr of a 0600 file", .u4, .readextattr, "/x/f600", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("L10: a fifo cannot carry user xattrs (write: EPERM)", .u2, .writeextattr, "/x/fifo", .deny(.EPERM, .type, .linuxUserXattrType)),
    LRow("L10: a fifo cannot carry user xattrs (read: ENODATA)", .u2, .readextattr, "/x/fifo", .deny(.ENODATA, .type, .linuxUserXattrType)),
    LRow(
        "L10: on a sticky dir only the owner writes user xattrs", .u2, .writeextattr, "/x/sticky",
        .deny(.EPERM, .sticky, .linuxUserXattrSticky)),
    LRow("L10: the sticky dir's owner writes a user xattr", .u1, .writeextattr, "/x/sticky", .allow(.mode, .ownerBitsGrant)),
    LRow("L10: root writes a user xattr on the sticky dir", .root, .writeextattr, "/x/sticky", .allow(.mode, .otherBitsGrant)),
    LRow("L10: a non-sticky 0777 dir: the group member writes", .u2, .writeextattr, "/x/dir", .allow(.mode, .groupBitsGrant)),
    LRow("§7 L12, rule L2: root writes an xattr on an immutable file", .root, .writeextattr, "/x/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("L5: the owner writes an xattr on her append-only file", .u1, .writeextattr, "/x/f_app", .deny(.EPERM, .flags, .appendOnly)),
    LRow("L10: root reads an xattr of an immutable file", .root, .readextattr, "/x/f_imm", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: writing an xattr on a read-only volume", .u1, .writeextattr, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume))
]

extension LinuxTests {
    @Suite("linux L10: user xattrs")
    struct Xattr {
        @Test("L10 user.* xattrs: regular files and dirs only, sticky dirs owner-only, flags EPERM (§1.6, §4.3)", arguments: linuxXattrRows)
        func xattrs(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - Count

extension LinuxTests {
    @Suite("linux coverage")
    struct Coverage {
        @Test("the linux tables hold at least 120 decisions")
        func count() {
            let tables: [[LRow]] = [
                linuxModeRows, linuxACLRows, linuxMaskQuirkRows, linuxRootRows, linuxTraversalRows,
                linuxOpenRows, linuxCreateRows, linuxDeleteRows, linuxRenameRows, linuxLinkRows,
                linuxHardlinksOffRows, linuxAttributeRows, linuxChflagsRows, linuxXattrRows
            ]
            let total = tables.reduce(0) { $0 + $1.count } + 2 * linuxNestedRows.count
            #expect(total >= 120, "\(total) decisions")
        }
    }
}

// MARK: - L12: fs.protected_symlinks, fs.protected_regular, fs.protected_fifos (and hardlinks)

/// The tunables' world: LinuxFixture.world plus `/pt`. Expected answers come from the kernel's
/// `may_follow_link` (checked for the trailing symlink only, WALK_TRAILING in `pick_link`) and
/// `may_create_in_sticky` (called by `do_open` for O_CREAT on an existing name) in fs/namei.c:
/// uid comparisons only, so root is not exempt; docs/semantics.md L12.
enum TunablesFixture {
    static func world(_ t: LinuxTunables = LinuxTunables()) -> World {
        var w = base
        w.linux = t
        return w
    }

    static let base: World = {
        var b = LinuxFixture.Builder()
        b.w = LinuxFixture.world
        b.dir("/pt")
        // sticky and world-writable, owned by root
        b.dir("/pt/tmp", .root, LG.root, 0o1777)
        b.file("/pt/tmp/f_u1", .u1, LG.g5, 0o666)
        b.file("/pt/tmp/f_root", .root, LG.root, 0o666)
        b.node("/pt/tmp/fifo_u1", .fifo, .u1, LG.g5, 0o666)
        b.node("/pt/tmp/sock_u1", .socket, .u1, LG.g5, 0o777)
        b.symlink("/pt/tmp/l_u1", "/pt/tmp/f_u1", owner: .u1)
        b.symlink("/pt/tmp/l_root", "/pt/tmp/f_u1", owner: .root)
        b.symlink("/pt/tmp/l_new", "/pt/tmp/new_by_link", owner: .u1)
        b.symlink("/pt/tmp/ld_u1", "/pt/plain", owner: .u1)
        // sticky and world-writable, owned by u1
        b.dir("/pt/own", .u1, LG.g1, 0o1777)
        b.symlink("/pt/own/l_u1", "/pt/tmp/f_root", owner: .u1)
        // sticky and group-writable only (g1: u1 and u2)
        b.dir("/pt/grp", .root, LG.g1, 0o1770)
        b.file("/pt/grp/f_u1", .u1, LG.g5, 0o666)
        b.node("/pt/grp/fifo_u1", .fifo, .u1, LG.g5, 0o666)
        // world-writable, not sticky
        b.dir("/pt/plain", .root, LG.root, 0o777)
        b.file("/pt/plain/f_u1", .u1, LG.g5, 0o666)
        b.file("/pt/plain/f_u1_644", .u1, LG.g5, 0o644)
        b.symlink("/pt/plain/l_u1", "/pt/plain/f_u1", owner: .u1)
        return b.w
    }()
}

/// With the defaults (Debian's: hardlinks 1, symlinks 1, regular 2, fifos 1).
let linuxTunableRows: [LRow] = [
    // protected_symlinks = 1
    LRow(
        "L12: u2 follows u1's symlink in a sticky world-writable directory", .u2, .read, "/pt/tmp/l_u1",
        .deny(.EACCES, .sticky, .linuxProtectedSymlinks), at: "/pt/tmp/l_u1"),
    LRow(
        "L12: root is not exempt from protected_symlinks (uids only)", .root, .read, "/pt/tmp/l_u1",
        .deny(.EACCES, .sticky, .linuxProtectedSymlinks)),
    LRow("L12: stat follows the trailing symlink too", .u2, .stat, "/pt/tmp/l_u1", .deny(.EACCES, .sticky, .linuxProtectedSymlinks)),
    LRow("L12: the symlink's owner follows it", .u1, .read, "/pt/tmp/l_u1", .allow(.mode, .ownerBitsGrant)),
    LRow("L12: a symlink owned by the directory's owner is followed", .u2, .read, "/pt/tmp/l_root", .allow(.mode, .otherBitsGrant)),
    LRow("L12: the directory's owner owns the symlink (u1 in u1's sticky dir)", .u2, .read, "/pt/own/l_u1", .allow(.mode, .otherBitsGrant)),
    LRow("L12: not sticky: any symlink is followed", .u2, .read, "/pt/plain/l_u1", .allow(.mode, .otherBitsGrant)),
    LRow("L12: a symlink in the middle of a path is not checked", .u2, .read, "/pt/tmp/ld_u1/f_u1", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L12: creat through a dangling symlink in /pt/tmp is refused", .u2, .creat, "/pt/tmp/l_new",
        .deny(.EACCES, .sticky, .linuxProtectedSymlinks)),
    LRow(
        "L12: delete does not follow the symlink (sticky-bit EPERM instead)", .u2, .delete, "/pt/tmp/l_u1",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner)),
    // protected_regular = 2
    LRow(
        "L12: u2 opens u1's file with O_CREAT in a sticky world-writable directory", .u2, .creat, "/pt/tmp/f_u1",
        .deny(.EACCES, .sticky, .linuxProtectedRegular), at: "/pt/tmp/f_u1"),
    LRow(
        "L12: root is not exempt from protected_regular (uids only)", .root, .creat, "/pt/tmp/f_u1",
        .deny(.EACCES, .sticky, .linuxProtectedRegular)),
    LRow("L12: without O_CREAT the same open is allowed", .u2, .write, "/pt/tmp/f_u1", .allow(.mode, .otherBitsGrant)),
    LRow("L12: the file's owner opens it with O_CREAT", .u1, .creat, "/pt/tmp/f_u1", .allow(.mode, .ownerBitsGrant)),
    LRow("L12: a file owned by the directory's owner", .u2, .creat, "/pt/tmp/f_root", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L12: protected_regular=2 covers sticky group-writable directories", .u2, .creat, "/pt/grp/f_u1",
        .deny(.EACCES, .sticky, .linuxProtectedRegular)),
    LRow("L12: not sticky: creat opens the file", .u2, .creat, "/pt/plain/f_u1", .allow(.mode, .otherBitsGrant)),
    LRow("L12: creat of a missing name creates it (w+x on the directory)", .u2, .creat, "/pt/tmp/new", .allow(.mode, .otherBitsGrant)),
    LRow("L12: creat of an existing file still needs w on it", .u2, .creat, "/pt/plain/f_u1_644", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("L12: creat of a directory is EISDIR", .u2, .creat, "/pt/tmp", .deny(.EISDIR, .type, .isDirectory)),
    // protected_fifos = 1
    LRow(
        "L12: u2 opens u1's FIFO with O_CREAT in a sticky world-writable directory", .u2, .creat, "/pt/tmp/fifo_u1",
        .deny(.EACCES, .sticky, .linuxProtectedFifos)),
    LRow(
        "L12: protected_fifos=1 does not cover group-writable sticky directories", .u2, .creat, "/pt/grp/fifo_u1",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxProtectedFifos),
    // other types: whatever the values
    LRow(
        "L12: a socket of another user in a sticky world-writable directory", .u2, .creat, "/pt/tmp/sock_u1",
        .deny(.EACCES, .sticky, .linuxStickyCreateOther))
]

/// Every tunable at 0 (the kernel's built-in values).
let linuxTunablesOffRows: [LRow] = [
    LRow(
        "L12 off: u2 follows u1's symlink in /pt/tmp", .u2, .read, "/pt/tmp/l_u1", .allow(.mode, .otherBitsGrant),
        traceHas: .linuxProtectedSymlinks),
    LRow("L12 off: root follows u1's symlink in /pt/tmp", .root, .read, "/pt/tmp/l_u1", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L12 off: u2 opens u1's file with O_CREAT in /pt/tmp", .u2, .creat, "/pt/tmp/f_u1", .allow(.mode, .otherBitsGrant),
        traceHas: .linuxProtectedRegular),
    LRow(
        "L12 off: u2 opens u1's file with O_CREAT in the group-writable sticky directory", .u2, .creat, "/pt/grp/f_u1",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "L12 off: u2 opens u1's FIFO with O_CREAT in /pt/tmp", .u2, .creat, "/pt/tmp/fifo_u1", .allow(.mode, .otherBitsGrant),
        traceHas: .linuxProtectedFifos),
    LRow(
        "L12 off: a socket is refused whatever the values", .u2, .creat, "/pt/tmp/sock_u1",
        .deny(.EACCES, .sticky, .linuxStickyCreateOther)),
    LRow(
        "L7 off: u2 links u1's 0644 file (protected_hardlinks=0)", .u2, .link, "/pt/plain/f_u1_644", to: "/pt/plain/lnk",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxProtectedHardlinks)
]

/// protected_regular=1 and protected_fifos=2: the group-writable case flips for each.
let linuxTunablesMiddleRows: [LRow] = [
    LRow(
        "L12: protected_regular=1 lets the group-writable sticky directory through", .u2, .creat, "/pt/grp/f_u1",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxProtectedRegular),
    LRow(
        "L12: protected_regular=1 still refuses in the world-writable one", .u2, .creat, "/pt/tmp/f_u1",
        .deny(.EACCES, .sticky, .linuxProtectedRegular)),
    LRow(
        "L12: protected_fifos=2 covers the group-writable sticky directory", .u2, .creat, "/pt/grp/fifo_u1",
        .deny(.EACCES, .sticky, .linuxProtectedFifos))
]

extension LinuxTests {
    @Suite("linux L12: fs.protected_* sysctls")
    struct Tunables {
        static let off = TunablesFixture.world(LinuxTunables(protectedHardlinks: 0, protectedSymlinks: 0, protectedRegular: 0, protectedFifos: 0))
        static let middle = TunablesFixture.world(LinuxTunables(protectedRegular: 1, protectedFifos: 2))

        @Test("L12 with the default values (hardlinks 1, symlinks 1, regular 2, fifos 1)", arguments: linuxTunableRows)
        func defaults(_ row: LRow) { checkLinux(row, in: TunablesFixture.world()) }

        @Test("L12 with every fs.protected_* at 0", arguments: linuxTunablesOffRows)
        func off(_ row: LRow) { checkLinux(row, in: Tunables.off) }

        @Test("L12 with protected_regular=1 and protected_fifos=2", arguments: linuxTunablesMiddleRows)
        func middle(_ row: LRow) { checkLinux(row, in: Tunables.middle) }

        @Test("a refusal's evidence names the sysctl, its value, the node and the directory")
        func evidence() {
            let w = TunablesFixture.world(LinuxTunables(protectedRegular: 1))
            let cases: [(LU, FSPolicy.Operation, String, String?, LinuxTunable, UInt8, String?)] = [
                (.u2, .read, "/pt/tmp/l_u1", nil, .protectedSymlinks, 1, "/pt/tmp"),
                (.u2, .creat, "/pt/tmp/f_u1", nil, .protectedRegular, 1, "/pt/tmp"),
                (.u2, .creat, "/pt/tmp/fifo_u1", nil, .protectedFifos, 1, "/pt/tmp"),
                (.u2, .link, "/pt/plain/f_u1_644", "/pt/plain/lnk", .protectedHardlinks, 1, nil)
            ]
            for (who, op, path, to, t, v, dir) in cases {
                let d = Authorizer(world: w, semantics: .linux).decide(
                    Request(subject: w.subject(uid: who.uid), op: op, path: path, to: to))
                let want = Evidence.tunable(node: w.lookup(path)!, dir: dir.map { w.lookup($0)! } ?? -1, t, value: v)
                #expect(!d.allowed && d.evidence == want, "\(op.word) \(path): \(d.evidence)")
            }
        }

        @Test("the values change nothing under macos and guide: creat is open-for-write or create")
        func bsd() {
            for sem in [Semantics.macos, .guide] {
                for w in [TunablesFixture.world(), Tunables.off] {
                    func ask(_ who: LU, _ path: String) -> Decision {
                        Authorizer(world: w, semantics: sem).decide(Request(subject: w.subject(uid: who.uid), op: .creat, path: path))
                    }
                    let sticky = ask(.u2, "/pt/tmp/f_u1")
                    #expect(sticky.allowed && sticky.rule == .otherBitsGrant, "[\(sem)] creat of u1's 0666 file in /pt/tmp: \(sticky.rule)")
                    let noW = ask(.u2, "/pt/plain/f_u1_644")
                    #expect(!noW.allowed && noW.errno == .EACCES, "[\(sem)] creat of a 0644 file of another user: \(noW.rule)")
                    let fresh = ask(.u2, "/pt/tmp/brand_new")
                    #expect(fresh.allowed, "[\(sem)] creat of a new name in a 1777 directory: \(fresh.rule)")
                    let link = ask(.u2, "/pt/tmp/l_u1")
                    #expect(link.allowed, "[\(sem)] no protected_symlinks outside linux: \(link.rule)")
                }
            }
        }

        @Test("creat as a step creates a missing file and leaves an existing one as it was")
        func step() {
            var w = TunablesFixture.world()
            let made = Mutator.apply(Request(subject: w.subject(uid: LU.u2.uid), op: .creat, path: "/pt/tmp/made"), to: &w, semantics: .linux)
            #expect(made.applied && made.created != nil && w.lookup("/pt/tmp/made").map { w[$0].uid } == LU.u2.uid)
            let before = w[w.lookup("/pt/tmp/f_root")!]
            let again = Mutator.apply(Request(subject: w.subject(uid: LU.u2.uid), op: .creat, path: "/pt/tmp/f_root"), to: &w, semantics: .linux)
            let after = w[w.lookup("/pt/tmp/f_root")!]
            #expect(again.applied && again.created == nil && after.uid == before.uid && after.mode == before.mode)
            let viaLink = Mutator.apply(Request(subject: w.subject(uid: LU.u1.uid), op: .creat, path: "/pt/tmp/l_new"), to: &w, semantics: .linux)
            #expect(viaLink.applied && w.lookup("/pt/tmp/new_by_link") != nil, "creat through a dangling symlink creates its target")
        }
    }
}
