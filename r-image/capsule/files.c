/* Files: every libc entry point that opens, creates, changes or lists a path. */
#define _GNU_SOURCE
#include "capsule.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

static int open_writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) || (flags & O_TMPFILE) == O_TMPFILE;
}

static int mode_writes(const char *mode) { return mode && (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+')); }

/* ------------------------------------------------------------------------------------------- */
/* Files                                                                                        */
/* ------------------------------------------------------------------------------------------- */

static mode_t open_mode(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

REAL(int, open, (const char *, int, ...))
REAL(int, open64, (const char *, int, ...))
REAL(int, openat, (int, const char *, int, ...))
REAL(int, openat64, (int, const char *, int, ...))
REAL(int, __open_2, (const char *, int))
REAL(int, __open64_2, (const char *, int))
REAL(int, __openat_2, (int, const char *, int))
REAL(int, __openat64_2, (int, const char *, int))

/* Every open entry point: checks the canonical path and opens that, not the name given, so a
 * symlink swapped after the check cannot redirect the open. */
static int guarded_open(int dirfd, const char *path, int flags, mode_t mode) {
  if (!armed()) return real_openat()(dirfd, path, flags, mode);
  char resolved[PATH_MAX];
  if (check_path(dirfd, path, open_writes(flags), 0, "open", resolved) < 0) return -1;
  return real_openat()(AT_FDCWD, resolved, flags, mode);
}

API int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  if (!armed()) return real_open()(path, flags, mode);
  return guarded_open(AT_FDCWD, path, flags, mode);
}
API int open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  if (!armed()) return real_open64()(path, flags, mode);
  return guarded_open(AT_FDCWD, path, flags, mode);
}
API int openat(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  return guarded_open(dirfd, path, flags, mode);
}
API int openat64(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  if (!armed()) return real_openat64()(dirfd, path, flags, mode);
  return guarded_open(dirfd, path, flags, mode);
}
API int __open_2(const char *path, int flags) {
  if (!armed()) return real___open_2()(path, flags);
  return guarded_open(AT_FDCWD, path, flags, 0);
}
API int __open64_2(const char *path, int flags) {
  if (!armed()) return real___open64_2()(path, flags);
  return guarded_open(AT_FDCWD, path, flags, 0);
}
API int __openat_2(int dirfd, const char *path, int flags) {
  if (!armed()) return real___openat_2()(dirfd, path, flags);
  return guarded_open(dirfd, path, flags, 0);
}
API int __openat64_2(int dirfd, const char *path, int flags) {
  if (!armed()) return real___openat64_2()(dirfd, path, flags);
  return guarded_open(dirfd, path, flags, 0);
}
API int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
API int creat64(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

REAL(FILE *, fopen, (const char *, const char *))
REAL(FILE *, fopen64, (const char *, const char *))
REAL(FILE *, freopen, (const char *, const char *, FILE *))
REAL(FILE *, freopen64, (const char *, const char *, FILE *))

API FILE *fopen(const char *path, const char *mode) {
  if (!armed()) return real_fopen()(path, mode);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, mode_writes(mode), 0, "fopen", resolved) < 0) return NULL;
  return real_fopen()(resolved, mode);
}
API FILE *fopen64(const char *path, const char *mode) {
  if (!armed()) return real_fopen64()(path, mode);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, mode_writes(mode), 0, "fopen", resolved) < 0) return NULL;
  return real_fopen64()(resolved, mode);
}
API FILE *freopen(const char *path, const char *mode, FILE *stream) {
  if (!armed() || !path) return real_freopen()(path, mode, stream);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, mode_writes(mode), 0, "freopen", resolved) < 0) return NULL;
  return real_freopen()(resolved, mode, stream);
}
API FILE *freopen64(const char *path, const char *mode, FILE *stream) {
  if (!armed() || !path) return real_freopen64()(path, mode, stream);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, mode_writes(mode), 0, "freopen", resolved) < 0) return NULL;
  return real_freopen64()(resolved, mode, stream);
}

REAL(DIR *, opendir, (const char *))
API DIR *opendir(const char *path) {
  if (!armed()) return real_opendir()(path);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, 0, 0, "opendir", resolved) < 0) return NULL;
  return real_opendir()(resolved);
}

