/*
 * jube-r capsule: the process-capability layer of the execute runtime (docs/threat-model.md).
 * Preloaded into the Rscript the execute handler starts (LD_PRELOAD) and armed by
 * the R runner immediately before the untrusted script runs. Arming is one-way: nothing disarms it.
 *
 * Once armed, inside this process:
 *   - no program starts and no process is created (exec family, posix_spawn, system, popen,
 *     fork/vfork/_Fork, clone without CLONE_THREAD, daemon, forkpty, wordexp command substitution);
 *   - no socket opens and no name is resolved (socket, connect, getaddrinfo, gethostbyname, ...);
 *   - no signal reaches another process (kill, killpg, sigqueue, tgkill, pidfd);
 *   - no System V IPC object or POSIX message queue is created or used (they outlive the run);
 *   - files are created, written, truncated, renamed, linked, removed or re-moded only inside the
 *     run's workdir; they are read only there and in the read roots (R, its libraries, system
 *     libraries, locale, fonts, time zones); this process's own /proc entries but no other's;
 *   - realpath, the stat family, access, readlink and chdir answer only there too: elsewhere EACCES,
 *     whether or not the path exists;
 *   - shared objects load only from the library roots (never the workdir or any writable place);
 *   - dlsym/dlvsym refuse every function above by name, and R's own symbol lookups (.C, .Call,
 *     getNativeSymbolInfo) resolve only to objects under the library roots, never to the C runtime
 *     (libc, the dynamic loader), so `.C("execv", ...)` or a lookup of `syscall` fails.
 * And from load, before any R code: every inherited descriptor but 0-2 is closed.
 *
 * The system-call level of all this is one table (rules.c): the seccomp filter, the syscall()
 * wrapper and the names dlsym refuses all come from it. The policy, "armed" included, is one
 * static object on pages of its own, sealed read-only when it arms and reached without any
 * pointer, so a script that writes its own memory cannot clear a word to disarm it; it would
 * have to run native code (mprotect), which is what the kernel layers, where they exist, and the
 * microVM are for. The capsule is a first line, not the boundary in Lambda.
 *
 * This works by interposition, so it holds against R code and against the C code R and its
 * packages run, which call libc through the PLT. It does not hold against native code that makes
 * raw system calls (e.g. after a memory-corruption exploit): where the kernel allows it (no_new_privs
 * accepted), arming also installs a Landlock ruleset (files, exec, TCP, signals) and a seccomp filter
 * (exec, fork, sockets, signals, IPC, ptrace, namespaces, io_uring, ...) with the same intent, and reports which
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
#include "rapi.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POLICY (&capsule_policy)

/* ------------------------------------------------------------------------------------------- */
/* Loading                                                                                      */
/* ------------------------------------------------------------------------------------------- */

