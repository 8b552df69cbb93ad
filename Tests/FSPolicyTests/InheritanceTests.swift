import Testing
import FSPolicy

// What a newly created file or directory receives, and what the administrator operations do,
// under the three rule sets. Each row applies steps with `Mutator.apply` to its own copy of
// InhFixture.world (InheritanceFixtures.swift) and reads the result back.
//
// Sources of every expected value (never the code):
// - macos: shared/reference/macos-semantics.md §3 (kauth_acl_inherit: selection by exactly one
//   flag, `inherited` set, `only_inherit` cleared, all four inherit flags cleared on files or
//   with `limit_inherit`, no initial ACL + nothing selected → no ACL, inherited entries in
//   parent order, umask, mode untouched by the ACL, group = the parent's gid, suid/sgid/sticky
//   dropped by open and mkdir; the worked example P, P/f, P/s, P/s/g, P/s/t) and §2.7 (owner and
//   group of new objects on ignore-ownership mounts).
// - guide: the appendix's "権限の継承" (seed 001): the same selection; "No Propagate Inherit"
//   makes the copy lose File Inherit and Directory Inherit (only those); nothing says a file's
//   copy loses its flags; the ACL order "explicit deny, explicit allow, inherited in the
//   parent's order"; table B-4 (a new object gets the directory's GID when the directory is
//   setgid, else the creator's group; setuid on a directory does not give its UID); the
//   administrator operations list and Figure B-1. Where the guide is silent the guide rule set
//   shares the macos rules (docs/semantics.md §G).
// - linux: shared/reference/linux-semantics.md §3 (new inode ownership, setgid directories,
//   the S_ISGID strip) and §5 (posix_acl_create), measured rows Q1–Q7, R1, R2 of §7.

/// The parent suite: `--filter FSPolicyTests.Inheritance` selects every table below.
@Suite("inheritance and creation")
struct InheritanceTests {}

// MARK: - Shorthand for expected copies

private let F: ACEFlags = .F, D: ACEFlags = .D, L: ACEFlags = .L, O: ACEFlags = .O, I: ACEFlags = .I

private func with(_ a: ACE, _ flags: ACEFlags) -> ACE { var c = a; c.flags = flags; return c }

// MARK: - Table 1: one parent ACE, every flag combination, file and directory children

