# harden-packages.R: base's within() and withAutoprint(), data.table's grouped mean() and dplyr's
# *_at() lambdas run their own code from the script's frame, after harden_runtime() (this process
# keeps it); the script naming the stubbed functions itself still meets the stubs.
use_script_sandbox()
runner$harden_runtime(policy)

case("inline_values() puts pkg::name and the listed heads in as values", {
  code <- runner$inline_values(quote(f(stats::median(x), g(1))), list(g = sum))
  expect_identical(code[[2L]][[1L]], stats::median)
  expect_identical(code[[3L]][[1L]], sum)
  expect_identical(code[[1L]], as.name("f"))
})
case("within() of a data frame runs from the script", {
  expect_identical(in_script("within(data.frame(a = 1:2), b <- a * 2)")$b, c(2, 4))
  expect_identical(in_script("within(list(a = 1), b <- a + 1)")$b, 2)
})
case("...while the script's own environment() is still the stub", {
  expect_error(in_script("within(data.frame(a = 1), e <- environment())"), "'environment' is not available")
})
case("withAutoprint() runs its block in the script's frame", {
  out <- utils::capture.output(in_script("withAutoprint({ y <- 2; y * 3 })"))
  expect_true(any(grepl("[1] 6", out, fixed = TRUE)))
  expect_identical(get("y", envir = script_env), 2)
})
case("withAutoprint(local = ) from the script takes only its own environments", {
  expect_error(in_script("withAutoprint({ 1 }, local = FALSE)"), "must be one of the script's environments")
  expect_error(in_script("withAutoprint({ 1 }, local = TRUE)"), "must be one of the script's environments")
})
case("data.table's grouped mean() runs in the script's frame", {
  in_script("dt <- data.table::data.table(g = c(1, 1, 2), x = c(1, 3, 5))")
  expect_identical(in_script("dt[, mean(x), by = g]")$V1, c(2, 5))
})
case("dplyr's mutate_at() with a lambda runs in the script's frame", {
  expect_identical(in_script("dplyr::mutate_at(data.frame(a = 1:2), dplyr::vars(a), ~ .x * 10)")$a, c(10, 20))
})
case("utils' unzip() for package code is R's internal method only; the script's unzip() is the stub", {
  package_unzip <- get("unzip", envir = asNamespace("utils"))
  expect_error(package_unzip("none.zip", list = TRUE, unzip = "/usr/bin/unzip"), "zip file 'none.zip' cannot be opened")
  expect_error(in_script("unzip('none.zip', list = TRUE)"), "'unzip' is not available")
})
case("data.table's within() method runs from the script", {
  in_script("wdt <- data.table::data.table(a = 1:3, b = 4:6)")
  expect_identical(in_script("within(wdt, { c <- a * 2; rm(a) })")$c, c(2, 4, 6))
})
