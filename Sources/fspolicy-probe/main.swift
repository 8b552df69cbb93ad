// fspolicy-probe: performs real file-system operations, one per input line, and prints `OK` or
// the errno name. Used by the differential test, run as a test user through setpriv.
// A line is: OP <TAB> PATH [<TAB> ARG], e.g. `read\t/tmp/t/f`, `rename\t/a\t/b`, `chmod\t/a\t600`,
// `symlink\t/a/link\tTARGET`, `mknod\t/a/dev\tc644`, `open\t/a\tO_RDONLY|O_TRUNC`, `chown\t/a\t-1:100`,
// `settimes\t/a\tnow,omit`.
import CLibACL
import Glibc

func errnoName(_ e: Int32) -> String {
    switch e {
    case EACCES: return "EACCES"
    case EPERM: return "EPERM"
    case EROFS: return "EROFS"
    case ENOENT: return "ENOENT"
    case ENOTDIR: return "ENOTDIR"
    case EXDEV: return "EXDEV"
    case ELOOP: return "ELOOP"
    case EEXIST: return "EEXIST"
    case EISDIR: return "EISDIR"
    case ENOTEMPTY: return "ENOTEMPTY"
    case EINVAL: return "EINVAL"
    case EBUSY: return "EBUSY"
    case ENODATA: return "ENODATA"
    case ENXIO: return "ENXIO"
    case ENOTTY: return "ENOTTY"
    case EOPNOTSUPP: return "EOPNOTSUPP"
    case EADDRINUSE: return "EADDRINUSE"
    default: return "E\(e)"
    }
}

func result(_ r: Int32) -> String { r >= 0 ? "OK" : errnoName(errno) }

/// The open's answer. ENXIO from a FIFO opened for writing without a reader (O_NONBLOCK) comes
/// after every permission check passed: the open was permitted. From a socket it is the
/// answer: a socket cannot be opened.
func openProbe(_ path: String, _ flags: Int32) -> String {
    let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
    if fd < 0 {
        let e = errno
        return e == ENXIO && isFIFO(path) ? "OK" : errnoName(e)
    }
    close(fd)
    return "OK"
}

func isFIFO(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO
}

/// chattr's way: open for reading (O_NONBLOCK, following a symlink), then FS_IOC_SETFLAGS
/// with the inode's other flags kept and immutable (0x10), append (0x20) and nodump (0x40) as
/// `word` (hexadecimal) says. Where FS_IOC_GETFLAGS itself fails (a special file), the word is
/// set alone, for the kernel to answer the set.
func chflagsProbe(_ path: String, _ word: String) -> String {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    if fd < 0 { return errnoName(errno) }
    defer { close(fd) }
    let wanted = UInt32(strtoul(word, nil, 16)) & 0x70
    var flags: UInt32 = 0
    if clibacl_get_inode_flags(fd, &flags) != 0 { flags = 0 }
    flags = (flags & ~UInt32(0x70)) | wanted
    return result(clibacl_set_inode_flags(fd, flags))
}

/// `modify` (docs/semantics.md O40, O41): a directory gets a new file (`O_CREAT|O_EXCL`) or
/// else a new subdirectory, named as the simulator names it, removed again at once; anything
/// else is opened for writing, then with `O_APPEND`, then with `O_TRUNC`. `OK` at the first
/// that succeeds, else the first way's errno.
func modifyProbe(_ path: String) -> String {
    var st = stat()
    if stat(path, &st) != 0 { return errnoName(errno) }
    if (st.st_mode & S_IFMT) == S_IFDIR {
        let base = path.hasSuffix("/") ? path : path + "/"
        var name = ".fspolicy-new"
        var i = 0
        var probe = stat()
        while lstat(base + name, &probe) == 0 { i += 1; name = ".fspolicy-new\(i)" }
        let fd = open(base + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK, 0o600)
        if fd >= 0 { close(fd); unlink(base + name); return "OK" }
        let first = errnoName(errno)
        if mkdir(base + name, 0o700) == 0 { rmdir(base + name); return "OK" }
        return first
    }
    let first = openProbe(path, O_WRONLY)
    if first == "OK" { return first }
    for flags in [O_WRONLY | O_APPEND, O_WRONLY | O_TRUNC] where openProbe(path, flags) == "OK" { return "OK" }
    return first
}

/// `bind(2)` of a new unix socket at `path` (docs/semantics.md O19); the socket is closed, its
/// name stays. A path longer than `sun_path` holds is `TOOLONG`, never asked.
func bindProbe(_ path: String) -> String {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return "TOOLONG" }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { return errnoName(errno) }
    defer { close(fd) }
    let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    return result(r)
}

/// A write of one byte to the data (`write`: at the start, `append`: at the end), which the
/// kernel follows by clearing setuid and setgid as it does for any write (O20).
func writeByteProbe(_ path: String, _ flags: Int32) -> String {
    let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    if fd < 0 { return errnoName(errno) }
    defer { close(fd) }
    var b: UInt8 = 0x2e
    return write(fd, &b, 1) == 1 ? "OK" : errnoName(errno)
}

/// `open` with the flags named in `words` (`O_RDONLY|O_TRUNC`, as the format writes them);
/// nil for an unknown word.
func openFlags(_ words: String) -> Int32? {
    var flags: Int32 = O_RDONLY
    for w in words.split(separator: "|") {
        switch w {
        case "O_RDONLY": break
        case "O_WRONLY": flags |= O_WRONLY
        case "O_RDWR": flags |= O_RDWR
        case "O_CREAT": flags |= O_CREAT
        case "O_EXCL": flags |= O_EXCL
        case "O_TRUNC": flags |= O_TRUNC
        case "O_APPEND": flags |= O_APPEND
        case "O_DIRECTORY": flags |= O_DIRECTORY
        case "O_NOFOLLOW": flags |= O_NOFOLLOW
        case "O_PATH": flags |= 0o10000000
        default: return nil
        }
    }
    return flags
}

