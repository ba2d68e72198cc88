# Package frames captured through a function value (docs/script-rules.md). A function that
# defaults an environment to its caller's frame (new.env(parent = parent.frame()),
# formula.data.frame(env = parent.frame()), ggplot(environment = parent.frame()), the `~`
# primitive, rlang's quo()) hands out a package frame when a package calls it: lapply(1, new.env)
# gave the script an environment whose parent is lapply's frame in namespace:base. Two guards,
# each enough for the routes found, together for the ones not found yet:
# - the higher-order functions of the rules (`higherOrderFunctions.names`) are copied into the
#   mask with their function arguments (`functionArgumentNames`) wrapped in a closure whose
#   environment descends from the caller's, so whatever they call sees a contained caller;
# - the capturing functions themselves (`caller_frame_guards`) replace a caller that is not
#   contained by the mask, refuse an uncontained environment given explicitly, and the quosure
#   makers refuse a result that holds one.

# A copy of `fun` (same environment: parent.frame(), sys.function() and match.call() behave as
# in the original) whose body runs `prologue` (a list of calls) first.
with_prologue <- function(fun, prologue) {
  copy <- fun
  body(copy) <- as.call(c(list(as.name("{")), prologue, list(body(fun))))
  copy
}

# The environment a capturing function gets when the script did not give one: its caller if that
# is contained, else the mask (a package frame calling it is never handed out).
contained_caller <- function(caller) if (is_contained(caller)) caller else guard_state$mask

# Refuses a result holding an uncontained environment: itself, a formula's or quosure's
# environment, or either in a list (aes(), quos()).
refuse_uncontained_result <- function(value, what) {
  values <- if (is.list(value) && !is.environment(value)) c(list(value), unclass(value)) else list(value)
  for (v in values) {
    refuse_uncontained(v, what)
    if (is.language(v)) refuse_uncontained(attr(v, ".Environment", exact = TRUE), what)
  }
  invisible()
}

# ---- the capturing functions -------------------------------------------------------------------

# name -> its package and what is guarded: `default` (an argument defaulting to the caller's
# frame), `generic` (an S3 generic: the default is passed on explicitly, since UseMethod() would
# not pass a changed argument on), `result` (the value must hold no uncontained environment).
# test/runner/r/test-guards-frames.R finds every export of base R and the allowed packages with
# such a default and checks it is here, forbidden, or known to be harmless.
caller_frame_guards <- list(
  new.env = list(pkg = "base", default = "parent"),
  bquote = list(pkg = "base", default = "where"),
  formula = list(pkg = "stats", default = "env", generic = TRUE),
  # No longer forbidden (the relaxations): their formula is built in the caller's frame.
  as.formula = list(pkg = "stats", default = "env"),
  reformulate = list(pkg = "stats", default = "env"),
  DF2formula = list(pkg = "stats", default = "env"),
  nls = list(pkg = "stats", default = "data"),
  xtabs = list(pkg = "stats", default = "data"),
  ggplot = list(pkg = "ggplot2", default = "environment", generic = TRUE),
  str_glue = list(pkg = "stringr", default = ".envir"),
  str_glue_data = list(pkg = "stringr", default = ".envir"),
  str_interp = list(pkg = "stringr", default = "env"),
  exec = list(pkg = "purrr", default = ".env"),
  asOneSidedFormula = list(pkg = "stats", contain_result = TRUE),
  group_by_prepare = list(pkg = "dplyr", default = "caller_env"),
  distinct_prepare = list(pkg = "dplyr", default = "caller_env"),
  aes = list(pkg = "ggplot2", result = TRUE),
  vars = list(pkg = c("ggplot2", "dplyr"), result = TRUE),
  quo = list(pkg = c("ggplot2", "dplyr"), result = TRUE),
  quos = list(pkg = c("ggplot2", "dplyr"), result = TRUE),
  enquo = list(pkg = c("ggplot2", "dplyr"), result = TRUE),
  enquos = list(pkg = c("ggplot2", "dplyr"), result = TRUE)
)

default_prologue <- function(name, arg) {
  label <- sprintf("%s(%s = )", name, arg)
  call("if", call("missing", as.name(arg)),
    call("<-", as.name(arg), as.call(list(contained_caller, quote(parent.frame())))),
    as.call(list(refuse_uncontained, as.name(arg), label)))
}

