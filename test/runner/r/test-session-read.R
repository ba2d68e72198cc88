# session-read.R: a snapshot read back builds the same values, and anything the writer never
# writes refuses the whole snapshot before anything is bound.
runner <- load_runner()

round_trip <- function(env) {
  snap <- runner$session_snapshot(env, 1L, list(maxBytes = 1e7, maxObjects = 100), options(), runner$session_packages())
  back <- new.env()
  notes <- runner$session_restore(jsonlite::parse_json(snap$json, simplifyVector = FALSE), back, character(), 100)
  list(env = back, notes = notes)
}

case("data frames, factors, dates, times, matrices, nested lists and NULL come back identical", {
  env <- new.env()
  env$d <- data.frame(x = c(1.5, NA), g = factor(c("b", NA), levels = c("a", "b")), s = c("p", NA))
  env$when <- as.Date("2026-01-31") + 0:1
  env$stamp <- as.POSIXct("2026-12-05 10:00:00", tz = "UTC")
  env$m <- matrix(1:4, 2, dimnames = list(NULL, c("a", "b")))
  env$l <- list(a = TRUE, b = list(c = NULL, d = "x"))
  env$nothing <- NULL
  back <- round_trip(env)$env
  for (name in ls(env)) expect_identical(get(name, back), get(name, env))
})
case("a function the script defined comes back from its source", {
  env <- new.env()
  eval(parse(text = "f <- function(x, by = 2) x * by"), env)
  environment(env$f) <- globalenv()
  back <- round_trip(env)$env
  expect_identical(back$f(3), 6)
})
case("a node of a kind, type or attribute the writer never writes refuses the snapshot", {
  refused <- function(object) {
    snapshot <- list(
      version = 1L, call = 1L, objects = list(object), packages = list(),
      options = structure(list(), names = character()), dropped = list()
    )
    e <- tryCatch(runner$session_restore(snapshot, new.env(), character(), 100), error = function(e) e)
    inherits(e, "jube_session_refused")
  }
  expect_true(refused(list(name = "x", kind = "closure")))
  expect_true(refused(list(name = "x", kind = "vector", type = "externalptr", length = 0L, values = "")))
  environment_attribute <- list(.Environment = list(kind = "null"))
  typed <- list(name = "x", kind = "vector", type = "integer", length = 0L, values = "")
  expect_true(refused(c(typed, list(attributes = environment_attribute))))
  expect_true(refused(list(name = "x", kind = "vector", type = "double", length = 5L, values = "AAAAAAAAAAA=")))
})
case("a data.table comes back as one (its columns reallocated); one whose columns differ in length is refused", {
  # data.table is declared in packages.R: its absence is a failure here, not a skip.
  expect_true(requireNamespace("data.table", quietly = TRUE))
  env <- new.env()
  env$dt <- data.table::data.table(a = 1:3, b = c("x", "y", "z"))
  back <- round_trip(env)$env
  expect_true(data.table::is.data.table(back$dt))
  expect_identical(as.data.frame(back$dt), as.data.frame(env$dt))
  bad <- structure(list(a = 1:3, b = 1:2), class = c("data.table", "data.frame"))
  e <- tryCatch(runner$session_reallocate(bad), error = function(e) e)
  expect_true(inherits(e, "jube_session_refused"))
})