typedef int (*scandir_filter)(const struct dirent *);
typedef int (*scandir_compar)(const struct dirent **, const struct dirent **);
REAL(int, scandir, (const char *, struct dirent ***, scandir_filter, scandir_compar))
API int scandir(const char *path, struct dirent ***list, scandir_filter filter, scandir_compar compar) {
  if (!armed()) return real_scandir()(path, list, filter, compar);
  char resolved[PATH_MAX];
  if (check_path(AT_FDCWD, path, 0, 0, "scandir", resolved) < 0) return -1;
  return real_scandir()(resolved, list, filter, compar);
}

/* glob() reads directories inside libc, past opendir: its matches are filtered instead. */
typedef int (*glob_errfunc)(const char *, int);
REAL(int, glob, (const char *, int, glob_errfunc, glob_t *))
API int glob(const char *pattern, int flags, glob_errfunc errfunc, glob_t *pglob) {
  int result = real_glob()(pattern, flags, errfunc, pglob);
  if (!armed() || result != 0) return result;
  size_t kept = 0, first = (flags & GLOB_DOOFFS) ? pglob->gl_offs : 0;
  for (size_t i = 0; i < pglob->gl_pathc; i++) {
    char *match = pglob->gl_pathv[first + i];
    char resolved[PATH_MAX];
    if (canonical(AT_FDCWD, match, 1, resolved) == 0 && readable(resolved)) {
      pglob->gl_pathv[first + kept++] = match;
    } else {
      refused("glob", match);
      free(match);
    }
  }
  pglob->gl_pathv[first + kept] = NULL;
  pglob->gl_pathc = kept;
  return kept == 0 && !(flags & GLOB_NOCHECK) ? GLOB_NOMATCH : 0;
}

/* On 64-bit glibc glob64_t has glob_t's layout. */
REAL(int, glob64, (const char *, int, glob_errfunc, glob64_t *))
API int glob64(const char *pattern, int flags, glob_errfunc errfunc, glob64_t *pglob) {
  if (!armed()) return real_glob64()(pattern, flags, errfunc, pglob);
  return glob(pattern, flags, errfunc, (glob_t *)pglob);
}

/* ------------------------------------------------------------------------------------------- */
/* Looking without opening: the read rules of check_lookup (paths.c)                            */
/* ------------------------------------------------------------------------------------------- */

/* readlink names where a link points: another process's /proc entries (cwd, exe, fd/N) name its
 * files, and a link outside the readable roots names what is there. */
REAL(ssize_t, readlinkat, (int, const char *, char *, size_t))
API ssize_t readlink(const char *path, char *buf, size_t size) {
  if (!armed()) return capsule_readlink(path, buf, size);
  char resolved[PATH_MAX];
  if (check_lookup(AT_FDCWD, path, 1, "readlink", resolved) < 0) return -1;
  return capsule_readlink(resolved, buf, size);
}
API ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size) {
  if (!armed()) return real_readlinkat()(dirfd, path, buf, size);
  char resolved[PATH_MAX];
  if (check_lookup(dirfd, path, 1, "readlink", resolved) < 0) return -1;
  return real_readlinkat()(AT_FDCWD, resolved, buf, size);
}

/* realpath names the file a path reaches (normalizePath(), R's library code): the answer is given
 * only when the path is readable, and then checked again, in case a link changed in between. */
REAL(char *, __realpath_chk, (const char *, char *, size_t))
static char *guarded_realpath(const char *path, char *resolved) {
  if (!armed() || !path) return capsule_realpath(path, resolved);
  char checked[PATH_MAX];
  if (check_lookup(AT_FDCWD, path, 0, "realpath", checked) < 0) return NULL;
  char *answer = capsule_realpath(path, resolved);
  if (answer && check_lookup(AT_FDCWD, answer, 1, "realpath", checked) < 0) {
    int saved = errno;
    if (!resolved) free(answer);
    errno = saved;
    return NULL;
  }
  return answer;
}
API char *realpath(const char *path, char *resolved) { return guarded_realpath(path, resolved); }
API char *canonicalize_file_name(const char *path) { return guarded_realpath(path, NULL); }
API char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen) {
  /* A buffer shorter than PATH_MAX is the fortified check's to report. */
  if (resolvedlen < PATH_MAX) return real___realpath_chk()(path, resolved, resolvedlen);
  return guarded_realpath(path, resolved);
}

