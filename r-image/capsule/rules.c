/*
 * The one table of what the capsule refuses at the system-call level once armed. Each row drives
 * three things: the seccomp filter (IN_KERNEL rows, seccomp-program.c), the syscall() wrapper
 * (IN_WRAPPER rows, processes.c) and dlsym's refusals (its symbols, dynload.c). A new row is
 * refused in every layer it names, and nowhere else has a list to forget.
 */
#define _GNU_SOURCE
#include "rules.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>

#define BOTH (IN_KERNEL | IN_WRAPPER)
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* A row refused in `layers` with EPERM and no argument check. */
#define DENY_ROW(call, layers, ...) {SYS_##call, #call, layers, CHECK_NONE, EPERM, NAMES(__VA_ARGS__)}
#define DENY_ONLY(call, layers) {SYS_##call, #call, layers, CHECK_NONE, EPERM, NULL}

const struct syscall_rule SYSCALL_RULES[] = {
    /* Programs: every way a new program starts goes through execve in the end. */
    DENY_ROW(execve, BOTH, "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "system",
             "popen", "posix_spawn", "posix_spawnp", "wordexp"),
    DENY_ROW(execveat, BOTH, "execveat", "fexecve"),
    /* Processes: threads only. clone3 answers ENOSYS so libc falls back to clone, which is checked. */
    {SYS_clone, "clone", BOTH, CHECK_THREAD, EPERM, NAMES("clone", "fork", "vfork", "_Fork", "__fork", "daemon", "forkpty")},
#ifdef SYS_clone3
    {SYS_clone3, "clone3", BOTH, CHECK_NONE, ENOSYS, NAMES("clone3")},
#endif
#ifdef SYS_fork
    DENY_ONLY(fork, BOTH),
#endif
#ifdef SYS_vfork
    DENY_ONLY(vfork, BOTH),
#endif
    /* Network. The resolver opens its sockets inside libc, so its entry points are refused by name. */
    DENY_ROW(socket, BOTH, "socket", "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyname_r",
             "gethostbyname2_r", "gethostbyaddr", "getnameinfo", "res_query", "res_search", "res_send", "res_nquery",
             "res_nsearch", "res_nsend", "sendto", "sendmsg"),
    DENY_ROW(socketpair, BOTH, "socketpair"),
    DENY_ROW(connect, BOTH, "connect"),
    DENY_ROW(bind, BOTH, "bind"),
    DENY_ROW(listen, BOTH, "listen"),
    DENY_ROW(accept, BOTH, "accept"),
    DENY_ROW(accept4, BOTH, "accept4"),
    /* Signals and other processes: only this process may be signalled. */
    {SYS_kill, "kill", BOTH, CHECK_SELF, EPERM, NAMES("kill", "killpg", "sigqueue")},
    {SYS_tgkill, "tgkill", BOTH, CHECK_SELF, EPERM, NAMES("tgkill")},
    {SYS_rt_sigqueueinfo, "rt_sigqueueinfo", BOTH, CHECK_SELF, EPERM, NULL},
    {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", BOTH, CHECK_SELF, EPERM, NULL},
    DENY_ROW(tkill, BOTH, "tkill"),
    DENY_ROW(pidfd_open, BOTH, "pidfd_open"),
    DENY_ROW(pidfd_send_signal, BOTH, "pidfd_send_signal"),
    DENY_ROW(pidfd_getfd, BOTH, "pidfd_getfd"),
    DENY_ROW(ptrace, BOTH, "ptrace"),
    DENY_ROW(process_vm_readv, BOTH, "process_vm_readv"),
    DENY_ROW(process_vm_writev, BOTH, "process_vm_writev"),
    DENY_ROW(kcmp, BOTH, "kcmp"),
    /* Inter-process communication that outlives the process: System V IPC and POSIX queues are
     * kernel objects that no file cleanup removes, so a run could leave data for the next one. */
    DENY_ROW(msgget, BOTH, "msgget"),
    DENY_ROW(msgsnd, BOTH, "msgsnd"),
    DENY_ROW(msgrcv, BOTH, "msgrcv"),
    DENY_ROW(msgctl, BOTH, "msgctl"),
    DENY_ROW(semget, BOTH, "semget"),
    DENY_ROW(semop, BOTH, "semop"),
    DENY_ROW(semtimedop, BOTH, "semtimedop"),
    DENY_ROW(semctl, BOTH, "semctl"),
    DENY_ROW(shmget, BOTH, "shmget"),
    DENY_ROW(shmat, BOTH, "shmat"),
    DENY_ROW(shmdt, BOTH, "shmdt"),
    DENY_ROW(shmctl, BOTH, "shmctl"),
#ifdef SYS_ipc
    DENY_ONLY(ipc, BOTH),
#endif
    DENY_ROW(mq_open, BOTH, "mq_open", "__mq_open_2"),
    DENY_ROW(mq_unlink, BOTH, "mq_unlink"),
    DENY_ROW(mq_timedsend, BOTH, "mq_timedsend", "mq_send"),
    DENY_ROW(mq_timedreceive, BOTH, "mq_timedreceive", "mq_receive"),
    DENY_ROW(mq_notify, BOTH, "mq_notify"),
    DENY_ROW(mq_getsetattr, BOTH, "mq_getattr", "mq_setattr"),
    /* Namespaces, mounts and the machine. */
    DENY_ROW(unshare, BOTH, "unshare"),
    DENY_ROW(setns, BOTH, "setns"),
    DENY_ROW(mount, BOTH, "mount"),
    DENY_ROW(umount2, BOTH, "umount", "umount2"),
    DENY_ROW(pivot_root, BOTH, "pivot_root"),
    DENY_ROW(chroot, BOTH, "chroot"),
    DENY_ONLY(mount_setattr, BOTH),
    DENY_ONLY(fsopen, BOTH),
    DENY_ONLY(fsconfig, BOTH),
    DENY_ONLY(fsmount, BOTH),
    DENY_ONLY(fspick, BOTH),
    DENY_ONLY(open_tree, BOTH),
    DENY_ONLY(move_mount, BOTH),
    DENY_ONLY(swapon, BOTH),
    DENY_ONLY(swapoff, BOTH),
    DENY_ONLY(reboot, BOTH),
    DENY_ONLY(kexec_load, BOTH),
#ifdef SYS_kexec_file_load
    DENY_ONLY(kexec_file_load, BOTH),
#endif
    DENY_ONLY(init_module, BOTH),
    DENY_ONLY(finit_module, BOTH),
    DENY_ONLY(delete_module, BOTH),
    DENY_ROW(bpf, BOTH, "bpf"),
    DENY_ROW(perf_event_open, BOTH, "perf_event_open"),
    DENY_ROW(userfaultfd, BOTH, "userfaultfd"),
    DENY_ROW(keyctl, BOTH, "keyctl"),
    DENY_ROW(add_key, BOTH, "add_key"),
    DENY_ROW(request_key, BOTH, "request_key"),
    DENY_ROW(io_uring_setup, BOTH, "io_uring_setup"),
    DENY_ONLY(io_uring_enter, BOTH),
    DENY_ONLY(io_uring_register, BOTH),
    DENY_ROW(open_by_handle_at, BOTH, "open_by_handle_at"),
    DENY_ROW(name_to_handle_at, BOTH, "name_to_handle_at"),
    DENY_ONLY(acct, BOTH),
    DENY_ONLY(quotactl, BOTH),
    DENY_ONLY(settimeofday, BOTH),
    DENY_ONLY(clock_settime, BOTH),
    DENY_ONLY(adjtimex, BOTH),
    DENY_ONLY(clock_adjtime, BOTH),
    DENY_ONLY(sethostname, BOTH),
    DENY_ONLY(setdomainname, BOTH),
    DENY_ONLY(syslog, BOTH),
    DENY_ONLY(fanotify_init, BOTH),
#ifdef SYS_iopl
    DENY_ONLY(iopl, BOTH),
    DENY_ONLY(ioperm, BOTH),
#endif
    /* An anonymous file: a way to write an object and load it without touching the workdir. */
    DENY_ROW(memfd_create, BOTH, "memfd_create", "shm_open"),
    DENY_ROW(personality, BOTH, "personality"),
    /* The rlimits are the handler's: reading them is fine, raising them is not. */
    DENY_ROW(setrlimit, BOTH, "setrlimit", "setrlimit64"),
    {SYS_prlimit64, "prlimit64", BOTH, CHECK_READ_LIMIT, EPERM, NAMES("prlimit", "prlimit64")},
    /* Identity. */
    DENY_ROW(setuid, BOTH, "setuid", "seteuid"),
    DENY_ROW(setgid, BOTH, "setgid", "setegid"),
    DENY_ROW(setreuid, BOTH, "setreuid"),
    DENY_ROW(setregid, BOTH, "setregid"),
    DENY_ROW(setresuid, BOTH, "setresuid"),
    DENY_ROW(setresgid, BOTH, "setresgid"),
    DENY_ROW(setgroups, BOTH, "setgroups"),
    /* Memory and the process's own controls: R needs these, so the kernel allows them; raw calls
     * through syscall() and lookups by name are refused (the capsule's own state is among them). */
    DENY_ROW(mprotect, IN_WRAPPER, "mprotect"),
    DENY_ROW(pkey_mprotect, IN_WRAPPER, "pkey_mprotect"),
    DENY_ROW(mmap, IN_WRAPPER, "mmap", "mmap64", "mremap"),
    DENY_ROW(prctl, IN_WRAPPER, "prctl"),
    DENY_ROW(seccomp, IN_WRAPPER, "seccomp"),
    /* Files: the interposed functions check paths; syscall() would skip the check. Landlock is
     * the kernel's file layer, so seccomp leaves these alone. */
#ifdef SYS_open
    DENY_ONLY(open, IN_WRAPPER),
    DENY_ONLY(creat, IN_WRAPPER),
    DENY_ONLY(rename, IN_WRAPPER),
    DENY_ONLY(link, IN_WRAPPER),
    DENY_ONLY(symlink, IN_WRAPPER),
    DENY_ONLY(unlink, IN_WRAPPER),
    DENY_ONLY(rmdir, IN_WRAPPER),
    DENY_ONLY(mkdir, IN_WRAPPER),
    DENY_ONLY(mknod, IN_WRAPPER),
    DENY_ONLY(chmod, IN_WRAPPER),
    DENY_ONLY(chown, IN_WRAPPER),
    DENY_ONLY(lchown, IN_WRAPPER),
    DENY_ONLY(stat, IN_WRAPPER),
    DENY_ONLY(lstat, IN_WRAPPER),
    DENY_ONLY(access, IN_WRAPPER),
    DENY_ONLY(readlink, IN_WRAPPER),
#endif
    DENY_ONLY(truncate, IN_WRAPPER),
    DENY_ONLY(openat, IN_WRAPPER),
    DENY_ONLY(openat2, IN_WRAPPER),
#ifdef SYS_renameat
    DENY_ONLY(renameat, IN_WRAPPER), /* newer architectures (aarch64) have renameat2 only */
#endif
    DENY_ONLY(renameat2, IN_WRAPPER),
    DENY_ONLY(linkat, IN_WRAPPER),
    DENY_ONLY(symlinkat, IN_WRAPPER),
    DENY_ONLY(unlinkat, IN_WRAPPER),
    DENY_ONLY(mkdirat, IN_WRAPPER),
    DENY_ONLY(mknodat, IN_WRAPPER),
    DENY_ONLY(fchmodat, IN_WRAPPER),
    DENY_ONLY(fchownat, IN_WRAPPER),
    DENY_ONLY(newfstatat, IN_WRAPPER),
    /* libuv and others fall back from a refused statx to stat(), which is checked. */
    DENY_ONLY(statx, IN_WRAPPER),
    DENY_ONLY(faccessat, IN_WRAPPER),
    DENY_ONLY(faccessat2, IN_WRAPPER),
    DENY_ONLY(readlinkat, IN_WRAPPER),
    /* Names with no system call of their own: loading code, finding symbols, the raw call itself
     * and the capsule's arming (arming twice changes nothing, but nothing needs to find it). */
    {NO_SYSCALL, "lookups", 0, CHECK_NONE, EPERM,
     NAMES("syscall", "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dl_iterate_phdr",
           "jube_capsule_arm")},
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
