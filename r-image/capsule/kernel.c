/* The kernel layers, where the kernel accepts no_new_privs: Landlock and seccomp. */
#define _GNU_SOURCE
#include "capsule.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------- */
/* Kernel layers, where the kernel accepts no_new_privs: Landlock and seccomp                    */
/* ------------------------------------------------------------------------------------------- */

/* The Landlock ABI as the kernel defines it, independent of the build host's headers (the ABI
 * in force is asked at run time; newer rights are only used where the kernel has them). */
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

const char *landlock_status(int abi_or_error, char *buf, size_t size) {
  if (abi_or_error > 0) snprintf(buf, size, "landlock=abi%d", abi_or_error);
  else snprintf(buf, size, "landlock=unavailable(%s)", strerror(-abi_or_error));
  return buf;
}

static int landlock_rule(int ruleset, const char *path, uint64_t access) {
  int fd = capsule_open_path(path);
  if (fd < 0) return 0; /* absent on this system: nothing to allow */
  struct stat st;
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
    /* Rules on files accept only file rights. */
    access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
              LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
  }
  struct landlock_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
  long rc = capsule_syscall(SYS_landlock_add_rule, (long)(ruleset), (long)(LANDLOCK_RULE_PATH_BENEATH), (long)(&attr), 0, 0, 0);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc == 0 ? 0 : -1;
}

/* Returns the ABI in force (> 0) or -errno. */
int install_landlock(void) {
  long abi = capsule_syscall(SYS_landlock_create_ruleset, (long)(NULL), 0, (long)(LANDLOCK_CREATE_RULESET_VERSION), 0, 0, 0);
  if (abi < 1) return -errno;
  uint64_t fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) fs |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) fs |= LL_FS_TRUNCATE;
  struct ll_ruleset_attr attr = {.handled_access_fs = fs};
  size_t attr_size = sizeof attr.handled_access_fs;
  if (abi >= 4) {
    attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP; /* no rule grants any port */
    attr_size = offsetof(struct ll_ruleset_attr, scoped);
  }
  if (abi >= 6) {
    attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    attr_size = sizeof attr;
  }
  int ruleset = (int)capsule_syscall(SYS_landlock_create_ruleset, (long)(&attr), (long)(attr_size), 0, 0, 0, 0);
  if (ruleset < 0) return -errno;
  uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  uint64_t workdir = fs & ~LANDLOCK_ACCESS_FS_EXECUTE & ~LANDLOCK_ACCESS_FS_MAKE_CHAR & ~LANDLOCK_ACCESS_FS_MAKE_BLOCK;
  int failed = 0;
  for (int i = 0; i < capsule_policy.n_read; i++) failed |= landlock_rule(ruleset, capsule_policy.read_roots[i], read);
  failed |= landlock_rule(ruleset, capsule_policy.proc_self, read);
  failed |= landlock_rule(ruleset, capsule_policy.workdir, workdir);
  failed |= landlock_rule(ruleset, "/dev/null", read | LANDLOCK_ACCESS_FS_WRITE_FILE);
  if (failed || capsule_syscall(SYS_landlock_restrict_self, (long)(ruleset), 0, 0, 0, 0, 0) != 0) {
    int saved = errno;
    close(ruleset);
    return -(saved ? saved : EINVAL);
  }
  close(ruleset);
  return (int)abi;
}

#if defined(__x86_64__)
#define CAPSULE_AUDIT_ARCH AUDIT_ARCH_X86_64
#define CAPSULE_X32 1
#elif defined(__aarch64__)
#define CAPSULE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define CAPSULE_X32 0
#endif

#ifdef CAPSULE_AUDIT_ARCH
/* Room for every row of the table twice over; the emitter reports a program that does not fit. */
#define MAX_FILTER 1024

/* The IN_KERNEL rows of the rule table (rules.c) as a seccomp filter, for every thread. */
int install_seccomp(void) {
  struct sock_filter insns[MAX_FILTER];
  int n = seccomp_program(SYSCALL_RULES, SYSCALL_RULE_COUNT, CAPSULE_AUDIT_ARCH, CAPSULE_X32,
                          (uint32_t)capsule_policy.pid, insns, MAX_FILTER);
  if (n < 0) return n;
  struct sock_fprog prog = {.len = (unsigned short)n, .filter = insns};
  if (capsule_syscall(SYS_seccomp, (long)(SECCOMP_SET_MODE_FILTER), (long)(SECCOMP_FILTER_FLAG_TSYNC), (long)(&prog), 0, 0, 0) != 0) return -errno;
  return 1;
}
#else
int install_seccomp(void) { return -ENOSYS; }
#endif
