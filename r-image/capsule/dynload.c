/* Dynamic loading and symbol lookup. */
#define _GNU_SOURCE
#include "capsule.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------- */
/* Dynamic loading and symbol lookup                                                            */
/* ------------------------------------------------------------------------------------------- */

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);

/*
 * Once armed, only an installed package's own shared object (<library>/<package>/libs/...) or one of
 * R's modules loads: not a system library (BLAS, libc, libR again), not a bare name the loader
 * would search for, nothing in a writable place. What a package's object needs, the loader brings
 * in itself, without coming here.
 */
static int may_load(const char *file) {
  if (!armed() || defence_off(DEFENCE_DLOPEN)) return 1;
  char resolved[PATH_MAX];
  if (file && strchr(file, '/') && canonical(AT_FDCWD, file, 0, resolved) == 0 &&
      (package_object(resolved) || r_module(resolved)))
    return 1;
  refused("dlopen", file);
  return 0;
}

/* Refusing with a bare NULL would leave dlerror() empty, and callers (R among them) print it:
 * the real dlopen of a path that cannot exist fails with a message that says why. */
static const char REFUSED_OBJECT[] = "/jube-r-capsule/refused: shared objects load only from installed R packages";

API void *dlopen(const char *file, int mode) {
  static dlopen_fn real;
  if (!real) real = (dlopen_fn)next_symbol("dlopen");
  if (!real) return NULL;
  void *handle = real(may_load(file) ? file : REFUSED_OBJECT, mode);
  if (handle) got_seal_new();
  return handle;
}
API void *dlmopen(Lmid_t lmid, const char *file, int mode) {
  static dlmopen_fn real;
  if (!real) real = (dlmopen_fn)next_symbol("dlmopen");
  if (!real) return NULL;
  void *handle = real(lmid, may_load(file) ? file : REFUSED_OBJECT, mode);
  if (handle) got_seal_new();
  return handle;
}

/*
 * A symbol may be handed out once armed unless it is one of the refused functions, and, when R
 * itself asks (.C, .Call, .External, getNativeSymbolInfo all go through libR's dlsym calls), only
 * if an installed package's own object (or an R module) defines it: never the C runtime, libR
 * (whose exported C functions take C arguments that .C/.Call would hand them as R objects) or a
 * library a package depends on (dlsym on a package's handle also searches its dependencies).
 */
static void *checked_symbol(void *found, const char *name, const void *caller) {
  if (!armed() || !found) return found;
  if (!name || denied_symbol(name)) {
    refused("dlsym", name);
    return NULL;
  }
  Dl_info who;
  if (capsule_policy.libr_base && !defence_off(DEFENCE_ROUTINES) && dladdr(caller, &who) && (uintptr_t)who.dli_fbase == capsule_policy.libr_base) {
    Dl_info where;
    char resolved[PATH_MAX];
    if (!dladdr(found, &where) || !where.dli_fname || (uintptr_t)where.dli_fbase == capsule_policy.libr_base ||
        !capsule_realpath(where.dli_fname, resolved) || !(package_object(resolved) || r_module(resolved))) {
      refused("dlsym", name);
      return NULL;
    }
  }
  return found;
}

API void *dlsym(void *handle, const char *name) {
  if (armed() && name && denied_symbol(name)) {
    refused("dlsym", name);
    return NULL;
  }
  /* RTLD_NEXT now means "after this library" rather than "after the caller": the same for
   * everything loaded after it, which is everything but the main program. */
  dlsym_fn find = libc_dlsym();
  if (!find) return NULL;
  return checked_symbol(find(handle, name), name, __builtin_return_address(0));
}
API void *dlvsym(void *handle, const char *name, const char *version) {
  if (armed() && name && denied_symbol(name)) {
    refused("dlvsym", name);
    return NULL;
  }
  dlvsym_fn find = libc_dlvsym();
  if (!find) return NULL;
  return checked_symbol(find(handle, name, version), name, __builtin_return_address(0));
}
