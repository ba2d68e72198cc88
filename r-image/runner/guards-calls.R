# Evaluators given an environment or code by the script (docs/script-rules.md), and the registry
# of every guarded function the mask binds. with(env, ...), model.frame() of a formula whose
# environment is a package's, numericDeriv(expr, , rho = env) and purrr::exec(name, .env = env)
# each evaluated a call built around .Internal in a package frame. Package code calls the same
# functions with its own frames all the time, so only what the script passes is checked: the
# mask's versions (and `pkg::`'s, and match.fun's answers) refuse an environment that is not
# contained; the real functions stay as they are, apart from the code checks in harden.R.

# The names `code` looks up: all.names() except the field after `$` and `@` (`.data$source`
# selects a column, it looks nothing up).
code_names <- function(code) {
  if (is.symbol(code)) return(as.character(code))
  if (is.expression(code)) return(unlist(lapply(code, code_names), use.names = FALSE))
  if (!is.call(code)) return(character())
  head <- code[[1L]]
  if (is.symbol(head) && as.character(head) %in% c("$", "@") && length(code) == 3L) {
    return(c(as.character(head), code_names(code[[2L]])))
  }
  unlist(lapply(as.list(code), code_names), use.names = FALSE)
}

# The names `code` calls: the heads of its calls (a function is looked up for them, past data).
called_names <- function(code) {
  if (is.expression(code)) return(unlist(lapply(code, called_names), use.names = FALSE))
  if (!is.call(code)) return(character())
  head <- code[[1L]]
  c(if (is.symbol(head)) as.character(head), unlist(lapply(as.list(code), called_names), use.names = FALSE))
}

# Names a data argument binds: the columns of a data frame or list, the bindings of an environment.
data_names <- function(data) {
  if (is.environment(data)) return(ls(data, all.names = TRUE))
  if (is.list(data)) return(names(data))
  character()
}

# Whether the forbidden `name`, read as a value (not called), would reach a function where the
# code is evaluated: not when `data` has it (a column called `source`), nor when `env` resolves it
# to the mask's own stub or to data; unknown `env` (NULL) means it might.
reaches_function <- function(name, data, env) {
  if (name %in% data_names(data)) return(FALSE)
  if (!is.environment(env)) return(TRUE)
  value <- get0(name, envir = env, inherits = TRUE)
  stub <- get0(name, envir = guard_state$mask, inherits = FALSE)
  is.function(value) && !identical(value, stub)
}

# Code that calls a forbidden symbol or uses a blocked operator (a call built with as.name()
# included), or reads one as a value where it would reach the real function: no analysis needs it
# inside a formula or an expression handed to an evaluator. A column named like a forbidden function
# (the rules' relaxations let `aggregate(seconds ~ url, data = d)` through) is data, not a function.
refuse_forbidden_code <- function(code, what, data = NULL, env = NULL) {
  names <- unique(c(code_names(code), code_names(attr(code, "predvars", exact = TRUE))))
  policy <- guard_state$policy
  called <- called_names(code)
  for (name in names[names %in% c(policy$forbidden, policy$blocked_operators)]) {
    if (name %in% called || name %in% policy$blocked_operators || reaches_function(name, data, env)) {
      refuse(sprintf("'%s' is not available in jube-r, not even inside %s", name, what))
    }
  }
  invisible()
}

refuse_model_formula <- function(formula, data = NULL) {
  if (inherits(formula, "formula")) {
    refuse_forbidden_code(formula, "a formula", data, attr(formula, ".Environment", exact = TRUE))
    refuse_uncontained(attr(formula, ".Environment", exact = TRUE), "the formula's environment")
  }
  invisible()
}

# name -> its package and the calls its mask version runs first (argument names are the real
# function's; `...elt()` reaches an argument a generic passes on in `...`).
evaluator_guards <- list(
  with = list(pkg = "base", checks = list(call("refuse_uncontained", quote(data), "with(data = )"))),
  within = list(pkg = "base", checks = list(call("refuse_uncontained", quote(data), "within(data = )"))),
  model.frame = list(pkg = "stats", checks = list(
    quote(refuse_model_formula(formula, if ("data" %in% ...names()) ...elt(match("data", ...names())))),
    quote(if ("data" %in% ...names()) refuse_uncontained(...elt(match("data", ...names())), "model.frame(data = )"))
  )),
  numericDeriv = list(pkg = "stats", default = "rho", checks = list(
    quote(refuse_forbidden_code(expr, "an expression given to numericDeriv()", NULL, rho))
  ))
)

