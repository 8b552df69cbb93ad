import Testing
import FSPolicy

// Reference §2.0 ("each path component: SEARCH on the directory", type checks EISDIR/ENOTDIR,
// EACCES for exec of a non-regular file), §2.6 errno conventions (chmod_vnode rewrites its own
// EACCES; a lookup failure comes before it), §2.2.9.4 (root), policy-format "op" meanings.

/// SEARCH on every directory walked, through the same ACL + mode logic; the failure is EACCES
/// at the traversal layer, on the directory that refused.
let traversalRows: [Row] = [
    Row(
        "bob reads a file inside a 0700 alice:staff dir", .bob, .read, "/t/closed/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/closed"),
    Row(
        "bob reads two levels below the 0700 dir", .bob, .read, "/t/closed/sub/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/closed"),
    Row("alice reads inside her 0700 dir", .alice, .read, "/t/closed/f", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob lists the 0700 dir itself (needs read on it, search on its parent)", .bob, .list, "/t/closed",
        .deny(.EACCES, .mode, .groupBitsMissing), at: "/t/closed"),
    Row("bob searches the 0700 dir itself", .bob, .search, "/t/closed", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("an allow-search ACE opens a 0700 dir to bob", .bob, .read, "/t/aclsearch/f", .allow(.mode, .otherBitsGrant)),
    Row(
        "the allow-search ACE is bob's only", .carol, .read, "/t/aclsearch/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/aclsearch"),
    Row(
        "a deny-search ACE closes a 0755 dir to bob", .bob, .read, "/t/denysearch/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/denysearch"),
    Row("the deny-search ACE is bob's only", .carol, .read, "/t/denysearch/f", .allow(.mode, .otherBitsGrant)),
    Row("bob lists a 0744 dir", .bob, .list, "/t/listonly", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob cannot go through a 0744 dir", .bob, .read, "/t/listonly/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/listonly"),
    Row("group x of a 0710 dir lets bob through", .bob, .read, "/t/grp/f", .allow(.mode, .otherBitsGrant)),
    Row("other has no x on a 0710 dir", .carol, .read, "/t/grp/f", .deny(.EACCES, .traversal, .searchDenied)),
    Row(
        "bob creates in the 0700 dir (search on the parent first)", .bob, .create, "/t/closed/new",
        .deny(.EACCES, .traversal, .searchDenied), at: "/t/closed"),
    Row("bob stats a file inside the 0700 dir", .bob, .stat, "/t/closed/f", .deny(.EACCES, .traversal, .searchDenied)),
    Row("bob deletes inside the 0700 dir", .bob, .delete, "/t/closed/f", .deny(.EACCES, .traversal, .searchDenied)),
    Row(
        "bob chmods inside the 0700 dir: lookup EACCES is not rewritten", .bob, .chmod, "/t/closed/f", mode: 0o600,
        .deny(.EACCES, .traversal, .searchDenied)),
    Row(
        "bob sets times inside the 0700 dir: lookup EACCES is not rewritten", .bob, .settimes, "/t/closed/f",
        .deny(.EACCES, .traversal, .searchDenied)),
    Row("root reads inside the 0700 dir", .root, .read, "/t/closed/f", .allow(.root, .rootReadFastPath))
]

/// Intermediate symlinks are followed (and their targets' directories searched); a trailing one
/// for open/stat/chmod; unlink does not follow. Loops → ELOOP, dangling → ENOENT.
let symlinkRows: [Row] = [
    Row("an intermediate absolute symlink to a dir is followed", .bob, .read, "/sl/toreal/f", .allow(.mode, .otherBitsGrant)),
    Row("an intermediate relative symlink is followed", .bob, .read, "/sl/rel/f", .allow(.mode, .otherBitsGrant)),
    Row("a trailing symlink is followed by open", .bob, .read, "/sl/tofile", .allow(.mode, .otherBitsGrant), at: "/sl/real/f"),
    Row(
        "write through a trailing symlink is judged on the target", .bob, .write, "/sl/tofile",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/sl/real/f"),
    Row(
        "search is checked on the symlink target's directory", .bob, .read, "/sl/toclosed/f",
        .deny(.EACCES, .traversal, .searchDenied), at: "/sl/closed"),
    Row(
        "a symlink to a file used as a directory → ENOTDIR", .bob, .read, "/sl/tofile/x",
        .deny(.ENOTDIR, .traversal, .notADirectory)),
    Row("a two-link loop → ELOOP", .bob, .read, "/sl/loop1", .deny(.ELOOP, .traversal, .symlinkLoop)),
    Row("a self loop → ELOOP", .bob, .read, "/sl/self", .deny(.ELOOP, .traversal, .symlinkLoop)),
    Row("a loop in the middle of a path → ELOOP", .bob, .read, "/sl/loop1/x", .deny(.ELOOP, .traversal, .symlinkLoop)),
    Row("a dangling symlink → ENOENT", .bob, .read, "/sl/dangling", .deny(.ENOENT, .traversal, .notFound)),
    Row("stat of a dangling symlink follows it → ENOENT", .bob, .stat, "/sl/dangling", .deny(.ENOENT, .traversal, .notFound)),
    Row("a symlink into a missing directory → ENOENT", .bob, .read, "/sl/danglingdir", .deny(.ENOENT, .traversal, .notFound)),
    Row(
        "unlink of a dangling symlink removes the link itself", .root, .delete, "/sl/dangling", .allow(.root, .rootAllowed),
        at: "/sl/dangling")
]

/// The errno each syscall returns before or after authorization.
let errorRows: [Row] = [
    Row("read of a missing name → ENOENT", .bob, .read, "/e/missing", .deny(.ENOENT, .traversal, .notFound)),
    Row("read below a missing name → ENOENT", .bob, .read, "/e/missing/x", .deny(.ENOENT, .traversal, .notFound)),
    Row("delete of a missing name → ENOENT", .bob, .delete, "/e/missing", .deny(.ENOENT, .traversal, .notFound)),
    Row("rename of a missing name → ENOENT", .bob, .rename, "/e/missing", to: "/e/x", .deny(.ENOENT, .traversal, .notFound)),
    Row("a file used as a directory → ENOTDIR", .bob, .read, "/e/f/x", .deny(.ENOTDIR, .traversal, .notADirectory)),
    Row("create below a file → ENOTDIR", .bob, .create, "/e/f/x", .deny(.ENOTDIR, .traversal, .notADirectory)),
    Row("list of a file → ENOTDIR", .bob, .list, "/e/f", .deny(.ENOTDIR, .type, .notADirectory)),
    Row("create of an existing name → EEXIST", .bob, .create, "/e/f", .deny(.EEXIST, .traversal, .exists)),
    Row("mkdir of an existing name → EEXIST", .bob, .mkdir, "/e/d", .deny(.EEXIST, .traversal, .exists)),
    Row("write of a directory → EISDIR", .bob, .write, "/e/d", .deny(.EISDIR, .type, .isDirectory)),
    Row("truncate of a directory → EISDIR", .alice, .truncate, "/e/d", .deny(.EISDIR, .type, .isDirectory)),
    Row("execve of a directory → EACCES", .bob, .execute, "/e/d", .deny(.EACCES, .type, .notRegularExec)),
    Row("rmdir of a non-empty directory → ENOTEMPTY", .alice, .delete, "/e/d", .deny(.ENOTEMPTY, .type, .notEmpty)),
    Row("rename to another volume → EXDEV", .alice, .rename, "/e/f", to: "/other/f", .deny(.EXDEV, .volume, .crossDevice)),
    Row(
        "rename of a directory into itself → EINVAL", .alice, .rename, "/e/empty", to: "/e/empty/sub",
        .deny(.EINVAL, .type, .renameIntoSelf))
]

/// A trailing slash: the name must be a directory (XNU lookup: NAMEI_TRAILINGSLASH follows a
/// trailing symlink, "bogus trailing slashes" are ENOTDIR; a new file's name with one is ENOENT,
/// lookup_validate_creation_path).
let trailingSlashRows: [Row] = [
    Row("read of a file with a trailing slash → ENOTDIR", .bob, .read, "/e/f/", .deny(.ENOTDIR, .traversal, .notADirectory), at: "/e/f"),
    Row("a trailing `/.` is the same", .bob, .stat, "/e/f/.", .deny(.ENOTDIR, .traversal, .notADirectory), at: "/e/f"),
    Row(
        "a trailing slash follows a symlink to a file → ENOTDIR on the file", .bob, .read, "/sl/tofile/",
        .deny(.ENOTDIR, .traversal, .notADirectory), at: "/sl/real/f"),
    Row("a trailing slash follows a symlink to a directory", .bob, .search, "/sl/toreal/", .allow(.mode, .otherBitsGrant), at: "/sl/real"),
    Row(
        "delete of a file with a trailing slash → ENOTDIR, before any permission", .bob, .delete, "/e/f/",
        .deny(.ENOTDIR, .traversal, .notADirectory), at: "/e/f"),
    Row("chmod of a file with a trailing slash → ENOTDIR", .alice, .chmod, "/e/f/", .deny(.ENOTDIR, .traversal, .notADirectory), at: "/e/f"),
    Row("create of a new name with a trailing slash → ENOENT", .alice, .create, "/e/new/", .deny(.ENOENT, .traversal, .notFound)),
    Row("create of an existing file with a trailing slash → ENOTDIR", .alice, .create, "/e/f/", .deny(.ENOTDIR, .traversal, .notADirectory)),
    Row("mkdir of a new name with a trailing slash is a mkdir", .alice, .mkdir, "/e/newdir/", .allow(.mode, .otherBitsGrant), at: "/e"),
    Row("a directory with a trailing slash is the directory", .bob, .list, "/e/d/", .allow(.mode, .otherBitsGrant), at: "/e/d"),
    Row("a missing name with a trailing slash → ENOENT", .bob, .read, "/e/missing/", .deny(.ENOENT, .traversal, .notFound)),
    // A last `.`: `.` is looked up in the folder before it (which so needs search, and must be one).
    Row("stat of `closed/.` needs search on closed", .bob, .stat, "/sl/closed/.", .deny(.EACCES, .traversal, .searchDenied), at: "/sl/closed"),
    Row("delete of `dir/.` → EINVAL (rmdir of `.`)", .alice, .delete, "/e/empty/.", .deny(.EINVAL, .type, .removeDot), at: "/e/empty"),
    Row("mkdir of `new/.` → ENOENT (new is a folder of the path)", .alice, .mkdir, "/e/new/.", .deny(.ENOENT, .traversal, .notFound)),
    Row("mkdir of `dir/.` → EEXIST", .alice, .mkdir, "/e/d/.", .deny(.EEXIST, .traversal, .exists), at: "/e/d")
]

@Suite("Path lookup and errors")
struct PathTests {
    @Test("P1 search on every ancestor: traversal layer, EACCES on the refusing directory", arguments: traversalRows)
    func traversal(_ row: Row) { check(row) }

    @Test("P2/P3 symlinks: intermediate followed, loops → ELOOP, dangling → ENOENT", arguments: symlinkRows)
    func symlinks(_ row: Row) { check(row) }

    @Test("P2/P4/P5/O1–O5 ENOENT, ENOTDIR, EEXIST, EXDEV, EISDIR, ENOTEMPTY, EINVAL", arguments: errorRows)
    func errors(_ row: Row) { check(row) }

    @Test("P2 a trailing slash: the name must be a directory", arguments: trailingSlashRows)
    func trailingSlash(_ row: Row) { check(row) }
}
