#ifndef CLIBARCHIVE_SHIM_H
#define CLIBARCHIVE_SHIM_H
/* libarchive (Debian: libarchive-dev): tar and its compression filters, read side only. */
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <locale.h>

/* Constants Swift cannot import as plain values (macros built from other macros). */
static inline unsigned int clibarchive_type_mask(void) { return AE_IFMT; }
static inline unsigned int clibarchive_fl_immutable(void) { return FS_IMMUTABLE_FL; }
static inline unsigned int clibarchive_fl_append(void) { return FS_APPEND_FL; }
static inline unsigned int clibarchive_fl_nodump(void) { return FS_NODUMP_FL; }

/* libarchive converts the UTF-8 names of PAX headers to the current locale's charset; in the
   C locale every non-ASCII name would fail. These switch the calling thread (only) to C.UTF-8
   while an archive is read, so names reach the reader as the bytes the archive holds. */
static inline void *clibarchive_use_utf8(void) {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (l == (locale_t)0) return (void *)0;
    return (void *)uselocale(l);
}
static inline void clibarchive_restore_locale(void *old) {
    if (old == (void *)0) return;
    locale_t cur = uselocale((locale_t)old);
    if (cur != (locale_t)0 && cur != LC_GLOBAL_LOCALE) freelocale(cur);
}
#endif
