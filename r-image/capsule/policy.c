/* The capsule's policy: what it allows once armed, as data. */
#define _GNU_SOURCE
#include "capsule.h"

/* ------------------------------------------------------------------------------------------- */
/* Policy: filled at load and at arming, then made read-only.                                   */
/* ------------------------------------------------------------------------------------------- */

struct policy *P;

/* System places R needs to read once armed. Everything else (other workdirs, /app, the repository,
 * /home, /root, other processes' /proc entries) is refused. */
const char *const SYSTEM_READ_ROOTS[] = {
    "/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32", "/usr/local/lib/R",
    "/usr/share/R", "/usr/share/zoneinfo", "/usr/share/fonts", "/usr/share/fontconfig",
    "/usr/share/locale", "/usr/share/i18n", "/usr/share/X11/locale", "/usr/local/share/fonts",
    "/etc/R", "/etc/fonts", "/etc/localtime", "/etc/timezone", "/etc/ld.so.cache",
    "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/locale.alias", "/etc/mime.types",
    "/var/cache/fontconfig", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
    "/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/loadavg", "/proc/filesystems",
    "/proc/sys/kernel/osrelease", "/proc/sys/vm/overcommit_memory", "/sys/devices/system/cpu",
    "/sys/fs/cgroup", NULL};

/* Where shared objects may come from: system library directories (plus R's, given at load). */
const char *const SYSTEM_DL_ROOTS[] = {"/usr/lib", "/usr/lib64", "/usr/lib32", "/lib",
                                              "/lib64", "/lib32", "/usr/local/lib/R", NULL};

/* Writable outside the workdir: only the bit bucket, and the standard streams by name. */
const char *const WRITABLE_FILES[] = {"/dev/null", NULL};
const char *const STANDARD_STREAMS[] = {"/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", NULL};

/* The C runtime: R's symbol lookups must never resolve into these. */
const char *const C_RUNTIME_OBJECTS[] = {"libc.so", "ld-linux", "ld64.so", "libdl.so",
                                                "libpthread.so", "librt.so", "libutil.so",
                                                "libresolv.so", "libanl.so", "libnss_", NULL};

/* Never resolvable by name once armed, from any caller. */
const char *const DENIED_SYMBOLS[] = {
    "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve", "execveat",
    "posix_spawn", "posix_spawnp", "system", "popen", "fork", "vfork", "_Fork", "__fork", "clone",
    "clone3", "daemon", "forkpty", "wordexp", "syscall", "ptrace", "socket", "socketpair",
    "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "getaddrinfo",
    "gethostbyname", "gethostbyname2", "gethostbyname_r", "gethostbyname2_r", "gethostbyaddr", "getnameinfo",
    "res_query", "res_search", "res_send", "res_nquery", "res_nsearch", "res_nsend", "kill",
    "killpg", "sigqueue", "tgkill", "tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    "process_vm_readv", "process_vm_writev", "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr",
    "dladdr1", "dlinfo", "dl_iterate_phdr", "mprotect", "pkey_mprotect", "mmap", "mmap64",
    "mremap", "prctl", "seccomp", "unshare", "setns", "mount", "umount", "umount2", "chroot",
    "pivot_root", "setrlimit", "setrlimit64", "prlimit", "prlimit64", "setuid", "setgid",
    "seteuid", "setegid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "personality", "memfd_create", "shm_open", "open_by_handle_at", "name_to_handle_at",
    "io_uring_setup", "jube_capsule_arm", NULL};

int in_list(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

int starts_with_any(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strncmp(name, *list, strlen(*list)) == 0) return 1;
  return 0;
}

void refused(const char *what, const char *detail) {
  if (P && P->log) {
    char line[PATH_MAX + 128];
    int n = snprintf(line, sizeof line, "jube-r capsule: refused %s %s\n", what, detail ? detail : "");
    if (n > 0) {
      ssize_t ignored = write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
      (void)ignored;
    }
  }
}
