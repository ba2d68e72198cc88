/* Programs, processes, signals and the other process-wide powers. */
#define _GNU_SOURCE
#include "capsule.h"

#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <wordexp.h>

/* ------------------------------------------------------------------------------------------- */
/* Programs and processes                                                                       */
/* ------------------------------------------------------------------------------------------- */



REAL(int, execve, (const char *, char *const[], char *const[]))
REAL(int, execv, (const char *, char *const[]))
REAL(int, execvp, (const char *, char *const[]))
REAL(int, execvpe, (const char *, char *const[], char *const[]))
REAL(int, fexecve, (int, char *const[], char *const[]))
REAL(int, execveat, (int, const char *, char *const[], char *const[], int))
REAL(int, posix_spawn, (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], char *const[]))
REAL(int, posix_spawnp, (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *, char *const[], char *const[]))
REAL(int, system, (const char *))
REAL(FILE *, popen, (const char *, const char *))
REAL(pid_t, fork, (void))
REAL(pid_t, vfork, (void))
REAL(pid_t, _Fork, (void))
REAL(int, daemon, (int, int))
REAL(int, wordexp, (const char *, wordexp_t *, int))

API int execve(const char *path, char *const argv[], char *const envp[]) {
  DENY("execve", -1, EACCES);
  return real_execve()(path, argv, envp);
}
API int execv(const char *path, char *const argv[]) {
  DENY("execv", -1, EACCES);
  return real_execv()(path, argv);
}
API int execvp(const char *file, char *const argv[]) {
  DENY("execvp", -1, EACCES);
  return real_execvp()(file, argv);
}
API int execvpe(const char *file, char *const argv[], char *const envp[]) {
  DENY("execvpe", -1, EACCES);
  return real_execvpe()(file, argv, envp);
}
API int fexecve(int fd, char *const argv[], char *const envp[]) {
  DENY("fexecve", -1, EACCES);
  return real_fexecve()(fd, argv, envp);
}
API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  DENY("execveat", -1, EACCES);
  return real_execveat()(dirfd, path, argv, envp, flags);
}

/* The variadic exec functions collect their arguments and go through execve/execvp. */
#define MAX_EXEC_ARGS 4096
#define COLLECT_ARGS(first, argv, envp_out)                                   \
  char *argv[MAX_EXEC_ARGS];                                                  \
  {                                                                           \
    va_list ap;                                                               \
    va_start(ap, first);                                                      \
    size_t n = 0;                                                             \
    argv[n++] = (char *)first;                                                \
    while (argv[n - 1] && n < MAX_EXEC_ARGS) argv[n++] = va_arg(ap, char *);  \
    if (argv[n - 1]) {                                                        \
      va_end(ap);                                                             \
      errno = E2BIG;                                                          \
      return -1;                                                              \
    }                                                                         \
    envp_out;                                                                 \
    va_end(ap);                                                               \
  }

API int execl(const char *path, const char *arg, ...) {
  DENY("execl", -1, EACCES);
  COLLECT_ARGS(arg, argv, (void)0);
  return real_execv()(path, argv);
}
API int execlp(const char *file, const char *arg, ...) {
  DENY("execlp", -1, EACCES);
  COLLECT_ARGS(arg, argv, (void)0);
  return real_execvp()(file, argv);
}
API int execle(const char *path, const char *arg, ...) {
  DENY("execle", -1, EACCES);
  char **envp = NULL;
  COLLECT_ARGS(arg, argv, envp = va_arg(ap, char **));
  return real_execve()(path, argv, envp);
}
API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  DENY("posix_spawn", EACCES, EACCES);
  return real_posix_spawn()(pid, path, actions, attr, argv, envp);
}
API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                     const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  DENY("posix_spawnp", EACCES, EACCES);
  return real_posix_spawnp()(pid, file, actions, attr, argv, envp);
}
/* system(NULL) asks whether a shell exists: none does, for this process. */
API int system(const char *command) {
  if (armed()) {
    refused("system", command);
    if (!command) return 0;
    errno = EACCES;
    return -1;
  }
  return real_system()(command);
}
API FILE *popen(const char *command, const char *type) {
  if (armed()) {
    refused("popen", command);
    errno = EACCES;
    return NULL;
  }
  return real_popen()(command, type);
}
API pid_t fork(void) {
  DENY("fork", -1, EAGAIN);
  return real_fork()();
}
API pid_t vfork(void) {
  /* vfork's child shares the caller's stack; forwarding through a call frame would corrupt it,
   * so it becomes fork (the semantics callers may rely on are a subset). */
  DENY("vfork", -1, EAGAIN);
  return real_fork()();
}
API pid_t _Fork(void) {
  DENY("_Fork", -1, EAGAIN);
  return real__Fork()();
}
API pid_t __fork(void) { return fork(); }
API int daemon(int nochdir, int noclose) {
  DENY("daemon", -1, EAGAIN);
  return real_daemon()(nochdir, noclose);
}
/* forkpty/openpty live in libc (glibc 2.34+) or libutil: forwarded by name. */
typedef pid_t (*forkpty_fn)(int *, char *, const void *, const void *);
API pid_t forkpty(int *amaster, char *name, const void *termp, const void *winp) {
  DENY("forkpty", -1, EAGAIN);
  forkpty_fn fn = (forkpty_fn)next_symbol("forkpty");
  if (!fn) {
    errno = ENOSYS;
    return -1;
  }
  return fn(amaster, name, termp, winp);
}
/* wordexp runs a shell for $(...) and `...`: never once armed. */
API int wordexp(const char *words, wordexp_t *result, int flags) {
  if (armed()) flags |= WRDE_NOCMD;
  return real_wordexp()(words, result, flags);
}

