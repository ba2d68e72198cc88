/*
 * The capability table at R's own dispatch table (docs/threat-model.md, "Below R: the dispatch
 * table"): the `dispatch` rows of layers/rules/capabilities.json, generated into
 * capabilities.gen.h.
 *
 * R dispatches every primitive and .Internal through R_FunTab (libR.so exports it): PRIMFUN(op) is
 * R_FunTab[offset].cfun, read at every call, so replacing an entry's cfun changes every existing
 * binding of it: base's, a package's bytecode, whatever a script saved or reached by any route
 * (`.Internal(system())`, `get("system")`, a restart handler base looked up for it). A script that
 * reaches an entry meets the same refusal as a direct call. Each row's action:
 *   refuse            the entry raises "jube-r: <entry> <does>: <message>" (its category's words);
 *   library-file      a deserializer runs only on a file under R's library roots, named by an
 *                     absolute path that stays there once resolved; a connection must be a file
 *                     connection (a serialized stream can hold bytecode or a promise that runs);
 *   package-object    dyn.load() loads only an installed package's own shared object;
 *   environment-names Sys.setenv()/Sys.unsetenv() only of the names the table lists;
 *   deadline          setTimeLimit()/setSessionTimeLimit() are clamped to the run's deadline, given
 *                     at arming: a script can lower its time limit, never lift it;
 *   foreign-call      .C, .Call and the rest run only from a call naming them (a package's call
 *                     site, or a call it built), never applied as a value (`Reduce(.Call, ...)`,
 *                     `do.call(.C, ...)`); which routine they may then reach is routines.c's rule;
 *   no-url            file() opens no URL;
 *   keep-bytecode     `environment<-` keeps a closure's byte code when the new environment shares
 *                     the old one's lexical parent (R6 gives every object's methods such an
 *                     environment); R drops it otherwise. Compiled package code stays compiled, so
 *                     routines.c can tell it from code a script wrote.
 * After patching, the table's pages that hold nothing else are made read-only.
 *
 * Arming fails (the run does not start) when the table, an entry, an entry's arity (where the
 * table gives one) or an R API function is missing: a run must not start believing a row is in
 * force when it is not. Outside R (the capsule's probe) nothing is patched.
 */
#define _GNU_SOURCE
#include "capsule.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rapi.h"

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

#define NO_ARITY (-2)
enum action {
  ACTION_REFUSE,
  ACTION_LIBRARY_FILE,
  ACTION_PACKAGE_OBJECT,
  ACTION_ENVIRONMENT_NAMES,
  ACTION_DEADLINE,
  ACTION_FOREIGN_CALL,
  ACTION_NO_URL,
  ACTION_KEEP_BYTECODE
};
enum source { SOURCE_NONE, SOURCE_CONNECTION, SOURCE_PATH, SOURCE_SECOND_PATH };

struct row {
  const char *entry;
  enum capability_category category;
  enum action action;
  int arity;
  enum source source;
  int replayed;
};

#define ROW(entry, category, action, arity, source, replayed) {entry, category, action, arity, source, replayed},
static const struct row ROWS[] = {DISPATCH_ROWS(ROW)};
#undef ROW
#define N_ROWS (sizeof ROWS / sizeof ROWS[0])

static const char *const ENVIRONMENT_ALLOWED[] = {ENVIRONMENT_NAMES NULL};
/* The connection classes whose description is the file they read. */
static const char *const FILE_CONNECTIONS[] = {"file", "gzfile", "bzfile", "xzfile", "zstdfile", NULL};

/* Sealed read-only once armed, on a page of its own, reached without a pointer in writable memory. */
static union {
  struct {
    /* R_FunTab's own name pointer and original function of each row. */
    const char *names[N_ROWS];
    CCODE originals[N_ROWS];
    SEXP symbols[N_ROWS]; /* the entry's symbol, for foreign-call rows */
    double deadline;      /* CLOCK_MONOTONIC seconds; 0: none given */
    int done;
    char report[96];
  } s;
  char page[4096 * 2];
} state __attribute__((aligned(4096)));
#define S state.s

static double monotonic_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* When the capsule loaded: the start of R's session, for setSessionTimeLimit's clamp. */
static double loaded_at;
__attribute__((constructor)) static void note_load_time(void) { loaded_at = monotonic_now(); }

