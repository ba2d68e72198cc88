# The last value as JSON (docs/api.md "Value encoding"), node by node: what has a faithful JSON
# form becomes plain lists and vectors jsonlite writes as they are, and `types` records, by JSON
# pointer, what JSON cannot say (a factor's levels, a Date's class, a table's axes, a data frame's
# column classes). Anything without a faithful form signals `unfaithful()`; value.R then prints it.

# JSON levels inside `json` (the envelope reader allows 64 in all) and entries of `types` (seam.json).
value_max_depth <- function() as.integer(seam$valueLimits$maxDepth)
value_max_types <- function() as.integer(seam$valueLimits$maxTypes)
plain_types <- c("logical", "integer", "double", "character")

# Signalled wherever a value has no faithful JSON; the whole value is then printed instead.
unfaithful <- function() {
  stop(structure(class = c("jube_unfaithful", "error", "condition"), list(message = "", call = NULL)))
}

pointer <- function(path, key) paste0(path, "/", gsub("/", "~1", gsub("~", "~0", key, fixed = TRUE), fixed = TRUE))

# Names that can be JSON object keys: present, non-empty, distinct.
check_keys <- function(keys) {
  if (anyNA(keys) || any(!nzchar(keys)) || anyDuplicated(keys) > 0L) unfaithful()
  keys
}

# An atomic vector stripped of its attributes: a JSON object when named, else an array (a
# length-one array only where `keep_array`, so that 2 stays 2 but a matrix row stays a row).
keyed <- function(values, keys, keep_array = FALSE) {
  attributes(values) <- NULL
  if (!is.null(keys)) return(stats::setNames(as.list(values), check_keys(keys)))
  if (keep_array) I(values) else values
}

new_types <- function() {
  types <- new.env(parent = emptyenv())
  types$entries <- list()
  types
}

add_type <- function(types, entry) {
  if (length(types$entries) >= value_max_types()) unfaithful()
  types$entries[[length(types$entries) + 1L]] <- entry
}

iso_time <- function(x) {
  secs <- unclass(x)
  attributes(secs) <- NULL
  whole <- all(is.na(secs) | secs == floor(secs))
  base::format.POSIXct(x, if (whole) "%Y-%m-%dT%H:%M:%SZ" else "%Y-%m-%dT%H:%M:%OS3Z", tz = "UTC")
}

tzone_of <- function(x) {
  tz <- attr(x, "tzone", exact = TRUE)
  if (is.character(tz) && length(tz) >= 1L && !is.na(tz[[1L]])) tz[[1L]] else ""
}

# A leaf column or vector of a class JSON cannot carry: its text, and what `types` says about it.
classed_atomic <- function(x) {
  if (is.factor(x)) {
    levels <- attr(x, "levels", exact = TRUE)
    codes <- unclass(x)
    attributes(codes) <- NULL
    return(list(values = levels[codes], type = list(class = as.list(class(x)), levels = as.list(levels))))
  }
  if (inherits(x, "Date")) {
    return(list(values = base::format.Date(x, "%Y-%m-%d"), type = list(class = as.list(class(x)))))
  }
  if (inherits(x, "POSIXct")) {
    return(list(values = iso_time(x), type = list(class = as.list(class(x)), tzone = tzone_of(x))))
  }
  NULL
}

is_leaf_class <- function(x) is.factor(x) || inherits(x, c("Date", "POSIXct"))
is_plain_vector <- function(x) {
  is.atomic(x) && is.null(dim(x)) && is.null(oldClass(x)) && typeof(x) %in% plain_types
}

encode_node <- function(x, path, depth, types) {
  if (depth > value_max_depth()) unfaithful()
  if (is.null(x)) return(NULL)
  if (is.data.frame(x)) return(encode_frame(x, path, depth, types))
  if (is.atomic(x) && is_leaf_class(x)) return(encode_leaf(x, path, types))
  plain <- is.null(oldClass(x)) || identical(oldClass(x), "table")
  if (is.atomic(x) && plain) return(encode_atomic(x, path, depth, types))
  if (is.list(x) && is.null(oldClass(x)) && is.null(dim(x))) return(encode_list(x, path, depth, types))
  unfaithful()
}

encode_atomic <- function(x, path, depth, types) {
  if (!typeof(x) %in% plain_types) unfaithful()
  if (!is.null(dim(x))) return(encode_array(x, path, depth, types))
  keyed(x, names(x))
}

