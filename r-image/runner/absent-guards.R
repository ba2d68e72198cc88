# `if (requireNamespace("pkg", quietly = TRUE)) ...` around a package that is neither allowed nor
# installed: R never runs the guarded branch, so the re-validation drops its findings, as the
# TypeScript validator does (layers/validator/absent-guards.ts); the script's requireNamespace
# answers FALSE for any package the script may not load, so the branch cannot run.
# `if (rlang::is_installed("pkg")) ...` (roxygen's @examplesIf) counts the same way when it names
# its packages literally (a string, or c() of strings in a script that does not bind `c`), with
# nothing but `version`, and one of them is absent; the script's rlang::is_installed answers FALSE
# then too. A script that binds `::` could answer either for itself, so it gets no guard.

# The call at token i when it is the whole condition of an `if`, with only the named arguments
# `named` and one positional (or `formal =`) argument: list(site, the argument, if_id, branch); else NULL.
guard_condition <- function(parsed, i, formal, named) {
  site <- call_site(parsed, i)
  pd <- parsed$pd
  if_id <- pd_row(pd, site$call)$parent
  kids <- children_of(pd, if_id)
  if (nrow(kids) < 5L || kids$token[[1L]] != "IF" || kids$id[[3L]] != site$call) return(NULL)
  positional <- Filter(function(a) is.null(a$name) || a$name == formal, site$args)
  named_ok <- all(vapply(site$args, function(a) is.null(a$name) || a$name %in% c(formal, named), logical(1)))
  if (length(positional) != 1L || !named_ok) return(NULL)
  list(site = site, arg = positional[[1L]], if_id = if_id, branch = kids$id[[5L]])
}

# The package the requireNamespace() call at token i guards on, when that call is the whole
# condition of an `if`, named by a string, with nothing but `quietly`; else NA. The `if`
# expression's id rides along.
guard_package <- function(parsed, i) {
  if (parsed$previous_token[[i]] == "NS_GET" && (i < 3L || parsed$tokens$text[[i - 2L]] != "base")) return(NA)
  guard <- guard_condition(parsed, i, "package", "quietly")
  if (is.null(guard) || guard$arg$token != "STR_CONST") return(NA)
  structure(string_value(guard$arg$text), if_id = guard$if_id, branch = guard$branch)
}

# The packages the rlang::is_installed() call at token i asks about, when that call is the whole
# condition of an `if`, as guard_package() returns them; else NA.
query_packages <- function(parsed, i) {
  if (parsed$previous_token[[i]] != "NS_GET" || i < 3L || parsed$tokens$text[[i - 2L]] != "rlang") return(NA)
  guard <- guard_condition(parsed, i, "pkg", "version")
  if (is.null(guard) || (!identical(guard$arg$token, "STR_CONST") && binds_name(parsed, "c"))) return(NA)
  packages <- literal_package_names(parsed$pd, guard$arg)
  if (is.null(packages)) return(NA)
  structure(packages, if_id = guard$if_id, branch = guard$branch)
}

is_absent <- function(pkg, policy) !(pkg %in% policy$allowed_packages) && length(find.package(pkg, quiet = TRUE)) == 0L

# The guarded stretches (condition and branch) of the guards on an absent package, as rows of
# line1, col1, line2, col2.
absent_package_guards <- function(parsed, policy) {
  called <- parsed$tokens$token == "SYMBOL_FUNCTION_CALL"
  guards <- which(called & parsed$tokens$text == "requireNamespace")
  if (binds_name(parsed, "requireNamespace")) guards <- integer()
  queries <- which(called & parsed$tokens$text == "is_installed")
  none <- data.frame(line1 = integer(), col1 = integer(), line2 = integer(), col2 = integer())
  if (length(c(guards, queries)) == 0L || any(parsed$tokens$text == "`if`") || binds_name(parsed, "::")) return(none)
  ranges <- lapply(c(guards, queries), function(i) {
    pkg <- if (i %in% guards) guard_package(parsed, i) else query_packages(parsed, i)
    if (anyNA(pkg) || !any(vapply(pkg, is_absent, logical(1), policy = policy))) return(NULL)
    from <- pd_row(parsed$pd, attr(pkg, "if_id"))
    to <- pd_row(parsed$pd, attr(pkg, "branch"))
    data.frame(line1 = from$line1, col1 = from$col1, line2 = to$line2, col2 = to$col2)
  })
  do.call(rbind, c(list(none), ranges))
}

# `errors` without those inside a guarded stretch (parse and parser-agreement findings stay).
drop_guarded <- function(errors, ranges) {
  if (nrow(ranges) == 0L) return(errors)
  inside <- function(e) {
    after <- e$line > ranges$line1 | (e$line == ranges$line1 & e$column >= ranges$col1)
    before <- e$line < ranges$line2 | (e$line == ranges$line2 & e$column <= ranges$col2)
    !(e$code %in% c("SYNTAX_ERROR", "PARSER_DISAGREEMENT")) && any(after & before)
  }
  Filter(Negate(inside), errors)
}

# The script's requireNamespace: FALSE for a package it may not load (only a guard that the
# validators did not judge can ask for one), else R's.
safe_require_namespace <- function(policy) {
  real <- base::requireNamespace
  function(package, ..., quietly = TRUE) {
    if (!(is.character(package) && length(package) == 1L && package %in% policy$allowed_packages)) return(FALSE)
    real(package, ..., quietly = quietly)
  }
}

# The script's rlang::is_installed() (packages.packageQueries): its requireNamespace() for each
# package, so FALSE for one it may not load; `version` as rlang takes it, one per package.
safe_is_installed <- function(policy) {
  require_namespace <- safe_require_namespace(policy)
  package_version <- utils::packageVersion
  function(pkg, ..., version = NULL) {
    if (!is.character(pkg) || anyNA(pkg)) stop("`pkg` must be a character vector of package names", call. = FALSE)
    if (!is.null(version) && length(version) != length(pkg)) stop("`version` must be as long as `pkg`", call. = FALSE)
    for (k in seq_along(pkg)) {
      if (!isTRUE(require_namespace(pkg[[k]], quietly = TRUE))) return(FALSE)
      wanted <- if (is.null(version)) NA else version[[k]]
      if (!is.na(wanted) && package_version(pkg[[k]]) < wanted) return(FALSE)
    }
    TRUE
  }
}

# The script's rlang::check_installed(): an error unless is_installed() holds. It never installs
# (rlang's would offer to, interactively; its `action` is refused by both validators).
safe_check_installed <- function(policy) {
  is_installed <- safe_is_installed(policy)
  function(pkg, reason = NULL, ..., version = NULL) {
    if (is_installed(pkg, version = version)) return(invisible(NULL))
    several <- length(pkg) > 1L
    message <- sprintf(
      "The package%s %s %s required%s; GET /packages lists the ones a script may load.",
      if (several) "s" else "", paste0("\"", pkg, "\"", collapse = ", "), if (several) "are" else "is",
      if (is.character(reason) && length(reason) == 1L) paste0(" ", reason) else ""
    )
    condition <- list(message = message, call = NULL, pkg = pkg)
    stop(structure(class = c("rlib_error_package_not_found", "error", "condition"), condition))
  }
}

# `pkg::name` of packages.packageQueries, as the script's `::` answers it.
package_query_function <- function(name, policy) {
  switch(name,
    is_installed = safe_is_installed(policy),
    check_installed = safe_check_installed(policy),
    refuse(sprintf("'%s' has no runtime version in jube-r", name))
  )
}
