# The last top-level expression's value for the caller (what dsprrr's runners call `result`): JSON
# where R's value maps onto it (NULL, vectors, factors, dates, matrices, plain lists, data frames
# as records), otherwise its printed form and class; either within caps$valueBytes. It runs after
# the script, under its own short time limit, so a slow print method cannot cost the envelope.

# Seconds the conversion may take at most (and never past the script's own limit plus a little).
value_seconds <- 2
# An object this many times the byte cap is not even tried as JSON: jsonlite would build it whole.
value_size_factor <- 8
# Printing these draws a plot (it already did if it was autoprinted); their printed form is a label.
graphics_classes <- c("ggplot", "trellis", "grob", "gtable", "recordedplot")

not_json <- structure(list(), class = "jube_not_json")

# x as jsonlite should see it, or not_json. Named vectors become objects; a matrix with column
# names a table of records (a coefficient matrix keeps its row names as "_row").
json_ready <- function(x) {
  if (is.null(x) || is.data.frame(x)) return(x)
  if (is.atomic(x) && (is.null(oldClass(x)) || inherits(x, c("factor", "Date", "POSIXct")))) {
    if (is.matrix(x) && !is.null(colnames(x))) return(as.data.frame(x, stringsAsFactors = FALSE))
    if (!is.null(names(x)) && is.null(dim(x))) return(as.list(x))
    return(x)
  }
  if (is.list(x) && is.null(oldClass(x))) return(x)
  not_json
}

value_json <- function(x, max_bytes) {
  ready <- json_ready(x)
  if (identical(ready, not_json) || utils::object.size(ready) > value_size_factor * max_bytes) return(NULL)
  text <- tryCatch(
    to_json(ready, dataframe = "rows", matrix = "rowmajor", auto_unbox = TRUE, digits = NA, na = "null", null = "null"),
    error = function(e) NULL
  )
  if (is.null(text) || nchar(text, type = "bytes") > max_bytes) return(NULL)
  structure(as.character(text), class = "json")
}

printed_form <- function(x) {
  if (inherits(x, graphics_classes)) {
    return(sprintf("<%s object: printing it draws a plot>", class(x)[[1L]]))
  }
  old <- options(max.print = 1000L)
  on.exit(options(old), add = TRUE)
  paste(utils::capture.output(print(x)), collapse = "\n")
}

# The envelope's `value`, or NULL when there is none (the script failed, or had no expression) or
# the conversion itself failed (then a note says so).
value_field <- function(shown, caps, seconds_left, add_note) {
  if (is.null(shown)) return(NULL)
  seconds <- min(value_seconds, seconds_left)
  if (seconds < 0.1) {
    add_note("the last value was not converted: the script used its whole time limit")
    return(NULL)
  }
  x <- shown$value
  classes <- as.list(class(x))
  set_time_limit(cpu = seconds, elapsed = seconds, transient = TRUE)
  on.exit(set_time_limit(), add = TRUE)
  tryCatch(
    suppressWarnings(suppressMessages({
      json <- value_json(x, caps$valueBytes)
      if (!is.null(json)) {
        list(kind = "json", class = classes, json = json)
      } else {
        printed <- printed_form(x)
        cut <- truncate_bytes(printed, caps$valueBytes)
        list(kind = "printed", class = classes, printed = cut, truncated = !identical(cut, printed))
      }
    })),
    error = function(e) {
      add_note(sprintf("the last value could not be converted: %s", truncate_bytes(condition_message(e), 500L)))
      NULL
    }
  )
}
