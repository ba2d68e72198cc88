# Reading a session's snapshot back (docs/sessions.md): the JSON session-write.R writes, read as
# hostile input (another process wrote it, and whatever the session's script did before could have
# shaped it). Only the kinds the writer writes are built: vectors of data types with the known
# attributes, lists of them, functions from their source re-checked as a script is (parse.R). Any
# other field, kind, type or attribute refuses the whole snapshot before anything is bound.

session_refuse <- function(why) {
  stop(structure(
    class = c("jube_session_refused", "error", "condition"),
    list(message = paste("the session's snapshot is not data the runner writes:", why), call = NULL)
  ))
}

is_count <- function(n) is.numeric(n) && length(n) == 1L && !is.na(n) && n >= 0 && n == round(n)
is_text <- function(x) is.character(x) && length(x) == 1L

# A node's fields: exactly `allowed` (those in `required` present).
session_fields <- function(node, required, allowed = required) {
  if (!is.list(node) || is.null(names(node)) || !all(required %in% names(node)) || !all(names(node) %in% allowed)) {
    session_refuse(sprintf("a node's fields are not %s", paste(allowed, collapse = ", ")))
  }
}

session_decode_vector <- function(node) {
  session_fields(node, c("kind", "type", "length", "values"), c("kind", "type", "length", "values", "attributes"))
  n <- node$length
  if (!is_count(n)) session_refuse("a vector's length is not a count")
  type <- node$type
  if (!is_text(type) || !(type %in% session_seam("types"))) session_refuse("a vector's type is not a data type")
  if (type == "character") session_decode_strings(node$values, n) else session_decode_numbers(node$values, n, type)
}

session_decode_strings <- function(values, n) {
  if (!is.list(values) || length(values) != n) session_refuse("a character vector's values do not match its length")
  # Vectorised (a data frame's column can be long): every value one string, or null for NA.
  missing <- vapply(values, is.null, NA)
  values[missing] <- NA_character_
  strings <- unlist(lapply(values, is.character), use.names = FALSE)
  if (!all(strings) || !all(lengths(values) == 1L)) session_refuse("a character value is not a string")
  unlist(values, use.names = FALSE)
}

session_decode_numbers <- function(text, n, type) {
  if (!is_text(text)) session_refuse("a vector's values are not base64 text")
  bytes <- base64_decode(text)
  size <- if (type == "double") 8L else 4L
  if (length(bytes) != n * size) session_refuse("a vector's bytes do not match its length")
  what <- if (type == "double") "double" else "integer"
  values <- readBin(bytes, what = what, n = n, size = size, endian = "little")
  if (type == "logical") as.logical(values) else values
}

session_decode <- function(node, depth = 0L) {
  if (depth > session_seam("maxDepth")) session_refuse("it nests deeper than a snapshot may")
  if (!is.list(node) || !is.character(node$kind) || length(node$kind) != 1L) session_refuse("a node has no kind")
  value <- switch(node$kind,
    null = {
      session_fields(node, "kind")
      return(NULL)
    },
    vector = session_decode_vector(node),
    list = {
      session_fields(node, c("kind", "length", "elements"), c("kind", "length", "elements", "attributes"))
      if (!is.list(node$elements) || length(node$elements) != node$length) {
        session_refuse("a list's elements do not match its length")
      }
      lapply(node$elements, session_decode, depth = depth + 1L)
    },
    session_refuse(sprintf("a node of kind '%s' is not data", node$kind))
  )
  attrs <- node$attributes
  if (!is.null(attrs)) {
    if (!is.list(attrs) || is.null(names(attrs)) || !all(names(attrs) %in% session_seam("attributes"))) {
      session_refuse("an attribute is not one the runner writes")
    }
    decoded <- lapply(attrs, session_decode, depth = depth + 1L)
    # dim before dimnames, class last: as R itself sets them.
    rank <- match(names(decoded), c("dim", "dimnames", session_seam("attributes")))
    ordered <- decoded[order(rank, names(decoded) == "class")]
    attributes(value) <- ordered
  }
  value
}

