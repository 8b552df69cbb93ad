import Testing
import FSPolicy

// Reference §2.5 (vnode_authorize_simple and kauth_acl_evaluate), §1 (well-known subjects,
// POSIX fallback column), §5 rows 2, 3, 5, 6, 17, 25, Summary bullets 2–4.
// Files under /acl are alice:staff: bob (staff) falls back to group bits, carol/dave to other.

let readWrite: AccessRights = [.readData, .writeData]

/// kauth_acl_evaluate: stored order, first match; an allow removes its rights from the residual,
/// a deny fires if it names any *requested* right; only_inherit skipped; empty ACL defers;
/// rights left undecided go to the mode bits, per right.
let aclRows: [Row] = [
    Row("an allow ACE grants read on a 0000 file", .bob, .read, "/acl/allow", .allow(.acl, .aclAllowComplete), at: "/acl/allow", aceIndex: 0),
    Row("an allow for bob does not apply to dave", .dave, .read, "/acl/allow", .deny(.EACCES, .mode, .otherBitsMissing)),
    Row("a deny ACE refuses read on a 0644 file", .bob, .read, "/acl/deny", .deny(.EACCES, .acl, .aclDenyMatched), aceIndex: 0),
    Row("allow read then deny read: first match allows read", .bob, .read, "/acl/allowdeny", .allow(.acl, .aclAllowComplete), aceIndex: 0),
    Row(
        "allow read then deny read: read+write is denied by the later deny (deny tests the request)", .bob,
        raw(readWrite, "read,write"), "/acl/allowdeny", .deny(.EACCES, .acl, .aclDenyMatched), aceIndex: 1),
    Row(
        "allow read then deny write: read+write denied after the partial allow", .bob, raw(readWrite, "read,write"),
        "/acl/partdeny", .deny(.EACCES, .acl, .aclDenyMatched), aceIndex: 1),
    Row(
        "allow read then deny write: read alone is allowed (the deny names no requested right)", .bob, .read,
        "/acl/partdeny", .allow(.acl, .aclAllowComplete), aceIndex: 0),
    Row(
        "allows accumulate across a user ACE and a group ACE", .bob, raw(readWrite, "read,write"), "/acl/accum",
        .allow(.acl, .aclAllowComplete), aceIndex: 1),
    Row(
        "ACL grants write, group bits grant read (per-right mix)", .bob, raw(readWrite, "read,write"), "/acl/perright",
        .allow(.mode, .groupBitsGrant)),
    Row(
        "ACL grants read, group bits (---) refuse the residual write", .bob, raw(readWrite, "read,write"), "/acl/allow",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("an only_inherit deny is skipped", .bob, .read, "/acl/onlyinhdeny", .allow(.mode, .groupBitsGrant)),
    Row("an only_inherit allow is skipped", .bob, .read, "/acl/onlyinhallow", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("an empty ACL defers to the mode: read", .bob, .read, "/acl/empty", .allow(.mode, .groupBitsGrant)),
    Row("an empty ACL defers to the mode: write", .bob, .write, "/acl/empty", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("everyone deny read applies to the owner", .alice, .read, "/acl/everyone", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("everyone deny read applies to bob", .bob, .read, "/acl/everyone", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("owner@ allow write lets the owner write a 0444 file", .alice, .write, "/acl/ownerat", .allow(.acl, .aclAllowComplete)),
    Row("owner@ does not apply to bob", .bob, .write, "/acl/ownerat", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("group@ deny read applies to a member of the file's group", .bob, .read, "/acl/groupat", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("group@ deny read does not apply to a non-member", .carol, .read, "/acl/groupat", .allow(.mode, .otherBitsGrant)),
    Row("a group ACE applies through a nested group", .carol, .read, "/acl/nested", .allow(.acl, .aclAllowComplete)),
    Row("a group ACE does not apply to a non-member", .dave, .read, "/acl/nested", .deny(.EACCES, .mode, .otherBitsMissing)),
    Row("a group ACE for the caller's primary group", .carol, .write, "/acl/guests", .allow(.acl, .aclAllowComplete)),
    Row("a group ACE for another group leaves bob to his group bits", .bob, .write, "/acl/guests", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("a deny write does not touch read", .bob, .read, "/acl/denywrite", .allow(.mode, .groupBitsGrant)),
    Row(
        "stored order is kept: an inherited deny stored first still wins", .bob, .write, "/acl/inhorder",
        .deny(.EACCES, .acl, .aclDenyMatched), aceIndex: 0),
    Row("a non-applicable deny before the allow is passed over", .bob, .read, "/acl/index", .allow(.acl, .aclAllowComplete), aceIndex: 1),
    Row("an allow ACE may cover more than is asked", .bob, .read, "/acl/wide", .allow(.acl, .aclAllowComplete))
]

/// §2.5 steps 1, 2, 6, 8, 9: the owner's WRITE_SECURITY is removed before the ACL (undeniable);
/// WRITE_ATTRIBUTES after it (deniable); TAKE_OWNERSHIP/WRITE_SECURITY never come from mode bits;
/// READ_ATTRIBUTES/READ_SECURITY have no mode bit and are granted unless denied.
let ownershipRows: [Row] = [
    Row(
        "owner chmods despite a deny-writesecurity ACE naming her", .alice, .chmod, "/own/denyws", mode: 0o600,
        .allow(.ownership, .ownerWriteSecurity)),
    Row(
        "owner replaces the ACL despite a deny-writesecurity ACE", .alice, .setacl, "/own/denyws", acl: ACL(),
        .allow(.ownership, .ownerWriteSecurity)),
    Row(
        "owner asks for the raw writesecurity right on a 0777 file", .alice, raw(.writeSecurity, "writesecurity"), "/own/open",
        .allow(.ownership, .ownerWriteSecurity)),
    Row("owner sets attributes on her 0444 file (implicit writeattr)", .alice, .writeattr, "/own/ro444", .allow(.ownership, .ownerWriteAttr)),
    Row("owner sets attributes on her 0000 file", .alice, .writeattr, "/own/zero", .allow(.ownership, .ownerWriteAttr)),
    Row("owner reads her 0000 file (no implicit read)", .alice, .read, "/own/zero", .deny(.EACCES, .mode, .ownerBitsMissing)),
    Row("owner's writeattr is refused by a deny ACE", .alice, .writeattr, "/own/denywattr", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("owner's touch is refused by a deny-writeattr ACE", .alice, .touch, "/own/denywattr", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row(
        "bob chowns a 0777 file to himself: mode bits never grant chown", .bob, .chown, "/own/open", owner: .bob,
        .deny(.EPERM, .mode, .neverTakeOwnership)),
    Row(
        "bob asks for the raw chown right on a 0777 file", .bob, raw(.takeOwnership, "chown"), "/own/open",
        .deny(.EACCES, .mode, .neverTakeOwnership)),
    Row(
        "bob asks for the raw writesecurity right on a 0777 file", .bob, raw(.writeSecurity, "writesecurity"), "/own/open",
        .deny(.EACCES, .mode, .neverWriteSecurity)),
    Row("bob chmods a 0777 file", .bob, .chmod, "/own/open", mode: 0o700, .deny(.EPERM, .mode, .neverWriteSecurity)),
    Row("bob takes ownership with a chown ACE", .bob, .chown, "/own/chownace", owner: .bob, .allow(.acl, .aclAllowComplete)),
    Row(
        "chown+writesecurity together: writesecurity is dropped, the chown ACE suffices", .bob,
        raw([.takeOwnership, .writeSecurity], "chown,writesecurity"), "/own/chownace", .allow(.acl, .aclAllowComplete)),
    Row("bob chmods with a writesecurity ACE", .bob, .chmod, "/own/wsec", mode: 0o600, .allow(.acl, .aclAllowComplete)),
    Row("bob stats a 0000 file (readattr/readsecurity granted)", .bob, .stat, "/own/zero", .allow(.mode, .unmappedGranted)),
    Row("bob reads attributes of a 0000 file", .bob, .readattr, "/own/zero", .allow(.mode, .unmappedGranted)),
    Row("bob reads the ACL of a 0000 file", .bob, .readsecurity, "/own/zero", .allow(.mode, .unmappedGranted)),
    Row("bob stats a file whose ACE denies him readattr", .bob, .stat, "/own/denyra", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("bob reads attributes with a deny-readattr ACE", .bob, .readattr, "/own/denyra", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("bob stats a file whose ACE denies him readsecurity", .bob, .stat, "/own/denyrs", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row(
        "stat after allow readattr, deny readsecurity is denied", .bob, .stat, "/own/raThenDeny",
        .deny(.EACCES, .acl, .aclDenyMatched), aceIndex: 1),
    Row(
        "stat with an allow-readattr ACE on a 0000 file: readsecurity needs no bit", .bob, .stat, "/own/raOnly",
        .allow(.mode, .unmappedGranted)),
    Row("readextattr falls back to r (0600, other)", .bob, .readextattr, "/own/x600", .deny(.EACCES, .mode, .otherBitsMissing)),
    Row("readextattr falls back to r (0777, other)", .bob, .readextattr, "/own/open", .allow(.mode, .otherBitsGrant)),
    Row("writeextattr falls back to w (0600, other)", .bob, .writeextattr, "/own/x600", .deny(.EACCES, .mode, .otherBitsMissing))
]

/// §2.5 vnode_authorize_posix: one class only — owner bits for the owner, else group bits for a
/// member of the file's group (nested groups count), else other bits. (The guide's AFP section
/// contrasts this "best match" with AFP's cumulative policy.)
let modeClassRows: [Row] = [
    Row(
        "owner of a 0077 file is refused although group and other grant", .alice, .read, "/mode/m0077",
        .deny(.EACCES, .mode, .ownerBitsMissing), at: "/mode/m0077"),
    Row(
        "owner of a 0077 file who is also in its group is still refused", .alice, .write, "/mode/m0077",
        .deny(.EACCES, .mode, .ownerBitsMissing)),
    Row("group member reads a 0077 file", .bob, .read, "/mode/m0077", .allow(.mode, .groupBitsGrant)),
    Row("other reads a 0077 file", .carol, .read, "/mode/m0077", .allow(.mode, .otherBitsGrant)),
    Row(
        "group member of a 0707 file is refused although other grants", .bob, .read, "/mode/m0707",
        .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("other reads a 0707 file", .carol, .read, "/mode/m0707", .allow(.mode, .otherBitsGrant)),
    Row("owner reads a 0707 file", .alice, .read, "/mode/m0707", .allow(.mode, .ownerBitsGrant)),
    Row("owner writes a 0640 file", .alice, .write, "/mode/m0640", .allow(.mode, .ownerBitsGrant)),
    Row("group member writes a 0640 file", .bob, .write, "/mode/m0640", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("other reads a 0640 file", .carol, .read, "/mode/m0640", .deny(.EACCES, .mode, .otherBitsMissing)),
    Row("nested-group member reads a 0070 editors file", .carol, .read, "/mode/ed0070", .allow(.mode, .groupBitsGrant)),
    Row("non-member reads a 0070 editors file", .dave, .read, "/mode/ed0070", .deny(.EACCES, .mode, .otherBitsMissing))
]

@Suite("M7–M12: ACL, owner rights, mode classes")
struct ACLAndModeTests {
    @Test("M8 ACL: stored order, first match, deny tests the whole request, residual per right", arguments: aclRows)
    func acl(_ row: Row) { check(row) }

    @Test(
        "M7/M9/M12 owner's implicit writesecurity (undeniable) and writeattr (deniable); chown/writesecurity never from mode; readattr/readsecurity granted unless denied",
        arguments: ownershipRows)
    func ownership(_ row: Row) { check(row) }

    @Test("M11 residual rights go to one best-match mode class (owner, else group, else other)", arguments: modeClassRows)
    func modeClass(_ row: Row) { check(row) }
}
