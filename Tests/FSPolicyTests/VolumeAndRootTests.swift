import Testing
import FSPolicy

// Reference §2.2 steps 3, 4, 7 and §2.2 step 9.4; §2.0 step 3 (exec_check_permissions); Summary.

/// §2.2.3: any write right on a VREG/VDIR/VLNK of an MNT_RDONLY mount, or any DELETE, is EROFS,
/// before root and before every permission check. A fifo or device write is not EROFS.
let readOnlyRows: [Row] = [
    Row("bob writes a 0666 file", .bob, .write, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro/f"),
    Row("root writes a 0666 file", .root, .write, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro/f"),
    Row("bob truncates a 0666 file", .bob, .truncate, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob appends to a 0666 file", .bob, .append, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob reads a 0666 file (no write right)", .bob, .read, "/ro/f", .allow(.mode, .otherBitsGrant)),
    Row("bob stats a file", .bob, .stat, "/ro/f", .allow(.mode, .unmappedGranted)),
    Row("bob executes a 0755 file", .bob, .execute, "/ro/x", .allow(.mode, .otherBitsGrant)),
    Row("bob creates a file in a 0777 dir", .bob, .create, "/ro/new", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro"),
    Row("bob makes a directory in a 0777 dir", .bob, .mkdir, "/ro/newdir", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro"),
    Row("bob deletes a file from a 0777 dir", .bob, .delete, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("root deletes a file", .root, .delete, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob deletes a file whose ACE allows him delete", .bob, .delete, "/ro/acl", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob writes a file whose ACE allows him write", .bob, .write, "/ro/acl", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob deletes an empty 0777 directory", .bob, .delete, "/ro/sub", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob deletes a fifo (delete is always EROFS)", .bob, .delete, "/ro/fifo", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob writes a 0666 fifo (not EROFS)", .bob, .write, "/ro/fifo", .allow(.mode, .otherBitsGrant)),
    Row("root appends to a fifo (not EROFS)", .root, .append, "/ro/fifo", .allow(.root, .rootAllowed)),
    Row("bob writes a 0666 device (not EROFS)", .bob, .write, "/ro/dev", .allow(.mode, .otherBitsGrant)),
    Row("alice writes her uchg file (EROFS before flags)", .alice, .write, "/ro/u", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("alice chmods her file (EROFS is not rewritten to EPERM)", .alice, .chmod, "/ro/f", mode: 0o600, .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("root chmods a file", .root, .chmod, "/ro/f", mode: 0o600, .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("alice touches her file", .alice, .touch, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob sets an xattr", .bob, .writeextattr, "/ro/f", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob renames a file within a 0777 dir", .bob, .rename, "/ro/f", to: "/ro/g", .deny(.EROFS, .volume, .readOnlyVolume)),
    Row("bob hard-links a file", .bob, .link, "/ro/f", to: "/ro/g", .deny(.EROFS, .volume, .readOnlyVolume), at: "/ro/f")
]

/// §2.2.4: EXECUTE on a VREG of an MNT_NOEXEC mount → EACCES, root included. §2.0.3: the
/// "some x bit" test of exec_check_permissions runs before vnode_authorize (where noexec lives).
let noexecRows: [Row] = [
    Row("bob executes a 0755 file", .bob, .execute, "/noexec/tool", .deny(.EACCES, .volume, .noexecVolume), at: "/noexec/tool"),
    Row("root executes a 0755 file", .root, .execute, "/noexec/tool", .deny(.EACCES, .volume, .noexecVolume)),
    Row("root asks for the raw execute right", .root, raw(.execute, "execute"), "/noexec/tool", .deny(.EACCES, .volume, .noexecVolume)),
    Row("bob reads a 0755 file", .bob, .read, "/noexec/tool", .allow(.mode, .otherBitsGrant)),
    Row("bob searches a directory (only VREG is refused)", .bob, .search, "/noexec/d", .allow(.mode, .otherBitsGrant)),
    Row("bob reads through a directory", .bob, .list, "/noexec/d", .allow(.mode, .otherBitsGrant)),
    Row(
        "bob executes a 0644 file: exec_check_permissions' x-bit test comes first", .bob, .execute, "/noexec/data",
        .deny(.EACCES, .mode, .execNeedsXBit))
]

/// §2.2.7 root fast path (no write right, no EXECUTE → allow before flags and ACL); §2.2.9.1–9.4
/// flags still apply to root, then root is allowed except EXECUTE on a VREG with no x bit (EPERM);
/// §2.0.3 execve's own x-bit test gives EACCES for everyone, root included.
let rootRows: [Row] = [
    Row("root reads a 0000 file", .root, .read, "/r/secret", .allow(.root, .rootReadFastPath)),
    Row("root reads a file whose everyone ACE denies read", .root, .read, "/r/denied", .allow(.root, .rootReadFastPath)),
    Row("root stats a file whose everyone ACE denies readattr", .root, .stat, "/r/denied", .allow(.root, .rootReadFastPath)),
    Row("root lists a 0000 directory", .root, .list, "/r/closed", .allow(.root, .rootReadFastPath)),
    Row("root reads through a 0000 directory (search is root.allowed)", .root, .read, "/r/closed/f", .allow(.root, .rootReadFastPath)),
    Row("root searches a 0000 directory (EXECUTE is not a fast-path right)", .root, .search, "/r/closed", .allow(.root, .rootAllowed)),
    Row("root writes a 0000 file", .root, .write, "/r/secret", .allow(.root, .rootAllowed)),
    Row("root writes a file whose everyone ACE denies write", .root, .write, "/r/denied", .allow(.root, .rootAllowed)),
    Row("root deletes bob's file from alice's sticky dir", .root, .delete, "/r/sticky/f", .allow(.root, .rootAllowed)),
    Row("root writes a uchg file", .root, .write, "/r/u", .deny(.EPERM, .flags, .immutable), at: "/r/u"),
    Row("root writes an schg file", .root, .write, "/r/s", .deny(.EPERM, .flags, .immutable)),
    Row("root writes an sappnd file", .root, .write, "/r/sa", .deny(.EPERM, .flags, .appendOnly)),
    Row("root appends to an sappnd file", .root, .append, "/r/sa", .allow(.root, .rootAllowed)),
    Row("root deletes from a uchg directory", .root, .delete, "/r/ud/f", .deny(.EPERM, .flags, .parentImmutable), at: "/r/ud"),
    Row("root chmods a uchg file", .root, .chmod, "/r/u", mode: 0o600, .deny(.EPERM, .flags, .immutable)),
    Row("root chmods a 0000 file (only CHECKIMMUTABLE is asked)", .root, .chmod, "/r/secret", mode: 0o600, .allow(.flags, .flagsNotBlocking)),
    Row("root chowns a file to bob", .root, .chown, "/r/plain", owner: .bob, .allow(.flags, .flagsNotBlocking)),
    Row("root execve's a 0644 file: exec_check_permissions → EACCES", .root, .execute, "/r/plain", .deny(.EACCES, .mode, .execNeedsXBit)),
    Row("bob execve's a 0644 file", .bob, .execute, "/r/plain", .deny(.EACCES, .mode, .execNeedsXBit)),
    Row(
        "root asks for the raw execute right on a 0644 file → kauth EPERM", .root, raw(.execute, "execute"), "/r/plain",
        .deny(.EPERM, .root, .rootExecNeedsX), at: "/r/plain"),
    Row("root executes a 0100 file owned by alice", .root, .execute, "/r/ownx", .allow(.root, .rootAllowed))
]

@Suite("M1–M3, M5: volume and root")
struct VolumeAndRootTests {
    @Test("M1 read-only volume → EROFS before everything (fifo/device writes excepted, delete always)", arguments: readOnlyRows)
    func readOnlyVolume(_ row: Row) { check(row) }

    @Test("M2/O7 noexec volume → EACCES for executing a regular file, root included; the x-bit test of execve comes first", arguments: noexecRows)
    func noexec(_ row: Row) { check(row) }

    @Test("M3/M5 root: read fast path, flags still bind, allowed otherwise, exec needs an x bit", arguments: rootRows)
    func root(_ row: Row) { check(row) }
}