typedef int (*clone_fn)(int (*)(void *), void *, int, void *, ...);
API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...) {
  if (armed() && !(flags & CLONE_THREAD)) {
    refused("clone", NULL);
    errno = EPERM;
    return -1;
  }
  va_list ap;
  va_start(ap, arg);
  pid_t *ptid = va_arg(ap, pid_t *);
  void *tls = va_arg(ap, void *);
  pid_t *ctid = va_arg(ap, pid_t *);
  va_end(ap);
  clone_fn real = (clone_fn)next_symbol("clone");
  return real(fn, stack, flags, arg, ptid, tls, ctid);
}

/* ------------------------------------------------------------------------------------------- */
/* Signals                                                                                      */
/* ------------------------------------------------------------------------------------------- */

REAL(int, kill, (pid_t, int))
REAL(int, killpg, (pid_t, int))
REAL(int, sigqueue, (pid_t, int, const union sigval))

static int other_process(pid_t pid) { return pid != capsule_policy.pid && pid != 0; }

API int kill(pid_t pid, int sig) {
  /* kill(0, sig) is the whole process group: other processes of the run, if any existed. */
  if (armed() && (pid <= 0 || other_process(pid))) {
    refused("kill", NULL);
    errno = EPERM;
    return -1;
  }
  return real_kill()(pid, sig);
}
API int killpg(pid_t group, int sig) {
  DENY("killpg", -1, EPERM);
  return real_killpg()(group, sig);
}
API int sigqueue(pid_t pid, int sig, const union sigval value) {
  if (armed() && (pid <= 0 || other_process(pid))) {
    refused("sigqueue", NULL);
    errno = EPERM;
    return -1;
  }
  return real_sigqueue()(pid, sig, value);
}
typedef int (*tgkill_fn)(pid_t, pid_t, int);
API int tgkill(pid_t tgid, pid_t tid, int sig) {
  if (armed() && tgid != capsule_policy.pid) {
    refused("tgkill", NULL);
    errno = EPERM;
    return -1;
  }
  tgkill_fn fn = (tgkill_fn)next_symbol("tgkill");
  if (!fn) return (int)capsule_syscall(SYS_tgkill, (long)(tgid), (long)(tid), (long)(sig), 0, 0, 0);
  return fn(tgid, tid, sig);
}

