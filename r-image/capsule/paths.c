/* Paths: what a name resolves to, and whether the policy allows it. */
#define _GNU_SOURCE
#include "capsule.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------- */
/* Paths                                                                                        */
/* ------------------------------------------------------------------------------------------- */

int under(const char *path, const char *root) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return 1;
  return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int under_workdir(const char *canonical) {
  return capsule_policy.workdir_len > 0 && strncmp(canonical, capsule_policy.workdir, capsule_policy.workdir_len) == 0 && canonical[capsule_policy.workdir_len] == '/';
}

/* The entries of this process's own /proc directory a script may read (capabilities.json procSelf):
 * not mem, maps, smaps, pagemap, stat, syscall, auxv, environ or task/, which write the process's
 * memory or tell where everything in it is. The directory itself lists only names. */
static const char *const PROC_SELF_ALLOWED[] = {PROC_SELF_ENTRIES NULL};

static int proc_self_allowed(const char *canonical) {
  const char *rest = canonical + strlen(capsule_policy.proc_self);
  if (*rest == '\0' || defence_off(DEFENCE_PROC)) return 1;
  char entry[64];
  size_t n = strcspn(rest + 1, "/");
  if (n == 0 || n >= sizeof entry) return 0;
  memcpy(entry, rest + 1, n);
  entry[n] = '\0';
  return in_list(entry, PROC_SELF_ALLOWED);
}

int readable(const char *canonical) {
  if (under_workdir(canonical) || strcmp(canonical, capsule_policy.workdir) == 0) return 1;
  if (under(canonical, capsule_policy.proc_self)) return proc_self_allowed(canonical);
  for (int i = 0; i < capsule_policy.n_read; i++)
    if (under(canonical, capsule_policy.read_roots[i])) return 1;
  return 0;
}

int writable(const char *canonical) {
  return under_workdir(canonical) || in_list(canonical, WRITABLE_FILES);
}

int loadable(const char *canonical) {
  if (under_workdir(canonical)) return 0;
  for (int i = 0; i < capsule_policy.n_dl; i++)
    if (under(canonical, capsule_policy.dl_roots[i])) return 1;
  return 0;
}

