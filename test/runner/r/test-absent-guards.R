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
case("rlang::is_installed() of an absent package guards as requireNamespace() does", {
  expect_identical(verdict('if (rlang::is_installed("brms")) {\n  library(brms)\n  system("id")\n}'), character())
  expect_identical(verdict('if (rlang::is_installed(c("dplyr", "brms"))) brms::brm(y ~ x)'), character())
  expect_identical(verdict('if (rlang::is_installed("brms", version = "2")) brms::brm(y ~ x) else 1'), character())
  refused <- verdict('if (rlang::is_installed("brms")) 1 else processx::run("id")')
  expect_identical(refused, "PACKAGE_NOT_ALLOWED:processx")
})
case("an rlang::is_installed() guard R could be made to answer otherwise is judged as usual", {
  judged <- function(script, code) expect_true(code %in% verdict(script))
  judged('if (rlang::is_installed("brms") && TRUE) brms::brm(y ~ x)', "PACKAGE_NOT_ALLOWED:brms")
  judged('if (rlang::is_installed("processx")) processx::run("id")', "PACKAGE_NOT_ALLOWED:processx")
  judged('c <- function(...) "dplyr"\nif (rlang::is_installed(c("brms"))) system("id")', "FORBIDDEN_SYMBOL:system")
  rebound <- "`::` <- function(a, b) function(...) TRUE\n"
  judged(paste0(rebound, 'if (rlang::is_installed("brms")) system("id")'), "FORBIDDEN_SYMBOL:system")
  judged(paste0(rebound, 'if (base::requireNamespace("brms")) system("id")'), "FORBIDDEN_SYMBOL:system")
})
case("rlang::is_installed() and check_installed() are held to the loaders' rules", {
  allowed <- 'rlang::is_installed(c("dplyr", "stats"))\nrlang::check_installed("dplyr", reason = "to summarise")'
  expect_identical(verdict(allowed), character())
  expect_identical(verdict('rlang::is_installed("R6")'), "PACKAGE_NOT_ALLOWED:R6")
  expect_identical(verdict('p <- "dplyr"\nrlang::is_installed(p)'), "PACKAGE_LOADER_ARGUMENT:rlang::is_installed")
  expect_identical(verdict('rlang::check_installed("dplyr", action = print)'), "PACKAGE_LOADER_ARGUMENT:action")
})
case("the script's rlang::is_installed() answers as its requireNamespace(); check_installed() errors instead", {
  is_installed <- runner$safe_is_installed(policy)
  expect_identical(is_installed("processx"), FALSE)
  expect_identical(is_installed(c("stats", "brms")), FALSE)
  expect_identical(is_installed(c("stats", "jsonlite")), TRUE)
  expect_identical(is_installed("stats", version = "99.0"), FALSE)
  check_installed <- runner$safe_check_installed(policy)
  expect_identical(check_installed("stats"), NULL)
  expect_true(inherits(tryCatch(check_installed("processx"), error = identity), "rlib_error_package_not_found"))
})
