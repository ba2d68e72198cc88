# An /execute response as dsprrr's runner protocol has it (docs/api.md, "A dsprrr-style runner"):
# the protocol's fields first, then what it has no slot for (plots, files, notes, the error's
# details, the raw value) as further list elements.

# The value's JSON as an R object with its names and types back: a named vector travels as an
# object, a data frame as records with row names in `_row`, a factor or a date as strings.
decode_value <- function(value) {
  if (is.null(value)) return(NULL)
  if (!identical(value$kind, "json")) return(value$printed)
  restore_types(jsonlite::fromJSON(to_json(value$json), simplifyVector = TRUE), unlist(value$class))
}

atomic_classes <- c("numeric", "integer", "character", "logical", "double")

restore_types <- function(x, classes) {
  if ("data.frame" %in% classes && is.data.frame(x) && "_row" %in% names(x)) {
    rownames(x) <- x[["_row"]]
    x[["_row"]] <- NULL
  }
  if (is_named_scalars(x) && any(classes %in% atomic_classes)) x <- unlist(x)
  # JSON has one number type; R's class says which the value was.
  if ("integer" %in% classes && is.numeric(x) && all(x == round(x), na.rm = TRUE)) storage.mode(x) <- "integer"
  if ("numeric" %in% classes && is.integer(x)) storage.mode(x) <- "double"
  if ("factor" %in% classes && is.character(x)) x <- factor(x)
  if ("Date" %in% classes && is.character(x)) x <- as.Date(x)
  x
}

is_named_scalars <- function(x) {
  is.list(x) && !is.data.frame(x) && all(vapply(x, function(v) is.atomic(v) && length(v) == 1L, logical(1)))
}

joined <- function(x) paste(unlist(x), collapse = "\n")

cut_chars <- function(text, max_chars) {
  if (nchar(text) <= max_chars) return(text)
  paste0(substr(text, 1L, max_chars), "\n... [output truncated by jubeR at ", max_chars, " characters]")
}

runner_result <- function(body, max_output_chars) {
  ok <- identical(body$status, "ok")
  result <- if (!is.null(body$result)) body$result else decode_value(body$value)
  out <- list(
    success = ok,
    result = result,
    stdout = cut_chars(body$consoleOutput %||% "", max_output_chars),
    stderr = "",
    messages = joined(body$messages),
    warnings = joined(body$warnings),
    error = if (ok) NULL else (body$error %||% paste("the script ended with status", body$status)),
    error_type = if (ok) NULL else (body$errorType %||% "execution"),
    retryable = !ok && identical(body$errorType %||% "execution", "execution"),
    duration_ms = as.numeric(body$durationMs %||% NA_real_)
  )
  extras <- list(
    status = body$status,
    timed_out = isTRUE(body$timedOut),
    value = body$value,
    plots = body$plots,
    files = body$files,
    notes = unlist(body$notes),
    error_details = body$errorDetails,
    warning_details = body$warningDetails,
    validation = body$validation,
    truncated = isTRUE(body$truncated),
    r_version = body$rVersion
  )
  c(out, Filter(Negate(is.null), extras))
}

interpreter_failure <- function(error, duration_ms, ...) {
  c(
    list(
      success = FALSE, result = NULL, stdout = "", stderr = "", messages = "", warnings = "",
      error = error, error_type = "interpreter", retryable = FALSE, duration_ms = duration_ms
    ),
    list(...)
  )
}
