# environment-exports.R: the rules' environment-valued exports, answered by the mask as their
# package intends (ggproto objects as they are, R6 generators by a stand-in) without handing the
# script an environment whose parent chain reaches a package frame.
use_script_sandbox(c(test_packages, "readr", "ggplot2", "forecast"))
suppressMessages({
  library(readr)
  library(ggplot2)
  library(forecast)
})
listed <- rules$packages$environmentExports$packages

case("every listed name is an export of its package of the listed kind", {
  for (entry in listed) {
    for (name in unlist(entry$names)) {
      value <- getExportedValue(entry$name, name)
      ok <- if (entry$kind == "ggproto") runner$inert_ggproto(value) else runner$is_r6_generator(value)
      check(ok, sprintf("%s::%s is not an inert %s", entry$name, name, entry$kind))
    }
  }
})
case("every environment-valued export of a listed package is listed (an upgrade's new class shows up here)", {
  for (entry in listed) {
    found <- runner$environment_bindings(as.environment(paste0("package:", entry$name)))
    expect_identical(setdiff(found, unlist(entry$names)), character())
  }
})

case("the mask answers a ggproto object as it is, bare and through ::", {
  expect_identical(in_script("Stat"), ggplot2::Stat)
  expect_identical(in_script("ggplot2::CoordCartesian"), ggplot2::CoordCartesian)
  expect_identical(in_script("StatForecast"), forecast::StatForecast)
})
case("the script subclasses one with its own functions", {
  in_script("hull <- function(data, scales) data[chull(data$x, data$y), ]")
  in_script("StatChull <- ggproto('StatChull', Stat, compute_group = hull)")
  built <- in_script("layer_data(ggplot(mpg, aes(displ, hwy)) + geom_polygon(stat = StatChull))")
  expect_identical(nrow(built), nrow(ggplot2::mpg[grDevices::chull(ggplot2::mpg$displ, ggplot2::mpg$hwy), ]))
})
case("a ggproto object holding an environment other than such objects, or with a parent, is refused", {
  leaky <- new.env(parent = emptyenv())
  class(leaky) <- c("Leaky", "ggproto", "gg")
  leaky$env <- asNamespace("stats")
  expect_error(runner$environment_export("x", "Leaky", leaky, "ggproto"), "not a plain ggproto object")
  parented <- new.env(parent = asNamespace("stats"))
  class(parented) <- c("Parented", "ggproto", "gg")
  expect_error(runner$environment_export("x", "Parented", parented, "ggproto"), "not a plain ggproto object")
})
case("an unlisted environment export stays refused", {
  attach(list(JubeGen = new.env()), name = "package:jubeexports", warn.conflicts = FALSE)
  runner$guard_attached("jubeexports")
  expect_error(in_script("JubeGen"), "'JubeGen' \\(package:jubeexports\\) is an environment")
})

case("an R6 generator's stand-in holds new() and classname only, the same one bare and through ::", {
  generator <- in_script("DataFrameCallback")
  expect_identical(sort(ls(generator, all.names = TRUE)), c("classname", "new"))
  expect_identical(generator$classname, "DataFrameCallback")
  expect_identical(in_script("readr::DataFrameCallback"), generator)
  for (field in c("parent_env", "self", "set", "lock", "unlock", "get_inherit", "public_methods")) {
    expect_identical(generator[[field]], NULL)
  }
  expect_error(in_script("DataFrameCallback$new <- function(...) 1"), "locked")
})
case("an object it makes holds its public methods, never .__enclos_env__", {
  object <- in_script("DataFrameCallback$new(function(x, pos) x)")
  expect_identical(object$.__enclos_env__, NULL)
  expect_true(!any(unlist(eapply(object, is.environment, all.names = TRUE))))
  expect_true(all(c("receive", "result", "continue", "finally", "clone") %in% ls(object)))
  expect_identical(inherits(object, c("DataFrameCallback", "ChunkCallback", "R6"), which = TRUE), 1:3)
  clone <- object$clone()
  expect_identical(clone$.__enclos_env__, NULL)
  in_script("cb <- DataFrameCallback$new(function(x, pos) x)")
  expect_error(in_script("cb$x <- 1"), "locked")
})
case("what an R6 method returns: the object itself becomes its stand-in, another package environment is refused", {
  real <- readr::ListCallback$new(function(x, pos) x)
  stand_in <- runner$r6_value(real)
  expect_identical(runner$r6_value(real), stand_in)
  expect_identical(runner$r6_value(stand_in), stand_in)
  expect_error(runner$r6_value(.subset2(real, ".__enclos_env__")), "a value of an R6 object: an environment outside")
  expect_identical(runner$r6_value(script_env), script_env)
})
case("readr's chunked readers run the stand-ins' callbacks (read_csv_chunked's example)", {
  piece <- "function(x, pos) subset(x, gear == 3)"
  code <- "read_csv_chunked(readr_example('mtcars.csv'), %s$new(%s), chunk_size = 5, show_col_types = FALSE)"
  expect_identical(nrow(in_script(sprintf(code, "DataFrameCallback", piece))), 15L)
  total <- in_script(sprintf(code, "AccumulateCallback", "function(x, pos, acc) acc + nrow(x), acc = 0"))
  expect_identical(total, 32)
  expect_identical(length(in_script(sprintf(code, "ListCallback", "function(x, pos) pos"))), 7L)
})
