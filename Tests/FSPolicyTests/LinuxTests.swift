import Testing
import FSPolicy

// Rule tables for `semantics: linux`. Every expected answer is derived from
// shared/reference/linux-semantics.md (section cited per table; measured rows of §7 by their
// id: A1, B3, …; the measured immutable-file rows L1–L12 are written "§7 Ln" to keep them apart
// from the rule numbers L1–L10), never from running the code. The world is LinuxFixture.world
// (LinuxFixtures.swift); u1…u4 stand for acltu1…acltu4.

/// The parent suite: every table below is nested in it, so `--filter LinuxTests` selects them all.
@Suite("linux rule set")
struct LinuxTests {}

// MARK: - L2: owner bits, classic group/other by membership (§1.2 steps 2 and 4)

let linuxModeRows: [LRow] = [
    LRow(
        "E1 L2: the owner of a 0077 file is judged on the owner bits only", .u1, .read, "/m/f_owner",
        .deny(.EACCES, .mode, .ownerBitsMissing), at: "/m/f_owner"),
    LRow("E2 L2: anyone else reads the 0077 file through other", .u4, .read, "/m/f_owner", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L2: the owner cannot write her 0077 file although group and other grant", .u1, .write, "/m/f_owner",
        .deny(.EACCES, .mode, .ownerBitsMissing)),
    LRow(
        "L2: the owner, also in the owning group, cannot execute her 0077 file", .u1, .execute, "/m/f_owner",
        .deny(.EACCES, .mode, .ownerBitsMissing)),
    LRow(
        "B1 L2: an owning-group member with group --- is denied although other grants", .u2, .read, "/m/f_grpdeny",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("B2 L2: a non-member reads the 0606 file through other", .u4, .read, "/m/f_grpdeny", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L2: an owning-group member cannot write the 0606 file", .u2, .write, "/m/f_grpdeny",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("L2: a supplementary group counts: u2 reads a g1 0640 file", .u2, .read, "/m/f640", .allow(.mode, .groupBitsGrant)),
    LRow("L2: u2 writes the g1 0640 file (group r-- only)", .u2, .write, "/m/f640", .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("L2: u3 (not in g1) reads the 0640 file", .u3, .read, "/m/f640", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("L2: readwrite (O_RDWR) by the owner of a 0640 file", .u1, .readwrite, "/m/f640", .allow(.mode, .ownerBitsGrant)),
    LRow(
        "L2: readwrite needs both bits in the owner class: 0500", .u1, .readwrite, "/m/f_rx",
        .deny(.EACCES, .mode, .ownerBitsMissing)),
    LRow("L2: the primary group counts: u4 (g3) writes a g3 0060 file", .u4, .write, "/m/g3_0060", .allow(.mode, .groupBitsGrant)),
    LRow("L2: the owner of a g3 0060 file has no owner bits", .u1, .write, "/m/g3_0060", .deny(.EACCES, .mode, .ownerBitsMissing)),
    LRow("L2: a group that lists the user as a member counts", .u5, .read, "/m/inner0040", .allow(.mode, .groupBitsGrant)),
    LRow(
        "L2: a nested group does not count under linux (other --- decides)", .u5, .read, "/m/outer0040",
        .deny(.EACCES, .mode, .otherBitsMissing))
]

/// The same requests under linux and under macos: only the nesting differs.
struct NestedComparison: Sendable, CustomTestStringConvertible {
    var row: LRow
    var macos: Expect
    var testDescription: String { "\(row.label): linux \(row.expect), macos \(macos)" }
}

let linuxNestedRows: [NestedComparison] = [
    NestedComparison(
        row: LRow(
            "L2: u5 reads an outer 0040 file (outer nests inner)", .u5, .read, "/m/outer0040",
            .deny(.EACCES, .mode, .otherBitsMissing)),
        macos: .allow(.mode, .groupBitsGrant)),
    NestedComparison(
        row: LRow(
            "L2: u5 reads an inner 0040 file (listed member)", .u5, .read, "/m/inner0040",
            .allow(.mode, .groupBitsGrant)),
        macos: .allow(.mode, .groupBitsGrant))
]

extension LinuxTests {
    @Suite("linux L2: mode bits")
    struct Mode {
        @Test("L2 owner bits only for the owner; group bits by membership, else other (§1.2)", arguments: linuxModeRows)
        func mode(_ row: LRow) { checkLinux(row) }

        @Test("L2 nested groups: ignored by linux, resolved by macos", arguments: linuxNestedRows)
        func nested(_ c: NestedComparison) {
            checkLinux(c.row)
            checkLinux(c.row, semantics: .macos, expect: c.macos)
        }
    }
}

// MARK: - L3: POSIX ACL evaluation (§1.3 posix_acl_permission)

let linuxACLRows: [LRow] = [
    LRow("A1 L3: a named user reads within the mask", .u3, .read, "/acl/f_mask", .allow(.acl, .linuxNamedUser), at: "/acl/f_mask"),
    LRow("A2 L3: the named user's rw- is cut to r-- by the mask", .u3, .write, "/acl/f_mask", .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("A3 L3: append (>>) is a write for the named user", .u3, .append, "/acl/f_mask", .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("L3: no entry matches u4: other::--- decides", .u4, .read, "/acl/f_mask", .deny(.EACCES, .acl, .linuxACLOther)),
    LRow("L3: the owning-group entry r-- grants read to u2", .u2, .read, "/acl/f_mask", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "L3: u2 matched the owning group, nothing covers w: EACCES", .u2, .write, "/acl/f_mask",
        .deny(.EACCES, .acl, .linuxNoGroupEntryCovers)),
    LRow("L2: the mask never limits the owner (A1/A2 note)", .u1, .write, "/acl/f_mask", .allow(.mode, .ownerBitsGrant)),
    LRow(
        "B3 L3: named group --- matched; other::r-- is not consulted", .u3, .read, "/acl/f_ngdeny",
        .deny(.EACCES, .acl, .linuxNoGroupEntryCovers)),
    LRow("B4 L3: no group matches u4: other::r-- grants", .u4, .read, "/acl/f_ngdeny", .allow(.acl, .linuxACLOther)),
    LRow(
        "L3: u2 matches group::--- and g2:---: EACCES, other ignored", .u2, .read, "/acl/f_ngdeny",
        .deny(.EACCES, .acl, .linuxNoGroupEntryCovers)),
    LRow("C1 L3: owning group r-- covers O_RDONLY", .u2, .read, "/acl/f_multigrp", .allow(.acl, .linuxGroupEntry)),
    LRow("C2 L3: named group -w- covers O_WRONLY", .u2, .write, "/acl/f_multigrp", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "C3 L3: O_RDWR: no single group entry covers rw", .u2, .readwrite, "/acl/f_multigrp",
        .deny(.EACCES, .acl, .linuxNoGroupEntryCovers)),
    LRow("L3: u3 (g2 only) writes through the named group", .u3, .write, "/acl/f_multigrp", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "L3: u3 (g2 only) reads: g2 -w- does not cover r", .u3, .read, "/acl/f_multigrp",
        .deny(.EACCES, .acl, .linuxNoGroupEntryCovers)),
    LRow("F1 L3: a named-user --- beats the owning group's rwx", .u2, .read, "/acl/f_nu_vs_grp", .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow(
        "L3: named user r-- decides alone: no write although group:: rw- covers it", .u2, .write, "/acl/f_nu_grp",
        .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("L3: named user r-- reads", .u2, .read, "/acl/f_nu_grp", .allow(.acl, .linuxNamedUser)),
    LRow(
        "Y1 L2: a user:<owner>:rwx entry does not help the owner (u::---)", .u1, .read, "/acl/f_owner_named",
        .deny(.EACCES, .mode, .ownerBitsMissing)),
    LRow(
        "X1 L3: 0666 + user:u4:--- denies u4 (no fast path with an ACL)", .u4, .read, "/acl/f_allgrant",
        .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("X2 L3: u3 reads the same file through other::rw-", .u3, .read, "/acl/f_allgrant", .allow(.acl, .linuxACLOther)),
    LRow(
        "L3: group:: rw- covers w but the mask r-- cuts it; other rw- is not consulted", .u2, .write, "/acl/f_grpmasked",
        .deny(.EACCES, .acl, .linuxGroupEntry)),
    LRow("L3: named group rwx covers w, mask r-- cuts it", .u4, .write, "/acl/f_grpmasked", .deny(.EACCES, .acl, .linuxGroupEntry)),
    LRow("L3: named group rwx & mask r-- reads", .u4, .read, "/acl/f_grpmasked", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "L3: the mask never limits other: u5 writes through other::rw-", .u5, .write, "/acl/f_grpmasked",
        .allow(.acl, .linuxACLOther)),
    LRow(
        "L3: a named entry for a nested group does not match under linux", .u5, .read, "/acl/f_outer",
        .deny(.EACCES, .acl, .linuxACLOther)),
    LRow("L3: a named entry for a group the user is listed in matches", .u5, .read, "/acl/f_inner", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "L2 §1.2 step 3: on a volume without ACL support the named user is plain other", .u3, .read, "/noacl/f",
        .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow(
        "L2 §1.2 step 3: on a volume without ACL support u2 is judged on the group bits", .u2, .write, "/noacl/f",
        .allow(.mode, .groupBitsGrant))
]

extension LinuxTests {
    @Suite("linux L3: POSIX ACLs")
    struct POSIXACLs {
        @Test("L3 named user alone with the mask; one group entry must cover all bits; else other (§1.3)", arguments: linuxACLRows)
        func acl(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L2: the mask-`---` quirk (§1.3 "Quirk"; D1, D3, V1, X16)

let linuxMaskQuirkRows: [LRow] = [
    LRow(
        "D1 L2: mask --- skips the ACL: named user u3 reads through other::r--", .u3, .read, "/mq/f_masknone",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxMaskEmptySkipsACL),
    LRow(
        "D3 L2: mask --- skips the ACL: u4's named group rw- is ignored, other grants", .u4, .read, "/mq/f_masknone",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxMaskEmptySkipsACL),
    LRow(
        "D4 L2: mask ---: u2 (owning group) gets the group bits ---", .u2, .read, "/mq/f_masknone",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("D5 L2: mask ---: u3 writes, other::r-- lacks w", .u3, .write, "/mq/f_masknone", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("L2: the owner of the mask --- file reads with the owner bits", .u1, .read, "/mq/f_masknone", .allow(.mode, .ownerBitsGrant)),
    LRow("D6 L3: same ACL with mask r--: the named user reads", .u3, .read, "/mq/f_maskr", .allow(.acl, .linuxNamedUser)),
    LRow("D7 L3: same ACL with mask r--: the named user cannot write", .u3, .write, "/mq/f_maskr", .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("L3: mask r--: u4's named group rw- reads", .u4, .read, "/mq/f_maskr", .allow(.acl, .linuxGroupEntry)),
    LRow(
        "L3: mask r--: u4's named group rw- covers w, the mask cuts it", .u4, .write, "/mq/f_maskr",
        .deny(.EACCES, .acl, .linuxGroupEntry)),
    LRow(
        "V1 L2: after chmod 0604 (mask ---) u3's rw- entry is skipped; other r-- grants", .u3, .read, "/mq/f_chmod",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxMaskEmptySkipsACL),
    LRow(
        "L2: with mask --- a named user:u4:--- entry denies nothing", .u4, .read, "/mq/f_namedeny",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxMaskEmptySkipsACL),
    LRow(
        "L2: with mask --- a named user in the owning group is judged on the group bits", .u2, .read, "/mq/f_maskgrp",
        .deny(.EACCES, .mode, .groupBitsMissing), traceHas: .linuxMaskEmptySkipsACL),
    LRow(
        "X16 L2: user:u3:--- on a mask --- dir does not stop traversal", .u3, .read, "/mq/d_masknone/f",
        .allow(.mode, .otherBitsGrant), at: "/mq/d_masknone/f"),
    LRow(
        "X16 L2: u3 searches the mask --- dir through other::--x", .u3, .search, "/mq/d_masknone",
        .allow(.mode, .otherBitsGrant), traceHas: .linuxMaskEmptySkipsACL),
    LRow("L2: u3 lists the mask --- dir: other --x has no r", .u3, .list, "/mq/d_masknone", .deny(.EACCES, .mode, .otherBitsMissing))
]

extension LinuxTests {
    @Suite("linux L2: mask ---")
    struct MaskQuirk {
        @Test("L2 with the mode's group bits (the mask) at --- the kernel never reads the ACL (§1.3 quirk)", arguments: linuxMaskQuirkRows)
        func maskQuirk(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L4: root's capabilities (§1.4; G1–G13, H8, H9, X11)

let linuxRootRows: [LRow] = [
    LRow("G1 L4: root reads a 0000 file (CAP_DAC_READ_SEARCH)", .root, .read, "/cap/f_root0", .allow(.root, .linuxCapReadSearch)),
    LRow("G2 L4: root writes a 0000 file (CAP_DAC_OVERRIDE)", .root, .write, "/cap/f_root0", .allow(.root, .linuxCapOverride)),
    LRow("L4: root opens a 0000 file O_RDWR", .root, .readwrite, "/cap/f_root0", .allow(.root, .linuxCapOverride)),
    LRow("G3 L4: root cannot execute a 0000 file", .root, .execute, "/cap/f_root0", .deny(.EACCES, .root, .linuxCapExecNeedsX)),
    LRow("G5 L2: root executes a 0001 file: other --x already grants", .root, .execute, "/cap/f_root_ox", .allow(.mode, .otherBitsGrant)),
    LRow("L4: root executes a 0100 file: any x bit lets CAP_DAC_OVERRIDE in", .root, .execute, "/cap/f_ux", .allow(.root, .linuxCapOverride)),
    LRow("G13 L4: root cannot execute a 0644 file", .root, .execute, "/cap/f_root_644", .deny(.EACCES, .root, .linuxCapExecNeedsX)),
    LRow(
        "G6 L4: the mask's x is the group x bit: root executes 0650 + ACL", .root, .execute, "/cap/f_root_aclx",
        .allow(.root, .linuxCapOverride)),
    LRow("G8 L3: u3 executes through its named r-x entry", .u3, .execute, "/cap/f_root_aclx", .allow(.acl, .linuxNamedUser)),
    LRow(
        "G7 L4: named rwx but mask rw-: no x bit in the mode, root is refused", .root, .execute, "/cap/f_root_aclx_masked",
        .deny(.EACCES, .root, .linuxCapExecNeedsX)),
    LRow("L3: the mask rw- also cuts u3's named x", .u3, .execute, "/cap/f_root_aclx_masked", .deny(.EACCES, .acl, .linuxNamedUser)),
    LRow("G9 L4: a user:root:--- entry does not stop root reading", .root, .read, "/cap/f_root_deny", .allow(.root, .linuxCapReadSearch)),
    LRow("L4: a user:root:--- entry does not stop root writing", .root, .write, "/cap/f_root_deny", .allow(.root, .linuxCapOverride)),
    LRow("X11 L4: root opens a 0444 file for writing", .root, .write, "/cap/f_ro", .allow(.root, .linuxCapOverride)),
    LRow("H8 L4: root reads a file inside a 0000 dir", .root, .read, "/cap/d_0000/f", .allow(.mode, .otherBitsGrant)),
    LRow("L4: root lists a 0000 dir", .root, .list, "/cap/d_0000", .allow(.root, .linuxCapReadSearch)),
    LRow("L4: root searches a 0000 dir", .root, .search, "/cap/d_0000", .allow(.root, .linuxCapReadSearch)),
    LRow("H9 L4: root creates a file in a 0000 dir", .root, .create, "/cap/d_0000/rootnew", .allow(.root, .linuxCapOverride)),
    LRow("L4: root makes a directory in a 0000 dir", .root, .mkdir, "/cap/d_0000/sub", .allow(.root, .linuxCapOverride)),
    LRow("L4: root deletes from a 0000 dir", .root, .delete, "/cap/d_0000/f", .allow(.root, .linuxCapOverride)),
    LRow(
        "L4: root owns a 0011 file: owner bits --- refuse, any x bit lets CAP_DAC_OVERRIDE in", .root, .execute,
        "/cap/f_rootown011", .allow(.root, .linuxCapOverride)),
    LRow("L2: the 0000 dir's owner (not root) cannot list it", .u1, .list, "/cap/d_0000", .deny(.EACCES, .mode, .ownerBitsMissing))
]

extension LinuxTests {
    @Suite("linux L4: root")
    struct Root {
        @Test("L4 capabilities after DAC refused: read/search any, write any, exec only with an x bit (§1.4)", arguments: linuxRootRows)
        func root(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L1: path traversal and symlinks (§2; H1–H7, Z1–Z3)

let linuxTraversalRows: [LRow] = [
    LRow(
        "H1 L1: read a file in a dir without x for u4", .u4, .read, "/t/d_nox/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/d_nox"),
    LRow("H2 L2: listing needs r, not x", .u4, .list, "/t/d_nox", .allow(.mode, .otherBitsGrant)),
    LRow("H3 L1: stat of a file in a dir without x", .u4, .stat, "/t/d_nox/f", .deny(.EACCES, .traversal, .searchDenied)),
    LRow("L1: the dir owner has x on 0744", .u1, .read, "/t/d_nox/f", .allow(.mode, .ownerBitsGrant)),
    LRow("H4 L1: x without r is enough to open dir/f", .u4, .read, "/t/d_xonly/f", .allow(.mode, .otherBitsGrant)),
    LRow("H5 L2: x without r cannot list", .u4, .list, "/t/d_xonly", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow(
        "L1: stat needs only search: a 0000 file in a searchable dir", .u4, .stat, "/t/d_xonly/f0",
        .allow(.traversal, .linuxStatNeedsSearchOnly)),
    LRow("L2: but reading the 0000 file is refused", .u4, .read, "/t/d_xonly/f0", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("H6 L1: search through a named user:u4:--x entry", .u4, .read, "/t/d_aclx/f", .allow(.mode, .otherBitsGrant)),
    LRow(
        "H7 L1: owning group --- on the dir: u2 cannot search it", .u2, .read, "/t/d_aclx/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/d_aclx"),
    LRow(
        "L1: search is needed on every ancestor, not only the parent", .u4, .read, "/t/outer/inner/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/outer"),
    LRow(
        "L1: `..` is looked up in the dir too, so it needs x on it", .u4, .stat, "/t/d_nox/..",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/d_nox"),
    LRow(
        "Z1 L1: a symlink to a file in a non-searchable dir", .u4, .read, "/t/ln_nox",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/d_nox"),
    LRow("Z2 L2: a symlink gives the target's answer: other rw-", .u4, .read, "/t/ln_grpdeny", .allow(.mode, .otherBitsGrant)),
    LRow(
        "Z3 L2: a symlink gives the target's answer: owning group ---", .u2, .read, "/t/ln_grpdeny",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("L1: a symlink in the middle of a path is followed", .u4, .read, "/t/lndir/f", .allow(.mode, .otherBitsGrant)),
    LRow("L1: a symlink's own permissions are never checked (0000 link)", .u4, .read, "/t/ln0000", .allow(.mode, .otherBitsGrant)),
    LRow("P3: a chain of exactly 40 symlinks resolves", .u4, .read, "/t/chain/l1", .allow(.mode, .otherBitsGrant)),
    LRow("P3: a chain of 41 symlinks is ELOOP", .u4, .read, "/t/chain/l0", .deny(.ELOOP, .traversal, .symlinkLoop)),
    LRow("P3: a symlink loop is ELOOP", .u4, .read, "/t/loop1", .deny(.ELOOP, .traversal, .symlinkLoop)),
    LRow(
        "P2: a non-directory in the middle of a path is ENOTDIR", .u4, .read, "/t/d_xonly/f/x",
        .deny(.ENOTDIR, .traversal, .notADirectory)),
    LRow("P2: a missing directory in the path is ENOENT", .u4, .read, "/t/missing/f", .deny(.ENOENT, .traversal, .notFound)),
    // A trailing slash (path_resolution(7); measured on this machine's kernel, 2026-11-28:
    // open, stat, chmod and unlink of `f/` and of `l/` for a symlink to a file ENOTDIR,
    // open(O_CREAT) of `new/`, `f/` and `d/` EISDIR, rmdir of `d/` done).
    LRow(
        "P2: a file with a trailing slash is ENOTDIR", .u4, .read, "/t/d_xonly/f/", .deny(.ENOTDIR, .traversal, .notADirectory),
        at: "/t/d_xonly/f"),
    LRow(
        "P2: a trailing slash follows a symlink to a file: ENOTDIR on the file", .u4, .read, "/t/ln0000/",
        .deny(.ENOTDIR, .traversal, .notADirectory), at: "/t/d_xonly/f"),
    LRow(
        "P2: unlink of a symlink with a trailing slash is ENOTDIR (the link is not followed)", .u4, .delete, "/t/ln0000/",
        .deny(.ENOTDIR, .traversal, .notADirectory), at: "/t/ln0000"),
    LRow(
        "O1: open(O_CREAT) of a new name with a trailing slash is EISDIR", .u4, .create, "/t/new/", .deny(.EISDIR, .type, .isDirectory),
        at: "/t"),
    LRow(
        "O1: open(O_CREAT) of an existing file with a trailing slash is EISDIR", .u4, .creat, "/t/d_xonly/f/",
        .deny(.EISDIR, .type, .isDirectory), at: "/t/d_xonly/f"),
    LRow(
        "O1: open(O_CREAT) of a looping symlink with a trailing slash is EISDIR, before the link is followed", .u4, .creat, "/t/loop1/",
        .deny(.EISDIR, .type, .isDirectory), at: "/t/loop1"),
    LRow(
        "O6: rmdir of `dir/.` is EINVAL (do_rmdir: LAST_DOT)", .u1, .delete, "/t/outer/inner/.", .deny(.EINVAL, .type, .removeDot),
        at: "/t/outer/inner"),
    LRow(
        "P1: a last `.` is looked up in its folder, which needs search: d_nox/. is EACCES", .u4, .stat, "/t/d_nox/.",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/d_nox")
]

extension LinuxTests {
    @Suite("linux L1: traversal")
    struct Traversal {
        @Test("L1 x on every directory walked (EACCES, layer traversal); stat needs only search; symlinks (§2)", arguments: linuxTraversalRows)
        func traversal(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L5: opening for write or exec: inode flags, volumes, types (§1.1, §1.6, §4.3)

let linuxOpenRows: [LRow] = [
    LRow("N1 L5: root appends (O_APPEND) to an append-only file", .root, .append, "/o/f_app", .allow(.mode, .otherBitsGrant)),
    LRow("N2/X14 L5: u2 appends to the append-only file", .u2, .append, "/o/f_app", .allow(.mode, .groupBitsGrant)),
    LRow(
        "N3 L5: root opens the append-only file O_WRONLY|O_TRUNC (`>`)", .root, .write, "/o/f_app",
        .deny(.EPERM, .flags, .linuxAppendNeedsOAppend), at: "/o/f_app"),
    LRow("N4 L5: u2 opens the append-only file O_WRONLY", .u2, .write, "/o/f_app", .deny(.EPERM, .flags, .linuxAppendNeedsOAppend)),
    LRow("N5 L5: root truncates the append-only file", .root, .truncate, "/o/f_app", .deny(.EPERM, .flags, .linuxAppendNeedsOAppend)),
    LRow(
        "L5: O_RDWR without O_APPEND on an append-only file", .u2, .readwrite, "/o/f_app",
        .deny(.EPERM, .flags, .linuxAppendNeedsOAppend)),
    LRow("X13 L5: reading an append-only file is fine", .u2, .read, "/o/f_app", .allow(.mode, .groupBitsGrant)),
    LRow("L5: O_APPEND still needs w: DAC first", .u4, .append, "/o/f_app644", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("§7 L1, rule L2: root appends to an immutable file", .root, .append, "/o/f_imm", .deny(.EPERM, .flags, .immutable), at: "/o/f_imm"),
    LRow("§7 L11, rule L2: root asks for write on an immutable file", .root, .write, "/o/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: root truncates an immutable file", .root, .truncate, "/o/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("§7 L2, rule L2: root reads an immutable file", .root, .read, "/o/f_imm", .allow(.mode, .ownerBitsGrant)),
    LRow("X3 L2: u2 writes an immutable 0666 file", .u2, .write, "/o/f_immuser", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: the owner writes her immutable 0666 file", .u1, .write, "/o/f_immuser", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: executing an immutable file is allowed", .root, .execute, "/o/f_immx", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: immutable is checked before DAC: u4 (no w anyway) gets EPERM", .u4, .write, "/o/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("L2: O_RDWR on an immutable file by root", .root, .readwrite, "/o/f_imm", .deny(.EPERM, .flags, .immutable)),
    LRow("M3 L2: files inside an immutable dir stay writable", .root, .append, "/d/imm/inner", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: an immutable dir can still be listed", .u4, .list, "/c/imm", .allow(.mode, .otherBitsGrant)),
    LRow("L2: lookup inside an immutable dir is allowed", .u4, .read, "/c/imm/inner", .allow(.mode, .otherBitsGrant)),
    LRow("L2: write on a read-only volume", .u2, .write, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro/f"),
    LRow("L2: root writes on a read-only volume", .root, .write, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("L2: EROFS comes before DAC (u4 has no w on the 0644 file)", .u4, .write, "/ro/f644", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("L2: reading on a read-only volume", .u2, .read, "/ro/f", .allow(.mode, .groupBitsGrant)),
    LRow("L2: writing a fifo on a read-only volume is not EROFS", .u2, .write, "/ro/fifo", .allow(.mode, .groupBitsGrant)),
    LRow("L5: execute on a noexec mount", .u4, .execute, "/nx/tool", .deny(.EACCES, .volume, .noexecVolume)),
    LRow("L5: root executes on a noexec mount", .root, .execute, "/nx/tool", .deny(.EACCES, .volume, .noexecVolume)),
    LRow("L5: reading on a noexec mount", .u4, .read, "/nx/tool", .allow(.mode, .otherBitsGrant)),
    LRow("L2: execute a 0755 file", .u4, .execute, "/o/tool", .allow(.mode, .otherBitsGrant)),
    LRow("L2: execute a 0644 file", .u4, .execute, "/o/tool644", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("L5: execute a directory", .u4, .execute, "/o/dir", .deny(.EACCES, .type, .notRegularExec)),
    LRow("L5: execute a 0777 fifo", .u4, .execute, "/o/fifo", .deny(.EACCES, .type, .notRegularExec)),
    LRow("O1: open a directory for writing is EISDIR", .root, .write, "/o/dir", .deny(.EISDIR, .type, .isDirectory))
]

extension LinuxTests {
    @Suite("linux L5: open")
    struct Open {
        @Test("L5 append-only needs O_APPEND; immutable refuses writes for root; EROFS; noexec (§1.1, §4.3)", arguments: linuxOpenRows)
        func open(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - may_create: create and mkdir (§3; K2, K3, M1, O1)

let linuxCreateRows: [LRow] = [
    LRow(
        "K2 L2: create needs w+x on the parent: group r-x", .u2, .create, "/c/nowrite/new",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/c/nowrite"),
    LRow("L2: the parent's owner creates", .u1, .create, "/c/nowrite/new", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: mkdir without w on the parent", .u4, .mkdir, "/c/nowrite/new", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("K3 L3: create through a named user:u2:rwx entry", .u2, .create, "/c/aclw/new", .allow(.acl, .linuxNamedUser)),
    LRow("L3: create in the ACL'd dir as u4: other r-x", .u4, .create, "/c/aclw/new", .deny(.EACCES, .acl, .linuxACLOther)),
    LRow(
        "P4: create an existing name is EEXIST before the permission check", .u4, .create, "/c/nowrite/f",
        .deny(.EEXIST, .traversal, .exists)),
    LRow("P4: mkdir an existing name is EEXIST", .u4, .mkdir, "/c/nowrite/f", .deny(.EEXIST, .traversal, .exists)),
    LRow("M1 L2: root creates in an immutable dir", .root, .create, "/c/imm/new", .deny(.EPERM, .flags, .immutable), at: "/c/imm"),
    LRow("L2: mkdir in an immutable 0777 dir", .u2, .mkdir, "/c/imm/new", .deny(.EPERM, .flags, .immutable)),
    LRow("P4: EEXIST comes before the immutable dir's EPERM", .root, .create, "/c/imm/inner", .deny(.EEXIST, .traversal, .exists)),
    LRow("O1 L4: root creates in an append-only dir", .root, .create, "/c/app/new", .allow(.root, .linuxCapOverride)),
    LRow("L6: the owner makes a directory in her append-only dir", .u1, .mkdir, "/c/app/sub", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: create on a read-only volume", .u2, .create, "/ro/d/new", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("P4: EEXIST before EROFS", .u2, .create, "/ro/d/x", .deny(.EEXIST, .traversal, .exists)),
    LRow(
        "P4: O_CREAT|O_EXCL does not follow a trailing (dangling) symlink", .u1, .create, "/c/open/link",
        .deny(.EEXIST, .traversal, .exists)),
    LRow("P2: create under a missing directory", .u1, .create, "/c/missing/new", .deny(.ENOENT, .traversal, .notFound))
]

extension LinuxTests {
    @Suite("linux: create")
    struct Create {
        @Test("may_create: EEXIST first, then w+x on the parent (immutable EPERM, append-only allowed) (§3)", arguments: linuxCreateRows)
        func create(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L6: may_delete (§3; I1–I4, J1, K1, K4, L3, M2, N6, O2, X15)

let linuxDeleteRows: [LRow] = [
    LRow(
        "I1 L6: u2 deletes u1's file from u3's 1777 dir", .u2, .delete, "/d/sticky/s1",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner), at: "/d/sticky"),
    LRow("I2 L6: the sticky dir's owner deletes", .u3, .delete, "/d/sticky/s2", .allow(.mode, .ownerBitsGrant)),
    LRow("I3 L6: root deletes from the sticky dir (CAP_FOWNER)", .root, .delete, "/d/sticky/s3", .allow(.mode, .otherBitsGrant)),
    LRow("I4 L6: the file's owner deletes from the sticky dir", .u1, .delete, "/d/sticky/s4", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L6: the dir's group grants w, the sticky bit still refuses u4", .u4, .delete, "/d/sticky/s1",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner)),
    LRow("L6: u2 deletes its own file from the sticky dir", .u2, .delete, "/d/sticky/s_u2", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L6: the sticky check comes before the victim's immutable flag", .u2, .delete, "/d/sticky/s_imm",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner)),
    LRow(
        "L6: the owner passes the sticky check, the immutable victim refuses", .u1, .delete, "/d/sticky/s_imm",
        .deny(.EPERM, .flags, .immutable), at: "/d/sticky/s_imm"),
    LRow(
        "J1 L6: the victim's own mode is irrelevant: u2 deletes u1's 0600 file", .u2, .delete, "/d/open/o1",
        .allow(.mode, .otherBitsGrant), at: "/d/open"),
    LRow("L6: u4 deletes u1's 0000 file from a 0777 dir", .u4, .delete, "/d/open/o0", .allow(.mode, .otherBitsGrant)),
    LRow("K1 L6: delete without w on the dir", .u2, .delete, "/d/nowrite/f", .deny(.EACCES, .mode, .groupBitsMissing), at: "/d/nowrite"),
    LRow("L6: the dir's owner deletes", .u1, .delete, "/d/nowrite/f", .allow(.mode, .ownerBitsGrant)),
    LRow("K4 L3: delete through a named user:u2:rwx entry on the dir", .u2, .delete, "/d/aclw/f", .allow(.acl, .linuxNamedUser)),
    LRow("M2 L6: root deletes from an immutable dir", .root, .delete, "/d/imm/inner", .deny(.EPERM, .flags, .immutable), at: "/d/imm"),
    LRow("O2 L6: root deletes from an append-only dir", .root, .delete, "/d/app/old", .deny(.EPERM, .flags, .parentAppendOnly), at: "/d/app"),
    LRow(
        "L6: the owner deletes her file from her append-only dir", .u1, .delete, "/d/app/old",
        .deny(.EPERM, .flags, .parentAppendOnly)),
    LRow("§7 L3, rule L6: root deletes an immutable file", .root, .delete, "/d/open/f_imm", .deny(.EPERM, .flags, .immutable), at: "/d/open/f_imm"),
    LRow("N6 L6: root deletes an append-only file", .root, .delete, "/d/open/f_app", .deny(.EPERM, .flags, .appendOnly), at: "/d/open/f_app"),
    LRow("X15 L6: root removes an empty immutable directory", .root, .delete, "/d/open/d_emptyimm", .deny(.EPERM, .flags, .immutable)),
    LRow(
        "O3: a non-empty directory is ENOTEMPTY after the permission check", .u2, .delete, "/d/open/full",
        .deny(.ENOTEMPTY, .type, .notEmpty)),
    LRow("O3: EACCES comes before ENOTEMPTY", .u2, .delete, "/d/nowrite/full", .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("L6: removing u1's empty 0700 dir needs nothing on the dir itself", .u2, .delete, "/d/open/empty", .allow(.mode, .otherBitsGrant)),
    LRow(
        "L1 L6: delete needs x on the dir too (0776: other rw-)", .u4, .delete, "/d/wnox/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/d/wnox"),
    LRow(
        "L6 §2: unlink works on a trailing symlink itself, not on its immutable target", .root, .delete, "/d/open/ln_imm",
        .allow(.mode, .ownerBitsGrant)),
    LRow("L2: delete on a read-only volume", .u2, .delete, "/ro/d/x", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("P2: deleting a name that does not exist", .u2, .delete, "/d/open/nothing", .deny(.ENOENT, .traversal, .notFound)),
    LRow("O6: removing the root directory is EBUSY", .root, .delete, "/", .deny(.EBUSY, .type, .busyRoot))
]

extension LinuxTests {
    @Suite("linux L6: delete")
    struct Delete {
        @Test("L6 may_delete: w+x on the dir (EACCES), append-only dir, sticky, victim flags (EPERM), ENOTEMPTY (§3)", arguments: linuxDeleteRows)
        func delete(_ row: LRow) { checkLinux(row) }
    }
}

// MARK: - L7: rename (§3; I5, L4, M4, N7, O3, Z4, Z5)

let linuxRenameRows: [LRow] = [
    LRow(
        "I5 L6: u2 renames u1's file inside u3's 1777 dir", .u2, .rename, "/r/sticky/s5", to: "/r/sticky/s5b",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner), at: "/r/sticky"),
    LRow(
        "L6: the file's owner renames inside the sticky dir", .u1, .rename, "/r/sticky/s5", to: "/r/sticky/s5c",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "L6: a replaced target in a sticky dir needs may_delete: u2 over u1's file", .u2, .rename, "/r/open/fu2", to: "/r/sticky/t_u1",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner), at: "/r/sticky"),
    LRow(
        "L6: u1 replaces its own file in the sticky dir", .u1, .rename, "/r/open/u1file", to: "/r/sticky/t_u1",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "L6: the sticky rule is for deleting: a new name in a sticky dir is fine", .u2, .rename, "/r/open/fu2", to: "/r/sticky/new",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "L6: the replaced target's dir needs w+x", .u2, .rename, "/r/open/fu2", to: "/r/nowrite/tf",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/r/nowrite"),
    LRow(
        "L2: a new name needs w+x on the target dir", .u2, .rename, "/r/open/fu2", to: "/r/nowrite/new",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/r/nowrite"),
    LRow(
        "L6: the source dir needs w+x", .u2, .rename, "/r/nowrite/tf", to: "/r/open/x",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/r/nowrite"),
    LRow(
        "Z4 L7: renaming someone's directory within one parent needs no w on it", .u2, .rename, "/r/open/u1dir", to: "/r/open/u1dir2",
        .allow(.mode, .otherBitsGrant)),
    LRow(
        "Z5 L7: moving it to another parent needs w on the directory itself", .u2, .rename, "/r/open/u1dir", to: "/r/open/dst/u1dir",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/r/open/u1dir", traceHas: .linuxMoveDirNeedsWrite),
    LRow(
        "L7: the directory's owner moves it to another parent", .u1, .rename, "/r/open/u1dir", to: "/r/open/dst/u1dir",
        .allow(.mode, .ownerBitsGrant)),
    LRow(
        "L7 L4: root moves u1's 0755 directory to another parent", .root, .rename, "/r/open/u1dir", to: "/r/open/dst/u1dir",
        .allow(.root, .linuxCapOverride)),
    LRow(
        "L7: moving a file to another parent needs no w on the file", .u2, .rename, "/r/open/u1file", to: "/r/open/dst/u1file",
        .allow(.mode, .otherBitsGrant)),
    LRow("P5: rename across volumes is EXDEV", .u2, .rename, "/r/open/fu2", to: "/vol2/x", .deny(.EXDEV, .volume, .crossDevice)),
    LRow(
        "O5: moving a directory into itself is EINVAL", .u1, .rename, "/r/open/u1dir", to: "/r/open/u1dir/sub",
        .deny(.EINVAL, .type, .renameIntoSelf)),
    LRow(
        "type: a directory over a file is ENOTDIR", .u2, .rename, "/r/open/d2", to: "/r/open/fu2b",
        .deny(.ENOTDIR, .type, .notADirectory)),
    LRow("type: a file over a directory is EISDIR", .u2, .rename, "/r/open/fu2", to: "/r/open/d2", .deny(.EISDIR, .type, .isDirectory)),
    LRow(
        "O3: a directory over a non-empty directory is ENOTEMPTY", .u1, .rename, "/r/open/u1dir", to: "/r/open/dfull",
        .deny(.ENOTEMPTY, .type, .notEmpty)),
    LRow("L7: a directory over an empty directory", .u1, .rename, "/r/open/u1dir", to: "/r/open/dempty", .allow(.mode, .otherBitsGrant)),
    LRow(
        "§7 L4, rule L6: root renames an immutable file", .root, .rename, "/r/open/f_imm", to: "/r/open/f_imm2",
        .deny(.EPERM, .flags, .immutable), at: "/r/open/f_imm"),
    LRow(
        "N7 L6: root renames an append-only file", .root, .rename, "/r/open/f_app", to: "/r/open/f_app2",
        .deny(.EPERM, .flags, .appendOnly)),
    LRow(
        "O3 L6: root renames inside an append-only dir", .root, .rename, "/r/app/old", to: "/r/app/old2",
        .deny(.EPERM, .flags, .parentAppendOnly), at: "/r/app"),
    LRow(
        "M4 L6: root renames inside an immutable dir", .root, .rename, "/r/imm/inner", to: "/r/imm/inner2",
        .deny(.EPERM, .flags, .immutable), at: "/r/imm"),
    LRow(
        "L6: a replaced immutable target refuses", .u2, .rename, "/r/open/fu2", to: "/r/open/f_imm",
        .deny(.EPERM, .flags, .immutable), at: "/r/open/f_imm"),
    LRow(
        "L7 §2: rename works on a trailing symlink itself, not on its immutable target", .root, .rename, "/r/open/ln_imm",
        to: "/r/open/ln2", .allow(.mode, .ownerBitsGrant)),
    LRow("L2: rename on a read-only volume", .u2, .rename, "/ro/d/x", to: "/ro/d/y", .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow(
        "L7: renaming a name onto itself does nothing", .u2, .rename, "/r/open/fu2", to: "/r/open/fu2",
        .allow(.type, .nothingToChange))
]

extension LinuxTests {
    @Suite("linux L7: rename")
    struct Rename {
        @Test("L7 rename: may_delete on the source and a replaced target, w on a moved directory, EXDEV/EINVAL/types (§3)", arguments: linuxRenameRows)
        func rename(_ row: LRow) { checkLinux(row) }
    }
}
