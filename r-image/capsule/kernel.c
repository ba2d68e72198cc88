/* The kernel layers, where the kernel accepts no_new_privs: Landlock and seccomp. */
#define _GNU_SOURCE
#include "capsule.h"

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
  for (int i = 0; i < P->n_read; i++) failed |= landlock_rule(ruleset, P->read_roots[i], read);
  failed |= landlock_rule(ruleset, P->proc_self, read);
  failed |= landlock_rule(ruleset, P->workdir, workdir);
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
#elif defined(__aarch64__)
#define CAPSULE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef CAPSULE_AUDIT_ARCH
#define MAX_FILTER 160
struct filter {
  struct sock_filter insns[MAX_FILTER];
  unsigned short n;
};
static void emit(struct filter *f, struct sock_filter insn) {
  if (f->n < MAX_FILTER) f->insns[f->n++] = insn;
}
#define LOW(arg) (offsetof(struct seccomp_data, args) + (arg) * sizeof(uint64_t))

/* Syscalls refused outright once armed (the argument-dependent ones follow). */
static const long SECCOMP_DENY[] = {
    SYS_execve, SYS_execveat,
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
    SYS_socket, SYS_socketpair, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp,
    SYS_tkill, SYS_pidfd_open, SYS_pidfd_send_signal, SYS_pidfd_getfd, SYS_unshare, SYS_setns,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_swapon, SYS_swapoff, SYS_reboot,
    SYS_kexec_load, SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_bpf,
    SYS_perf_event_open, SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, SYS_open_by_handle_at,
    SYS_name_to_handle_at, SYS_acct, SYS_quotactl, SYS_settimeofday, SYS_clock_settime,
    SYS_adjtimex, SYS_sethostname, SYS_setdomainname, SYS_syslog, SYS_memfd_create,
    SYS_personality, SYS_setrlimit, SYS_fanotify_init, SYS_mount_setattr, SYS_fsopen, SYS_fsmount,
    SYS_open_tree, SYS_move_mount,
#ifdef SYS_iopl
    SYS_iopl, SYS_ioperm,
#endif
};

int install_seccomp(void) {
  struct filter f = {.n = 0};
  const unsigned short deny_count = (unsigned short)(sizeof SECCOMP_DENY / sizeof SECCOMP_DENY[0]);
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAPSULE_AUDIT_ARCH, 1, 0));
  emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
  /* Layout after the simple denials: [clone3?] [clone] [kill-like x4] [prlimit64] allow,
   * then the argument checks and the two returns. Offsets below are counted from each jump. */
  unsigned short first = f.n;
#if defined(__x86_64__)
  /* x32 system calls (bit 30) would bypass the numbers below. */
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 0));
#endif
  for (unsigned short i = 0; i < deny_count; i++)
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SECCOMP_DENY[i], 0, 0));
  unsigned short deny_end = f.n;
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 0)); /* -> ENOSYS */
  unsigned short at_clone3 = (unsigned short)(f.n - 1);
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 0)); /* -> clone check */
  unsigned short at_clone = (unsigned short)(f.n - 1);
  const long signal_calls[] = {SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo};
  unsigned short at_signal[4];
  for (int i = 0; i < 4; i++) {
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)signal_calls[i], 0, 0));
    at_signal[i] = (unsigned short)(f.n - 1);
  }
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, 0, 0));
  unsigned short at_prlimit = (unsigned short)(f.n - 1);
  unsigned short at_allow_main = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  /* clone: threads only. */
  unsigned short clone_check = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW(0)));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 0));
  unsigned short clone_jset = (unsigned short)(f.n - 1);
  /* signals: only to this process (first argument is the pid or thread group id). */
  unsigned short signal_check = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW(0)));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)P->pid, 0, 0));
  unsigned short signal_jeq = (unsigned short)(f.n - 1);
  /* prlimit64: reading only (new limit NULL), of this process (pid 0 or self). */
  unsigned short prlimit_check = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW(2)));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
  unsigned short prlimit_low = (unsigned short)(f.n - 1);
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW(2) + 4));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
  unsigned short prlimit_high = (unsigned short)(f.n - 1);
  emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW(0)));
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
  unsigned short prlimit_pid0 = (unsigned short)(f.n - 1);
  emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)P->pid, 0, 0));
  unsigned short prlimit_self = (unsigned short)(f.n - 1);
  unsigned short ret_eperm = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
  unsigned short ret_enosys = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
  unsigned short ret_allow = f.n;
  emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  if (f.n >= MAX_FILTER) return -E2BIG;

  /* Fill in the jumps: a conditional jump's offsets count from the next instruction. */
#define TARGET(at, target) ((unsigned char)((target) - (at) - 1))
  for (unsigned short i = first; i < deny_end; i++) f.insns[i].jt = TARGET(i, ret_eperm);
  f.insns[at_clone3].jt = TARGET(at_clone3, ret_enosys);
  f.insns[at_clone].jt = TARGET(at_clone, clone_check);
  for (int i = 0; i < 4; i++) f.insns[at_signal[i]].jt = TARGET(at_signal[i], signal_check);
  f.insns[at_prlimit].jt = TARGET(at_prlimit, prlimit_check);
  (void)at_allow_main;
  f.insns[clone_jset].jt = TARGET(clone_jset, ret_allow);
  f.insns[clone_jset].jf = TARGET(clone_jset, ret_eperm);
  f.insns[signal_jeq].jt = TARGET(signal_jeq, ret_allow);
  f.insns[signal_jeq].jf = TARGET(signal_jeq, ret_eperm);
  f.insns[prlimit_low].jf = TARGET(prlimit_low, ret_eperm);
  f.insns[prlimit_high].jf = TARGET(prlimit_high, ret_eperm);
  f.insns[prlimit_pid0].jt = TARGET(prlimit_pid0, ret_allow);
  f.insns[prlimit_self].jt = TARGET(prlimit_self, ret_allow);
  f.insns[prlimit_self].jf = TARGET(prlimit_self, ret_eperm);
#undef TARGET
  if (ret_allow - first > 250) return -E2BIG; /* jump offsets are 8 bits */

  struct sock_fprog prog = {.len = f.n, .filter = f.insns};
  if (capsule_syscall(SYS_seccomp, (long)(SECCOMP_SET_MODE_FILTER), (long)(SECCOMP_FILTER_FLAG_TSYNC), (long)(&prog), 0, 0, 0) != 0) return -errno;
  return 1;
}
#else
int install_seccomp(void) { return -ENOSYS; }
#endif
