# The result envelope (WORKDIR/envelope.json): a header only this process knows (the nonce) and
# a list of fields. The handler trusts a file only if it carries the nonce, so a script that
# prints a fake envelope or writes envelope.json itself and quits cannot forge its status.

# Captured when the runner loads, before user code runs: the script may shadow these names in its
# own environment, but never reaches the runner's.
to_json <- get("toJSON", envir = asNamespace("jsonlite"))
write_text <- base::writeLines

cap_string <- function(x, max_bytes) {
  if (!is.character(x) || length(x) != 1L || is.na(x)) return("")
  if (nchar(x, type = "bytes") <= max_bytes) return(x)
  # One character more than the byte cap: still over it, so the handler cuts exactly and flags it.
  substr(x, 1L, max_bytes + 1L)
}

# At most max_bytes bytes of x, cut at a character boundary, "..." marking a cut (where the
# marker itself fits: a budget may be smaller than it).
truncate_bytes <- function(x, max_bytes) {
  if (!is.character(x) || length(x) != 1L || is.na(x)) return("")
  if (nchar(x, type = "bytes") <= max_bytes) return(x)
  dots <- if (max_bytes >= 3L) "..." else ""
  keep <- max(0L, max_bytes - nchar(dots))
  chars <- keep
  repeat {
    cut <- substr(x, 1L, chars)
    over <- nchar(cut, type = "bytes") - keep
    if (over <= 0L) return(paste0(cut, dots))
    chars <- chars - max(1L, over %/% 4L)
  }
}

envelope_header <- function(nonce, r_version) list(nonce = nonce, rVersion = r_version)

# A script R's re-validation refused: it never ran.
rejection_fields <- function(errors) {
  list(status = "rejected", error = NULL, warnings = list(), timedOut = FALSE, validation = errors)
}

# `fields` is a named list, written in order after the header; a NULL field is JSON null, and a
# string of class "json" (the script's value, already converted) is written as it is.
write_envelope <- function(path, header, fields) {
  text <- to_json(c(header, fields), auto_unbox = TRUE, null = "null", na = "null", digits = NA, json_verbatim = TRUE)
  tmp <- paste0(path, ".tmp")
  write_text(text, tmp, useBytes = TRUE)
  file.rename(tmp, path)
  invisible(NULL)
}
