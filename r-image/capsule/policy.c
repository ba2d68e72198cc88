/* The capsule's policy: what it allows once armed, as data. */
#define _GNU_SOURCE
#include "capsule.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Zero-filled (no file space: ".bss." sections are NOBITS), page-aligned, alone on its pages. */
struct policy capsule_policy __attribute__((section(".bss.jube_capsule_policy")));

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

int in_list(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

/* The capability categories' words (capabilities.gen.h): every refusal of a category says them. */
#define DOES(id, name, does, message) does,
#define MESSAGE(id, name, does, message) message,
static const char *const CATEGORY_DOES[] = {CAPABILITY_CATEGORIES(DOES)};
static const char *const CATEGORY_MESSAGE[] = {CAPABILITY_CATEGORIES(MESSAGE)};
#undef DOES
#undef MESSAGE

const char *capability_does(enum capability_category category) {
  return category < CATEGORY_COUNT ? CATEGORY_DOES[category] : "is not available";
}
const char *capability_message(enum capability_category category) {
  return category < CATEGORY_COUNT ? CATEGORY_MESSAGE[category] : "not in this sandbox";
}

int defence_off(enum defence defence) { return (capsule_policy.off & (int)defence) != 0; }

/*
 * An installed package's own shared object: <library>/<package>/libs/<file>, under the library
 * roots, beside the package's DESCRIPTION. Never in the workdir.
 */
int package_object(const char *canonical) {
  if (under_workdir(canonical) || !loadable(canonical)) return 0;
  const char *libs = NULL;
  for (const char *p = strstr(canonical, "/libs/"); p; p = strstr(p + 1, "/libs/")) libs = p;
  if (!libs || libs[6] == '\0') return 0;
  char description[PATH_MAX];
  int n = snprintf(description, sizeof description, "%.*s/DESCRIPTION", (int)(libs - canonical), canonical);
  return n > 0 && (size_t)n < sizeof description && capsule_regular_file(description);
}

/* One of R's own modules (R_HOME/modules: LAPACK, the internet and X11 modules). */
int r_module(const char *canonical) {
  return capsule_policy.r_modules[0] != '\0' && under(canonical, capsule_policy.r_modules) && !under_workdir(canonical);
}

void refused(const char *what, const char *detail) {
  if (capsule_policy.log) {
    char line[PATH_MAX + 128];
    int n = snprintf(line, sizeof line, "jube-r capsule: refused %s %s\n", what, detail ? detail : "");
    if (n > 0) {
      ssize_t ignored = write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
      (void)ignored;
    }
  }
}
