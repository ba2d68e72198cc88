/*
 * jube-r capsule: what its parts share (see capsule.c for what the capsule is and does).
 */
#ifndef JUBE_CAPSULE_H
#define JUBE_CAPSULE_H
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <netdb.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <utime.h>
#include <wordexp.h>

#define API __attribute__((visibility("default")))
#define MAX_ROOTS 64

/* The policy, filled at load (capsule.c) and at arming, then made read-only. */
struct policy {
  int armed;
  pid_t pid;
  int log;
  int kernel_off;
  char workdir[PATH_MAX];
  size_t workdir_len;
  char proc_self[64]; /* "/proc/<pid>" */
  int n_read;
  char read_roots[MAX_ROOTS][PATH_MAX];
  int n_dl;
  char dl_roots[MAX_ROOTS][PATH_MAX];
  uintptr_t libr_base; /* R's shared library: the caller whose symbol lookups are restricted */
  char report[256];
};

extern struct policy *P;

static inline int armed(void) { return P && P->armed; }

/* Lists (policy.c). */
extern const char *const SYSTEM_READ_ROOTS[];
extern const char *const SYSTEM_DL_ROOTS[];
extern const char *const WRITABLE_FILES[];
extern const char *const STANDARD_STREAMS[];
extern const char *const C_RUNTIME_OBJECTS[];
extern const char *const DENIED_SYMBOLS[];
int in_list(const char *name, const char *const *list);
int starts_with_any(const char *name, const char *const *list);
void refused(const char *what, const char *detail);

/* The real functions (real.c): dlsym itself comes from libc's symbol table. */
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
extern dlsym_fn real_dlsym;
extern dlvsym_fn real_dlvsym;
void resolve_dl(void);

/* Resolves `name` past this library, once; aborts if libc lacks it (cannot happen on glibc). */
#define REAL(ret, name, params)                                   \
  typedef ret(*name##_fn) params;                                 \
  static name##_fn real_##name(void) {                            \
    static name##_fn fn;                                          \
    if (!fn) {                                                    \
      resolve_dl();                                               \
      fn = (name##_fn)real_dlsym(RTLD_NEXT, #name);               \
      if (!fn) abort();                                           \
    }                                                             \
    return fn;                                                    \
  }

/* Refuses an operation once armed: logs it, sets errno, returns `fail`. */
#define DENY(op, fail, err)     \
  do {                          \
    if (armed()) {              \
      refused(op, NULL);        \
      errno = err;              \
      return fail;              \
    }                           \
  } while (0)

/* Paths (paths.c). */
int under(const char *path, const char *root);
int under_workdir(const char *canonical);
int readable(const char *canonical);
int writable(const char *canonical);
int loadable(const char *canonical);
int absolute(int dirfd, const char *path, char *out);
int canonical(int dirfd, const char *path, int nofollow, char *out);
int check_path(int dirfd, const char *path, int write, int nofollow, const char *op, char *out);
ssize_t capsule_readlink(const char *path, char *buf, size_t size);
long capsule_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
int capsule_open_path(const char *path);

/* Kernel layers (kernel.c): > 0 when installed, -errno otherwise. */
int install_landlock(void);
const char *landlock_status(int abi_or_error, char *buf, size_t size);
int install_seccomp(void);

/* R's memory primitives and deserializers (rinternals.c): 1 patched, 0 not an R process, -1 failed. */
int rinternals_arm(char *report, size_t size);

/* Arming (capsule.c). */
void capsule_load(void);

#endif
