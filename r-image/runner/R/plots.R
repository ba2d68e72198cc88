# Plot capture: every page the script draws comes back to the caller. R opens a graphics device
# when a script first draws; options(device) makes that device the runner's: ragg's PNG device
# (it draws text with the system's fonts) or svglite, one file per page in WORKDIR/.jube/plots,
# named dNNN-pNNNNN so the handler reads them back in drawing order. A script that closes it and
# draws again gets a fresh one (the next dNNN). The script's own devices (png("x.png")) are its own.
# The device's package is loaded here, before the capsule is armed; its files are in the workdir,
# the only place the script's process may write once it is.

plot_devices <- list(
  png = list(package = "ragg", fun = "agg_png", ext = "png"),
  svg = list(package = "svglite", fun = "svglite", ext = "svg")
)

# Captured when the runner loads, before any script code.
graphics_off <- grDevices::graphics.off
null_device <- function(...) grDevices::pdf(NULL)

plot_directory <- function(workdir) workdir_file(workdir, "plotDir")

# The pages the runner's devices wrote, once every device is closed: the envelope carries them
# (name and size), and the handler reads back only these, at these sizes. Only devices the
# runner opened count (d001 up to the last it opened); NULL when capture was not on.
recorded_plot_pages <- function(workdir, settings) {
  if (is.null(settings)) return(NULL)
  dir <- plot_directory(workdir)
  opened <- if (is.null(capture_state$opened)) 0L else capture_state$opened
  names <- list.files(dir, pattern = seam$plotPagePattern, all.files = TRUE, no.. = TRUE)
  names <- names[endsWith(names, paste0(".", plot_devices[[settings$format]]$ext))]
  names <- names[as.integer(substr(names, 2L, 4L)) <= opened]
  sizes <- file.info(file.path(dir, names), extra_cols = FALSE)$size
  keep <- !is.na(sizes)
  lapply(which(keep), function(i) list(name = names[[i]], bytes = sizes[[i]]))
}

# Where open_plot_capture keeps its opener's state, for recorded_plot_pages.
capture_state <- new.env(parent = emptyenv())

# The function options(device) holds: each device R opens for the script draws into the next dNNN.
plot_opener <- function(device, settings, dir, ext) {
  width <- as.numeric(settings$width)
  height <- as.numeric(settings$height)
  dpi <- as.numeric(settings$dpi)
  capture_state$opened <- 0L
  function(...) {
    capture_state$opened <- capture_state$opened + 1L
    file <- file.path(dir, sprintf("d%03d-p%%05d.%s", capture_state$opened, ext))
    if (ext == "png") {
      device(file, width = width, height = height, units = "px", res = dpi, background = "white")
    } else {
      device(file, width = width / dpi, height = height / dpi, bg = "white")
    }
  }
}

# `settings` (input.json's plots): NULL for no capture, which leaves R's default device alone.
# Returns "on", "off", or why capture could not start (the script still runs, with R's default).
open_plot_capture <- function(settings, workdir) {
  if (is.null(settings)) return("off")
  tryCatch({
    spec <- plot_devices[[settings$format]]
    dir <- plot_directory(workdir)
    dir.create(dir, recursive = TRUE, showWarnings = FALSE, mode = "0700")
    device <- get(spec$fun, envir = asNamespace(spec$package))
    options(device = plot_opener(device, settings, dir, spec$ext))
    "on"
  }, error = function(e) paste("failed:", conditionMessage(e)))
}

# After the script: every device closed, so each one writes its last page; anything drawn later
# (a print method while the value is converted) goes to a device that keeps nothing.
close_plot_capture <- function() {
  # A device of the script's that fails to close must not cost the envelope.
  tryCatch(graphics_off(), error = function(e) NULL)
  options(device = null_device)
  invisible(NULL)
}
