# session-write.R: a workspace as data. Numbers are exact bytes; data frames, factors, dates and
# matrices keep their attributes; what is not data is dropped and named, largest last under the caps.
runner <- load_runner()

snapshot_of <- function(env, max_bytes = 1e6, max_objects = 100) {
  limits <- list(maxBytes = max_bytes, maxObjects = max_objects)
  runner$session_snapshot(env, 1L, limits, options(), runner$session_packages())
}

case("a vector's numbers are written as their exact bytes, NA and -0 included", {
  node <- runner$session_encode(c(1.5, NA, -0, Inf, NaN))
  expect_identical(node$kind, "vector")
  bytes <- runner$base64_decode(node$values)
  expect_identical(readBin(bytes, "double", n = 5L, size = 8L, endian = "little"), c(1.5, NA, -0, Inf, NaN))
})
case("a data frame keeps names, row.names and class; a factor its levels", {
  node <- runner$session_encode(data.frame(x = 1:2, g = factor(c("b", "a"))))
  expect_identical(node$kind, "list")
  expect_identical(sort(names(node$attributes)), c("class", "names", "row.names"))
  expect_identical(node$elements[[2L]]$attributes$levels$values, I(c("a", "b")))
})
case("not data is dropped with why: an environment, a closure made inside another, a formula's call", {
  env <- new.env()
  env$e <- new.env()
  env$inner <- local(function() 1)
  env$fit <- stats::lm(mpg ~ wt, data = datasets::mtcars)
  env$kept <- 1:3
  snap <- snapshot_of(env)
  dropped <- vapply(snap$dropped, function(d) d$name, "")
  expect_identical(sort(dropped), c("e", "fit", "inner"))
  expect_true(grepl('"name":"kept"', snap$json, fixed = TRUE))
})
case("past the byte cap the largest objects are left out, each named", {
  env <- new.env()
  env$small <- 1L
  env$big <- runif(10000)
  snap <- snapshot_of(env, max_bytes = 2000)
  expect_identical(vapply(snap$dropped, function(d) d$name, ""), "big")
  expect_true(grepl("at most 100 objects and 2000 bytes", snap$dropped[[1L]]$why, fixed = TRUE))
})
case("a time series keeps its tsp; an unknown attribute or a function inside a list drops the object, named", {
  env <- new.env()
  env$air <- datasets::AirPassengers
  env$labelled <- structure(1:3, label = "units sold")
  env$fns <- list(f = function(x) x)
  snap <- snapshot_of(env)
  expect_identical(sort(vapply(snap$dropped, function(d) d$name, "")), c("fns", "labelled"))
  back <- new.env()
  runner$session_restore(jsonlite::parse_json(snap$json, simplifyVector = FALSE), back, character(), 100)
  expect_identical(back$air, datasets::AirPassengers)
})
