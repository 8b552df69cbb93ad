#if os(Linux)
    import FSPolicy
    import FSPolicyFormat
    import Glibc

    /// The host's mount table and account database, as a scan records them.
    enum HostFacts {
        /// One line of `/proc/self/mountinfo` (proc(5)).
        struct MountInfo {
            var id: UInt64
            /// The mount point, as bytes (the file's `\ooo` escapes decoded).
            var point: [UInt8]
            var fsType: [UInt8]
            var mountOptions: Set<String>
            var superOptions: Set<String>
            var dev: UInt64
        }

        /// The host's `fs.protected_*` sysctls from `/proc/sys/fs` (a host setting: the same for
        /// every mount). Those that cannot be read, or hold a value the model does not know, are left
        /// out; `unread` then names them and says why.
        /// Processors online (at least 1).
        static func processorCount() -> Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

        static func linuxTunables() -> (values: [LinuxTunable: UInt8], unread: String?) {
            var values: [LinuxTunable: UInt8] = [:]
            var missing: [String] = []
            for t in LinuxTunable.allCases {
                guard let f = fopen(t.procPath, "r") else {
                    missing.append("\(t.procPath): \(String(cString: strerror(errno)))")
                    continue
                }
                var buf = [UInt8](repeating: 0, count: 32)
                let n = fread(&buf, 1, buf.count - 1, f)
                fclose(f)
                let text = String(decoding: buf.prefix(n).filter { $0 != 0x0a && $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)
                if let v = UInt8(text), v <= LinuxTunables.max(t) {
                    values[t] = v
                } else {
                    missing.append("\(t.procPath) holds \(NameEscaping.escape(Array(text.utf8)))")
                }
            }
            return (values, missing.isEmpty ? nil : missing.joined(separator: "; "))
        }

        /// Reads `/proc/self/mountinfo`; nil when it cannot be read.
        static func mounts() -> [MountInfo]? {
            guard let f = fopen("/proc/self/mountinfo", "r") else { return nil }
            defer { fclose(f) }
            var data: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n <= 0 { break }
                data.append(contentsOf: buf[0..<n])
            }
            var out: [MountInfo] = []
            for line in data.split(separator: 0x0a) {
                let fields = line.split(separator: 0x20).map { Array($0) }
                guard let sep = fields.firstIndex(of: [0x2d]), sep >= 6, sep + 2 < fields.count,
                    let id = UInt64(String(decoding: fields[0], as: UTF8.self))
                else { continue }
                let mm = fields[2].split(separator: 0x3a).map { UInt64(String(decoding: $0, as: UTF8.self)) ?? 0 }
                let dev = mm.count == 2 ? mm[0] << 32 | mm[1] : 0
                func options(_ b: [UInt8]) -> Set<String> { Set(b.split(separator: 0x2c).map { String(decoding: $0, as: UTF8.self) }) }
                out.append(
                    MountInfo(
                        id: id, point: unescape(fields[4]), fsType: unescape(fields[sep + 1]),
                        mountOptions: options(fields[5]), superOptions: sep + 3 < fields.count ? options(fields[sep + 3]) : [], dev: dev))
            }
            return out
        }

        /// mountinfo writes space, tab, newline and backslash as `\ooo`.
        static func unescape(_ b: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var i = 0
            while i < b.count {
                if b[i] == 0x5c, i + 3 < b.count,
                    (1...3).allSatisfy({ (0x30...0x37).contains(b[i + $0]) })
                {
                    out.append((b[i + 1] - 0x30) << 6 | (b[i + 2] - 0x30) << 3 | (b[i + 3] - 0x30))
                    i += 4
                    continue
                }
                out.append(b[i])
                i += 1
            }
            return out
        }

        /// The getpwent/getgrent iteration state is per process: one walk at a time.
        nonisolated(unsafe) static let accountLock: UnsafeMutablePointer<pthread_mutex_t> = {
            let p = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(p, nil)
            return p
        }()

        static func bytes(_ p: UnsafeMutablePointer<CChar>?) -> [UInt8] {
            guard let p else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
        }

        /// One account database entry as read, names still raw bytes.
        struct RawUser { var name: [UInt8]; var uid: UID; var gid: GID }
        struct RawGroup { var name: [UInt8]; var gid: GID; var members: [[UInt8]] }

        /// Every user and group the account database lists (`getpwent`, `getgrent`: files, LDAP,
        /// systemd-userdb, whatever NSS is configured with), supplementary memberships from the
        /// groups' member lists (see `select`).
        static func allAccounts() -> (users: [ScannedTree.HostUser], groups: [(name: String, gid: GID)], notes: [String]) {
            pthread_mutex_lock(accountLock)
            defer { pthread_mutex_unlock(accountLock) }
            var rawGroups: [RawGroup] = []
            setgrent()
            while let g = getgrent() {
                var members: [[UInt8]] = []
                if var m = g.pointee.gr_mem {
                    while let member = m.pointee {
                        members.append(bytes(member))
                        m += 1
                    }
                }
                rawGroups.append(RawGroup(name: bytes(g.pointee.gr_name), gid: g.pointee.gr_gid, members: members))
            }
            endgrent()
            var rawUsers: [RawUser] = []
            setpwent()
            while let p = getpwent() {
                rawUsers.append(RawUser(name: bytes(p.pointee.pw_name), uid: p.pointee.pw_uid, gid: p.pointee.pw_gid))
            }
            endpwent()
            return select(users: rawUsers, groups: rawGroups)
        }

        /// The accounts a scan writes, from the database's entries in its order. The first entry
        /// for a name or an id wins, as `getpwnam` and `getpwuid` would answer; later ones, empty
        /// names and names made of digits (they would read as ids) are dropped and named in
        /// `notes`. Names are escaped as scanned names are (`\ooo` for control codes, backslashes
        /// and bytes that are not UTF-8), so none reaches a file or a terminal raw.
        static func select(users rawUsers: [RawUser], groups rawGroups: [RawGroup]) -> (
            users: [ScannedTree.HostUser], groups: [(name: String, gid: GID)], notes: [String]
        ) {
            var notes: [String] = []
            var groups: [(name: String, gid: GID)] = []
            var groupNames: Set<String> = []
            var groupIDs: Set<GID> = []
            var members: [String: [GID]] = [:]
            for g in rawGroups {
                let name = NameEscaping.escape(g.name)
                let gid = g.gid
                if let why = unusable(name) { notes.append("group \(quote(name)) (gid \(gid)) left out: \(why)"); continue }
                if groupNames.contains(name) { notes.append("group \(quote(name)) is listed again with gid \(gid): the first entry is kept"); continue }
                if groupIDs.contains(gid) { notes.append("gid \(gid) is listed again as group \(quote(name)): the first entry is kept"); continue }
                groupNames.insert(name)
                groupIDs.insert(gid)
                groups.append((name, gid))
                for m in g.members { members[NameEscaping.escape(m), default: []].append(gid) }
            }
            var users: [ScannedTree.HostUser] = []
            var userNames: Set<String> = []
            var userIDs: Set<UID> = []
            for u in rawUsers {
                let name = NameEscaping.escape(u.name)
                let uid = u.uid
                if let why = unusable(name) { notes.append("user \(quote(name)) (uid \(uid)) left out: \(why)"); continue }
                if userNames.contains(name) { notes.append("user \(quote(name)) is listed again with uid \(uid): the first entry is kept"); continue }
                if userIDs.contains(uid) { notes.append("uid \(uid) is listed again as user \(quote(name)): the first entry is kept"); continue }
                userNames.insert(name)
                userIDs.insert(uid)
                let supp = Set(members[name] ?? []).subtracting([u.gid]).sorted()
                users.append(ScannedTree.HostUser(name: name, uid: uid, gid: u.gid, groups: supp))
            }
            return (users.sorted { $0.uid < $1.uid }, groups.sorted { $0.gid < $1.gid }, notes)
        }

        /// Why an account name cannot be written as a name in a policy file, or nil.
        static func unusable(_ name: String) -> String? {
            PrincipalName.problem(name)
        }

        static func quote(_ s: String) -> String { "`" + s + "`" }
    }
#endif
