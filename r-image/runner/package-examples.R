# example() (script-rules.json relaxations.packageExamples): the shapes both validators accept (exampleProblem in
# layers/validator/relaxations.ts), and the script's version. The script's example() never calls source(): it reads
# the example code from the installed help, re-validates it with the script's own rules and evaluates it under the
# same mask.

is_logical_arg <- function(arg) identical(arg$token, "NUM_CONST") && arg$text %in% c("TRUE", "FALSE")

# The argument giving example()'s package: named, else the second positional (the first when the topic is named); or
# NULL.
example_package_arg <- function(args) {
  named <- Find(function(a) identical(a$name, "package"), args)
  if (!is.null(named)) return(named)
  positional <- Filter(function(a) is.null(a$name), args)
  index <- if (any(vapply(args, function(a) identical(a$name, "topic"), NA))) 1L else 2L
  if (length(positional) >= index) positional[[index]]
}

# The argument giving example()'s topic (named, else the first positional), or NULL.
example_topic_arg <- function(args) {
  named <- Find(function(a) identical(a$name, "topic"), args)
  if (!is.null(named)) return(named)
  positional <- Filter(function(a) is.null(a$name), args)
  if (length(positional) > 0L) positional[[1L]]
}

# Why an example() call is not example(topic, package = "pkg") with a literal topic, a literal package and the other
# listed arguments TRUE or FALSE, or NULL.
example_problem <- function(name, site, policy) {
  args <- site$args
  if (piped_call(site$parsed$pd, site$call) || any(vapply(args, is_dots, NA))) {
    return(sprintf("write it as %s(lm, package = \"stats\")", name))
  }
  topic <- example_topic_arg(args)
  if (is.null(topic) || !(topic$token %in% c("SYMBOL", "STR_CONST"))) {
    return("the topic must be written literally, as a name or a string")
  }
  # Positional arguments fill topic and package, whichever is not named (R matches names first).
  named <- unlist(lapply(args, function(a) a$name))
  unnamed_formals <- 2L - sum(c("topic", "package") %in% named)
  if (sum(vapply(args, function(a) is.null(a$name), NA)) > unnamed_formals) return("name its arguments")
  pkg <- example_package_arg(args)
  if (!is.null(pkg) && !identical(pkg$token, "STR_CONST")) return("the package must be a literal string")
  others <- Filter(function(a) !is.null(a$name) && !(a$name %in% c("topic", "package")), args)
  for (arg in others) {
    if (!(arg$name %in% policy$example_other_args)) return(sprintf("it may not be given %s", arg$name))
    if (!is_logical_arg(arg)) return(sprintf("%s must be TRUE or FALSE", arg$name))
  }
  NULL
}

# Call rule: a well-formed example() may name only a package the script may load.
check_example_package <- function(name, site, policy, add) {
  if (!plain_call(site, policy$example_package) || !is.null(example_problem(name, site, policy))) return(invisible())
  pkg <- example_package_arg(site$args)
  if (is.null(pkg)) return(invisible())
  value <- string_value(pkg$text)
  if (!(value %in% policy$allowed_packages)) {
    add("PACKAGE_NOT_ALLOWED", package_unavailable(value, policy), pkg$line, pkg$col, value)
  }
}

# ---- the script's versions -------------------------------------------------------------------
# The example code of `topic` in `packages`' help as lines, with its package; NULL when no help page has it.
example_code <- function(topic, packages, run_dontrun, run_donttest) {
  # What utils::example() reads the help with; tools loads only when a script asks for an example.
  help_index_search <- get("index.search", envir = asNamespace("utils"))
  help_file <- get(".getHelpFile", envir = asNamespace("utils"))
  rd_to_examples <- get("Rd2ex", envir = asNamespace("tools"))
  file <- help_index_search(topic, find.package(packages, quiet = TRUE), TRUE)
  if (length(file) == 0L) return(NULL)
  lines <- character()
  con <- textConnection("lines", "w", local = TRUE)
  on.exit(close(con))
  rd_to_examples(help_file(file), con, commentDontrun = !run_dontrun, commentDonttest = !run_donttest)
  list(lines = lines, package = basename(dirname(dirname(file))))
}

