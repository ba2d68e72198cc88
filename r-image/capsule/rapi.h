/*
 * R's API as the capsule uses it. The capsule does not link against libR (it is preloaded into
 * processes that are not R too), so arming resolves every function and variable below with dlsym
 * (rapi_resolve) and then seals them read-only with the rest of the R-side state: no writable
 * pointer leads the capsule's checks anywhere else.
 */
#ifndef JUBE_CAPSULE_RAPI_H
#define JUBE_CAPSULE_RAPI_H
#include <setjmp.h>
#include <stddef.h>

typedef struct SEXPREC *SEXP;
typedef SEXP (*CCODE)(SEXP call, SEXP op, SEXP args, SEXP rho);
typedef void *(*DL_FUNC)(void);

/* R's SEXPTYPEs the capsule looks at (Rinternals.h). */
enum { NILSXP = 0, SYMSXP = 1, LISTSXP = 2, CLOSXP = 3, ENVSXP = 4, PROMSXP = 5, LANGSXP = 6, STRSXP = 16, VECSXP = 19, EXTPTRSXP = 22, BCODESXP = 21 };

/* R's context types (Defn.h). */
enum { CTXT_TOPLEVEL = 0, CTXT_FUNCTION = 4, CTXT_BUILTIN = 64 };

/*
 * The leading fields of R's RCNTXT (src/include/Defn.h), the same in R 4.2 and 4.5; JMP_BUF is
 * sigjmp_buf where POSIX has it, as on Linux. Arming checks this layout against the live context of
 * its own call (rapi_check_context) and refuses to arm when it does not match.
 */
struct r_context {
  struct r_context *next;
  int callflag;
  sigjmp_buf cjmpbuf;
  int cstacktop;
  int evaldepth;
  SEXP promargs;
  SEXP callfun;
  SEXP sysparent;
  SEXP call;
  SEXP cloenv;
};

/* R_ext/Connections.h's struct Rconn, its first fields (R_CONNECTIONS_VERSION 1). */
struct r_connection_head {
  char *class;
  char *description;
};

/* Rdynpriv.h's struct _DllInfo and R_RegisteredNativeSymbol, their first fields (R 4.2 and 4.5). */
struct r_dll_info {
  char *path;
  char *name;
};
struct r_symbol_head {
  char *name; /* Rf_DotCSymbol, Rf_DotCallSymbol, ...: each starts with its name */
};
struct r_registered_symbol {
  int type;
  struct r_symbol_head *symbol;
  struct r_dll_info *dll;
};

/* On pages of its own (64 KiB covers every page size Linux uses), so sealing it touches nothing else. */
struct __attribute__((aligned(65536))) rapi {
  __attribute__((noreturn)) void (*errorcall)(SEXP, const char *, ...);
  __attribute__((noreturn)) void (*error)(const char *, ...);
  const char *(*primname)(SEXP);
  SEXP (*car)(SEXP);
  SEXP (*cdr)(SEXP);
  SEXP (*cadr)(SEXP);
  SEXP (*caddr)(SEXP);
  SEXP (*tag)(SEXP);
  SEXP (*setcar)(SEXP, SEXP);
  int (*type_of)(SEXP);
  int (*length)(SEXP);
  SEXP (*string_elt)(SEXP, long);
  const char *(*translate)(SEXP);
  int (*inherits)(SEXP, const char *);
  struct r_connection_head *(*get_connection)(SEXP);
  double (*as_real)(SEXP);
  SEXP (*scalar_real)(double);
  SEXP (*install)(const char *);
  SEXP (*closure_body)(SEXP);
  SEXP (*closure_env)(SEXP);
  SEXP (*parent_env)(SEXP);
  int (*is_namespace)(SEXP);
  SEXP (*namespace_spec)(SEXP);
  SEXP (*find_var_in_frame)(SEXP, SEXP);
  SEXP (*extptr_tag)(SEXP);
  SEXP (*current_env)(void);
  SEXP (*mk_string)(const char *);
  SEXP (*duplicate)(SEXP);
  void (*set_cloenv)(SEXP, SEXP);
  int (*promise_seen)(SEXP);
  SEXP (*promise_code)(SEXP);
  SEXP (*vector_elt)(SEXP, long);
  SEXP (*promise_env)(SEXP);
  /* R's variables: pointers to them, read at each use. */
  SEXP *na_string, *nil_value, *base_namespace, *base_env, *global_env, *empty_env, *namespace_registry;
  struct r_context **global_context;
  /* Symbols installed at arming. */
  SEXP sym_native_symbol, sym_registered_symbol, sym_double_colon, sym_triple_colon, sym_package;
};

extern struct rapi R_API __attribute__((visibility("hidden")));

/* Resolves everything above; 0, or -1 with the missing name in `missing`. */
int rapi_resolve(const char **missing);
/*
 * Checks struct r_context against the context R made for the .C() call that is arming the
 * capsule (a CTXT_BUILTIN context in base). 0 when it matches.
 */
int rapi_check_context(void);

/* The package a namespace environment is the registered namespace of ("base" for base's), or NULL. */
const char *rapi_namespace_package(SEXP env);
/* The first registered namespace on an environment's parent chain, as a package name, or NULL. */
const char *rapi_env_package(SEXP env);

/* Native routines (routines.c): whether the package's own code is what is calling. */
int routine_vouched(const char *package, const char *routine);
/* Whether the innermost R closure on the call stack acts for its caller (base, methods). */
int caller_acts_for_others(void);

#endif
