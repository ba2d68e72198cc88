# The script may setwd() and sink() as in plain R (the capsule bounds where: its working
# directory, R's libraries, the system's shared data). After the script the runner takes both
# back, so its own output reaches the console and its paths mean what it meant.

script_start <- new.env(parent = emptyenv())

note_script_places <- function() {
  script_start$wd <- getwd()
  script_start$sinks <- sink.number()
}

# Only the sinks the script opened: one its caller had before the script stays (a test's
# capture.output(), say), as does the stack below it.
release_script_places <- function() {
  kept <- if (is.null(script_start$sinks)) 0L else script_start$sinks
  while (sink.number() > kept) sink(NULL, type = "output")
  if (!is.null(script_start$wd)) setwd(script_start$wd)
}
