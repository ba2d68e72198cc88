# The literal-name relaxations (script-rules.json `relaxations.literalFunctionNames` and
# `localBlocks`) on R's parse data, as layers/validator/relaxations.ts judges them: do.call() and
# match.fun() naming their function literally, local() with its one block; and the call forms of
# Sys.setenv() and attach() (their own relaxations); Sys.getenv(), setwd() and sink() in contained-forms.R.

# Whether the call expression `id` is the right-hand side of a pipe (|> or %op%).
piped_call <- function(pd, id) {
  kids <- children_of(pd, pd_row(pd, id)$parent)
  nrow(kids) == 3L && kids$id[[3L]] == id && (kids$token[[2L]] == "PIPE" || kids$token[[2L]] == "SPECIAL")
}

is_dots <- function(arg) identical(arg$token, "SYMBOL") && grepl("^[.][.]([.]|[0-9]+)$", arg$text)

# Why a call of do.call()/match.fun() does not name its function literally, or NULL (literalCallProblem).
literal_call_problem <- function(name, site, policy) {
  spec <- policy$literal_functions[[name]]
  allowed <- c(spec$argument, unlist(spec$otherArguments))
  args <- site$args
  named <- Filter(function(a) !is.null(a$name), args)
  positional <- Filter(function(a) is.null(a$name), args)
  takes_only <- sprintf("%s() takes only %s", name, toString(allowed))
  if (piped_call(site$parsed$pd, site$call)) return(sprintf("a pipe would hand %s() its function", name))
  if (any(vapply(args, is_dots, NA))) return(sprintf("%s() must be given its arguments explicitly", name))
  if (!all(vapply(named, function(a) a$name %in% allowed, NA))) return(takes_only)
  if (length(positional) > length(allowed) - length(named)) return(takes_only)
  what <- Find(function(a) identical(a$name, spec$argument), args)
  if (is.null(what) && length(positional) > 0L) what <- positional[[1L]]
  literal_name_problem(name, what, policy, if (isTRUE(spec$refusesVariables)) site$parsed)
}

# Why the argument `what` does not name a function do.call()/match.fun() may call, or NULL: a
# symbol the script binds as a variable could hold any name at run time (bindsAsVariable), checked
# when `parsed` is given (the function's `refusesVariables`).
literal_name_problem <- function(name, what, policy, parsed) {
  if (is.null(what) || !(what$token %in% c("SYMBOL", "STR_CONST")) || is_dots(what)) {
    return(sprintf("%s() must name its function literally", name))
  }
  value <- if (what$token == "STR_CONST") string_value(what$text) else strip_quotes(what$text)
  refused <- c(policy$loaders, policy$option_functions, policy$hof_names, policy$refused_literal_names)
  if (make.names(value) != value) return(sprintf("%s() must name an ordinary function, not `%s`", name, value))
  if (value %in% policy$forbidden) return(sprintf("`%s` is forbidden", value))
  if (value %in% refused) return(sprintf("call %s() directly", value))
  if (!is.null(parsed) && what$token == "SYMBOL" && binds_as_variable(parsed, value)) {
    return(sprintf("`%s` is a variable of the script; name the function literally", value))
  }
  NULL
}

# Whether the script binds `name` as a variable: a parameter, a loop variable, or assigned anything
# but a function definition (bindsAsVariable in script-facts.ts).
binds_as_variable <- function(parsed, name) {
  if (!binds_name(parsed, name)) return(FALSE)
  at <- which(parsed$tokens$token %in% c("SYMBOL", "STR_CONST", "SYMBOL_FORMALS") & token_values(parsed) == name)
  any(vapply(at, function(k) {
    role <- token_role(parsed, k)
    role == "parameter" || (role == "binding" && !assigns_function(parsed$pd, parsed$tokens$parent[[k]]))
  }, NA))
}

# Whether the assignment whose target is the expression `id` gives it a function definition.
assigns_function <- function(pd, id) {
  if (pd_row(pd, id)$token == "forcond") return(FALSE)
  kids <- children_of(pd, pd_row(pd, id)$parent)
  value <- if (kids$id[[1L]] == id) kids$id[[3L]] else kids$id[[1L]]
  first <- children_of(pd, value)
  nrow(first) > 0L && first$token[[1L]] %in% c("FUNCTION", "'\\\\'")
}

