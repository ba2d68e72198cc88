/* Paths: what a name resolves to, and whether the policy allows it. */
#define _GNU_SOURCE
#include "capsule.h"

/* ------------------------------------------------------------------------------------------- */
/* Paths                                                                                        */
/* ------------------------------------------------------------------------------------------- */

int under(const char *path, const char *root) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return 1;
  return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int under_workdir(const char *canonical) {
  return P->workdir_len > 0 && strncmp(canonical, P->workdir, P->workdir_len) == 0 && canonical[P->workdir_len] == '/';
}

int readable(const char *canonical) {
  if (under_workdir(canonical) || strcmp(canonical, P->workdir) == 0) return 1;
  if (under(canonical, P->proc_self)) return 1;
  for (int i = 0; i < P->n_read; i++)
    if (under(canonical, P->read_roots[i])) return 1;
  return 0;
}

int writable(const char *canonical) {
  return under_workdir(canonical) || in_list(canonical, WRITABLE_FILES);
}

int loadable(const char *canonical) {
  if (under_workdir(canonical)) return 0;
  for (int i = 0; i < P->n_dl; i++)
    if (under(canonical, P->dl_roots[i])) return 1;
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
  if (!nofollow && realpath(abs, out)) return 0;
  if (!nofollow && errno != ENOENT) return -1;
  /* Resolve the parent, keep the last component. */
  size_t len = strlen(abs);
  while (len > 1 && abs[len - 1] == '/') abs[--len] = '\0';
  char *slash = strrchr(abs, '/');
  const char *leaf = slash + 1;
  if (!*leaf || strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0) {
    if (realpath(abs, out)) return 0;
    return -1;
  }
  char parent[PATH_MAX];
  if (slash == abs) strcpy(parent, "/");
  else {
    memcpy(parent, abs, (size_t)(slash - abs));
    parent[slash - abs] = '\0';
  }
  char resolved[PATH_MAX];
  if (!realpath(parent, resolved)) return -1;
  if (snprintf(out, PATH_MAX, "%s%s%s", resolved, strcmp(resolved, "/") == 0 ? "" : "/", leaf) >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/* 0 and the canonical path in `out` if allowed; -1 with errno otherwise. */
int check_path(int dirfd, const char *path, int write, int nofollow, const char *op, char *out) {
  if (write && path && in_list(path, STANDARD_STREAMS)) {
    /* These resolve to the handler's pipes, which realpath cannot name. */
    snprintf(out, PATH_MAX, "%s", path);
    return 0;
  }
  if (canonical(dirfd, path, nofollow, out) < 0) {
    /* A missing file stays "no such file" when reading, or when writing inside the workdir
     * (dir.create() of a nested path); creating anything elsewhere is refused. */
    if (errno != ENOENT) return -1;
    char abs[PATH_MAX];
    if (!write || (absolute(dirfd, path, abs) == 0 && under_workdir(abs))) {
      errno = ENOENT;
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
