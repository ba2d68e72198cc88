/*
 * R's memory primitives and deserializers, below the R layer (docs/threat-model.md, "Below the
 * mask: R's own tables").
 *
 * A script that gets past the R layer has R's real .Internal and primitives in reach. Two families
 * of them turn "runs R code" into "writes its own memory" and from there into a disarmed capsule:
 *   - the bytecode builders: the bytecode interpreter trusts a code object's constant-pool
 *     indices, so .Internal(mkCode()) with an out-of-range operand reads and writes any address;
 *     inspect(), address(), tracemem() and retracemem() say which address;
 *   - the deserializers: a serialized stream can hold a bytecode object, or a promise that runs
 *     when touched (the pattern of CVE-2024-27322), so unserializing bytes the script wrote is the
 *     same as running them, through any wrapper (readr::read_rds, utils::packageDescription on a
 *     script-chosen lib.loc, load()).
 *
 * R dispatches every primitive and .Internal through R_FunTab (libR.so exports it): PRIMFUN(op) is
 * R_FunTab[offset].cfun, read at every call, so replacing an entry's cfun changes every existing
 * binding of it, in the base namespace, in packages' bytecode and in whatever an escaped script
 * has saved. At arming:
 *   - the bytecode builders and the address leaks are replaced by a refusal (the JIT compiler needs
 *     mkCode, so the handler runs R with the JIT off; packages' precompiled bytecode still runs: it
 *     is unserialized in C from their lazy-load databases, not built by mkCode);
 *   - the deserializers are fenced: they run only when what they read is a file under R's library
 *     roots (the roots shared objects load from, never the workdir), named by an absolute path that
 *     stays there once resolved. A connection must be a file connection (file, gzfile, bzfile,
 *     xzfile, zstdfile); raw vectors, text, url, gzcon, rawConnection and the rest are refused.
 *     Package namespaces still load: loadNamespace reads Meta/<name>.rds through readRDS and objects
 *     through lazyLoadDBfetch, all from the library;
 *   - the table's pages that hold nothing else are made read-only (see rinternals_arm).
 * What this does not cover: native code a package runs on bytes of its own choosing (R's C entry
 * R_Unserialize; no package in packages.R calls it), and every address R prints by design
 * (environments, external pointers, bytecode in a printed function).
 *
 * The capsule is preloaded into processes that are not R (the probe, anything started before
 * arming): there R_FunTab is absent and nothing is patched. Inside R a missing table, entry or
 * API function fails arming: the run must not start believing these are gone when they are not.
 * Nothing here links against libR; everything is found with dlsym at arming.
 */
#define _GNU_SOURCE
#include "capsule.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct SEXPREC *SEXP;
typedef SEXP (*CCODE)(SEXP call, SEXP op, SEXP args, SEXP rho);

/* R's src/include/Defn.h; the same in R 4.2 and 4.5 and checked at arming (size, names, arities). */
typedef struct {
  int kind;
  int precedence;
  unsigned int rightassoc;
} PPinfo;
typedef struct {
  char *name;
  CCODE cfun;
  int code;
  int eval;
  int arity;
  PPinfo gram;
} FUNTAB;

/* The first fields of R_ext/Connections.h's struct Rconn (R_CONNECTIONS_VERSION 1). */
struct rconn_head {
  char *class;
  char *description;
};

#define STRSXP 16

/* What a fenced deserializer reads: which argument, and as what. */
enum source { CONNECTION_ARG1, PATH_ARG1, PATH_ARG2 };

struct entry {
  const char *name;
  int arity; /* R's declared arity: checks that the table reads as FUNTAB */
  int fenced; /* 0: refused outright; 1: runs on library files only */
  enum source source;
};

static const struct entry ENTRIES[] = {
    /* The bytecode builders and their companions: only the compiler calls them. */
    {"mkCode", 2, 0, 0},
    {"bcClose", 3, 0, 0},
    {"bodyCode", 1, 0, 0},
    {"disassemble", 1, 0, 0},
    {"bcVersion", 0, 0, 0},
    {"is.builtin.internal", 1, 0, 0},
    {"bcprofcounts", 0, 0, 0},
    {"bcprofstart", 0, 0, 0},
    {"bcprofstop", 0, 0, 0},
    /* Addresses of R objects. */
    {"inspect", -1, 0, 0},
    {"address", 1, 0, 0},
    {"tracemem", 1, 0, 0},
    {"retracemem", -1, 0, 0},
    /* The deserializers: readRDS, lazyLoadDBexec, unserialize, load (both formats), infoRDS. */
    {"unserializeFromConn", 2, 1, CONNECTION_ARG1},
    {"unserialize", 2, 1, CONNECTION_ARG1},
    {"loadFromConn2", 3, 1, CONNECTION_ARG1},
    {"loadInfoFromConn2", 1, 1, CONNECTION_ARG1},
    {"serializeInfoFromConn", 1, 1, CONNECTION_ARG1},
    {"load", 2, 1, PATH_ARG1},
    {"lazyLoadDBfetch", 4, 1, PATH_ARG2},
};
#define N_ENTRIES (sizeof ENTRIES / sizeof ENTRIES[0])

