/*
 * jube-r capsule: what its parts share (see capsule.c for what the capsule is and does). Each unit
 * includes the system headers it uses itself; this one only what its own declarations need.
 */
#ifndef JUBE_CAPSULE_H
#define JUBE_CAPSULE_H
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "rules.h"

#define API __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))
#define MAX_ROOTS 64
/* The arming report's size: the runner passes a character buffer of REPORT_SIZE - 1. */
#define REPORT_SIZE 512

/*
 * Defences a control test may turn off one at a time, to show the step each one stops succeeding
 * without it (JUBE_R_CAPSULE_OFF=dispatch,routines,...; a deployed handler refuses to set it).
 */
enum defence { DEFENCE_DISPATCH = 1, DEFENCE_ROUTINES = 2, DEFENCE_DLOPEN = 4, DEFENCE_GOT = 8, DEFENCE_PROC = 16 };

/*
 * The policy pages are whole pages of their own, so sealing them read-only touches nothing else.
 * 64 KiB covers every page size Linux uses on x86_64 and aarch64 (4, 16, 64 KiB); arming checks
 * the real one.
 */
#define POLICY_ALIGN 65536

/*
 * The policy: filled at load (capsule.c) and at arming, then sealed read-only, the "armed"
 * decision included. It is one static object of this library, addressed relative to the code
 * (hidden visibility, no pointer to it anywhere), so no writable word leads to it or decides
 * whether the capsule is armed: clearing any writable word of the library leaves it armed.
 */
struct __attribute__((aligned(POLICY_ALIGN))) policy {
  int armed;
  int sealed; /* the pages are read-only: what arming reports as "preload=armed" */
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
  char r_modules[PATH_MAX]; /* R_HOME/modules, resolved */
  int bind_now;             /* LD_BIND_NOW was set when the process started: every object bound at load */
  int off;                  /* enum defence bits turned off (JUBE_R_CAPSULE_OFF: test controls only) */
  uint64_t token_key[2];    /* the key of the opaque address tokens (routines.c), drawn at arming */
  char report[REPORT_SIZE];
};

extern struct policy capsule_policy HIDDEN;

static inline int armed(void) { return capsule_policy.armed; }

/* Lists (policy.c). */
extern const char *const SYSTEM_READ_ROOTS[] HIDDEN;
extern const char *const SYSTEM_DL_ROOTS[] HIDDEN;
extern const char *const WRITABLE_FILES[] HIDDEN;
extern const char *const STANDARD_STREAMS[] HIDDEN;
int in_list(const char *name, const char *const *list);
void refused(const char *what, const char *detail);
const char *capability_does(enum capability_category category);
const char *capability_message(enum capability_category category);
int defence_off(enum defence defence);
int package_object(const char *canonical);
int r_module(const char *canonical);

/*
 * The real functions (real.c): dlsym itself comes from libc's symbol table. These caches are
 * writable, and nothing in them decides anything: a cleared one is resolved again, and every
 * interposed function consults the sealed policy before it forwards.
 */
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
dlsym_fn libc_dlsym(void);
dlvsym_fn libc_dlvsym(void);
void *next_symbol(const char *name);

/* Resolves `name` past this library, again whenever the cache is clear; aborts if libc lacks it
 * (cannot happen on glibc). */
#define REAL(ret, name, params)                                   \
  typedef ret(*name##_fn) params;                                 \
  static name##_fn real_##name(void) {                            \
    static name##_fn fn;                                          \
    if (!fn) {                                                    \
      fn = (name##_fn)next_symbol(#name);                         \
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
int check_lookup(int dirfd, const char *path, int nofollow, const char *op, char *out);
int lookup_allowed(const char *canonical);
ssize_t capsule_readlink(const char *path, char *buf, size_t size);
char *capsule_realpath(const char *path, char *out);
long capsule_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
int capsule_open_path(const char *path);
int capsule_regular_file(const char *path);

/* Kernel layers (kernel.c): > 0 when installed, -errno otherwise. */
int install_landlock(void);
const char *landlock_status(int abi_or_error, char *buf, size_t size);
int install_seccomp(void);

/* The capability rows at R's dispatch table (dispatch.c): 1 patched, 0 not an R process, -1 failed.
 * `deadline_seconds`: from now, the latest any time limit may reach (0: none). */
int dispatch_arm(double deadline_seconds, int patch, char *report, size_t size);
/* PLT slots (relro.c): 1 sealed, 0 off, -1 failed; and after a later load. */
int got_seal_all(char *report, size_t size);
void got_seal_new(void);

/* Loading (capsule.c). */
void capsule_load(void);

#endif
