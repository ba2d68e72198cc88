# Re-validation with R's own parser (docs/script-rules.md): the same rules as the TypeScript validator, on
# getParseData()'s tokens. Each rule is one entry of a registry below, testable on its own
# (test/runner/r/test-revalidate.R); a script any rule refuses never runs.

new_findings <- function() {
  errors <- list()
  list(
    add = function(code, message, line, column, symbol = NULL) {
      err <- list(
        code = code, message = message, line = max(1L, as.integer(line)), column = max(1L, as.integer(column))
      )
      if (!is.null(symbol)) err$symbol <- symbol
      errors[[length(errors) + 1L]] <<- err
    },
    errors = function() errors
  )
}

# Every rule of the registries below, or the ones named in `only`. `tree_sitter_symbols` is tree-sitter's symbol list
# from input.json (NULL when tree-sitter found a syntax error). `text`: code to check instead of the file's
# (parse_script()).
check_script <- function(script_path, policy, tree_sitter_symbols, only = NULL, text = NULL) {
  findings <- new_findings()
  add <- findings$add
  selected <- function(rules) if (is.null(only)) rules else rules[intersect(names(rules), only)]
  parsed <- parse_script(script_path, text)
  if (!is.null(parsed$error)) {
    report_parse_error(parsed$error, tree_sitter_symbols, add)
    return(list(exprs = NULL, errors = findings$errors()))
  }
  if (is.null(only) || "parser_agreement" %in% only) check_parser_agreement(parsed, tree_sitter_symbols, add)
  token_rules_here <- selected(token_rules)
  for (i in seq_len(nrow(parsed$tokens))) {
    tok <- parsed$tokens$token[[i]]
    for (rule in token_rules_here) if (tok %in% rule$tokens) rule$check(parsed, i, policy, add)
  }
  call_rules_here <- selected(call_rules)
  # A string called (`"options"(editor = "vi")`) is refused as such, and its call checked as well.
  string_called <- parsed$tokens$token == "STR_CONST" & parsed$next_token == "'('"
  for (i in which(parsed$tokens$token == "SYMBOL_FUNCTION_CALL" | string_called)) {
    name <- token_value(parsed, i)
    for (rule in call_rules_here) {
      if (name %in% rule$names(policy)) {
        rule$check(name, call_site(parsed, i), policy, add)
        break
      }
    }
  }
  list(exprs = parsed$exprs, errors = drop_guarded(findings$errors(), absent_package_guards(parsed, policy)))
}

report_parse_error <- function(error, tree_sitter_symbols, add) {
  msg <- conditionMessage(error)
  pos <- regmatches(msg, regexec(":([0-9]+):([0-9]+):", msg))[[1L]]
  line <- if (length(pos) == 3L) as.integer(pos[[2L]]) else 1L
  column <- if (length(pos) == 3L) as.integer(pos[[3L]]) else 1L
  add("SYNTAX_ERROR", paste("R could not parse the script:", cap_string(msg, 2000L)), line, column)
  if (!is.null(tree_sitter_symbols)) {
    add("PARSER_DISAGREEMENT", "tree-sitter parsed the script but R did not", line, column)
  }
}

# The cross-check: the same symbol inventory as layers/parser/symbol-inventory.ts.
symbol_token_types <- c("SYMBOL", "SYMBOL_FUNCTION_CALL", "SYMBOL_SUB", "SYMBOL_FORMALS", "SYMBOL_PACKAGE", "SLOT")
check_parser_agreement <- function(parsed, tree_sitter_symbols, add) {
  tokens <- parsed$tokens
  r_symbols <- unquote(tokens$text[tokens$token %in% symbol_token_types])
  r_symbols <- r_symbols[!(r_symbols == "..." | grepl("^\\.\\.[0-9]+$", r_symbols))]
  if (is.null(tree_sitter_symbols)) {
    add("PARSER_DISAGREEMENT", "R parsed the script but tree-sitter reported a syntax error", 1L, 1L)
    return(invisible())
  }
  ts_symbols <- as.character(unlist(tree_sitter_symbols))
  if (!identical(sort(r_symbols, method = "radix"), sort(ts_symbols, method = "radix"))) {
    add("PARSER_DISAGREEMENT", "R's parser and tree-sitter read different symbols in this script", 1L, 1L)
  }
}

# ---- token rules: check(parsed, i, policy, add) for the i-th token ------------------------------
is_metadata_name <- function(name) startsWith(name, ".__")

check_forbidden_symbol <- function(parsed, i, policy, add) {
  # x$name and x@name select a field; they do not look anything up.
  if (parsed$previous_token[[i]] %in% c("'$'", "'@'")) return(invisible())
  name <- strip_quotes(parsed$tokens$text[[i]])
  line <- parsed$tokens$line1[[i]]
  col <- parsed$tokens$col1[[i]]
  if (name %in% policy$forbidden) {
    verdict <- relaxation_verdict(parsed, i, name, policy)
    if (isTRUE(verdict)) return(invisible())
    message <- if (is.character(verdict)) verdict else sprintf("'%s' is not allowed in jube-r scripts", name)
    add("FORBIDDEN_SYMBOL", message, line, col, name)
  } else if (is_metadata_name(name)) {
    add("FORBIDDEN_SYMBOL", sprintf(paste(
      "'%s' is package metadata (S4 method tables and class definitions hold environments)",
      "and not allowed in jube-r scripts"
    ), name), line, col, name)
  }
}

