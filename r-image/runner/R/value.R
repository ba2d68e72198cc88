# The last top-level expression's value for the caller (what dsprrr's runners call `result`): JSON
# where R's value has a faithful JSON form, otherwise its printed form and class; either within
# caps$valueBytes. It runs after the script, under its own short time limit, so a slow print
# method cannot cost the envelope. The JSON encoding itself is value-json.R. A printed value says
# which caps shortened it (`cuts`), so the handler's note names each: "json" (its JSON was over
# valueBytes, so it was printed), "maxPrint" (print() stopped at max.print), "valueBytes" (the
# printed text was cut to it).

# Seconds the conversion may take at most (and never past the script's own limit plus a little).
value_seconds <- 2
# An object this many times the byte cap is not even tried as JSON: jsonlite would build it whole.
value_size_factor <- 8
# Printing these draws a plot (it already did if it was autoprinted); their printed form is a label.
graphics_classes <- c("ggplot", "trellis", "grob", "gtable", "recordedplot")

# Entries print() shows of the value (seam.json valueLimits), whatever the script could ask for.
value_max_print <- function() as.integer(seam$valueLimits$maxPrint)
# The line R's print methods end with where max.print stopped them (print.default, matrices and
# arrays, print.data.frame): " [ reached getOption("max.print") -- omitted 10 entries ]".
max_print_line <- "^ \\[ reached .*getOption\\(\"max\\.print\"\\) -- omitted .* \\]$"

not_json <- structure(list(), class = "jube_not_json")

# The printed text, and whether print() stopped at max.print.
printed_form <- function(x) {
  if (inherits(x, graphics_classes)) {
    return(list(text = sprintf("<%s object: printing it draws a plot>", class(x)[[1L]]), max_print = FALSE))
  }
  old <- options(max.print = value_max_print())
  on.exit(options(old), add = TRUE)
  lines <- utils::capture.output(print(x))
  list(text = paste(lines, collapse = "\n"), max_print = any(grepl(max_print_line, lines, useBytes = TRUE)))
}

printed_value <- function(x, classes, json_over, max_bytes) {
  printed <- printed_form(x)
  text <- truncate_bytes(printed$text, max_bytes)
  bytes_cut <- !identical(text, printed$text)
  cuts <- c(if (json_over) "json", if (printed$max_print) "maxPrint", if (bytes_cut) "valueBytes")
  c(
    list(kind = "printed", class = classes, printed = text, truncated = printed$max_print || bytes_cut),
    if (length(cuts) > 0L) list(cuts = as.list(cuts))
  )
}

# Whether a value too large to try looks like one with a faithful JSON form, judged without
# building it: a plain vector, or a data frame of plain or leaf columns with usable names.
json_shaped <- function(x) {
  if (is_plain_vector(x)) return(is.null(names(x)))
  if (!is.data.frame(x) || ncol(x) > value_max_types()) return(FALSE)
  keys <- names(x)
  column_ok <- function(col) is_plain_vector(col) || (is.atomic(col) && is.null(dim(col)) && is_leaf_class(col))
  columns_ok <- all(vapply(x, column_ok, TRUE))
  columns_ok && !anyNA(keys) && all(nzchar(keys)) && anyDuplicated(keys) == 0L
}

# The value as JSON (value_json), or list(over = TRUE) for one too large to even try that looks
# as if it had a JSON form.
value_json_within <- function(x, max_bytes) {
  if (utils::object.size(x) > value_size_factor * max_bytes) return(if (json_shaped(x)) list(over = TRUE))
  value_json(x, max_bytes)
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
      json <- value_json_within(x, caps$valueBytes)
      if (!is.null(json$json)) {
        c(list(kind = "json", class = classes, json = json$json), if (!is.null(json$types)) list(types = json$types))
      } else {
        printed_value(x, classes, isTRUE(json$over), caps$valueBytes)
      }
    })),
    error = function(e) {
      add_note(sprintf("the last value could not be converted: %s", truncate_bytes(condition_message(e), 500L)))
      NULL
    }
  )
}
