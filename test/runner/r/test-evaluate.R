# evaluate.R: one script's evaluation, from its expressions to the envelope fields.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
caps <- list(
  errorBytes = 200L, warnings = 2L, warningBytes = 1000L, messages = 3L, messageBytes = 1000L,
  valueBytes = 1000L, callBytes = 100L, tracebackFrames = 5L
)

evaluate <- function(text, timeout = 5, plots = NULL, workdir = tempdir()) {
  exprs <- parse(text = text, keep.source = TRUE)
  input <- list(timeoutSeconds = timeout, caps = caps, variables = list(), dataframes = list(), plots = plots)
  out <- NULL
  utils::capture.output(out <- runner$evaluate_script(exprs, policy, input, workdir))
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
  expect_identical(names(evaluate("1")), c(
    "status", "error", "timedOut", "warnings", "warningsDropped", "warningDetails", "messages", "messagesDropped",
    "value", "notes", "plotCapture", "capsule"
  ))
  expect_identical(names(evaluate("stop('x')")), c(
    "status", "error", "timedOut", "errorType", "errorDetails", "warnings", "warningsDropped", "warningDetails",
    "messages", "messagesDropped", "notes", "plotCapture", "capsule"
  ))
})
case("an error in the fifth expression names its class, call, line and column", {
  fields <- evaluate("a <- 1\nb <- 2\nf <- function(x) log(x)\nd <- 4\n  y <- f('a')\n")
  expect_identical(fields$errorType, "execution")
  details <- fields$errorDetails
  expect_identical(details$class, list("simpleError", "error", "condition"))
  expect_identical(details$message, "non-numeric argument to mathematical function")
  expect_identical(details$call, "log(x)")
  # The innermost place the script wrote: log() has no frame, so the call of f() in line 5.
  expect_identical(details[c("line", "column", "expressionLine")], list(line = 5L, column = 8L, expressionLine = 5L))
  # log() is a primitive: it has no frame of its own.
  expect_identical(details$traceback, list(list(call = "f(\"a\")", line = 5L, column = 3L)))
})
case("an error before the script's first expression is the service's: interpreter", {
  fields <- runner$error_outcome(simpleError("no data"), proc.time(), 5, caps, in_script = FALSE)
  expect_identical(fields$errorType, "interpreter")
  in_script <- runner$error_outcome(simpleError("x"), proc.time(), 5, caps, in_script = TRUE)
  expect_identical(in_script$errorType, "execution")
})
case("a timeout is the script's own: execution, with where it was", {
  fields <- evaluate("x <- 1\nrepeat {}", timeout = 1)
  expect_identical(fields$errorType, "execution")
  expect_identical(fields$errorDetails[c("line", "column")], list(line = 2L, column = 1L))
})
case("warnings carry their call and line; messages are collected and stay in the console", {
  out <- utils::capture.output(fields <- runner$evaluate_script(
    parse(text = "x <- 1\nmessage('hello')\nas.integer('a')", keep.source = TRUE), policy,
    list(timeoutSeconds = 5, caps = caps, variables = list(), dataframes = list()), tempdir()
  ))
  expect_identical(fields$warnings, list("NAs introduced by coercion"))
  expect_identical(fields$warningDetails, list(list(call = NULL, line = 3L, column = 1L)))
  expect_identical(fields$messages, list("hello"))
  expect_true("hello" %in% out)
})
case("the last expression's value comes back, visible or not", {
  expect_identical(evaluate("x <- c(a = 1, b = 2)")$value$json, structure('{"a":1,"b":2}', class = "json"))
  expect_identical(evaluate("stop('no')")$value, NULL)
})
case("plots drawn before an error are kept; the device is closed after the script", {
  workdir <- tempfile()
  settings <- list(format = "png", width = 200L, height = 100L, dpi = 72L)
  fields <- evaluate("plot(1:3)\nstop('after the plot')", plots = settings, workdir = workdir)
  expect_identical(fields$plotCapture, "on")
  expect_identical(list.files(file.path(workdir, ".jube", "plots")), "d001-p00001.png")
  expect_identical(grDevices::dev.cur()[[1L]], 1L)
})
case("stop() at the top level reads like R's console", {
  expect_identical(evaluate("stop('boom')")$error, "Error: boom\nAt line 1: stop('boom')")
})
case("an error inside a function names the call", {
  expect_identical(
    evaluate("f <- function() stop('boom')\nf()")$error, "Error in f(): boom\nAt line 1: f <- function() stop('boom')"
  )
})
case("the first error ends the script", {
  fields <- evaluate("stop('first')\nstop('second')")
  expect_identical(fields$error, "Error: first\nAt line 1: stop('first')")
})
case("warnings are kept up to the cap and the rest counted", {
  fields <- evaluate("for (i in 1:4) warning(paste('w', i))")
  expect_identical(fields$warnings, list("w 1", "w 2"))
  expect_identical(fields$warningsDropped, 2L)
})
case("a forbidden name is refused at run time too", {
  expect_identical(evaluate("f <- get(paste0('sys', 'tem'))")$error, paste(
    "Error: 'get' is not available in jube-r",
    "At line 1: f <- get(paste0('sys', 'tem'))",
    sep = "\n"
  ))
})
case("the R time limit is reported as a timeout", {
  fields <- evaluate("repeat {}", timeout = 1)
  expect_identical(fields[c("status", "timedOut")], list(status = "error", timedOut = TRUE))
  # The runner only reports that it fired; the handler words it (response.ts).
  expect_true(is.null(fields$error))
})
case("a script's own 'time limit' error is not a timeout", {
  expect_identical(evaluate("stop('reached elapsed time limit')")$timedOut, FALSE)
})
