# absent-guards.R: a branch guarded by requireNamespace() of an absent package is not judged, and
# the script's requireNamespace answers FALSE for a package the script may not load.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
verdict <- function(text) {
  path <- tempfile(fileext = ".R")
  writeLines(text, path)
  vapply(runner$check_script(path, policy, NULL, only = c(names(runner$token_rules), names(runner$call_rules)))$errors,
         function(e) paste0(e$code, ":", e$symbol), character(1))
}
case("a guarded branch on an absent package is not judged; the else branch and the code after it are", {
  expect_identical(verdict('if (requireNamespace("brms", quietly = TRUE)) {\n  brms::brm(y ~ x)\n}'), character())
  expect_identical(verdict('if (base::requireNamespace("brms")) library(brms) else 1'), character())
  expect_identical(verdict('if (requireNamespace("brms")) 1 else processx::run("id")'), "PACKAGE_NOT_ALLOWED:processx")
  expect_identical(verdict('if (requireNamespace("brms")) 1\nprocessx::run("id")'), "PACKAGE_NOT_ALLOWED:processx")
})
case("a guard R could be made to answer otherwise is judged as usual", {
  expect_true("PACKAGE_NOT_ALLOWED:processx" %in% verdict('if (requireNamespace("processx")) processx::run("id")'))
  expect_true("PACKAGE_NOT_ALLOWED:brms" %in% verdict('p <- "x"\nif (requireNamespace(p)) brms::brm(y ~ x)'))
  rebound <- 'requireNamespace <- function(...) TRUE\nif (requireNamespace("brms")) brms::brm(y ~ x)'
  expect_true("PACKAGE_NOT_ALLOWED:brms" %in% verdict(rebound))
  expect_true("PACKAGE_NOT_ALLOWED:brms" %in% verdict('if (requireNamespace("brms") || TRUE) brms::brm(y ~ x)'))
})
case("the script's requireNamespace answers FALSE for a package it may not load, R's answer otherwise", {
  guarded <- runner$safe_require_namespace(policy)
  expect_identical(guarded("processx"), FALSE)
  expect_identical(guarded("brms"), FALSE)
  expect_identical(guarded("stats"), TRUE)
})