// macos §3.3/§3.5: selected by `file_inherit` (file) or `directory_inherit` (dir) only; the copy
// gains `inherited`, loses `only_inherit`; on a file or with `limit_inherit` it loses all four
// inherit flags. guide: same selection and marking, but `limit_inherit` removes only
// file_inherit/directory_inherit and a file's copy keeps its flags.
let inheritanceFlagRows: [FlagRow] = [
    FlagRow("no flags → file: nothing inherited", [], dir: false, mac: nil, guide: nil),
    FlagRow("no flags → dir: nothing inherited", [], dir: true, mac: nil, guide: nil),
    FlagRow("file_inherit → file copy (mac: flags cleared; guide: keeps file_inherit)", F, dir: false, mac: I, guide: [I, F]),
    FlagRow("file_inherit → dir: not selected (directory_inherit missing)", F, dir: true, mac: nil, guide: nil),
    FlagRow("directory_inherit → file: not selected", D, dir: false, mac: nil, guide: nil),
    FlagRow("directory_inherit → dir copy keeps directory_inherit", D, dir: true, mac: [I, D], guide: [I, D]),
    FlagRow("limit_inherit alone → file: not selected", L, dir: false, mac: nil, guide: nil),
    FlagRow("limit_inherit alone → dir: not selected", L, dir: true, mac: nil, guide: nil),
    FlagRow("only_inherit alone → file: not selected", O, dir: false, mac: nil, guide: nil),
    FlagRow("only_inherit alone → dir: not selected", O, dir: true, mac: nil, guide: nil),
    FlagRow("file+directory_inherit → file copy (mac: cleared; guide: keeps both)", [F, D], dir: false, mac: I, guide: [I, F, D]),
    FlagRow("file+directory_inherit → dir copy keeps both and propagates", [F, D], dir: true, mac: [I, F, D], guide: [I, F, D]),
    FlagRow("file_inherit+limit → file copy (guide: limit kept, file_inherit gone)", [F, L], dir: false, mac: I, guide: [I, L]),
    FlagRow("file_inherit+limit → dir: not selected", [F, L], dir: true, mac: nil, guide: nil),
    FlagRow("file_inherit+only_inherit → file copy, only_inherit cleared", [F, O], dir: false, mac: I, guide: [I, F]),
    FlagRow("file_inherit+only_inherit → dir: not selected", [F, O], dir: true, mac: nil, guide: nil),
    FlagRow("directory_inherit+limit → file: not selected", [D, L], dir: false, mac: nil, guide: nil),
    FlagRow("directory_inherit+limit → dir copy (mac: all flags cleared; guide: limit kept)", [D, L], dir: true, mac: I, guide: [I, L]),
    FlagRow("directory_inherit+only_inherit → file: not selected", [D, O], dir: false, mac: nil, guide: nil),
    FlagRow("directory_inherit+only_inherit → dir copy, only_inherit cleared", [D, O], dir: true, mac: [I, D], guide: [I, D]),
    FlagRow("limit+only_inherit → file: not selected", [L, O], dir: false, mac: nil, guide: nil),
    FlagRow("limit+only_inherit → dir: not selected", [L, O], dir: true, mac: nil, guide: nil),
    FlagRow("file+directory+limit → file copy", [F, D, L], dir: false, mac: I, guide: [I, L]),
    FlagRow("file+directory+limit → dir copy is not inheritable any more", [F, D, L], dir: true, mac: I, guide: [I, L]),
    FlagRow("file+directory+only_inherit → file copy", [F, D, O], dir: false, mac: I, guide: [I, F, D]),
    FlagRow("file+directory+only_inherit → dir copy, effective and still inheritable", [F, D, O], dir: true, mac: [I, F, D], guide: [I, F, D]),
    FlagRow("file_inherit+limit+only_inherit → file copy", [F, L, O], dir: false, mac: I, guide: [I, L]),
    FlagRow("file_inherit+limit+only_inherit → dir: not selected", [F, L, O], dir: true, mac: nil, guide: nil),
    FlagRow("directory_inherit+limit+only_inherit → file: not selected", [D, L, O], dir: false, mac: nil, guide: nil),
    FlagRow("directory_inherit+limit+only_inherit → dir copy", [D, L, O], dir: true, mac: I, guide: [I, L]),
    FlagRow("all four → file copy", [F, D, L, O], dir: false, mac: I, guide: [I, L]),
    FlagRow("all four → dir copy", [F, D, L, O], dir: true, mac: I, guide: [I, L]),
    // the parent's own ACE is an inherited copy: `inherited` does not matter for selection
    FlagRow("inherited alone on the parent ACE → file: not selected", I, dir: false, mac: nil, guide: nil),
    FlagRow("inherited alone on the parent ACE → dir: not selected", I, dir: true, mac: nil, guide: nil),
    FlagRow("inherited+file_inherit on the parent ACE → file copy", [I, F], dir: false, mac: I, guide: [I, F]),
    FlagRow("inherited+file_inherit on the parent ACE → dir: not selected", [I, F], dir: true, mac: nil, guide: nil),
    FlagRow("inherited+directory_inherit on the parent ACE → file: not selected", [I, D], dir: false, mac: nil, guide: nil),
    FlagRow("inherited+directory_inherit on the parent ACE → dir copy", [I, D], dir: true, mac: [I, D], guide: [I, D]),
    FlagRow("inherited+file+directory_inherit on the parent ACE → file copy", [I, F, D], dir: false, mac: I, guide: [I, F, D]),
    FlagRow("inherited+file+directory_inherit on the parent ACE → dir copy", [I, F, D], dir: true, mac: [I, F, D], guide: [I, F, D]),
    FlagRow("inherited+file+directory+limit on the parent ACE → file copy", [I, F, D, L], dir: false, mac: I, guide: [I, L]),
    FlagRow("inherited+file+directory+limit on the parent ACE → dir copy", [I, F, D, L], dir: true, mac: I, guide: [I, L])
]

extension InheritanceTests {
    @Suite("inheritance: flags")
    struct Flags {
        @Test(
            "macos §3.3/§3.5 and the guide's inheritance flags: one parent ACE, each flag alone and combined",
            arguments: inheritanceFlagRows)
        func flags(_ f: FlagRow) {
            let row = f.row()
            for (sem, e) in row.semantics { checkMade(row, sem, e) }
        }
    }
}

// MARK: - Table 2: composition, nesting, the worked example, modes, owner and group

// The worked example of macos-semantics.md §3 (parent P, not canonical).
private let wx0 = allow(iu(.alice), .readData, F)  // user:alice allow read,file_inherit
private let wx1 = allow(iu(.bob), [.readData, .execute], D)  // user:bob allow list,search,directory_inherit
private let wx2 = deny(.group(IG.devs), .delete, [F, D, L])  // group:devs deny delete,…,limit_inherit
private let wx3 = allow(iu(.carol), .writeData, [F, D, O])  // user:carol allow add_file,…,only_inherit
/// The worked example's parent ACL (also used by InheritanceTests+Effects.swift).
let workedExampleACL = [wx0, wx1, wx2, wx3]

