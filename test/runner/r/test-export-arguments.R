# export-arguments.R: a checked named export's arguments on R's parse data, as the TypeScript
# validator judges them (test/fixtures/relaxations/cases.json holds the shared table).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
errors_of <- function(text) {
  checked <- runner$check_script(script_file(text), policy, list())
  found <- vapply(checked$errors, function(e) if (is.null(e$symbol)) e$code else paste0(e$code, ":", e$symbol), "")
  # No tree-sitter symbols are given here, so the parsers' comparison is not the question.
  found[found != "PARSER_DISAGREEMENT"]
}

case("withr's listed forms pass: options, seeds, settings and temp files written out", {
  expect_identical(errors_of("withr::with_options(list(digits = 3), print(pi))"), character())
  expect_identical(errors_of("withr::with_seed(42, runif(1))"), character())
  expect_identical(errors_of("withr::with_envvar(c(TZ = \"UTC\"), Sys.time())"), character())
  expect_identical(errors_of("withr::with_tempfile(\"tf\", writeLines(\"a\", tf), fileext = \".csv\")"), character())
})
case("a forbidden option is OPTION_NOT_ALLOWED, any other argument problem PACKAGE_NOT_ALLOWED:withr", {
  expect_identical(errors_of("withr::with_options(list(warn = 5), 1)"), "OPTION_NOT_ALLOWED:warn")
  expect_identical(errors_of("withr::with_tempfile(\"tf\", 1, tmpdir = \"/etc\")"), "PACKAGE_NOT_ALLOWED:withr")
  expect_identical(errors_of("withr::with_envvar(c(AWS_SECRET_ACCESS_KEY = \"x\"), 1)"), "PACKAGE_NOT_ALLOWED:withr")
  expect_identical(errors_of("f <- withr::with_options"), "PACKAGE_NOT_ALLOWED:withr")
})
case("rlang's local_options and with_options are checked as withr's, its other exports as before", {
  expect_identical(errors_of("local({ rlang::local_options(tibble.view_max = 100) })"), character())
  expect_identical(errors_of("rlang::with_options(print(pi), digits = 3, warn = 1)"), character())
  expect_identical(errors_of("rlang::local_options(editor = \"vi\")"), "OPTION_NOT_ALLOWED:editor")
  expect_identical(errors_of("rlang::with_options(1, warn = 7)"), "OPTION_NOT_ALLOWED:warn")
  expect_identical(errors_of("rlang::local_options(digits = 3, .frame = e)"), "PACKAGE_NOT_ALLOWED:rlang")
  expect_identical(errors_of("o <- list(editor = \"x\")\nrlang::local_options(!!!o)"), "PACKAGE_NOT_ALLOWED:rlang")
  expect_identical(errors_of("f <- rlang::local_options"), "PACKAGE_NOT_ALLOWED:rlang")
  expect_identical(errors_of("rlang::sym(\"x\")"), character())
})
