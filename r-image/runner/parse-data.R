# R's parse data for the re-validation (revalidate.R): the script's tokens in document order, the
# value of a string literal, and the arguments of a call as the parser sees them.

base_ns <- baseenv()

# The text between a token's quotes, as written (the symbol inventory tree-sitter's is compared with).
unquote <- function(text) {
  n <- nchar(text)
  quote_char <- substr(text, 1L, 1L)
  quoted <- n >= 2L & quote_char %in% c("`", "\"", "'") & substr(text, n, n) == quote_char
  text[quoted] <- substr(text[quoted], 2L, n[quoted] - 1L)
  text
}

# The name a symbol token stands for: backquotes stripped and their escapes decoded as R decodes them
# (`\x73ystem` is system).
strip_quotes <- function(text) {
  escaped <- startsWith(text, "`") & grepl("\\", text, fixed = TRUE)
  out <- unquote(text)
  out[escaped] <- vapply(text[escaped], function(t) {
    name <- tryCatch(str2lang(t), error = function(e) NULL)
    if (is.name(name)) as.character(name) else unquote(t)
  }, "", USE.NAMES = FALSE)
  out
}

# A string literal's value, escapes included; falls back to the stripped text.
string_value <- function(text) {
  value <- tryCatch(eval(str2lang(text), base_ns), error = function(e) NULL)
  if (is.character(value) && length(value) == 1L) value else strip_quotes(text)
}

# The script's expressions and parse data, terminal tokens in document order; or the parse error.
# `text`: code that is not in a file (a package's example code, package-examples.R), parsed instead.
parse_script <- function(script_path, text = NULL) {
  exprs <- tryCatch(
    if (is.null(text)) {
      parse(script_path, keep.source = TRUE, encoding = "UTF-8")
    } else {
      parse(text = text, keep.source = TRUE, srcfile = srcfilecopy(script_path, text))
    },
    error = function(e) e
  )
  if (inherits(exprs, "error")) return(list(error = exprs))
  pd <- utils::getParseData(exprs, includeText = TRUE)
  if (is.null(pd)) {
    pd <- data.frame(id = integer(), parent = integer(), token = character(), text = character(), terminal = logical())
  }
  pd <- index_parse_data(source_text(pd))
  tokens <- pd[pd$terminal, , drop = FALSE]
  tokens <- tokens[order(tokens$line1, tokens$col1), , drop = FALSE]
  list(
    exprs = exprs, pd = pd, tokens = tokens,
    previous_token = c("", tokens$token[-nrow(tokens)]),
    next_token = c(tokens$token[-1L], ""),
    # Facts about the whole script, computed on first use (relaxations.R).
    memo = new.env(parent = emptyenv())
  )
}

# The parse data's text of a string or backquoted name is not always what the script says: R drops a
# digit of a short octal escape ("\56libPaths" reads "\5libPaths") and shows a string over 1000
# characters as "[1234 chars quoted with '\"']". Such tokens are read back from the source.
source_text <- function(pd) {
  suspect <- which(pd$terminal & (pd$token == "STR_CONST" | startsWith(pd$text, "`")) &
    (grepl("\\", pd$text, fixed = TRUE) | startsWith(pd$text, "[")))
  srcfile <- attr(pd, "srcfile")
  for (r in suspect) {
    lines <- getSrcLines(srcfile, pd$line1[[r]], pd$line2[[r]])
    n <- length(lines)
    lines[n] <- substr_with_tabs(lines[n], 1L, pd$col2[[r]])
    lines[1L] <- substr_with_tabs(lines[1L], pd$col1[[r]], Inf)
    pd$text[[r]] <- paste(lines, collapse = "\n")
  }
  pd
}

# substr() by parse-data columns, where a tab advances to the next multiple of 8 (utils' getParseText()).
substr_with_tabs <- function(x, start, stop) {
  if (!grepl("\t", x, fixed = TRUE)) return(substr(x, start, min(stop, nchar(x))))
  chars <- strsplit(x, "", fixed = TRUE)[[1L]]
  cols <- integer(length(chars))
  col <- 0L
  for (k in seq_along(chars)) {
    col <- if (chars[[k]] == "\t") (col %/% 8L + 1L) * 8L else col + 1L
    cols[[k]] <- col
  }
  from <- which(cols >= start)
  to <- which(cols <= stop)
  if (length(from) == 0L || length(to) == 0L) return("")
  substr(x, from[[1L]], to[[length(to)]])
}