/* The stat family and access: size, times, owner and existence of a path. */
REAL(int, stat, (const char *, struct stat *))
REAL(int, stat64, (const char *, struct stat64 *))
REAL(int, lstat, (const char *, struct stat *))
REAL(int, lstat64, (const char *, struct stat64 *))
REAL(int, fstatat, (int, const char *, struct stat *, int))
REAL(int, fstatat64, (int, const char *, struct stat64 *, int))
REAL(int, statx, (int, const char *, int, unsigned int, struct statx *))
REAL(int, access, (const char *, int))
REAL(int, faccessat, (int, const char *, int, int))
REAL(int, euidaccess, (const char *, int))
REAL(int, eaccess, (const char *, int))

/* An empty path with AT_EMPTY_PATH is the descriptor itself: already open, nothing to look up. */
static int descriptor_itself(const char *path, int flags) { return (flags & AT_EMPTY_PATH) && path && !*path; }

#define GUARD_LOOKUP(dirfd, path, nofollow, op, resolved)                              \
  char resolved[PATH_MAX];                                                             \
  do {                                                                                 \
    if (check_lookup(dirfd, path, nofollow, op, resolved) < 0) return -1;              \
  } while (0)

API int stat(const char *path, struct stat *buf) {
  if (!armed()) return real_stat()(path, buf);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "stat", resolved);
  return real_stat()(resolved, buf);
}
API int stat64(const char *path, struct stat64 *buf) {
  if (!armed()) return real_stat64()(path, buf);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "stat", resolved);
  return real_stat64()(resolved, buf);
}
API int lstat(const char *path, struct stat *buf) {
  if (!armed()) return real_lstat()(path, buf);
  GUARD_LOOKUP(AT_FDCWD, path, 1, "stat", resolved);
  return real_lstat()(resolved, buf);
}
API int lstat64(const char *path, struct stat64 *buf) {
  if (!armed()) return real_lstat64()(path, buf);
  GUARD_LOOKUP(AT_FDCWD, path, 1, "stat", resolved);
  return real_lstat64()(resolved, buf);
}
API int fstatat(int dirfd, const char *path, struct stat *buf, int flags) {
  if (!armed() || descriptor_itself(path, flags)) return real_fstatat()(dirfd, path, buf, flags);
  GUARD_LOOKUP(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "stat", resolved);
  return real_fstatat()(AT_FDCWD, resolved, buf, flags);
}
API int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags) {
  if (!armed() || descriptor_itself(path, flags)) return real_fstatat64()(dirfd, path, buf, flags);
  GUARD_LOOKUP(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "stat", resolved);
  return real_fstatat64()(AT_FDCWD, resolved, buf, flags);
}
API int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf) {
  if (!armed() || descriptor_itself(path, flags)) return real_statx()(dirfd, path, flags, mask, buf);
  GUARD_LOOKUP(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "stat", resolved);
  return real_statx()(AT_FDCWD, resolved, flags, mask, buf);
}
/* The versioned entry points older binaries call (glibc before 2.33 had no stat symbol). Newer
 * glibc keeps them only for those binaries, possibly without a default version that dlsym finds,
 * so they go through the functions above, as glibc's own do (the layout `ver` names is theirs). */