private let bobRead = allow(iu(.bob), .readData)
private let bobWriteDeny = deny(iu(.bob), .writeData)
private let carolRead = allow(iu(.carol), .readData)
private let carolWriteDeny = deny(iu(.carol), .writeData)
private let daveRead = allow(iu(.dave), .readData)
private let daveWriteDeny = deny(iu(.dave), .writeData)
private let everyoneDeleteDeny = deny(.everyone, .delete)
private let everyoneAll = allow(.everyone, AccessRights.aceRights)

let inheritanceComposeRows: [MadeRow] = [
    // --- the worked example, exactly (§3), and the guide's reading of the same parent
    MadeRow(
        "worked example: new file P/f selects 0, 2, 3", acl: workedExampleACL, .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(wx0, I), with(wx2, I), with(wx3, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(wx0, [I, F]), with(wx2, [I, L]), with(wx3, [I, F, D])])),
    MadeRow(
        "worked example: new directory P/s selects 1, 2, 3", acl: workedExampleACL, .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(wx1, [I, D]), with(wx2, I), with(wx3, [I, F, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(wx1, [I, D]), with(wx2, [I, L]), with(wx3, [I, F, D])])),
    MadeRow(
        "worked example: P/s/g gets only carol's entry; alice's read never reaches it", acl: workedExampleACL,
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(wx3, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(wx3, [I, F, D])])),
    MadeRow(
        "worked example: P/s/t gets bob's and carol's entries; limit_inherit consumed the devs deny", acl: workedExampleACL,
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .mkdir, "/p/s/t", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(wx1, [I, D]), with(wx3, [I, F, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(wx1, [I, D]), with(wx3, [I, F, D])])),

    // --- allow and deny keep the parent's order; nothing is sorted (§3.5, §3.8; guide: "親に現れる順序と同じ")
    MadeRow(
        "file: allow, deny, allow, deny copied in parent order",
        acl: [with(bobRead, F), with(bobWriteDeny, F), with(carolRead, F), with(everyoneDeleteDeny, F)],
        .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I), with(bobWriteDeny, I), with(carolRead, I), with(everyoneDeleteDeny, I)]),
        guide: Made(
            .alice, IG.staff, 0o644,
            [
                with(bobRead, [I, F]), with(bobWriteDeny, [I, F]), with(carolRead, [I, F]),
                with(everyoneDeleteDeny, [I, F])
            ])),
    MadeRow(
        "dir: deny, allow, deny copied in parent order (deny not moved)",
        acl: [with(carolWriteDeny, [F, D]), with(bobRead, [F, D]), with(everyoneDeleteDeny, D)],
        .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(carolWriteDeny, [I, F, D]), with(bobRead, [I, F, D]), with(everyoneDeleteDeny, [I, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(carolWriteDeny, [I, F, D]), with(bobRead, [I, F, D]), with(everyoneDeleteDeny, [I, D])])),
    MadeRow(
        "dir: a non-canonical parent (inherited allow before explicit deny) is copied as is",
        acl: [with(bobRead, [I, F, D]), with(daveWriteDeny, [F, D])], .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(bobRead, [I, F, D]), with(daveWriteDeny, [I, F, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(bobRead, [I, F, D]), with(daveWriteDeny, [I, F, D])])),
    MadeRow(
        "file: the same non-canonical parent", acl: [with(bobRead, [I, F, D]), with(daveWriteDeny, [F, D])],
        .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I), with(daveWriteDeny, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(bobRead, [I, F, D]), with(daveWriteDeny, [I, F, D])])),
    MadeRow(
        "file: only the file_inherit entries of a mixed parent, in order",
        acl: [with(bobRead, F), with(carolRead, D), with(daveRead, [F, D]), carolWriteDeny],
        .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I), with(daveRead, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(bobRead, [I, F]), with(daveRead, [I, F, D])])),
    MadeRow(
        "dir: only the directory_inherit entries of the same parent, in order",
        acl: [with(bobRead, F), with(carolRead, D), with(daveRead, [F, D]), carolWriteDeny],
        .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(carolRead, [I, D]), with(daveRead, [I, F, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(carolRead, [I, D]), with(daveRead, [I, F, D])])),

    // --- no ACL, empty ACL, nothing inheritable → no ACL on the child (§3.4: NULL, not empty)
    MadeRow(
        "parent without an ACL → file without an ACL", .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "parent without an ACL → dir without an ACL", .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "parent with an empty ACL → file without an ACL (not an empty one)", acl: [], .alice, .create, "/p/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "parent with an empty ACL → dir without an ACL", acl: [], .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "parent with only non-inheritable entries → file without an ACL", acl: [bobRead, daveWriteDeny],
        .alice, .create, "/p/f", mode: 0o666, mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "parent with only non-inheritable entries → dir without an ACL", acl: [bobRead, daveWriteDeny],
        .alice, .mkdir, "/p/s", mode: 0o777, mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),

    // --- nested levels (§3.3 consequence: a FILE_INHERIT-only ACE never reaches subdirectories)
    MadeRow(
        "file_inherit only: the subdirectory gets nothing", acl: [with(bobRead, F)], .alice, .mkdir, "/p/s", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "file_inherit only: a file in the subdirectory gets nothing", acl: [with(bobRead, F)],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "file_inherit only: three levels down, still nothing", acl: [with(bobRead, F)],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777), Pre(.alice, .mkdir, "/p/s/t", mode: 0o777)],
        .alice, .create, "/p/s/t/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "file+directory_inherit: grandchild file", acl: [with(bobRead, [F, D])],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(bobRead, [I, F, D])])),
    MadeRow(
        "file+directory_inherit: grandchild directory keeps propagating", acl: [with(bobRead, [F, D])],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .mkdir, "/p/s/t", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(bobRead, [I, F, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(bobRead, [I, F, D])])),
    MadeRow(
        "file+directory_inherit: a file four levels down", acl: [with(bobRead, [F, D])],
        before: [
            Pre(.alice, .mkdir, "/p/s", mode: 0o777), Pre(.alice, .mkdir, "/p/s/t", mode: 0o777),
            Pre(.alice, .mkdir, "/p/s/t/u", mode: 0o777)
        ],
        .alice, .create, "/p/s/t/u/f", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(bobRead, [I, F, D])])),
    MadeRow(
        "directory_inherit only: a file in the subdirectory gets nothing", acl: [with(bobRead, D)],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "directory_inherit only: the grandchild directory still gets it", acl: [with(bobRead, D)],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .mkdir, "/p/s/t", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755, [with(bobRead, [I, D])]),
        guide: Made(.alice, IG.staff, 0o755, [with(bobRead, [I, D])])),
    MadeRow(
        "limit_inherit: the child dir's copy stops there (grandchild dir)", acl: [with(bobRead, [F, D, L])],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .mkdir, "/p/s/t", mode: 0o777,
        mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "limit_inherit: the child dir's copy stops there (grandchild file)", acl: [with(bobRead, [F, D, L])],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "only_inherit is cleared once: grandchild file of an inherit-only ACE", acl: [with(bobRead, [F, D, O])],
        before: [Pre(.alice, .mkdir, "/p/s", mode: 0o777)], .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(bobRead, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(bobRead, [I, F, D])])),
    MadeRow(
        "a subdirectory with an explicit entry before an inherited one: its children copy both in its stored order",
        acl: [with(bobRead, [F, D])],
        before: [
            Pre(.alice, .mkdir, "/p/s", mode: 0o777),
            Pre(.alice, .setacl, "/p/s", acl: [with(daveWriteDeny, F), with(bobRead, [I, F, D])])
        ],
        .alice, .create, "/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644, [with(daveWriteDeny, I), with(bobRead, I)]),
        guide: Made(.alice, IG.staff, 0o644, [with(daveWriteDeny, [I, F]), with(bobRead, [I, F, D])])),

    // --- only_inherit on the parent: skipped when deciding the create, effective on the copy
    MadeRow(
        "an inherit-only deny add_file does not stop dave, and his file carries it effective",
        acl: [with(allow(iu(.dave), .writeData), []), with(deny(iu(.dave), .writeData), [F, O])],
        .dave, .create, "/p/f", mode: 0o666,
        mac: Made(.dave, IG.devs, 0o644, [with(deny(iu(.dave), .writeData), I)]),
        guide: Made(.dave, IG.guests, 0o644, [with(deny(iu(.dave), .writeData), [I, F])])),

    // --- umask and requested mode; the parent is setgid so both rule sets give devs (§3.6)
    MadeRow("umask 022: file 0666 → 0644", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o666, both: Made(.alice, IG.devs, 0o644)),
    MadeRow("umask 022: dir 0777 → 0755", pmode: 0o2777, .alice, .mkdir, "/p/s", mode: 0o777, both: Made(.alice, IG.devs, 0o755)),
    MadeRow("umask 077: file 0666 → 0600", pmode: 0o2777, .erin, .create, "/p/f", mode: 0o666, both: Made(.erin, IG.devs, 0o600)),
    MadeRow("umask 077: dir 0777 → 0700", pmode: 0o2777, .erin, .mkdir, "/p/s", mode: 0o777, both: Made(.erin, IG.devs, 0o700)),
    MadeRow("umask 000: file 0666 → 0666", pmode: 0o2777, .frank, .create, "/p/f", mode: 0o666, both: Made(.frank, IG.devs, 0o666)),
    MadeRow("umask 000: dir 0777 → 0777", pmode: 0o2777, .frank, .mkdir, "/p/s", mode: 0o777, both: Made(.frank, IG.devs, 0o777)),
    MadeRow("umask 022: file 0777 → 0755", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o777, both: Made(.alice, IG.devs, 0o755)),
    MadeRow("umask 022: file 0640 stays 0640", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o640, both: Made(.alice, IG.devs, 0o640)),
    MadeRow("umask 077: file 0644 → 0600", pmode: 0o2777, .erin, .create, "/p/f", mode: 0o644, both: Made(.erin, IG.devs, 0o600)),
    MadeRow("open drops setuid: 04755 → 0755", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o4755, both: Made(.alice, IG.devs, 0o755)),
    MadeRow("open drops setgid: 02755 → 0755", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o2755, both: Made(.alice, IG.devs, 0o755)),
    MadeRow("open drops sticky: 01644 → 0644", pmode: 0o2777, .alice, .create, "/p/f", mode: 0o1644, both: Made(.alice, IG.devs, 0o644)),
    MadeRow(
        "open drops all three, umask 000: 07777 → 0777", pmode: 0o2777, .frank, .create, "/p/f", mode: 0o7777,
        both: Made(.frank, IG.devs, 0o777)),
    MadeRow("mkdir drops sticky: 01777 → 0755", pmode: 0o2777, .alice, .mkdir, "/p/s", mode: 0o1777, both: Made(.alice, IG.devs, 0o755)),
    MadeRow(
        "mkdir drops setgid, none from the setgid parent either: 02775 → 0775", pmode: 0o2777, .frank, .mkdir, "/p/s",
        mode: 0o2775, both: Made(.frank, IG.devs, 0o775)),
    MadeRow(
        "mkdir drops all three, umask 000: 07777 → 0777", pmode: 0o2777, .frank, .mkdir, "/p/s", mode: 0o7777,
        both: Made(.frank, IG.devs, 0o777)),
    MadeRow(
        "mkdir drops setuid, umask 077: 04700 → 0700", pmode: 0o2777, .erin, .mkdir, "/p/s", mode: 0o4700,
        both: Made(.erin, IG.devs, 0o700)),
    MadeRow(
        "the mode ignores the inherited ACL: an allow-everything copy leaves 0600", pmode: 0o2777,
        acl: [with(everyoneAll, [F, D])], .erin, .create, "/p/f", mode: 0o666,
        mac: Made(.erin, IG.devs, 0o600, [with(everyoneAll, I)]),
        guide: Made(.erin, IG.devs, 0o600, [with(everyoneAll, [I, F, D])])),
    MadeRow(
        "the mode ignores the inherited ACL: a dir with inherited entries is still 0777 & ~umask", pmode: 0o2777,
        acl: [with(everyoneAll, [F, D]), with(daveWriteDeny, D)], .frank, .mkdir, "/p/s", mode: 0o777,
        both: Made(.frank, IG.devs, 0o777, [with(everyoneAll, [I, F, D]), with(daveWriteDeny, [I, D])])),

    // --- owner = creator; group = parent's gid (macos §3.7) vs setgid-only (guide, table B-4)
    MadeRow(
        "group: macos takes the parent's gid without setgid; the guide takes alice's primary group",
        .alice, .create, "/p/f", mode: 0o666, mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "group of a new dir: parent's gid (macos) vs creator's primary group (guide)",
        .alice, .mkdir, "/p/s", mode: 0o777, mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "group for carol: devs (macos) vs guests (guide)", .carol, .create, "/p/f", mode: 0o666,
        mac: Made(.carol, IG.devs, 0o644), guide: Made(.carol, IG.guests, 0o644)),
    MadeRow(
        "root creates: owner root; group devs (macos) vs wheel (guide)", .root, .create, "/p/f", mode: 0o666,
        mac: Made(.root, IG.devs, 0o644), guide: Made(.root, IG.wheel, 0o644)),
    MadeRow(
        "setgid parent: both rule sets give the parent's group", pmode: 0o2777, .carol, .create, "/p/f", mode: 0o666,
        both: Made(.carol, IG.devs, 0o644)),
    MadeRow(
        "setgid parent, new dir: the parent's group, but no setgid bit", pmode: 0o2777, .carol, .mkdir, "/p/s", mode: 0o777,
        both: Made(.carol, IG.devs, 0o755)),
    MadeRow(
        "owner = creator, not the parent's owner (the parent is dave's; table B-4: setuid dirs do not pass on the uid)",
        owner: .dave, group: IG.guests, pmode: 0o4777, .bob, .create, "/p/f", mode: 0o666,
        mac: Made(.bob, IG.guests, 0o644), guide: Made(.bob, IG.staff, 0o644)),
    MadeRow(
        "group two levels down: the subdirectory's gid (macos) vs the creator's group (guide)",
        before: [Pre(.frank, .mkdir, "/p/s", mode: 0o777)], .bob, .create, "/p/s/f", mode: 0o666,
        mac: Made(.bob, IG.devs, 0o644), guide: Made(.bob, IG.staff, 0o644)),

    // --- ignore-ownership volumes (§2.7): owner = fsowner else caller; group = fsgroup else as usual
    MadeRow(
        "ignore ownership, no fsowner/fsgroup: owner alice; group devs (macos) vs staff (guide)", parent: "/io/p",
        .alice, .create, "/io/p/f", mode: 0o666, mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "ignore ownership, no fsowner/fsgroup: erin's dir, umask 077", parent: "/io/p",
        .erin, .mkdir, "/io/p/s", mode: 0o777, mac: Made(.erin, IG.devs, 0o700), guide: Made(.erin, IG.staff, 0o700)),
    MadeRow(
        "ignore ownership with fsowner dave and fsgroup admin: file", parent: "/iof/p",
        .alice, .create, "/iof/p/f", mode: 0o666, both: Made(.dave, IG.admin, 0o644)),
    MadeRow(
        "ignore ownership with fsowner dave and fsgroup admin: dir", parent: "/iof/p",
        .carol, .mkdir, "/iof/p/s", mode: 0o777, both: Made(.dave, IG.admin, 0o755)),
    MadeRow(
        "ignore ownership with fsowner and fsgroup: root's file too", parent: "/iof/p",
        .root, .create, "/iof/p/f", mode: 0o600, both: Made(.dave, IG.admin, 0o600)),
    MadeRow(
        "ignore ownership with fsowner only: owner dave; group as usual", parent: "/iou/p",
        .alice, .create, "/iou/p/f", mode: 0o666, mac: Made(.dave, IG.devs, 0o644), guide: Made(.dave, IG.staff, 0o644)),
    MadeRow(
        "ignore ownership with fsgroup only: owner alice, group admin", parent: "/iog/p",
        .alice, .create, "/iog/p/f", mode: 0o666, both: Made(.alice, IG.admin, 0o644)),
    MadeRow(
        "ignore ownership does not stop inheritance", parent: "/iof/p", acl: [with(bobRead, F)],
        .alice, .create, "/iof/p/f", mode: 0o666,
        mac: Made(.dave, IG.admin, 0o644, [with(bobRead, I)]), guide: Made(.dave, IG.admin, 0o644, [with(bobRead, [I, F])])),

    // --- a volume without ACLs: nothing is inherited (§3: skipped without extended security)
    MadeRow(
        "acls: false volume → file inherits nothing", parent: "/noacl/p", acl: [with(bobRead, [F, D]), with(everyoneDeleteDeny, F)],
        .alice, .create, "/noacl/p/f", mode: 0o666, mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644)),
    MadeRow(
        "acls: false volume → dir inherits nothing", parent: "/noacl/p", acl: [with(bobRead, [F, D])],
        .alice, .mkdir, "/noacl/p/s", mode: 0o777, mac: Made(.alice, IG.devs, 0o755), guide: Made(.alice, IG.staff, 0o755)),
    MadeRow(
        "acls: false volume → nothing two levels down either", parent: "/noacl/p", acl: [with(bobRead, [F, D])],
        before: [Pre(.alice, .mkdir, "/noacl/p/s", mode: 0o777)], .alice, .create, "/noacl/p/s/g", mode: 0o666,
        mac: Made(.alice, IG.devs, 0o644), guide: Made(.alice, IG.staff, 0o644))
]

