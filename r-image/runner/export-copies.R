# The run-time half of a checked named export (export-arguments.R judges the parse data): the copy
# the runner's `::` hands out for withr's with_options, with_envvar, with_tempfile, ... and rlang's
# local_options and with_options, which checks each constrained argument's value before the
# function's own body runs.

string_matching <- function(value, pattern) {
  is.character(value) && length(value) == 1L && !is.na(value) && grepl(pattern, value, perl = TRUE)
}

# kind -> function(value, formal, fail) that refuses a value its kind does not allow, as the script's
# options() and Sys.setenv() refuse them.
export_value_checks <- function(policy) {
  option_check <- option_setting_check(policy)
  named <- function(values, fail) {
    if (length(values) > 0L && (is.null(names(values)) || any(!nzchar(names(values))))) {
      fail("every setting needs a name")
    }
  }
  settings <- function(values, formal, fail) {
    named(values, fail)
    for (k in seq_along(values)) {
      ok <- names(values)[[k]] %in% policy$env_setting_names &&
        string_matching(values[[k]], policy$env_setting_pattern)
      if (!ok) fail(sprintf("it may set only %s, each to a zone or locale name", toString(policy$env_setting_names)))
    }
  }
  options <- function(values, formal, fail) {
    if (!is.list(values) && !is.atomic(values)) fail("the options must be a list of settings")
    named(values, fail)
    for (k in seq_along(values)) option_check(names(values)[[k]], values[[k]])
  }
  list(
    options = options, option = options,
    settings = function(values, formal, fail) settings(as.list(values), formal, fail), setting = settings,
    zone = function(value, formal, fail) {
      if (!string_matching(value, policy$env_setting_pattern)) fail(sprintf("%s must name a zone or locale", formal))
    },
    seed = function(value, formal, fail) if (!is.numeric(value)) fail(sprintf("%s must be a number", formal)),
    name = function(value, formal, fail) {
      if (!string_matching(value, "^[A-Za-z.]") || make.names(value) != value) {
        fail(sprintf("%s must name a variable", formal))
      }
    },
    fileSuffix = function(value, formal, fail) {
      if (!string_matching(value, file_suffix_pattern)) {
        fail(sprintf("%s must be letters, digits, '.', '_' and '-'", formal))
      }
    }
  )
}

# rlang's dots are dynamic (`!!!` splices, `:=` names) and its list2() reads them afresh each time,
# running their code again: a copy of an rlang function reads them once, checks those values and
# hands the function them spliced, so what runs is what was checked. withr's list(...) forces each
# promise once, and its body reuses the values the guard saw.
dynamic_dots_packages <- "rlang"

# pkg::name(formal = formal, ..., !!!.checked): the real function given the copy's own arguments,
# `...` replaced by the checked values.
forward_checked <- function(real) {
  formals <- names(formals(real))
  args <- lapply(formals, function(f) if (f == "...") quote(!!!.checked) else as.name(f))
  names(args) <- ifelse(formals == "...", "", formals)
  as.call(c(list(real), args))
}

# A copy of `pkg::name` (same environment and formals) whose body first checks, in its own frame,
# every argument its kind constrains: refused ones must be missing, `...` must be empty unless the
# spec lets it through, and values are checked by export_value_checks(); `value` arguments (the
# script's own code) are never forced early.
checked_export <- function(pkg, name, spec, policy) {
  real <- getExportedValue(pkg, name)
  checks <- export_value_checks(policy)
  dynamic <- pkg %in% dynamic_dots_packages
  collect <- if (dynamic) as.call(list(rlang::list2, quote(...))) else quote(list(...))
  fail <- function(why) {
    refuse(sprintf("'%s::%s' is allowed in jube-r only with checked arguments: %s", pkg, name, why))
  }
  guard <- function(frame) {
    dots <- list()
    for (formal in names(formals(real))) {
      kind <- if (formal %in% names(spec)) spec[[formal]] else "refused"
      if (formal == "...") {
        dots <- eval(collect, frame)
        if (kind == "refused" && length(dots) > 0L) fail("it takes no further arguments")
        if (kind %in% names(checks)) checks[[kind]](dots, formal, fail)
      } else if (kind != "value" && !eval(call("missing", as.name(formal)), frame)) {
        if (kind == "refused") fail(sprintf("it may not be given %s", formal))
        checks[[kind]](get(formal, envir = frame), formal, fail)
      }
    }
    dots
  }
  guarded <- as.call(list(guard, as.call(list(base::environment))))
  copy <- real
  body(copy) <- if (dynamic) {
    call("{", call("<-", quote(.checked), guarded), forward_checked(real))
  } else {
    call("{", guarded, body(real))
  }
  copy
}
