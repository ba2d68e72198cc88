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
      "package 'dplr' is not available to jube-r scripts.",
      "Did you mean 'dplyr'? GET /packages lists every installed package."
    )
  )
  message <- runner$package_unavailable("zzzzqqqq", policy)
  expect_true(grepl("^package 'zzzzqqqq' is not available to jube-r scripts[.] GET /packages", message))
})
