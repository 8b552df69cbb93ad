import Testing
import FSPolicy

// Reference §2.0 "Which syscall requests which rights" (rename, link rows), §1 LINKTARGET
// ("only RO/immutable checks apply, then it is dropped"), §2.2.9.3, §2.3, §2.4, §5 rows 12, 19,
// Summary "Cases where the simplified guide order is wrong" (renaming a directory).
// /rn/w and /ln/w are root 0777 (bob may add and remove names); /rn and /ln are root 0755.

/// rename: DELETE on the source (+ ADD_SUBDIRECTORY on the source itself when it is a directory,
/// even within one parent); ADD_FILE/ADD_SUBDIRECTORY on the destination directory; DELETE on an
/// overwritten non-directory target.
let renameRows: [Row] = [
    Row("bob renames alice's file within a 0777 dir", .bob, .rename, "/rn/w/f", to: "/rn/w/g", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob renames alice's 0755 directory within one parent: needs add_subdirectory on it", .bob, .rename, "/rn/w/d", to: "/rn/w/e",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/rn/w/d"),
    Row("bob renames his own directory within one parent", .bob, .rename, "/rn/w/bobd", to: "/rn/w/bobe", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob moves a file into a dir he cannot write", .bob, .rename, "/rn/w/f", to: "/rn/g",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/rn"),
    Row(
        "bob moves a file out of a dir he cannot write", .bob, .rename, "/rn/ro/f", to: "/rn/w/f2",
        .deny(.EACCES, .mode, .deleteParentWriteMissing), at: "/rn/ro"),
    Row(
        "a node allow-delete ACE lets bob move a file out of a dir he cannot write", .bob, .rename, "/rn/ro/nodeallow",
        to: "/rn/w/n2", .allow(.mode, .otherBitsGrant), at: "/rn/w"),
    Row(
        "the replaced file needs delete: its ACE denies bob", .bob, .rename, "/rn/w/bobf", to: "/rn/w/target",
        .deny(.EACCES, .acl, .deleteNodeACEDeny), at: "/rn/w/target"),
    Row(
        "the replaced file needs delete: sticky dir, someone else's file", .bob, .rename, "/rn/t/bobf", to: "/rn/t/alicef",
        .deny(.EACCES, .sticky, .stickyNotOwner)),
    Row("alice renames her own file in a root 1777 dir", .alice, .rename, "/rn/t/alicef", to: "/rn/t/x", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob renames alice's file in a root 1777 dir", .bob, .rename, "/rn/t/alicef", to: "/rn/t/x",
        .deny(.EACCES, .sticky, .stickyNotOwner)),
    Row(
        "a replaced empty directory is not delete-checked (DELETE only on a non-dir target)", .bob, .rename,
        "/rn/w/bobd2", to: "/rn/w/emptyt", .allow(.mode, .otherBitsGrant)),
    // XNU vn_authorize_renamex_with_paths asks add_subdirectory of the replaced directory itself
    // ("(tvp != NULL && vnode_isdir(tvp)) ? tvp : tdvp"); the reference's rename row leaves this out.
    Row(
        "a replaced directory: the add right is asked of that directory itself (XNU vn_authorize_renamex_with_paths)", .bob,
        .rename, "/rn/w/bobd2", to: "/rn/w/d", .deny(.EACCES, .mode, .otherBitsMissing), at: "/rn/w/d"),
    Row(
        "bob moves a file into a uchg dir", .bob, .rename, "/rn/w/bobf", to: "/fl/idir/new",
        .deny(.EPERM, .flags, .immutable), at: "/fl/idir"),
    Row("a replaced non-empty directory → ENOTEMPTY", .bob, .rename, "/rn/w/bobd3", to: "/rn/w/full", .deny(.ENOTEMPTY, .type, .notEmpty)),
    Row("bob renames a uchg file", .bob, .rename, "/rn/w/u", to: "/rn/w/u2", .deny(.EPERM, .flags, .immutable)),
    Row("bob moves a file out of a uappnd dir", .bob, .rename, "/rn/adir/f", to: "/rn/w/f3", .deny(.EPERM, .flags, .parentAppendOnly)),
    Row(
        "bob moves a file into a uappnd dir (add_file is append-exempt)", .bob, .rename, "/rn/w/bobf", to: "/rn/adir/new",
        .allow(.mode, .otherBitsGrant), at: "/rn/adir"),
    Row("a file over a directory → EISDIR", .bob, .rename, "/rn/w/f", to: "/rn/w/d", .deny(.EISDIR, .type, .isDirectory)),
    Row("a directory over a file → ENOTDIR", .bob, .rename, "/rn/w/bobd", to: "/rn/w/f", .deny(.ENOTDIR, .type, .notADirectory))
]

/// link: EPERM for a directory; EEXIST; EXDEV; LINKTARGET on the file (RO and immutability only,
/// so its owner and mode do not matter); then ADD_FILE on the new parent.
let linkRows: [Row] = [
    Row(
        "bob links alice's 0000 file (mode and owner are not checked)", .bob, .link, "/ln/w/secret", to: "/ln/w/l1",
        .allow(.mode, .otherBitsGrant), at: "/ln/w"),
    Row("alice links her 0000 file", .alice, .link, "/ln/w/secret", to: "/ln/w/l1", .allow(.mode, .otherBitsGrant)),
    Row("root links into a 0755 dir", .root, .link, "/ln/w/secret", to: "/ln/l1", .allow(.root, .rootAllowed)),
    Row(
        "bob links into a dir he cannot write", .bob, .link, "/ln/w/secret", to: "/ln/l1",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/ln"),
    Row(
        "bob links into a uappnd dir (add_file is append-exempt)", .bob, .link, "/ln/w/secret", to: "/ln/adir/l1",
        .allow(.mode, .otherBitsGrant)),
    Row("bob links a uchg file", .bob, .link, "/ln/w/u", to: "/ln/w/l2", .deny(.EPERM, .flags, .immutable), at: "/ln/w/u"),
    Row(
        "bob links a uappnd file (linktarget is not append-exempt)", .bob, .link, "/ln/w/a", to: "/ln/w/l3",
        .deny(.EPERM, .flags, .appendOnly)),
    Row("root links an schg file", .root, .link, "/ln/w/s", to: "/ln/w/l4", .deny(.EPERM, .flags, .immutable)),
    Row("bob links a directory → EPERM", .bob, .link, "/ln/w/d", to: "/ln/w/l5", .deny(.EPERM, .type, .linkDirectory)),
    Row("bob links onto an existing name → EEXIST", .bob, .link, "/ln/w/secret", to: "/ln/w/exists", .deny(.EEXIST, .traversal, .exists)),
    Row("bob links across volumes → EXDEV", .bob, .link, "/ln/w/secret", to: "/other/l", .deny(.EXDEV, .volume, .crossDevice))
]

@Suite("rename and link")
struct RenameLinkTests {
    @Test(
        "rename (M6 on the source and a replaced file): delete on the source (and add_subdirectory on a moved dir), add on the destination, delete on a replaced file",
        arguments: renameRows)
    func rename(_ row: Row) { check(row) }

    @Test("O4 link: LINKTARGET checks only RO/immutable, then add_file; a directory → EPERM", arguments: linkRows)
    func link(_ row: Row) { check(row) }
}
