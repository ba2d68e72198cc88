# The script read with R's own parser, and the two checks made on it before anything runs
# (docs/script-rules.md, "Parser agreement"):
#   - R and tree-sitter (the validator's parser) must read the same symbols and the same calls; a
#     script the two parsers read differently is where a check on one of them could be fooled;
#   - no capability function is called directly (seam.json's capabilityFunctions, generated from
#     layers/rules/capabilities.json): the same advice /validate gives, in R's reading.
# Names are advice: what a script may do is decided below R, by the capsule.

# The symbol tokens getParseData() reports, as layers/parser/symbol-inventory.ts lists them.
symbol_token_types <- c("SYMBOL", "SYMBOL_FUNCTION_CALL", "SYMBOL_SUB", "SYMBOL_FORMALS", "SYMBOL_PACKAGE", "SLOT")

# The text between a token's quotes (backquoted names), as written.
unquote <- function(text) {
  n <- nchar(text)
  quoted <- n >= 2L & substr(text, 1L, 1L) == "`" & substr(text, n, n) == "`"
  text[quoted] <- substr(text[quoted], 2L, n[quoted] - 1L)
  text
}

# The script's expressions and terminal tokens in document order, or the parse error.
parse_script <- function(script_path) {
  exprs <- tryCatch(parse(script_path, keep.source = TRUE, encoding = "UTF-8"), error = function(e) e)
  if (inherits(exprs, "error")) return(list(error = exprs))
  pd <- utils::getParseData(exprs)
  tokens <- if (is.null(pd)) data.frame(token = character(), text = character()) else pd[pd$terminal, , drop = FALSE]
  if (nrow(tokens) > 0L) tokens <- tokens[order(tokens$line1, tokens$col1), , drop = FALSE]
  list(exprs = exprs, tokens = tokens)
}

# Each symbol once per occurrence, a called one with "(" after it; sorted as tree-sitter's are.
symbol_inventory <- function(tokens) {
  symbols <- tokens[tokens$token %in% symbol_token_types, , drop = FALSE]
  names <- as.character(unquote(symbols$text))
  called <- symbols$token == "SYMBOL_FUNCTION_CALL"
  names[called] <- paste0(names[called], "(")
  keep <- !(names %in% c("...", "...(") | grepl("^\\.\\.[0-9]+\\(?$", names))
  sort(names[keep], method = "radix")
}

# The direct calls of capability functions: `name(...)` where the name is R's own (attached in every
# session), `pkg::name(...)` of any, as layers/validator/checks/capability-call.ts finds them.
capability_calls <- function(tokens) {
  functions <- seam$capabilityFunctions
  if (is.null(functions)) stop("jube-r runner: seam.json lists no capability functions")
  by_name <- split(functions, vapply(functions, function(f) f$name, ""))
  found <- list()
  for (i in which(tokens$token == "SYMBOL_FUNCTION_CALL")) {
    rows <- by_name[[unquote(tokens$text[[i]])]]
    if (is.null(rows)) next
    qualified <- i > 2L && tokens$token[[i - 1L]] %in% c("NS_GET", "NS_GET_INT")
    package <- if (qualified) unquote(tokens$text[[i - 2L]]) else NULL
    for (f in rows) {
      if (if (is.null(package)) isTRUE(f$bare) else package %in% unlist(f$packages)) {
        found[[length(found) + 1L]] <- list(row = i, capability = f)
        break
      }
    }
  }
  found
}

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

# `tree_sitter_symbols`: the validator's inventory from input.json (NULL: tree-sitter found a
# syntax error). Returns the expressions and the findings (none: the script may run).
check_script <- function(script_path, tree_sitter_symbols) {
  findings <- new_findings()
  parsed <- parse_script(script_path)
  if (!is.null(parsed$error)) {
    msg <- conditionMessage(parsed$error)
    pos <- regmatches(msg, regexec(":([0-9]+):([0-9]+):", msg))[[1L]]
    line <- if (length(pos) == 3L) as.integer(pos[[2L]]) else 1L
    column <- if (length(pos) == 3L) as.integer(pos[[3L]]) else 1L
    findings$add("SYNTAX_ERROR", paste("R could not parse the script:", cap_string(msg, 2000L)), line, column)
    if (!is.null(tree_sitter_symbols)) {
      findings$add("PARSER_DISAGREEMENT", "tree-sitter parsed the script but R did not", line, column)
    }
    return(list(exprs = NULL, errors = findings$errors()))
  }
  tree_sitter <- if (!is.null(tree_sitter_symbols)) sort(as.character(unlist(tree_sitter_symbols)), method = "radix")
  if (is.null(tree_sitter_symbols)) {
    findings$add("PARSER_DISAGREEMENT", "R parsed the script but tree-sitter reported a syntax error", 1L, 1L)
  } else if (!identical(symbol_inventory(parsed$tokens), tree_sitter)) {
    findings$add(
      "PARSER_DISAGREEMENT", "R's parser and tree-sitter read different symbols or calls in this script", 1L, 1L
    )
  }
  for (hit in capability_calls(parsed$tokens)) {
    findings$add(
      "CAPABILITY_NOT_AVAILABLE", hit$capability$message,
      parsed$tokens$line1[[hit$row]], parsed$tokens$col1[[hit$row]], hit$capability$name
    )
  }
  list(exprs = parsed$exprs, errors = findings$errors())
}
