/*
 * Native routines (docs/threat-model.md, "Native code only as packages ship it").
 *
 * Once armed, a native routine (.C, .Call, .External, .Fortran, their graphics forms, and byte
 * code's own .Call instruction) runs only when
 *   1. it is a routine of an installed package: registered by the package, or defined in the
 *      package's own shared object (never libR's internals, libc, BLAS or another dependency);
 *   2. that package's compiled code is what calls it: the innermost package code on R's call stack
 *      is byte code of a closure whose environment is that package's registered namespace (or of a
 *      package the table lets vouch for it), skipping the code of packages that act for their
 *      caller (base's evaluators, methods' dispatch), which call routines only for their own; and
 *   3. the table does not answer it instead: a routine that returns an object's address answers an
 *      opaque token (equal for the same object, never the address), a profiler is refused.
 *
 * Why this is the place: every way R turns an R value into a routine ends in one of three exported
 * libR functions, which libR itself calls through its PLT, so this preloaded library interposes
 * them: R_ExternalPtrAddr (a registered routine's NativeSymbolInfo, and byte code's .Call
 * instruction, which never passes R's dispatch table), R_ExternalPtrAddrFn (a routine found by
 * lookup) and R_FindSymbol (a routine named by a string with PACKAGE= or no namespace). The
 * namespace lookup of a string with no PACKAGE is checked by dispatch.c's foreign-call rows.
 *
 * Why byte code: a script cannot make byte code (the builders are removed from R's dispatch table,
 * the JIT is off, deserialization reads only installed files, and `environment<-` keeps byte code
 * only where it merely moves lookups), so byte code whose closure lives in a package's registered
 * namespace is that package's own. Code R evaluates from a call object (eval, do.call, a promise)
 * is not byte code; when such a call reaches a routine (the innermost context is then R's builtin
 * context for it), the package whose code asked for the evaluation must vouch: routine_vouched().
 *
 * What this does not decide: which values a package's code passes. A routine that misbehaves on
 * values its package's R code lets through (a script calling the package's functions, internal
 * ones included, rebinding names in a package function's frame during a callback, or handing the
 * package an expression its code evaluates) is a memory-safety bug of that package, the class
 * docs/threat-model.md names.
 */
#define _GNU_SOURCE
#include "capsule.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rapi.h"

enum answer { ANSWER_REFUSE, ANSWER_OPAQUE_ADDRESS };
struct answered_routine {
  const char *package;
  const char *routine;
  enum capability_category category;
  enum answer answer;
};
#define ANSWERED_ROW(package, routine, category, answer) {package, routine, category, answer},
static const struct answered_routine ANSWERED[] = {ANSWERED_ROUTINES(ANSWERED_ROW)};
#undef ANSWERED_ROW

struct voucher {
  const char *package;
  const char *by;
};
#define VOUCHER_ROW(package, by) {package, by},
static const struct voucher VOUCHERS[] = {VOUCHED_BY(VOUCHER_ROW)};
#undef VOUCHER_ROW

static int routines_on(void) { return armed() && R_API.extptr_tag && !defence_off(DEFENCE_ROUTINES); }

/* The installed package a shared object belongs to: <root>/<package>/libs/<file>; "base" for R's own. */
static const char *package_of_library(const char *path, char *out, size_t size) {
  if (!path) return NULL;
  if (strcmp(path, "base") == 0) return "base";
  const char *libs = NULL;
  for (const char *p = strstr(path, "/libs/"); p; p = strstr(p + 1, "/libs/")) libs = p;
  if (!libs) return NULL;
  const char *start = libs;
  while (start > path && start[-1] != '/') start--;
  size_t n = (size_t)(libs - start);
  if (n == 0 || n >= size) return NULL;
  memcpy(out, start, n);
  out[n] = '\0';
  return out;
}

/* Whether the package exports the routine's own symbol object under the routine's name: rlang exports
 * `ffi_standalone_*` for the helpers other packages vendor (ggplot2's, tidyr's, ... copies of its
 * standalone type checks call them), so any package's compiled code may call those. */
static int exported_routine(const char *package, const char *routine) {
  const struct rapi *r = &R_API;
  if (!routine) return 0;
  SEXP ns = r->find_var_in_frame(*r->namespace_registry, r->install(package));
  if (r->type_of(ns) != ENVSXP) return 0;
  SEXP info = r->find_var_in_frame(ns, r->install(".__NAMESPACE__."));
  if (r->type_of(info) != ENVSXP) return 0;
  SEXP exports = r->find_var_in_frame(info, r->install("exports"));
  if (r->type_of(exports) != ENVSXP) return 0;
  SEXP name = r->install(routine);
  if (r->type_of(r->find_var_in_frame(exports, name)) != STRSXP) return 0;
  /* The exported object must be the routine itself (useDynLib binds it at load, never lazily): an
   * R function exported under the routine's name (stats' cor() and its routine "cor") is not. */
  SEXP value = r->find_var_in_frame(ns, name);
  return r->type_of(value) == VECSXP && r->inherits(value, "NativeSymbolInfo");
}