/* The connection classes whose description is the file they read. */
static const char *const FILE_CONNECTIONS[] = {"file", "gzfile", "bzfile", "xzfile", "zstdfile", NULL};

typedef void (*errorcall_fn)(SEXP, const char *, ...) __attribute__((noreturn));
typedef const char *(*primname_fn)(SEXP);
typedef SEXP (*sexp_fn)(SEXP);
typedef int (*typeof_fn)(SEXP);
typedef int (*length_fn)(SEXP);
typedef SEXP (*string_elt_fn)(SEXP, long);
typedef const char *(*translate_fn)(SEXP);
typedef int (*inherits_fn)(SEXP, const char *);
typedef struct rconn_head *(*get_connection_fn)(SEXP);

/*
 * Everything the replacements use, on a page of its own that is read-only once armed, reached
 * without a pointer in writable memory.
 */
static union {
  struct {
    errorcall_fn errorcall;
    primname_fn primname;
    sexp_fn car, cadr;
    typeof_fn type_of;
    length_fn length;
    string_elt_fn string_elt;
    translate_fn translate;
    inherits_fn inherits;
    get_connection_fn get_connection;
    SEXP *na_string;
    /* The original function of each fenced entry, by the entry's name (R_FunTab's own pointer). */
    const char *names[N_ENTRIES];
    CCODE originals[N_ENTRIES];
    int done;
    char report[96];
  } s;
  char page[4096];
} state __attribute__((aligned(4096)));
#define S state.s

__attribute__((noreturn)) static SEXP refuse(SEXP call, SEXP op, SEXP args, SEXP rho) {
  (void)args;
  (void)rho;
  S.errorcall(call, "jube-r: %s is not available in this sandbox", S.primname(op));
}

/* Whether `path` names a file under R's library roots, and stays there once resolved. */
static int library_file(const char *path, const char **why) {
  if (path[0] != '/') {
    *why = "not an absolute path";
    return 0;
  }
  /* Lexically first: "." and ".." would make the text and the file disagree. */
  char lexical[PATH_MAX], resolved[PATH_MAX];
  size_t n = 0;
  for (const char *p = path; *p;) {
    while (*p == '/') p++;
    if (!*p) break;
    const char *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) {
      *why = "a path with . or ..";
      return 0;
    }
    if (n + len + 2 > sizeof lexical) {
      *why = "a path too long";
      return 0;
    }
    lexical[n++] = '/';
    memcpy(lexical + n, p, len);
    n += len;
    p += len;
  }
  lexical[n] = '\0';
  /* The text must name the library tree, which nothing in this process can change: a symlink or
   * a renamed directory in the workdir cannot make an already open file look like a library one. */
  if (!loadable(lexical)) {
    *why = "not under R's library roots";
    return 0;
  }
  /* Loading a namespace fetches from the same database hundreds of times: resolve it once. Only
   * an approved path is remembered, and the library tree it names does not change. */
  static char last_approved[PATH_MAX];
  if (strcmp(lexical, last_approved) == 0) return 1;
  if (!realpath(lexical, resolved) || !loadable(resolved)) {
    *why = "not a file under R's library roots once resolved";
    return 0;
  }
  memcpy(last_approved, lexical, n + 1);
  return 1;
}

static const char *source_path(SEXP value, const char **why) {
  if (S.type_of(value) != STRSXP || S.length(value) < 1 || S.string_elt(value, 0) == *S.na_string) {
    *why = "not a file name";
    return NULL;
  }
  return S.translate(S.string_elt(value, 0));
}

static const char *connection_path(SEXP value, const char **why) {
  if (!S.inherits(value, "connection")) {
    *why = "not a connection to a file";
    return NULL;
  }
  struct rconn_head *con = S.get_connection(value);
  if (!con || !con->class || !in_list(con->class, FILE_CONNECTIONS) || !con->description) {
    *why = "not a connection to a file";
    return NULL;
  }
  return con->description;
}

static SEXP fenced(SEXP call, SEXP op, SEXP args, SEXP rho) {
  const char *name = S.primname(op);
  size_t i = 0;
  while (i < N_ENTRIES && S.names[i] != name) i++;
  if (i == N_ENTRIES || !S.originals[i]) refuse(call, op, args, rho);
  const char *why = NULL;
  const char *path = NULL;
  switch (ENTRIES[i].source) {
    case CONNECTION_ARG1: path = connection_path(S.car(args), &why); break;
    case PATH_ARG1: path = source_path(S.car(args), &why); break;
    case PATH_ARG2: path = source_path(S.cadr(args), &why); break;
  }
  if (path && library_file(path, &why)) return S.originals[i](call, op, args, rho);
  refused(name, path);
  S.errorcall(call, "jube-r: %s reads only files of R's installed libraries in this sandbox (its source is %s)", name, why);
}

