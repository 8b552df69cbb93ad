import Testing
import FSPolicy

// Rule O8: removing or renaming a mount point. The expected answers are what this machine's
// kernel gave (tmpfs mounted on directories and a file bound on a file, tried as root and as
// nobody; docs/semantics.md O8) and, for macos, what XNU's renameat_internal,
// unlinkat_internal and rmdirat_internal do. The covered directory under a mount is not in a
// world, so no row depends on its mode or owner.

/// LinuxFixture.world plus `/mp`: three mounted directories (in a directory everyone may
/// write, one only root may write, and a sticky one), an empty mounted directory, and a file
/// with a file mounted on it.
enum MountPointFixture {
    static let world: World = {
        var b = LinuxFixture.Builder()
        b.w = LinuxFixture.world
        for p in ["/mp/w/m", "/mp/w/m2", "/mp/w/fm", "/mp/nw/m", "/mp/s/m"] { b.w.setVolume(Volume(mountPath: p)) }
        b.dir("/mp")
        b.dir("/mp/w", .root, LG.root, 0o777)
        b.dir("/mp/w/m", .root, LG.root, 0o777)
        b.file("/mp/w/m/inner", .u2, LG.g2, 0o644)
        b.dir("/mp/w/m2", .root, LG.root, 0o755)
        b.file("/mp/w/fm", .root, LG.root, 0o644)
        b.dir("/mp/w/d", .u2, LG.g2, 0o777)
        b.file("/mp/w/f", .u2, LG.g2, 0o666)
        b.dir("/mp/w2", .root, LG.root, 0o777)
        b.dir("/mp/nw", .root, LG.root, 0o755)
        b.dir("/mp/nw/m", .root, LG.root, 0o777)
        b.dir("/mp/s", .root, LG.root, 0o1777)
        b.dir("/mp/s/m", .root, LG.root, 0o777)
        return b.w
    }()
}

/// Linux: EBUSY only once every permission check of the call passed.
let linuxMountPointRows: [LRow] = [
    LRow(
        "O8: rmdir of a mount point in a directory u2 may write", .u2, .delete, "/mp/w/m",
        .deny(.EBUSY, .type, .busyMountPoint), at: "/mp/w/m"),
    LRow(
        "O8: EBUSY comes before ENOTEMPTY (the mounted directory has an entry)", .root, .delete, "/mp/w/m",
        .deny(.EBUSY, .type, .busyMountPoint)),
    LRow(
        "O8: root removes a mount point in a directory only root may write", .root, .delete, "/mp/nw/m",
        .deny(.EBUSY, .type, .busyMountPoint)),
    LRow(
        "O8: without w on the directory, EACCES comes first", .u2, .delete, "/mp/nw/m",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/mp/nw"),
    LRow(
        "O8: in a sticky directory, the sticky bit's EPERM comes first", .u2, .delete, "/mp/s/m",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner), at: "/mp/s"),
    LRow("O8: unlink of a file with a file mounted on it", .u2, .delete, "/mp/w/fm", .deny(.EBUSY, .type, .busyMountPoint)),
    LRow(
        "O8: renaming a mount point within its directory", .u2, .rename, "/mp/w/m", to: "/mp/w/x",
        .deny(.EBUSY, .type, .busyMountPoint), at: "/mp/w/m"),
    LRow(
        "O8: root renames a mount point to another directory", .root, .rename, "/mp/nw/m", to: "/mp/w/x",
        .deny(.EBUSY, .type, .busyMountPoint)),
    LRow(
        "O8: renaming it out of a directory u2 may not write is EACCES first", .u2, .rename, "/mp/nw/m", to: "/mp/w/x",
        .deny(.EACCES, .mode, .otherBitsMissing), at: "/mp/nw"),
    LRow(
        "O8: renaming it in a sticky directory is the sticky bit's EPERM first", .u2, .rename, "/mp/s/m", to: "/mp/s/x",
        .deny(.EPERM, .sticky, .linuxStickyNotOwner)),
    LRow(
        "O8: a directory over an empty mounted directory", .u2, .rename, "/mp/w/d", to: "/mp/w/m2",
        .deny(.EBUSY, .type, .busyMountPoint), at: "/mp/w/m2"),
    LRow(
        "O8: a file over a mounted directory is EISDIR first", .u2, .rename, "/mp/w/f", to: "/mp/w/m",
        .deny(.EISDIR, .type, .isDirectory)),
    LRow(
        "O8: a file over a file with a file mounted on it", .u2, .rename, "/mp/w/f", to: "/mp/w/fm",
        .deny(.EBUSY, .type, .busyMountPoint), at: "/mp/w/fm"),
    LRow(
        "P5: the parents' mounts are compared: a mount point onto itself does nothing", .u2, .rename, "/mp/w/m", to: "/mp/w/m",
        .allow(.type, .nothingToChange)),
    LRow(
        "P5: a mount point into its own volume is EXDEV (not EINVAL)", .u2, .rename, "/mp/w/m", to: "/mp/w/m/x",
        .deny(.EXDEV, .volume, .crossDevice)),
    LRow("O8: an entry of the mounted volume is an ordinary file", .u2, .delete, "/mp/w/m/inner", .allow(.mode, .otherBitsGrant))
]