static int vouches(const char *caller, const char *package, const char *routine) {
  if (strcmp(caller, package) == 0 || exported_routine(package, routine)) return 1;
  for (size_t i = 0; i < sizeof VOUCHERS / sizeof VOUCHERS[0]; i++)
    if (strcmp(VOUCHERS[i].package, package) == 0 && strcmp(VOUCHERS[i].by, caller) == 0) return 1;
  return 0;
}

static const char *const ACTING[] = {ACT_FOR_CALLER};

static int acts_for_others(const char *caller) {
  for (size_t i = 0; i < sizeof ACTING / sizeof ACTING[0]; i++)
    if (strcmp(ACTING[i], caller) == 0) return 1;
  return 0;
}

/* Most acting closures between a routine's builtin context and the package code that vouches for
 * it; more ends the search (refused). */
enum { MAX_ACTING = 32 };

enum forcing { FORCING_NONE, FORCING_EVALUATED, FORCING_COMPILED };

/* Whether `env` is the frame of a closure call further out than `c`. */
static int frame_further_out(const struct r_context *c, SEXP env) {
  for (const struct r_context *n = c->next; n; n = n->next)
    if ((n->callflag & CTXT_FUNCTION) && n->cloenv == env) return 1;
  return 0;
}

/* The expression code was made from: byte code keeps it as its first constant. */
static SEXP source_of(SEXP code) {
  const struct rapi *r = &R_API;
  if (r->type_of(code) != BCODESXP) return code;
  SEXP consts = r->cdr(code);
  return r->type_of(consts) == VECSXP && r->length(consts) > 0 ? r->vector_elt(consts, 0) : code;
}

/* Which of the closure call's arguments is being forced now, and with what code: code R evaluates
 * (an argument the calling code wrote, whose evaluation is that code's, not this closure's), or a
 * package's byte code (`*forced` is then the promise). An argument that only names a variable of a
 * frame further out (`is.data.frame(data)` inside stats::ts) is skipped: forcing it forces that
 * frame's own argument, which the walk meets there. */
static enum forcing forcing_argument(const struct r_context *c, SEXP *forced) {
  const struct rapi *r = &R_API;
  SEXP nil = *r->nil_value;
  /* Bounded: R passes at most a few thousand arguments, and a bound is cheaper than a cycle check. */
  int hops = 0;
  for (SEXP a = c->promargs; a != nil && r->type_of(a) == LISTSXP && hops < 65536; a = r->cdr(a), hops++) {
    SEXP p = r->car(a);
    if (r->type_of(p) != PROMSXP || r->promise_seen(p) != 1) continue;
    SEXP code = r->promise_code(p);
    if (r->type_of(source_of(code)) == SYMSXP && frame_further_out(c, r->promise_env(p))) continue;
    if (r->type_of(code) != BCODESXP) return FORCING_EVALUATED;
    *forced = p;
    return FORCING_COMPILED;
  }
  return hops == 65536 ? FORCING_EVALUATED : FORCING_NONE;
}

/* Whether an interpreted closure is a constant of the byte code that called it. methods' setMethod()
 * keeps a method whose formals differ from the generic's as `.local <- <the function>` inside a
 * wrapper; the installer compiles the wrapper but not the function it holds, so `.local` runs
 * interpreted (every S4 method with extra arguments, Matrix's among them). A script cannot put a
 * closure into an installed package's byte code: R gives it constants only as copies (`body<-`,
 * `environment<-` duplicate a shared closure), and it cannot make byte code. So a closure called
 * from the frame of the byte code that holds it is that code's package's own. */
static int constant_of_caller(const struct r_context *c) {
  const struct rapi *r = &R_API;
  for (const struct r_context *n = c->next; n; n = n->next) {
    if (!(n->callflag & CTXT_FUNCTION) || r->type_of(n->callfun) != CLOSXP) continue;
    SEXP body = r->closure_body(n->callfun);
    if (r->type_of(body) != BCODESXP || c->sysparent != n->cloenv) return 0;
    SEXP consts = r->cdr(body);
    if (r->type_of(consts) != VECSXP) return 0;
    int count = r->length(consts);
    for (int i = 0; i < count; i++)
      if (r->vector_elt(consts, i) == c->callfun) return 1;
    return 0;
  }
  return 0;
}

