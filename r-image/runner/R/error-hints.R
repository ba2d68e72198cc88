# Hints for the commonest mistakes an agent makes, drawn from what this process already knows:
# the script's names, its data frames' columns, the installed packages' exports. Runs in the
# error handler (conditions.R error_details), under the script's time limit, and never calls code
# the script defined: values are read without active bindings, names with attr(), which does
# not dispatch.

# A binding of `env` read without running anything: no active binding, no promise the script made.
plain_value <- function(name, env) {
  if (!exists(name, envir = env, inherits = FALSE) || bindingIsActive(name, env)) return(NULL)
  get(name, envir = env, inherits = FALSE)
}

# Names an agent may have meant: the script's variables, and the columns of every data frame the
# script made or the failing expression names (a dataset such as mtcars included).
known_names <- function(script_env, tokens) {
  variables <- ls(script_env)
  found <- list()
  symbols <- unique(c(variables, if (!is.null(tokens)) tokens$text[tokens$token == "SYMBOL"]))
  datasets <- if ("package:datasets" %in% search()) as.environment("package:datasets")
  for (name in utils::head(symbols, 500L)) {
    value <- if (name %in% variables) {
      plain_value(name, script_env)
    } else if (!is.null(datasets)) {
      plain_value(name, datasets)
    }
    if (inherits(value, "data.frame")) {
      for (column in as.character(attr(value, "names"))) found[[length(found) + 1L]] <- c(column, name)
    }
  }
  columns <- if (length(found) > 0L) do.call(rbind, found) else matrix(character(), 0L, 2L)
  list(variables = variables, columns = columns)
}

# Up to three of the nearest names, within two edits of `name` (a transposition counts as one).
close_names <- function(name, candidates) {
  candidates <- unique(candidates[nzchar(candidates) & candidates != name])
  if (length(candidates) == 0L) return(character())
  distance <- drop(utils::adist(name, candidates))
  # A swap of letters (mgp for mpg) is one mistake, not the two edits adist() counts.
  sorted <- function(x) vapply(strsplit(x, ""), function(chars) paste(sort(chars), collapse = ""), "")
  distance <- distance - (distance == 2L & sorted(candidates) == sorted(name))
  near <- distance <= min(2L, max(1L, nchar(name) - 1L)) & distance == min(distance)
  utils::head(candidates[near], 3L)
}

did_you_mean <- function(missing, known) {
  near_columns <- close_names(missing$name, known$columns[, 1L])
  if (length(near_columns) > 0L) {
    owners <- vapply(near_columns, function(c) known$columns[known$columns[, 1L] == c, 2L][[1L]], "")
    return(sprintf("did you mean %s?", paste0("`", near_columns, "` (a column of `", owners, "`)", collapse = ", ")))
  }
  near <- close_names(missing$name, known$variables)
  if (length(near) > 0L) sprintf("did you mean %s?", paste0("`", near, "`", collapse = ", "))
}

# The installed packages (of those a script may load) that export `name`, read from each one's
# NAMESPACE file without loading it.
exporting_packages <- function(name, packages) {
  Filter(function(pkg) {
    tryCatch({
      if (pkg %in% loadedNamespaces()) return(name %in% getNamespaceExports(pkg))
      dir <- find.package(pkg, quiet = TRUE)
      if (length(dir) != 1L) return(FALSE)
      ns <- parseNamespaceFile(basename(dir), dirname(dir))
      name %in% ns$exports || any(vapply(ns$exportPatterns, function(p) grepl(p, name), FALSE))
    }, error = function(e) FALSE)
  }, setdiff(packages, "base"))
}

where_exported <- function(name, packages, not_from = NULL) {
  homes <- setdiff(exporting_packages(name, packages), not_from)
  if (length(homes) == 0L) return(NULL)
  sprintf(
    "`%s` is in %s: call %s, or library(%s) first", name, paste(homes, collapse = ", "),
    paste0(homes, "::", name, "()", collapse = " or "), homes[[1L]]
  )
}

# Hints for the commonest mistakes an agent makes, from the messages of the chain.
error_hints <- function(messages, missing, script_env, tokens, packages) {
  hints <- character()
  if (!is.null(missing) && identical(missing$kind, "object")) {
    hint <- did_you_mean(missing, known_names(script_env, tokens))
    if (!is.null(hint)) hints <- c(hints, hint)
  }
  if (!is.null(missing) && identical(missing$kind, "function")) {
    hint <- where_exported(missing$name, packages)
    if (!is.null(hint)) hints <- c(hints, hint)
  }
  for (msg in messages) {
    hit <- regmatches(msg, regexec("'([^']+)' is not an exported object from 'namespace:([^']+)'", msg))[[1L]]
    if (length(hit) == 3L) {
      hint <- where_exported(hit[[2L]], packages, not_from = hit[[3L]])
      if (!is.null(hint)) hints <- c(hints, hint)
    }
  }
  unique(hints)
}
