# superassign.R: where `<<-` may write, decided on the parse data (the shared cases in
# test-relaxations.R cover the verdicts), and the script's `<<-`, which checks the real environment.
use_script_sandbox()
in_script <- function(text) eval(parse(text = text, keep.source = FALSE), script_env)

stays <- function(text) {
  path <- tempfile(fileext = ".R")
  writeLines(text, path)
  parsed <- runner$parse_script(path)
  i <- which(parsed$tokens$text %in% c("<<-", "->>"))[[1L]]
  runner$superassign_stays_in_script(parsed, i, policy)
}

case("a target bound in an enclosing function or local() stays in the script", {
  expect_true(stays("make_counter <- function() { i <- 0; function() { i <<- i + 1; i } }"))
  expect_true(stays("counter <- base::local({ i <- 0; function() i <<- i + 1 })"))
  expect_true(stays("f <- function() { s <- list(); function() s$a[[1]] <<- 1 }"))
  expect_true(stays("f <- function(total) function(x) x + total ->> total"))
})
case("a target bound only where the operator stands, at top level or nowhere does not", {
  expect_identical(stays("x <<- 1"), FALSE)
  expect_identical(stays("f <- function() { i <- 0; i <<- 1 }"), FALSE)
  expect_identical(stays("x <- 0\nf <- function() x <<- 1"), FALSE)
  expect_identical(stays("f <- function() { x <- 1; function() names(x) <<- 'a' }"), FALSE)
})
case("the script's <<- updates a variable of an enclosing script function: a counter runs", {
  counter <- "counter <- (function() { i <- 0; function() { i <<- i + 1; i } })()\ncounter()\ncounter()"
  expect_identical(in_script(counter), 2)
  memo <- "m <- (function() { s <- list(); function(k) { s[[k]] <<- TRUE; names(s) } })()\nm('a')\nm('b')"
  expect_identical(in_script(memo), c("a", "b"))
  expect_identical(exists("i", envir = script_env, inherits = FALSE), FALSE)
})
case("the script's <<- refuses a write that would land in the script's environment, the mask or the global one", {
  expect_error(in_script("g <- function() y <<- 1\ng()"), "'<<-' may only update a variable of an enclosing function")
  expect_error(in_script("z <- 0\nh <- function() z <<- 1\nh()"), "instead, return the new value")
  expect_error(in_script("k <- function() system <<- 1\nk()"), "may only update")
  expect_identical(exists("y", envir = globalenv()), FALSE)
})
case("the refusal's advice is a form both the re-validation and the script's <<- accept", {
  example <- sub(".*update it there: ", "", policy$superassign_advice)
  expect_true(stays(example))
  expect_identical(in_script(paste0(example, "\nnext_id <- make_counter()\nnext_id()\nnext_id()")), 2)
})