int routine_vouched(const char *package, const char *routine) {
  const struct rapi *r = &R_API;
  struct r_context *c = *r->global_context;
  /* A routine reached from a call R evaluates (not byte code) has R's builtin context innermost.
   * Whose call it is then depends on who asked for the evaluation:
   *  - an argument being forced is the calling code's: a promise of the script's code forced by a
   *    package function (stats::setNames(.Call(...))) is the script's, one of a package's byte code
   *    is that package's;
   *  - each acting closure on the way (eval, do.call, with) must have been called from the frame
   *    of a closure further out, up to the package code that vouches: an eval() the script wrote
   *    inside such a promise was called from the script's frame;
   *  - what remains is an evaluation the package's own code asked for, in R (model.frame()'s
   *    variables) or in its compiled code (data.table's `j`): the package's. */
  int evaluated = c && c->callflag == CTXT_BUILTIN;
  SEXP pending[MAX_ACTING];
  size_t n_pending = 0;
  for (; c; c = c->next) {
    if (!(c->callflag & CTXT_FUNCTION) || r->type_of(c->callfun) != CLOSXP) continue;
    /* Interpreted code is the script's (or a closure it rebuilt): it vouches for nothing, and
     * nothing it calls through reaches further down; the one exception is a constant of the
     * package byte code that called it. */
    if (r->type_of(r->closure_body(c->callfun)) != BCODESXP && !constant_of_caller(c)) return 0;
    const char *caller = rapi_env_package(r->closure_env(c->callfun));
    if (!caller) return 0;
    SEXP forced = NULL;
    enum forcing forcing = forcing_argument(c, &forced);
    if (evaluated) {
      if (forcing == FORCING_EVALUATED) return 0;
      /* This closure's frame is where the acting closures inside it may have been called from. */
      for (size_t i = 0; i < n_pending;)
        if (pending[i] == c->cloenv) pending[i] = pending[--n_pending];
        else i++;
    }
    /* A package's compiled argument being forced here is that package's code, wherever the routine
     * call in it stands (forecast's simulate.ets passes stats::ts() a .C() call, forced inside ts):
     * the frame it runs in is the one its byte code made it in. */
    const char *owner = forcing == FORCING_COMPILED ? rapi_env_package(r->promise_env(forced)) : NULL;
    if (owner && !acts_for_others(owner)) return n_pending == 0 && vouches(owner, package, routine);
    if (acts_for_others(caller)) {
      /* base's and methods' own call sites call their own routines; their evaluators and S4
       * dispatch (which forces the caller's arguments, compiled promises included) act for whoever
       * called them. */
      if (!evaluated && strcmp(package, caller) == 0) return 1;
      if (evaluated) {
        if (n_pending == MAX_ACTING) return 0;
        pending[n_pending++] = c->sysparent;
      }
      continue;
    }
    if (n_pending > 0) return 0;
    return vouches(caller, package, routine);
  }
  return 0;
}

int caller_acts_for_others(void) {
  const struct rapi *r = &R_API;
  for (struct r_context *c = *r->global_context; c; c = c->next) {
    if (!(c->callflag & CTXT_FUNCTION) || r->type_of(c->callfun) != CLOSXP) continue;
    const char *caller = rapi_env_package(r->closure_env(c->callfun));
    return caller && acts_for_others(caller);
  }
  return 0;
}

__attribute__((noreturn)) static void refuse_routine(const char *routine, const char *package, enum capability_category category) {
  char detail[160];
  snprintf(detail, sizeof detail, "%s:%s", package ? package : "?", routine ? routine : "?");
  refused("routine", detail);
  R_API.error("jube-r: routine %s of %s %s: %s", routine ? routine : "(unnamed)", package ? package : "no installed package",
              capability_does(category), capability_message(category));
}

/* ---- the opaque address ------------------------------------------------------------------------ */

/* SipHash-2-4 of one word under a key drawn at arming: a token that is the same for the same object
 * and tells nothing about where it is (not even how far apart two objects are). */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                   \
  do {                                                             \
    v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);     \
    v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                         \
    v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                         \
    v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);     \
  } while (0)
static uint64_t siphash_word(uint64_t m, uint64_t k0, uint64_t k1) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  uint64_t b = (uint64_t)8 << 56;
  v3 ^= m;
  SIPROUND;
  SIPROUND;
  v0 ^= m;
  v3 ^= b;
  SIPROUND;
  SIPROUND;
  v0 ^= b;
  v2 ^= 0xff;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}

