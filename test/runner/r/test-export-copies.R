# export-copies.R: the checked copies of withr's named exports refuse at run time what only a value
# shows, whatever the re-validation saw (here nothing checks the script first).
use_script_sandbox()

case("withr's checked copies refuse forbidden values the static walk could not see", {
  in_script("o <- list(editor = 'emacs')")
  expect_error(in_script("withr::with_options(o, 1)"), "the option 'editor' cannot be set")
  expect_error(in_script("withr::local_options(list(warn = 7))"), "may be set only to")
  in_script("v <- c(PATH = '/tmp')")
  expect_error(in_script("withr::with_envvar(v, 1)"), "it may set only TZ")
  expect_error(in_script("withr::with_envvar(c(TZ = 'UTC'), 1, action = 'prefix')"), "may not be given action")
  expect_error(in_script("withr::with_tempfile('tf', 1, tmpdir = '/etc')"), "may not be given tmpdir")
  expect_error(in_script("withr::with_tempfile('tf', 1, pattern = '../x')"), "pattern must be")
  expect_error(in_script("withr::defer(1, envir = new.env())"), "may not be given envir")
  expect_error(in_script("withr::with_seed('x', 1)"), "seed must be a number")
  expect_error(in_script("withr::with_dir('/', 1)"), "not available")
  expect_identical(getOption("editor") == "emacs", FALSE)
})
case("withr's checked copies run their allowed forms", {
  expect_identical(in_script("withr::with_options(list(digits = 3), getOption('digits'))"), 3L)
  expect_identical(in_script("withr::with_envvar(c(TZ = 'UTC'), 'set')"), "set")
  expect_identical(in_script("withr::with_seed(1, runif(1)) == withr::with_seed(1, runif(1))"), TRUE)
})
case("rlang's checked copies refuse forbidden options only the run time sees, spliced or named by :=", {
  in_script("o <- list(editor = 'emacs')")
  expect_error(in_script("rlang::local_options(!!!o)"), "the option 'editor' cannot be set")
  in_script("nm <- 'editor'")
  expect_error(in_script("rlang::with_options(1, !!nm := 'emacs')"), "the option 'editor' cannot be set")
  in_script("w <- 7")
  expect_error(in_script("rlang::with_options(1, warn = w)"), "may be set only to")
  expect_error(in_script("rlang::local_options(digits = 3, .frame = globalenv())"), "may not be given .frame")
  expect_error(in_script("rlang::local_options(1)"), "every setting needs a name")
  expect_identical(getOption("editor") == "emacs", FALSE)
})
case("rlang's checked copies set and restore the options, reading the arguments once", {
  expect_identical(in_script("local({ rlang::local_options(digits = 3); getOption('digits') })"), 3L)
  expect_identical(getOption("digits"), 7L)
  expect_identical(in_script("rlang::with_options(getOption('digits'), digits = 4)"), 4L)
  expect_identical(getOption("digits"), 7L)
  in_script("k <- local({ n <- 0; list(d = function() { n <<- n + 1; list(digits = 5) }, n = function() n) })")
  expect_identical(in_script("rlang::with_options(getOption('digits'), !!!k$d())"), 5L)
  expect_identical(in_script("k$n()"), 1)
})
case("every formal of a checked withr function is listed, in order", {
  for (key in names(policy$checked_exports)) {
    parts <- strsplit(key, "::", fixed = TRUE)[[1L]]
    expect_identical(names(policy$checked_exports[[key]]), names(formals(getExportedValue(parts[[1L]], parts[[2L]]))))
  }
})
