# evaluate.R: one script's evaluation, from its expressions to the envelope fields.
runner <- load_runner()
caps <- list(
  errorBytes = 200L, warnings = 2L, warningBytes = 1000L, messages = 3L, messageBytes = 1000L,
  valueBytes = 1000L, callBytes = 100L, tracebackFrames = 5L
)

# The input.json fields evaluate_script() reads.
input_of <- function(timeout = 5, plots = NULL, variables = list()) {
  list(
    timeoutSeconds = timeout, deadlineSeconds = timeout + 3, caps = caps, variables = variables,
    dataframes = list(), plots = plots, allowedPackages = list("stats", "jsonlite")
  )
}

# The script runs in globalenv(), which starts empty for each one as in a fresh Rscript.
evaluate <- function(text, timeout = 5, plots = NULL, workdir = tempdir(), variables = list()) {
  clear_globalenv()
  exprs <- parse(text = text, keep.source = TRUE)
  out <- NULL
  utils::capture.output(out <- runner$evaluate_script(exprs, input_of(timeout, plots, variables), workdir))
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
    parse(text = "x <- 1\nmessage('hello')\nas.integer('a')", keep.source = TRUE), input_of(), tempdir()
  ))
  expect_identical(fields$warnings, list("NAs introduced by coercion"))
  expect_identical(fields$warningDetails, list(list(call = NULL, line = 3L, column = 1L)))
  expect_identical(fields$messages, list("hello"))
  expect_true("hello" %in% out)
})
case("the last expression's value comes back; an error leaves none", {
  expect_identical(evaluate("x <- c(a = 1, b = 2)\nx")$value$json, structure('{"a":1,"b":2}', class = "json"))
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
case("ordinary R the old name layer refused runs as in plain R", {
  script <- paste(
    "f <- get('sum')",
    "a <- f(1, 2)",
    "b <- eval(parse(text = 'a * 2'))",
    "d <- do.call('paste', list('x', b))",
    "counter <- 0",
    "bump <- function() counter <<- counter + 1",
    "invisible(bump()); invisible(bump())",
    "e <- local({ y <- 10; y + 1 })",
    "assign('g', 7)",
    "top <- identical(environment(), globalenv())",
    "list(a = a, b = b, d = d, counter = counter, e = e, g = g, top = top)",
    sep = "\n"
  )
  fields <- evaluate(script)
  expect_identical(fields[c("status", "error")], list(status = "ok", error = NULL))
  expect_identical(
    as.character(fields$value$json), '{"a":3,"b":6,"d":"x 6","counter":2,"e":11,"g":7,"top":true}'
  )
})
case("the script runs in globalenv(), with its inputs bound there, and finds none of the runner's names", {
  fields <- evaluate(
    "y <- n * 2\nlist(y = y, runner = exists('evaluate_script'), here = exists('y', envir = globalenv()))",
    variables = list(list(name = "n", value = 21L))
  )
  expect_identical(as.character(fields$value$json), '{"y":42,"runner":false,"here":true}')
  expect_identical(get("y", envir = globalenv()), 42)
})
case("without a capsule library the run says so: preload=off", {
  expect_identical(evaluate("1")$capsule, "preload=off")
})
case("the script's sink() and setwd() end with it; the runner's output and directory are its own again", {
  wd <- getwd()
  sunk <- tempfile()
  out <- utils::capture.output(fields <- runner$evaluate_script(
    parse(text = sprintf("sink('%s')\nsetwd(tempdir())\ncat('to the sink')\n42", sunk), keep.source = TRUE),
    input_of(), tempdir()
  ))
  expect_identical(getwd(), wd)
  expect_identical(readLines(sunk, warn = FALSE), c("to the sink[1] 42"))
  expect_identical(fields$value$json, structure("42", class = "json"))
  expect_identical(out, character())
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