extension InheritanceTests {
    @Suite("inheritance: composition, nesting, modes, owner and group")
    struct Compose {
        @Test(
            "macos §3 (worked example, order, no/empty ACL, nesting, umask, mode, group), §2.7; the guide where it agrees and where it differs",
            arguments: inheritanceComposeRows)
        func compose(_ row: MadeRow) {
            for (sem, e) in row.semantics { checkMade(row, sem, e) }
        }
    }
}

// MARK: - Table 3: linux creation (§3, §5, Q1–Q7, R1, R2)

private let qAccessFile = "u::rw-,u:1003:rwx,g::r-x,m::rw-,o::---"
private let qAccessDir = "u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---"
private let qDefault = "u::rwx,u:1003:rwx,g::r-x,m::rwx,o::---"

let inheritanceLinuxRows: [LMadeRow] = [
    // measured
    LMadeRow(
        "Q1: umask 077, default ACL → -rw-rw----, mask rw-, named and group:: copied unchanged", .u1, .create,
        "/l/d_def/newf", mode: 0o666, LMade(.u1, IG.g1, 0o660, access: qAccessFile)),
    LMadeRow(
        "Q2: mkdir → drwxrwx---, default ACL copied verbatim", .u1, .mkdir, "/l/d_def/sub", mode: 0o777,
        LMade(.u1, IG.g1, 0o770, access: qAccessDir, def: qDefault)),
    LMadeRow(
        "Q5: minimal default (u::rwx,g::---,o::r-x) → -rw----r--, no ACL stored", .u1, .create, "/l/d_def2/newf",
        mode: 0o666, LMade(.u1, IG.g1, 0o604)),
    LMadeRow(
        "Q6: no default ACL, umask 077 → -rw-------", .u1, .create, "/l/d_sgid/umaskf", mode: 0o666,
        LMade(.u1, IG.g1, 0o600)),
    LMadeRow(
        "Q7: a file under the subdirectory made in Q2 gets the same ACL as Q1",
        before: [Pre(.u1, .mkdir, "/l/d_def/sub", mode: 0o777)], .u1, .create, "/l/d_def/sub/deep", mode: 0o666,
        LMade(.u1, IG.g1, 0o660, access: qAccessFile)),
    LMadeRow(
        "R1: setgid parent passes on its group (acltu4 is not in acltg1)", .u4, .create, "/l/d_sgid/nf", mode: 0o666,
        LMade(.u4, IG.g1, 0o644)),
    LMadeRow(
        "R2: setgid parent passes on its group and the setgid bit to a new dir", .u4, .mkdir, "/l/d_sgid/nd", mode: 0o777,
        LMade(.u4, IG.g1, 0o2755)),
    // the umask is ignored under a default ACL
    LMadeRow(
        "default ACL, umask 000: the same as Q1", .u1, umask: 0o000, .create, "/l/d_def/f", mode: 0o666,
        LMade(.u1, IG.g1, 0o660, access: qAccessFile)),
    LMadeRow(
        "default ACL, umask 022: group w kept (umask ignored); fsgid group", .u2, .create, "/l/d_def/f", mode: 0o666,
        LMade(.u2, IG.g2, 0o660, access: qAccessFile)),
    LMadeRow(
        "default ACL, umask 022: mkdir → 0770 with the default copied", .u2, .mkdir, "/l/d_def/s", mode: 0o777,
        LMade(.u2, IG.g2, 0o770, access: qAccessDir, def: qDefault)),
    LMadeRow(
        "default ACL, requested 0600: mask folded to ---", .u1, .create, "/l/d_def/f", mode: 0o600,
        LMade(.u1, IG.g1, 0o600, access: "u::rw-,u:1003:rwx,g::r-x,m::---,o::---")),
    LMadeRow(
        "default ACL, setuid requested: kept, bits folded → 04750", .u1, .create, "/l/d_def/f", mode: 0o4755,
        LMade(.u1, IG.g1, 0o4750, access: "u::rwx,u:1003:rwx,g::r-x,m::r-x,o::---")),
    LMadeRow(
        "default ACL two levels down: mkdir under Q2's subdirectory copies the default again",
        before: [Pre(.u1, .mkdir, "/l/d_def/sub", mode: 0o777)], .u1, .mkdir, "/l/d_def/sub/sub2", mode: 0o777,
        LMade(.u1, IG.g1, 0o770, access: qAccessDir, def: qDefault)),
    LMadeRow(
        "root creates under a default ACL: owner root, group root's", .root, .create, "/l/d_def/r", mode: 0o666,
        LMade(.root, IG.wheel, 0o660, access: qAccessFile)),
    // without a mask: group:: takes the group bits
    LMadeRow(
        "default without mask: 0640 → 0640, minimal → no ACL", .u1, .create, "/l/d_nomask/f", mode: 0o640,
        LMade(.u1, IG.g1, 0o640)),
    LMadeRow(
        "default without mask: 0666 → u rw-, g rw-, o r-- = 0664, no ACL", .u1, .create, "/l/d_nomask/f", mode: 0o666,
        LMade(.u1, IG.g1, 0o664)),
    LMadeRow(
        "default without mask: mkdir 0777 → 0775, no access ACL, the minimal default copied", .u1, .mkdir,
        "/l/d_nomask/s", mode: 0o777, LMade(.u1, IG.g1, 0o775, def: "u::rwx,g::rwx,o::r-x")),
    LMadeRow(
        "default with a mask but no named entries: not minimal, stored", .u1, .create, "/l/d_maskonly/f", mode: 0o666,
        LMade(.u1, IG.g1, 0o660, access: "u::rw-,g::r-x,m::rw-,o::---")),
    LMadeRow(
        "named group entry copied unchanged, limited only by the new mask", .u1, .create, "/l/d_named/f", mode: 0o644,
        LMade(.u1, IG.g1, 0o644, access: "u::rw-,g::r--,g:1002:rwx,m::r--,o::r--")),
    // setgid parent with a default ACL
    LMadeRow(
        "setgid parent with default ACL: new dir gets the group, setgid, the ACL and the default", .u4, .mkdir,
        "/l/d_defsgid/s", mode: 0o777, LMade(.u4, IG.g1, 0o2770, access: qAccessDir, def: qDefault)),
    LMadeRow(
        "setgid parent with default ACL: new file gets the group and the folded ACL", .u4, .create,
        "/l/d_defsgid/f", mode: 0o666, LMade(.u4, IG.g1, 0o660, access: qAccessFile)),
    // no default ACL: mode & ~umask, no ACL, group = fsgid
    LMadeRow(
        "no default ACL, umask 022: file → 0644, group = the creator's", .u4, .create, "/l/plain/f", mode: 0o666,
        LMade(.u4, IG.g3, 0o644)),
    LMadeRow("no default ACL, umask 077: file → 0600", .u1, .create, "/l/plain/f", mode: 0o666, LMade(.u1, IG.g1, 0o600)),
    LMadeRow("no default ACL, umask 077: dir → 0700", .u1, .mkdir, "/l/plain/s", mode: 0o777, LMade(.u1, IG.g1, 0o700)),
    LMadeRow("no default ACL, umask 022: dir → 0755", .u4, .mkdir, "/l/plain/s", mode: 0o777, LMade(.u4, IG.g3, 0o755)),
    LMadeRow(
        "no default ACL, umask 000: file → 0666", .u4, umask: 0o000, .create, "/l/plain/f", mode: 0o666,
        LMade(.u4, IG.g3, 0o666)),
    LMadeRow("no default ACL, requested 0640 stays", .u4, .create, "/l/plain/f", mode: 0o640, LMade(.u4, IG.g3, 0o640)),
    // special bits (§3, divergence 14)
    LMadeRow("open keeps setuid: 04755 → 04755", .u4, .create, "/l/plain/f", mode: 0o4755, LMade(.u4, IG.g3, 0o4755)),
    LMadeRow(
        "open keeps setgid in a non-setgid dir (own group): 02755 → 02755", .u4, .create, "/l/plain/f", mode: 0o2755,
        LMade(.u4, IG.g3, 0o2755)),
    LMadeRow(
        "mkdir keeps sticky, drops setuid/setgid: 07777 → 01755", .u4, .mkdir, "/l/plain/s", mode: 0o7777,
        LMade(.u4, IG.g3, 0o1755)),
    LMadeRow("mkdir keeps sticky: 01777 → 01755", .u4, .mkdir, "/l/plain/s", mode: 0o1777, LMade(.u4, IG.g3, 0o1755)),
    LMadeRow(
        "setgid strip: setgid|g+x file in a setgid dir whose group u4 is not in → 0755", .u4, .create, "/l/d_sgid/x",
        mode: 0o2755, LMade(.u4, IG.g1, 0o755)),
    LMadeRow("no strip for root (CAP_FSETID)", .root, .create, "/l/d_sgid/x", mode: 0o2755, LMade(.root, IG.g1, 0o2755)),
    LMadeRow(
        "default ACL, mkdir 01777: sticky kept with the folded bits → 01770", .u1, .mkdir, "/l/d_def/s", mode: 0o1777,
        LMade(.u1, IG.g1, 0o1770, access: qAccessDir, def: qDefault)),
    LMadeRow(
        "no strip for a member of the dir's group (u2 is in acltg1)", .u2, .create, "/l/d_sgid/x", mode: 0o2755,
        LMade(.u2, IG.g1, 0o2755)),
    LMadeRow(
        "no strip without group x: 02745 keeps setgid", .u4, .create, "/l/d_sgid/x", mode: 0o2745,
        LMade(.u4, IG.g1, 0o2745)),
    LMadeRow(
        "mkdir 06777 in a setgid dir: own suid/sgid dropped, setgid from the parent → 02755", .u4, .mkdir,
        "/l/d_sgid/s", mode: 0o6777, LMade(.u4, IG.g1, 0o2755)),
    LMadeRow(
        "setgid passes down two levels", before: [Pre(.u4, .mkdir, "/l/d_sgid/nd", mode: 0o777)], .u4, .create,
        "/l/d_sgid/nd/f", mode: 0o666, LMade(.u4, IG.g1, 0o644)),
    // a file system without ACLs: the umask applies, the stored default is never read (§5.1)
    LMadeRow("acls: false volume: umask 077 applies, no ACL", .u1, .create, "/noacl/d/f", mode: 0o666, LMade(.u1, IG.g1, 0o600)),
    LMadeRow(
        "acls: false volume: mkdir → 0700, no default copied", .u1, .mkdir, "/noacl/d/s", mode: 0o777,
        LMade(.u1, IG.g1, 0o700))
]

extension InheritanceTests {
    @Suite("inheritance: linux creation")
    struct Linux {
        @Test("linux §3 ownership and setgid, §5 posix_acl_create, measured Q1–Q7, R1, R2", arguments: inheritanceLinuxRows)
        func create(_ row: LMadeRow) { checkLinuxMade(row) }
    }
}