# Row lookups by id and by parent, both indexed by position (a list looks names up one by one),
# so each rule's walk up and down the tree costs the same in a 1 MB script as in a small one.
index_parse_data <- function(pd) {
  size <- max(c(0L, pd$id))
  row_by_id <- rep(NA_integer_, size)
  row_by_id[pd$id] <- seq_len(nrow(pd))
  children <- pd$parent > 0L
  rows_by_parent <- vector("list", size)
  grouped <- split(which(children), pd$parent[children])
  rows_by_parent[as.integer(names(grouped))] <- grouped
  attr(pd, "row_by_id") <- row_by_id
  attr(pd, "rows_by_parent") <- rows_by_parent
  pd
}

# The row of the expression `id` (a row of NAs for 0, NA or an unknown id).
pd_row <- function(pd, id) {
  rows <- attr(pd, "row_by_id")
  row <- if (length(id) != 1L || is.na(id) || id < 1L || id > length(rows)) NA_integer_ else rows[[id]]
  pd[row, , drop = FALSE]
}

children_of <- function(pd, id) {
  by_parent <- attr(pd, "rows_by_parent")
  rows <- if (length(id) == 1L && !is.na(id) && id >= 1L && id <= length(by_parent)) by_parent[[id]]
  kids <- pd[if (is.null(rows)) integer() else rows, , drop = FALSE]
  kids[order(kids$line1, kids$col1), , drop = FALSE]
}

# The call whose function name is the i-th token: its expression id, its arguments and where it is.
call_site <- function(parsed, i) {
  pd <- parsed$pd
  call_id <- pd_row(pd, pd_row(pd, parsed$tokens$parent[[i]])$parent)$id
  list(
    call = call_id, args = call_arguments(pd, call_id), line = parsed$tokens$line1[[i]], col = parsed$tokens$col1[[i]],
    parsed = parsed
  )
}

# The arguments of the call expression `call_id`: name (if any), the token of a literal value,
# its text and position.
call_arguments <- function(pd, call_id) {
  kids <- children_of(pd, call_id)
  out <- list()
  pending_name <- NULL
  seen_open <- FALSE
  for (k in seq_len(nrow(kids))) {
    tok <- kids$token[[k]]
    if (!seen_open) {
      if (tok == "'('") seen_open <- TRUE
      next
    }
    if (tok %in% c("SYMBOL_SUB", "STR_CONST") && k < nrow(kids) && kids$token[[k + 1L]] == "EQ_SUB") {
      pending_name <- strip_quotes(kids$text[[k]])
    } else if (tok == "expr") {
      inner <- children_of(pd, kids$id[[k]])
      literal <- if (nrow(inner) == 1L && inner$terminal[[1L]]) inner$token[[1L]] else "expr"
      out[[length(out) + 1L]] <- list(
        name = pending_name, token = literal, text = if (nrow(inner) == 1L) inner$text[[1L]] else "",
        line = kids$line1[[k]], col = kids$col1[[k]], id = kids$id[[k]]
      )
      pending_name <- NULL
    } else if (tok %in% c("','", "')'") && !is.null(pending_name)) {
      out[[length(out) + 1L]] <- list(
        name = pending_name, token = "empty", text = "", line = kids$line1[[k]], col = kids$col1[[k]]
      )
      pending_name <- NULL
    }
  }
  out
}

# The number an argument's expression is written as (`1`, `-1`, `2L`), or NULL (literalNumber in options.ts).
literal_number <- function(pd, arg) {
  sign <- 1
  id <- arg$id
  kids <- children_of(pd, id)
  if (nrow(kids) == 2L && kids$token[[1L]] == "'-'" && kids$token[[2L]] == "expr") {
    sign <- -1
    kids <- children_of(pd, kids$id[[2L]])
  }
  if (nrow(kids) != 1L || kids$token[[1L]] != "NUM_CONST") return(NULL)
  text <- sub("L$", "", kids$text[[1L]])
  if (!grepl("^[0-9]+([.][0-9]*)?$", text)) return(NULL)
  sign * as.numeric(text)
}