API int __xstat(int ver, const char *path, struct stat *buf) {
  (void)ver;
  return stat(path, buf);
}
API int __xstat64(int ver, const char *path, struct stat64 *buf) {
  (void)ver;
  return stat64(path, buf);
}
API int __lxstat(int ver, const char *path, struct stat *buf) {
  (void)ver;
  return lstat(path, buf);
}
API int __lxstat64(int ver, const char *path, struct stat64 *buf) {
  (void)ver;
  return lstat64(path, buf);
}
API int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags) {
  (void)ver;
  return fstatat(dirfd, path, buf, flags);
}
API int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags) {
  (void)ver;
  return fstatat64(dirfd, path, buf, flags);
}
/* setwd() answers whether a directory exists: the same rules. */
REAL(int, chdir, (const char *))
API int chdir(const char *path) {
  if (!armed()) return real_chdir()(path);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "chdir", resolved);
  return real_chdir()(resolved);
}
API int access(const char *path, int mode) {
  if (!armed()) return real_access()(path, mode);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "access", resolved);
  return real_access()(resolved, mode);
}
API int faccessat(int dirfd, const char *path, int mode, int flags) {
  if (!armed() || descriptor_itself(path, flags)) return real_faccessat()(dirfd, path, mode, flags);
  GUARD_LOOKUP(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "access", resolved);
  return real_faccessat()(AT_FDCWD, resolved, mode, flags);
}
API int euidaccess(const char *path, int mode) {
  if (!armed()) return real_euidaccess()(path, mode);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "access", resolved);
  return real_euidaccess()(resolved, mode);
}
API int eaccess(const char *path, int mode) {
  if (!armed()) return real_eaccess()(path, mode);
  GUARD_LOOKUP(AT_FDCWD, path, 0, "access", resolved);
  return real_eaccess()(resolved, mode);
}

/* Operations that change a path: the path must be inside the workdir. */
#define GUARD_WRITE(dirfd, path, nofollow, op, fail)                       \
  do {                                                                   \
    if (armed()) {                                                       \
      char resolved_[PATH_MAX];                                          \
      if (check_path(dirfd, path, 1, nofollow, op, resolved_) < 0) return fail; \
    }                                                                    \
  } while (0)

REAL(int, truncate, (const char *, off_t))
REAL(int, truncate64, (const char *, off_t))
REAL(int, rename, (const char *, const char *))
REAL(int, renameat, (int, const char *, int, const char *))
REAL(int, renameat2, (int, const char *, int, const char *, unsigned int))
REAL(int, link, (const char *, const char *))
REAL(int, linkat, (int, const char *, int, const char *, int))
REAL(int, symlink, (const char *, const char *))
REAL(int, symlinkat, (const char *, int, const char *))
REAL(int, unlink, (const char *))
REAL(int, unlinkat, (int, const char *, int))
REAL(int, remove, (const char *))
REAL(int, rmdir, (const char *))
REAL(int, mkdir, (const char *, mode_t))
REAL(int, mkdirat, (int, const char *, mode_t))
REAL(int, mknod, (const char *, mode_t, dev_t))
REAL(int, mknodat, (int, const char *, mode_t, dev_t))
REAL(int, mkfifo, (const char *, mode_t))
REAL(int, mkfifoat, (int, const char *, mode_t))
REAL(int, chmod, (const char *, mode_t))
REAL(int, fchmodat, (int, const char *, mode_t, int))
REAL(int, fchmod, (int, mode_t))
REAL(int, chown, (const char *, uid_t, gid_t))
REAL(int, lchown, (const char *, uid_t, gid_t))
REAL(int, fchownat, (int, const char *, uid_t, gid_t, int))
REAL(int, fchown, (int, uid_t, gid_t))
REAL(int, utime, (const char *, const struct utimbuf *))
REAL(int, utimes, (const char *, const struct timeval *))
REAL(int, lutimes, (const char *, const struct timeval *))
REAL(int, utimensat, (int, const char *, const struct timespec *, int))
REAL(int, futimesat, (int, const char *, const struct timeval *))
REAL(int, setxattr, (const char *, const char *, const void *, size_t, int))
REAL(int, lsetxattr, (const char *, const char *, const void *, size_t, int))
REAL(int, removexattr, (const char *, const char *))
REAL(int, lremovexattr, (const char *, const char *))
REAL(int, mkstemp, (char *))
REAL(int, mkstemp64, (char *))
REAL(int, mkostemp, (char *, int))
REAL(int, mkostemps, (char *, int, int))
REAL(int, mkstemps, (char *, int))
REAL(char *, mkdtemp, (char *))
REAL(FILE *, tmpfile, (void))
REAL(FILE *, tmpfile64, (void))