/* syscall(): the numbers that would do what the wrappers refuse (the IN_WRAPPER rows of rules.c). */
REAL(long, syscall, (long, ...))
API long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (armed()) {
    const struct syscall_rule *rule = syscall_rule(nr, IN_WRAPPER);
    if (rule && !rule_allows(rule, a[0], a[2], capsule_policy.pid)) {
      refused("syscall", rule->name);
      errno = rule->err;
      return -1;
    }
  }
  return real_syscall()(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

REAL(long, ptrace, (int, ...))
API long ptrace(int request, ...) {
  va_list ap;
  va_start(ap, request);
  pid_t pid = va_arg(ap, pid_t);
  void *addr = va_arg(ap, void *);
  void *data = va_arg(ap, void *);
  va_end(ap);
  DENY("ptrace", -1, EPERM);
  return real_ptrace()(request, pid, addr, data);
}
REAL(ssize_t, process_vm_readv, (pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long, unsigned long))
REAL(ssize_t, process_vm_writev, (pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long, unsigned long))
API ssize_t process_vm_readv(pid_t pid, const struct iovec *l, unsigned long ln, const struct iovec *r, unsigned long rn, unsigned long flags) {
  DENY("process_vm_readv", -1, EPERM);
  return real_process_vm_readv()(pid, l, ln, r, rn, flags);
}
API ssize_t process_vm_writev(pid_t pid, const struct iovec *l, unsigned long ln, const struct iovec *r, unsigned long rn, unsigned long flags) {
  DENY("process_vm_writev", -1, EPERM);
  return real_process_vm_writev()(pid, l, ln, r, rn, flags);
}
REAL(int, unshare, (int))
REAL(int, setns, (int, int))
REAL(int, chroot, (const char *))
REAL(int, mount, (const char *, const char *, const char *, unsigned long, const void *))
REAL(int, memfd_create, (const char *, unsigned int))
REAL(int, shm_open, (const char *, int, mode_t))
REAL(int, setrlimit, (__rlimit_resource_t, const struct rlimit *))
REAL(int, prlimit, (pid_t, __rlimit_resource_t, const struct rlimit *, struct rlimit *))
API int unshare(int flags) {
  DENY("unshare", -1, EPERM);
  return real_unshare()(flags);
}
API int setns(int fd, int type) {
  DENY("setns", -1, EPERM);
  return real_setns()(fd, type);
}
API int chroot(const char *path) {
  DENY("chroot", -1, EPERM);
  return real_chroot()(path);
}
API int mount(const char *source, const char *target, const char *type, unsigned long flags, const void *data) {
  DENY("mount", -1, EPERM);
  return real_mount()(source, target, type, flags, data);
}
/* An anonymous file is a way to write an object and load it without touching the workdir. */
API int memfd_create(const char *name, unsigned int flags) {
  DENY("memfd_create", -1, EPERM);
  return real_memfd_create()(name, flags);
}
API int shm_open(const char *name, int flags, mode_t mode) {
  DENY("shm_open", -1, EACCES);
  return real_shm_open()(name, flags, mode);
}
/* The rlimits are the handler's; a process running as root could otherwise raise them. */
API int setrlimit(__rlimit_resource_t resource, const struct rlimit *limit) {
  DENY("setrlimit", -1, EPERM);
  return real_setrlimit()(resource, limit);
}
API int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *limit, struct rlimit *old) {
  if (armed() && (limit || (pid != 0 && pid != capsule_policy.pid))) {
    refused("prlimit", NULL);
    errno = EPERM;
    return -1;
  }
  return real_prlimit()(pid, resource, limit, old);
}

/* ------------------------------------------------------------------------------------------- */
/* Inter-process communication that outlives the process                                        */
/* ------------------------------------------------------------------------------------------- */

/* System V IPC objects and POSIX message queues are kernel objects: no process kill, file sweep
 * or /tmp wipe removes them, so a run could leave data in one for the next run to read. */
REAL(int, msgget, (key_t, int))
REAL(int, msgsnd, (int, const void *, size_t, int))
REAL(ssize_t, msgrcv, (int, void *, size_t, long, int))
REAL(int, msgctl, (int, int, struct msqid_ds *))
REAL(int, semget, (key_t, int, int))
REAL(int, semop, (int, struct sembuf *, size_t))
REAL(int, semtimedop, (int, struct sembuf *, size_t, const struct timespec *))
REAL(int, semctl, (int, int, int, ...))
REAL(int, shmget, (key_t, size_t, int))
REAL(void *, shmat, (int, const void *, int))
REAL(int, shmdt, (const void *))
REAL(int, shmctl, (int, int, struct shmid_ds *))
REAL(mqd_t, mq_open, (const char *, int, ...))
REAL(mqd_t, __mq_open_2, (const char *, int))
REAL(int, mq_unlink, (const char *))
REAL(int, mq_send, (mqd_t, const char *, size_t, unsigned int))
REAL(int, mq_timedsend, (mqd_t, const char *, size_t, unsigned int, const struct timespec *))
REAL(ssize_t, mq_receive, (mqd_t, char *, size_t, unsigned int *))
REAL(ssize_t, mq_timedreceive, (mqd_t, char *, size_t, unsigned int *, const struct timespec *))
REAL(int, mq_notify, (mqd_t, const struct sigevent *))
REAL(int, mq_getattr, (mqd_t, struct mq_attr *))
REAL(int, mq_setattr, (mqd_t, const struct mq_attr *, struct mq_attr *))

