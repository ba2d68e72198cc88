# The package rules of the re-validation (revalidate.R registers them): `pkg::` and the loaders
# may only name packages the policy allows, literally, with harmless arguments. A refusal names
# the nearest loadable packages, as the TypeScript validator's does (layers/validator/checks/packages.ts).

# Up to `count` allowed packages within `max_distance` edits of `pkg` (case-insensitive) and at most one edit
# farther than the nearest, nearest first.
nearest_packages <- function(pkg, candidates, count = 3L, max_distance = 3L) {
  distance <- drop(utils::adist(pkg, candidates, ignore.case = TRUE))
  near <- distance <= min(max_distance, min(distance, Inf) + 1)
  utils::head(candidates[near][order(distance[near], candidates[near], method = "radix")], count)
}

dependency_only <- paste(
  " It is installed only as a dependency of the packages a script may load,",
  "not for scripts to load themselves."
)

package_unavailable <- function(pkg, policy) {
  why <- policy$blocked_packages[pkg]
  if (!is.na(why)) {
    return(sprintf("Package '%s' is blocked in jube-r: %s Do it with base R or an installed package.", pkg, why))
  }
  members <- policy$meta_packages[[pkg]]
  if (!is.null(members)) return(meta_package_message(pkg, members, policy$allowed_packages))
  near <- nearest_packages(pkg, policy$allowed_packages)
  hint <- if (length(near) > 0L) sprintf(" Did you mean %s?", paste0("'", near, "'", collapse = ", ")) else ""
  # The library here is the one the manifest's installed list was read from.
  why <- if (length(find.package(pkg, quiet = TRUE)) > 0L) dependency_only else ""
  advice <- policy$dependency_advice[pkg]
  instead <- if (is.null(advice) || is.na(advice)) "" else sprintf(" Instead: %s.", advice)
  sprintf("Package '%s' is not available in jube-r.%s%s%s GET /packages lists every installed package.", pkg, why,
    instead, hint)
}

# A meta-package (the tidyverse): the installed members to load instead, and the others.
meta_package_message <- function(pkg, members, loadable) {
  here <- members[members %in% loadable]
  absent <- members[!(members %in% loadable)]
  load <- if (length(here) > 0L) {
    sprintf(" Load the packages it would attach instead: %s.", paste0("library(", here, ")", collapse = "; "))
  } else {
    ""
  }
  missing <- if (length(absent) > 0L) sprintf(" Not available: %s.", paste(absent, collapse = ", ")) else ""
  sprintf("Package '%s' is not available in jube-r as one package.%s%s", pkg, load, missing)
}

# An export of a named-exports package (rlang) that is not in its list, worded as the TypeScript
# validator's namedExportMessage().
named_export_unavailable <- function(pkg, name, policy) {
  why <- policy$refused_exports[paste0(pkg, "::", name)]
  if (is.null(why) || is.na(why)) why <- sprintf("%s is blocked: %s", pkg, policy$blocked_packages[[pkg]])
  sprintf(
    "'%s::%s' is not available in jube-r: %s Of %s, a script may call only %s, as %s::name.",
    pkg, name, why, pkg, paste(policy$named_exports[[pkg]], collapse = ", "), pkg
  )
}

# The name after `pkg::` (token i is the package): "" when the parse data has none there.
namespace_name <- function(parsed, i) {
  if (i + 2L > nrow(parsed$tokens)) return("")
  text <- parsed$tokens$text[[i + 2L]]
  if (parsed$tokens$token[[i + 2L]] == "STR_CONST") string_value(text) else strip_quotes(text)
}

check_namespace_package <- function(parsed, i, policy, add) {
  pkg <- strip_quotes(parsed$tokens$text[[i]])
  exports <- policy$named_exports[[pkg]]
  if (!is.null(exports)) {
    name <- namespace_name(parsed, i)
    if (!(name %in% exports)) {
      add("PACKAGE_NOT_ALLOWED", named_export_unavailable(pkg, name, policy), parsed$tokens$line1[[i]],
          parsed$tokens$col1[[i]], pkg)
      return(invisible())
    }
    spec <- policy$checked_exports[[paste0(pkg, "::", name)]]
    if (!is.null(spec)) check_export_arguments(parsed, i, pkg, name, spec, policy, add)
    return(invisible())
  }
  if (!(pkg %in% policy$allowed_packages)) {
    add("PACKAGE_NOT_ALLOWED", package_unavailable(pkg, policy), parsed$tokens$line1[[i]], parsed$tokens$col1[[i]], pkg)
  }
}

