# jube-r runner: runs ONE untrusted script in this fresh R process and writes the result envelope.
#
# Usage: Rscript --vanilla runner.R RULES_FILE WORKDIR   (the nonce arrives on stdin, one line)
#
# This file only evaluates the runner's parts, one job each, into one private environment and
# calls main() (main.R). That environment's parent is package:base, so every name the runner
# itself looks up (c, paste0, file.rename, ...) resolves in base before globalenv() and the search
# path, where a script's attach(), library() or setClass() could put a look-alike; and nothing of
# it is reachable from globalenv(), the parent of the script's environment. The parts are parsed
# with parse(): Rscript's file REPL reads large top-level expressions much more slowly.
local({
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(file_arg) != 1L) stop("jube-r runner: run me with Rscript runner.R")
  here <- dirname(normalizePath(sub("^--file=", "", file_arg)))
  runner <- new.env(parent = baseenv())
  # seam.R reads seam.json from here.
  runner$runner_dir <- here
  parts <- c(
    "seam.R", "policy.R", "envelope.R", "parse-data.R", "relaxations.R", "literal-calls.R", "contained-forms.R",
    "saved-options.R", "superassign.R", "absent-guards.R", "revalidate-packages.R", "revalidate-values.R",
    "internal-functions.R", "export-arguments.R", "export-copies.R", "package-examples.R", "fresh-environments.R",
    "revalidate.R", "mask.R", "safe-calls.R", "contained-calls.R", "guards-env.R", "environment-exports.R",
    "guards-frames.R", "guards-calls.R", "guards-attr.R", "harden.R", "harden-env.R", "harden-models.R",
    "harden-packages.R", "inputs.R", "conditions.R", "error-cause.R", "error-hints.R", "plots.R", "value-json.R",
    "value.R", "evaluate.R", "warm.R", "main.R"
  )
  for (part in parts) {
    for (expr in parse(file.path(here, part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
  }
  runner$main(commandArgs(trailingOnly = TRUE))
})
invisible(NULL)