# The functions' sources, each checked as a script would be (parse.R): parsed alone, one
# `function` expression, no direct capability call; evaluated in `env`. Returns the names dropped.
session_restore_function <- function(name, source, env) {
  exprs <- tryCatch(parse(text = source, keep.source = TRUE, encoding = "UTF-8"), error = function(e) NULL)
  one_function <- !is.null(exprs) && length(exprs) == 1L && is.call(exprs[[1L]]) &&
    identical(exprs[[1L]][[1L]], as.name("function"))
  if (!one_function) {
    return(sprintf("`%s` was not restored: its source is not one function", name))
  }
  tokens <- utils::getParseData(exprs)
  if (length(capability_calls(tokens[tokens$terminal, , drop = FALSE])) > 0L) {
    return(sprintf("`%s` was not restored: its source calls a capability the sandbox refuses", name))
  }
  assign(name, eval(exprs[[1L]], env), envir = env)
  NULL
}

# Builds the snapshot's workspace in `env`. Returns the notes (functions not restored); a snapshot
# that is not the runner's data refuses as a whole, before anything is bound. `max_objects`: the
# session's cap, which the writer kept to. `keep`: names this call's inputs bound, which win.
session_restore <- function(snapshot, env, allowed_packages, max_objects, keep = character()) {
  session_fields(snapshot, c("version", "call", "objects", "packages", "options", "dropped"))
  if (!identical(snapshot$version, session_seam("version"))) session_refuse("its version is not the runner's")
  objects <- session_decode_objects(snapshot$objects, max_objects)
  packages <- unlist(snapshot$packages)
  if (!is.null(packages) && (!is.character(packages) || !all(packages %in% allowed_packages))) {
    session_refuse("it attaches a package the allow-list does not hold")
  }
  if (!is.list(snapshot$options) || (length(snapshot$options) > 0L && is.null(names(snapshot$options)))) {
    session_refuse("its options are not named")
  }
  options_set <- lapply(snapshot$options, session_decode_vector)
  # Everything is data now: bind it.
  for (pkg in packages) suppressPackageStartupMessages(library(pkg, character.only = TRUE))
  if (length(options_set) > 0L) options(options_set)
  for (name in setdiff(names(objects$values), keep)) {
    assign(name, session_reallocate(objects$values[[name]]), envir = env)
  }
  notes <- session_dropped_notes(snapshot$dropped)
  for (name in setdiff(names(objects$sources), keep)) {
    notes <- c(notes, session_restore_function(name, objects$sources[[name]], env))
  }
  notes
}

# The snapshot's objects: data values decoded, functions' sources kept for their checks.
session_decode_objects <- function(objects, max_objects) {
  if (!is.list(objects) || !is.null(names(objects)) || length(objects) > max_objects) {
    session_refuse(sprintf("its objects are not a list of at most %d", max_objects))
  }
  values <- list()
  sources <- list()
  for (object in objects) {
    name <- object$name
    if (!is_text(name) || !nzchar(name)) session_refuse("an object has no name")
    object$name <- NULL
    if (identical(object$kind, "function")) {
      session_fields(object, c("kind", "source"))
      if (!is_text(object$source)) session_refuse("a function's source is not text")
      sources[[name]] <- object$source
    } else {
      # `[<-` with a list: a NULL object stays one.
      values[name] <- list(session_decode(object))
    }
  }
  list(values = values, sources = sources)
}

# A data.table's column pointer array is not data: data.table allocates it again, for a table whose
# columns are vectors (or lists) of one length (data.table's C code is not handed a table it never made).
session_reallocate <- function(value) {
  column <- function(col) is.atomic(col) || is.list(col)
  table <- inherits(value, "data.table") && is.list(value) && all(vapply(value, column, NA)) &&
    length(unique(lengths(value))) <= 1L
  if (inherits(value, "data.table") && !table) session_refuse("a data.table's columns are not vectors of one length")
  if (table && requireNamespace("data.table", quietly = TRUE)) {
    return(get("setalloccol", envir = asNamespace("data.table"))(value))
  }
  value
}

# What the call that wrote the snapshot left out of it, named (only plain strings are repeated).
session_dropped_notes <- function(dropped) {
  text <- function(x) is.character(x) && length(x) == 1L && !is.na(x)
  notes <- character()
  for (drop in if (is.list(dropped)) dropped) {
    if (!is.list(drop) || !text(drop$name) || !text(drop$class) || !text(drop$why)) next
    notes <- c(notes, sprintf("`%s` (%s) was not restored: %s", drop$name, drop$class, drop$why))
  }
  notes
}
