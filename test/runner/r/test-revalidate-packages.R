# revalidate-packages.R: the nearest-package suggestion and its message (the rules' tables are in
# test-revalidate.R, which runs them through check_script).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)

case("nearest_packages: within three edits, case-insensitive, nearest first, at most three", {
  expect_identical(runner$nearest_packages("dplr", test_packages), "dplyr")
  expect_identical(runner$nearest_packages("DPLYR", c("tidyr", "dplyr")), c("dplyr", "tidyr"))
  expect_identical(runner$nearest_packages("zzzzqqqq", test_packages), character())
  expect_identical(length(runner$nearest_packages("s", c("a", "b", "c", "d"))), 3L)
})
case("the message names the nearest packages and points at GET /packages", {
  expect_identical(
    runner$package_unavailable("dplr", policy),
    paste(
      "Package 'dplr' is not available in jube-r.",
      "Did you mean 'dplyr'? GET /packages lists every installed package."
    )
  )
  message <- runner$package_unavailable("zzzzqqqq", policy)
  expect_true(grepl("^Package 'zzzzqqqq' is not available in jube-r[.] GET /packages", message))
})
case("a blocked package gives the rules' reason, word for word as the TypeScript validator does", {
  blocked <- rules$packages$blocked[[1]]
  expect_identical(
    runner$package_unavailable(blocked$name, policy),
    sprintf(
      "Package '%s' is blocked in jube-r: %s Do it with base R or an installed package.",
      blocked$name, blocked$why
    )
  )
})
case("a meta-package names its installed members to load, word for word as the TypeScript validator does", {
  loadable <- c(test_packages, "tidyr", "ggplot2", "readr", "purrr", "stringr", "tibble", "lubridate")
  expect_identical(
    runner$package_unavailable("tidyverse", runner$compile_policy(rules, loadable)),
    paste(
      "Package 'tidyverse' is not available in jube-r as one package. Load the packages it would attach instead:",
      "library(dplyr); library(tidyr); library(ggplot2); library(readr); library(purrr); library(stringr);",
      "library(tibble); library(lubridate). Not available: forcats."
    )
  )
})
