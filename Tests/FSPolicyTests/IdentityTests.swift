import Testing
import FSPolicy

// Reference §2.7: on an MNT_IGNORE_OWNERSHIP mount a non-root caller sees uid/gid as
// mnt_fsowner/mnt_fsgroup (99 when unset), and then any uid 99 becomes the caller and any gid 99
// the caller's egid — on any mount. A rewrite of identities, not an "allow": owner bits, ACEs
// and flags still apply. §5 row 16.
// /stick: ignore ownership, no fsowner. /owned: ignore ownership, fsowner alice, fsgroup staff.

let identityRows: [Row] = [
    Row(
        "bob writes alice's 0444 file on an ignore-ownership volume: owner bits still refuse", .bob, .write, "/stick/ro",
        .deny(.EACCES, .mode, .ownerBitsMissing), traceHas: .ignoreOwnership),
    Row("carol writes the same 0444 file", .carol, .write, "/stick/ro", .deny(.EACCES, .mode, .ownerBitsMissing)),
    Row("bob reads alice's 0400 file as its owner", .bob, .read, "/stick/r", .allow(.mode, .ownerBitsGrant), traceHas: .ignoreOwnership),
    Row(
        "bob chmods alice's file (implicit owner writesecurity)", .bob, .chmod, "/stick/ro", mode: 0o644,
        .allow(.ownership, .ownerWriteSecurity)),
    Row("bob sets explicit times on alice's file (he is the owner)", .bob, .settimes, "/stick/ro", .allow(.ownership, .ownerWriteAttr)),
    Row(
        "bob deletes alice's file from alice's 1777 dir: the sticky rule is satisfied", .bob, .delete, "/stick/sticky/f",
        .allow(.sticky, .stickyOwner)),
    Row("bob 'chowns' to himself: he already is the owner", .bob, .chown, "/stick/ro", owner: .bob, .allow(.ownership, .nothingToChange)),
    Row("an ACE naming bob still denies", .bob, .read, "/stick/deny", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("owner@ applies to every non-root caller", .carol, .read, "/stick/ownerat", .allow(.acl, .aclAllowComplete)),
    Row("flags still apply", .bob, .write, "/stick/u", .deny(.EPERM, .flags, .immutable)),
    Row("root is not rewritten and is allowed", .root, .write, "/stick/ro", .allow(.root, .rootAllowed)),
    Row("fsgroup staff: bob reads a 0640 file through group bits", .bob, .read, "/owned/f", .allow(.mode, .groupBitsGrant)),
    Row("fsgroup staff: bob cannot write it", .bob, .write, "/owned/f", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("fsowner alice: alice writes a root-owned 0640 file", .alice, .write, "/owned/f", .allow(.mode, .ownerBitsGrant)),
    Row("fsowner alice: carol (not staff) gets other bits", .carol, .read, "/owned/f", .deny(.EACCES, .mode, .otherBitsMissing)),
    Row("a file owned by uid 99 is bob's to read", .bob, .read, "/id/u99", .allow(.mode, .ownerBitsGrant), traceHas: .unknownOwner99),
    Row("a file owned by uid 99 is carol's to chmod", .carol, .chmod, "/id/u99", mode: 0o644, .allow(.ownership, .ownerWriteSecurity)),
    Row("gid 99 becomes bob's egid: group bits", .bob, .read, "/id/g99", .allow(.mode, .groupBitsGrant)),
    Row("gid 99 becomes carol's egid too", .carol, .write, "/id/g99", .allow(.mode, .groupBitsGrant))
]

@Suite("Identity rewrites")
struct IdentityTests {
    @Test("M10 ignore-ownership and uid/gid 99 rewrite identities; mode, ACL and flags still decide", arguments: identityRows)
    func identity(_ row: Row) { check(row) }
}
