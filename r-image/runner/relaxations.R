# The relaxations of the rules (script-rules.json `relaxations`), on R's parse data: where a
# forbidden name cannot reach a capability, the re-validation lets it stand exactly where the
# TypeScript validator does (layers/validator/relaxations.ts, script-facts.ts), so the two agree on
# every script. do.call(), match.fun() and local() are judged in literal-calls.R, options(op) in
# saved-options.R; the runtime versions of the relaxed functions are in safe-calls.R.

# The called name of the expression `id` if it is a call (f(...), `f`(...), "f"(...), pkg::f(...)), else "".
callee_of <- function(pd, id) {
  kids <- children_of(pd, id)
  if (nrow(kids) < 2L || kids$token[[1L]] != "expr" || kids$token[[2L]] != "'('") return("")
  head <- children_of(pd, kids$id[[1L]])
  at <- which(head$token %in% c("SYMBOL_FUNCTION_CALL", "STR_CONST"))
  if (length(at) != 1L) return("")
  if (head$token[[at]] == "STR_CONST") string_value(head$text[[at]]) else strip_quotes(head$text[[at]])
}

# Whether the expression `id` is the target of the assignment that contains it.
assigned_side <- function(pd, id) {
  kids <- children_of(pd, pd_row(pd, id)$parent)
  at <- match(id, kids$id)
  if (nrow(kids) != 3L || is.na(at)) return(FALSE)
  (at == 1L && kids$token[[2L]] %in% c("LEFT_ASSIGN", "EQ_ASSIGN")) || (at == 3L && kids$token[[2L]] == "RIGHT_ASSIGN")
}

# The name the i-th token stands for: backquotes stripped, a string's value.
token_value <- function(parsed, i) {
  text <- parsed$tokens$text[[i]]
  if (parsed$tokens$token[[i]] == "STR_CONST") string_value(text) else strip_quotes(text)
}

# token_value() of every token, computed once per script.
token_values <- function(parsed) {
  if (is.null(parsed$memo$values)) {
    values <- strip_quotes(parsed$tokens$text)
    strings <- which(parsed$tokens$token == "STR_CONST")
    values[strings] <- vapply(parsed$tokens$text[strings], string_value, "", USE.NAMES = FALSE)
    parsed$memo$values <- values
  }
  parsed$memo$values
}

# How the i-th token's name is used (nameRole in layers/validator/context.ts).
token_role <- function(parsed, i) {
  tok <- parsed$tokens$token[[i]]
  if (tok == "SYMBOL_FORMALS") return("parameter")
  if (tok == "SYMBOL_SUB" || parsed$next_token[[i]] == "EQ_SUB") return("argument-name")
  if (tok == "SYMBOL_FUNCTION_CALL") return("call")
  if (tok == "SYMBOL_PACKAGE" || parsed$previous_token[[i]] %in% c("'$'", "'@'", "NS_GET", "NS_GET_INT")) {
    return("other")
  }
  parent <- parsed$tokens$parent[[i]]
  if (pd_row(parsed$pd, parent)$token == "forcond" || assigned_side(parsed$pd, parent)) "binding" else "reference"
}

# Whether the expression `id` lies inside an argument of with()/within() (`scopeFunctions`).
inside_scope <- function(pd, id, policy) {
  repeat {
    parent <- pd_row(pd, id)$parent
    if (is.na(parent) || parent == 0L) return(FALSE)
    kids <- children_of(pd, parent)
    if (kids$id[[1L]] != id && callee_of(pd, parent) %in% policy$scope_functions) return(TRUE)
    id <- parent
  }
}

# "operand", "argument" or NULL: how the forbidden SYMBOL at i stands as data (columnUse in relaxations.ts).
column_use <- function(parsed, i, policy) {
  if (parsed$tokens$token[[i]] != "SYMBOL" || token_role(parsed, i) != "reference") return(NULL)
  pd <- parsed$pd
  wrapper <- parsed$tokens$parent[[i]]
  container <- pd_row(pd, wrapper)$parent
  kids <- children_of(pd, container)
  at <- match(wrapper, kids$id)
  use <- if (is_operand(kids, at, policy)) {
    "operand"
  } else if (is_column_argument(pd, container, kids, at, policy)) {
    "argument"
  }
  if (is.null(use) || inside_scope(pd, wrapper, policy)) NULL else use
}

# An operand of a column operator: `a == b` (either side), `-a`, `~ a`.
is_operand <- function(kids, at, policy) {
  operator <- function(k) kids$terminal[[k]] && kids$text[[k]] %in% policy$column_operators
  binary <- nrow(kids) == 3L && at != 2L && operator(2L)
  binary || (nrow(kids) == 2L && at == 2L && operator(1L))
}

# The whole value of an argument, not named for a function, of a column function or of a column
# set (`c(...)`) that is itself the value of a selecting argument of a column function.
is_column_argument <- function(pd, container, kids, at, policy) {
  if (at <= 2L || !is_data_argument(kids, at, policy)) return(FALSE)
  callee <- callee_of(pd, container)
  if (callee %in% policy$column_functions) return(TRUE)
  if (!(callee %in% policy$column_set_functions)) return(FALSE)
  verb <- pd_row(pd, container)$parent
  outer <- children_of(pd, verb)
  k <- match(container, outer$id)
  selecting <- !is.na(k) && k > 2L && outer$token[[k - 1L]] == "EQ_SUB" &&
    strip_quotes(outer$text[[k - 2L]]) %in% policy$selection_args
  selecting && callee_of(pd, verb) %in% policy$column_functions
}

