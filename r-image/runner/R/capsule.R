# The last step before the script's first expression (evaluate.R): the inputs are bound, the time
# limit is set. It arms the capsule (r-image/capsule), which the handler preloaded into this
# process: one-way, from here on the capability table holds below R, whatever R code runs
# (docs/threat-model.md). Returns the capsule's report of the layers in force; without a capsule
# (JUBE_R_CAPSULE=off, benchmarks and tests only) "preload=off". A capsule that fails to arm
# stops the run: the script must not run less contained than the handler asked for.
# `deadline`: seconds from now past which no time limit the script sets may reach.
arm_capsule <- function(deadline, library_path = Sys.getenv("JUBE_R_CAPSULE_LIBRARY")) {
  if (!nzchar(library_path)) return("preload=off")
  dll <- dyn.load(library_path)
  armed <- .C(
    "jube_capsule_arm",
    status = integer(1L), report = strrep(" ", 511L), deadline = as.double(deadline), PACKAGE = dll[["name"]]
  )
  report <- trimws(armed$report)
  if (!identical(armed$status, 1L)) {
    stop(structure(
      class = c("jube_capsule_error", "error", "condition"),
      list(message = sprintf("the capsule could not be armed (%s); the script was not run", report), call = NULL)
    ))
  }
  report
}