static int in_r(void) {
  char exe[PATH_MAX];
  ssize_t n = capsule_readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const char *slash = strrchr(exe, '/');
    if (strcmp(slash ? slash + 1 : exe, "R") == 0) return 1;
  }
  return capsule_policy.libr_base != 0 || libc_dlsym()(RTLD_DEFAULT, "R_FunTab") != NULL;
}

static int fail(char *report, size_t size, const char *why, const char *name) {
  snprintf(report, size, "rinternals: %s%s%s", why, name ? " " : "", name ? name : "");
  return -1;
}

int rinternals_arm(char *report, size_t size) {
  if (S.done) {
    snprintf(report, size, "%s", S.report);
    return 1;
  }
  if (!in_r()) {
    snprintf(report, size, "rinternals=skipped(not an R process)");
    return 0;
  }
  FUNTAB *table = libc_dlsym()(RTLD_DEFAULT, "R_FunTab");
  if (!table) return fail(report, size, "R_FunTab is not exported by libR", NULL);
  /* The table's size from its symbol: a whole number of entries ending in R's NULL sentinel. */
  Dl_info info;
  const ElfW(Sym) *symbol = NULL;
  if (!dladdr1(table, &info, (void **)&symbol, RTLD_DL_SYMENT) || !symbol || symbol->st_size == 0 ||
      symbol->st_size % sizeof(FUNTAB) != 0)
    return fail(report, size, "R_FunTab has an unknown layout", NULL);
  size_t n_table = symbol->st_size / sizeof(FUNTAB);
  if (table[n_table - 1].name != NULL) return fail(report, size, "R_FunTab has an unknown layout", NULL);

  /* Find every entry before changing any: all or nothing. */
  FUNTAB *found[N_ENTRIES];
  for (size_t i = 0; i < N_ENTRIES; i++) {
    found[i] = NULL;
    for (size_t j = 0; j + 1 < n_table && !found[i]; j++)
      if (table[j].name && strcmp(table[j].name, ENTRIES[i].name) == 0) found[i] = &table[j];
    if (!found[i]) return fail(report, size, "R_FunTab lacks", ENTRIES[i].name);
    if (found[i]->arity != ENTRIES[i].arity || !found[i]->cfun) return fail(report, size, "R_FunTab has an unexpected entry for", ENTRIES[i].name);
  }

  static const char *const API_NAMES[] = {"Rf_errorcall", "getPRIMNAME", "CAR", "CADR", "TYPEOF", "Rf_length",
                                          "STRING_ELT", "Rf_translateChar", "Rf_inherits", "R_GetConnection",
                                          "R_NaString"};
  void *api[sizeof API_NAMES / sizeof API_NAMES[0]];
  for (size_t i = 0; i < sizeof API_NAMES / sizeof API_NAMES[0]; i++)
    if (!(api[i] = libc_dlsym()(RTLD_DEFAULT, API_NAMES[i]))) return fail(report, size, "R lacks", API_NAMES[i]);

  S.errorcall = (errorcall_fn)api[0];
  S.primname = (primname_fn)api[1];
  S.car = (sexp_fn)api[2];
  S.cadr = (sexp_fn)api[3];
  S.type_of = (typeof_fn)api[4];
  S.length = (length_fn)api[5];
  S.string_elt = (string_elt_fn)api[6];
  S.translate = (translate_fn)api[7];
  S.inherits = (inherits_fn)api[8];
  S.get_connection = (get_connection_fn)api[9];
  S.na_string = (SEXP *)api[10];
  for (size_t i = 0; i < N_ENTRIES; i++) {
    S.names[i] = found[i]->name;
    S.originals[i] = ENTRIES[i].fenced ? found[i]->cfun : NULL;
  }
  int removed = 0, fenced_count = 0;
  for (size_t i = 0; i < N_ENTRIES; i++) {
    found[i]->cfun = ENTRIES[i].fenced ? fenced : refuse;
    if (ENTRIES[i].fenced) fenced_count++;
    else removed++;
  }
  /* The table sits in libR's writable data. Its pages that hold nothing else are made read-only,
   * so putting an entry back takes native code (mprotect), not just a memory write; an entry on a
   * page it shares with R's other variables stays writable, and the report counts the sealed ones. */
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t first = ((uintptr_t)table + page - 1) & ~(page - 1);
  uintptr_t last = ((uintptr_t)table + symbol->st_size) & ~(page - 1);
  int sealed = 0;
  if (last > first) {
    if (mprotect((void *)first, last - first, PROT_READ) != 0) return fail(report, size, "could not seal R_FunTab", NULL);
    for (size_t i = 0; i < N_ENTRIES; i++)
      if ((uintptr_t)found[i] >= first && (uintptr_t)(found[i] + 1) <= last) sealed++;
  }
  S.done = 1;
  snprintf(S.report, sizeof S.report, "rinternals=patched(removed=%d,fenced=%d,sealed=%d)", removed, fenced_count, sealed);
  snprintf(report, size, "%s", S.report);
  if (mprotect(&state, sizeof state, PROT_READ) != 0) return fail(report, size, "could not make its state read-only", NULL);
  return 1;
}
