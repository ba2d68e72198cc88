# package-examples.R at run time: the script's example() refuses what only a
# value shows, whatever the re-validation saw (here nothing checks the script first).
use_script_sandbox()
quietly <- function(expr) {
  utils::capture.output(value <- expr)
  value
}

case("example() re-validates the example code and runs none of it when a rule refuses it", {
  expect_error(in_script("example('system', package = 'base')"), "was not run: .*FORBIDDEN_SYMBOL:system")
  expect_error(in_script("example('Sys.setenv', package = 'base')"), "was not run")
  expect_error(in_script("example('system', package = 'base', run.dontrun = TRUE)"), "was not run")
})
case("example() runs an allowed example in the caller's environment, or a new one under it", {
  quietly(in_script("example('weighted.mean', package = 'stats')"))
  expect_identical(exists("xm", envir = script_env, inherits = FALSE), TRUE)
  rm("xm", envir = script_env)
  quietly(in_script("example('weighted.mean', package = 'stats', local = TRUE)"))
  expect_identical(exists("xm", envir = script_env, inherits = FALSE), FALSE)
})
case("example() echoes the code and its printed values, as utils::example() does", {
  out <- utils::capture.output(in_script("example(median, package = 'stats')"))
  expect_true("median> median(1:4)" %in% out && "[1] 2.5" %in% out)
  expect_identical(utils::capture.output(in_script("example(median, package = 'stats', echo = FALSE)")), character())
})
case("example() refuses a package the script may not load, a computed topic and non-logical flags", {
  expect_error(in_script("example('run', package = 'processx')"), "processx")
  expect_error(in_script("example(median, package = c('stats', 'base'))"), "not available")
  expect_error(in_script("example(median, package = 'stats', local = globalenv)"), "TRUE or FALSE")
  expect_error(in_script("example(median, package = 'stats', lib.loc = '.')"), "unused argument")
})
case("example() of a topic without help warns, as utils::example() does", {
  said <- tryCatch(in_script("example(no_such_topic_here)"), warning = conditionMessage)
  expect_identical(said, "no help found for 'no_such_topic_here'")
})
case("utils::example is the script's example()", {
  expect_error(in_script("utils::example('system', package = 'base')"), "was not run")
})
case("example() handed to package code refuses to run in that package's frame", {
  example_fn <- runner$safe_example(policy)
  outside <- new.env(parent = baseenv())
  assign("example_fn", example_fn, envir = outside)
  expect_error(evalq(example_fn(median, package = "stats"), outside), "only in the script's own environments")
})
