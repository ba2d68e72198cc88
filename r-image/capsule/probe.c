/*
 * jube-capsule-probe LIBRARY: arms the capsule in a throwaway process and prints which layers this
 * host grants (the line the runner would get), then checks that arming took: starting a process
 * must fail. Exit 0 when the interposition layer is armed and holds, 1 otherwise. The execute
 * handler runs it once to report the capsule's layers in GET /health.
 *
 * The capsule must be preloaded to interpose anything, so the probe runs itself again with
 * LD_PRELOAD and an empty workdir, exactly as the handler starts Rscript.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*arm_fn)(int *, char **, double *);

static int armed_stage(const char *dir) {
  arm_fn arm = (arm_fn)dlsym(RTLD_DEFAULT, "jube_capsule_arm");
  if (!arm) {
    printf("preload=unavailable(not a jube-r capsule)\n");
    rmdir(dir);
    return 1;
  }
  /* Removed before arming: once armed, this process may only write inside it. */
  rmdir(dir);
  char buffer[512] = "", *report = buffer;
  int status = 0;
  double deadline = 0; /* no time limit to clamp: this process is not R */
  arm(&status, &report, &deadline);
  pid_t child = fork();
  if (child == 0) _exit(0);
  if (child > 0) {
    waitpid(child, NULL, 0);
    printf("%s fork-still-works\n", report);
    return 1;
  }
  printf("%s\n", report);
  return status == 1 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: jube-capsule-probe LIBRARY\n");
    return 2;
  }
  const char *stage = getenv("JUBE_CAPSULE_PROBE_DIR");
  if (stage) return armed_stage(stage);
  char dir[] = "/tmp/jube-capsule-probe.XXXXXX";
  if (!mkdtemp(dir)) {
    printf("preload=unavailable(no temporary directory)\n");
    return 1;
  }
  setenv("JUBE_CAPSULE_PROBE_DIR", dir, 1);
  setenv("JUBE_R_CAPSULE_WORKDIR", dir, 1);
  setenv("LD_PRELOAD", argv[1], 1);
  /* As the handler starts R: every object bound at load, so arming can seal the PLT slots. */
  setenv("LD_BIND_NOW", "1", 1);
  execv("/proc/self/exe", argv);
  printf("preload=unavailable(could not run the probe again: %s)\n", strerror(errno));
  rmdir(dir);
  return 1;
}
