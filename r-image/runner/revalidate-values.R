# Token rules of the re-validation (revalidate.R registers them) for names R reaches other than by a plain
# call, as the TypeScript validator's checks do: a package loader or options() handed around as a value
# (checks/package-loader.ts, checks/options.ts), a forbidden replacement function reached by assignment
# syntax (`body(f) <- v` calls `body<-`; checks/forbidden-symbol.ts) and a formula written as a string
# (checks/formula-string.ts).

# A loader or options() as a value (`lapply(pkgs, library)`, `do.call("options", l)`): the call checks
# would not see its arguments. Not where it is read as data (value_as_data).
check_function_value <- function(parsed, i, policy, add) {
  name <- token_values(parsed)[[i]]
  if (!(name %in% policy$loaders || name %in% policy$option_functions)) return(invisible())
  data <- NULL
  if (parsed$tokens$token[[i]] == "STR_CONST") {
    if (parsed$next_token[[i]] == "'('" || !string_passed_as_function(parsed, i, policy)) return(invisible())
  } else {
    if (parsed$previous_token[[i]] %in% c("'$'", "'@'")) return(invisible())
    parent <- parsed$tokens$parent[[i]]
    if (pd_row(parsed$pd, parent)$token == "forcond" || assigned_side(parsed$pd, parent)) return(invisible())
    data <- value_as_data(parsed, i, name, policy)
    if (isTRUE(data)) return(invisible())
  }
  line <- parsed$tokens$line1[[i]]
  col <- parsed$tokens$col1[[i]]
  why <- if (is.character(data)) sprintf("; as a column it would be allowed here, but %s", data) else ""
  if (name %in% policy$loaders) {
    add("PACKAGE_LOADER_ARGUMENT", sprintf(
      "%s may only be called directly with a literal package name (e.g. %s(dplyr)), not passed around as a value%s",
      name, name, why
    ), line, col, name)
  } else if (name %in% policy$option_functions) {
    add("OPTION_NOT_ALLOWED", sprintf(
      "call %s() directly with named settings, e.g. %s(digits = 3); it cannot be passed as a value%s", name, name, why
    ), line, col, name)
  }
}

# TRUE when the loader or options() SYMBOL at i is read as data, NULL when not, or why its column use
# was withdrawn (functionValueAsData in relaxations.ts): a column use for every such name, a data name
# (data_name_use) for options() only, whose runtime version checks every setting it is given.
value_as_data <- function(parsed, i, name, policy) {
  if (name %in% policy$option_functions && data_name_use(parsed, i, name, policy)) return(TRUE)
  use <- column_use(parsed, i, policy)
  if (is.null(use)) return(NULL)
  receivers <- if (use == "argument") column_receivers(parsed, i, policy) else character()
  withdrawn <- column_use_withdrawn(parsed, use, policy, receivers)
  if (is.null(withdrawn)) TRUE else withdrawn
}

# The callee of an assignment's target, or of a call or index on the way to it (`body(f)[[1]] <- v` calls
# `body<-`): its replacement function is what R calls.
check_replacement_call <- function(parsed, i, policy, add) {
  replacement <- paste0(strip_quotes(parsed$tokens$text[[i]]), "<-")
  if (!(replacement %in% policy$forbidden)) return(invisible())
  pd <- parsed$pd
  if (!is_assignment_target(pd, pd_row(pd, parsed$tokens$parent[[i]])$parent)) return(invisible())
  add("FORBIDDEN_SYMBOL", sprintf("'%s' is not allowed in jube-r scripts (called by `%s(...) <- value`)",
    replacement, sub("<-$", "", replacement)), parsed$tokens$line1[[i]], parsed$tokens$col1[[i]], replacement)
}

# Whether the expression `id` is an assignment's target, or the first argument of a call, the object of an
# index or the left side of `$`/`@` on the way to one (isAssignmentTarget and the walk's frame.target).
is_assignment_target <- function(pd, id) {
  walk_up(pd, id, function(kids, at, parent) {
    if (assignment_side(kids, at) == "target") return(TRUE)
    if (on_the_way_to_target(kids, at)) NA else FALSE
  })
}

# Walks from the expression `id` up its ancestors, asking `step(kids, at, parent)` at each (`kids` the parent's
# children, `at` where the one below stands): TRUE or FALSE ends the walk with it, NA goes on; the top is FALSE.
walk_up <- function(pd, id, step) {
  repeat {
    parent <- pd_row(pd, id)$parent
    if (is.na(parent) || parent == 0L) return(FALSE)
    kids <- children_of(pd, parent)
    at <- match(id, kids$id)
    if (is.na(at)) return(FALSE)
    verdict <- step(kids, at, parent)
    if (!is.na(verdict)) return(verdict)
    id <- parent
  }
}

# "target", "value" or "": where the `at`-th of an expression's children `kids` stands in an assignment.
assignment_side <- function(kids, at) {
  if (nrow(kids) != 3L || at == 2L) return("")
  op <- kids$token[[2L]]
  if (op %in% c("LEFT_ASSIGN", "EQ_ASSIGN")) return(if (at == 1L) "target" else "value")
  if (op == "RIGHT_ASSIGN") return(if (at == 3L) "target" else "value")
  ""
}

# The first argument of a call, or the object of `[`, `[[`, `$` or `@`: replaced along with the whole.
on_the_way_to_target <- function(kids, at) {
  if (at == 3L && kids$token[[2L]] == "'('") return(TRUE)
  at == 1L && nrow(kids) >= 2L && kids$token[[2L]] %in% c("'['", "LBB", "'$'", "'@'")
}