static size_t row_of(SEXP op) {
  const char *name = R_API.primname(op);
  for (size_t i = 0; i < N_ROWS; i++)
    if (S.names[i] == name) return i;
  return N_ROWS;
}

__attribute__((noreturn)) static void refuse_row(SEXP call, size_t i, const char *detail) {
  const struct row *row = &ROWS[i];
  refused(row->entry, detail);
  R_API.errorcall(call, "jube-r: %s %s: %s", row->entry, capability_does(row->category), capability_message(row->category));
}

__attribute__((noreturn)) static SEXP refuse(SEXP call, SEXP op, SEXP args, SEXP rho) {
  (void)args;
  (void)rho;
  size_t i = row_of(op);
  if (i == N_ROWS) R_API.errorcall(call, "jube-r: %s is not available in this sandbox", R_API.primname(op));
  refuse_row(call, i, NULL);
}

/* ---- library-file ---------------------------------------------------------------------------- */

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

static const char *string_arg(SEXP value, const char **why) {
  if (R_API.type_of(value) != STRSXP || R_API.length(value) < 1 || R_API.string_elt(value, 0) == *R_API.na_string) {
    *why = "not a file name";
    return NULL;
  }
  return R_API.translate(R_API.string_elt(value, 0));
}

static const char *connection_path(SEXP value, const char **why) {
  if (!R_API.inherits(value, "connection")) {
    *why = "not a connection to a file";
    return NULL;
  }
  struct r_connection_head *con = R_API.get_connection(value);
  if (!con || !con->class || !in_list(con->class, FILE_CONNECTIONS) || !con->description) {
    *why = "not a connection to a file";
    return NULL;
  }
  return con->description;
}

static SEXP library_file_row(SEXP call, size_t i, SEXP op, SEXP args, SEXP rho) {
  const char *why = NULL, *path = NULL;
  switch (ROWS[i].source) {
    case SOURCE_CONNECTION: path = connection_path(R_API.car(args), &why); break;
    case SOURCE_PATH: path = string_arg(R_API.car(args), &why); break;
    case SOURCE_SECOND_PATH: path = string_arg(R_API.cadr(args), &why); break;
    case SOURCE_NONE: why = "no source"; break;
  }
  if (path && library_file(path, &why)) return S.originals[i](call, op, args, rho);
  refused(ROWS[i].entry, path);
  R_API.errorcall(call, "jube-r: %s %s: %s (its source is %s)", ROWS[i].entry, capability_does(ROWS[i].category),
                  capability_message(ROWS[i].category), why);
}

/* ---- the other actions ------------------------------------------------------------------------ */

/* A listed name, or one a listed prefix ("LC_*") begins. */
static int environment_name_allowed(const char *name) {
  for (const char *const *allowed = ENVIRONMENT_ALLOWED; *allowed; allowed++) {
    size_t n = strlen(*allowed);
    if ((*allowed)[n - 1] == '*' ? strncmp(name, *allowed, n - 1) == 0 : strcmp(name, *allowed) == 0) return 1;
  }
  return 0;
}

static int environment_names_allowed(SEXP names) {
  if (R_API.type_of(names) != STRSXP) return 0;
  for (int k = 0; k < R_API.length(names); k++) {
    SEXP name = R_API.string_elt(names, k);
    if (name == *R_API.na_string || !environment_name_allowed(R_API.translate(name))) return 0;
  }
  return 1;
}

/* The elapsed limit (the second argument) no later than the deadline; `offset`: seconds already
 * counted by the limit (the session's, for setSessionTimeLimit). */
static void clamp_elapsed(SEXP args, double offset) {
  if (S.deadline <= 0) return;
  double remaining = S.deadline - monotonic_now();
  if (remaining < 0.001) remaining = 0.001;
  SEXP elapsed_cell = R_API.cdr(args);
  double asked = R_API.as_real(R_API.car(elapsed_cell));
  /* NA, Inf and non-positive values mean "no limit" to R: the deadline instead. */
  if (!(asked > 0) || asked > remaining + offset) R_API.setcar(elapsed_cell, R_API.scalar_real(remaining + offset));
}

