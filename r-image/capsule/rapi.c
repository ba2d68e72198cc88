/* R's API for the capsule: resolved at arming, then sealed with the policy (see rapi.h). */
#define _GNU_SOURCE
#include "rapi.h"

#include <dlfcn.h>
#include <string.h>

#include "capsule.h"

/* Zero-filled, on pages of its own (the type is page-aligned); sealed read-only when the capsule arms. */
struct rapi R_API __attribute__((section(".bss.jube_capsule_rapi")));

struct api_name {
  const char *names[3]; /* the first one R exports is used: newer API names first */
  size_t offset;
};

#define AT(field) offsetof(struct rapi, field)
static const struct api_name API_NAMES[] = {
    {{"Rf_errorcall"}, AT(errorcall)},
    {{"Rf_error"}, AT(error)},
    {{"getPRIMNAME"}, AT(primname)},
    {{"CAR"}, AT(car)},
    {{"CDR"}, AT(cdr)},
    {{"CADR"}, AT(cadr)},
    {{"CADDR"}, AT(caddr)},
    {{"TAG"}, AT(tag)},
    {{"SETCAR"}, AT(setcar)},
    {{"TYPEOF"}, AT(type_of)},
    {{"Rf_length"}, AT(length)},
    {{"STRING_ELT"}, AT(string_elt)},
    {{"Rf_translateChar"}, AT(translate)},
    {{"Rf_inherits"}, AT(inherits)},
    {{"R_GetConnection"}, AT(get_connection)},
    {{"Rf_asReal"}, AT(as_real)},
    {{"Rf_ScalarReal"}, AT(scalar_real)},
    {{"Rf_install"}, AT(install)},
    /* R 4.5 adds R_ClosureBody/R_ClosureEnv/R_ParentEnv as the API names of BODY/CLOENV/ENCLOS. */
    {{"R_ClosureBody", "BODY"}, AT(closure_body)},
    {{"R_ClosureEnv", "CLOENV"}, AT(closure_env)},
    {{"R_ParentEnv", "ENCLOS"}, AT(parent_env)},
    {{"R_IsNamespaceEnv"}, AT(is_namespace)},
    {{"R_NamespaceEnvSpec"}, AT(namespace_spec)},
    {{"Rf_findVarInFrame"}, AT(find_var_in_frame)},
    {{"R_ExternalPtrTag"}, AT(extptr_tag)},
    {{"R_GetCurrentEnv"}, AT(current_env)},
    {{"Rf_mkString"}, AT(mk_string)},
    {{"Rf_duplicate"}, AT(duplicate)},
    {{"SET_CLOENV"}, AT(set_cloenv)},
    {{"PRSEEN"}, AT(promise_seen)},
    {{"PRCODE"}, AT(promise_code)},
    {{"VECTOR_ELT"}, AT(vector_elt)},
    {{"PRENV"}, AT(promise_env)},
    {{"R_NaString"}, AT(na_string)},
    {{"R_NilValue"}, AT(nil_value)},
    {{"R_BaseNamespace"}, AT(base_namespace)},
    {{"R_BaseEnv"}, AT(base_env)},
    {{"R_GlobalEnv"}, AT(global_env)},
    {{"R_EmptyEnv"}, AT(empty_env)},
    {{"R_NamespaceRegistry"}, AT(namespace_registry)},
    {{"R_GlobalContext"}, AT(global_context)},
};
#undef AT

int rapi_resolve(const char **missing) {
  for (size_t i = 0; i < sizeof API_NAMES / sizeof API_NAMES[0]; i++) {
    void *found = NULL;
    for (size_t j = 0; j < 3 && API_NAMES[i].names[j] && !found; j++) found = libc_dlsym()(RTLD_DEFAULT, API_NAMES[i].names[j]);
    if (!found) {
      *missing = API_NAMES[i].names[0];
      return -1;
    }
    memcpy((char *)&R_API + API_NAMES[i].offset, &found, sizeof found);
  }
  R_API.sym_native_symbol = R_API.install("native symbol");
  R_API.sym_registered_symbol = R_API.install("registered native symbol");
  R_API.sym_double_colon = R_API.install("::");
  R_API.sym_triple_colon = R_API.install(":::");
  R_API.sym_package = R_API.install("PACKAGE");
  return 0;
}

int rapi_check_context(void) {
  const struct rapi *r = &R_API;
  struct r_context *c = *r->global_context;
  SEXP nil = *r->nil_value, base = *r->base_env;
  if (!c || c->callflag != CTXT_BUILTIN || c->callfun != nil || c->cloenv != base || c->sysparent != base) return -1;
  if (r->current_env() != c->sysparent) return -1;
  if (r->type_of(c->call) != LANGSXP || r->car(c->call) != r->install(".C")) return -1;
  return 0;
}

const char *rapi_namespace_package(SEXP env) {
  const struct rapi *r = &R_API;
  if (env == *r->base_namespace) return "base";
  if (r->type_of(env) != ENVSXP || !r->is_namespace(env)) return NULL;
  SEXP spec = r->namespace_spec(env);
  if (r->type_of(spec) != STRSXP || r->length(spec) < 1) return NULL;
  SEXP name = r->string_elt(spec, 0);
  /* Only the namespace R registered under that name counts: an environment holding a
   * look-alike `.__NAMESPACE__.` is not one. */
  if (r->find_var_in_frame(*r->namespace_registry, r->install(r->translate(name))) != env) return NULL;
  return r->translate(name);
}

const char *rapi_env_package(SEXP env) {
  const struct rapi *r = &R_API;
  SEXP stop1 = *r->global_env, stop2 = *r->empty_env, stop3 = *r->base_env;
  /* Bounded: a chain is never this long, and a bound is cheaper than a cycle check. */
  for (int hops = 0; hops < 4096 && env != stop1 && env != stop2 && env != stop3; hops++) {
    if (r->type_of(env) != ENVSXP) return NULL;
    const char *package = rapi_namespace_package(env);
    if (package) return package;
    env = r->parent_env(env);
  }
  return NULL;
}
