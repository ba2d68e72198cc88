# The script may setwd() and sink() as in plain R (the capsule bounds where: its working
# directory, R's libraries, the system's shared data). After the script the runner takes both
# back, so its own output reaches the console and its paths mean what it meant.

script_start <- new.env(parent = emptyenv())

note_script_places <- function() {
  script_start$wd <- getwd()
  script_start$sinks <- sink.number()
}

release_script_places <- function() {
  while (sink.number() > 0L) sink(NULL, type = "output")
  if (!is.null(script_start$wd)) setwd(script_start$wd)
}
