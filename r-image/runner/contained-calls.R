# The script's Sys.getenv(), setwd() and sink() (script-rules.json relaxations.environmentReads,
# workingDirectory, consoleDiversion; contained-forms.R judges their call forms): the environment
# answered only for harmless names, the working directory and the output sink held inside the
# run's directory or tempdir(), and both given back to the runner after the script (evaluate.R).

# Sys.getenv(x, unset, names): R's answer for the listed names (relaxations.environmentReads),
# `unset` for every other name, as if it were not set; with no name, the listed names that are set.
safe_sys_getenv <- function(policy) {
  real_sys_getenv <- base::Sys.getenv
  allowed <- policy$env_read_names
  function(x = NULL, unset = "", names = NA) { # nolint: object_name_linter. Sys.getenv()'s own arguments.
    if (is.null(x)) {
      set <- real_sys_getenv(allowed, unset = NA, names = TRUE)
      set <- set[!is.na(set)]
      set <- set[sort.list(names(set))]
      return(if (isFALSE(names)) unname(set) else structure(class = "Dlist", set))
    }
    x <- as.character(x)
    value <- rep_len(as.character(unset), length(x))
    readable <- x %in% allowed
    value[readable] <- real_sys_getenv(x[readable], unset = as.character(unset), names = FALSE)
    if (isTRUE(names) || (length(x) > 1L && !isFALSE(names))) structure(value, names = x) else value
  }
}

# Where the script's setwd() and sink() may point: the run's working directory and R's tempdir(),
# as real paths. contain_script_places() sets it before the script runs (evaluate.R); unset, they
# refuse everything.
script_places <- new.env(parent = emptyenv())
real_setwd <- base::setwd
real_sink <- base::sink

contain_script_places <- function(workdir) {
  script_places$roots <- unique(normalizePath(c(workdir, tempdir()), mustWork = FALSE))
  script_places$start <- getwd()
}

# Whether the real path `path` is one of the roots or below one.
inside_script_places <- function(path) {
  roots <- script_places$roots
  !is.null(roots) && any(path == roots | startsWith(path, paste0(roots, "/")))
}

# setwd(dir): only to an existing directory whose real path (symlinks and '..' resolved) is inside
# the places above; R's own error for one that does not exist; the old directory back, invisibly.
safe_setwd <- function(dir) {
  if (!is.character(dir) || length(dir) != 1L || is.na(dir)) stop("character argument expected")
  if (!dir.exists(dir)) stop("cannot change working directory")
  target <- normalizePath(dir, mustWork = TRUE)
  if (!inside_script_places(target)) {
    refuse(paste(
      "setwd() may only move inside the run's working directory or tempdir() in jube-r;",
      "use a relative path or setwd(tempdir())"
    ))
  }
  invisible(real_setwd(target))
}

# The real path a file would be written at: its own when it exists (a symlink resolved), else its
# directory's joined with its name; NULL for a dangling symlink or a directory that does not exist.
sink_target <- function(path) {
  if (file.exists(path)) return(normalizePath(path, mustWork = TRUE))
  # NA: no such entry at all; a name: a symlink whose target does not exist.
  link <- Sys.readlink(path)
  if ((!is.na(link) && nzchar(link)) || !dir.exists(dirname(path))) return(NULL)
  file.path(normalizePath(dirname(path), mustWork = TRUE), basename(path))
}

# sink(file, append, type, split): the output stream only, into a file inside the places above
# (by name or a file connection), a textConnection() or stdout(); sink() or sink(NULL) ends the
# script's last diversion. The message stream is the runner's (evaluate.R) and stays where it is.
safe_sink <- function(policy) {
  refuse_sink <- function(what) {
    refuse(sprintf(
      "sink() %s in jube-r; divert the output into a file of the run's directory: sink(\"log.txt\") ... sink()", what
    ))
  }
  function(file = NULL, append = FALSE, type = c("output", "message"), split = FALSE) {
    if (!missing(type) && !(is.character(type) && length(type) == 1L && type %in% policy$sink_types)) {
      refuse_sink("may divert only the output stream")
    }
    if (is.null(file)) return(real_sink(NULL, type = "output"))
    if (is.character(file)) {
      if (length(file) != 1L || is.na(file)) stop("invalid 'file' argument")
      target <- sink_target(path.expand(file))
      if (is.null(target) || !inside_script_places(target)) {
        refuse_sink("may write only inside the run's working directory or tempdir()")
      }
      return(real_sink(target, append = append, type = "output", split = split))
    }
    if (!inherits(file, "connection")) stop("'file' must be NULL or a connection")
    about <- summary(file)
    kind <- about$class
    ok <- if (kind %in% c("file", "gzfile", "bzfile", "xzfile")) {
      target <- sink_target(path.expand(about$description))
      !is.null(target) && inside_script_places(target)
    } else {
      identical(kind, "textConnection") || (identical(kind, "terminal") && identical(about$description, "stdout"))
    }
    if (!ok) refuse_sink("may write only to a file inside the run's working directory, a textConnection() or stdout()")
    real_sink(file, append = append, type = "output", split = split)
  }
}

# Ends every output diversion the script left open, so what the runner prints after the script
# reaches the console; the script's directory is left too (the runner's paths are absolute, but a
# relative one passed by a caller would not be).
release_script_places <- function() {
  while (sink.number() > 0L) real_sink(NULL, type = "output")
  if (!is.null(script_places$start)) real_setwd(script_places$start)
}
