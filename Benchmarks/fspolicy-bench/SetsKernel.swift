#if os(Linux)
    import FSPolicy
    import Foundation
    import Glibc

    func seconds(_ r: rusage) -> Double {
        Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6
    }

    /// What the matrix benchmark leaves on disk and the processes it runs, so that SIGINT, SIGTERM
    /// and SIGHUP stop the processes and remove the directory (SIGKILL cannot be caught: then
    /// `fspolicy-mkbench-PID` stays in the temporary directory).
    final class BenchCleanup: @unchecked Sendable {
        static let shared = BenchCleanup()
        private let lock = NSLock()
        private var dir: String?
        private var pids: Set<pid_t> = []
        private var sources: [DispatchSourceSignal] = []
        private var stopping = false

        func install(dir: String) {
            lock.withLock { self.dir = dir }
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig, SIG_IGN)
                let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                s.setEventHandler { [self] in
                    // The main thread parks at its next checkpoint; this handler owns the clean-up.
                    let (d, ps) = lock.withLock {
                        stopping = true; return (self.dir, self.pids)
                    }
                    for p in ps { kill(p, SIGKILL) }
                    for p in ps { var st: Int32 = 0; waitpid(p, &st, 0) }
                    if let d { BenchCleanup.remove(d) }
                    fflush(nil)
                    FileHandle.standardError.write(Data("fspolicy-bench: stopped by signal \(sig); \(d ?? "nothing") removed\n".utf8))
                    _exit(128 + sig)
                }
                s.resume()
                sources.append(s)
            }
        }
        /// Called by the main thread between steps: once a signal came, it waits there for the
        /// handler to stop the children, remove the directory and end the process.
        func checkpoint() {
            if lock.withLock({ stopping }) { while true { pause() } }
        }
        func started(_ pid: pid_t) { _ = lock.withLock { pids.insert(pid) } }
        func ended(_ pid: pid_t) { _ = lock.withLock { pids.remove(pid) } }

        /// Removes `dir` (a few tries, in case something was still writing into it); true when gone.
        @discardableResult static func remove(_ dir: String) -> Bool {
            for _ in 0..<10 {
                // posix_spawn and a wait for this pid alone: the main thread may be in wait4(-1)
                // for its workers (and reap rm first: then waitpid says ECHILD, and rm has ended).
                let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/rm", "-rf", "--one-file-system", dir] as [String]).map { strdup($0) } + [nil]
                var pid = pid_t()
                if posix_spawn(&pid, "/bin/rm", nil, nil, argv, environ) == 0 {
                    var st: Int32 = 0
                    while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
                }
                for a in argv { free(a) }
                if access(dir, F_OK) != 0 { return true }
                usleep(200_000)
            }
            return access(dir, F_OK) != 0
        }
        func finish() {
            checkpoint()
            guard let d = lock.withLock({ dir }) else { return }
            if !BenchCleanup.remove(d) { print("could not remove \(d): remove it by hand") }
            lock.withLock { dir = nil }
        }
    }

    /// A child started with `posix_spawn`, its standard output and error sent to files (opened by
    /// the child before it runs the program: as root, before `setpriv` drops to the user's uid).
    func spawnChild(_ exe: String, _ args: [String], stdout: String, stderr: String) -> pid_t? {
        BenchCleanup.shared.checkpoint()
        var fa = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fa)
        defer { posix_spawn_file_actions_destroy(&fa) }
        posix_spawn_file_actions_addopen(&fa, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&fa, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([exe] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid = pid_t()
        guard posix_spawn(&pid, exe, &fa, nil, argv, environ) == 0 else { return nil }
        BenchCleanup.shared.started(pid)
        return pid
    }

    struct ChildEnd { var pid: pid_t; var status: Int32; var cpu: Double; var maxRSS: Int }

    /// Waits for `pid` (or any child with -1); its exit status, CPU seconds and peak RSS.
    func waitChild(_ pid: pid_t) -> ChildEnd? {
        var st: Int32 = 0
        var ru = rusage()
        var p: pid_t
        repeat { p = wait4(pid, &st, 0, &ru) } while p < 0 && errno == EINTR
        guard p > 0 else { return nil }
        BenchCleanup.shared.ended(p)
        let status = st & 0x7f == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f)
        return ChildEnd(pid: p, status: status, cpu: seconds(ru), maxRSS: ru.ru_maxrss * 1024)
    }

    /// Runs a program to its end; status, wall and CPU seconds, peak RSS and what it printed.
    func runMeasured(_ exe: String, _ args: [String], dir: String) -> (status: Int32, wall: Double, cpu: Double, maxRSS: Int, output: String) {
        let out = dir + "/child.out"
        let clock = ContinuousClock()
        let t0 = clock.now
        guard let pid = spawnChild(exe, args, stdout: out, stderr: out) else { return (127, 0, 0, 0, "cannot start \(exe)") }
        let end = waitChild(pid)
        let wall = nanoseconds(clock.now - t0) / 1e9
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        unlink(out)
        return (end?.status ?? 127, wall, end?.cpu ?? 0, end?.maxRSS ?? 0, text)
    }

    /// `matrix-worker FILE`: one user's questions to the kernel for the matrix comparison. FILE
    /// holds one path a line; for each, `faccessat(AT_EACCESS)` with R_OK, W_OK, X_OK in that order,
    /// in one timed pass. Writes one byte per question to standard output (`1` allowed, `0` EACCES
    /// or EPERM, `e` any other error) and `ns=… cpu=… calls=…` to standard error.
    func runMatrixWorker(_ args: [String]) {
        // The file read into one buffer, each newline made a NUL: every path a C string in place.
        var st = stat()
        let fd = args.count == 1 ? open(args[0], O_RDONLY) : -1
        guard fd >= 0, fstat(fd, &st) == 0 else {
            FileHandle.standardError.write(Data("usage: matrix-worker FILE (a path a line)\n".utf8)); exit(2)
        }
        var buf = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var got = 0
        buf.withUnsafeMutableBytes { b in
            while got < Int(st.st_size) {
                let n = read(fd, b.baseAddress! + got, Int(st.st_size) - got)
                if n <= 0 { break }
                got += n
            }
        }
        close(fd)
        guard got == Int(st.st_size) else { FileHandle.standardError.write(Data("cannot read \(args[0])\n".utf8)); exit(1) }
        var starts: [Int] = []
        starts.reserveCapacity(buf.count / 40)
        var s = 0
        for i in 0..<(buf.count - 1) where buf[i] == 10 {
            if i > s { starts.append(s) }
            buf[i] = 0
            s = i + 1
        }
        if s < buf.count - 1 { starts.append(s) }
        var answers = [UInt8](repeating: 0, count: starts.count * 3)
        let modes: [Int32] = [R_OK, W_OK, X_OK]
        let clock = ContinuousClock()
        let cpu0 = cpuSeconds()
        let start = clock.now
        buf.withUnsafeBufferPointer { b in
            let base = UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self)
            answers.withUnsafeMutableBufferPointer { a in
                for (i, off) in starts.enumerated() {
                    for k in 0..<3 {
                        if faccessat(AT_FDCWD, base + off, modes[k], AT_EACCESS) == 0 {
                            a[i * 3 + k] = 49
                        } else {
                            a[i * 3 + k] = errno == EACCES || errno == EPERM ? 48 : 101
                        }
                    }
                }
            }
        }
        let ns = nanoseconds(clock.now - start)
        let cpuNS = (cpuSeconds() - cpu0) * 1e9
        var written = 0
        answers.withUnsafeBytes { a in
            while written < a.count {
                let n = write(1, a.baseAddress! + written, a.count - written)
                if n <= 0 { break }
                written += n
            }
        }
        // Its own peak (VmHWM): wait4's ru_maxrss for a child counts the parent's pages at the spawn.
        FileHandle.standardError.write(Data("ns=\(Int(ns)) cpu=\(Int(cpuNS)) calls=\(answers.count) written=\(written) rss=\(peakRSS())\n".utf8))
    }

    /// Writes the files below `top` in the order of `fspolicy matrix` (parents before children,
    /// siblings by the bytes of their names), one path a line; returns how many files and nodes.
    func writeFilesInMatrixOrder(_ w: World, top: NodeID, to path: String) -> (files: Int, nodes: Int) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let h = FileHandle(forWritingAtPath: path) else { print("cannot write \(path)"); return (0, 0) }
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var files = 0, nodes = 0
        var stack: [(NodeID, String)] = [(top, w.path(of: top))]
        while let (n, p) = stack.popLast() {
            nodes += 1
            if nodes & 4095 == 0 { BenchCleanup.shared.checkpoint() }
            if w[n].type == .file {
                files += 1
                out.append(contentsOf: p.utf8)
                out.append(10)
                if out.count > 1 << 20 { h.write(Data(out)); out.removeAll(keepingCapacity: true) }
            }
            let kids = w.children(of: n)
            if kids.isEmpty { continue }
            let named = kids.map { (w.name(of: $0), $0) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (name, c) in named.reversed() { stack.append((c, p + "/" + name)) }
        }
        h.write(Data(out))
        try? h.close()
        return (files, nodes)
    }

    /// A file read line by line (`getline`), the line without its newline.
    final class LineReader {
        let fp: UnsafeMutablePointer<FILE>
        var line: UnsafeMutablePointer<CChar>? = nil
        var cap = 0
        var count = 0
        init?(_ path: String) {
            guard let f = fopen(path, "r") else { return nil }
            fp = f
        }
        deinit { free(line); fclose(fp) }
        func next() -> UnsafeBufferPointer<UInt8>? {
            let n = getline(&line, &cap, fp)
            guard n >= 0, let l = line else { return nil }
            let len = n > 0 && l[n - 1] == 10 ? n - 1 : n
            return UnsafeBufferPointer(start: UnsafeRawPointer(l).assumingMemoryBound(to: UInt8.self), count: len)
        }
    }

    /// `fspolicy-bench matrix-kernel NODES USERS FSPOLICY [KERNEL_USERS]`: a server tree of NODES
    /// nodes written to disk (owners and groups among USERS uids the benchmark makes up, modes,
    /// POSIX ACLs), scanned with `fspolicy scan`; `fspolicy matrix` for every user on a policy file
    /// that imports the scan and declares the users, against the kernel: one process per user asked
    /// (root and KERNEL_USERS of the users, evenly spread; all of them by default) asking
    /// `faccessat(AT_EACCESS)` R_OK, W_OK and X_OK for every file, two processes at a time. Every
    /// cell of the users asked is compared, streaming the CSV against the kernel's answer files.
    func runMatrixKernel(nodes: Int, userCount: Int, fspolicy: String, kernelUsers: Int?) {
        guard getuid() == 0 else {
            print("the matrix kernel comparison needs root (it creates files owned by \(userCount) uids and runs a process as each)"); exit(2)
        }
        for u in 0..<userCount where getpwuid(ServerWorld.uidBase + UID(u)) != nil {
            print("uid \(ServerWorld.uidBase + UID(u)) is a host account: the benchmark's made-up uids would get its name; not run"); exit(2)
        }
        for g in 0..<50 where getgrgid(ServerWorld.gidBase + GID(g)) != nil {
            print("gid \(ServerWorld.gidBase + GID(g)) is a host group; not run"); exit(2)
        }
        guard access(fspolicy, X_OK) == 0 else { print("no fspolicy at \(fspolicy)"); exit(2) }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-mkbench-\(getpid())").path
        guard mkdir(base, 0o755) == 0 else { print("cannot create \(base): \(String(cString: strerror(errno)))"); exit(1) }
        BenchCleanup.shared.install(dir: base)
        let status = matrixKernel(base: base, nodes: nodes, userCount: userCount, fspolicy: fspolicy, kernelUsers: kernelUsers)
        let clock = ContinuousClock()
        let t0 = clock.now
        BenchCleanup.shared.finish()
        print("removed \(base) (everything the benchmark wrote) in \(String(format: "%.1f", nanoseconds(clock.now - t0) / 1e9)) s")
        if status != 0 { exit(status) }
    }

    private func matrixKernel(base: String, nodes: Int, userCount: Int, fspolicy: String, kernelUsers: Int?) -> Int32 {
        let clock = ContinuousClock()
        func f1(_ x: Double) -> String { String(format: "%.1f", x) }
        func f2(_ x: Double) -> String { String(format: "%.2f", x) }
        func grouped(_ n: Int) -> String {
            let s = String(n)
            var out = ""
            for (i, c) in s.enumerated() {
                if i > 0 && (s.count - i) % 3 == 0 { out += "," }
                out.append(c)
            }
            return out
        }
        let prefix = base + "/tree"
        var t0 = clock.now
        let s = ServerWorld(prefix: prefix, nodes: nodes, users: userCount)
        let w = s.world
        let withACL = materialize(w, under: prefix)
        let materializeWall = nanoseconds(clock.now - t0) / 1e9
        guard let top = w.lookup(prefix) else { print("no \(prefix) in the world"); return 1 }

        // The scan, then a policy file that imports it and declares the users and their groups.
        let scanFile = base + "/scan.yaml"
        let scan = runMeasured(fspolicy, ["scan", prefix, "--accounts", "owners", "-o", scanFile], dir: base)
        guard scan.status == 0 else { print("fspolicy scan failed: \(scan.output)"); return 1 }
        let policy = scanImportingPolicy(
            gids: (0..<s.groupCount).map { ServerWorld.gidBase + GID($0) },
            users: s.users.map { ($0.name, $0.uid, $0.gid, $0.groups) }
        ) { "g\($0 - ServerWorld.gidBase)" }
        try? policy.write(toFile: base + "/policy.yaml", atomically: true, encoding: .utf8)
        let matrixFile = base + "/matrix.csv"
        let m = runMeasured(fspolicy, ["matrix", base + "/policy.yaml", "--under", prefix, "--list-all", "--output", matrixFile], dir: base)
        guard m.status == 0 else { print("fspolicy matrix failed: \(m.output)"); return 1 }
        let csvSize = (try? FileManager.default.attributesOfItem(atPath: matrixFile)[.size] as? Int) ?? 0

        // The questions: every file, in the CSV's order.
        let qFile = base + "/questions.txt"
        let (fileCount, nodeCount) = writeFilesInMatrixOrder(w, top: top, to: qFile)
        print(
            "tree on disk: \(grouped(nodeCount)) nodes (\(grouped(fileCount)) files) under \(prefix), \(grouped(withACL)) with POSIX ACLs, written in \(f1(materializeWall)) s; \(userCount) users in \(s.groupCount) groups (uids \(ServerWorld.uidBase)…, made up: no account is added)"
        )
        print("fspolicy scan: \(f2(scan.wall)) s wall, \(f2(scan.cpu)) s CPU, peak RSS \(scan.maxRSS >> 20) MiB")
        print(
            "fspolicy matrix for all \(userCount + 1) users (root included; whole process: load the policy and the scan, decide, write \(csvSize >> 20) MiB of CSV): \(f2(m.wall)) s wall, \(f2(m.cpu)) s CPU, peak RSS \(m.maxRSS >> 20) MiB"
        )

        // The subjects asked: root and `kernelUsers` users spread evenly (all by default).
        let all: [(name: String, uid: UID, gid: GID, groups: [GID])] = [("root", 0, 0, [])] + s.users
        let askedUsers = min(kernelUsers ?? userCount, userCount)
        var asked = [all[0]]
        for i in 0..<askedUsers { asked.append(all[1 + i * userCount / askedUsers]) }
        let subset = askedUsers < userCount
        let evenStep = askedUsers > 0 && userCount % askedUsers == 0 ? userCount / askedUsers : nil
        let whoAsked =
            !subset
            ? "root and all \(userCount) users"
            : evenStep.map { "root and every \($0 == 1 ? "" : "\($0)th ")user: \(asked.dropFirst().prefix(3).map(\.name).joined(separator: ", ")), …" }
                ?? "root and \(askedUsers) of the \(userCount) users, evenly spread: \(asked.dropFirst().prefix(3).map(\.name).joined(separator: ", ")), …"

        // The kernel: an untimed warm-up pass as root, then one process per subject, two at a time.
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        func args(_ u: (name: String, uid: UID, gid: GID, groups: [GID])) -> (String, [String]) {
            u.uid == 0
                ? (me, ["matrix-worker", qFile])
                : (
                    "/usr/bin/setpriv",
                    [
                        "--reuid=\(u.uid)", "--regid=\(u.gid)", "--groups=" + ([u.gid] + u.groups).map(String.init).joined(separator: ","), me, "matrix-worker",
                        qFile
                    ]
                )
        }
        func answerFile(_ i: Int) -> String { base + "/answers-\(i)" }
        func summaryFile(_ i: Int) -> String { base + "/worker-\(i).txt" }
        func parse(_ i: Int) -> (ns: Double, cpu: Double, calls: Int, rss: Int)? {
            guard let t = try? String(contentsOfFile: summaryFile(i), encoding: .utf8) else { return nil }
            var d: [Substring: Double] = [:]
            for f in t.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                let kv = f.split(separator: "=", maxSplits: 1)
                if kv.count == 2, let v = Double(kv[1]) { d[kv[0]] = v }
            }
            guard let ns = d["ns"], let cpu = d["cpu"], let calls = d["calls"], d["written"] == calls else { return nil }
            return (ns, cpu, Int(calls), Int(d["rss"] ?? 0))
        }
        t0 = clock.now
        do {
            let (exe, a) = args(all[0])
            guard let pid = spawnChild(exe, a, stdout: base + "/warmup", stderr: summaryFile(-1)), let end = waitChild(pid), end.status == 0 else {
                print("the warm-up worker failed: " + ((try? String(contentsOfFile: summaryFile(-1), encoding: .utf8)) ?? "")); return 1
            }
            unlink(base + "/warmup")
        }
        let warmup = nanoseconds(clock.now - t0) / 1e9
        let parallel = 2
        var running: [pid_t: Int] = [:]
        var next = 0
        var kernelNS = 0.0, kernelCPU = 0.0, rootNS = 0.0, rootCPU = 0.0
        var workerRSS = 0
        t0 = clock.now
        var lastReport = clock.now
        while next < asked.count || !running.isEmpty {
            while running.count < parallel && next < asked.count {
                let (exe, a) = args(asked[next])
                guard let pid = spawnChild(exe, a, stdout: answerFile(next), stderr: summaryFile(next)) else {
                    print("cannot start the worker for \(asked[next].name)"); return 1
                }
                running[pid] = next
                next += 1
            }
            guard let end = waitChild(-1) else { print("wait4 failed: \(String(cString: strerror(errno)))"); return 1 }
            guard let i = running.removeValue(forKey: end.pid) else { continue }
            guard end.status == 0, let r = parse(i), r.calls == fileCount * 3 else {
                print(
                    "worker for \(asked[i].name) (uid \(asked[i].uid)) failed (exit \(end.status)): "
                        + ((try? String(contentsOfFile: summaryFile(i), encoding: .utf8)) ?? ""))
                return 1
            }
            workerRSS = max(workerRSS, r.rss)
            kernelNS += r.ns
            kernelCPU += r.cpu
            if i == 0 { rootNS = r.ns; rootCPU = r.cpu }
            unlink(summaryFile(i))
            if nanoseconds(clock.now - lastReport) > 30e9 {
                lastReport = clock.now
                FileHandle.standardError.write(
                    Data("matrix-kernel: \(next - running.count) of \(asked.count) workers done, \(f1(nanoseconds(clock.now - t0) / 1e9)) s\n".utf8))
            }
        }
        let kernelWall = nanoseconds(clock.now - t0) / 1e9
        let calls = asked.count * fileCount * 3
        print(
            "kernel: \(asked.count) processes (\(whoAsked)) × \(grouped(fileCount * 3)) faccessat calls = \(grouped(calls)) calls, \(parallel) processes at a time; their timed loops sum to \(f2(kernelNS / 1e9)) s wall, \(f2(kernelCPU / 1e9)) s CPU (\(Int(kernelNS / Double(calls) + 0.5)) ns a call by the wall clock, \(Int(kernelCPU / Double(calls) + 0.5)) by CPU time); \(f1(kernelWall)) s wall for all the processes, after an untimed warm-up pass as root (\(f1(warmup)) s); peak RSS of a worker \(workerRSS >> 20) MiB"
        )

        // Every cell of the subjects asked: the CSV row by row against their answer files.
        t0 = clock.now
        guard let csv = LineReader(matrixFile), let questions = LineReader(qFile) else { print("cannot read \(matrixFile) or \(qFile)"); return 1 }
        var index: [String: Int] = [:]
        for (j, u) in asked.enumerated() { index[u.name] = j }
        let chunkFiles = 16_384
        var chunk = [UInt8](repeating: 0, count: asked.count * chunkFiles * 3)
        func load(_ c: Int) -> Bool {
            for j in asked.indices {
                let fd = open(answerFile(j), O_RDONLY)
                guard fd >= 0 else { return false }
                defer { close(fd) }
                let want = min(chunkFiles, fileCount - c * chunkFiles) * 3
                var got = 0
                chunk.withUnsafeMutableBytes { b in
                    while got < want {
                        let n = pread(fd, b.baseAddress! + j * chunkFiles * 3 + got, want - got, off_t(c * chunkFiles * 3 + got))
                        if n <= 0 { break }
                        got += n
                    }
                }
                if got < want { return false }
            }
            return true
        }
        let words: [[UInt8]] = ["read", "write", "execute"].map { Array($0.utf8) }
        var inRow = [Bool](repeating: false, count: asked.count)
        var agree = 0, differ = 0, shown = 0, dirRows = 0, rows = 0
        var q = questions.next().map(Array.init)
        var qi = 0, k = 0
        var problem: String?
        // A scan of a folder below `/` reads only the way down to it: the world is read in part,
        // and the table has an `unknown` column, which must be empty in every row asked here.
        guard let header = csv.next(), Array(header) == Array("path,op,allowed".utf8) || Array(header) == Array("path,op,allowed,unknown".utf8) else {
            print("the CSV has no header line")
            return 1
        }
        let hasUnknown = header.count > "path,op,allowed".utf8.count
        if fileCount > 0 && !load(0) { print("cannot read the answer files"); return 1 }
        while let row = csv.next() {
            rows += 1
            if rows & 65535 == 0 { BenchCleanup.shared.checkpoint() }
            guard row.first != 34, let c1 = row.firstIndex(of: 44) else { problem = "row \(rows) is quoted or has no comma"; break }
            let path = UnsafeBufferPointer(rebasing: row[..<c1])
            guard let q0 = q, path.elementsEqual(q0) else { dirRows += 1; continue }
            let rest = row[(c1 + 1)...]
            guard let c2 = rest.firstIndex(of: 44), rest[..<c2].elementsEqual(words[k]) else {
                problem = "row \(rows) is not the \(String(decoding: words[k], as: UTF8.self)) row of \(String(decoding: q0, as: UTF8.self))"; break
            }
            for j in inRow.indices { inRow[j] = false }
            var start = c2 + 1
            var allowedEnd = row.endIndex
            if hasUnknown {
                guard let c3 = row[start...].firstIndex(of: 44) else { problem = "row \(rows) has no unknown field"; break }
                guard c3 + 1 == row.endIndex else {
                    problem =
                        "row \(rows) has users whose answer is unknown: \(String(decoding: UnsafeBufferPointer(rebasing: row[(c3 + 1)...]), as: UTF8.self))"
                    break
                }
                allowedEnd = c3
            }
            while start < allowedEnd {
                let end = row[start..<allowedEnd].firstIndex(of: 32) ?? allowedEnd
                if end > start, let j = index[String(decoding: UnsafeBufferPointer(rebasing: row[start..<end]), as: UTF8.self)] { inRow[j] = true }
                start = end + 1
            }
            let at = (qi % chunkFiles) * 3 + k
            for j in asked.indices {
                let a = chunk[j * chunkFiles * 3 + at]
                let kernel = a == 49
                if a == 101 || kernel != inRow[j] {
                    differ += 1
                    if shown < 5 {
                        shown += 1
                        print(
                            "  differs: \(asked[j].name) \(String(decoding: words[k], as: UTF8.self)) \(String(decoding: q0, as: UTF8.self)): kernel \(a == 101 ? "error (not EACCES)" : kernel ? "allow" : "deny"), matrix \(inRow[j] ? "allow" : "deny")"
                        )
                    }
                } else {
                    agree += 1
                }
            }
            k += 1
            if k == 3 {
                k = 0
                qi += 1
                q = questions.next().map(Array.init)
                if qi < fileCount && qi % chunkFiles == 0 && !load(qi / chunkFiles) { problem = "cannot read the answer files at file \(qi)"; break }
            }
        }
        if problem == nil && (qi != fileCount || k != 0) { problem = "the CSV listed \(qi) of the \(fileCount) files in the questions' order" }
        if problem == nil && dirRows != (nodeCount - fileCount) * 3 {
            problem = "the CSV has \(dirRows) rows that are not files' rows, \((nodeCount - fileCount) * 3) expected"
        }
        let compareWall = nanoseconds(clock.now - t0) / 1e9
        if let p = problem { print("comparison stopped: \(p)"); return 1 }
        let cells = agree + differ
        print(
            "cells compared (every file × 3 ops × the \(asked.count) subjects asked, streaming the CSV against the answer files, \(f1(compareWall)) s): \(grouped(cells)), agreeing: \(grouped(agree)) (\(String(format: "%.4f", Double(agree) * 100 / Double(max(cells, 1))))%)"
        )

        // Ratios. Measured: matrix for every user against the kernel for the subjects asked.
        let ratio = kernelNS / 1e9 / m.wall
        let cpuRatio = kernelCPU / 1e9 / m.cpu
        print(
            "measured: matrix's whole run (all \(userCount + 1) users) is \(f1(ratio))x faster than the kernel's timed sum for the \(asked.count) subjects asked by the wall clock, \(f1(cpuRatio))x by CPU time (\(f1(kernelWall / m.wall))x against the kernel processes' whole wall time, \(parallel) at a time, start-up included)"
        )
        if subset {
            // Root's pass as measured, each of the other users as the average user asked.
            let scale = Double(userCount) / Double(askedUsers)
            let extNS = rootNS + (kernelNS - rootNS) * scale
            let extCPU = rootCPU + (kernelCPU - rootCPU) * scale
            print(
                "extrapolated, not measured: the kernel's sum for all \(userCount + 1) subjects, taking each user not asked to cost what the \(askedUsers) users asked cost on average: \(f1(extNS / 1e9)) s wall, \(f1(extCPU / 1e9)) s CPU; matrix's whole run would be \(f1(extNS / 1e9 / m.wall))x faster by the wall clock, \(f1(extCPU / 1e9 / m.cpu))x by CPU time"
            )
        }
        print(
            "peak RSS: this benchmark \(peakRSS() >> 20) MiB (the world it generated included), fspolicy matrix \(m.maxRSS >> 20) MiB (wait4's ru_maxrss), a kernel worker \(workerRSS >> 20) MiB (its own VmHWM)"
        )
        let compared =
            subset
            ? "fspolicy matrix (whole process, all \(userCount + 1) users) against the kernel's measured sum for the \(asked.count) subjects asked (\(whoAsked))"
            : "fspolicy matrix (whole process) against the kernel's sum, all \(userCount + 1) users"
        print(
            "target matrix at least 20x faster than the kernel's sum, 100% agreement — \(compared), on \(grouped(fileCount)) files × 3 ops, every cell of the subjects asked (\(grouped(cells))) compared: \(ratio >= 20 && differ == 0 ? "PASS" : "FAIL") (\(f1(ratio))x by the wall clock, \(differ) cells differ)"
        )
        return 0
    }
#endif