# A string where a name is looked up: after `::`, called, or given where a function is expected.
check_string_as_name <- function(parsed, i, policy, add) {
  value <- string_value(parsed$tokens$text[[i]])
  line <- parsed$tokens$line1[[i]]
  col <- parsed$tokens$col1[[i]]
  after_ns_get <- parsed$previous_token[[i]] %in% c("NS_GET", "NS_GET_INT")
  if (after_ns_get && (value %in% policy$forbidden || is_metadata_name(value))) {
    add("FORBIDDEN_SYMBOL", sprintf("'%s' is not allowed in jube-r scripts", value), line, col, value)
  } else if (parsed$next_token[[i]] == "'('") {
    pkg <- if (after_ns_get) paste(parsed$tokens$text[i - 2:1], collapse = "") else ""
    by_name <- paste0(pkg, if (make.names(value) == value) value else sprintf("`%s`", value), "(...)")
    add("FORBIDDEN_STRING_FUNCTION", paste("a string may not be called as a function; call it by name:", by_name),
      line, col, value)
  } else if (value %in% policy$forbidden && string_passed_as_function(parsed, i, policy)) {
    add("FORBIDDEN_STRING_FUNCTION", sprintf("'%s' may not be passed as a function name", value), line, col, value)
  }
}

# A forbidden name as a string is as good as the symbol where a function is expected: an argument of a higher-order
# function or of do.call()/match.fun() (also piped into one), or a named function argument (FUN = "system").
string_passed_as_function <- function(parsed, i, policy) {
  pd <- parsed$pd
  resolvers <- c(policy$hof_names, names(policy$literal_functions))
  wrapper <- pd_row(pd, parsed$tokens$parent[[i]])
  call <- pd_row(pd, wrapper$parent)
  if (nrow(call) != 1L || is.na(call$id)) return(FALSE)
  kids <- children_of(pd, call$id)
  if (nrow(kids) == 3L && kids$id[[1L]] == wrapper$id && kids$token[[2L]] %in% c("PIPE", "SPECIAL")) {
    return(callee_of(pd, kids$id[[3L]]) %in% resolvers)
  }
  if (callee_of(pd, call$id) %in% resolvers) return(TRUE)
  at <- match(wrapper$id, kids$id)
  if (!is.na(at) && at >= 3L && kids$token[[at - 1L]] == "EQ_SUB") {
    arg_name <- strip_quotes(kids$text[[at - 2L]])
    if (arg_name %in% policy$fun_arg_names) return(TRUE)
  }
  FALSE
}

# ---- call rules: check(name, site, policy, add) for a call of one of names(policy) --------------
check_options_call <- function(name, site, policy, add) {
  for (arg in site$args) {
    if (!is.null(arg$name) && arg$name %in% names(policy$restricted_options)) {
      allowed <- policy$restricted_options[[arg$name]]
      value <- if (is.null(arg$id)) NULL else literal_number(site$parsed$pd, arg)
      if (is.null(value) || !(value %in% allowed)) {
        message <- sprintf("option '%s' may be set only to %s", arg$name, paste(allowed, collapse = ", "))
        add("OPTION_NOT_ALLOWED", message, arg$line, arg$col, arg$name)
      }
    } else if (!is.null(arg$name)) {
      if (arg$name %in% policy$denied_options) {
        add("OPTION_NOT_ALLOWED", sprintf("option '%s' may not be set", arg$name), arg$line, arg$col, arg$name)
      }
    } else if (!identical(arg$token, "STR_CONST")) {
      problem <- saved_options_verdict(name, site, arg, policy)
      if (!is.null(problem)) add("OPTION_NOT_ALLOWED", problem, arg$line, arg$col, name)
    }
  }
}

# ---- the registries: rule id -> what it looks at and its check ----------------------------------
# Each token meets the rules listing its type, in this order (revalidate-values.R holds the last four).
# check_blocked_operator is internal-functions.R's (the `:::` of the listed internal functions).
token_rules <- list(
  forbidden_symbol = list(tokens = c("SYMBOL", "SYMBOL_FUNCTION_CALL"), check = check_forbidden_symbol),
  blocked_operator = list(
    tokens = c("LEFT_ASSIGN", "RIGHT_ASSIGN", "NS_GET_INT", "NS_GET"), check = check_blocked_operator
  ),
  namespace_package = list(tokens = "SYMBOL_PACKAGE", check = check_namespace_package),
  string_as_name = list(tokens = "STR_CONST", check = check_string_as_name),
  function_value = list(tokens = c("SYMBOL", "STR_CONST"), check = check_function_value),
  replacement_call = list(tokens = "SYMBOL_FUNCTION_CALL", check = check_replacement_call),
  formula_string = list(tokens = "STR_CONST", check = check_formula_string),
  class_value = list(tokens = "STR_CONST", check = check_class_value)
)

# The first rule naming a called function checks that call.
call_rules <- list(
  package_loader = list(names = function(policy) policy$loaders, check = check_loader_call),
  package_query = list(names = function(policy) sub("^.*::", "", policy$package_queries), check = check_package_query),
  options = list(names = function(policy) policy$option_functions, check = check_options_call),
  example_package = list(names = function(policy) policy$example_functions, check = check_example_package),
  s3_dispatch = list(names = function(policy) c("UseMethod", "NextMethod"), check = check_dispatch_call)
)
