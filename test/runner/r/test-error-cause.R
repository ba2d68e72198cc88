# error-cause.R: the chain of causes, the innermost place in the script, the error text.
runner <- load_runner()

case("a chained error's message names every cause, each with its call", {
  script <- paste0(
    "inner <- simpleError('the real cause', call = quote(g(1)))\n",
    "stop(structure(class = c('wrapped', 'error', 'condition'), list(message = 'outer', call = NULL, parent = inner)))"
  )
  expect_identical(details_of(script)$message, "outer\nCaused by error in `g(1)`: the real cause")
})
case("the line is the innermost place in the script; the expression's start is context", {
  details <- details_of("x <- 1\ny <- c(1,\n  2) +\n  undefined_thing")
  expect_identical(
    details[c("line", "column", "expressionLine", "expressionColumn")],
    list(line = 4L, column = 3L, expressionLine = 2L, expressionColumn = 1L)
  )
  called <- details_of("f <- function(x) x\nf(1) |>\n  f() |>\n  sqrt(\"a\")")
  expect_identical(called[c("line", "expressionLine")], list(line = 4L, expressionLine = 2L))
})
case("the error text names the line of the script and the hints", {
  exprs <- parse(text = "x <- 1\nstop('boom')", keep.source = TRUE)
  details <- list(message = "boom", line = 2L, hints = list("a hint"))
  text <- runner$error_text(simpleError("boom"), details, attr(exprs, "srcfile"), caps)
  expect_identical(text, "Error: boom\nAt line 2: stop('boom')\nHint: a hint")
})
