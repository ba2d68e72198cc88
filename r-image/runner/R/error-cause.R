# The error that ended the script, as an agent needs it to act in one step: the whole chain of
# causes (rlang chains errors through `parent`), where in the script it happened (the innermost
# place the script itself wrote, not where its top-level expression starts), and the hints of
# error-hints.R. Everything here runs in the error handler, under the script's time limit.

# The condition and its parents, outermost first.
condition_chain <- function(e, max_depth = 10L) {
  chain <- list(e)
  repeat {
    parent <- subset2(chain[[length(chain)]], "parent")
    if (!inherits(parent, "condition") || length(chain) >= max_depth) break
    chain[[length(chain) + 1L]] <- parent
  }
  chain
}

own_message <- function(cnd) {
  msg <- subset2(cnd, "message")
  if (is.character(msg) && length(msg) >= 1L) paste(msg, collapse = "\n") else ""
}

# The full message of `e`: R's conditionMessage() (rlang's already names every cause), then each
# parent it left out as "Caused by error in <call>: <message>".
chain_message <- function(e, chain) {
  text <- tryCatch(condition_message(e), error = function(err) own_message(e))
  text <- if (is.character(text) && length(text) >= 1L) paste(text, collapse = "\n") else own_message(e)
  for (parent in chain[-1L]) {
    msg <- own_message(parent)
    if (!nzchar(msg) || grepl(msg, text, fixed = TRUE)) next
    call <- call_text(subset2(parent, "call"), 200L)
    text <- paste0(text, "\nCaused by error", if (!is.null(call)) paste0(" in `", call, "`"), ": ", msg)
  }
  text
}

# The parse data of the top-level expression `i`: its tokens, each with its depth in the tree.
expression_tokens <- function(exprs, i) {
  pd <- tryCatch(utils::getParseData(attr(exprs, "srcfile")), error = function(e) NULL)
  ref <- attr(exprs, "srcref")[[i]]
  if (is.null(pd) || nrow(pd) == 0L) return(NULL)
  inside <- (pd$line1 > ref[[1L]] | (pd$line1 == ref[[1L]] & pd$col1 >= ref[[5L]])) &
    (pd$line2 < ref[[3L]] | (pd$line2 == ref[[3L]] & pd$col2 <= ref[[6L]]))
  pd <- pd[inside, , drop = FALSE]
  parent_of <- stats::setNames(pd$parent, pd$id)
  pd$depth <- vapply(pd$id, function(id) {
    depth <- 0L
    while (!is.na(parent_of[as.character(id)]) && depth < 10000L) {
      id <- parent_of[[as.character(id)]]
      depth <- depth + 1L
    }
    depth
  }, 0L)
  pd[pd$terminal, , drop = FALSE]
}

# Where `text` is written as a `token` in the expression: the shallowest occurrence (the outer
# call of g(f(g(x))), the last stage of a pipeline), or NULL.
token_position <- function(tokens, token, text) {
  hits <- tokens[tokens$token == token & tokens$text == text, , drop = FALSE]
  if (is.null(hits) || nrow(hits) == 0L) return(NULL)
  hit <- hits[order(hits$depth, hits$line1, hits$col1), , drop = FALSE][1L, ]
  list(line = hit$line1, column = hit$col1)
}

# The name an "object not found" or "could not find function" error is about, and its token.
missing_name <- function(messages) {
  for (msg in messages) {
    object <- regmatches(msg, regexec("object '([^']+)' not found", msg))[[1L]]
    if (length(object) == 2L) return(list(name = object[[2L]], token = "SYMBOL", kind = "object"))
    fun <- regmatches(msg, regexec("could not find function \"([^\"]+)\"", msg))[[1L]]
    if (length(fun) == 2L) return(list(name = fun[[2L]], token = "SYMBOL_FUNCTION_CALL", kind = "function"))
  }
  NULL
}

# The innermost place in the script: the innermost frame the script wrote (its srcref) when the
# error came from inside a function the script defined; else, inside the top-level expression,
# the missing name itself or the call the top-level expression made (the `arrange` of a pipeline).
# `calls`: the call the top-level expression made, then the error's own call (a primitive such as
# sqrt() has no frame of its own).
innermost_position <- function(frames, tokens, missing, calls) {
  if (length(frames) > 1L) {
    last <- frames[[length(frames)]]
    return(last[c("line", "column")])
  }
  if (is.null(tokens)) return(NULL)
  if (!is.null(missing)) {
    at <- token_position(tokens, missing$token, missing$name)
    if (!is.null(at)) return(at)
  }
  for (call in calls) {
    if (!is.call(call) || !is.symbol(call[[1L]])) next
    at <- token_position(tokens, "SYMBOL_FUNCTION_CALL", as.character(call[[1L]]))
    if (!is.null(at)) return(at)
  }
  NULL
}

# The one line of the script at `line`, trimmed and capped.
script_line <- function(srcfile, line, max_bytes) {
  text <- tryCatch(getSrcLines(srcfile, line, line), error = function(e) character())
  if (length(text) != 1L) return(NULL)
  truncate_bytes(trimws(text), max_bytes)
}

# The `error` field: R's "Error in <call>: <message>" with the whole chain, the line of the
# script where it happened, and the hints.
error_text <- function(e, details, srcfile, caps) {
  text <- format_error(e, caps$errorBytes, message = details$message)
  if (!is.null(details$line)) {
    code <- script_line(srcfile, details$line, caps$callBytes)
    text <- paste0(text, "\nAt line ", details$line, if (!is.null(code) && nzchar(code)) paste0(": ", code))
  }
  for (hint in unlist(details$hints)) text <- paste0(text, "\nHint: ", hint)
  cap_string(text, caps$errorBytes)
}
