# The warm start (functions/execute/warm/): the execute handler starts this Rscript before a
# request arrives, with the same allow-listed environment, rlimits, process group and private
# workdir as a cold one, and the capsule preloaded but not armed. The runner loads the namespaces
# most scripts use (loaded, never attached: a script that calls filter() without library(dplyr)
# still gets stats' filter), says it is ready on stderr and waits on stdin. The handler writes only
# these lines to that pipe:
#   ping                      -> answered with "jube-r warm: pong" on stderr (the readiness check)
#   run NONCE WORKDIR         -> the inputs are in WORKDIR (the same input.json and script.R as a
#                                cold run); this process serves that one request and exits
# End of input (the handler went away) ends the process. Nothing of the script exists before
# "run", and the capsule is armed after the inputs are bound and before the script's first
# expression, exactly as in a cold run (evaluate.R).

warm_prefix <- "jube-r warm:"

# A comma-separated argument's names.
warm_names <- function(args, flag) {
  value <- grep(paste0("^", flag, "="), args, value = TRUE)
  if (length(value) == 0L) return(NULL)
  names <- strsplit(sub(paste0("^", flag, "="), "", value[[1L]]), ",", fixed = TRUE)[[1L]]
  names[nzchar(names)]
}

# The warm arguments after WORKDIR: NULL for a cold run, else list(packages).
warm_args <- function(args) {
  packages <- warm_names(args, "--warm")
  if (is.null(packages)) return(NULL)
  list(packages = packages)
}

warm_say <- function(what) {
  cat(warm_prefix, " ", what, "\n", sep = "", file = stderr())
}

# Everything a run can do before its inputs: nothing here reads the workdir.
warm_prepare <- function(warm) {
  for (pkg in warm$packages) suppressPackageStartupMessages(requireNamespace(pkg, quietly = TRUE))
  warm_say("ready")
}

# Blocks until the handler hands over a request; returns its nonce.
warm_wait <- function(workdir) {
  pipe <- file("stdin")
  open(pipe, "r")
  on.exit(close(pipe))
  repeat {
    line <- readLines(pipe, n = 1L, warn = FALSE)
    if (length(line) == 0L) quit(save = "no", status = 0L)
    if (identical(line, "ping")) {
      warm_say("pong")
      next
    }
    parts <- strsplit(line, " ", fixed = TRUE)[[1L]]
    if (length(parts) == 3L && identical(parts[[1L]], "run") && nzchar(parts[[2L]])) {
      # The workdir was fixed when this process started (the capsule read it then); the handler
      # names it again so a mix-up stops here rather than reading another run's files.
      if (!identical(parts[[3L]], workdir)) stop("jube-r runner: the request names another workdir")
      return(parts[[2L]])
    }
    stop("jube-r runner: unexpected line on the warm pipe")
  }
}
