import Testing
import FSPolicy

// Reference §2.3 (vnode_authorize_checkimmutable, the flag table, setting rules, securelevel),
// §2.2 steps 9.1–9.2 (node, then parent for delete; root included), §2.6 (chflags is not
// rewritten to EPERM), §5 rows 8–9.

/// §2.3: any write right on a uchg/schg node → EPERM; uappnd/sappnd the same except the
/// append-exempt rights (files: APPEND_DATA, WRITE_EXTATTRIBUTES; dirs: ADD_FILE,
/// ADD_SUBDIRECTORY, WRITE_EXTATTRIBUTES); the parent is checked as DELETE_CHILD for delete;
/// WRITE_DATA is dropped for fifos/devices first.
let flagRows: [Row] = [
    Row("bob writes a 0666 uchg file", .bob, .write, "/fl/uchg", .deny(.EPERM, .flags, .immutable), at: "/fl/uchg"),
    Row("alice (owner) writes her uchg file", .alice, .write, "/fl/uchg", .deny(.EPERM, .flags, .immutable)),
    Row("bob reads a uchg file", .bob, .read, "/fl/uchg", .allow(.mode, .otherBitsGrant)),
    Row("bob executes a 0755 uchg file", .bob, .execute, "/fl/uchgx", .allow(.mode, .otherBitsGrant)),
    Row("bob writes a 0666 schg file", .bob, .write, "/fl/schg", .deny(.EPERM, .flags, .immutable)),
    Row("bob deletes a uchg file from a 0777 dir", .bob, .delete, "/fl/uchg", .deny(.EPERM, .flags, .immutable), at: "/fl/uchg"),
    Row("bob sets an xattr on a uchg file", .bob, .writeextattr, "/fl/uchg", .deny(.EPERM, .flags, .immutable)),
    Row("alice touches her uchg file", .alice, .touch, "/fl/uchg", .deny(.EPERM, .flags, .immutable)),
    Row("bob hard-links a uchg file", .bob, .link, "/fl/uchg", to: "/fl/ln", .deny(.EPERM, .flags, .immutable)),
    Row("bob writes a uchg file whose ACE allows him write (flags beat ACL)", .bob, .write, "/fl/aclu", .deny(.EPERM, .flags, .immutable)),
    Row("bob deletes a uchg file whose ACE allows him delete", .bob, .delete, "/fl/aclu", .deny(.EPERM, .flags, .immutable)),
    Row("bob writes a 0666 uchg fifo (WRITE_DATA on a fifo is not checked)", .bob, .write, "/fl/fifo", .allow(.mode, .otherBitsGrant)),
    Row("bob writes a nodump file (no effect)", .bob, .write, "/fl/nodump", .allow(.mode, .otherBitsGrant)),
    Row("bob overwrites a uappnd file", .bob, .write, "/fl/uapp", .deny(.EPERM, .flags, .appendOnly), at: "/fl/uapp"),
    Row("bob truncates a uappnd file", .bob, .truncate, "/fl/uapp", .deny(.EPERM, .flags, .appendOnly)),
    Row("bob appends (O_APPEND) to a uappnd file", .bob, .append, "/fl/uapp", .allow(.mode, .otherBitsGrant)),
    Row("bob sets an xattr on a uappnd file", .bob, .writeextattr, "/fl/uapp", .allow(.mode, .otherBitsGrant)),
    Row("bob deletes a uappnd file", .bob, .delete, "/fl/uapp", .deny(.EPERM, .flags, .appendOnly)),
    Row("alice chmods her uappnd file", .alice, .chmod, "/fl/uapp", mode: 0o600, .deny(.EPERM, .flags, .appendOnly)),
    Row("root appends to a uappnd file", .root, .append, "/fl/uapp", .allow(.root, .rootAllowed)),
    Row("bob overwrites a sappnd file", .bob, .write, "/fl/sapp", .deny(.EPERM, .flags, .appendOnly)),
    Row("bob appends to a sappnd file", .bob, .append, "/fl/sapp", .allow(.mode, .otherBitsGrant)),
    Row("bob sets an xattr on a sappnd file", .bob, .writeextattr, "/fl/sapp", .allow(.mode, .otherBitsGrant)),
    Row("bob creates a file in a uappnd dir", .bob, .create, "/fl/adir/new", .allow(.mode, .otherBitsGrant), at: "/fl/adir"),
    Row("bob makes a directory in a uappnd dir", .bob, .mkdir, "/fl/adir/newd", .allow(.mode, .otherBitsGrant)),
    Row("bob sets an xattr on a uappnd dir", .bob, .writeextattr, "/fl/adir", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob deletes a file from a uappnd dir (parent checked as delete_child)", .bob, .delete, "/fl/adir/f",
        .deny(.EPERM, .flags, .parentAppendOnly), at: "/fl/adir"),
    Row("bob renames a file out of a uappnd dir", .bob, .rename, "/fl/adir/f", to: "/fl/moved", .deny(.EPERM, .flags, .parentAppendOnly)),
    Row("alice touches her uappnd dir (writeattr is not append-exempt)", .alice, .touch, "/fl/adir", .deny(.EPERM, .flags, .appendOnly)),
    Row("bob creates a file in a uchg dir", .bob, .create, "/fl/idir/new", .deny(.EPERM, .flags, .immutable), at: "/fl/idir"),
    Row("bob makes a directory in a uchg dir", .bob, .mkdir, "/fl/idir/newd", .deny(.EPERM, .flags, .immutable)),
    Row("bob deletes a file from a uchg dir", .bob, .delete, "/fl/idir/f", .deny(.EPERM, .flags, .parentImmutable), at: "/fl/idir"),
    Row("bob writes an unflagged file inside a uchg dir", .bob, .write, "/fl/idir/f", .allow(.mode, .otherBitsGrant))
]