/// macos: unlink and rmdir say EBUSY before any permission check; a mount point may be renamed
/// to a new name of its directory, anything else about it is EXDEV.
let macMountPointRows: [(LRow, Expect)] = [
    (
        LRow("O8: rmdir of a mount point", .u2, .delete, "/mp/w/m", .deny(.EBUSY, .type, .busyMountPoint), at: "/mp/w/m"),
        .deny(.EBUSY, .type, .busyMountPoint)
    ),
    (
        LRow("O8: EBUSY before the directory's w bit", .u2, .delete, "/mp/nw/m", .deny(.EACCES, .mode, .otherBitsMissing)),
        .deny(.EBUSY, .type, .busyMountPoint)
    ),
    (
        LRow("O8: EBUSY before the sticky bit", .u2, .delete, "/mp/s/m", .deny(.EPERM, .sticky, .linuxStickyNotOwner)),
        .deny(.EBUSY, .type, .busyMountPoint)
    ),
    (
        LRow("O8: unlink of a file mount", .u2, .delete, "/mp/w/fm", .deny(.EBUSY, .type, .busyMountPoint)),
        .deny(.EBUSY, .type, .busyMountPoint)
    ),
    (
        LRow(
            "O8: a new name in the same directory is an ordinary rename", .u2, .rename, "/mp/w/m", to: "/mp/w/x",
            .deny(.EBUSY, .type, .busyMountPoint), traceHas: .renameMountPoint),
        .allow(.mode, .otherBitsGrant)
    ),
    (
        LRow(
            "O8: renamed in place, still judged: no w on the directory", .u2, .rename, "/mp/nw/m", to: "/mp/nw/x",
            .deny(.EACCES, .mode, .otherBitsMissing), traceHas: .renameMountPoint),
        .deny(.EACCES, .mode, .deleteParentWriteMissing)
    ),
    (
        LRow("O8: to another directory it is EXDEV", .root, .rename, "/mp/w/m", to: "/mp/w2/x", .deny(.EBUSY, .type, .busyMountPoint)),
        .deny(.EXDEV, .volume, .crossDevice)
    ),
    (
        LRow("O8: a directory over a mount point is EXDEV", .u2, .rename, "/mp/w/d", to: "/mp/w/m2", .deny(.EBUSY, .type, .busyMountPoint)),
        .deny(.EXDEV, .volume, .crossDevice)
    ),
    (
        LRow(
            "O8: a mount point into its own volume is EXDEV", .u2, .rename, "/mp/w/m", to: "/mp/w/m/x",
            .deny(.EXDEV, .volume, .crossDevice)),
        .deny(.EXDEV, .volume, .crossDevice)
    ),
    (
        LRow("O8: a mount point onto itself does nothing", .u2, .rename, "/mp/w/m", to: "/mp/w/m", .allow(.type, .nothingToChange)),
        .allow(.type, .nothingToChange)
    )
]

@Suite("O8: mount points")
struct MountPointTests {
    @Test("linux: EBUSY after the permission checks of unlink, rmdir and rename", arguments: linuxMountPointRows)
    func linux(_ row: LRow) { checkLinux(row, in: MountPointFixture.world) }

    @Test(
        "macos: EBUSY before the checks for unlink and rmdir; rename in place allowed, else EXDEV",
        arguments: macMountPointRows.map { MountPointCase(row: $0.0, macos: $0.1) })
    func macos(_ c: MountPointCase) {
        // The linux expectation of a row is its linux answer; traceHas is for macos.
        var linuxRow = c.row
        linuxRow.traceHas = nil
        checkLinux(linuxRow, in: MountPointFixture.world)
        var macRow = c.row
        macRow.at = nil
        checkLinux(macRow, semantics: .macos, expect: c.macos, in: MountPointFixture.world)
        checkLinux(macRow, semantics: .guide, expect: c.macos, in: MountPointFixture.world)
    }

    @Test("the fixture's mount points are what World.isMountPoint says")
    func fixture() {
        let w = MountPointFixture.world
        for p in ["/mp/w/m", "/mp/w/m2", "/mp/w/fm", "/mp/nw/m", "/mp/s/m", "/vol2"] { #expect(w.isMountPoint(w.lookup(p)!), "\(p)") }
        for p in ["/", "/mp", "/mp/w", "/mp/w/m/inner", "/mp/w/d"] { #expect(!w.isMountPoint(w.lookup(p)!), "\(p)") }
    }
}

struct MountPointCase: Sendable, CustomTestStringConvertible {
    var row: LRow
    var macos: Expect
    var testDescription: String { "\(row.label): linux \(row.expect), macos \(macos)" }
}
