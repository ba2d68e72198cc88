# as.environment() (script-rules.json relaxations.freshEnvironments): the shape both validators accept
# (freshEnvironmentProblem in layers/validator/relaxations.ts), and the script's version, which makes a new environment
# under the empty one, in no chain that reaches the mask, the runner, a namespace or the search path.

literal_tokens <- c("STR_CONST", "NUM_CONST", "NULL_CONST")

# Why an as.environment() call could name the search path or a package's environment, or NULL: one argument, not a
# literal number or string (also behind a sign).
fresh_environment_problem <- function(name, site) {
  args <- site$args
  x <- if (length(args) == 1L) args[[1L]]
  one <- !piped_call(site$parsed$pd, site$call) && !is.null(x) && (is.null(x$name) || identical(x$name, "x")) &&
    !is_dots(x)
  if (!one) return(sprintf("only %s(x) of one list or data frame is allowed", name))
  token <- x$token
  if (identical(token, "expr")) {
    kids <- children_of(site$parsed$pd, x$id)
    if (nrow(kids) == 2L && kids$token[[1L]] %in% c("'-'", "'+'")) {
      inner <- children_of(site$parsed$pd, kids$id[[2L]])
      if (nrow(inner) == 1L && inner$terminal[[1L]]) token <- inner$token[[1L]]
    }
  }
  if (token %in% literal_tokens) {
    return(sprintf("%s() of a number or a string would name the search path or a package's environment", name))
  }
  NULL
}

# as.environment(x): a new environment of a list's (a data frame's) elements; never the search path or a package.
# An xts series gives one binding per column, as xts's own as.environment() method does.
safe_as_environment <- function(x) {
  if (inherits(x, "xts")) x <- stats::setNames(lapply(seq_len(NCOL(x)), function(i) x[, i]), colnames(x))
  if (!is.list(x) || is.environment(x)) {
    refuse(paste(
      "as.environment() of anything but a list or data frame is not available in jube-r",
      "(a number or string names the search path); give it a list, e.g. as.environment(list(a = 1))"
    ))
  }
  list2env(x, parent = emptyenv())
}
