import Testing
import FSPolicy

// Sockets opened (rule O9) and, under linux, inode flags set on FIFOs, sockets and device
// nodes (rule L9). The expected answers are what this machine's kernel gave (sockets of mode
// 0000, 0666 and 0777, FIFOs and /dev/null-like device nodes on ext4 and tmpfs, as root and as
// nobody; docs/semantics.md O9, L9) and, for macos, what XNU's vn_authorize_open_existing and
// chflags do.

/// LinuxFixture.world plus `/sk`: sockets, a FIFO, a device node and a file, and a socket on
/// the read-only volume.
enum SpecialFileFixture {
    static let world: World = {
        var b = LinuxFixture.Builder()
        b.w = LinuxFixture.world
        b.dir("/sk")
        b.node("/sk/s0", .socket, .root, LG.root, 0o000)
        b.node("/sk/s7", .socket, .root, LG.root, 0o777)
        b.node("/sk/s_u1", .socket, .u1, LG.g1, 0o600)
        b.node("/sk/p_u1", .fifo, .u1, LG.g1, 0o666)
        b.node("/sk/p0_u1", .fifo, .u1, LG.g1, 0o000)
        b.node("/sk/c_u1", .device, .u1, LG.g1, 0o666)
        b.node("/sk/c_root", .device, .root, LG.root, 0o666)
        b.file("/sk/f_u1", .u1, LG.g1, 0o666)
        b.node("/ro/sock", .socket, .u1, LG.g1, 0o666)
        b.node("/ro/p_u1", .fifo, .u1, LG.g1, 0o666)
        return b.w
    }()
}

