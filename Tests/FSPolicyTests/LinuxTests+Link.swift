import FSPolicy
import Testing

// MARK: - L7: link and fs.protected_hardlinks (§3; L5, N8, S1, S2)

let linuxLinkRows: [LRow] = [
    LRow(
        "S1 L7: u2 links u1's 0600 file", .u2, .link, "/k/open/f_nolink", to: "/k/open/lnk2",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks), at: "/k/open/f_nolink"),
    LRow("S2 L7: the owner links her 0600 file", .u1, .link, "/k/open/f_nolink", to: "/k/open/lnk1", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7: root is exempt from protected_hardlinks", .root, .link, "/k/open/f_nolink", to: "/k/open/lnk0",
        .allow(.mode, .ownerBitsGrant)),
    LRow(
        "L7: a non-owner who can read and write the file may link it", .u2, .link, "/k/open/f_rw", to: "/k/open/l",
        .allow(.mode, .otherBitsGrant)),
    LRow("L7: r and w may come from a named ACL entry", .u4, .link, "/k/open/f_aclrw", to: "/k/open/l", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7: a setuid file cannot be linked by a non-owner", .u2, .link, "/k/open/f_suid", to: "/k/open/l",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow(
        "L7: a setgid file with group x cannot be linked by a non-owner", .u2, .link, "/k/open/f_sgidx", to: "/k/open/l",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow("L7: setgid without group x is fine", .u2, .link, "/k/open/f_sgid", to: "/k/open/l", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7: read alone is not enough for a non-owner", .u2, .link, "/k/open/f_r", to: "/k/open/l",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow(
        "L7: a non-owner cannot link a fifo (not a regular file)", .u2, .link, "/k/open/fifo", to: "/k/open/l",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow("L7: the owner links her fifo", .u1, .link, "/k/open/fifo", to: "/k/open/lf", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7 §2: link() does not follow the source symlink: u1's link to a 0666 file is not regular for u2", .u2, .link,
        "/k/open/ln_u1", to: "/k/open/l", .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow("L7: the symlink's owner links the symlink", .u1, .link, "/k/open/ln_u1", to: "/k/open/l", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7: a non-owner cannot link an immutable 0666 file (the rw check fails)", .u2, .link, "/k/open/f_immrw", to: "/k/open/l",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow("L2: link on a read-only volume", .u1, .link, "/ro/d/x", to: "/ro/d/l2", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow(
        "P4: link to an existing name is EEXIST", .u1, .link, "/k/open/f_nolink", to: "/k/open/exists",
        .deny(.EEXIST, .traversal, .exists)),
    LRow("P5: link across volumes is EXDEV", .u1, .link, "/k/open/f_nolink", to: "/vol2/l", .deny(.EXDEV, .volume, .crossDevice)),
    LRow(
        "L2: link needs w+x on the new parent", .u1, .link, "/k/open/f_nolink", to: "/k/nowrite/l",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/k/nowrite"),
    LRow(
        "§7 L5, rule L2: root links an immutable file", .root, .link, "/k/open/f_imm", to: "/k/open/imm_link",
        .deny(.EPERM, .flags, .immutable), at: "/k/open/f_imm"),
    LRow(
        "N8 L5: root links an append-only file", .root, .link, "/k/open/f_app", to: "/k/open/app_link",
        .deny(.EPERM, .flags, .appendOnly)),
    LRow("L5: the owner links her append-only file", .u1, .link, "/k/open/f_app", to: "/k/open/l", .deny(.EPERM, .flags, .appendOnly)),
    LRow("O4: the owner links a directory", .u1, .link, "/k/open/d_u1", to: "/k/open/dl", .deny(.EPERM, .type, .linkDirectory)),
    LRow(
        "L7: a non-owner links a directory (not a regular file)", .u2, .link, "/k/open/d_u1", to: "/k/open/dl",
        .deny(.EPERM, .ownership, .linuxProtectedHardlinks)),
    LRow("O4: root links a directory", .root, .link, "/k/open/d_u1", to: "/k/open/dl", .deny(.EPERM, .type, .linkDirectory))
]

extension LinuxTests {
    @Suite("linux L7: link")
    struct Link {
        @Test("L7 link: EEXIST, EXDEV, protected_hardlinks, w+x on the parent, source flags, directories (§3)", arguments: linuxLinkRows)
        func link(_ row: LRow) { checkLinux(row) }
    }
}

/// §3: with fs.protected_hardlinks=0 (the kernel default; the measured machine has 1) the
/// link rows that protected_hardlinks refused are decided by may_create alone.
let linuxHardlinksOffRows: [LRow] = [
    LRow(
        "S1 L7 with protected_hardlinks=0: u2 links u1's 0600 file", .u2, .link, "/k/open/f_nolink", to: "/k/open/lnk2",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "L7 with protected_hardlinks=0: u2 links a setuid file", .u2, .link, "/k/open/f_suid", to: "/k/open/l",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "O4 with protected_hardlinks=0: a non-owner still cannot link a directory", .u2, .link, "/k/open/d_u1", to: "/k/open/dl",
        .deny(.EPERM, .type, .linkDirectory)),
    LRow(
        "L5 with protected_hardlinks=0: the append-only source still refuses", .u2, .link, "/k/open/f_app", to: "/k/open/l",
        .deny(.EPERM, .flags, .appendOnly))
]
