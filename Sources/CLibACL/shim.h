#ifndef CLIBACL_SHIM_H
#define CLIBACL_SHIM_H
/* libacl (POSIX.1e draft API + Linux extensions) and the few kernel interfaces Swift cannot
   import directly: statx through syscall(2), FS_IOC_GETFLAGS, ACL_UNDEFINED_ID. */
#include <sys/types.h>
#include <sys/acl.h>
#include <acl/libacl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/xattr.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

/* struct statx, as in uapi linux/stat.h, under its own name so it cannot clash with glibc's. */
struct clibacl_statx_timestamp { int64_t tv_sec; uint32_t tv_nsec; int32_t __reserved; };
struct clibacl_statx {
    uint32_t stx_mask; uint32_t stx_blksize; uint64_t stx_attributes;
    uint32_t stx_nlink; uint32_t stx_uid; uint32_t stx_gid; uint16_t stx_mode; uint16_t __spare0;
    uint64_t stx_ino; uint64_t stx_size; uint64_t stx_blocks; uint64_t stx_attributes_mask;
    struct clibacl_statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
    uint32_t stx_rdev_major; uint32_t stx_rdev_minor; uint32_t stx_dev_major; uint32_t stx_dev_minor;
    uint64_t stx_mnt_id; uint64_t __spare2[13];
};

#define CLIBACL_STATX_BASIC_STATS 0x000007ffU
#define CLIBACL_ATTR_IMMUTABLE 0x00000010ULL
#define CLIBACL_ATTR_APPEND 0x00000020ULL
#define CLIBACL_ATTR_NODUMP 0x00000040ULL
#define CLIBACL_AT_SYMLINK_NOFOLLOW 0x100
#define CLIBACL_AT_NO_AUTOMOUNT 0x800
#define CLIBACL_AT_EMPTY_PATH 0x1000
#define CLIBACL_STATX_MNT_ID 0x00001000U
/* O_PATH is a GNU extension the Swift Glibc module may not export. */
static inline int clibacl_o_path(void) { return 010000000; }
/* O_NOATIME (likewise): reading a file leaves its access time as it was. */
static inline int clibacl_o_noatime(void) { return 01000000; }

static inline int clibacl_statx(int dirfd, const char *path, int flags, unsigned int mask, struct clibacl_statx *buf) {
    return (int)syscall(SYS_statx, dirfd, path, flags, mask, buf);
}
/* FS_IOC_GETFLAGS / FS_IOC_SETFLAGS are function-like macros Swift cannot import. */
static inline int clibacl_get_inode_flags(int fd, unsigned int *flags) { return ioctl(fd, FS_IOC_GETFLAGS, flags); }
static inline int clibacl_set_inode_flags(int fd, unsigned int flags) { return ioctl(fd, FS_IOC_SETFLAGS, &flags); }

/* fchmodat2(2) (Linux 6.6, number 452 on every architecture): fchmodat with flags, for the
   kernel's own answer to AT_SYMLINK_NOFOLLOW (glibc before 2.39 answers a symlink itself);
   -1 with ENOSYS on older kernels. */
static inline int clibacl_fchmodat2(int dirfd, const char *path, unsigned int mode, int flags) {
    return (int)syscall(452, dirfd, path, mode, flags);
}

/* getxattrat(2) (Linux 6.13): an extended attribute of `path` relative to `dirfd`. The scanner
   uses it with a descriptor of /proc/self/fd and the descriptor's number as `path`, so the
   kernel looks up one name instead of walking /proc/self/fd/N from the root. New system calls
   share one number on every architecture (asm-generic); -1 with ENOSYS on older kernels. */
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
struct clibacl_xattr_args { uint64_t value; uint32_t size; uint32_t flags; };
static inline long clibacl_getxattrat(int dirfd, const char *path, int at_flags, const char *name, void *value, size_t size) {
    struct clibacl_xattr_args args = { (uint64_t)(uintptr_t)value, (uint32_t)size, 0 };
    return syscall(SYS_getxattrat, dirfd, path, at_flags, name, &args, sizeof args);
}

static inline unsigned int clibacl_undefined_id(void) { return (unsigned int)ACL_UNDEFINED_ID; }
static inline int clibacl_type_access(void) { return ACL_TYPE_ACCESS; }
static inline int clibacl_type_default(void) { return ACL_TYPE_DEFAULT; }
#endif