# The re-validation's findings as one sentence per finding.
findings_text <- function(errors) {
  paste(vapply(errors, function(e) {
    sprintf("line %d: %s (%s)", e$line, e$message, if (is.null(e$symbol)) e$code else paste0(e$code, ":", e$symbol))
  }, ""), collapse = "; ")
}

# The topic as example() reads it: a name or a string, never evaluated.
example_topic <- function(topic) {
  if (is.name(topic)) topic <- as.character(topic)
  if (!is.character(topic) || length(topic) != 1L || is.na(topic)) {
    refuse("example() takes its topic written literally, as a name or a string, in jube-r")
  }
  topic
}

# The packages whose help example() searches: the one named (which the script must be allowed to load), else the
# attached ones it may load.
example_packages <- function(package, policy) {
  if (is.null(package)) {
    attached <- sub("^package:", "", grep("^package:", search(), value = TRUE))
    return(attached[attached %in% policy$allowed_packages])
  }
  if (!is.character(package) || length(package) != 1L || !(package %in% policy$allowed_packages)) {
    refuse(package_unavailable(paste(package, collapse = " "), policy))
  }
  package
}

# The checked expressions in `env`, echoed with their printed values as example() does.
run_example <- function(exprs, env, topic, echo) {
  prompt <- paste0(abbreviate(topic, 6L), "> ")
  refs <- attr(exprs, "srcref")
  shown <- list(value = NULL, visible = FALSE)
  for (k in seq_along(exprs)) {
    if (echo) {
      text <- as.character(refs[[k]])
      cat(paste0(c(prompt, rep(sub(">", "+", prompt, fixed = TRUE), length(text) - 1L)), text), sep = "\n")
    }
    shown <- withVisible(eval(exprs[[k]], env))
    # As example() (source(print.eval = echo)) does: values are printed only with the code.
    if (echo && shown$visible) {
      print_env <- new.env(parent = env)
      assign(".jube_value", shown$value, envir = print_env)
      eval(quote(print(.jube_value)), print_env)
    }
  }
  invisible(shown$value)
}

# example(topic, package = NULL, local, echo, run.dontrun, run.donttest): the example code is checked with every rule
# the script's own code was (a refusal runs none of it), then evaluated expression by expression in the caller's
# environment (local = TRUE: a new one under it), echoed as example() does.
safe_example <- function(policy) {
  rules_here <- c(names(token_rules), names(call_rules))
  function(topic, package = NULL, local = FALSE, echo = TRUE,
           run.dontrun = FALSE, run.donttest = FALSE) { # nolint: object_name_linter. example()'s own names.
    caller <- parent.frame()
    # Package code handed this function would make its own frame the caller, outside the mask.
    if (!is_contained(caller)) refuse("example() runs example code only in the script's own environments in jube-r")
    topic <- example_topic(substitute(topic))
    flags <- list(local = local, echo = echo, run.dontrun = run.dontrun, run.donttest = run.donttest)
    bad <- names(flags)[!vapply(flags, function(f) isTRUE(f) || isFALSE(f), NA)]
    if (length(bad) > 0L) refuse(sprintf("example(%s = ) must be TRUE or FALSE", bad[[1L]]))
    code <- example_code(topic, example_packages(package, policy), run.dontrun, run.donttest)
    if (is.null(code)) {
      warning(sprintf("no help found for '%s'", topic), call. = FALSE)
      return(invisible())
    }
    where <- sprintf("example(%s, package = \"%s\")", topic, code$package)
    checked <- check_script(sprintf("<%s>", where), policy, NULL, only = rules_here, text = code$lines)
    if (length(checked$errors) > 0L) {
      refuse(sprintf(
        "%s was not run: its example code, from the package's help, would be refused in jube-r: %s",
        where, findings_text(checked$errors)
      ))
    }
    if (length(checked$exprs) == 0L) {
      warning(sprintf("'%s' has a help file but no examples", topic), call. = FALSE)
      return(invisible())
    }
    if (code$package != "base" && !(paste0("package:", code$package) %in% search())) {
      library(code$package, character.only = TRUE)
    }
    run_example(checked$exprs, if (local) new.env(parent = caller) else caller, topic, echo)
  }
}
