# The call's inputs, bound as data in the script's environment (never pasted into R source):
# variables from input.json, dataframes from the CSV files the handler staged in the workdir, and
# the request's context (JSON text in input.json) as `.context`, read as jsonlite reads JSON for
# an R user: arrays of scalars become vectors, arrays of records data frames, objects named lists.

# JSON arrays become vectors, numbers doubles, `[]` logical(0).
as_r_value <- function(value) {
  if (is.list(value)) {
    if (length(value) == 0L) return(logical(0))
    value <- unlist(value, use.names = FALSE)
  }
  if (is.integer(value)) value <- as.double(value)
  value
}

bind_inputs <- function(env, input, workdir) {
  for (variable in input$variables) assign(variable$name, as_r_value(variable$value), envir = env)
  if (!is.null(input$contextJson)) {
    assign(".context", from_json(input$contextJson, simplifyVector = TRUE), envir = env)
  }
  if (length(input$dataframes) > 0L) {
    read_table <- if (requireNamespace("data.table", quietly = TRUE)) {
      fread <- get("fread", envir = asNamespace("data.table"))
      function(path) fread(file = path, data.table = FALSE, stringsAsFactors = FALSE, showProgress = FALSE)
    } else {
      function(path) utils::read.csv(path, stringsAsFactors = FALSE, check.names = FALSE)
    }
    for (df in input$dataframes) {
      assign(df$name, read_bound(df$name, read_table, file.path(workdir, df$file)), envir = env)
    }
  }
}

# A parser's error or warning may quote the bytes it read (fread's "First discarded non-empty
# line: <<...>>"): the binding says which table failed, never what was in it.
read_bound <- function(name, read_table, path) {
  dropped <- 0L
  value <- tryCatch(
    withCallingHandlers(read_table(path), warning = function(w) {
      dropped <<- dropped + 1L
      invokeRestart("muffleWarning")
    }),
    error = function(e) NULL
  )
  if (is.null(value)) {
    stop(
      sprintf("dataframe '%s' could not be read as CSV (data-source-unparsable); its content is not shown", name),
      call. = FALSE
    )
  }
  if (dropped > 0L) {
    warning(
      sprintf("dataframe '%s': %d warning(s) while reading it were dropped (they may quote it)", name, dropped),
      call. = FALSE
    )
  }
  value
}
