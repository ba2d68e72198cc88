# revalidate-packages.R: the nearest-package suggestion and its message (the rules' tables are in
# test-revalidate.R, which runs them through check_script).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)

case("nearest_packages: within three edits and one past the nearest, case-insensitive, nearest first, at most three", {
  expect_identical(runner$nearest_packages("dplr", test_packages), "dplyr")
  expect_identical(runner$nearest_packages("DPLYR", c("tidyr", "dplyr")), "dplyr")
  expect_identical(runner$nearest_packages("dplr", c("xml2", "dplyr")), "dplyr")
  expect_identical(runner$nearest_packages("stringx", c("stringr", "stats", "stringi")), c("stringi", "stringr"))
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
case("a refused dependency the rules advise on says what to write instead, as the TypeScript validator does", {
  expect_identical(
    runner$package_unavailable("magrittr", policy),
    paste(
      "Package 'magrittr' is not available in jube-r. It is installed only as a dependency of the packages",
      "a script may load, not for scripts to load themselves. Instead: its pipe %>% comes with dplyr, tidyr",
      "and purrr (library(dplyr)), and R has |> built in; for %$% use with(df, expr), for %<>% assign back",
      "(x <- x %>% f()). GET /packages lists every installed package."
    )
  )
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
case("an rlang export off its list is refused with the rules' reason, as the TypeScript validator words it", {
  rlang_rules <- Filter(function(p) p$name == "rlang", rules$packages$namedExports$packages)[[1L]]
  listed <- paste(unlist(lapply(rlang_rules$groups, function(g) g$names)), collapse = ", ")
  why <- Filter(function(b) b$name == "rlang", rules$packages$blocked)[[1L]]$why
  expect_identical(
    runner$named_export_unavailable("rlang", "eval_tidy", policy),
    sprintf(
      "'rlang::eval_tidy' is not available in jube-r: rlang is blocked: %s Of rlang, a script may call only %s, %s",
      why, listed, "as rlang::name."
    )
  )
  expect_identical(
    runner$named_export_unavailable("rlang", "exec", policy),
    sprintf("'rlang::exec' is not available in jube-r: %s Of rlang, a script may call only %s, as rlang::name.",
            rlang_rules$refused$exec, listed)
  )
})
case("an installed package that is not allowed says it is only a dependency, as the TypeScript validator does", {
  expect_true(startsWith(
    runner$package_unavailable("R6", policy),
    paste(
      "Package 'R6' is not available in jube-r. It is installed only as a dependency of the packages",
      "a script may load, not for scripts to load themselves."
    )
  ))
})
