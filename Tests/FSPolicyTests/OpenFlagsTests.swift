import Testing
import FSPolicy

// `open` with its flags (rules O21–O24). The linux answers are what OpenFlagsDifferentialTests
// measures on this machine's kernel; the macos ones XNU's vn_open_auth and
// vn_authorize_open_existing.

enum OpenFixture {
    static let world: World = {
        var b = LinuxFixture.Builder()
        b.w = LinuxFixture.world
        b.dir("/of", .root, LG.root, 0o755)
        b.file("/of/f", .u1, LG.g1, 0o644)
        b.file("/of/zero", .u1, LG.g1, 0o000)
        b.file("/of/app", .u1, LG.g1, 0o666, flags: .systemAppend)
        b.file("/of/su", .u1, LG.g1, 0o4755)
        b.dir("/of/d", .root, LG.root, 0o777)
        b.symlink("/of/l", "/of/f")
        b.symlink("/of/dl", "/of/d")
        b.symlink("/of/ghost", "/of/d/none")
        b.node("/of/p", .fifo, .u1, LG.g1, 0o666)
        b.node("/of/s", .socket, .u1, LG.g1, 0o666)
        b.dir("/of/locked", .root, LG.root, 0o700)
        b.file("/of/locked/f", .root, LG.root, 0o644)
        return b.w
    }()

    static func decide(_ who: LU, _ path: String, _ flags: OpenFlags?, _ sem: Semantics) -> Decision {
        var r = Request(subject: world.subject(uid: who.uid), op: .open, path: path)
        r.openFlags = flags
        return Authorizer(world: world, semantics: sem).decide(r)
    }
}

struct OpenRow: Sendable, CustomTestStringConvertible {
    var label: String
    var who: LU
    var path: String
    var flags: OpenFlags
    var sem: Semantics = .linux
    /// nil: allowed.
    var errno: Errno? = nil
    var rule: RuleID? = nil
    var testDescription: String { "\(sem) \(label)" }
}