# An S3 generic with a caller-frame default: a closure in a contained environment (so the generic
# sees a contained caller) passing the default on explicitly. Its body looks names up through the
# mask, so parent.frame (a stub there) is inlined.
generic_with_default <- function(real, name, arg) {
  label <- sprintf("%s(%s = )", name, arg)
  holder <- new.env(parent = guard_state$mask)
  holder$real <- real
  wrapper <- function(...) NULL
  given <- call("%in%", arg, quote(...names()))
  body(wrapper) <- call("if", given,
    call("{", as.call(list(refuse_uncontained, call("...elt", call("match", arg, quote(...names()))), label)),
      quote(real(...))),
    as.call(c(list(quote(real), quote(...)),
      stats::setNames(list(as.call(list(contained_caller, as.call(list(parent.frame))))), arg))))
  environment(wrapper) <- holder
  wrapper
}

# A closure in a contained environment calling `real` and giving the formula it returns the
# caller's environment when it is not contained (asOneSidedFormula() sets globalenv()).
with_contained_result <- function(real) {
  holder <- new.env(parent = guard_state$mask)
  holder$real <- real
  wrapper <- function(...) NULL
  body(wrapper) <- as.call(list(contain_result_env, quote(real(...)), as.call(list(parent.frame))))
  environment(wrapper) <- holder
  wrapper
}

contain_result_env <- function(value, caller) {
  if (!inherits(value, "formula") || is_contained(attr(value, ".Environment", exact = TRUE))) return(value)
  structure(value, .Environment = contained_caller(caller))
}

capture_guard <- function(real, name, spec) {
  if (isTRUE(spec$contain_result)) return(with_contained_result(real))
  if (isTRUE(spec$result)) {
    label <- sprintf("the value of %s()", name)
    check <- call("on.exit", as.call(list(refuse_uncontained_result, quote(returnValue(NULL)), label)), add = TRUE)
    return(with_prologue(real, list(check)))
  }
  if (isTRUE(spec$generic)) return(generic_with_default(real, name, spec$default))
  with_prologue(real, list(default_prologue(name, spec$default)))
}

# `~` as the primitive makes it (class "formula", the caller's frame as .Environment), except that
# a caller that is not contained (lapply(1, `~`), a tryCatch handler) is replaced by the mask.
contained_tilde <- function(...) {
  call <- sys.call()
  if (!is.null(attr(call, "class", exact = TRUE))) return(call)
  structure(call, class = "formula", .Environment = contained_caller(parent.frame()))
}

# ---- the higher-order functions ----------------------------------------------------------------

# Vectorize() reads its function's formals, which a wrapper would hide.
hof_not_wrapped <- "Vectorize"

# `f` as the higher-order function will call it: named (match.fun's style: FUN, f, fn, ...) it is
# looked up from the caller, through the mask; a function, or a list of functions (dplyr's
# .fns), is wrapped in a closure whose environment descends from the caller's.
contain_function <- function(f, caller, resolve) {
  caller <- contained_caller(caller)
  if (resolve && ((is.character(f) && length(f) == 1L && !is.na(f)) || is.symbol(f))) {
    f <- get(as.character(f), envir = caller, mode = "function")
  }
  if (is.list(f) && !is.object(f)) return(lapply(f, contain_function, caller = caller, resolve = FALSE))
  if (!is.function(f) || is_unwrapped(f)) return(f)
  holder <- new.env(parent = caller)
  holder$fn <- f
  wrapper <- function(...) fn(...)
  environment(wrapper) <- holder
  wrapper
}

# Whether `f` is one of the rules' `unwrappedFunctions` (pkg::name, its package loaded): passed
# as it is, since it evaluates its argument's expression in its caller's frame.
is_unwrapped <- function(f, names = guard_state$policy$unwrapped_functions) {
  for (name in names) {
    parts <- strsplit(name, "::", fixed = TRUE)[[1L]]
    if (parts[[1L]] %in% loadedNamespaces() && identical(f, getExportedValue(parts[[1L]], parts[[2L]]))) return(TRUE)
  }
  FALSE
}

# The copy of a higher-order function the mask binds, or NULL when it takes no function argument
# (or is a generic, whose methods would not see a changed argument).
hof_guard <- function(real, name, policy) {
  if (!is.function(real) || is.primitive(real) || isS4(real) || name %in% hof_not_wrapped) return(NULL)
  if ("UseMethod" %in% all.names(body(real))) return(NULL)
  args <- intersect(names(formals(real)), policy$fun_arg_names)
  if (length(args) == 0L) return(NULL)
  prologue <- lapply(args, function(arg) {
    resolve <- !startsWith(arg, ".")
    call("if", call("!", call("missing", as.name(arg))),
      call("<-", as.name(arg), as.call(list(contain_function, as.name(arg), quote(parent.frame()), resolve))))
  })
  with_prologue(real, prologue)
}
