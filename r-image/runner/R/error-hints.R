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

# The data frames a hint may name columns of: those the failing expression names (a dataset such
# as mtcars included), or, when it names none, every data frame the script made. Returns a
# two-column matrix (column, data frame) and the script's variables.
known_names <- function(script_env, tokens) {
  variables <- ls(script_env)
  named <- if (!is.null(tokens)) unique(tokens$text[tokens$token == "SYMBOL"]) else character()
  datasets <- if ("package:datasets" %in% search()) as.environment("package:datasets")
  frames <- function(symbols) {
    found <- list()
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
    found
  }
  found <- frames(named)
  if (length(found) == 0L) found <- frames(variables)
  columns <- if (length(found) > 0L) do.call(rbind, found) else matrix(character(), 0L, 2L)
  list(variables = variables, columns = columns)
}

# Up to three of the nearest names: one edit away for a name of up to four characters (fit is not
# id), else two (a transposition counts as one).
close_names <- function(name, candidates) {
  candidates <- unique(candidates[nzchar(candidates) & candidates != name])
  if (length(candidates) == 0L) return(character())
  distance <- drop(utils::adist(name, candidates))
  # A swap of letters (mgp for mpg) is one mistake, not the two edits adist() counts.
  sorted <- function(x) vapply(strsplit(x, ""), function(chars) paste(sort(chars), collapse = ""), "")
  distance <- distance - (distance == 2L & sorted(candidates) == sorted(name))
  allowed <- if (nchar(name) <= 4L) 1L else 2L
  near <- distance <= allowed & distance == min(distance)
  utils::head(candidates[near], 3L)
}

# Each data frame's columns, when no name is close: what the agent would otherwise ask for next.
column_lists <- function(columns, max_columns = 20L) {
  if (nrow(columns) == 0L) return(character())
  vapply(unique(columns[, 2L]), function(df) {
    names <- columns[columns[, 2L] == df, 1L]
    more <- if (length(names) > max_columns) sprintf(" (and %d more)", length(names) - max_columns) else ""
    sprintf("`%s` has the columns %s%s", df, paste0("`", utils::head(names, max_columns), "`", collapse = ", "), more)
  }, "", USE.NAMES = FALSE)
}

did_you_mean <- function(missing, known) {
  near_columns <- close_names(missing$name, known$columns[, 1L])
  if (length(near_columns) > 0L) {
    owners <- vapply(near_columns, function(c) known$columns[known$columns[, 1L] == c, 2L][[1L]], "")
    return(sprintf("did you mean %s?", paste0("`", near_columns, "` (a column of `", owners, "`)", collapse = ", ")))
  }
  if (identical(missing$kind, "object")) {
    near <- close_names(missing$name, known$variables)
    if (length(near) > 0L) return(sprintf("did you mean %s?", paste0("`", near, "`", collapse = ", ")))
  }
  NULL
}

# The names the script binds anywhere (an assignment's target, a function's arguments, a for
# loop's variable, assign("name", ...)), from its parse data; NULL when that cannot be read.
assigned_names <- function(exprs) {
  pd <- tryCatch(utils::getParseData(attr(exprs, "srcfile")), error = function(e) NULL)
  if (is.null(pd) || nrow(pd) == 0L) return(NULL)
  pd <- pd[pd$terminal & pd$token != "COMMENT", , drop = FALSE]
  pd <- pd[order(pd$line1, pd$col1), , drop = FALSE]
  next_token <- c(pd$token[-1L], "")
  previous_token <- c("", pd$token[-nrow(pd)])
  previous_text <- c("", pd$text[-nrow(pd)])
  symbol <- pd$token %in% c("SYMBOL", "SYMBOL_FORMALS")
  bound <- symbol & (next_token %in% c("LEFT_ASSIGN", "EQ_ASSIGN") | previous_token == "RIGHT_ASSIGN" |
    pd$token == "SYMBOL_FORMALS" | (previous_token == "'('" & c("", previous_text[-nrow(pd)]) == "for"))
  strings <- pd$token == "STR_CONST" & c("", "", pd$text[seq_len(max(0L, nrow(pd) - 2L))]) == "assign"
  unique(c(unquote(pd$text[bound]), gsub("^[\"']|[\"']$", "", pd$text[strings])))
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

# A name not found (an object, or a column in a package's words): the close one, else the
# columns of the data frames in reach and, for an object the script never binds, that every call
# starts fresh.
missing_name_hints <- function(missing, script_env, tokens, assigned) {
  known <- known_names(script_env, tokens)
  hint <- if (!is.null(missing$name)) did_you_mean(missing, known)
  if (!is.null(hint)) return(hint)
  is_object <- identical(missing$kind, "object")
  hints <- if (!is_object || (!is.null(tokens) && nrow(known$columns) > 0L)) column_lists(known$columns)
  # No typo in sight: perhaps an earlier call made it. A session names what it holds instead.
  if (is_object && !is.null(assigned) && !(missing$name %in% assigned)) {
    held <- session_name_hint(missing$name, script_env)
    hints <- c(hints, if (!is.null(held)) held else sprintf(paste(
      "if an earlier call made `%s`: every call starts fresh and keeps nothing from the ones before,",
      "so make it in this script (calls that send one X-Jube-Session keep their workspace)"
    ), missing$name))
  }
  hints
}

# R's own words when a fork was refused (parallel's mcfork; mc.cores = detectCores(), which is NA
# here, also stops mclapply): the process category's advice, from the capability table.
fork_hints <- function(messages) {
  if (!any(grepl("unable to fork|'mc.cores' must be >= 1", messages))) return(character())
  row <- Filter(function(f) identical(f$name, "mcfork"), seam$capabilityFunctions)
  if (length(row) == 1L) row[[1L]]$message else character()
}

# A function asked of a package that does not export it: the installed packages that do.
export_hints <- function(messages, packages) {
  hints <- character()
  for (msg in messages) {
    hit <- regmatches(msg, regexec("'([^']+)' is not an exported object from 'namespace:([^']+)'", msg))[[1L]]
    if (length(hit) == 3L) hints <- c(hints, where_exported(hit[[2L]], packages, not_from = hit[[3L]]))
  }
  hints
}

# Hints for the commonest mistakes an agent makes, from the messages of the chain. `assigned`: the
# names the whole script binds (assigned_names()); NULL when unknown.
error_hints <- function(messages, missing, script_env, tokens, packages, assigned = NULL) {
  hints <- character()
  if (!is.null(missing) && missing$kind %in% c("object", "column", "columns")) {
    hints <- missing_name_hints(missing, script_env, tokens, assigned)
  } else if (!is.null(missing) && identical(missing$kind, "function")) {
    hints <- where_exported(missing$name, packages)
  }
  unique(c(hints, fork_hints(messages), export_hints(messages, packages)))
}
