# `if (requireNamespace("pkg", quietly = TRUE)) ...` around a package that is neither allowed nor
# installed: R never runs the guarded branch, so the re-validation drops its findings, as the
# TypeScript validator does (layers/validator/absent-guards.ts); the script's requireNamespace
# answers FALSE for any package the script may not load, so the branch cannot run.

# The package the call at token i guards on, when that call is the whole condition of an `if`,
# named by a string, with nothing but `quietly`; else NA. The `if` expression's id rides along.
guard_package <- function(parsed, i) {
  if (parsed$previous_token[[i]] == "NS_GET" && (i < 3L || parsed$tokens$text[[i - 2L]] != "base")) return(NA)
  site <- call_site(parsed, i)
  pd <- parsed$pd
  if_id <- pd_row(pd, site$call)$parent
  kids <- children_of(pd, if_id)
  if (nrow(kids) < 5L || kids$token[[1L]] != "IF" || kids$id[[3L]] != site$call) return(NA)
  positional <- Filter(function(a) is.null(a$name) || a$name == "package", site$args)
  named_ok <- all(vapply(site$args, function(a) is.null(a$name) || a$name %in% c("package", "quietly"), logical(1)))
  if (length(positional) != 1L || !named_ok || positional[[1L]]$token != "STR_CONST") return(NA)
  structure(string_value(positional[[1L]]$text), if_id = if_id, branch = kids$id[[5L]])
}

# The guarded stretches (condition and branch) of the guards on an absent package, as rows of
# line1, col1, line2, col2.
absent_package_guards <- function(parsed, policy) {
  calls <- which(parsed$tokens$token == "SYMBOL_FUNCTION_CALL" & parsed$tokens$text == "requireNamespace")
  none <- data.frame(line1 = integer(), col1 = integer(), line2 = integer(), col2 = integer())
  if (length(calls) == 0L || any(parsed$tokens$text == "`if`") || binds_name(parsed, "requireNamespace")) return(none)
  ranges <- lapply(calls, function(i) {
    pkg <- guard_package(parsed, i)
    if (is.na(pkg) || pkg %in% policy$allowed_packages || length(find.package(pkg, quiet = TRUE)) > 0L) return(NULL)
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
