/*
 * The seccomp program, emitted from the rule table (rules.c). A tiny assembler with named targets:
 * every conditional jump only skips the one instruction after it (jt 0, jf 1), and the far jumps
 * are unconditional ones (32-bit offsets) resolved from the targets once the program is laid out,
 * so no offset is counted by hand and no program outgrows 8-bit jumps.
 */
#define _GNU_SOURCE
#include "rules.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>

enum target { T_EPERM, T_ENOSYS, T_ALLOW, T_KILL, T_THREAD, T_SELF, T_READ_LIMIT, T_COUNT };

#define MAX_JUMPS 512

struct assembler {
  struct sock_filter *out;
  size_t max, n;
  int overflow;
  size_t at[T_COUNT];     /* where each target starts */
  int placed[T_COUNT];
  size_t jump[MAX_JUMPS]; /* unconditional jumps still to resolve, and to where */
  enum target to[MAX_JUMPS];
  size_t jumps;
};

static void emit(struct assembler *a, struct sock_filter insn) {
  if (a->n < a->max) a->out[a->n] = insn;
  else a->overflow = 1;
  a->n++;
}

static void load(struct assembler *a, uint32_t offset) {
  emit(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
}

static void jump(struct assembler *a, enum target t) {
  if (a->jumps >= MAX_JUMPS) {
    a->overflow = 1;
    return;
  }
  a->jump[a->jumps] = a->n;
  a->to[a->jumps++] = t;
  emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0));
}

/* if (accumulator <op> k) goto t; otherwise the next instruction. */
static void goto_if(struct assembler *a, uint16_t op, uint32_t k, enum target t) {
  emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 1));
  jump(a, t);
}

/* if !(accumulator <op> k) goto t; otherwise the next instruction. */
static void goto_unless(struct assembler *a, uint16_t op, uint32_t k, enum target t) {
  emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, 1, 0));
  jump(a, t);
}

static void place(struct assembler *a, enum target t) {
  a->at[t] = a->n;
  a->placed[t] = 1;
}

static void ret(struct assembler *a, uint32_t action) { emit(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action)); }

#define ARG_LOW(i) ((uint32_t)(offsetof(struct seccomp_data, args) + (i) * sizeof(uint64_t)))
/* The upper half of a 64-bit argument (little-endian: x86_64 and aarch64). */
#define ARG_HIGH(i) (ARG_LOW(i) + 4u)

static enum target refusal(const struct syscall_rule *rule) {
  switch (rule->check) {
    case CHECK_THREAD: return T_THREAD;
    case CHECK_SELF: return T_SELF;
    case CHECK_READ_LIMIT: return T_READ_LIMIT;
    case CHECK_NONE: break;
  }
  return rule->err == ENOSYS ? T_ENOSYS : T_EPERM;
}

int seccomp_program(const struct syscall_rule *rules, size_t count, uint32_t arch, int x32, uint32_t self,
                    struct sock_filter *out, size_t max) {
  struct assembler a = {.out = out, .max = max};
  for (size_t i = 0; i < count; i++)
    if ((rules[i].layers & IN_KERNEL) && rules[i].err != EPERM && rules[i].err != ENOSYS) return -EINVAL;

  /* Another architecture's numbers mean other calls: nothing is allowed there. */
  load(&a, (uint32_t)offsetof(struct seccomp_data, arch));
  goto_unless(&a, BPF_JEQ, arch, T_KILL);
  load(&a, (uint32_t)offsetof(struct seccomp_data, nr));
  /* The x32 ABI (bit 30 of the number) would reach the same calls under other numbers. */
  if (x32) goto_if(&a, BPF_JGE, 0x40000000u, T_EPERM);
  for (size_t i = 0; i < count; i++)
    if ((rules[i].layers & IN_KERNEL) && rules[i].nr != NO_SYSCALL)
      goto_if(&a, BPF_JEQ, (uint32_t)rules[i].nr, refusal(&rules[i]));
  ret(&a, SECCOMP_RET_ALLOW);

  /* The argument checks: the same as rule_allows() (rules.c) reads them. */
  place(&a, T_THREAD);
  load(&a, ARG_LOW(0));
  goto_if(&a, BPF_JSET, (uint32_t)CLONE_THREAD, T_ALLOW);
  jump(&a, T_EPERM);

  place(&a, T_SELF);
  load(&a, ARG_LOW(0));
  goto_if(&a, BPF_JEQ, self, T_ALLOW);
  jump(&a, T_EPERM);

  place(&a, T_READ_LIMIT);
  load(&a, ARG_LOW(2));
  goto_unless(&a, BPF_JEQ, 0, T_EPERM);
  load(&a, ARG_HIGH(2));
  goto_unless(&a, BPF_JEQ, 0, T_EPERM);
  load(&a, ARG_LOW(0));
  goto_if(&a, BPF_JEQ, 0, T_ALLOW);
  goto_if(&a, BPF_JEQ, self, T_ALLOW);
  jump(&a, T_EPERM);

  place(&a, T_EPERM);
  ret(&a, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  place(&a, T_ENOSYS);
  ret(&a, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
  place(&a, T_ALLOW);
  ret(&a, SECCOMP_RET_ALLOW);
  place(&a, T_KILL);
  ret(&a, SECCOMP_RET_KILL_PROCESS);

  if (a.overflow || a.n > BPF_MAXINSNS) return -E2BIG;
  for (size_t j = 0; j < a.jumps; j++) {
    if (!a.placed[a.to[j]] || a.at[a.to[j]] <= a.jump[j]) return -EINVAL;
    /* An unconditional jump's offset counts from the instruction after it; all go forward. */
    a.out[a.jump[j]].k = (uint32_t)(a.at[a.to[j]] - a.jump[j] - 1);
  }
  return (int)a.n;
}