encode_leaf <- function(x, path, types) {
  if (!is.null(dim(x))) unfaithful()
  leaf <- classed_atomic(x)
  add_type(types, c(list(path = path), leaf$type))
  keyed(leaf$values, names(x))
}

# A plain list: an object when every element is named, an array when none is.
encode_list <- function(x, path, depth, types) {
  keys <- names(x)
  if (!is.null(keys)) check_keys(keys)
  out <- lapply(seq_along(x), function(i) {
    encode_node(x[[i]], pointer(path, if (is.null(keys)) i - 1L else keys[[i]]), depth + 1L, types)
  })
  names(out) <- keys
  out
}

# Dimensions as `types` reports them: size, the dimension's name and its labels (null if none).
dims_of <- function(x) {
  dn <- dimnames(x)
  axis_names <- names(dn)
  lapply(seq_along(dim(x)), function(k) {
    labels <- if (is.null(dn)) NULL else dn[[k]]
    name <- if (is.null(axis_names) || !nzchar(axis_names[[k]])) NULL else axis_names[[k]]
    list(size = dim(x)[[k]], name = name, labels = if (is.null(labels)) NULL else as.list(labels))
  })
}

# An array or table nests from the first dimension in: an object where that dimension has labels,
# an array where it has none. A matrix with column names that is not a table is records instead.
encode_array <- function(x, path, depth, types) {
  dims <- dim(x)
  if (depth + length(dims) > value_max_depth()) unfaithful()
  add_type(types, list(path = path, class = as.list(class(x)), dims = dims_of(x)))
  labels <- dimnames(x)
  if (length(dims) == 2L && !inherits(x, "table") && !is.null(labels[[2L]])) {
    return(encode_records(as.data.frame(unclass(x), stringsAsFactors = FALSE)))
  }
  values <- x
  attributes(values) <- NULL
  # Column-major storage: dimension k steps by the product of the sizes before it.
  strides <- cumprod(c(1, dims))
  nest_from <- function(k, offset) {
    at <- offset + (seq_len(dims[[k]]) - 1L) * strides[[k]]
    keys <- if (is.null(labels)) NULL else labels[[k]]
    if (k == length(dims)) return(keyed(values[at + 1L], keys, keep_array = TRUE))
    parts <- lapply(at, function(o) nest_from(k + 1L, o))
    if (!is.null(keys)) names(parts) <- check_keys(keys)
    parts
  }
  nest_from(1L, 0)
}

# Records (jsonlite's "rows"): plain columns, row names that are not 1..n as "_row".
encode_records <- function(frame) {
  check_keys(names(frame))
  if (is.character(attr(frame, "row.names")) && "_row" %in% names(frame)) unfaithful()
  frame
}

encode_frame <- function(x, path, depth, types) {
  if (depth + 2L > value_max_depth() || ncol(x) > value_max_types()) unfaithful()
  columns <- vector("list", ncol(x))
  plain <- x
  class(plain) <- "data.frame"
  for (j in seq_len(ncol(x))) {
    column <- x[[j]]
    leaf <- if (is.atomic(column) && is.null(dim(column))) classed_atomic(column)
    if (!is.null(leaf)) {
      plain[[j]] <- leaf$values
      columns[[j]] <- c(list(name = names(x)[[j]]), leaf$type)
    } else if (is_plain_vector(column)) {
      columns[[j]] <- list(name = names(x)[[j]], class = as.list(class(column)))
    } else {
      unfaithful()
    }
  }
  add_type(types, list(path = path, class = as.list(class(x)), columns = columns))
  encode_records(plain)
}

# The value's JSON and its types' JSON, both within max_bytes together; NULL when it has no
# faithful JSON, list(over = TRUE) when it has one but not within max_bytes.
value_json <- function(x, max_bytes) {
  over <- list(over = TRUE)
  types <- new_types()
  ready <- tryCatch(encode_node(x, "", 0L, types), jube_unfaithful = function(e) not_json)
  if (identical(ready, not_json)) return(NULL)
  write <- function(v) {
    to_json(v, dataframe = "rows", matrix = "rowmajor", auto_unbox = TRUE, digits = NA, na = "null", null = "null")
  }
  text <- tryCatch(write(ready), error = function(e) NULL)
  if (is.null(text)) return(NULL)
  types_text <- if (length(types$entries) > 0L) write(types$entries) else ""
  if (nchar(text, type = "bytes") + nchar(types_text, type = "bytes") > max_bytes) return(over)
  list(
    json = structure(as.character(text), class = "json"),
    types = if (nzchar(types_text)) structure(as.character(types_text), class = "json")
  )
}
