# The call forms of Sys.getenv(), setwd() and sink() on R's parse data (script-rules.json
# relaxations.environmentReads, workingDirectory, consoleDiversion), as layers/validator/relaxations.ts
# judges them; relaxed_call_verdict() (literal-calls.R) asks these, and contained-calls.R holds the
# runtime versions that check what the parse data cannot show.

# A constant as written (STR_CONST, NUM_CONST: numbers, TRUE, FALSE, NA, Inf; NULL_CONST), or c()
# of strings (isLiteral in relaxations.ts).
literal_argument <- function(pd, arg) {
  if (arg$token %in% c("STR_CONST", "NUM_CONST", "NULL_CONST")) return(TRUE)
  if (!identical(arg$token, "expr") || is.null(arg$id) || callee_of(pd, arg$id) != "c") return(FALSE)
  all(vapply(call_arguments(pd, arg$id), function(a) is.null(a$name) && identical(a$token, "STR_CONST"), NA))
}

# R's matching of the call's arguments to `formals`: by name, then the unnamed ones in order; a
# list(formal = argument) or why not (matchArguments in relaxations.ts).
match_call_arguments <- function(name, site, formals) {
  args <- site$args
  if (piped_call(site$parsed$pd, site$call) || any(vapply(args, is_dots, NA))) {
    return(sprintf("%s() must be called with its arguments written out", name))
  }
  matched <- list()
  for (arg in Filter(function(a) !is.null(a$name), args)) {
    if (!(arg$name %in% formals)) return(sprintf("%s() takes only %s", name, toString(formals)))
    matched[[arg$name]] <- arg
  }
  open <- setdiff(formals, names(matched))
  positional <- Filter(function(a) is.null(a$name), args)
  if (length(positional) > length(open)) return(sprintf("%s() takes at most %d arguments", name, length(formals)))
  for (k in seq_along(positional)) matched[[open[[k]]]] <- positional[[k]]
  matched
}

# Whether the argument is a string literal naming an absolute or home path.
absolute_path_literal <- function(arg) {
  !is.null(arg) && identical(arg$token, "STR_CONST") && grepl("^[/~\\\\]", string_value(arg$text))
}

# Why a Sys.getenv() call's arguments are not literals (relaxations.environmentReads;
# environmentReadProblem in relaxations.ts), or NULL.
env_read_problem <- function(name, site, policy) {
  matched <- match_call_arguments(name, site, policy$env_read_arguments)
  if (is.character(matched)) return(matched)
  for (formal in names(matched)) {
    if (!literal_argument(site$parsed$pd, matched[[formal]])) {
      example <- sprintf("%s(\"TZ\") or %s(c(\"LANG\", \"TZ\"), unset = NA)", name, name)
      return(sprintf("its %s must be written literally, e.g. %s", formal, example))
    }
  }
  NULL
}

# Why a setwd() call is not setwd(dir) with dir no literal absolute or home path
# (relaxations.workingDirectory; workingDirectoryProblem in relaxations.ts), or NULL.
working_directory_problem <- function(name, site) {
  matched <- match_call_arguments(name, site, "dir")
  if (is.character(matched)) return(matched)
  if (is.null(matched$dir)) return(sprintf("give it the directory: %s(tempdir()) or %s(\"sub\")", name, name))
  if (absolute_path_literal(matched$dir)) {
    example <- sprintf("%s(\"sub\") or %s(tempdir())", name, name)
    return(sprintf("it may only move inside the run's directory or tempdir(): use a relative path, %s", example))
  }
  NULL
}

# Why a sink() call diverts anything but the output stream or names a literal absolute or home
# path (relaxations.consoleDiversion; consoleDiversionProblem in relaxations.ts), or NULL.
console_diversion_problem <- function(name, site, policy) {
  matched <- match_call_arguments(name, site, policy$sink_arguments)
  if (is.character(matched)) return(matched)
  type <- matched$type
  if (!is.null(type) && !(identical(type$token, "STR_CONST") && string_value(type$text) %in% policy$sink_types)) {
    example <- sprintf("%s(\"log.txt\") ... %s()", name, name)
    return(sprintf("only the output stream may be diverted; messages are captured for you: %s", example))
  }
  if (absolute_path_literal(matched$file)) {
    example <- sprintf("%s(\"out/log.txt\") ... %s()", name, name)
    return(sprintf("it may only write inside the run's directory: use a relative path, %s", example))
  }
  NULL
}
