# evaluate.R: one script's evaluation, from its expressions to the envelope fields.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
caps <- list(errorBytes = 200L, warnings = 2L, warningBytes = 1000L)

evaluate <- function(text, timeout = 5) {
  exprs <- parse(text = text, keep.source = TRUE)
  input <- list(timeoutSeconds = timeout, caps = caps, variables = list(), dataframes = list())
  out <- NULL
  utils::capture.output(out <- runner$evaluate_script(exprs, policy, input, tempdir()))
  out
}

case("each top-level expression's start is known from its srcref", {
  exprs <- parse(text = "x <- 1\n  y <- 2; z <- 3", keep.source = TRUE)
  expect_identical(runner$expression_position(exprs, 2L), list(line = 2L, column = 3L))
  expect_identical(runner$expression_position(exprs, 3L), list(line = 2L, column = 11L))
})
case("a script that runs is ok with no error and no warnings", {
  fields <- evaluate("x <- 1 + 1\nx")
  expect_identical(fields[c("status", "error", "timedOut")], list(status = "ok", error = NULL, timedOut = FALSE))
  expect_identical(fields$warnings, list())
  expect_identical(fields$warningsDropped, 0L)
})
case("the fields are the envelope's, in its order", {
  expect_identical(names(evaluate("1")), c("status", "error", "timedOut", "warnings", "warningsDropped", "sandbox"))
})
case("stop() at the top level reads like R's console", {
  expect_identical(evaluate("stop('boom')")$error, "Error: boom")
})
case("an error inside a function names the call", {
  expect_identical(evaluate("f <- function() stop('boom')\nf()")$error, "Error in f(): boom")
})
case("the first error ends the script", {
  fields <- evaluate("stop('first')\nstop('second')")
  expect_identical(fields$error, "Error: first")
})
case("warnings are kept up to the cap and the rest counted", {
  fields <- evaluate("for (i in 1:4) warning(paste('w', i))")
  expect_identical(fields$warnings, list("w 1", "w 2"))
  expect_identical(fields$warningsDropped, 2L)
})
case("a forbidden name is refused at run time too", {
  expect_identical(evaluate("f <- get(paste0('sys', 'tem'))")$error, "Error: 'get' is not available in jube-r")
})
case("the R time limit is reported as a timeout", {
  fields <- evaluate("repeat {}", timeout = 1)
  expect_identical(fields[c("status", "timedOut")], list(status = "error", timedOut = TRUE))
  expect_identical(fields$error, "script exceeded its 1 s limit (R time limit)")
})
case("a script's own 'time limit' error is not a timeout", {
  expect_identical(evaluate("stop('reached elapsed time limit')")$timedOut, FALSE)
})