static int url_description(SEXP description) {
  const char *why = NULL;
  const char *text = string_arg(description, &why);
  if (!text) return 0;
  const char *colon = strstr(text, "://");
  if (!colon || colon == text) return 0;
  for (const char *p = text; p < colon; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' || *p == '.' || *p == '-'))
      return 0;
  return !(colon - text == 4 && strncmp(text, "file", 4) == 0);
}

/* The call names this entry: `.Call(...)` or `base::.Call(...)`, as a package's call site or a call
 * it built does; not the entry applied as a value (`Reduce(.Call, ...)`). */
static int call_names_entry(SEXP call, SEXP symbol) {
  if (R_API.type_of(call) != LANGSXP) return 0;
  SEXP head = R_API.car(call);
  if (head == symbol) return 1;
  return R_API.type_of(head) == LANGSXP && (R_API.car(head) == R_API.sym_double_colon || R_API.car(head) == R_API.sym_triple_colon) &&
         R_API.length(head) == 3 && R_API.caddr(head) == symbol;
}

static int has_package_argument(SEXP args) {
  for (SEXP a = args; a != *R_API.nil_value; a = R_API.cdr(a))
    if (R_API.tag(a) == R_API.sym_package) return 1;
  return 0;
}

static SEXP foreign_call_row(SEXP call, size_t i, SEXP op, SEXP args, SEXP rho) {
  if (call == *R_API.nil_value) {
    /* The graphics engine replaying a device's display list calls recorded entries with no call. */
    if (!ROWS[i].replayed) refuse_row(call, i, "no call");
  } else if (!call_names_entry(call, S.symbols[i]) && caller_acts_for_others()) {
    /* base's code calls base's own routines; base's higher-order functions (Reduce, apply, outer)
     * applying the entry as a value would make base vouch for a call a script chose. A package
     * applying it through its own binding (rlang's dot_call) vouches only for its own routines. */
    refuse_row(call, i, "applied as a value");
  } else if (R_API.type_of(R_API.car(args)) == STRSXP && !has_package_argument(args)) {
    /* A routine named by a string with no PACKAGE is resolved in the calling environment's
     * namespace, without passing routines.c's hooks: the same rule here. */
    const char *package = R_API.type_of(rho) == ENVSXP ? rapi_env_package(rho) : NULL;
    if (!package || !routine_vouched(package, NULL)) refuse_row(call, i, "a routine named by a string");
  }
  return S.originals[i](call, op, args, rho);
}

/* Whether `env` is one of `inner`'s enclosing environments. */
static int encloses(SEXP env, SEXP inner) {
  SEXP empty = *R_API.empty_env;
  /* Bounded: a chain is never this long, and a bound is cheaper than a cycle check. */
  for (int hops = 0; hops < 4096 && inner != empty && R_API.type_of(inner) == ENVSXP; hops++) {
    inner = R_API.parent_env(inner);
    if (inner == env) return 1;
  }
  return 0;
}

/* Byte code binds no variable at compile time, so it stays valid in an environment that only
 * moves its lookups: R6's methods get a new environment per object (and per clone), a child of the
 * one they were compiled in or a sibling of the one they had (adding only self, private and
 * super); and a package moves a closure it made out to an enclosing environment, as stats'
 * make.link() moves each link function to the namespace. A script can do the same to a package's
 * closure, which changes only where its free variables are found: routines.c still lets that code
 * reach only its own package's routines. */
static SEXP keep_bytecode_row(SEXP call, size_t i, SEXP op, SEXP args, SEXP rho) {
  SEXP fun = R_API.car(args), env = R_API.cadr(args);
  if (R_API.type_of(fun) == CLOSXP && R_API.type_of(env) == ENVSXP && R_API.type_of(R_API.closure_body(fun)) == BCODESXP) {
    SEXP old = R_API.closure_env(fun), parent = R_API.parent_env(env);
    if (parent == old || parent == R_API.parent_env(old) || encloses(env, old)) {
      SEXP copy = R_API.duplicate(fun);
      R_API.set_cloenv(copy, env);
      return copy;
    }
  }
  return S.originals[i](call, op, args, rho);
}

static SEXP fenced(SEXP call, SEXP op, SEXP args, SEXP rho) {
  size_t i = row_of(op);
  if (i == N_ROWS || !S.originals[i]) R_API.errorcall(call, "jube-r: %s is not available in this sandbox", R_API.primname(op));
  switch (ROWS[i].action) {
    case ACTION_LIBRARY_FILE: return library_file_row(call, i, op, args, rho);
    case ACTION_PACKAGE_OBJECT: {
      const char *why = NULL;
      const char *path = string_arg(R_API.car(args), &why);
      char resolved[PATH_MAX];
      if (!path || !capsule_realpath(path, resolved) || !package_object(resolved)) refuse_row(call, i, path);
      SEXP loaded = S.originals[i](call, op, args, rho);
      got_seal_new();
      return loaded;
    }
    case ACTION_ENVIRONMENT_NAMES:
      if (!environment_names_allowed(R_API.car(args))) refuse_row(call, i, NULL);
      return S.originals[i](call, op, args, rho);
    case ACTION_DEADLINE:
      /* A session limit counts from R's start, which is about when the capsule loaded. */
      clamp_elapsed(args, strcmp(ROWS[i].entry, "setSessionTimeLimit") == 0 ? monotonic_now() - loaded_at : 0);
      return S.originals[i](call, op, args, rho);
    case ACTION_FOREIGN_CALL: return foreign_call_row(call, i, op, args, rho);
    case ACTION_KEEP_BYTECODE: return keep_bytecode_row(call, i, op, args, rho);
    case ACTION_NO_URL:
      if (url_description(R_API.car(args))) refuse_row(call, i, NULL);
      return S.originals[i](call, op, args, rho);
    case ACTION_REFUSE: break;
  }
  refuse_row(call, i, NULL);
}

/* ---- arming ------------------------------------------------------------------------------------ */

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
  snprintf(report, size, "dispatch: %s%s%s", why, name ? " " : "", name ? name : "");
  return -1;
}

