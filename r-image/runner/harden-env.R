# Hardening below the mask against environments and code (docs/script-rules.md), applied by
# harden_runtime() (harden.R) just before the script:
# - methods' slot() and base's getElement() on an S4 object never return an environment outside
#   the script's to a contained caller, and methods' new() makes no environment class the script
#   defined (setClass("A", contains = "environment")): base's getElement() and the generator of
#   such a class called the real functions, past the mask's versions. Package code calling them
#   keeps getting what it got (methods' own class machinery reads environment-valued slots);
# - stats' model.frame.default and numericDeriv, rlang's as_function on a lambda formula and its
#   eval_tidy(), refuse code naming a forbidden symbol, wherever the formula or expression came
#   from: lm(), nls(), purrr's map() and dplyr's case_when() of a formula built around .Internal
#   evaluated it in the formula's environment, which package code sets to its own frames;
# - stats' formula.default evaluates only a `~` call (formula(call) evaluated any call in stats'
#   own frame) and gives the formula it makes its caller's environment.

# rlang's as_function(~ code) makes a function of the formula's code in its environment.
lambda_guard <- function(guard) {
  function(x) {
    if (inherits(x, "formula")) {
      refuse_forbidden_code(x, "a lambda formula", NULL, attr(x, ".Environment", exact = TRUE))
    }
    guard(x)
  }
}

# What a real getter returns to a caller that is contained (the script, however it reached the
# real function): never an environment outside the script's. Package code calling it keeps
# getting what it always got (methods' own class machinery reads environment-valued slots).
refuse_uncontained_for <- function(value, caller, what) {
  if (is_contained(caller)) refuse_uncontained(value, what)
  value
}

# new() of an environment class the script defined (setClass("A", contains = "environment")),
# or of "environment" itself by the script: an environment whose parent is a package's frame.
refuse_environment_class <- function(Class, caller) { # nolint: object_name_linter. new()'s own argument name.
  def <- if (methods::is(Class, "classRepresentation")) Class else methods::getClassDef(Class)
  if (is.null(def)) return(invisible())
  basic <- identical(as.vector(def@className), "environment")
  if (!basic && !("environment" %in% names(def@contains))) return(invisible())
  if ((basic && is_contained(caller)) || (!basic && !(def@package %in% loadedNamespaces()))) {
    refuse("new() of an environment class is not available in jube-r")
  }
}

harden_environment_getters <- function() {
  # methods' slot() is one .Call (C_R_get_slot, found in methods' namespace), checked on its way out.
  slot <- with_prologue(methods::slot, list(call("return", as.call(list(
    refuse_uncontained_for, quote(.Call(C_R_get_slot, object, name)), quote(parent.frame()), "this slot"
  )))))
  new <- with_prologue(methods::new, list(as.call(list(refuse_environment_class, quote(Class), quote(parent.frame())))))
  for (env in package_envs("methods")) {
    rebind(env, "slot", slot)
    rebind(env, "new", new)
  }
  get_element <- with_prologue(base::getElement, list(call("if", quote(isS4(object)), call("return", as.call(list(
    refuse_uncontained_for, quote(slot(object, name)), quote(parent.frame()), "this slot"
  ))))))
  for (env in package_envs("base")) rebind(env, "getElement", get_element)
}

# formula.default(x) evaluates x (a call), x$formula or x$call$formula in its own frame.
refuse_formula_source <- function(x) {
  sources <- if (is.language(x)) list(x) else if (is.list(x)) list(x$formula, if (is.list(x$call)) x$call$formula)
  for (source in Filter(function(s) is.call(s) && !inherits(s, "formula"), sources)) {
    if (!identical(source[[1L]], as.name("~"))) {
      refuse("formula() of a call other than `~` is not available in jube-r")
    }
    refuse_forbidden_code(source, "a formula")
  }
}

# A formula formula.default made in its own frame gets its caller's environment when that is
# contained (as formula(quote(y ~ x)) always did); package code's calls are left as they were.
contain_formula_env <- function(value, env) if (is_contained(env)) contain_result_env(value, env) else value

harden_formula_default <- function() {
  method <- get("formula.default", envir = asNamespace("stats"))
  body(method) <- call("{",
    as.call(list(refuse_formula_source, quote(x))),
    as.call(list(contain_formula_env, body(method), quote(env))))
  rebind_stats_method("formula.default", method = method)
}

# rlang's eval_tidy(), which dplyr's case_when() and ggplot2 call on formulas and quosures.
harden_tidy_eval <- function(ns) {
  check <- function(expr, data, env) {
    # A quosure carries its own environment; data (a data frame or mask) shadows it, as in eval_tidy.
    carried <- inherits(expr, "quosure") || inherits(expr, "formula")
    where <- if (carried) attr(expr, ".Environment", exact = TRUE) else env
    refuse_forbidden_code(expr, "an expression given to tidy evaluation", data, where)
  }
  real <- get("eval_tidy", envir = ns)
  guarded <- real
  body(guarded) <- call("{", as.call(list(check, quote(expr), quote(data), quote(env))), body(real))
  rebind(ns, "eval_tidy", guarded)
}

harden_code_evaluators <- function(policy) {
  check_formula <- function(formula, data) {
    refuse_forbidden_code(formula, "a formula", data, attr(formula, ".Environment", exact = TRUE))
  }
  method <- get("model.frame.default", envir = asNamespace("stats"))
  body(method) <- call("{", as.call(list(check_formula, quote(formula), quote(data))), body(method))
  rebind_stats_method("model.frame.default", method = method)
  harden_formula_default()
  check_expr <- function(expr, rho) refuse_forbidden_code(expr, "an expression given to numericDeriv()", NULL, rho)
  numeric_deriv <- stats::numericDeriv
  body(numeric_deriv) <- call("{", as.call(list(check_expr, quote(expr), quote(rho))), body(numeric_deriv))
  for (env in package_envs("stats")) rebind(env, "numericDeriv", numeric_deriv)
}
