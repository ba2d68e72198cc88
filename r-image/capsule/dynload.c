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

static int may_load(const char *file) {
  if (!armed() || !file || !strchr(file, '/')) return 1; /* a bare name: the system search path */
  char resolved[PATH_MAX];
  if (canonical(AT_FDCWD, file, 0, resolved) == 0 && loadable(resolved)) return 1;
  refused("dlopen", file);
  return 0;
}

/* Refusing with a bare NULL would leave dlerror() empty, and callers (R among them) print it:
 * the real dlopen of a path that cannot exist fails with a message that says why. */
static const char REFUSED_OBJECT[] = "/jube-r-capsule/refused: shared objects load only from R's installed libraries";

API void *dlopen(const char *file, int mode) {
  static dlopen_fn real;
  if (!real) real = (dlopen_fn)next_symbol("dlopen");
  if (!real) return NULL;
  return real(may_load(file) ? file : REFUSED_OBJECT, mode);
}
API void *dlmopen(Lmid_t lmid, const char *file, int mode) {
  static dlmopen_fn real;
  if (!real) real = (dlmopen_fn)next_symbol("dlmopen");
  if (!real) return NULL;
  return real(lmid, may_load(file) ? file : REFUSED_OBJECT, mode);
}

static int c_runtime_object(const char *path) {
  const char *slash = strrchr(path, '/');
  return starts_with_any(slash ? slash + 1 : path, C_RUNTIME_OBJECTS);
}

/*
 * A symbol may be handed out once armed unless it is one of the refused functions, and, when R
 * itself asks (.C, .Call, .External, getNativeSymbolInfo all go through libR's dlsym calls), only
 * if it is defined in an object under the library roots that is neither the C runtime nor libR
 * (whose exported C functions take C arguments that .C/.Call would hand them as R objects).
 */
static void *checked_symbol(void *found, const char *name, const void *caller) {
  if (!armed() || !found) return found;
  if (!name || denied_symbol(name)) {
    refused("dlsym", name);
    return NULL;
  }
  Dl_info who;
  if (capsule_policy.libr_base && dladdr(caller, &who) && (uintptr_t)who.dli_fbase == capsule_policy.libr_base) {
    Dl_info where;
    char resolved[PATH_MAX];
    if (!dladdr(found, &where) || !where.dli_fname || (uintptr_t)where.dli_fbase == capsule_policy.libr_base ||
        c_runtime_object(where.dli_fname) || !capsule_realpath(where.dli_fname, resolved) || !loadable(resolved)) {
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