API int truncate(const char *path, off_t length) {
  GUARD_WRITE(AT_FDCWD, path, 0, "truncate", -1);
  return real_truncate()(path, length);
}
API int truncate64(const char *path, off_t length) {
  GUARD_WRITE(AT_FDCWD, path, 0, "truncate", -1);
  return real_truncate64()(path, length);
}
API int rename(const char *from, const char *to) {
  GUARD_WRITE(AT_FDCWD, from, 1, "rename", -1);
  GUARD_WRITE(AT_FDCWD, to, 1, "rename", -1);
  return real_rename()(from, to);
}
API int renameat(int fromfd, const char *from, int tofd, const char *to) {
  GUARD_WRITE(fromfd, from, 1, "rename", -1);
  GUARD_WRITE(tofd, to, 1, "rename", -1);
  return real_renameat()(fromfd, from, tofd, to);
}
API int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
  GUARD_WRITE(fromfd, from, 1, "rename", -1);
  GUARD_WRITE(tofd, to, 1, "rename", -1);
  return real_renameat2()(fromfd, from, tofd, to, flags);
}
/* A hard link to a file outside the workdir would make it writable through the workdir: both
 * ends must be inside. */
API int link(const char *from, const char *to) {
  GUARD_WRITE(AT_FDCWD, from, 0, "link", -1);
  GUARD_WRITE(AT_FDCWD, to, 1, "link", -1);
  return real_link()(from, to);
}
API int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
  GUARD_WRITE(fromfd, from, !(flags & AT_SYMLINK_FOLLOW), "link", -1);
  GUARD_WRITE(tofd, to, 1, "link", -1);
  return real_linkat()(fromfd, from, tofd, to, flags);
}
/* A symlink's target is only text; every open resolves it and is checked there. */
API int symlink(const char *target, const char *to) {
  GUARD_WRITE(AT_FDCWD, to, 1, "symlink", -1);
  return real_symlink()(target, to);
}
API int symlinkat(const char *target, int tofd, const char *to) {
  GUARD_WRITE(tofd, to, 1, "symlink", -1);
  return real_symlinkat()(target, tofd, to);
}
API int unlink(const char *path) {
  GUARD_WRITE(AT_FDCWD, path, 1, "unlink", -1);
  return real_unlink()(path);
}
API int unlinkat(int dirfd, const char *path, int flags) {
  GUARD_WRITE(dirfd, path, 1, "unlink", -1);
  return real_unlinkat()(dirfd, path, flags);
}
API int remove(const char *path) {
  GUARD_WRITE(AT_FDCWD, path, 1, "remove", -1);
  return real_remove()(path);
}
API int rmdir(const char *path) {
  GUARD_WRITE(AT_FDCWD, path, 1, "rmdir", -1);
  return real_rmdir()(path);
}
API int mkdir(const char *path, mode_t mode) {
  GUARD_WRITE(AT_FDCWD, path, 1, "mkdir", -1);
  return real_mkdir()(path, mode);
}
API int mkdirat(int dirfd, const char *path, mode_t mode) {
  GUARD_WRITE(dirfd, path, 1, "mkdir", -1);
  return real_mkdirat()(dirfd, path, mode);
}
API int mknod(const char *path, mode_t mode, dev_t dev) {
  GUARD_WRITE(AT_FDCWD, path, 1, "mknod", -1);
  return real_mknod()(path, mode, dev);
}
API int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev) {
  GUARD_WRITE(dirfd, path, 1, "mknod", -1);
  return real_mknodat()(dirfd, path, mode, dev);
}
API int mkfifo(const char *path, mode_t mode) {
  GUARD_WRITE(AT_FDCWD, path, 1, "mkfifo", -1);
  return real_mkfifo()(path, mode);
}
API int mkfifoat(int dirfd, const char *path, mode_t mode) {
  GUARD_WRITE(dirfd, path, 1, "mkfifo", -1);
  return real_mkfifoat()(dirfd, path, mode);
}
API int chmod(const char *path, mode_t mode) {
  GUARD_WRITE(AT_FDCWD, path, 0, "chmod", -1);
  return real_chmod()(path, mode);
}
API int fchmodat(int dirfd, const char *path, mode_t mode, int flags) {
  GUARD_WRITE(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "chmod", -1);
  return real_fchmodat()(dirfd, path, mode, flags);
}
API int chown(const char *path, uid_t uid, gid_t gid) {
  GUARD_WRITE(AT_FDCWD, path, 0, "chown", -1);
  return real_chown()(path, uid, gid);
}
API int lchown(const char *path, uid_t uid, gid_t gid) {
  GUARD_WRITE(AT_FDCWD, path, 1, "chown", -1);
  return real_lchown()(path, uid, gid);
}
API int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags) {
  GUARD_WRITE(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "chown", -1);
  return real_fchownat()(dirfd, path, uid, gid, flags);
}

