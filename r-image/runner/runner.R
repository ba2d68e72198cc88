# jube-r runner: runs ONE untrusted script in this fresh R process and writes the result envelope.
#
# Usage: Rscript --vanilla runner.R RULES_FILE WORKDIR   (the nonce arrives on stdin, one line)
#
# This file only loads runner-main.R from the same directory. Rscript's file REPL reads one large
# top-level expression several hundred milliseconds slower than parse() does, and the runner is
# one large local({...}) so that nothing of it is reachable from globalenv().
local({
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(file_arg) != 1L) stop("jube-r runner: run me with Rscript runner.R")
  here <- dirname(normalizePath(sub("^--file=", "", file_arg)))
  main <- parse(file.path(here, "runner-main.R"), keep.source = FALSE, encoding = "UTF-8")
  # Evaluated in an environment whose parent is package:base, so every name the runner itself looks
  # up (c, paste0, file.rename, ...) resolves in base before globalenv() and the search path,
  # where a script's attach(), library() or setClass() could put a look-alike.
  for (expr in main) eval(expr, new.env(parent = baseenv()))
})
invisible(NULL)
