#if os(Linux)
    import CLibACL
    import FSPolicy
    import FSPolicyFormat
    import FSPolicyImport
    import FSPolicyRender
    import FSPolicyAudit
    @testable import FSPolicyLinux
    import Foundation
    import Glibc
    import Testing

    /// The host in-process loads use, as the command line has it on Linux: this machine's
    /// trees and accounts, tar archives and OCI images.
    let testHost = LoaderHost.linux.readingArchives()

    // What the differential tests share: test accounts, the probe runner, random trees.

    let isRoot = getuid() == 0

    /// The temporary directory's file system supports POSIX ACLs (checked once, as root only).
    let aclsInTemp: Bool = {
        guard isRoot else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-aclcheck-\(UUID().uuidString)").path
        mkdir(dir, 0o700)
        defer { rmdir(dir) }
        return aclSupportedAt(dir)
    }()

    // Account lookups through the scanner's own reentrant calls (`Sys`, getpwnam_r and kin): tests
    // run on several threads, and `getpwnam` answers in one buffer shared by the whole process.

    /// uid and primary gid of the account called `name`, or nil when there is none.
    func passwdIDs(named name: String) -> (uid: UInt32, gid: UInt32)? {
        Sys.userNamed(name).map { ($0.uid, $0.gid) }
    }

    /// An account has this uid.
    func passwdHas(uid: UInt32) -> Bool { Sys.userInfo(uid) != nil }

    /// A group has this gid (`gid`) or this name (`name`).
    func groupExists(gid: UInt32? = nil, name: String? = nil) -> Bool {
        name.map { Sys.groupNamed($0) != nil } ?? (Sys.groupName(gid ?? 0) != nil)
    }

    /// Users and groups this test creates, removed (exactly these) when it ends, even on failure.
    final class TestAccounts {
        struct Account { var name: String; var uid: UID; var gid: GID; var supplementary: [GID] }
        private(set) var users: [Account] = []
        private(set) var groups: [(name: String, gid: GID)] = []

        init() throws {
            // Unique per instance: two tests in one process must not collide.
            let tag = "fsp" + String(UUID().uuidString.prefix(6)).lowercased()
            // Ids from a random start: tests in this process and other processes may be adding
            // accounts at the same time; an id taken meanwhile ("not unique") is skipped and retried.
            var nextID: UInt32 = 62000 + UInt32.random(in: 0..<3000) * 4
            func freeID() -> UInt32 {
                while passwdHas(uid: nextID) || groupExists(gid: nextID) { nextID += 1 }
                defer { nextID += 1 }
                return nextID
            }
            func add(_ build: (UInt32) -> [String], _ what: String) throws -> UInt32 {
                for _ in 0..<20 {
                    let id = freeID()
                    let (st, out) = sh(build(id))
                    if st == 0 { return id }
                    guard out.contains("not unique") else { throw SetupError("\(what): \(out)") }
                }
                throw SetupError("\(what): no free id after 20 tries")
            }
            // A failure half-way (an id taken, the account files locked by another process) removes
            // what was made so far: when an initializer throws, `deinit` does not run.
            do {
                for i in 1...3 {
                    let name = "\(tag)g\(i)"
                    guard !groupExists(name: name) else { throw SetupError("group \(name) already exists") }
                    let gid = try add({ ["groupadd", "-g", String($0), name] }, "groupadd \(name)")
                    groups.append((name, gid))
                }
                let g = groups.map(\.gid)
                let layout: [(GID, [GID])] = [(g[0], []), (g[1], [g[0]]), (g[2], [g[1]]), (g[2], []), (g[0], [g[1], g[2]])]
                for (i, (primary, supp)) in layout.enumerated() {
                    let name = "\(tag)u\(i + 1)"
                    guard passwdIDs(named: name) == nil else { throw SetupError("user \(name) already exists") }
                    let uid = try add(
                        { id in
                            var args = ["useradd", "-M", "-N", "-u", String(id), "-g", String(primary), "-s", "/usr/sbin/nologin"]
                            if !supp.isEmpty { args += ["-G", supp.map(String.init).joined(separator: ",")] }
                            return args + [name]
                        }, "useradd \(name)")
                    users.append(Account(name: name, uid: uid, gid: primary, supplementary: supp))
                }
            } catch {
                remove()
                throw error
            }
        }

        func remove() {
            // Tests in this process and others add and remove accounts at the same time: while one
            // holds the lock on /etc/passwd or /etc/group, userdel and groupdel fail, and the account
            // would outlive the test. Each removal is retried until the account is gone.
            func removing(_ args: [String], gone: () -> Bool) {
                for _ in 0..<100 {
                    if sh(args).0 == 0 || gone() { return }
                    usleep(100_000)
                }
            }
            for u in users { removing(["userdel", u.name]) { passwdIDs(named: u.name) == nil } }
            for g in groups { removing(["groupdel", g.name]) { !groupExists(name: g.name) } }
            users = []
            groups = []
        }

        deinit { remove() }
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    struct Rand {
        var state: UInt64
        mutating func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
        mutating func chance(_ num: Int, _ den: Int) -> Bool { below(den) < num }
        mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
    }

    /// A long-running probe process acting as one user.
    final class Prober {
        let process = Process()
        let input = Pipe()
        let output = Pipe()

        /// `setpriv` runs the probe as `uid`/`gid` with its groups, then with `setpriv` (capability
        /// options, `CapabilityDifferentialTests`) when given; with neither, as this process.
        /// `groups`: the supplementary groups the process runs with instead of the user's own.
        init(probe: String, uid: UID?, gid: GID?, groups: [GID]? = nil, setpriv: [String] = []) throws {
            if let u = uid, let g = gid {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                let groupArg = groups.map { $0.isEmpty ? "--clear-groups" : "--groups=" + $0.map(String.init).joined(separator: ",") } ?? "--init-groups"
                process.arguments = ["--reuid=\(u)", "--regid=\(g)", groupArg] + setpriv + [probe]
            } else if !setpriv.isEmpty {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = setpriv + [probe]
            } else {
                process.executableURL = URL(fileURLWithPath: probe)
            }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// The probe started by `command` (its first word an absolute path), e.g. inside a mount
        /// namespace (`UnitViewDifferentialTests`).
        init(command: [String]) throws {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        func ask(_ line: String) -> String {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            var bytes: [UInt8] = []
            let fd = output.fileHandleForReading.fileDescriptor
            var b: UInt8 = 0
            while read(fd, &b, 1) == 1 {
                if b == 0x0a { break }
                bytes.append(b)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        deinit {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    enum Inode {
        static func flags(_ path: String) -> UInt32 {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
            if fd < 0 { return 0 }
            defer { close(fd) }
            var f: UInt32 = 0
            _ = clibacl_get_inode_flags(fd, &f)
            return f
        }
        @discardableResult
        static func setFlags(_ path: String, _ f: UInt32) -> Bool {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
            if fd < 0 { return false }
            defer { close(fd) }
            return clibacl_set_inode_flags(fd, f) == 0
        }
        static let immutable: UInt32 = 0x10
        static let append: UInt32 = 0x20
    }

    /// One randomly generated tree under `root`.
    struct RandomTree {
        var files: [String] = []
        var dirs: [String] = []
        var links: [String] = []
        var flagged: Set<String> = []
    }

    func buildRandomTree(at root: String, accounts: TestAccounts, rng: inout Rand) -> RandomTree {
        var t = RandomTree()
        let owners: [UID] = accounts.users.map(\.uid) + [0]
        let groups: [GID] = accounts.groups.map(\.gid) + [0]
        let dirModes: [mode_t] = [0o755, 0o750, 0o700, 0o770, 0o711, 0o777, 0o1777, 0o2775, 0o705, 0o070, 0o775, 0o1770, 0o2770, 0o701, 0o0]
        let fileModes: [mode_t] = [0o644, 0o640, 0o600, 0o664, 0o666, 0o604, 0o755, 0o700, 0o444, 0o0, 0o060, 0o006, 0o750, 0o711, 0o070, 0o4755, 0o2750]
        let perms = ["---", "r--", "-w-", "--x", "rw-", "r-x", "-wx", "rwx"]
        func randomACL(isDir: Bool) -> String? {
            guard rng.chance(2, 5) else { return nil }
            var e = ["u::\(rng.pick(perms))"]
            var group = ["g::\(rng.pick(perms))"]
            for _ in 0..<rng.below(3) { e.append("u:\(rng.pick(accounts.users).uid):\(rng.pick(perms))") }
            for _ in 0..<rng.below(3) { group.append("g:\(rng.pick(accounts.groups).gid):\(rng.pick(perms))") }
            var all = Array(Set(e)).sorted() + Array(Set(group)).sorted()
            // An explicit mask, `---` often, to exercise the kernel's quirk.
            all.append("m::" + (rng.chance(1, 3) ? "---" : rng.pick(perms)))
            all.append("o::\(rng.pick(perms))")
            // Keep one entry per qualifier.
            var seen: Set<String> = []
            all = all.filter { entry in
                let key = entry.split(separator: ":").prefix(2).joined(separator: ":")
                return seen.insert(key).inserted
            }
            return all.joined(separator: ",")
        }
        func setup(_ path: String, isDir: Bool) {
            chown(path, rng.pick(owners), rng.pick(groups))
            chmod(path, isDir ? rng.pick(dirModes) : rng.pick(fileModes))
            if let acl = randomACL(isDir: isDir) { sh(["setfacl", "--set", acl, path]) }
            if isDir && rng.chance(1, 4) {
                sh(["setfacl", "-d", "--set", "u::rwx,g::r-x,o::---,u:\(rng.pick(accounts.users).uid):rwx,m::rwx", path])
            }
        }
        func make(_ dir: String, depth: Int) {
            let nFiles = 2 + rng.below(3)
            for i in 0..<nFiles {
                let p = dir + "/f\(i)"
                let fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
                let script = Array("#!/bin/sh\nexit 0\n".utf8)
                _ = script.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                setup(p, isDir: false)
                t.files.append(p)
            }
            if depth < 3 {
                for i in 0..<(depth == 0 ? 3 : rng.below(3)) {
                    let p = dir + "/d\(i)"
                    mkdir(p, 0o755)
                    make(p, depth: depth + 1)
                    setup(p, isDir: true)
                    t.dirs.append(p)
                }
            }
            // Symlinks to files and directories (not in sticky directories: protected_symlinks).
            if rng.chance(1, 2), let target = t.files.last {
                let p = dir + "/l0"
                symlink(target, p)
                t.links.append(p)
            }
        }
        make(root, depth: 0)
        // Flags last: immutable and append-only on some files and directories.
        for p in t.files + t.dirs {
            if rng.chance(1, 12) {
                if Inode.setFlags(p, Inode.immutable) { t.flagged.insert(p) }
            } else if rng.chance(1, 12) {
                if Inode.setFlags(p, Inode.append) { t.flagged.insert(p) }
            }
        }
        return t
    }

    func aclSupportedAt(_ dir: String) -> Bool {
        let p = dir + "/.aclprobe"
        close(open(p, O_CREAT | O_WRONLY, 0o644))
        defer { unlink(p) }
        return sh(["setfacl", "-m", "u:65534:r", p]).0 == 0
    }

#endif