/* An fd opened read-only outside the workdir still accepts fchmod/fchown from its owner. */
static int fd_in_workdir(int fd, const char *op) {
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = capsule_readlink(link, target, sizeof target - 1);
  if (n < 0) return 0;
  target[n] = '\0';
  if (under_workdir(target)) return 1;
  refused(op, target);
  errno = EACCES;
  return 0;
}
API int fchmod(int fd, mode_t mode) {
  if (armed() && !fd_in_workdir(fd, "fchmod")) return -1;
  return real_fchmod()(fd, mode);
}
API int fchown(int fd, uid_t uid, gid_t gid) {
  if (armed() && !fd_in_workdir(fd, "fchown")) return -1;
  return real_fchown()(fd, uid, gid);
}
API int utime(const char *path, const struct utimbuf *times) {
  GUARD_WRITE(AT_FDCWD, path, 0, "utime", -1);
  return real_utime()(path, times);
}
API int utimes(const char *path, const struct timeval times[2]) {
  GUARD_WRITE(AT_FDCWD, path, 0, "utime", -1);
  return real_utimes()(path, times);
}
API int lutimes(const char *path, const struct timeval times[2]) {
  GUARD_WRITE(AT_FDCWD, path, 1, "utime", -1);
  return real_lutimes()(path, times);
}
API int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags) {
  if (path) GUARD_WRITE(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) != 0, "utime", -1);
  else if (armed() && !fd_in_workdir(dirfd, "utime")) return -1;
  return real_utimensat()(dirfd, path, times, flags);
}
API int futimesat(int dirfd, const char *path, const struct timeval times[2]) {
  GUARD_WRITE(dirfd, path, 0, "utime", -1);
  return real_futimesat()(dirfd, path, times);
}
API int setxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
  GUARD_WRITE(AT_FDCWD, path, 0, "setxattr", -1);
  return real_setxattr()(path, name, value, size, flags);
}
API int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
  GUARD_WRITE(AT_FDCWD, path, 1, "setxattr", -1);
  return real_lsetxattr()(path, name, value, size, flags);
}
API int removexattr(const char *path, const char *name) {
  GUARD_WRITE(AT_FDCWD, path, 0, "removexattr", -1);
  return real_removexattr()(path, name);
}
API int lremovexattr(const char *path, const char *name) {
  GUARD_WRITE(AT_FDCWD, path, 1, "removexattr", -1);
  return real_lremovexattr()(path, name);
}
API int mkstemp(char *tmpl) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkstemp", -1);
  return real_mkstemp()(tmpl);
}
API int mkstemp64(char *tmpl) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkstemp", -1);
  return real_mkstemp64()(tmpl);
}
API int mkostemp(char *tmpl, int flags) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkstemp", -1);
  return real_mkostemp()(tmpl, flags);
}
API int mkostemps(char *tmpl, int suffixlen, int flags) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkstemp", -1);
  return real_mkostemps()(tmpl, suffixlen, flags);
}
API int mkstemps(char *tmpl, int suffixlen) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkstemp", -1);
  return real_mkstemps()(tmpl, suffixlen);
}
API char *mkdtemp(char *tmpl) {
  GUARD_WRITE(AT_FDCWD, tmpl, 1, "mkdtemp", NULL);
  return real_mkdtemp()(tmpl);
}
/* tmpfile() creates in P_tmpdir (/tmp), outside the workdir. */
API FILE *tmpfile(void) {
  if (armed()) {
    refused("tmpfile", P_tmpdir);
    errno = EACCES;
    return NULL;
  }
  return real_tmpfile()();
}
API FILE *tmpfile64(void) {
  if (armed()) {
    refused("tmpfile", P_tmpdir);
    errno = EACCES;
    return NULL;
  }
  return real_tmpfile64()();
}