check_loader_call <- function(name, site, policy, add) {
  positional <- Filter(function(a) is.null(a$name) || a$name == "package", site$args)
  for (arg in site$args) {
    if (!is.null(arg$name) && !(arg$name %in% policy$loader_args)) {
      add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() may not be given '%s'", name, arg$name), arg$line, arg$col, arg$name)
    }
  }
  if (length(positional) != 1L || !(positional[[1L]]$token %in% c("SYMBOL", "STR_CONST"))) {
    add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() must name exactly one package literally", name),
      site$line, site$col, name)
    return(invisible())
  }
  pkg <- strip_quotes(positional[[1L]]$text)
  if (positional[[1L]]$token == "STR_CONST") pkg <- string_value(positional[[1L]]$text)
  if (!(pkg %in% policy$allowed_packages)) {
    add("PACKAGE_NOT_ALLOWED", package_unavailable(pkg, policy), site$line, site$col, pkg)
  }
}

# The packages an argument names literally for rlang::is_installed() and friends: a string, or a
# call of plain `c` whose arguments are all unnamed strings; else NULL (literalPackageNames in
# layers/validator/package-names.ts).
literal_package_names <- function(pd, arg) {
  if (identical(arg$token, "STR_CONST")) return(string_value(arg$text))
  if (is.null(arg$id) || !identical(arg$token, "expr")) return(NULL)
  kids <- children_of(pd, arg$id)
  if (nrow(kids) < 3L || kids$token[[1L]] != "expr" || kids$token[[2L]] != "'('") return(NULL)
  fn <- children_of(pd, kids$id[[1L]])
  if (nrow(fn) != 1L || fn$token[[1L]] != "SYMBOL_FUNCTION_CALL" || strip_quotes(fn$text[[1L]]) != "c") return(NULL)
  unnamed_strings(call_arguments(pd, arg$id))
}

# The values of `args` when every one is an unnamed string literal (and there is one), else NULL.
unnamed_strings <- function(args) {
  literal <- vapply(args, function(a) is.null(a$name) && identical(a$token, "STR_CONST"), logical(1))
  if (length(args) == 0L || !all(literal)) return(NULL)
  vapply(args, function(a) string_value(a$text), character(1))
}

# "pkg::name" of the call at `site` when its function is written pkg::name, else "".
qualified_callee <- function(site, name) {
  pd <- site$parsed$pd
  fn <- children_of(pd, children_of(pd, site$call)$id[[1L]])
  if (nrow(fn) != 3L || !(fn$token[[2L]] %in% c("NS_GET", "NS_GET_INT"))) return("")
  paste0(strip_quotes(fn$text[[1L]]), "::", name)
}

# rlang::is_installed()/check_installed() (packages.packageQueries) are held to the loaders' rules:
# their packages named literally, each one a script may load, only the listed named arguments
# (the TypeScript validator's package-query check).
check_package_query <- function(name, site, policy, add) {
  query <- qualified_callee(site, name)
  if (!(query %in% policy$package_queries)) return(invisible())
  package_arg <- check_query_arguments(query, site, policy, add)
  packages <- if (!is.null(package_arg)) literal_package_names(site$parsed$pd, package_arg)
  if (is.null(packages)) {
    at <- if (is.null(package_arg)) site else package_arg
    add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() must name its packages literally", query), at$line, at$col, query)
    return(invisible())
  }
  for (pkg in packages) {
    if (!(pkg %in% policy$allowed_packages)) {
      add("PACKAGE_NOT_ALLOWED", package_unavailable(pkg, policy), package_arg$line, package_arg$col, pkg)
    }
  }
}

# The argument a package query takes its packages from (the first positional or `pkg =`), or NULL;
# every other argument must be one of the listed named ones.
check_query_arguments <- function(query, site, policy, add) {
  allowed <- paste(policy$package_query_args, collapse = ", ")
  package_arg <- NULL
  for (arg in site$args) {
    if ((is.null(arg$name) || arg$name == "pkg") && is.null(package_arg)) {
      package_arg <- arg
    } else if (is.null(arg$name) || arg$name == "pkg") {
      add("PACKAGE_LOADER_ARGUMENT", sprintf(
        "%s() takes its packages as one argument; pass the others by name (allowed: %s)", query, allowed
      ), arg$line, arg$col, query)
    } else if (!(arg$name %in% policy$package_query_args)) {
      add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() may not be given '%s' (allowed: %s)", query, arg$name, allowed),
        arg$line, arg$col, arg$name)
    }
  }
  package_arg
}
