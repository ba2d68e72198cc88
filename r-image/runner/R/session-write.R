# A session's workspace as data (docs/sessions.md): what globalenv() holds after a call, written so
# that another process can build it again without deserializing anything. Only data kinds are
# written: atomic vectors (numbers as the exact bytes, base64), lists of them with a few known
# attributes (data frames, factors, dates, times), the source of functions the script defined at
# its top level, the attached packages and the options the script set to plain values. The rest is
# named in `dropped`, with why. Reading one back builds only those kinds; anything else in it
# refuses the whole snapshot (the call then starts with an empty workspace, and says why).

# What a snapshot may hold: seam.json `session` (layers/contract/session.ts owns the lists).
session_seam <- function(key) {
  value <- seam$session[[key]]
  if (is.null(value)) stop("jube-r runner: seam.json names no session '", key, "'")
  if (is.list(value)) unlist(value) else value
}

base64_encode <- get("base64_enc", envir = asNamespace("jsonlite"))
base64_decode <- get("base64_dec", envir = asNamespace("jsonlite"))

session_drop <- function(why) structure(list(why = why), class = "jube_session_drop")
is_session_drop <- function(x) inherits(x, "jube_session_drop")

session_encode_vector <- function(x) {
  type <- typeof(x)
  # The bare values: as.vector() would turn a factor into its labels.
  attributes(x) <- NULL
  values <- switch(type,
    double = base64_encode(writeBin(x, raw(), size = 8L, endian = "little")),
    integer = base64_encode(writeBin(x, raw(), size = 4L, endian = "little")),
    logical = base64_encode(writeBin(as.integer(x), raw(), size = 4L, endian = "little")),
    # An array always (I() is never unboxed), NA as null: session_json() writes na = "null".
    character = I(enc2utf8(x))
  )
  list(kind = "vector", type = type, length = length(x), values = values)
}

session_encode_attributes <- function(x, depth) {
  attrs <- attributes(x)
  kept <- list()
  # A data frame's automatic row names in their compact form (attributes() expands them to 1:n).
  if (!is.null(attrs$row.names)) attrs$row.names <- .row_names_info(x, type = 0L)
  # Never kept without an attribute it has (a time series without its tsp is not one).
  unknown <- setdiff(names(attrs), c(session_seam("attributes"), session_seam("skippedAttributes")))
  if (length(unknown) > 0L) return(session_drop(sprintf("its attribute `%s` is not kept", unknown[[1L]])))
  for (name in intersect(names(attrs), session_seam("attributes"))) {
    node <- session_encode(attrs[[name]], depth + 1L)
    if (is_session_drop(node)) return(node)
    kept[[name]] <- node
  }
  kept
}

# One value as a node, or a drop saying why it cannot be kept.
session_encode <- function(x, depth = 0L) {
  if (depth > session_seam("maxDepth")) return(session_drop("it nests deeper than a snapshot keeps"))
  if (isS4(x)) return(session_drop("an S4 object is not kept"))
  if (is.function(x)) {
    # The reader builds a function only as a workspace object of its own, from its source.
    if (depth > 0L) return(session_drop("a function inside a list is not kept"))
    if (!identical(environment(x), globalenv())) return(session_drop("a function made inside another is not kept"))
    source <- paste(deparse(x, control = "useSource"), collapse = "\n")
    return(list(kind = "function", source = enc2utf8(source)))
  }
  node <- if (is.null(x)) {
    list(kind = "null")
  } else if (typeof(x) %in% session_seam("types")) {
    session_encode_vector(x)
  } else if (typeof(x) == "list") {
    elements <- lapply(x, session_encode, depth = depth + 1L)
    dropped <- Filter(is_session_drop, elements)
    if (length(dropped) > 0L) return(dropped[[1L]])
    list(kind = "list", length = length(x), elements = unname(elements))
  } else {
    return(session_drop(sprintf("a value of type %s is not kept", typeof(x))))
  }
  attrs <- session_encode_attributes(x, depth)
  if (is_session_drop(attrs)) return(attrs)
  if (length(attrs) > 0L) node$attributes <- attrs
  node
}

# What a model or other compound value is, for the note: its class.
session_class <- function(x) paste(class(x), collapse = "/")

# JSON as the snapshot is written: NA as null, numbers exact (they are base64 bytes anyway).
session_json <- function(x) to_json(x, auto_unbox = TRUE, null = "null", na = "null", digits = NA)

# The snapshot of `env` after call `call`, as JSON text, and what it left out: objects in order of
# size, the largest left out first once `limits$maxBytes` or `limits$maxObjects` is reached.
# `options_before` and `packages_before`: options() and the attached packages when the runner started.
session_snapshot <- function(env, call, limits, options_before, packages_before) {
  names <- ls(env, all.names = TRUE)
  sizes <- vapply(names, function(n) as.numeric(utils::object.size(get(n, envir = env))), 0)
  pieces <- character()
  dropped <- list()
  bytes <- 0
  for (name in names[order(sizes)]) {
    value <- get(name, envir = env)
    node <- session_encode(value)
    if (is_session_drop(node)) {
      dropped[[length(dropped) + 1L]] <- list(name = name, class = session_class(value), why = node$why)
      next
    }
    piece <- session_json(c(list(name = name), node))
    size <- nchar(piece, type = "bytes")
    if (length(pieces) >= limits$maxObjects || bytes + size > limits$maxBytes) {
      why <- sprintf("the session keeps at most %d objects and %d bytes", limits$maxObjects, limits$maxBytes)
      dropped[[length(dropped) + 1L]] <- list(name = name, class = session_class(value), why = why)
      next
    }
    bytes <- bytes + size
    pieces <- c(pieces, piece)
  }
  rest <- session_json(list(
    packages = I(setdiff(session_packages(), packages_before)),
    options = session_options(options_before), dropped = dropped
  ))
  json <- paste0(
    '{"version":', session_seam("version"), ',"call":', call, ',"objects":[', paste(pieces, collapse = ","), "],",
    substring(rest, 2L)
  )
  list(json = json, dropped = dropped)
}

session_packages <- function() sub("^package:", "", grep("^package:", search(), value = TRUE))

# The options the script set to plain values (a vector of a data type, without attributes).
session_options <- function(before) {
  now <- options()
  changed <- list()
  for (name in names(now)) {
    value <- now[[name]]
    plain <- typeof(value) %in% session_seam("types") && is.null(attributes(value))
    if (identical(value, before[[name]]) || !plain) next
    changed[[name]] <- session_encode_vector(value)
  }
  changed
}

# The answer's list of what the session holds: name, class and size of each object, at most `max`.
session_objects <- function(env, max) {
  names <- ls(env)
  listed <- lapply(utils::head(names, max), function(n) {
    value <- get(n, envir = env)
    list(name = n, class = session_class(value), bytes = as.numeric(utils::object.size(value)))
  })
  list(objects = listed, omitted = max(0L, length(names) - max))
}