func run(_ f: [String]) -> String {
    guard f.count >= 2 else { return "BADLINE" }
    let op = f[0], path = f[1], arg = f.count > 2 ? f[2] : ""
    switch op {
    case "read": return openProbe(path, O_RDONLY)
    case "write": return openProbe(path, O_WRONLY)
    case "readwrite": return openProbe(path, O_RDWR)
    case "append": return openProbe(path, O_WRONLY | O_APPEND)
    case "truncate": return openProbe(path, O_WRONLY | O_TRUNC)
    case "modify": return modifyProbe(path)
    case "create":
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, arg.isEmpty ? 0o644 : mode_t(strtol(arg, nil, 8)))
        if fd < 0 { return errnoName(errno) }
        close(fd)
        return "OK"
    case "creat":
        // open(O_WRONLY|O_CREAT), no O_EXCL, no O_TRUNC.
        return openProbe(path, O_WRONLY | O_CREAT)
    case "open":
        guard let flags = openFlags(arg) else { return "BADFLAGS" }
        return openProbe(path, flags)
    case "mkdir": return result(mkdir(path, arg.isEmpty ? 0o777 : mode_t(strtol(arg, nil, 8))))
    case "umask":
        umask(mode_t(strtol(path, nil, 8)))
        return "OK"
    case "symlink": return result(symlink(arg, path))
    case "mkfifo": return result(mkfifo(path, arg.isEmpty ? 0o666 : mode_t(strtol(arg, nil, 8))))
    case "mknod":
        // `c644` or `b600`: a character device (1,3) or a block device (7,0), with its mode
        // (glibc's makedev is a macro: the numbers are written encoded).
        let block = arg.hasPrefix("b")
        let mode = mode_t(strtol(String(arg.dropFirst()), nil, 8))
        return result(mknod(path, (block ? S_IFBLK : S_IFCHR) | mode, dev_t(block ? 0x700 : 0x103)))
    case "socket": return bindProbe(path)
    case "writebyte": return writeByteProbe(path, O_WRONLY)
    case "appendbyte": return writeByteProbe(path, O_WRONLY | O_APPEND)
    case "unlink": return result(unlink(path))
    case "rmdir": return result(rmdir(path))
    case "rename": return result(rename(path, arg))
    case "link": return result(link(path, arg))
    case "stat":
        var st = stat()
        return result(stat(path, &st))
    case "list":
        guard let d = opendir(path) else { return errnoName(errno) }
        closedir(d)
        return "OK"
    case "search":
        let r = chdir(path)
        let out = result(r)
        _ = chdir("/")
        return out
    case "execute":
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { for a in argv { free(a) } }
        let r = posix_spawn(&pid, path, nil, nil, argv, environ)
        // ENOEXEC (an empty or unrecognized file) comes after the permission checks passed.
        if r == ENOEXEC { return "OK" }
        if r != 0 { return errnoName(r) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return "OK"
    case "chmod": return result(chmod(path, mode_t(strtol(arg, nil, 8))))
    case "chown", "lchown":
        // `UID` or `UID:GID`, either `-1` for no change (`-1:-1` asks chown(-1, -1)).
        let ids = arg.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func id(_ i: Int) -> UInt32 { i < ids.count && ids[i] != "-1" ? UInt32(ids[i]) ?? 0 : UInt32.max }
        return result(op == "chown" ? chown(path, id(0), id(1)) : lchown(path, id(0), id(1)))
    case "lchmod":
        // fchmodat2 with AT_SYMLINK_NOFOLLOW (Linux 6.6 and later): the kernel's own answer.
        return result(clibacl_fchmodat2(AT_FDCWD, path, UInt32(strtol(arg, nil, 8)), AT_SYMLINK_NOFOLLOW))
    case "lstat":
        var st = stat()
        return result(lstat(path, &st))
    case "chgrp": return result(chown(path, uid_t.max, gid_t(arg) ?? 0))
    case "touch": return result(utimensat(AT_FDCWD, path, nil, 0))
    case "settimes":
        // `ATIME,MTIME`, each `set`, `now` (UTIME_NOW) or `omit` (UTIME_OMIT); both `set` by default.
        let words = arg.isEmpty ? ["set", "set"] : arg.split(separator: ",").map(String.init)
        func nsec(_ w: String) -> Int { w == "now" ? (1 << 30) - 1 : w == "omit" ? (1 << 30) - 2 : 0 }
        var ts = [
            timespec(tv_sec: 1_000_000_000, tv_nsec: nsec(words.first ?? "set")),
            timespec(tv_sec: 1_000_000_000, tv_nsec: nsec(words.count > 1 ? words[1] : "set"))
        ]
        return result(utimensat(AT_FDCWD, path, &ts, 0))
    case "chflags": return chflagsProbe(path, arg)
    case "writeextattr": return result(Int32(setxattr(path, "user.fspolicy", "1", 1, 0)))
    case "readextattr":
        var buf = [UInt8](repeating: 0, count: 16)
        let r = getxattr(path, "user.fspolicy", &buf, buf.count)
        return r < 0 && errno == ENODATA ? "OK" : result(Int32(r))
    default: return "BADOP"
    }
}

while let line = readLine(strippingNewline: true) {
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    let out = Array((run(fields) + "\n").utf8)
    _ = out.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
}
