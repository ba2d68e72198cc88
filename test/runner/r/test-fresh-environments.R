# fresh-environments.R at run time: the script's as.environment() makes a new environment of a list's elements only.
use_script_sandbox(c(test_packages, "xts"))

case("as.environment() makes an environment of a list or data frame only", {
  e <- in_script("as.environment(list(a = 1))")
  expect_identical(c(is.environment(e), identical(parent.env(e), emptyenv()), e$a), c(TRUE, TRUE, 1))
  expect_error(in_script("as.environment(1)"), "anything but a list or data frame")
  expect_error(in_script("as.environment('package:base')"), "anything but a list or data frame")
  expect_error(in_script("as.environment(-1L)"), "anything but a list or data frame")
  expect_error(in_script("as.environment(new.env())"), "anything but a list or data frame")
  expect_error(in_script("base::as.environment(list())"), "not available")
})
case("as.environment() of an xts series binds each column, as xts's method does", {
  in_script("x <- xts::xts(cbind(a = 1:3, b = 4:6), as.Date('2024-01-01') + 0:2)")
  e <- in_script("as.environment(x)")
  expect_identical(sort(ls(e)), c("a", "b"))
  expect_identical(as.numeric(e$b), c(4, 5, 6))
  expect_identical(parent.env(e), emptyenv())
})