# Whether the expression at position `at` of a call is an argument value not named for a function.
is_data_argument <- function(kids, at, policy) {
  before <- kids$token[[at - 1L]]
  if (before == "EQ_SUB") return(!(strip_quotes(kids$text[[at - 2L]]) %in% policy$function_valued_args))
  before %in% c("'('", "','")
}

# The first token (of the candidates `at`) that defines a name: a binding or parameter, or an
# argument name among `argument_names`. Its message, or NULL.
first_definition <- function(parsed, at, argument_names = character()) {
  for (i in at) {
    role <- token_role(parsed, i)
    value <- token_values(parsed)[[i]]
    if (role %in% c("binding", "parameter") || (role == "argument-name" && value %in% argument_names)) {
      return(sprintf("the script defines `%s`", value))
    }
  }
  NULL
}

# The column functions an argument use at token i hands the name to: the call holding it, and for
# a column set (`c(...)`) the verb whose selecting argument it is (columnReceivers in relaxations.ts).
column_receivers <- function(parsed, i, policy) {
  pd <- parsed$pd
  container <- pd_row(pd, parsed$tokens$parent[[i]])$parent
  callee <- callee_of(pd, container)
  if (callee %in% policy$column_functions) return(callee)
  c(callee, callee_of(pd, pd_row(pd, container)$parent))
}

# Why a column use is withdrawn for this script (ScriptFacts in script-facts.ts), or NULL: for an
# operand, the script defines an operator; for an argument, it defines one of the receivers.
column_use_withdrawn <- function(parsed, use, policy, receivers = character()) {
  key <- paste0("withdrawn_", use, ":", paste(sort(receivers), collapse = " "))
  if (!exists(key, envir = parsed$memo, inherits = FALSE)) {
    names_at <- which(parsed$tokens$token %in% c("SYMBOL", "STR_CONST", "SYMBOL_FORMALS", "SYMBOL_SUB"))
    values <- token_values(parsed)[names_at]
    ops <- policy$column_operators
    verdict <- if (use == "operand") {
      method <- startsWith(values, "Ops.") |
        vapply(values, function(v) any(startsWith(v, paste0(ops, ".")) & nchar(v) > nchar(ops) + 1L), NA)
      first_definition(parsed, names_at[values %in% ops | method], ops)
    } else {
      defined <- c(receivers, paste0(receivers, ".function"), paste0(receivers, ".default"))
      first_definition(parsed, names_at[values %in% defined])
    }
    assign(key, verdict, envir = parsed$memo)
  }
  get(key, envir = parsed$memo, inherits = FALSE)
}

# For the forbidden name at token i: TRUE when a relaxation allows it, NULL when none applies, or
# the message saying why the relaxation refused it.
relaxation_verdict <- function(parsed, i, name, policy) {
  if (parsed$tokens$token[[i]] == "SYMBOL_FUNCTION_CALL") return(relaxed_call_verdict(parsed, i, name, policy))
  if (data_name_use(parsed, i, name, policy)) return(TRUE)
  use <- column_use(parsed, i, policy)
  if (is.null(use)) return(NULL)
  receivers <- if (use == "argument") column_receivers(parsed, i, policy) else character()
  withdrawn <- column_use_withdrawn(parsed, use, policy, receivers)
  if (is.null(withdrawn)) TRUE else sprintf("'%s' would be allowed as a column here, but %s", name, withdrawn)
}

# Whether the script binds `name` itself: an assignment target, a loop variable or a parameter.
binds_name <- function(parsed, name) {
  key <- paste0("binds:", name)
  if (!exists(key, envir = parsed$memo, inherits = FALSE)) {
    at <- which(parsed$tokens$token %in% c("SYMBOL", "STR_CONST", "SYMBOL_FORMALS") & token_values(parsed) == name)
    binds <- any(vapply(at, function(k) token_role(parsed, k) %in% c("binding", "parameter"), NA))
    assign(key, binds, envir = parsed$memo)
  }
  get(key, envir = parsed$memo, inherits = FALSE)
}

# Whether the forbidden SYMBOL at i is data (relaxations.dataNames; dataNameUse in relaxations.ts):
# the script binds the name, or it is the whole value of an argument, not named for a function, of
# a call given one of the data arguments.
data_name_use <- function(parsed, i, name, policy) {
  if (parsed$tokens$token[[i]] != "SYMBOL") return(FALSE)
  role <- token_role(parsed, i)
  # A binding of the name (zip <- ..., for (load in ...)) looks nothing up, as the TypeScript walk holds.
  if (role == "binding") return(TRUE)
  if (role != "reference") return(FALSE)
  if (binds_name(parsed, name)) return(TRUE)
  pd <- parsed$pd
  wrapper <- parsed$tokens$parent[[i]]
  container <- pd_row(pd, wrapper)$parent
  kids <- children_of(pd, container)
  at <- match(wrapper, kids$id)
  if (is.na(at) || at <= 2L || kids$token[[2L]] != "'('" || !is_data_argument(kids, at, policy)) return(FALSE)
  named <- which(kids$token == "EQ_SUB") - 1L
  any(strip_quotes(kids$text[named]) %in% policy$data_arguments)
}
