# jube-r runner: runs ONE untrusted script in this fresh R process and writes the result envelope.
#
# Usage: Rscript --vanilla runner.R WORKDIR   (the nonce arrives on stdin, one line)
#
# The runner is an R package (DESCRIPTION, NAMESPACE, R/); this file evaluates its parts in the
# DESCRIPTION's Collate order into one private environment and calls main() (R/main.R), without
# installing it. That environment's parent is package:base, so every name the runner itself looks
# up (c, paste0, file.rename, ...) resolves in base before globalenv() and the search path, where the
# script's objects, attach() and library() go; and nothing of it is reachable from globalenv(). The
# parts are parsed with parse(): Rscript's file REPL reads large top-level expressions slowly.
local({
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(file_arg) != 1L) stop("jube-r runner: run me with Rscript runner.R")
  here <- dirname(normalizePath(sub("^--file=", "", file_arg)))
  runner <- new.env(parent = baseenv())
  collate <- read.dcf(file.path(here, "DESCRIPTION"), fields = "Collate")[1L, 1L]
  parts <- gsub("['\"]", "", strsplit(trimws(collate), "[[:space:]]+")[[1L]])
  for (part in parts) {
    for (expr in parse(file.path(here, "R", part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
  }
  runner$load_seam(file.path(here, "seam.json"))
  runner$main(commandArgs(trailingOnly = TRUE))
})
invisible(NULL)