/* `path` relative to `dirfd` as an absolute path (no resolution yet). */
int absolute(int dirfd, const char *path, char *out) {
  if (!path || !*path) {
    errno = ENOENT;
    return -1;
  }
  if (path[0] == '/') {
    if (strlen(path) >= PATH_MAX) {
      errno = ENAMETOOLONG;
      return -1;
    }
    strcpy(out, path);
    return 0;
  }
  char base[PATH_MAX];
  if (dirfd == AT_FDCWD) {
    if (!getcwd(base, sizeof base)) return -1;
  } else {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = capsule_readlink(link, base, sizeof base - 1);
    if (n < 0) return -1;
    base[n] = '\0';
    if (base[0] != '/') {
      errno = EACCES;
      return -1;
    }
  }
  if (snprintf(out, PATH_MAX, "%s/%s", base, path) >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/*
 * The canonical path an operation would reach. For an existing file, every symlink resolved
 * (including /proc magic links). For a name that does not exist yet (creation), its directory
 * resolved plus its last component, which must be a plain name. With `nofollow`, the last
 * component itself is not followed (unlink, rename, lstat-like operations act on the link).
 */
int canonical(int dirfd, const char *path, int nofollow, char *out) {
  char abs[PATH_MAX];
  if (absolute(dirfd, path, abs) < 0) return -1;
  if (!nofollow && capsule_realpath(abs, out)) return 0;
  if (!nofollow && errno != ENOENT) return -1;
  /* Resolve the parent, keep the last component. */
  size_t len = strlen(abs);
  while (len > 1 && abs[len - 1] == '/') abs[--len] = '\0';
  char *slash = strrchr(abs, '/');
  const char *leaf = slash + 1;
  if (!*leaf || strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0) {
    if (capsule_realpath(abs, out)) return 0;
    return -1;
  }
  char parent[PATH_MAX];
  if (slash == abs) strcpy(parent, "/");
  else {
    memcpy(parent, abs, (size_t)(slash - abs));
    parent[slash - abs] = '\0';
  }
  char resolved[PATH_MAX];
  if (!capsule_realpath(parent, resolved)) return -1;
  if (snprintf(out, PATH_MAX, "%s%s%s", resolved, strcmp(resolved, "/") == 0 ? "" : "/", leaf) >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/* Whether the deepest directory of `abs` that exists is one the policy lets the script read (or,
 * `write`, write): then the real failure ("no such file", "not a directory") tells it nothing it
 * could not find out by listing that directory itself. */
static int nearest_existing_allows(const char *abs, int write) {
  char prefix[PATH_MAX], resolved[PATH_MAX];
  snprintf(prefix, sizeof prefix, "%s", abs);
  for (;;) {
    char *slash = strrchr(prefix, '/');
    if (!slash) return 0;
    if (slash == prefix) prefix[1] = '\0';
    else *slash = '\0';
    if (capsule_realpath(prefix, resolved))
      return write ? under_workdir(resolved) || strcmp(resolved, capsule_policy.workdir) == 0 : readable(resolved);
    if (strcmp(prefix, "/") == 0) return 0;
  }
}

/*
 * 0 and the canonical path in `out` if allowed; -1 with errno otherwise. A path that cannot be
 * resolved keeps its real error only where its nearest existing directory is allowed (a nested
 * dir.create() in the workdir needs ENOENT); anywhere else the answer is EACCES, as for a path that
 * exists there, so that opening cannot probe what exists outside.
 */
int check_path(int dirfd, const char *path, int write, int nofollow, const char *op, char *out) {
  if (write && path && in_list(path, STANDARD_STREAMS)) {
    /* These resolve to the handler's pipes, which realpath cannot name. */
    snprintf(out, PATH_MAX, "%s", path);
    return 0;
  }
  if (canonical(dirfd, path, nofollow, out) < 0) {
    int saved = errno;
    char abs[PATH_MAX];
    if (absolute(dirfd, path, abs) < 0) return -1; /* no name to probe with (an empty path) */
    if (nearest_existing_allows(abs, write)) {
      errno = saved;
      return -1;
    }
    refused(op, path);
    errno = EACCES;
    return -1;
  }
  if (write ? writable(out) : readable(out)) return 0;
  refused(op, out);
  errno = EACCES;
  return -1;
}

/* ------------------------------------------------------------------------------------------- */
/* Looking at a path without opening it: stat, access, realpath, readlink                        */
/* ------------------------------------------------------------------------------------------- */

/* A directory on the way to an allowed place (/, /tmp above the workdir, /usr above /usr/lib):
 * its existence is no secret, and R stats each one when it creates nested directories. */
static int on_the_way(const char *canonical, const char *root) {
  if (strcmp(canonical, "/") == 0) return 1;
  size_t n = strlen(canonical);
  return strncmp(root, canonical, n) == 0 && root[n] == '/';
}

static int on_the_way_anywhere(const char *canonical) {
  if (on_the_way(canonical, capsule_policy.workdir) || on_the_way(canonical, capsule_policy.proc_self)) return 1;
  for (int i = 0; i < capsule_policy.n_read; i++)
    if (on_the_way(canonical, capsule_policy.read_roots[i])) return 1;
  return 0;
}

int lookup_allowed(const char *canonical) { return readable(canonical) || on_the_way_anywhere(canonical); }

/* Another process's /proc directory or anything in it (cwd, exe, fd/N, root name its files). */
static int other_process_entry(const char *canonical) {
  if (strncmp(canonical, "/proc/", 6) != 0 || canonical[6] < '0' || canonical[6] > '9') return 0;
  return !under(canonical, capsule_policy.proc_self);
}

/*
 * The read rules for a look at a path. 0 and the canonical path in `out` when it is readable (or
 * a directory on the way to a readable place); otherwise -1 with EACCES, whether or not the path
 * exists, so that nothing outside the readable roots can be probed for existence: "no such file"
 * (ENOENT) is only ever the answer inside them. The same answer for "absent" and "refused" is why
 * EACCES rather than ENOENT: R reports it as an unreadable file, which it is.
 */
int check_lookup(int dirfd, const char *path, int nofollow, const char *op, char *out) {
  if (path && in_list(path, STANDARD_STREAMS)) {
    snprintf(out, PATH_MAX, "%s", path);
    return 0;
  }
  char abs[PATH_MAX], named[PATH_MAX];
  if (absolute(dirfd, path, abs) < 0) return -1;
  /* Where the name itself lives (the last component not followed): /proc/<other>/cwd is refused
   * before following it could name the other process's directory. */
  if (canonical(dirfd, path, 1, named) == 0 && other_process_entry(named)) {
    refused(op, path);
    errno = EACCES;
    return -1;
  }
  if (canonical(dirfd, path, nofollow, out) == 0) {
    if (lookup_allowed(out) && !other_process_entry(out)) return 0;
  } else {
    int saved = errno;
    if (nearest_existing_allows(abs, 0)) {
      errno = saved; /* the real answer (ENOENT, ENOTDIR, ...): inside the readable roots */
      return -1;
    }
  }
  refused(op, path);
  errno = EACCES;
  return -1;
}
