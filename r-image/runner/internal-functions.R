# The blocked operators (`<<-`, `->>`, `:::`) in the re-validation (revalidate.R registers the rule), and the
# `:::` of the listed internal functions (packages.internalFunctions, docs/script-rules.md): `pkg:::name`
# passes when pkg is a package the script may load and name is listed for it, called or as a value; the
# mask's `:::` answers exactly those. Everything else is refused, naming the listed ones of that package, in
# the words of the TypeScript validator's blocked-operator check (internalFunctionsHint()).

# pkg -> the internal functions listed for it, for the packages the script may load only (compile_policy).
compile_internal_functions <- function(rules, allowed_packages) {
  listed <- rules$packages$internalFunctions$packages
  blocked <- vapply(rules$packages$blocked, function(b) b$name, character(1))
  names <- stats::setNames(
    lapply(listed, function(p) strings(lapply(p$groups, function(g) g$names))),
    vapply(listed, function(p) p$name, character(1))
  )
  names[names(names) %in% setdiff(unlist(allowed_packages), blocked)]
}

# The functions listed for `pkg` (a single string), or character().
listed_internal_functions <- function(pkg, policy) {
  if (!is.character(pkg) || length(pkg) != 1L || is.na(pkg) || !(pkg %in% names(policy$internal_functions))) {
    return(character())
  }
  policy$internal_functions[[pkg]]
}

internal_function_listed <- function(pkg, name, policy) {
  is.character(name) && length(name) == 1L && !is.na(name) && name %in% listed_internal_functions(pkg, policy)
}

# What a refused `pkg:::name` adds to its message: "" unless the rules list functions of pkg.
internal_functions_hint <- function(pkg, policy) {
  listed <- listed_internal_functions(pkg, policy)
  if (length(listed) == 0L) return("")
  listed <- paste(listed, collapse = ", ")
  sprintf(". Of %s's internal functions, a script may use only %s, as %s:::name.", pkg, listed, pkg)
}

# The name token j of `pkg:::name` stands for: a string's value, a backquoted name with its escapes decoded.
ns_operand <- function(parsed, j) {
  if (j < 1L || j > nrow(parsed$tokens)) return("")
  text <- parsed$tokens$text[[j]]
  if (parsed$tokens$token[[j]] == "STR_CONST") return(string_value(text))
  if (!startsWith(text, "`")) return(text)
  name <- tryCatch(str2lang(text), error = function(e) NULL)
  if (is.symbol(name)) as.character(name) else strip_quotes(text)
}

# `:::` at token i (between its package and its name): TRUE when it names a listed internal function, else
# the hint its refusal adds.
internal_function_verdict <- function(parsed, i, policy) {
  pkg <- ns_operand(parsed, i - 1L)
  if (internal_function_listed(pkg, ns_operand(parsed, i + 1L), policy)) TRUE else internal_functions_hint(pkg, policy)
}

check_blocked_operator <- function(parsed, i, policy, add) {
  text <- parsed$tokens$text[[i]]
  if (!(text %in% policy$blocked_operators)) return(invisible())
  relaxed <- text %in% policy$superassign_operators
  if (relaxed && superassign_stays_in_script(parsed, i, policy)) return(invisible())
  hint <- if (text == ":::") internal_function_verdict(parsed, i, policy) else ""
  if (isTRUE(hint)) return(invisible())
  advice <- if (relaxed) sprintf("; instead, %s", policy$superassign_advice) else hint
  add("BLOCKED_OPERATOR", sprintf("the operator '%s' is not allowed%s", text, advice),
    parsed$tokens$line1[[i]], parsed$tokens$col1[[i]], text)
}

# The mask's `:::`: getFromNamespace() of a listed internal function of a package the script may load,
# however it is reached (`pkg:::name`, `` `:::`("pkg", "name") ``, as a value); the stub's refusal otherwise.
checked_ns_get_internal <- function(policy) {
  get_namespace <- base::asNamespace
  get_value <- base::get
  function(pkg, name) {
    pkg <- as.character(substitute(pkg))
    name <- as.character(substitute(name))
    if (!internal_function_listed(pkg, name, policy)) {
      refuse(sprintf("':::' is not available in jube-r%s", internal_functions_hint(pkg, policy)))
    }
    value <- get_value(name, envir = get_namespace(pkg), inherits = FALSE)
    if (!is.function(value)) refuse(sprintf("'%s:::%s' is not a function, which jube-r does not answer", pkg, name))
    value
  }
}
