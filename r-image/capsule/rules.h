/*
 * The capsule's table of refused system calls (rules.c, its rows generated from
 * layers/rules/capabilities.json into capabilities.gen.h), and the seccomp program built from it
 * (seccomp-program.c). Both are pure data and pure functions, so a test can link them alone.
 */
#ifndef JUBE_CAPSULE_RULES_H
#define JUBE_CAPSULE_RULES_H
#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "capabilities.gen.h"

/* The capability categories, in capabilities.json's order. */
#define CATEGORY_ENUM(id, name, does, message) id,
enum capability_category { CAPABILITY_CATEGORIES(CATEGORY_ENUM) CATEGORY_COUNT };
#undef CATEGORY_ENUM

/* A row that names libc functions but no system call of its own. */
#define NO_SYSCALL (-1L)

/* Where a row applies once armed. */
enum rule_layer {
  IN_KERNEL = 1,  /* the seccomp filter, where the kernel accepts it */
  IN_WRAPPER = 2, /* the syscall() wrapper of the interposition layer */
};

/* When a refused call is allowed after all: the argument checks. */
enum rule_check {
  CHECK_NONE,       /* always refused */
  CHECK_THREAD,     /* allowed when the first argument has CLONE_THREAD (a thread, not a process) */
  CHECK_SELF,       /* allowed when the first argument is this process (a signal to itself) */
  CHECK_READ_LIMIT, /* allowed when the third argument (a new limit) is NULL and the first is 0 or self */
};

struct syscall_rule {
  long nr;               /* the system call, or NO_SYSCALL */
  const char *name;      /* for refusal lines and tests */
  enum capability_category category;
  unsigned layers;       /* enum rule_layer bits */
  enum rule_check check;
  int err;               /* errno of a refusal: EPERM, or ENOSYS where libc must fall back (clone3) */
  const char *const *symbols; /* libc functions that dlsym/dlvsym never hand out once armed */
};

extern const struct syscall_rule SYSCALL_RULES[];
extern const size_t SYSCALL_RULE_COUNT;

/* The row for `nr` that applies in `layer`, or NULL. */
const struct syscall_rule *syscall_rule(long nr, unsigned layer);
/* 1 when the rule lets this call through (its check passes), 0 when it refuses it. */
int rule_allows(const struct syscall_rule *rule, long a0, long a2, long self);
/* 1 when some row refuses `name` to dlsym. */
int denied_symbol(const char *name);

/*
 * The seccomp program of the IN_KERNEL rows for a process `self` on architecture `arch`
 * (AUDIT_ARCH_*), written to `out` (room for `max` instructions). Returns its length, or -E2BIG.
 * `x32` also refuses the x32 ABI's numbers (x86_64).
 */
int seccomp_program(const struct syscall_rule *rules, size_t count, uint32_t arch, int x32, uint32_t self,
                    struct sock_filter *out, size_t max);

#endif