/// Linux: ENXIO once the open's permission check passed; stat and chmod as for any node.
let linuxSocketRows: [LRow] = [
    LRow("O9: a 0000 socket: the permission check refuses first", .u2, .read, "/sk/s0", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("O9: a 0777 socket cannot be opened for reading", .u2, .read, "/sk/s7", .deny(.ENXIO, .type, .openSocket), at: "/sk/s7"),
    LRow("O9: root passes the bits, the open is still refused", .root, .read, "/sk/s0", .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: opened for writing", .u2, .write, "/sk/s7", .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: opened for writing without w", .u2, .write, "/sk/s0", .deny(.EACCES, .mode, .otherBitsMissing)),
    LRow("O9: the owner opens her 0600 socket read-write", .u1, .readwrite, "/sk/s_u1", .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: someone else is refused by the bits", .u2, .readwrite, "/sk/s_u1", .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow("O9: O_APPEND", .u2, .append, "/sk/s7", .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: O_TRUNC (dropped for a socket, no EROFS check)", .u2, .truncate, "/sk/s7", .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: creat of an existing socket", .u2, .creat, "/sk/s7", .deny(.ENXIO, .type, .openSocket)),
    LRow(
        "O9: a socket on a read-only file system: sb_permission is not for sockets", .root, .write, "/ro/sock",
        .deny(.ENXIO, .type, .openSocket)),
    LRow("O9: stat of a 0000 socket needs only search", .u2, .stat, "/sk/s0", .allow(.traversal, .linuxStatNeedsSearchOnly)),
    LRow("O9: chmod of someone else's socket", .u2, .chmod, "/sk/s7", mode: 0o700, .deny(.EPERM, .ownership, .linuxOwnerOrFowner)),
    LRow("O9: root changes a socket's mode", .root, .chmod, "/sk/s0", mode: 0o600, .allow(.ownership, .linuxOwnerOrFowner)),
    LRow("O2: executing a socket", .u2, .execute, "/sk/s7", .deny(.EACCES, .type, .notRegularExec)),
    LRow("O9: a FIFO opens as before", .u2, .write, "/sk/p_u1", .allow(.mode, .groupBitsGrant))
]

/// macos and guide: EOPNOTSUPP before anything but the lookup.
let macSocketRows: [(LRow, Expect)] = [
    (
        LRow("O9: reading a 0000 socket", .u2, .read, "/sk/s0", .deny(.EACCES, .mode, .otherBitsMissing)),
        .deny(.EOPNOTSUPP, .type, .openSocket)
    ),
    (
        LRow("O9: root reading a socket", .root, .read, "/sk/s0", .deny(.ENXIO, .type, .openSocket)),
        .deny(.EOPNOTSUPP, .type, .openSocket)
    ),
    (
        LRow("O9: writing a 0777 socket", .u2, .write, "/sk/s7", .deny(.ENXIO, .type, .openSocket)),
        .deny(.EOPNOTSUPP, .type, .openSocket)
    ),
    (
        LRow("O9: creat of an existing socket", .u1, .creat, "/sk/s_u1", .deny(.ENXIO, .type, .openSocket)),
        .deny(.EOPNOTSUPP, .type, .openSocket)
    ),
    (
        LRow("O9: a socket on a read-only volume: EOPNOTSUPP before EROFS's rule", .u1, .write, "/ro/sock", .deny(.ENXIO, .type, .openSocket)),
        .deny(.EOPNOTSUPP, .type, .openSocket)
    ),
    (
        LRow("O9: stat of a socket", .u2, .stat, "/sk/s0", .allow(.traversal, .linuxStatNeedsSearchOnly)),
        .allow(.mode, .unmappedGranted)
    ),
    (
        LRow("O2: executing a socket", .u2, .execute, "/sk/s7", .deny(.EACCES, .type, .notRegularExec)),
        .deny(.EACCES, .type, .notRegularExec)
    )
]

/// Linux chflags (chattr's FS_IOC_SETFLAGS): the open, EROFS, then ENOTTY for a FIFO or device
/// node, before the owner check; a socket is not opened at all.
let linuxSpecialChflagsRows: [LRow] = [
    LRow(
        "L9: the owner sets nodump on her FIFO", .u1, .chflags, "/sk/p_u1", flags: .userNoDump,
        .deny(.ENOTTY, .type, .linuxChflagsSpecialFile), at: "/sk/p_u1"),
    LRow(
        "L9: someone else: ENOTTY before the owner check's EPERM", .u2, .chflags, "/sk/p_u1", flags: .userNoDump,
        .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow("L9: changing nothing is still ENOTTY", .u1, .chflags, "/sk/p_u1", flags: [], .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow(
        "L9: a 0000 FIFO cannot be opened for reading: EACCES first", .u2, .chflags, "/sk/p0_u1", flags: .userNoDump,
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow(
        "L9: root, past the bits, gets ENOTTY", .root, .chflags, "/sk/p0_u1", flags: .systemImmutable,
        .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow("L9: a device node", .root, .chflags, "/sk/c_root", flags: .userNoDump, .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow("L9: someone else's device node", .u2, .chflags, "/sk/c_root", flags: .userNoDump, .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow("L9: the owner's device node", .u1, .chflags, "/sk/c_u1", flags: .userNoDump, .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
    LRow("L9 O9: a socket is not opened: ENXIO", .u1, .chflags, "/sk/s_u1", flags: .userNoDump, .deny(.ENXIO, .type, .openSocket)),
    LRow("L9 O9: root and a socket", .root, .chflags, "/sk/s0", flags: .userNoDump, .deny(.ENXIO, .type, .openSocket)),
    LRow(
        "L9 O9: without r on the socket, EACCES first", .u2, .chflags, "/sk/s_u1", flags: .userNoDump,
        .deny(.EACCES, .mode, .groupBitsMissing)),
    LRow(
        "L9: on a read-only file system EROFS comes before ENOTTY", .root, .chflags, "/ro/p_u1", flags: .userNoDump,
        .deny(.EROFS, .volume, .readOnlyVolume)),
    LRow("L9: a regular file as before", .u1, .chflags, "/sk/f_u1", flags: .userNoDump, .allow(.ownership, .linuxOwnerOrFowner))
]

/// macos: chflags works by path on any kind of node (no open, no type test).
let macSpecialChflagsRows: [(LRow, Expect)] = [
    (
        LRow(
            "A5: the owner sets nodump on her FIFO", .u1, .chflags, "/sk/p_u1", flags: .userNoDump,
            .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
        .allow(.ownership, .ownerWriteSecurity)
    ),
    (
        LRow(
            "A5: the owner sets uchg on her device node", .u1, .chflags, "/sk/c_u1", flags: .userImmutable,
            .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
        .allow(.ownership, .ownerWriteSecurity)
    ),
    (
        LRow("A5: the owner sets nodump on her socket", .u1, .chflags, "/sk/s_u1", flags: .userNoDump, .deny(.ENXIO, .type, .openSocket)),
        .allow(.ownership, .ownerWriteSecurity)
    ),
    (
        LRow("A5: root sets schg on a FIFO", .root, .chflags, "/sk/p0_u1", flags: .systemImmutable, .deny(.ENOTTY, .type, .linuxChflagsSpecialFile)),
        .allow(.root, .rootAllowed)
    )
]

struct SpecialFileCase: Sendable, CustomTestStringConvertible {
    var row: LRow
    var macos: Expect
    var testDescription: String { "\(row.label): linux \(row.expect), macos \(macos)" }
}

@Suite("O9 sockets, L9 flags of special files")
struct SpecialFileTests {
    @Test("linux: opening a socket is ENXIO after the permission check", arguments: linuxSocketRows)
    func linuxSockets(_ row: LRow) { checkLinux(row, in: SpecialFileFixture.world) }

    @Test("macos and guide: opening a socket is EOPNOTSUPP before any check", arguments: macSocketRows.map { SpecialFileCase(row: $0.0, macos: $0.1) })
    func macSockets(_ c: SpecialFileCase) {
        checkLinux(c.row, in: SpecialFileFixture.world)
        var mac = c.row
        mac.at = nil
        checkLinux(mac, semantics: .macos, expect: c.macos, in: SpecialFileFixture.world)
        checkLinux(mac, semantics: .guide, expect: c.macos, in: SpecialFileFixture.world)
    }

    @Test(
        "linux: chflags of a FIFO or device node is ENOTTY after the open and EROFS, before the owner check",
        arguments: linuxSpecialChflagsRows)
    func linuxChflags(_ row: LRow) { checkLinux(row, in: SpecialFileFixture.world) }

    @Test("macos: chflags of special files is decided as for any node", arguments: macSpecialChflagsRows.map { SpecialFileCase(row: $0.0, macos: $0.1) })
    func macChflags(_ c: SpecialFileCase) {
        checkLinux(c.row, in: SpecialFileFixture.world)
        var mac = c.row
        mac.at = nil
        checkLinux(mac, semantics: .macos, expect: c.macos, in: SpecialFileFixture.world)
    }

    @Test("the new errnos are accepted in expectations and named as written")
    func errnoWords() {
        for e in [Errno.ENXIO, .EOPNOTSUPP, .ENOTTY] { #expect(Errno(rawValue: e.rawValue) == e) }
    }
}