API int msgget(key_t key, int flags) {
  DENY("msgget", -1, EPERM);
  return real_msgget()(key, flags);
}
API int msgsnd(int id, const void *msg, size_t size, int flags) {
  DENY("msgsnd", -1, EPERM);
  return real_msgsnd()(id, msg, size, flags);
}
API ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags) {
  DENY("msgrcv", -1, EPERM);
  return real_msgrcv()(id, msg, size, type, flags);
}
API int msgctl(int id, int cmd, struct msqid_ds *buf) {
  DENY("msgctl", -1, EPERM);
  return real_msgctl()(id, cmd, buf);
}
API int semget(key_t key, int n, int flags) {
  DENY("semget", -1, EPERM);
  return real_semget()(key, n, flags);
}
API int semop(int id, struct sembuf *ops, size_t n) {
  DENY("semop", -1, EPERM);
  return real_semop()(id, ops, n);
}
API int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *timeout) {
  DENY("semtimedop", -1, EPERM);
  return real_semtimedop()(id, ops, n, timeout);
}
/* The fourth argument, when there is one, is a union semun: one machine word. */
API int semctl(int id, int num, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  unsigned long arg = va_arg(ap, unsigned long);
  va_end(ap);
  DENY("semctl", -1, EPERM);
  return real_semctl()(id, num, cmd, arg);
}
API int shmget(key_t key, size_t size, int flags) {
  DENY("shmget", -1, EPERM);
  return real_shmget()(key, size, flags);
}
API void *shmat(int id, const void *addr, int flags) {
  DENY("shmat", (void *)-1, EPERM);
  return real_shmat()(id, addr, flags);
}
API int shmdt(const void *addr) {
  DENY("shmdt", -1, EPERM);
  return real_shmdt()(addr);
}
API int shmctl(int id, int cmd, struct shmid_ds *buf) {
  DENY("shmctl", -1, EPERM);
  return real_shmctl()(id, cmd, buf);
}
API mqd_t mq_open(const char *name, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
  struct mq_attr *attr = (flags & O_CREAT) ? va_arg(ap, struct mq_attr *) : NULL;
  va_end(ap);
  DENY("mq_open", (mqd_t)-1, EPERM);
  return real_mq_open()(name, flags, mode, attr);
}
API mqd_t __mq_open_2(const char *name, int flags) {
  DENY("mq_open", (mqd_t)-1, EPERM);
  return real___mq_open_2()(name, flags);
}
API int mq_unlink(const char *name) {
  DENY("mq_unlink", -1, EPERM);
  return real_mq_unlink()(name);
}
API int mq_send(mqd_t q, const char *msg, size_t size, unsigned int priority) {
  DENY("mq_send", -1, EPERM);
  return real_mq_send()(q, msg, size, priority);
}
API int mq_timedsend(mqd_t q, const char *msg, size_t size, unsigned int priority, const struct timespec *timeout) {
  DENY("mq_timedsend", -1, EPERM);
  return real_mq_timedsend()(q, msg, size, priority, timeout);
}
API ssize_t mq_receive(mqd_t q, char *msg, size_t size, unsigned int *priority) {
  DENY("mq_receive", -1, EPERM);
  return real_mq_receive()(q, msg, size, priority);
}
API ssize_t mq_timedreceive(mqd_t q, char *msg, size_t size, unsigned int *priority, const struct timespec *timeout) {
  DENY("mq_timedreceive", -1, EPERM);
  return real_mq_timedreceive()(q, msg, size, priority, timeout);
}
API int mq_notify(mqd_t q, const struct sigevent *event) {
  DENY("mq_notify", -1, EPERM);
  return real_mq_notify()(q, event);
}
API int mq_getattr(mqd_t q, struct mq_attr *attr) {
  DENY("mq_getattr", -1, EPERM);
  return real_mq_getattr()(q, attr);
}
API int mq_setattr(mqd_t q, const struct mq_attr *attr, struct mq_attr *old) {
  DENY("mq_setattr", -1, EPERM);
  return real_mq_setattr()(q, attr, old);
}