let openRows: [OpenRow] = [
    OpenRow(label: "O_RDONLY reads", who: .u4, path: "/of/f", flags: []),
    OpenRow(label: "O21: O_RDONLY|O_TRUNC asks for w", who: .u4, path: "/of/f", flags: .trunc, errno: .EACCES, rule: .otherBitsMissing),
    OpenRow(label: "O21: O_RDONLY|O_TRUNC by the owner", who: .u1, path: "/of/f", flags: .trunc),
    OpenRow(label: "L5: append-only without O_APPEND", who: .u1, path: "/of/app", flags: .wronly, errno: .EPERM, rule: .linuxAppendNeedsOAppend),
    OpenRow(label: "L5: append-only with O_APPEND", who: .u1, path: "/of/app", flags: [.wronly, .append]),
    OpenRow(label: "L5: append-only, O_RDONLY|O_TRUNC", who: .u1, path: "/of/app", flags: .trunc, errno: .EPERM, rule: .linuxAppendNeedsOAppend),
    OpenRow(label: "L5: append-only, O_APPEND|O_TRUNC", who: .u1, path: "/of/app", flags: [.wronly, .append, .trunc], errno: .EPERM),
    OpenRow(label: "L5: append-only read", who: .u4, path: "/of/app", flags: []),
    OpenRow(label: "O21: O_CREAT|O_EXCL of a file", who: .u1, path: "/of/f", flags: [.creat, .excl], errno: .EEXIST, rule: .exists),
    OpenRow(label: "O21: O_CREAT|O_EXCL of a symlink", who: .root, path: "/of/l", flags: [.wronly, .creat, .excl], errno: .EEXIST, rule: .exists),
    OpenRow(label: "O21: O_CREAT|O_EXCL of a dangling symlink", who: .root, path: "/of/ghost", flags: [.wronly, .creat, .excl], errno: .EEXIST),
    OpenRow(label: "O21: O_CREAT follows a dangling symlink", who: .u2, path: "/of/ghost", flags: [.wronly, .creat]),
    OpenRow(label: "O21: O_CREAT without O_EXCL of an existing file opens it", who: .u4, path: "/of/f", flags: [.wronly, .creat], errno: .EACCES),
    OpenRow(label: "O21: O_CREAT of a new name", who: .u4, path: "/of/d/new", flags: [.creat]),
    OpenRow(label: "O21: O_CREAT where the directory is not writable", who: .u4, path: "/of/new", flags: [.creat], errno: .EACCES),
    OpenRow(label: "O21: O_CREAT|O_DIRECTORY", who: .root, path: "/of/d/new", flags: [.creat, .directory], errno: .EINVAL, rule: .openCreatDirectory),
    OpenRow(label: "O21: O_CREAT of a directory", who: .root, path: "/of/d", flags: [.creat], errno: .EISDIR, rule: .isDirectory),
    OpenRow(label: "O21: O_RDONLY|O_TRUNC of a directory", who: .root, path: "/of/d", flags: .trunc, errno: .EISDIR, rule: .isDirectory),
    OpenRow(label: "O22: O_NOFOLLOW of a symlink", who: .root, path: "/of/l", flags: .nofollow, errno: .ELOOP, rule: .openNoFollow),
    OpenRow(label: "O22: O_CREAT|O_NOFOLLOW of a symlink", who: .root, path: "/of/l", flags: [.creat, .nofollow], errno: .ELOOP, rule: .openNoFollow),
    OpenRow(label: "O23: O_DIRECTORY of a file", who: .root, path: "/of/f", flags: .directory, errno: .ENOTDIR, rule: .openDirectoryNotDir),
    OpenRow(label: "O23: O_DIRECTORY before O_NOFOLLOW's ELOOP", who: .root, path: "/of/l", flags: [.directory, .nofollow], errno: .ENOTDIR),
    OpenRow(label: "O23: O_DIRECTORY through a symlink to a directory", who: .u4, path: "/of/dl", flags: .directory),
    OpenRow(label: "O24: O_PATH of a file without bits", who: .u4, path: "/of/zero", flags: .path, rule: .openPath),
    OpenRow(label: "O24: O_PATH of a socket", who: .u4, path: "/of/s", flags: [.path, .rdwr, .trunc], rule: .openPath),
    OpenRow(label: "O24: O_PATH|O_NOFOLLOW of a symlink", who: .u4, path: "/of/l", flags: [.path, .nofollow], rule: .openPath),
    OpenRow(label: "O24: O_PATH|O_DIRECTORY of a file", who: .u4, path: "/of/f", flags: [.path, .directory], errno: .ENOTDIR),
    OpenRow(label: "O24: O_PATH drops O_CREAT", who: .root, path: "/of/d/none", flags: [.path, .creat], errno: .ENOENT),
    OpenRow(label: "O24: O_PATH still walks", who: .u4, path: "/of/locked/f", flags: .path, errno: .EACCES, rule: .searchDenied),
    OpenRow(label: "O9: a socket after the bits", who: .root, path: "/of/s", flags: .rdwr, errno: .ENXIO, rule: .openSocket),
    OpenRow(label: "a FIFO's O_TRUNC asks for w", who: .u4, path: "/of/p", flags: .trunc),
    OpenRow(label: "O22: O_NOFOLLOW of a symlink", who: .u1, path: "/of/l", flags: .nofollow, sem: .macos, errno: .ELOOP, rule: .openNoFollow),
    OpenRow(label: "O23: O_DIRECTORY of a file", who: .u1, path: "/of/f", flags: .directory, sem: .macos, errno: .ENOTDIR, rule: .openDirectoryNotDir),
    OpenRow(label: "O9: a socket before the rights", who: .u4, path: "/of/s", flags: [], sem: .macos, errno: .EOPNOTSUPP, rule: .openSocket),
    OpenRow(label: "O21: O_RDONLY|O_TRUNC asks for write", who: .u4, path: "/of/f", flags: .trunc, sem: .macos, errno: .EACCES),
    OpenRow(label: "O21: O_CREAT|O_EXCL of a symlink", who: .u1, path: "/of/l", flags: [.creat, .excl], sem: .macos, errno: .EEXIST, rule: .exists),
    OpenRow(label: "O21: O_CREAT|O_DIRECTORY", who: .u1, path: "/of/d/x", flags: [.creat, .directory], sem: .macos, errno: .EINVAL, rule: .openCreatDirectory),
    OpenRow(label: "O24: no O_PATH on macOS", who: .root, path: "/of/f", flags: .path, sem: .macos, errno: .EINVAL, rule: .openPath),
    OpenRow(label: "O21: O_CREAT of a new name", who: .u4, path: "/of/d/new", flags: .creat, sem: .guide)
]

