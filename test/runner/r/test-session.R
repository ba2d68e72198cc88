# session.R: a call of a session restores before the script and writes after it; a refused
# snapshot leaves only the call's inputs; a missing name's hint lists what the session holds.
runner <- load_runner()

case("session_begin restores a staged snapshot; the call's inputs win over it", {
  env <- new.env()
  env$x <- "input"
  staged <- paste0(
    '{"version":1,"call":1,"objects":[',
    '{"name":"x","kind":"vector","type":"integer","length":1,"values":"AQAAAA=="},',
    '{"name":"y","kind":"vector","type":"integer","length":1,"values":"AgAAAA=="}],',
    '"packages":[],"options":{},"dropped":[]}'
  )
  notes <- character()
  limits <- list(maxBytes = 1e6, maxObjects = 10)
  runner$session_begin(staged, env, character(), limits, function(n) notes <<- c(notes, n))
  expect_identical(env$x, "input")
  expect_identical(env$y, 2L)
  expect_identical(notes, character())
})
case("a refused snapshot: a note, and the workspace holds only the call's inputs", {
  env <- new.env()
  env$x <- "input"
  notes <- character()
  limits <- list(maxBytes = 1e6, maxObjects = 10)
  runner$session_begin('{"version":2}', env, character(), limits, function(n) notes <<- c(notes, n))
  expect_identical(ls(env), "x")
  expect_true(grepl("starts with an empty workspace", notes, fixed = TRUE))
})
case("a name the session does not hold: the hint lists what it does", {
  env <- new.env()
  env$sales <- 1
  runner$session_state$active <- TRUE
  expect_true(grepl("which holds `sales`", runner$session_name_hint("fit", env), fixed = TRUE))
})
