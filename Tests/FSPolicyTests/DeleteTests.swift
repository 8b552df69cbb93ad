import Testing
import FSPolicy

// Reference §2.4 (vnode_authorize_delete: node ACE > parent ACE > parent w bit > sticky, EACCES
// throughout; the object's own mode never matters), §2.2 step 9.2 (parent immutability first),
// §5 rows 10–11, Summary "Delete".

let deleteRows: [Row] = [
    Row(
        "bob deletes from a 0755 root dir (no w for other)", .bob, .delete, "/del/ro/f",
        .deny(.EACCES, .mode, .deleteParentWriteMissing), at: "/del/ro"),
    Row(
        "alice deletes her own file from a dir she cannot write", .alice, .delete, "/del/ro/f",
        .deny(.EACCES, .mode, .deleteParentWriteMissing)),
    Row(
        "bob deletes a file whose empty ACL defers", .bob, .delete, "/del/ro/emptyacl",
        .deny(.EACCES, .mode, .deleteParentWriteMissing)),
    Row(
        "bob deletes with a node allow-delete ACE and no w on the dir", .bob, .delete, "/del/ro/nodeallow",
        .allow(.acl, .deleteNodeACEAllow), at: "/del/ro/nodeallow", aceIndex: 0),
    Row(
        "bob deletes with a node deny-delete ACE in a 0777 dir", .bob, .delete, "/del/w/nodedeny",
        .deny(.EACCES, .acl, .deleteNodeACEDeny), at: "/del/w/nodedeny"),
    Row("carol deletes the file whose deny names only bob", .carol, .delete, "/del/w/nodedeny", .allow(.mode, .deleteParentWrite)),
    Row(
        "alice (owner) deletes her file with an everyone deny-delete ACE", .alice, .delete, "/del/w/everyonedeny",
        .deny(.EACCES, .acl, .deleteNodeACEDeny)),
    Row("bob deletes alice's file from a 0777 dir", .bob, .delete, "/del/w/f", .allow(.mode, .deleteParentWrite), at: "/del/w"),
    Row("bob deletes alice's 0000 file (the object's mode is irrelevant)", .bob, .delete, "/del/w/zero", .allow(.mode, .deleteParentWrite)),
    Row("bob deletes through the group w bit of the dir", .bob, .delete, "/del/grp/f", .allow(.mode, .deleteParentWrite)),
    Row(
        "bob (group member) deletes from a 0757 dir: group class has no w", .bob, .delete, "/del/grp2/f",
        .deny(.EACCES, .mode, .deleteParentWriteMissing)),
    Row(
        "bob deletes alice's file from a root 1777 dir", .bob, .delete, "/del/sticky/alicef",
        .deny(.EACCES, .sticky, .stickyNotOwner), at: "/del/sticky"),
    Row("bob deletes his own file from a root 1777 dir", .bob, .delete, "/del/sticky/bobf", .allow(.sticky, .stickyOwner)),
    Row("alice deletes her own file from a root 1777 dir", .alice, .delete, "/del/sticky/alicef", .allow(.sticky, .stickyOwner)),
    Row("bob deletes alice's file from his own 1777 dir", .bob, .delete, "/del/bobsticky/alicef", .allow(.sticky, .stickyOwner)),
    Row(
        "bob deletes from a sticky dir with a node allow-delete ACE", .bob, .delete, "/del/sticky/nodeallow",
        .allow(.acl, .deleteNodeACEAllow)),
    Row(
        "bob deletes from a sticky dir whose ACE allows him delete_child", .bob, .delete, "/del/stickyacl/alicef",
        .allow(.acl, .deleteParentACEAllow), at: "/del/stickyacl"),
    Row(
        "carol deletes from that sticky dir (the ACE is bob's)", .carol, .delete, "/del/stickyacl/alicef",
        .deny(.EACCES, .sticky, .stickyNotOwner)),
    Row(
        "bob deletes from a 0755 dir whose ACE allows him delete_child", .bob, .delete, "/del/pallow/f",
        .allow(.acl, .deleteParentACEAllow)),
    Row(
        "bob deletes from a 0777 dir whose ACE denies him delete_child", .bob, .delete, "/del/pdeny/f",
        .deny(.EACCES, .acl, .deleteParentACEDeny), at: "/del/pdeny"),
    Row("node allow-delete beats a parent deny-delete_child", .bob, .delete, "/del/pdeny/nodeallow", .allow(.acl, .deleteNodeACEAllow)),
    Row("node deny-delete beats a parent allow-delete_child", .bob, .delete, "/del/pallow/nodedeny", .deny(.EACCES, .acl, .deleteNodeACEDeny)),
    Row(
        "node allow-delete in a uchg dir → parent immutability first", .bob, .delete, "/del/immp/nodeallow",
        .deny(.EPERM, .flags, .parentImmutable), at: "/del/immp"),
    Row("alice removes her empty directory", .alice, .delete, "/del/w/empty", .allow(.mode, .deleteParentWrite)),
    Row(
        "alice removes her non-empty directory (authorized, then ENOTEMPTY)", .alice, .delete, "/del/w/full",
        .deny(.ENOTEMPTY, .type, .notEmpty)),
    Row(
        "bob removes a non-empty dir from a 0755 dir (EACCES before ENOTEMPTY)", .bob, .delete, "/del/ro/full",
        .deny(.EACCES, .mode, .deleteParentWriteMissing))
]

@Suite("M6: delete")
struct DeleteTests {
    @Test("M6 delete: node ACE > parent ACE (beats sticky) > parent w bit > sticky (EACCES)", arguments: deleteRows)
    func delete(_ row: Row) { check(row) }
}
