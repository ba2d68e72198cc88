# The seam with the execute handler, read from seam.json, which layers/contract/runner.ts
# generates (scripts/write-runner-seam.mts): the workdir's file names and the fields of
# input.json. Nothing here names a file of the workdir itself.

# Filled by load_seam() when the runner starts (runner.R); a key it lacks stops the run where it
# is read, never silently means "none".
seam <- new.env(parent = emptyenv())

load_seam <- function(path) {
  values <- get("fromJSON", envir = asNamespace("jsonlite"))(path, simplifyVector = FALSE)
  for (key in names(values)) assign(key, values[[key]], envir = seam)
  invisible(seam)
}

# A file or directory of the workdir by its key in seam.json's "files".
workdir_file <- function(workdir, key) {
  name <- seam$files[[key]]
  if (is.null(name)) stop("jube-r runner: seam.json names no workdir file '", key, "'")
  file.path(workdir, name)
}

# One JSON value, as jsonlite reads it with simplifyVector = FALSE, against a seam type.
seam_type_ok <- function(value, type) {
  nullable <- endsWith(type, "-or-null")
  if (is.null(value)) return(nullable)
  switch(sub("-or-null$", "", type),
    number = is.numeric(value) && length(value) == 1L && !is.na(value),
    string = is.character(value) && length(value) == 1L && !is.na(value),
    boolean = is.logical(value) && length(value) == 1L && !is.na(value),
    # JSON arrays come as unnamed lists, objects as named ones ({} as an empty list).
    array = is.list(value) && is.null(names(value)),
    object = is.list(value) && (length(value) == 0L || !is.null(names(value))),
    FALSE
  )
}

# input.json checked against the handler's schema (seam.json's inputFields and capKeys): every
# required field there, of its type, no other field. Returns the problems, character(0) if none.
input_problems <- function(input) {
  if (!is.list(input) || (length(input) > 0L && is.null(names(input)))) return("input.json is not a JSON object")
  fields <- seam$inputFields
  known <- vapply(fields, function(f) f$name, "")
  problems <- character()
  for (f in fields) {
    if (!(f$name %in% names(input))) {
      if (!isTRUE(f$optional)) problems <- c(problems, paste0("missing field '", f$name, "'"))
    } else if (!seam_type_ok(input[[f$name]], f$type)) {
      problems <- c(problems, paste0("field '", f$name, "' is not of type ", f$type))
    }
  }
  extra <- setdiff(names(input), known)
  if (length(extra) > 0L) problems <- c(problems, paste0("unknown field(s): ", paste(extra, collapse = ", ")))
  caps <- input$caps
  if (is.list(caps)) {
    for (key in unlist(seam$capKeys)) {
      if (!seam_type_ok(caps[[key]], "number")) problems <- c(problems, paste0("caps.", key, " is not a number"))
    }
  }
  problems
}

check_input <- function(input) {
  problems <- input_problems(input)
  if (length(problems) > 0L) {
    stop("jube-r runner: input.json does not match the handler's schema: ", paste(problems, collapse = "; "))
  }
  invisible(input)
}
