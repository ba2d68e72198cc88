# The last top-level expression's value for the caller (what dsprrr's runners call `result`): JSON
# where R's value has a faithful JSON form, otherwise its printed form and class; either within
# caps$valueBytes. It runs after the script, under its own short time limit, so a slow print
# method cannot cost the envelope. The JSON encoding itself is value-json.R.

# Seconds the conversion may take at most (and never past the script's own limit plus a little).
value_seconds <- 2
# An object this many times the byte cap is not even tried as JSON: jsonlite would build it whole.
value_size_factor <- 8
# Printing these draws a plot (it already did if it was autoprinted); their printed form is a label.
graphics_classes <- c("ggplot", "trellis", "grob", "gtable", "recordedplot")

not_json <- structure(list(), class = "jube_not_json")

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
        c(list(kind = "json", class = classes, json = json$json), if (!is.null(json$types)) list(types = json$types))
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