# A string holding `~` is parsed and evaluated by the model functions (`lm("y ~ system('id')", d)`): a
# forbidden name or a blocked operator in it is refused as if written outside the quotes.
formula_name_pattern <- "`((?:[^`\\\\]|\\\\.)*)`|((?:[A-Za-z]|\\.(?![0-9]))[A-Za-z0-9._]*)"

check_formula_string <- function(parsed, i, policy, add) {
  value <- token_values(parsed)[[i]]
  if (!grepl("~", value, fixed = TRUE)) return(invisible())
  line <- parsed$tokens$line1[[i]]
  col <- parsed$tokens$col1[[i]]
  names <- strip_quotes(regmatches(value, gregexpr(formula_name_pattern, value, perl = TRUE))[[1L]])
  hit <- names[names %in% policy$forbidden]
  if (length(hit) > 0L) {
    add("FORBIDDEN_STRING_FUNCTION", sprintf(
      "'%s' is not allowed in jube-r scripts, and a formula given as a string is parsed and evaluated as code",
      hit[[1L]]
    ), line, col, hit[[1L]])
    return(invisible())
  }
  for (op in policy$blocked_operators) {
    if (grepl(op, value, fixed = TRUE)) {
      add("BLOCKED_OPERATOR", sprintf("the operator '%s' is not allowed, not even inside a formula string", op),
        line, col, op)
      return(invisible())
    }
  }
}

# S3 dispatch glues two strings into a function name (`UseMethod("Sys")` on class "getenv" calls Sys.getenv): a
# generic that prefixes a forbidden "a.b" name, a computed one, and a class value that completes one are refused
# (checks/s3-dispatch.ts). `policy$s3_prefixes` and `policy$s3_suffixes` split every forbidden name at each dot.
check_dispatch_call <- function(name, site, policy, add) {
  first <- if (length(site$args) > 0L) site$args[[1L]]
  if (is.null(first) || identical(first$token, "empty")) {
    if (name == "UseMethod") {
      add("FORBIDDEN_STRING_FUNCTION", "UseMethod() must name its generic with a string literal", site$line, site$col,
        name)
    }
    return(invisible())
  }
  if (!identical(first$token, "STR_CONST")) {
    add("FORBIDDEN_STRING_FUNCTION", sprintf(
      "%s() must name its generic with a string literal; a computed name could dispatch to a forbidden function", name
    ), first$line, first$col, name)
    return(invisible())
  }
  generic <- string_value(first$text)
  if (generic %in% policy$s3_prefixes || generic %in% policy$forbidden) {
    add("FORBIDDEN_STRING_FUNCTION", sprintf(paste(
      "the generic name '%s' would let S3 dispatch reach forbidden functions named \"%s.<class>\";",
      "choose another generic name"
    ), generic, generic), first$line, first$col, generic)
  }
}

check_class_value <- function(parsed, i, policy, add) {
  cls <- token_values(parsed)[[i]]
  if (!(cls %in% policy$s3_suffixes) || !in_class_value(parsed$pd, parsed$tokens$parent[[i]])) return(invisible())
  add("FORBIDDEN_STRING_FUNCTION", sprintf(
    "the class '%s' would let S3 dispatch reach a forbidden function named \"<generic>.%s\"; choose another class name",
    cls, cls
  ), parsed$tokens$line1[[i]], parsed$tokens$col1[[i]], cls)
}

# Whether the expression `id` lies in the value of `class(x) <- value` (`oldClass`, `=`) or of structure(class = ).
in_class_value <- function(pd, id) {
  walk_up(pd, id, function(kids, at, parent) {
    if (sets_class(pd, kids, at) || is_structure_class(pd, parent, kids, at)) TRUE else NA
  })
}

sets_class <- function(pd, kids, at) {
  assignment_side(kids, at) == "value" && at == 3L && kids$text[[2L]] %in% c("<-", "=") &&
    callee_of(pd, kids$id[[1L]]) %in% c("class", "oldClass")
}

is_structure_class <- function(pd, call, kids, at) {
  at >= 3L && kids$token[[at - 1L]] == "EQ_SUB" && strip_quotes(kids$text[[at - 2L]]) == "class" &&
    callee_of(pd, call) == "structure"
}

# The parts of the forbidden names S3 dispatch could join: each prefix before a dot and each rest after it.
s3_name_parts <- function(forbidden) {
  parts <- lapply(forbidden, function(symbol) {
    dots <- gregexpr(".", symbol, fixed = TRUE)[[1L]]
    dots <- dots[dots > 1L]
    if (length(dots) == 0L) return(NULL)
    list(prefixes = substr(rep(symbol, length(dots)), 1L, dots - 1L), suffixes = substring(symbol, dots + 1L))
  })
  suffixes <- unlist(lapply(parts, `[[`, "suffixes"))
  list(prefixes = unique(unlist(lapply(parts, `[[`, "prefixes"))), suffixes = unique(suffixes[nzchar(suffixes)]))
}

# Whether the call at `site` names its function plainly or as `home::name` (not as a string, nor through `:::`): the
# forms a relaxation reads as the function itself (relaxedCallProblem in checks/forbidden-symbol.ts).
plain_call <- function(site, home) {
  pd <- site$parsed$pd
  fn <- children_of(pd, children_of(pd, site$call)$id[[1L]])
  if (nrow(fn) == 1L) return(fn$token[[1L]] == "SYMBOL_FUNCTION_CALL")
  nrow(fn) == 3L && fn$token[[2L]] == "NS_GET" && fn$token[[3L]] == "SYMBOL_FUNCTION_CALL" &&
    strip_quotes(fn$text[[1L]]) == home
}