static SEXP opaque_address(SEXP x) {
  char token[32];
  snprintf(token, sizeof token, "0x%016llx",
           (unsigned long long)siphash_word((uint64_t)(uintptr_t)x, capsule_policy.token_key[0], capsule_policy.token_key[1]));
  return R_API.mk_string(token);
}

/* What R's resolution code reads for a registered routine (Rdynpriv.h's Rf_DotCallSymbol and
 * Rf_DotCSymbol begin alike), standing in for an answered one. Filled per call: R copies it at once. */
static struct {
  char *name;
  DL_FUNC fun;
  int numArgs;
  void *types;
} stand_in_routine;
static struct r_registered_symbol stand_in_symbol;

/* ---- the checks ------------------------------------------------------------------------------- */

/* NULL: run the routine; otherwise the function that runs instead. Refusals do not return. */
static DL_FUNC checked_routine(const char *routine, const char *package) {
  if (!package) refuse_routine(routine, package, CAT_NATIVE_CODE);
  if (!routine_vouched(package, routine)) refuse_routine(routine, package, CAT_NATIVE_CODE);
  for (size_t i = 0; i < sizeof ANSWERED / sizeof ANSWERED[0]; i++) {
    if (!routine || strcmp(ANSWERED[i].routine, routine) != 0 || strcmp(ANSWERED[i].package, package) != 0) continue;
    if (ANSWERED[i].answer == ANSWER_OPAQUE_ADDRESS) {
      refused("routine(answered)", routine);
      /* .Call passes each argument as a SEXP; DL_FUNC is only how R stores a routine. */
      return (DL_FUNC)(void (*)(void))opaque_address;
    }
    refuse_routine(routine, package, ANSWERED[i].category);
  }
  return NULL;
}

/* A routine by its address: the start of a function a package's own object defines. */
static DL_FUNC checked_address(const void *fn) {
  Dl_info where;
  char package[256];
  if (!fn || !dladdr(fn, &where) || !where.dli_fname || where.dli_saddr != fn) refuse_routine(NULL, NULL, CAT_NATIVE_CODE);
  char resolved[PATH_MAX];
  const char *owner = capsule_realpath(where.dli_fname, resolved) && package_object(resolved)
                          ? package_of_library(resolved, package, sizeof package)
                          : NULL;
  return checked_routine(where.dli_sname, owner);
}

static DL_FUNC checked_registered(const struct r_registered_symbol *symbol) {
  char package[256];
  const char *name = symbol->symbol ? symbol->symbol->name : NULL;
  const char *path = symbol->dll ? symbol->dll->path : NULL;
  return checked_routine(name, package_of_library(path, package, sizeof package));
}

REAL(void *, R_ExternalPtrAddr, (SEXP))
REAL(DL_FUNC, R_ExternalPtrAddrFn, (SEXP))
REAL(DL_FUNC, R_FindSymbol, (const char *, const char *, struct r_registered_symbol *))

API void *R_ExternalPtrAddr(SEXP s) {
  void *p = real_R_ExternalPtrAddr()(s);
  if (!p || !routines_on() || R_API.extptr_tag(s) != R_API.sym_registered_symbol) return p;
  const struct r_registered_symbol *symbol = p;
  DL_FUNC instead = checked_registered(symbol);
  if (!instead) return p;
  stand_in_routine.name = symbol->symbol ? symbol->symbol->name : NULL;
  stand_in_routine.fun = instead;
  stand_in_routine.numArgs = 1;
  stand_in_routine.types = NULL;
  stand_in_symbol = *symbol;
  stand_in_symbol.symbol = (struct r_symbol_head *)&stand_in_routine;
  return &stand_in_symbol;
}

API DL_FUNC R_ExternalPtrAddrFn(SEXP s) {
  DL_FUNC fn = real_R_ExternalPtrAddrFn()(s);
  if (!fn || !routines_on() || R_API.extptr_tag(s) != R_API.sym_native_symbol) return fn;
  DL_FUNC instead = checked_address((const void *)fn);
  return instead ? instead : fn;
}

API DL_FUNC R_FindSymbol(const char *name, const char *dll, struct r_registered_symbol *symbol) {
  DL_FUNC fn = real_R_FindSymbol()(name, dll, symbol);
  if (!fn || !routines_on()) return fn;
  /* R fills in the DLL it searched either way, the routine only when it was registered; a routine
   * found by lookup counts by where it is defined (dlsym on a package's handle also finds what its
   * dependencies define: BLAS's dcopy_ through stats). */
  DL_FUNC instead = symbol && symbol->dll && symbol->symbol ? checked_registered(symbol) : checked_address((const void *)fn);
  return instead ? instead : fn;
}
