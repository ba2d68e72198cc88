/*
 * What the capsule refuses at the system-call level once armed. The rows are the `syscalls` of
 * layers/rules/capabilities.json (generated into capabilities.gen.h). Each row drives three things:
 * the seccomp filter (IN_KERNEL rows, seccomp-program.c), the syscall() wrapper (IN_WRAPPER rows,
 * processes.c) and dlsym's refusals (its symbols, dynload.c). A new row is refused in every layer it
 * names, and nowhere else has a list to forget.
 */
#define _GNU_SOURCE
#include "rules.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>

#define BOTH (IN_KERNEL | IN_WRAPPER)
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

const struct syscall_rule SYSCALL_RULES[] = {
#define JUBE_SYSCALL_ROWS
#include "capabilities.gen.h"
#undef JUBE_SYSCALL_ROWS
};

const size_t SYSCALL_RULE_COUNT = sizeof SYSCALL_RULES / sizeof SYSCALL_RULES[0];

const struct syscall_rule *syscall_rule(long nr, unsigned layer) {
  if (nr == NO_SYSCALL) return NULL;
  for (size_t i = 0; i < SYSCALL_RULE_COUNT; i++)
    if (SYSCALL_RULES[i].nr == nr && (SYSCALL_RULES[i].layers & layer)) return &SYSCALL_RULES[i];
  return NULL;
}

int rule_allows(const struct syscall_rule *rule, long a0, long a2, long self) {
  /* The kernel reads these arguments as 32-bit ints (flags, pid), as the seccomp program does. */
  uint32_t first = (uint32_t)a0;
  switch (rule->check) {
    case CHECK_THREAD: return (first & (uint32_t)CLONE_THREAD) != 0;
    case CHECK_SELF: return first == (uint32_t)self;
    case CHECK_READ_LIMIT: return a2 == 0 && (first == 0 || first == (uint32_t)self);
    case CHECK_NONE: break;
  }
  return 0;
}

int denied_symbol(const char *name) {
  for (size_t i = 0; i < SYSCALL_RULE_COUNT; i++)
    for (const char *const *s = SYSCALL_RULES[i].symbols; s && *s; s++)
      if (strcmp(name, *s) == 0) return 1;
  return 0;
}