int dispatch_arm(double deadline_seconds, int patch, char *report, size_t size) {
  if (S.done) {
    snprintf(report, size, "%s", S.report);
    return 1;
  }
  if (!in_r()) {
    snprintf(report, size, "dispatch=skipped(not an R process)");
    return 0;
  }
  const char *missing = NULL;
  if (rapi_resolve(&missing) < 0) return fail(report, size, "R lacks", missing);
  if (rapi_check_context() < 0) return fail(report, size, "R's call contexts have an unknown layout", NULL);
  if (!patch) {
    snprintf(report, size, "dispatch=off");
    return 1;
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
  FUNTAB *found[N_ROWS];
  for (size_t i = 0; i < N_ROWS; i++) {
    found[i] = NULL;
    for (size_t j = 0; j + 1 < n_table && !found[i]; j++)
      if (table[j].name && strcmp(table[j].name, ROWS[i].entry) == 0) found[i] = &table[j];
    if (!found[i]) return fail(report, size, "R_FunTab lacks", ROWS[i].entry);
    if (!found[i]->cfun || (ROWS[i].arity != NO_ARITY && found[i]->arity != ROWS[i].arity))
      return fail(report, size, "R_FunTab has an unexpected entry for", ROWS[i].entry);
  }
  for (size_t i = 0; i < N_ROWS; i++) {
    S.names[i] = found[i]->name;
    S.originals[i] = ROWS[i].action == ACTION_REFUSE ? NULL : found[i]->cfun;
    S.symbols[i] = R_API.install(ROWS[i].entry);
  }
  S.deadline = deadline_seconds > 0 ? monotonic_now() + deadline_seconds : 0;
  int refusing = 0, fencing = 0;
  for (size_t i = 0; i < N_ROWS; i++) {
    found[i]->cfun = ROWS[i].action == ACTION_REFUSE ? refuse : fenced;
    if (ROWS[i].action == ACTION_REFUSE) refusing++;
    else fencing++;
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
    for (size_t i = 0; i < N_ROWS; i++)
      if ((uintptr_t)found[i] >= first && (uintptr_t)(found[i] + 1) <= last) sealed++;
  }
  S.done = 1;
  snprintf(S.report, sizeof S.report, "dispatch=patched(refused=%d,fenced=%d,sealed=%d/%d)", refusing, fencing, sealed,
           (int)N_ROWS);
  snprintf(report, size, "%s", S.report);
  if (mprotect(&state, sizeof state, PROT_READ) != 0) return fail(report, size, "could not make its state read-only", NULL);
  return 1;
}