local_call_problem <- function(name, site) {
  args <- site$args
  ok <- !piped_call(site$parsed$pd, site$call) && length(args) == 1L && !is_dots(args[[1L]]) &&
    (is.null(args[[1L]]$name) || identical(args[[1L]]$name, "expr"))
  if (ok) NULL else sprintf("only %s({ ... }) with its one block is allowed", name)
}

# Why a Sys.setenv() call sets anything but the listed names to literal strings of the allowed
# form (relaxations.environmentSettings; environmentSettingProblem in relaxations.ts), or NULL.
env_setting_problem <- function(name, site, policy) {
  args <- site$args
  if (piped_call(site$parsed$pd, site$call) || length(args) == 0L || any(vapply(args, is_dots, NA))) {
    return(sprintf("write it as %s(TZ = \"UTC\")", name))
  }
  for (arg in args) {
    if (is.null(arg$name) || !(arg$name %in% policy$env_setting_names)) {
      return(sprintf("it may set only %s, each by name", paste(policy$env_setting_names, collapse = ", ")))
    }
    ok <- identical(arg$token, "STR_CONST") && grepl(policy$env_setting_pattern, strip_quotes(arg$text), perl = TRUE)
    if (!ok) return(sprintf("%s must be a literal string naming a zone or locale", arg$name))
  }
  NULL
}

# Why an attach() call is not attach(df) of a frame named by a variable, with at most the listed
# arguments given TRUE or FALSE (relaxations.attachedFrames; attachProblem in relaxations.ts), or NULL.
attach_problem <- function(name, site, policy) {
  args <- site$args
  what <- if (length(args) > 0L) args[[1L]]
  plain <- !piped_call(site$parsed$pd, site$call) && !is.null(what) && identical(what$token, "SYMBOL") &&
    (is.null(what$name) || identical(what$name, "what"))
  others <- all(vapply(args[-1L], function(a) {
    logical <- identical(a$token, "NUM_CONST") && a$text %in% c("TRUE", "FALSE")
    !is.null(a$name) && a$name %in% policy$attach_other_args && logical
  }, NA))
  if (plain && others) NULL else sprintf("only %s(df) of a data frame named by a variable is allowed", name)
}

relaxed_call_verdict <- function(parsed, i, name, policy) {
  relaxed <- c(
    names(policy$literal_functions), policy$local_functions, policy$env_setting_functions, policy$attach_functions,
    policy$example_functions, policy$fresh_env_functions,
    policy$env_read_functions, policy$working_directory_functions, policy$sink_functions
  )
  if (!(name %in% relaxed)) return(NULL)
  # base::local() is local() and utils::example() is example(): where the plain name resolves anyway.
  home <- if (name %in% policy$local_functions) {
    "base"
  } else if (name %in% policy$example_functions) {
    policy$example_package
  }
  via_base <- !is.null(home) && parsed$previous_token[[i]] == "NS_GET" && i > 2L &&
    parsed$tokens$text[[i - 2L]] == home
  if (parsed$previous_token[[i]] %in% c("NS_GET", "NS_GET_INT") && !via_base) {
    return(sprintf("write %s() without pkg::", name))
  }
  site <- call_site(parsed, i)
  problem <- if (name %in% policy$local_functions) {
    local_call_problem(name, site)
  } else if (name %in% policy$example_functions) {
    example_problem(name, site, policy)
  } else if (name %in% policy$fresh_env_functions) {
    fresh_environment_problem(name, site)
  } else if (name %in% policy$env_setting_functions) {
    env_setting_problem(name, site, policy)
  } else if (name %in% policy$attach_functions) {
    attach_problem(name, site, policy)
  } else if (name %in% policy$env_read_functions) {
    env_read_problem(name, site, policy)
  } else if (name %in% policy$working_directory_functions) {
    working_directory_problem(name, site)
  } else if (name %in% policy$sink_functions) {
    console_diversion_problem(name, site, policy)
  } else {
    literal_call_problem(name, site, policy)
  }
  if (is.null(problem)) TRUE else sprintf("'%s' is allowed only in its plain form: %s", name, problem)
}
