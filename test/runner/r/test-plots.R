# plots.R: the runner's device behind options(device), one file per page, in drawing order.
runner <- load_runner()
png_settings <- list(format = "png", width = 320L, height = 200L, dpi = 72L)

# Runs `draw` with capture opened in a fresh workdir, then closes it as evaluate.R does.
with_capture <- function(settings, draw) {
  workdir <- tempfile()
  dir.create(workdir)
  old <- options(device = getOption("device"))
  on.exit(options(old), add = TRUE)
  state <- runner$open_plot_capture(settings, workdir)
  draw()
  runner$close_plot_capture()
  dir <- runner$plot_directory(workdir)
  pages <- runner$recorded_plot_pages(workdir, settings)
  list(state = state, files = if (dir.exists(dir)) list.files(dir) else character(), dir = dir, pages = pages)
}

case("no settings, no capture: R's own default device stays", {
  before <- getOption("device")
  expect_identical(runner$open_plot_capture(NULL, tempdir()), "off")
  expect_identical(getOption("device"), before)
})
case("each page is one PNG file of the requested size, in drawing order", {
  out <- with_capture(png_settings, function() {
    plot(1:10, main = "one")
    graphics::hist(c(1, 2, 2, 3))
    grid::grid.newpage()
    grid::grid.rect()
  })
  expect_identical(out$state, "on")
  expect_identical(out$files, sprintf("d001-p%05d.png", 1:3))
  header <- readBin(file.path(out$dir, out$files[[1L]]), "raw", 24L)
  expect_identical(header[1:4], as.raw(c(0x89, 0x50, 0x4e, 0x47)))
  size <- c(sum(as.integer(header[17:20]) * 256^(3:0)), sum(as.integer(header[21:24]) * 256^(3:0)))
  expect_identical(size, c(320, 200))
})
case(paste(
  "the runner records its pages with their sizes;",
  "a file named like a page of a device it never opened is not recorded"
), {
  out <- with_capture(png_settings, function() {
    plot(1:3)
  })
  expect_identical(vapply(out$pages, function(p) p$name, ""), "d001-p00001.png")
  expect_identical(out$pages[[1L]]$bytes, file.size(file.path(out$dir, "d001-p00001.png")))
  writeBin(as.raw(1:10), file.path(out$dir, "d009-p00001.png"))
  writeBin(as.raw(1:10), file.path(out$dir, "notes.txt"))
  again <- runner$recorded_plot_pages(dirname(dirname(out$dir)), png_settings)
  expect_identical(vapply(again, function(p) p$name, ""), "d001-p00001.png")
})
case("no capture, no record", expect_identical(runner$recorded_plot_pages(tempdir(), NULL), NULL))
case("a script that closes the device and draws again gets a fresh one", {
  out <- with_capture(png_settings, function() {
    plot(1:3)
    grDevices::dev.off()
    plot(3:1)
  })
  expect_identical(out$files, c("d001-p00001.png", "d002-p00001.png"))
})
case("the script's own device writes its own file, not a captured page", {
  own <- tempfile(fileext = ".png")
  out <- with_capture(png_settings, function() {
    grDevices::png(own)
    plot(1:3)
    grDevices::dev.off()
  })
  expect_identical(out$files, character())
  expect_true(file.exists(own))
})
case("SVG on request, through svglite", {
  out <- with_capture(list(format = "svg", width = 320L, height = 200L, dpi = 72L), function() plot(1:3))
  expect_identical(out$files, "d001-p00001.svg")
  expect_true(any(grepl("<svg", readLines(file.path(out$dir, out$files)), fixed = TRUE)))
})
case("a device that cannot start leaves the script R's default and says why", {
  state <- runner$open_plot_capture(list(format = "gif", width = 1L, height = 1L, dpi = 1L), tempfile())
  expect_true(startsWith(state, "failed:"))
})
case("after the script, drawing goes to a device that keeps nothing", {
  runner$close_plot_capture()
  expect_identical(getOption("device"), runner$null_device)
  plot(1:3)
  expect_identical(names(grDevices::dev.cur()), "pdf")
  grDevices::graphics.off()
})
