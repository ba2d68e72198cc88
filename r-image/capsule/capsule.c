/*
 * jube-r capsule: the process-capability layer of the execute runtime (docs/sandbox-rules.md,
 * "Threat model"). Preloaded into the Rscript the execute handler starts (LD_PRELOAD) and armed by
 * the R runner immediately before the untrusted script runs. Arming is one-way: nothing disarms it.
 *
 * Once armed, inside this process:
 *   - no program starts and no process is created (exec family, posix_spawn, system, popen,
 *     fork/vfork/_Fork, clone without CLONE_THREAD, daemon, forkpty, wordexp command substitution);
 *   - no socket opens and no name is resolved (socket, connect, getaddrinfo, gethostbyname, ...);
 *   - no signal reaches another process (kill, killpg, sigqueue, tgkill, pidfd);
 *   - files are created, written, truncated, renamed, linked, removed or re-moded only inside the
 *     run's workdir; they are read only there and in the read roots (R, its libraries, system
 *     libraries, locale, fonts, time zones); this process's own /proc entries but no other's;
 *   - shared objects load only from the library roots (never the workdir or any writable place);
 *   - dlsym/dlvsym refuse every function above by name, and R's own symbol lookups (.C, .Call,
 *     getNativeSymbolInfo) resolve only to objects under the library roots, never to the C runtime
 *     (libc, the dynamic loader), so `.C("execv", ...)` or a lookup of `syscall` fails.
 *
 * This works by interposition, so it holds against R code and against the C code R and its
 * packages run, which call libc through the PLT. It does not hold against native code that makes
 * raw system calls (e.g. after a memory-corruption exploit): where the kernel allows it (no_new_privs
 * accepted), arming also installs a Landlock ruleset (files, exec, TCP, signals) and a seccomp filter
 * (exec, fork, sockets, signals, ptrace, namespaces, io_uring) with the same intent, and reports which
 * of the three are active. In AWS Lambda only the interposition layer is available; the microVM per
 * execution environment is the boundary below it.
 *
 * Configuration comes from the environment the handler builds (read once, at load time, before any
 * R code runs):
 *   JUBE_R_CAPSULE_WORKDIR   the run's workdir: the only writable place
 *   JUBE_R_CAPSULE_READ      extra read roots, ':'-separated (R's home and library paths)
 *   JUBE_R_CAPSULE_DLOPEN    extra library roots, ':'-separated
 *   JUBE_R_CAPSULE_KERNEL    "off" skips Landlock and seccomp (the Lambda posture, for tests)
 *   JUBE_R_CAPSULE_LOG       "1": one stderr line per refusal
 */
#define _GNU_SOURCE
#include "capsule.h"

/* ------------------------------------------------------------------------------------------- */
/* Loading and arming                                                                           */
/* ------------------------------------------------------------------------------------------- */

static void add_root(char roots[][PATH_MAX], int *n, const char *path) {
  char resolved[PATH_MAX];
  if (*n >= MAX_ROOTS || !path || !*path || !realpath(path, resolved)) return;
  for (int i = 0; i < *n; i++)
    if (strcmp(roots[i], resolved) == 0) return;
  strcpy(roots[(*n)++], resolved);
}

static void add_root_list(char roots[][PATH_MAX], int *n, const char *list) {
  if (!list) return;
  char copy[PATH_MAX * 4];
  snprintf(copy, sizeof copy, "%s", list);
  for (char *save = NULL, *part = strtok_r(copy, ":", &save); part; part = strtok_r(NULL, ":", &save))
    add_root(roots, n, part);
}

static int find_libr(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char *slash = strrchr(info->dlpi_name, '/');
  if (strcmp(slash ? slash + 1 : info->dlpi_name, "libR.so") == 0) {
    *(uintptr_t *)data = info->dlpi_addr;
    return 1;
  }
  return 0;
}

