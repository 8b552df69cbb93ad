import Testing
import FSPolicy

// Reference §2.6 (vnode_authattr preflight; chmod_vnode/vn_chown_internal turn EACCES into EPERM,
// setutimes only for explicit times), §2.5 steps 1 and 6, §5 rows 6, 20, 24.
// /at files are alice:staff 0644 unless named otherwise. bob is in staff and editors.

let attributeRows: [Row] = [
    // chmod
    Row("owner chmods", .alice, .chmod, "/at/f", mode: 0o600, .allow(.ownership, .ownerWriteSecurity)),
    Row("non-owner chmods → EACCES turned into EPERM", .bob, .chmod, "/at/f", mode: 0o600, .deny(.EPERM, .mode, .neverWriteSecurity)),
    Row("non-owner chmods with a writesecurity ACE", .bob, .chmod, "/at/wsec", mode: 0o600, .allow(.acl, .aclAllowComplete)),
    Row(
        "non-owner chmods against a deny-writesecurity ACE → EPERM", .bob, .chmod, "/at/denyws", mode: 0o600,
        .deny(.EPERM, .acl, .aclDenyMatched)),
    Row(
        "non-owner 'chmods' to the current mode: no change, nothing to authorize", .bob, .chmod, "/at/f", mode: 0o644,
        .allow(.ownership, .nothingToChange)),
    Row("root chmods", .root, .chmod, "/at/f", mode: 0o600, .allow(.flags, .flagsNotBlocking)),
    Row("owner chmods a uchg file", .alice, .chmod, "/at/u", mode: 0o600, .deny(.EPERM, .flags, .immutable)),
    // setuid / setgid
    Row("owner sets setuid", .alice, .chmod, "/at/f", mode: 0o4755, .allow(.ownership, .ownerWriteSecurity)),
    Row("owner sets setgid on a file of a group she is in", .alice, .chmod, "/at/f", mode: 0o2755, .allow(.ownership, .ownerWriteSecurity)),
    Row(
        "owner sets setgid on a file of a group she is not in", .alice, .chmod, "/at/wheel", mode: 0o2755,
        .deny(.EPERM, .ownership, .setgidNotMember)),
    Row(
        "writesecurity delegate sets setuid on someone else's file", .bob, .chmod, "/at/wsec", mode: 0o4755,
        .deny(.EPERM, .ownership, .setuidNotOwner)),
    Row("writesecurity delegate sets setgid for a group he is in", .bob, .chmod, "/at/wsec", mode: 0o2755, .allow(.acl, .aclAllowComplete)),
    Row("root sets setuid and setgid on a wheel file", .root, .chmod, "/at/wheel", mode: 0o6755, .allow(.flags, .flagsNotBlocking)),
    // chown
    Row("non-owner takes ownership without a chown ACE → EPERM", .bob, .chown, "/at/f", owner: .bob, .deny(.EPERM, .mode, .neverTakeOwnership)),
    Row("non-owner takes ownership with a chown ACE", .bob, .chown, "/at/ochown", owner: .bob, .allow(.acl, .aclAllowComplete)),
    Row("non-owner gives the file to carol", .bob, .chown, "/at/f", owner: .carol, .deny(.EPERM, .ownership, .chownToOther)),
    Row("owner gives her file away", .alice, .chown, "/at/f", owner: .bob, .deny(.EPERM, .ownership, .chownToOther)),
    Row("owner 'chowns' to herself (no change)", .alice, .chown, "/at/f", owner: .alice, .allow(.ownership, .nothingToChange)),
    Row("root gives the file to bob", .root, .chown, "/at/f", owner: .bob, .allow(.flags, .flagsNotBlocking)),
    Row("root chowns a uchg file", .root, .chown, "/at/u", owner: .bob, .deny(.EPERM, .flags, .immutable)),
    // chgrp
    Row("owner changes the group to one she is in", .alice, .chgrp, "/at/f", group: Gr.admin, .allow(.ownership, .ownerWriteSecurity)),
    Row("owner changes the group to one she is not in", .alice, .chgrp, "/at/f", group: Gr.guests, .deny(.EPERM, .ownership, .chgrpNotMember)),
    Row("non-owner member changes the group → EPERM", .bob, .chgrp, "/at/wheel", group: Gr.staff, .deny(.EPERM, .mode, .neverWriteSecurity)),
    Row("writesecurity delegate changes the group to one he is in", .bob, .chgrp, "/at/wsec", group: Gr.editors, .allow(.acl, .aclAllowComplete)),
    // setacl
    Row(
        "non-owner replaces the ACL → EPERM", .bob, .setacl, "/at/f", acl: ACL([allow(.who(.bob), .readData)]),
        .deny(.EPERM, .mode, .neverWriteSecurity)),
    Row(
        "writesecurity delegate replaces the ACL", .bob, .setacl, "/at/wsec", acl: ACL([allow(.who(.bob), .readData)]),
        .allow(.acl, .aclAllowComplete)),
    Row("owner removes all entries despite the ACL", .alice, .setacl, "/at/denyws", acl: ACL(), .allow(.ownership, .ownerWriteSecurity)),
    // settimes (explicit) and touch (now)
    Row("owner sets explicit times", .alice, .settimes, "/at/f", .allow(.ownership, .ownerWriteAttr)),
    Row(
        "non-owner sets explicit times on a 0666 file → EPERM at once", .bob, .settimes, "/at/o666",
        .deny(.EPERM, .ownership, .settimesNotOwner)),
    Row(
        "non-owner sets explicit times despite a writeattr ACE → EPERM (ACL not consulted)", .bob, .settimes, "/at/wattr",
        .deny(.EPERM, .ownership, .settimesNotOwner)),
    Row(
        "owner sets explicit times against a deny-writeattr ACE → EPERM", .alice, .settimes, "/at/dwattr",
        .deny(.EPERM, .acl, .aclDenyMatched)),
    Row("owner sets explicit times on a uchg file", .alice, .settimes, "/at/u", .deny(.EPERM, .flags, .immutable)),
    Row("root sets explicit times", .root, .settimes, "/at/f", .allow(.root, .rootAllowed)),
    Row("non-owner touches with a writeattr ACE", .bob, .touch, "/at/wattr", .allow(.acl, .aclAllowComplete)),
    Row("non-owner touches a 0644 file → EACCES (not rewritten)", .bob, .touch, "/at/f", .deny(.EACCES, .mode, .groupBitsMissing)),
    Row("non-owner touches a 0666 file", .bob, .touch, "/at/o666", .allow(.mode, .groupBitsGrant)),
    Row("owner touches against a deny-writeattr ACE → EACCES", .alice, .touch, "/at/dwattr", .deny(.EACCES, .acl, .aclDenyMatched)),
    Row("owner touches her file", .alice, .touch, "/at/f", .allow(.ownership, .ownerWriteAttr))
]

@Suite("A1–A6: attribute changes")
struct AttributeTests {
    @Test(
        "A1–A6 chmod/chown/chgrp/setacl/settimes: vnode_authattr preflight, EPERM conversions, setuid/setgid rules",
        arguments: attributeRows)
    func attributes(_ row: Row) { check(row) }
}