@Suite("open and its flags (O21–O24)")
struct OpenFlagsTests {
    @Test(arguments: openRows)
    func row(_ row: OpenRow) {
        let d = OpenFixture.decide(row.who, row.path, row.flags, row.sem)
        if let e = row.errno {
            #expect(!d.allowed && d.errno == e, "got \(d.allowed ? "allow" : d.errno?.rawValue ?? "?") [\(d.rule.rawValue)]")
        } else {
            #expect(d.allowed, "got \(d.errno?.rawValue ?? "?") [\(d.rule.rawValue)]")
        }
        if let rule = row.rule { #expect(d.rule == rule, "rule \(d.rule.rawValue)") }
    }

    /// The ops that stand for an open keep their answers: each is decided as `open` with its
    /// flags, for every subject, node and rule set of the fixture.
    @Test func opsAreOpensWithFlags() {
        let paths = [
            "/of/f", "/of/zero", "/of/app", "/of/su", "/of/d", "/of/l", "/of/dl", "/of/ghost", "/of/p", "/of/s", "/of/locked/f", "/of/d/new", "/of/f/", "/of/d/"
        ]
        var compared = 0
        for sem in Semantics.allCases {
            let auth = Authorizer(world: OpenFixture.world, semantics: sem, tracing: false)
            for who in [LU.root, .u1, .u2, .u4] {
                let s = OpenFixture.world.subject(uid: who.uid)
                for op in [FSPolicy.Operation.read, .write, .readwrite, .append, .truncate, .creat] {
                    for p in paths {
                        let a = auth.decide(Request(subject: s, op: op, path: p))
                        var r = Request(subject: s, op: .open, path: p)
                        r.openFlags = OpenFlags.of(op)
                        let b = auth.decide(r)
                        compared += 1
                        #expect(
                            a.allowed == b.allowed && a.errno == b.errno,
                            "\(sem) \(who) \(op.word) \(p): \(a.errno?.rawValue ?? "allow") vs open \(b.errno?.rawValue ?? "allow")")
                    }
                }
            }
        }
        #expect(compared == 3 * 4 * 6 * 14)
    }

    @Test("as a step: O_CREAT makes the file, O_TRUNC clears setuid (O20), O_RDONLY changes nothing")
    func steps() {
        var w = OpenFixture.world
        var r = Request(subject: w.subject(uid: LU.u4.uid), op: .open, path: "/of/d/made")
        r.openFlags = [.wronly, .creat, .excl]
        let made = Mutator.apply(r, to: &w, semantics: .linux)
        #expect(made.applied && made.created != nil && w.lookup("/of/d/made").map { w[$0].uid } == LU.u4.uid)
        var t = Request(subject: w.subject(uid: LU.u1.uid), op: .open, path: "/of/su")
        t.openFlags = [.trunc]
        let cut = Mutator.apply(t, to: &w, semantics: .linux)
        #expect(cut.applied && w.lookup("/of/su").map { w[$0].mode.rawValue & 0o7777 } == 0o755)
        var plain = Request(subject: w.subject(uid: LU.u1.uid), op: .open, path: "/of/f")
        plain.openFlags = [.rdwr]
        let before = w.lookup("/of/f").map { w[$0].mode }
        let none = Mutator.apply(plain, to: &w, semantics: .linux)
        #expect(none.applied && none.created == nil && none.changed.isEmpty && w.lookup("/of/f").map { w[$0].mode } == before)
    }

    @Test func words() {
        #expect(OpenFlags.named("O_RDONLY") == [])
        #expect(OpenFlags([.wronly, .trunc, .creat]).words == ["O_WRONLY", "O_CREAT", "O_TRUNC"])
        #expect(OpenFlags([.path, .creat, .trunc, .nofollow]).linuxEffective == [.path, .nofollow])
        #expect(OpenFlags([.creat, .excl]).noFollow && !OpenFlags.excl.noFollow)
        #expect(OpenFlags.trunc.asksWrite && OpenFlags.trunc.reads && !OpenFlags.wronly.reads)
    }
}