__attribute__((constructor)) void capsule_load(void) {
  resolve_dl();
  void *page = mmap(NULL, sizeof(struct policy), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;
  P = page;
  memset(P, 0, sizeof *P);
  const char *workdir = getenv("JUBE_R_CAPSULE_WORKDIR");
  if (workdir && realpath(workdir, P->workdir)) P->workdir_len = strlen(P->workdir);
  const char *log = getenv("JUBE_R_CAPSULE_LOG");
  P->log = log && strcmp(log, "1") == 0;
  const char *kernel = getenv("JUBE_R_CAPSULE_KERNEL");
  P->kernel_off = kernel && strcmp(kernel, "off") == 0;
  for (const char *const *r = SYSTEM_READ_ROOTS; *r; r++) add_root(P->read_roots, &P->n_read, *r);
  add_root_list(P->read_roots, &P->n_read, getenv("JUBE_R_CAPSULE_READ"));
  for (const char *const *r = SYSTEM_DL_ROOTS; *r; r++) add_root(P->dl_roots, &P->n_dl, *r);
  add_root_list(P->dl_roots, &P->n_dl, getenv("JUBE_R_CAPSULE_DLOPEN"));
}

/*
 * Arms the capsule. Called once by the runner through .C("jube_capsule_arm", ...) right before
 * the script runs; a second call changes nothing. `status` receives 1 when the interposition layer
 * is armed; `report` (a character(1) of at least 255 bytes) the active layers, e.g.
 * "preload=armed landlock=abi6 seccomp=active".
 */
API void jube_capsule_arm(int *status, char **report) {
  *status = 0;
  if (!P) {
    snprintf(*report, 200, "preload=unavailable(no policy page)");
    return;
  }
  if (P->armed) {
    *status = 1;
    snprintf(*report, sizeof P->report, "%s", P->report);
    return;
  }
  if (P->workdir_len == 0) {
    snprintf(*report, 200, "preload=unavailable(JUBE_R_CAPSULE_WORKDIR is not set or does not exist)");
    return;
  }
  /* Loaded late (dlopen without LD_PRELOAD), this library would arm but interpose nothing:
   * everything bound before it resolves to libc. It must come first in the global scope. */
  Dl_info self, first;
  void *global_fork = real_dlsym(RTLD_DEFAULT, "fork");
  if (!dladdr((void *)capsule_load, &self) || !global_fork || !dladdr(global_fork, &first) || first.dli_fbase != self.dli_fbase) {
    snprintf(*report, 200, "preload=unavailable(the capsule was not preloaded: set LD_PRELOAD)");
    return;
  }
  P->pid = getpid();
  snprintf(P->proc_self, sizeof P->proc_self, "/proc/%d", (int)P->pid);
  dl_iterate_phdr(find_libr, &P->libr_base);
  /* Resolve every forwarder now: resolving later would run dlsym paths while armed. */
  resolve_dl();
  char rinternals[64];
  if (rinternals_arm(rinternals, sizeof rinternals) < 0) {
    snprintf(*report, 200, "preload=unavailable(%s)", rinternals);
    return;
  }

  char landlock[96], seccomp[96];
  if (P->kernel_off) {
    snprintf(landlock, sizeof landlock, "landlock=off");
    snprintf(seccomp, sizeof seccomp, "seccomp=off");
  } else if (capsule_syscall(SYS_prctl, (long)(PR_SET_NO_NEW_PRIVS), (long)(1), 0, 0, 0, 0) != 0) {
    const char *why = strerror(errno);
    snprintf(landlock, sizeof landlock, "landlock=unavailable(no_new_privs: %s)", why);
    snprintf(seccomp, sizeof seccomp, "seccomp=unavailable(no_new_privs: %s)", why);
  } else {
    landlock_status(install_landlock(), landlock, sizeof landlock);
    int rc = install_seccomp();
    if (rc > 0) snprintf(seccomp, sizeof seccomp, "seccomp=active");
    else snprintf(seccomp, sizeof seccomp, "seccomp=unavailable(%s)", strerror(-rc));
  }
  snprintf(P->report, sizeof P->report, "preload=armed %.80s %.80s %.63s", landlock, seccomp, rinternals);
  P->armed = 1;
  /* From here on the policy is read-only: nothing in this process can loosen it short of
   * native code, which is what the kernel layers are for. */
  mprotect(P, sizeof *P, PROT_READ);
  *status = 1;
  snprintf(*report, sizeof P->report, "%s", P->report);
}