static void add_root(char roots[][PATH_MAX], int *n, const char *path) {
  char resolved[PATH_MAX];
  if (*n >= MAX_ROOTS || !path || !*path || !capsule_realpath(path, resolved)) return;
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

/*
 * Every descriptor but the standard streams is closed before anything else runs: a descriptor the
 * parent leaked without close-on-exec (a socket, another run's file, a pipe to the handler) would
 * otherwise be R's to use, and no path rule sees an already-open file.
 */
static void close_inherited(void) {
#ifdef SYS_close_range
  if (capsule_syscall(SYS_close_range, 3, (long)~0U, 0, 0, 0, 0) == 0) return;
#endif
  struct rlimit limit;
  long top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? (long)limit.rlim_cur : 65536;
  if (top > (1L << 20)) top = 1L << 20;
  for (long fd = 3; fd < top; fd++) close((int)fd);
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

/* JUBE_R_CAPSULE_OFF: the defences a control test turns off, by name (the report lists them). */
static const struct {
  const char *name;
  enum defence bit;
} DEFENCES[] = {{"dispatch", DEFENCE_DISPATCH}, {"routines", DEFENCE_ROUTINES}, {"dlopen", DEFENCE_DLOPEN},
                {"got", DEFENCE_GOT},           {"proc", DEFENCE_PROC}};

static int defences_off(const char *list) {
  int off = 0;
  if (!list) return 0;
  for (size_t i = 0; i < sizeof DEFENCES / sizeof DEFENCES[0]; i++) {
    const char *at = strstr(list, DEFENCES[i].name);
    size_t n = strlen(DEFENCES[i].name);
    if (at && (at == list || at[-1] == ',') && (at[n] == '\0' || at[n] == ',')) off |= (int)DEFENCES[i].bit;
  }
  return off;
}

static void describe_off(char *out, size_t size) {
  out[0] = '\0';
  if (!POLICY->off) return;
  size_t n = (size_t)snprintf(out, size, " off=");
  for (size_t i = 0; i < sizeof DEFENCES / sizeof DEFENCES[0] && n < size; i++)
    if (POLICY->off & (int)DEFENCES[i].bit) n += (size_t)snprintf(out + n, size - n, "%s%s", out[n - 1] == '=' ? "" : ",", DEFENCES[i].name);
}

__attribute__((constructor)) void capsule_load(void) {
  close_inherited();
  const char *workdir = getenv("JUBE_R_CAPSULE_WORKDIR");
  if (workdir && capsule_realpath(workdir, POLICY->workdir)) POLICY->workdir_len = strlen(POLICY->workdir);
  const char *log = getenv("JUBE_R_CAPSULE_LOG");
  POLICY->log = log && strcmp(log, "1") == 0;
  const char *kernel = getenv("JUBE_R_CAPSULE_KERNEL");
  POLICY->kernel_off = kernel && strcmp(kernel, "off") == 0;
  for (const char *const *r = SYSTEM_READ_ROOTS; *r; r++) add_root(POLICY->read_roots, &POLICY->n_read, *r);
  add_root_list(POLICY->read_roots, &POLICY->n_read, getenv("JUBE_R_CAPSULE_READ"));
  for (const char *const *r = SYSTEM_DL_ROOTS; *r; r++) add_root(POLICY->dl_roots, &POLICY->n_dl, *r);
  add_root_list(POLICY->dl_roots, &POLICY->n_dl, getenv("JUBE_R_CAPSULE_DLOPEN"));
  /* The dynamic loader read LD_BIND_NOW when the process started: every object, later dlopen()s
   * too, is then bound at load, so its PLT slots can be sealed (relro.c). */
  const char *bind_now = getenv("LD_BIND_NOW");
  POLICY->bind_now = bind_now && *bind_now;
  const char *r_home = getenv("R_HOME");
  if (r_home) {
    char modules[PATH_MAX];
    if (snprintf(modules, sizeof modules, "%s/modules", r_home) < (int)sizeof modules) capsule_realpath(modules, POLICY->r_modules);
  }
  POLICY->off = defences_off(getenv("JUBE_R_CAPSULE_OFF"));
}

/* ------------------------------------------------------------------------------------------- */
/* Arming                                                                                       */
/* ------------------------------------------------------------------------------------------- */

/* Why arming cannot go ahead, or NULL. */
static const char *unarmable(void) {
  if (POLICY->workdir_len == 0) return "JUBE_R_CAPSULE_WORKDIR is not set or does not exist";
  /* Loaded late (dlopen without LD_PRELOAD), this library would arm but interpose nothing:
   * everything bound before it resolves to libc. It must come first in the global scope. */
  Dl_info self, first;
  dlsym_fn find = libc_dlsym();
  void *global_fork = find ? find(RTLD_DEFAULT, "fork") : NULL;
  if (!dladdr((void *)capsule_load, &self) || !global_fork || !dladdr(global_fork, &first) ||
      first.dli_fbase != self.dli_fbase)
    return "the capsule was not preloaded: set LD_PRELOAD";
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || POLICY_ALIGN % page != 0 || (uintptr_t)POLICY % (uintptr_t)page != 0)
    return "the policy is not on pages of its own";
  return NULL;
}

static void kernel_layers(char *landlock, char *seccomp, size_t size) {
  if (POLICY->kernel_off) {
    snprintf(landlock, size, "landlock=off");
    snprintf(seccomp, size, "seccomp=off");
  } else if (capsule_syscall(SYS_prctl, (long)(PR_SET_NO_NEW_PRIVS), (long)(1), 0, 0, 0, 0) != 0) {
    const char *why = strerror(errno);
    snprintf(landlock, size, "landlock=unavailable(no_new_privs: %s)", why);
    snprintf(seccomp, size, "seccomp=unavailable(no_new_privs: %s)", why);
  } else {
    landlock_status(install_landlock(), landlock, size);
    int rc = install_seccomp();
    if (rc > 0) snprintf(seccomp, size, "seccomp=active");
    else snprintf(seccomp, size, "seccomp=unavailable(%s)", strerror(-rc));
  }
}

/*
 * Arms the capsule. Called once by the runner through .C("jube_capsule_arm", ...) right before
 * the script runs; a second call changes nothing. `status` receives 1 when the interposition layer
 * is armed and its policy sealed; `report` (a character(1) of REPORT_SIZE - 1 bytes) the active
 * layers, e.g. "preload=armed landlock=abi6 seccomp=active dispatch=patched(...) got=sealed(...)",
 * or why it is not armed; `deadline` the seconds from now past which no time limit may reach.
 */
API void jube_capsule_arm(int *status, char **report, double *deadline) {
  *status = 0;
  if (POLICY->armed) {
    *status = POLICY->sealed;
    snprintf(*report, sizeof POLICY->report, "%s", POLICY->report);
    return;
  }
  const char *why = unarmable();
  if (why) {
    snprintf(*report, sizeof POLICY->report, "preload=unavailable(%s)", why);
    return;
  }
  POLICY->pid = getpid();
  snprintf(POLICY->proc_self, sizeof POLICY->proc_self, "/proc/%d", (int)POLICY->pid);
  if (dl_iterate_phdr(find_libr, &POLICY->libr_base) == 0) POLICY->libr_base = 0; /* not R: nothing to restrict */
  if (capsule_syscall(SYS_getrandom, (long)POLICY->token_key, (long)sizeof POLICY->token_key, 0, 0, 0, 0) != (long)sizeof POLICY->token_key) {
    snprintf(*report, sizeof POLICY->report, "preload=unavailable(no random key for address tokens)");
    return;
  }
  char dispatch[128], got[96], off[64];
  int in_r = dispatch_arm(*deadline, !defence_off(DEFENCE_DISPATCH), dispatch, sizeof dispatch);
  if (in_r < 0) {
    snprintf(*report, sizeof POLICY->report, "preload=unavailable(%s)", dispatch);
    return;
  }
  if (got_seal_all(got, sizeof got) < 0) {
    snprintf(*report, sizeof POLICY->report, "preload=unavailable(%s)", got);
    return;
  }
  describe_off(off, sizeof off);

  char landlock[96], seccomp[96];
  kernel_layers(landlock, seccomp, sizeof landlock);
  snprintf(POLICY->report, sizeof POLICY->report, "preload=armed %.80s %.80s %.100s %.80s%.60s", landlock, seccomp, dispatch, got, off);

  /* Everything the policy holds is written above this line; sealing is the last step (R's API
   * first: the policy's page cannot be written once it is sealed). */
  POLICY->armed = 1;
  POLICY->sealed = 1;
  if ((in_r == 1 && mprotect(&R_API, sizeof R_API, PROT_READ) != 0) || mprotect(POLICY, sizeof *POLICY, PROT_READ) != 0) {
    /* Still armed (refusing costs nothing), but not the armed state the run asked for: whoever
     * can write these pages could clear them, so the runner must not run the script. */
    int saved = errno;
    POLICY->sealed = 0;
    snprintf(POLICY->report, sizeof POLICY->report, "preload=unavailable(the policy could not be sealed: %s) %.60s %.60s %.100s",
             strerror(saved), landlock, seccomp, dispatch);
  }
  *status = POLICY->sealed;
  snprintf(*report, sizeof POLICY->report, "%s", POLICY->report);
}
