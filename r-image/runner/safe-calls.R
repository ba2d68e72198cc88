# The runtime side of the relaxations (script-rules.json `relaxations`): the static rules let
# do.call(), match.fun(), local() and options(op) through in their plain forms, so the script's
# environment gets versions of them that refuse again what the rules refuse, whatever the static
# walk saw (make_mask() binds them); and reformulate(), no longer forbidden, builds no formula
# from text that names a forbidden symbol, by any route (harden_runtime() rebinds it in stats).

# Whether `name` is one do.call()/match.fun() may look up: syntactic, not forbidden, not a
# function whose checks read its call as written (relaxations.ts, literalCallProblem).
refuse_literal_name <- function(name, policy, fn) {
  refused <- c(
    policy$forbidden, policy$loaders, policy$option_functions, policy$hof_names, policy$refused_literal_names
  )
  if (!is.character(name) || length(name) != 1L || is.na(name) || make.names(name) != name || name %in% refused) {
    shown <- paste(name, collapse = " ")
    refuse(sprintf("%s() of '%s' is not available in jube-r; call the function directly", fn, shown))
  }
}

# do.call(what, args, quote): `what` a function or a name refuse_literal_name() accepts, looked up
# from the caller; calls and symbols in `args` are passed as values (quote = TRUE), never evaluated,
# so do.call() cannot serve as an evaluator; no envir, and no loader passed as a function value.
safe_do_call <- function(policy) {
  real_do_call <- base::do.call
  # `quote` is accepted for compatibility; arguments are always quoted.
  function(what, args, quote = FALSE, envir) {
    if (!missing(envir)) refuse("do.call(envir = ...) is not available in jube-r")
    caller <- parent.frame()
    if (!is.function(what)) refuse_literal_name(what, policy, "do.call")
    for (name in policy$loaders) {
      mine <- get0(name, envir = caller, mode = "function")
      if (identical(what, mine) || identical(what, get0(name, envir = baseenv()))) {
        refuse("do.call() of a package loader is not available in jube-r; call it directly")
      }
    }
    real_do_call(what, args, quote = TRUE, envir = caller)
  }
}

# match.fun(FUN): a function as given, or a name refuse_literal_name() accepts, looked up from the caller.
safe_match_fun <- function(policy) {
  function(FUN, descend = TRUE) { # nolint: object_name_linter. match.fun()'s own argument name.
    if (is.function(FUN)) return(FUN)
    name <- if (is.symbol(FUN)) as.character(FUN) else FUN
    refuse_literal_name(name, policy, "match.fun")
    get(name, envir = parent.frame(), mode = "function")
  }
}

# local(expr): the block in a new environment whose parent is the caller's; there is no envir.
safe_local <- function(expr) eval(substitute(expr), new.env(parent = parent.frame()))

# check(name, value): refuses a setting the script's options() would refuse (also withr's, export-arguments.R).
option_setting_check <- function(policy) {
  function(name, value) {
    if (name %in% policy$denied_options && !identical(value, getOption(name))) {
      refuse(sprintf("the option '%s' cannot be set in jube-r", name))
    }
    allowed <- policy$restricted_options[[name]]
    if (!is.null(allowed) && !is.null(value) && !(is.numeric(value) && length(value) == 1L && value %in% allowed)) {
      refuse(sprintf("the option '%s' may be set only to %s in jube-r", name, paste(allowed, collapse = ", ")))
    }
  }
}

# options(...): settings by name or in unnamed lists, queries by string, as options() takes them;
# a denied option may only be given the value it already has (restoring a saved list).
safe_options <- function(policy) {
  real_options <- base::options
  check <- option_setting_check(policy)
  function(...) {
    args <- list(...)
    given <- if (is.null(names(args))) rep("", length(args)) else names(args)
    for (k in seq_along(args)) {
      if (nzchar(given[[k]])) check(given[[k]], args[[k]])
      else if (is.list(args[[k]])) for (name in names(args[[k]])) check(name, args[[k]][[name]])
    }
    real_options(...)
  }
}

# Sys.setenv(...): only the listed zone and locale names, each to a string of the allowed form.
safe_sys_setenv <- function(policy) {
  real_sys_setenv <- base::Sys.setenv
  function(...) {
    args <- list(...)
    given <- names(args)
    for (k in seq_along(args)) {
      name <- if (is.null(given)) "" else given[[k]]
      value <- args[[k]]
      ok <- name %in% policy$env_setting_names && is.character(value) && length(value) == 1L && !is.na(value) &&
        grepl(policy$env_setting_pattern, value, perl = TRUE)
      if (!ok) {
        names <- paste(policy$env_setting_names, collapse = ", ")
        refuse(sprintf("Sys.setenv() may set only %s, to a zone or locale name, in jube-r", names))
      }
    }
    real_sys_setenv(...)
  }
}

# attach(df): a data frame whose columns are atomic vectors only, under the name the script wrote.
safe_attach <- function(policy) {
  real_attach <- base::attach
  function(what, warn.conflicts = TRUE) { # nolint: object_name_linter. attach()'s own argument name.
    name <- deparse1(substitute(what))
    atomic <- is.data.frame(what) && all(vapply(what, function(col) is.atomic(col) || is.factor(col), NA))
    if (!atomic) refuse("attach() of anything but a data frame of atomic columns is not available in jube-r")
    real_attach(what, name = name, warn.conflicts = isTRUE(warn.conflicts))
  }
}

# name -> the script's version, bound in the mask by make_mask().
relaxed_replacements <- function(policy) {
  replacements <- list(
    do.call = safe_do_call(policy), match.fun = safe_match_fun(policy),
    local = safe_local, options = safe_options(policy)
  )
  for (name in policy$env_setting_functions) replacements[[name]] <- safe_sys_setenv(policy)
  for (name in policy$attach_functions) replacements[[name]] <- safe_attach(policy)
  for (name in policy$example_functions) replacements[[name]] <- safe_example(policy)
  for (name in policy$fresh_env_functions) replacements[[name]] <- safe_as_environment
  for (name in policy$env_read_functions) replacements[[name]] <- safe_sys_getenv(policy)
  for (name in policy$working_directory_functions) replacements[[name]] <- safe_setwd
  for (name in policy$sink_functions) replacements[[name]] <- safe_sink(policy)
  replacements
}

# stats' reformulate() with formula_guard() (harden.R) on the text it parses: the joined term
# labels and the response, each parsed on its own as reformulate() does.
harden_reformulate <- function(policy) {
  guard <- formula_guard(policy)
  check <- function(termlabels, response) {
    if (is.character(termlabels)) guard(paste(termlabels, collapse = "+"))
    if (is.character(response)) for (text in response) guard(text)
  }
  real <- get("reformulate", envir = asNamespace("stats"))
  safe <- real
  body(safe) <- call("{", as.call(list(check, quote(termlabels), quote(response))), body(real))
  for (env in package_envs("stats")) rebind(env, "reformulate", safe)
}
