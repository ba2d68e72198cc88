# The call's inputs, bound as data in the script's environment (never pasted into R source):
# variables from input.json, dataframes from the CSV files the handler staged in the workdir, and
# the request's context (JSON text in input.json) as `.context`. Under contextEncoding "json" it is
# read as jsonlite reads JSON for an R user (arrays of scalars become vectors, arrays of records
# data frames, objects named lists); under "r-json" it is jsonlite::serializeJSON's shape, built
# here node by node from data only (seam.json's rJson lists), never by unserializeJSON.

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
    context <- if (identical(input$contextEncoding, "r-json")) {
      r_json_context(from_json(input$contextJson, simplifyVector = FALSE))
    } else {
      from_json(input$contextJson, simplifyVector = TRUE)
    }
    assign(".context", context, envir = env)
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

# The JSON levels an r-json context may nest (the handler's schema allows fewer).
r_json_max_depth <- 64L

refuse_context <- function(why) {
  stop(sprintf("the context is not data (CONTEXT_NOT_DATA): %s", why), call. = FALSE)
}

r_json_context <- function(node) {
  if (!is.list(node) || !identical(node$type, "list")) refuse_context("an r-json context must be a list")
  r_json_node(node, 0L)
}

r_json_specials <- c("NA" = NA_real_, "NaN" = NaN, "Inf" = Inf, "-Inf" = -Inf)

# One r-json element as R's scalar of `type`, or NULL when it is not one: null is NA; a double may
# be one of the specials serializeJSON writes as strings.
r_json_logical <- function(v) if (is.null(v)) NA else if (is.logical(v) && length(v) == 1L) v
r_json_integer <- function(v) {
  if (is.null(v)) return(NA_integer_)
  if (is.numeric(v) && length(v) == 1L && v == round(v) && abs(v) <= .Machine$integer.max) as.integer(v)
}
r_json_double <- function(v) {
  if (is.numeric(v) && length(v) == 1L) return(as.double(v))
  if (is.character(v) && length(v) == 1L && v %in% unlist(seam$rJson$doubleSpecials)) r_json_specials[[v]]
}
r_json_character <- function(v) if (is.null(v)) NA_character_ else if (is.character(v) && length(v) == 1L) v

r_json_elements <- function(values, type) {
  one <- switch(type,
    logical = r_json_logical, integer = r_json_integer, double = r_json_double, character = r_json_character
  )
  out <- lapply(values, one)
  if (any(vapply(out, is.null, NA))) refuse_context(sprintf("a %s node holds a value that is not a %s", type, type))
  if (length(out) == 0L) return(vector(type, 0L))
  unlist(out, use.names = FALSE)
}

r_json_node <- function(node, depth) {
  if (depth > r_json_max_depth) refuse_context(sprintf("it nests deeper than %d levels", r_json_max_depth))
  if (!is.list(node) || is.null(names(node)) || !all(names(node) %in% c("type", "attributes", "value"))) {
    refuse_context("every node is an object {type, attributes, value}")
  }
  type <- node$type
  types <- unlist(seam$rJson$types)
  if (!is.character(type) || length(type) != 1L || !(type %in% types)) {
    refuse_context(sprintf("type '%s' is not one of %s", paste(type, collapse = ""), paste(types, collapse = ", ")))
  }
  if (identical(type, "NULL")) return(NULL)
  if (!is.list(node$value) || !is.null(names(node$value))) {
    refuse_context(sprintf("a %s node's value is an array", type))
  }
  x <- if (identical(type, "list")) {
    lapply(node$value, r_json_node, depth = depth + 1L)
  } else {
    r_json_elements(node$value, type)
  }
  attrs <- node$attributes
  if (is.null(attrs) || length(attrs) == 0L) return(x)
  r_json_with_attributes(x, attrs, depth)
}

r_json_with_attributes <- function(x, attrs, depth) {
  if (!is.list(attrs) || is.null(names(attrs))) refuse_context("attributes are an object")
  unknown <- setdiff(names(attrs), unlist(seam$rJson$attributes))
  if (length(unknown) > 0L) refuse_context(sprintf("attribute '%s' is not allowed", unknown[[1L]]))
  values <- lapply(attrs, r_json_node, depth = depth + 1L)
  cls <- values$class
  if (!is.null(cls) && (!is.character(cls) || !all(cls %in% unlist(seam$rJson$classes)))) {
    refuse_context(sprintf("class '%s' is not allowed", paste(cls, collapse = "', '")))
  }
  if ("factor" %in% cls && (!is.integer(x) || !is.character(values$levels))) {
    refuse_context("a factor is an integer node with character levels")
  }
  if ("data.frame" %in% cls && (!is.list(x) || is.null(values$row.names))) {
    refuse_context("a data.frame is a list node with names and row.names")
  }
  # `attributes<-` sets dim before dimnames and checks that each fits the value; nothing is evaluated.
  tryCatch(
    attributes(x) <- values,
    error = function(e) refuse_context(sprintf("attributes do not fit: %s", conditionMessage(e)))
  )
  x
}