/// §2.3 "Setting rules" and "Securelevel", §2.6 flags change: WRITE_SECURITY|NOIMMUTABLE; a
/// non-root change outside UF_SETTABLE → EPERM; securelevel ≤ 0 lifts every flag for chflags,
/// > 0 still lets SF flags block (root too); chflags0 does not turn EACCES into EPERM.
let chflagsRows: [Row] = [
    Row("alice sets uchg on her file", .alice, .chflags, "/cf/plain", flags: .userImmutable, .allow(.ownership, .ownerWriteSecurity)),
    Row("alice sets hidden,nodump on her file", .alice, .chflags, "/cf/plain", flags: [.userHidden, .userNoDump], .allow(.ownership, .ownerWriteSecurity)),
    Row("alice clears uchg at securelevel 0", .alice, .chflags, "/cf/u", flags: [], .allow(.ownership, .ownerWriteSecurity)),
    Row("alice clears uchg at securelevel 1", .alice, .chflags, "/cf/u", flags: [], securelevel: 1, .allow(.ownership, .ownerWriteSecurity)),
    Row("alice clears uchg next to schg at securelevel 0", .alice, .chflags, "/cf/us", flags: .systemImmutable, .allow(.ownership, .ownerWriteSecurity)),
    Row(
        "alice clears uchg next to schg at securelevel 1 (schg still blocks)", .alice, .chflags, "/cf/us", flags: .systemImmutable,
        securelevel: 1, .deny(.EPERM, .flags, .immutable)),
    Row(
        "alice sets uchg despite an everyone deny writesecurity ACE", .alice, .chflags, "/cf/denyws", flags: .userImmutable,
        .allow(.ownership, .ownerWriteSecurity)),
    Row("alice (non-root) sets schg", .alice, .chflags, "/cf/plain", flags: .systemImmutable, .deny(.EPERM, .ownership, .chflagsSystemFlag)),
    Row("alice (non-root) clears schg", .alice, .chflags, "/cf/s", flags: [], .deny(.EPERM, .ownership, .chflagsSystemFlag)),
    Row("alice (non-root) clears arch", .alice, .chflags, "/cf/arch", flags: [], .deny(.EPERM, .ownership, .chflagsSystemFlag)),
    Row("bob (non-root, non-owner) sets schg", .bob, .chflags, "/cf/plain", flags: .systemImmutable, .deny(.EPERM, .ownership, .chflagsSystemFlag)),
    Row(
        "bob sets uchg on alice's file without writesecurity → EACCES, not EPERM", .bob, .chflags, "/cf/plain", flags: .userImmutable,
        .deny(.EACCES, .mode, .neverWriteSecurity)),
    Row("bob sets uchg with a writesecurity ACE", .bob, .chflags, "/cf/wsec", flags: .userImmutable, .allow(.acl, .aclAllowComplete)),
    Row("bob clears uchg with a writesecurity ACE", .bob, .chflags, "/cf/wsecu", flags: [], .allow(.acl, .aclAllowComplete)),
    Row("root sets schg at securelevel 0", .root, .chflags, "/cf/plain", flags: .systemImmutable, .allow(.root, .rootAllowed)),
    Row("root sets schg at securelevel 1", .root, .chflags, "/cf/plain", flags: .systemImmutable, securelevel: 1, .allow(.root, .rootAllowed)),
    Row("root clears schg at securelevel 0", .root, .chflags, "/cf/s", flags: [], .allow(.root, .rootAllowed)),
    Row("root clears schg at securelevel 1", .root, .chflags, "/cf/s", flags: [], securelevel: 1, .deny(.EPERM, .flags, .immutable), at: "/cf/s"),
    Row("root clears sappnd at securelevel 1", .root, .chflags, "/cf/sa", flags: [], securelevel: 1, .deny(.EPERM, .flags, .appendOnly)),
    Row(
        "root adds uchg to an schg file at securelevel 1", .root, .chflags, "/cf/s", flags: [.systemImmutable, .userImmutable],
        securelevel: 1, .deny(.EPERM, .flags, .immutable)),
    Row("root clears uchg at securelevel 1", .root, .chflags, "/cf/u", flags: [], securelevel: 1, .allow(.root, .rootAllowed))
]

@Suite("M4: file flags")
struct FlagsTests {
    @Test("M4 immutable/append-only flags → EPERM, root included; append exemption; parent flags for delete", arguments: flagRows)
    func flags(_ row: Row) { check(row) }

    @Test("A5/M4 chflags: UF_SETTABLE for non-root, securelevel for SF flags, EACCES stays EACCES", arguments: chflagsRows)
    func chflags(_ row: Row) { check(row) }
}
