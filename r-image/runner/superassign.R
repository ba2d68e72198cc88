# relaxations.superassignment: `x <<- v` (and `v ->> x`) where x is bound in a function or local()
# block of the script that encloses the one holding the operator, decided on the parse data as the
# TypeScript validator decides it on its tree (layers/validator/superassign.ts); and the script's
# `<<-`, which checks where the write would really land.

# The first child expression of `id` (the object of `x$a`, `x[[i]]`, the function of a call), or NA.
first_expr <- function(pd, id) {
  kids <- children_of(pd, id)
  exprs <- kids$id[kids$token == "expr"]
  if (length(exprs) == 0L) NA_integer_ else exprs[[1L]]
}

# The variable an assignment expression writes: its target `x`, or the object of `x$a`, `x[[i]]`,
# `x[i]`; NA for anything else (`names(x) <<- v`).
assignment_target <- function(pd, assign_id, right) {
  kids <- children_of(pd, assign_id)
  sides <- kids$id[kids$token == "expr"]
  if (length(sides) != 2L) return(NA_character_)
  id <- sides[[if (right) 2L else 1L]]
  repeat {
    kids <- children_of(pd, id)
    if (nrow(kids) == 1L && kids$token[[1L]] == "SYMBOL") return(strip_quotes(kids$text[[1L]]))
    if (nrow(kids) < 3L || kids$token[[1L]] != "expr" || !(kids$token[[2L]] %in% c("'$'", "LBB", "'['"))) {
      return(NA_character_)
    }
    id <- kids$id[[1L]]
  }
}

# Whether the expression `id` is a scope: a function (or \(x) lambda), or local()/base::local().
is_scope <- function(pd, id, policy) {
  kids <- children_of(pd, id)
  if (nrow(kids) == 0L) return(FALSE)
  if (kids$token[[1L]] %in% c("FUNCTION", "'\\\\'")) return(TRUE)
  if (kids$token[[1L]] != "expr" || nrow(kids) < 2L || kids$token[[2L]] != "'('") return(FALSE)
  head <- children_of(pd, kids$id[[1L]])
  if (nrow(head) == 1L) {
    return(head$token[[1L]] == "SYMBOL_FUNCTION_CALL" && head$text[[1L]] %in% policy$local_functions)
  }
  nrow(head) == 3L && head$text[[1L]] == "base" && head$token[[2L]] == "NS_GET" &&
    head$text[[3L]] %in% policy$local_functions
}

# Whether the expression `id` binds `name` by itself: `name <-`/`=`/`->`, or `for (name in ...)`.
binds_here <- function(pd, id, name) {
  inner <- children_of(pd, id)
  if (nrow(inner) < 3L) return(FALSE)
  if (inner$token[[1L]] == "'('" && inner$token[[3L]] == "IN") return(inner$text[[2L]] == name)
  if (nrow(inner) != 3L || !(inner$text[[2L]] %in% c("<-", "=", "->"))) return(FALSE)
  side <- inner[if (inner$text[[2L]] == "->") 3L else 1L, , drop = FALSE]
  symbol <- if (side$terminal) side else children_of(pd, side$id)
  nrow(symbol) == 1L && symbol$token[[1L]] %in% c("SYMBOL", "SYMBOL_SUB") && strip_quotes(symbol$text[[1L]]) == name
}

# Whether the scope `id` binds `name` itself: a parameter, or a binding outside the scopes nested in it.
scope_binds <- function(pd, id, name, policy) {
  kids <- children_of(pd, id)
  if (any(kids$token == "SYMBOL_FORMALS" & kids$text == name)) return(TRUE)
  pending <- kids$id[!kids$terminal]
  while (length(pending) > 0L) {
    node <- pending[[1L]]
    pending <- pending[-1L]
    if (is_scope(pd, node, policy)) next
    if (binds_here(pd, node, name)) return(TRUE)
    inner <- children_of(pd, node)
    pending <- c(pending, inner$id[!inner$terminal])
  }
  FALSE
}

# Whether the superassignment at token i writes a variable bound in an enclosing scope of the script.
superassign_stays_in_script <- function(parsed, i, policy) {
  pd <- parsed$pd
  assign_id <- parsed$tokens$parent[[i]]
  name <- assignment_target(pd, assign_id, parsed$tokens$text[[i]] == "->>")
  if (is.na(name)) return(FALSE)
  scope <- pd_row(pd, assign_id)$parent
  while (!is.na(scope) && scope > 0L && !is_scope(pd, scope, policy)) scope <- pd_row(pd, scope)$parent
  if (is.na(scope) || scope <= 0L) return(FALSE)
  outer <- pd_row(pd, scope)$parent
  while (!is.na(outer) && outer > 0L) {
    if (is_scope(pd, outer, policy) && scope_binds(pd, outer, name, policy)) return(TRUE)
    outer <- pd_row(pd, outer)$parent
  }
  FALSE
}

# The script's `<<-` (`->>` parses to it): finds the environment R would write into, from the one
# above the caller's, and writes there only when that is a frame the script's code made (a closure
# or local() under the script's environment), never the script's environment, the mask, the
# global environment or a package's.
make_safe_superassign <- function(mask, advice) {
  real <- base::`<<-`
  function(x, value) {
    target <- substitute(x)
    caller <- parent.frame()
    root <- target
    while (is.call(root) && length(root) >= 2L && as.character(root[[1L]])[[1L]] %in% c("$", "[[", "[")) {
      root <- root[[2L]]
    }
    refusal <- sprintf("'<<-' may only update a variable of an enclosing function of the script; instead, %s", advice)
    if (!is.symbol(root)) refuse(refusal)
    name <- as.character(root)
    env <- parent.env(caller)
    while (!identical(env, emptyenv()) && !exists(name, envir = env, inherits = FALSE)) env <- parent.env(env)
    if (!script_frame(env, mask)) refuse(refusal)
    eval(as.call(list(real, target, call("quote", value))), caller)
    invisible(value)
  }
}

# A frame under the script's environment (the mask's child), not that environment itself and not
# a namespace or a package's environment.
script_frame <- function(env, mask) {
  depth <- 0L
  while (!identical(env, emptyenv())) {
    if (isNamespace(env) || !is.null(attr(env, "name", exact = TRUE))) return(FALSE)
    parent <- parent.env(env)
    if (identical(parent, mask)) return(depth > 0L)
    env <- parent
    depth <- depth + 1L
  }
  FALSE
}