# The runner's own helpers, inlined into the checks so that the copies (whose environment is the
# real function's) never look them up by name.
inline_helpers <- function(code) {
  helpers <- list(
    refuse_uncontained = refuse_uncontained, refuse_model_formula = refuse_model_formula,
    refuse_forbidden_code = refuse_forbidden_code
  )
  if (is.call(code)) {
    head <- code[[1L]]
    if (is.symbol(head) && as.character(head) %in% names(helpers)) code[[1L]] <- helpers[[as.character(head)]]
    for (i in seq_along(code)[-1L]) if (is.call(code[[i]])) code[[i]] <- inline_helpers(code[[i]])
  }
  code
}

evaluator_guard <- function(real, name, spec) {
  checks <- lapply(spec$checks, inline_helpers)
  if (!is.null(spec$default)) checks <- c(list(default_prologue(name, spec$default)), checks)
  with_prologue(real, checks)
}

# ---- the registry ------------------------------------------------------------------------------

guard_or_real <- function(pkg, name) {
  guard <- guarded_export(pkg, name)
  if (is.null(guard)) getExportedValue(pkg, name) else guard
}

# The guarded version of `pkg::name`, or NULL when it needs none. Built once per mask.
guarded_export <- function(pkg, name) {
  key <- paste(pkg, name, sep = "::")
  cached <- guard_state$cache[[key]]
  if (!is.null(cached)) return(if (is.function(cached)) cached else NULL)
  guard <- build_guard(pkg, name)
  guard_state$cache[[key]] <- if (is.null(guard)) FALSE else guard
  guard
}

# The names `pkg` exports (base: all of its bindings), as an environment of names. Loads the
# namespace if need be (`pkg::name` is about to).
package_exports <- function(pkg) {
  if (pkg == "base") return(.BaseNamespaceEnv)
  asNamespace(pkg)[[".__NAMESPACE__."]][["exports"]]
}

# Names with a guarded version in some package: a guard is only looked for among these.
guarded_names <- function(policy) {
  names <- c(names(caller_frame_guards), names(evaluator_guards), names(attribute_guards), policy$hof_names)
  setdiff(unique(names), c(policy$forbidden, names(safe_replacements)))
}

build_guard <- function(pkg, name) {
  exports <- package_exports(pkg)
  if (!(name %in% guard_state$guarded_names) || !exists(name, envir = exports, inherits = FALSE)) return(NULL)
  real <- get(name, envir = if (pkg == "base") .BaseNamespaceEnv else asNamespace(pkg))
  for (table in list(caller_frame_guards, evaluator_guards, attribute_guards)) {
    spec <- table[[name]]
    if (is.null(spec) || !(pkg %in% spec$pkg)) next
    if (!is.null(spec$fun)) return(spec$fun)
    if (!is.null(spec$checks)) return(evaluator_guard(real, name, spec))
    return(capture_guard(real, name, spec))
  }
  hof_guard(real, name, guard_state$policy)
}

# Binds in the mask the guarded version of every export of `pkg` that may have one (latest
# attach wins, as on the search path); forbidden names keep their stubs, the runner's safe
# replacements their place. Each is built when the script first looks it up (a promise), so
# start-up loads none of them; one that needs no guard resolves to the real function.
bind_package_guards <- function(mask, pkg) {
  if (!(pkg %in% loadedNamespaces())) return(invisible())
  exports <- package_exports(pkg)
  bind <- function(name) delayedAssign(name, guard_or_real(pkg, name), assign.env = mask)
  for (name in guard_state$guarded_names) {
    if (exists(name, envir = exports, inherits = FALSE)) {
      bind(name)
      assign(name, pkg, envir = guard_state$owner)
    }
  }
  if (pkg == "base") {
    assign("~", contained_tilde, envir = mask)
    assign("~", "base", envir = guard_state$owner)
    # `...` named in a formula (dcast(DT, ... ~ v)) is an argument of the closure above, which R
    # expands from the caller's `...`: outside a function the mask's empty one stands in, so the
    # call is not refused as "'...' used in an incorrect context" (the primitive never looked).
    assign("...", NULL, envir = mask)
  }
}

# What the mask binds for `name` when it is a guarded function (match.fun("new.env") from a
# package frame finds the same guard as the script's new.env), else NULL.
guarded_by_name <- function(name) {
  if (is.null(guard_state$owner) || !exists(name, envir = guard_state$owner, inherits = FALSE)) return(NULL)
  get(name, envir = guard_state$mask, inherits = FALSE)
}
