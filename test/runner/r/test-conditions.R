# conditions.R: warnings and messages with their call and line, and the error's details and frames.
runner <- load_runner()

case("a call is deparsed on one line and capped; the loop's own eval() is no call", {
  expect_identical(runner$call_text(quote(f(x, y = 2)), 40L), "f(x, y = 2)")
  expect_identical(runner$call_text(quote(eval(exprs[[i]], script_env)), 40L), NULL)
  expect_identical(runner$call_text(quote(eval(expr, script_env)), 40L), "eval(expr, script_env)")
  expect_identical(runner$call_text(NULL, 40L), NULL)
  long <- runner$call_text(as.call(c(as.name("f"), as.list(1:100))), 40L)
  expect_identical(nchar(long, type = "bytes"), 40L)
  expect_true(endsWith(long, "..."))
})
case("a condition log keeps texts within the count and byte caps and counts the rest", {
  log <- runner$new_condition_log(2L, 10L)
  for (text in c("aaaa", "bbbb", "cccc")) log$record(text, list(line = 1L))
  expect_identical(log$texts(), list("aaaa", "bbbb"))
  expect_identical(log$dropped(), 1L)
  expect_identical(log$details()[[1L]], list(line = 1L))
  bytes <- runner$new_condition_log(10L, 6L)
  for (text in c("aaaa", "bbbb")) bytes$record(text, list())
  expect_identical(bytes$texts(), list("aaaa"))
})
# conditions.R and evaluate.R agree on the loop's call: the one evaluate_script() makes is the one
# top_level_call (and format_error()) recognise as "the script's top level".
calls_in <- function(x) {
  if (!is.call(x) && !is.pairlist(x)) return(list())
  parts <- as.list(x)
  found <- if (is.call(x)) list(x) else list()
  # Only calls and formals hold calls (and an empty argument, x[, 1], must not be passed on).
  for (k in seq_along(parts)) {
    if (is.call(parts[[k]]) || is.pairlist(parts[[k]])) found <- c(found, calls_in(parts[[k]]))
  }
  found
}
case("the script's top level is the one eval() call evaluate_script() makes", {
  of_script <- Filter(
    function(call) identical(call[[1L]], as.name("eval")) && identical(call[[2L]], quote(exprs[[i]])),
    calls_in(body(runner$evaluate_script))
  )
  expect_identical(of_script, list(runner$top_level_call))
  expect_identical(runner$top_level_call, quote(eval(exprs[[i]], script_env)))
})
case("stop() at the top level has no call, as R's console says it", {
  expect_identical(details_of("stop('plain')")$call, NULL)
  expect_identical(runner$format_error(simpleError("plain", quote(eval(exprs[[i]], script_env))), 100L), "Error: plain")
})
case("an error at the top level has no call and no frames, but its line", {
  details <- details_of("x <- 1\nundefined_thing")
  expect_identical(details$call, NULL)
  expect_identical(details[c("line", "column", "expressionLine")], list(line = 2L, column = 1L, expressionLine = 2L))
  expect_identical(details$traceback, list())
  expect_identical(details$message, "object 'undefined_thing' not found")
})
case("the traceback lists the script's own frames where the script makes each call", {
  script <- "g <- function(z) stop('bad z')\nf <- function(x) {\n  g(x)\n}\nh <- function() f(1)\nh()"
  details <- details_of(script)
  expect_identical(details$call, "g(x)")
  # At most 3 frames: the outermost and the innermost two. R gives a call in a function without
  # braces the position of the function itself (line 1, column 6).
  expect_identical(details$traceback, list(
    list(call = "h()", line = 6L, column = 1L),
    list(call = "g(x)", line = 3L, column = 3L),
    list(call = "stop(\"bad z\")", line = 1L, column = 6L)
  ))
})
case("package internals are left out of the traceback", {
  details <- details_of("x <- 1\nlapply(1:2, function(i) stop('inner'))")
  calls <- vapply(details$traceback, function(frame) frame$call, "")
  expect_identical(calls, c("lapply(1:2, function(i) stop(\"inner\"))", "stop(\"inner\")"))
})
case("the class of a classed condition is kept whole, most specific first", {
  script <- "stop(structure(class = c('my_error', 'error', 'condition'), list(message = 'm', call = NULL)))"
  details <- details_of(script)
  expect_identical(details$class, list("my_error", "error", "condition"))
})
case("identical conditions fold into one with a count; the text is not repeated in the details", {
  log <- runner$new_condition_log(5L, 1000L)
  for (i in 1:240) log$record("same", list(call = NULL, line = 2L, column = 1L))
  log$record("same", list(call = NULL, line = 3L, column = 1L))
  expect_identical(log$texts(), list("same [240 times]", "same"))
  expect_identical(log$details(), list(
    list(call = NULL, line = 2L, column = 1L, count = 240L), list(call = NULL, line = 3L, column = 1L)
  ))
  expect_identical(log$dropped(), 0L)
})
case("package start-up messages become one note", {
  logs <- runner$new_condition_logs(caps, function() list())
  expect_identical(logs$startup_note(), NULL)
  withCallingHandlers(
    {
      packageStartupMessage("Attaching package: 'x'\n")
      message("kept")
    },
    message = logs$message
  )
  expect_identical(logs$fields()$messages, list("kept"))
  expect_identical(
    logs$startup_note(), "1 package start-up message(s) left out of consoleOutput and messages: Attaching package: 'x'"
  )
})
