# revalidate.R: each rule of the R re-validation on its own (check_script(only = <rule id>)),
# allowed and refused snippets side by side, then the rules together.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)

rule_table("forbidden_symbol",
  allowed = c("x <- mean(1:3)", "x$system", "x@system", "list(system = 1)"),
  refused = list(
    "system('id')" = "FORBIDDEN_SYMBOL:system",
    "f <- system" = "FORBIDDEN_SYMBOL:system",
    "`system`('id')" = "FORBIDDEN_SYMBOL:system",
    "base::system('id')" = "FORBIDDEN_SYMBOL:system",
    "lapply(1, get)" = "FORBIDDEN_SYMBOL:get",
    "x <- .__T__show" = "FORBIDDEN_SYMBOL:.__T__show",
    "`\\x73ystem`('id')" = "FORBIDDEN_SYMBOL:system",
    "`\\56libPaths`()" = "FORBIDDEN_SYMBOL:.libPaths"
  )
)

rule_table("blocked_operator",
  allowed = c("x <- 1", "1 -> x", "stats::median(1)"),
  refused = list(
    "x <<- 1" = "BLOCKED_OPERATOR:<<-",
    "1 ->> x" = "BLOCKED_OPERATOR:->>",
    "stats:::median(1)" = "BLOCKED_OPERATOR::::"
  )
)

# packages.internalFunctions: pkg:::name of a listed internal function of a package the script may load.
glmnet_policy <- runner$compile_policy(rules, c(test_packages, "glmnet"))
glmnet_errors <- function(text) {
  only <- c("blocked_operator", "namespace_package")
  checked <- runner$check_script(script_file(text), glmnet_policy, list(), only = only)
  vapply(checked$errors, function(e) paste0(e$code, ":", e$symbol), "")
}
for (text in c(
  "glmnet:::fid(c(1, 4, 5, 6), 1:5)", "fit <- glmnet:::cox.path(x, y)", "lapply(xs, glmnet:::fid, 1:5)",
  "glmnet:::\"fid\"(x, 1)", "\"glmnet\":::fid", "glmnet:::`cox.path`", "glmnet:::`f\\x69d`", "x |> glmnet:::fid(1:5)"
)) {
  case(sprintf("blocked_operator allows the listed internal function in %s", text), {
    expect_identical(glmnet_errors(text), character())
  })
}
refused_internals <- c(
  "stats:::Pillai", "glmnet:::someOther", "glmnet:::glmnet.path(x, y)", "glmnet:::`fid2`", "stats:::fid"
)
for (text in refused_internals) {
  case(sprintf("blocked_operator refuses %s", text), expect_identical(glmnet_errors(text), "BLOCKED_OPERATOR::::"))
}
case("blocked_operator refuses a listed name of a package the script may not load", {
  expect_identical(errors_of("glmnet:::fid(1, 1)", c("blocked_operator", "namespace_package")),
    c("PACKAGE_NOT_ALLOWED:glmnet", "BLOCKED_OPERATOR::::"))
})
case("a refused ::: names the listed internal functions of its package, and nothing for another", {
  refusal <- function(text) {
    runner$check_script(script_file(text), glmnet_policy, list(), only = "blocked_operator")$errors[[1L]]$message
  }
  expect_identical(refusal("glmnet:::someOther"), paste(
    "the operator ':::' is not allowed. Of glmnet's internal functions, a script may use only fid, cox.path,",
    "as glmnet:::name."
  ))
  expect_identical(refusal("stats:::Pillai"), "the operator ':::' is not allowed")
})

rule_table("namespace_package",
  allowed = c("stats::median(1)", "dplyr::filter", "`data.table`::fread"),
  refused = list("evilpkg::f()" = "PACKAGE_NOT_ALLOWED:evilpkg", "callr::r(f)" = "PACKAGE_NOT_ALLOWED:callr")
)

rule_table("string_as_name",
  allowed = c(
    "paste('system')", "x <- 'system'", "lapply(x, 'mean')", "c(fun_name = 'system')", "f <- stats::'median'"
  ),
  refused = list(
    "'system'('id')" = "FORBIDDEN_STRING_FUNCTION:system",
    "'mean'(1)" = "FORBIDDEN_STRING_FUNCTION:mean",
    "stats::'median'(1)" = "FORBIDDEN_STRING_FUNCTION:median",
    "lapply(1, 'system')" = "FORBIDDEN_STRING_FUNCTION:system",
    "ave(x, 1, FUN = 'system')" = "FORBIDDEN_STRING_FUNCTION:system",
    "c(FUN = 'system')" = "FORBIDDEN_STRING_FUNCTION:system",
    "base::'system'" = "FORBIDDEN_SYMBOL:system",
    "x <- \"sys\\x74em\"('id')" = "FORBIDDEN_STRING_FUNCTION:system",
    "'system' |> sapply(X = 1)" = "FORBIDDEN_STRING_FUNCTION:system",
    "do.call('system', list('id'))" = "FORBIDDEN_STRING_FUNCTION:system",
    "Filter('\\56libPaths', 1)" = "FORBIDDEN_STRING_FUNCTION:.libPaths",
    "Filter('\\56Call', 1)" = "FORBIDDEN_STRING_FUNCTION:.Call"
  )
)

rule_table("package_loader",
  allowed = c("library(dplyr)", "library('stats')", "requireNamespace('dplyr', quietly = TRUE)"),
  refused = list(
    "library(evilpkg)" = "PACKAGE_NOT_ALLOWED:evilpkg",
    "require('callr')" = "PACKAGE_NOT_ALLOWED:callr",
    "library(dplyr, lib.loc = '/tmp')" = "PACKAGE_LOADER_ARGUMENT:lib.loc",
    "library(pkg, character.only = TRUE)" = c("PACKAGE_LOADER_ARGUMENT:character.only", "PACKAGE_NOT_ALLOWED:pkg"),
    "library(paste0('dp', 'lyr'))" = "PACKAGE_LOADER_ARGUMENT:library",
    "library()" = "PACKAGE_LOADER_ARGUMENT:library",
    "'dplyr' |> library()" = "PACKAGE_LOADER_ARGUMENT:library",
    "'library'(evilpkg)" = "PACKAGE_NOT_ALLOWED:evilpkg"
  )
)

rule_table("package_query",
  allowed = c(
    "rlang::is_installed('dplyr')", "rlang::is_installed(c('dplyr', 'stats'))",
    "rlang::check_installed('jsonlite', reason = 'to parse')", "is_installed <- function(p) TRUE\nis_installed(x)"
  ),
  refused = list(
    "rlang::is_installed('R6')" = "PACKAGE_NOT_ALLOWED:R6",
    "rlang::is_installed(c('dplyr', 'brms'))" = "PACKAGE_NOT_ALLOWED:brms",
    "rlang::is_installed(p)" = "PACKAGE_LOADER_ARGUMENT:rlang::is_installed",
    "rlang::is_installed(c(p))" = "PACKAGE_LOADER_ARGUMENT:rlang::is_installed",
    "rlang::is_installed('dplyr', 'tidyr')" = "PACKAGE_LOADER_ARGUMENT:rlang::is_installed",
    "rlang::check_installed('dplyr', action = f)" = "PACKAGE_LOADER_ARGUMENT:action",
    "rlang:::is_installed('brms')" = "PACKAGE_NOT_ALLOWED:brms"
  )
)

# The package of an example() call the relaxation reads (plain or utils::, not a string nor `:::`).
rule_table("example_package",
  allowed = c(
    "example('lm', package = 'stats')", "utils:::example('lm', package = 'evilpkg')",
    "'example'('lm', package = 'evilpkg')", "utils::'example'('lm', package = 'evilpkg')",
    "stats::example('lm', package = 'evilpkg')"
  ),
  refused = list(
    "example('lm', package = 'evilpkg')" = "PACKAGE_NOT_ALLOWED:evilpkg",
    "utils::example('lm', package = 'evilpkg')" = "PACKAGE_NOT_ALLOWED:evilpkg"
  )
)

rule_table("options",
  allowed = c(
    "options(digits = 3)", "options('digits')", "getOption('warn')",
    "options(warn = -1)", "options(warn = 0)", "options(warn = 1)", "old <- options(warn = 2L)",
    "op <- options(max.print = 25000)", "options(show.error.messages = FALSE, nwarnings = 10)"
  ),
  refused = list(
    "options(warn = 3)" = "OPTION_NOT_ALLOWED:warn",
    "options(warn = w)" = "OPTION_NOT_ALLOWED:warn",
    "options(warn = '1')" = "OPTION_NOT_ALLOWED:warn",
    "options(editor = 'vi', digits = 3)" = "OPTION_NOT_ALLOWED:editor",
    "options(list(error = quote(q())))" = "OPTION_NOT_ALLOWED:options",
    "'options'(editor = 'vi')" = "OPTION_NOT_ALLOWED:editor",
    "base::'options'(editor = 'vi')" = "OPTION_NOT_ALLOWED:editor"
  )
)

case("parser_agreement allows the same symbols in any order", {
  expect_identical(errors_of("y <- f(x)", "parser_agreement", list("x", "f", "y")), character())
})
case("parser_agreement refuses a different symbol list", {
  expect_identical(errors_of("y <- f(x)", "parser_agreement", list("f", "y")), "PARSER_DISAGREEMENT")
})
case("parser_agreement refuses a script tree-sitter could not parse (no symbol list)", {
  expect_identical(errors_of("y <- 1", "parser_agreement", NULL), "PARSER_DISAGREEMENT")
})
case("a script R cannot parse is a syntax error, and a disagreement when tree-sitter parsed it", {
  expect_identical(errors_of("x <- (", tree_sitter_symbols = NULL), "SYNTAX_ERROR")
  expect_identical(errors_of("x <- (", tree_sitter_symbols = list("x")), c("SYNTAX_ERROR", "PARSER_DISAGREEMENT"))
})
case("a syntax error points at R's line and column", {
  err <- runner$check_script(script_file("x <- 1\ny <- )"), policy, NULL)$errors[[1L]]
  expect_identical(c(err$line, err$column), c(2L, 6L))
})

case("every registered rule has a table here or in test-revalidate-values.R", {
  tested <- c(
    "forbidden_symbol", "blocked_operator", "namespace_package", "string_as_name", "package_loader", "package_query",
    "options", "example_package", "function_value", "replacement_call", "formula_string", "class_value", "s3_dispatch"
  )
  expect_identical(sort(c(names(runner$token_rules), names(runner$call_rules))), sort(tested))
})
case("all rules together: token findings in document order, then calls", {
  text <- "library(evilpkg)\nx <<- system('id')\noptions(warn = 5)"
  expect_identical(
    errors_of(text, tree_sitter_symbols = list("library", "evilpkg", "x", "system", "options", "warn")),
    c("BLOCKED_OPERATOR:<<-", "FORBIDDEN_SYMBOL:system", "PACKAGE_NOT_ALLOWED:evilpkg", "OPTION_NOT_ALLOWED:warn")
  )
})
case("an accepted script comes back parsed, with its source references", {
  checked <- runner$check_script(script_file("x <- 1\nprint(x)"), policy, list("x", "print", "x"))
  expect_identical(length(checked$errors), 0L)
  expect_identical(length(checked$exprs), 2L)
  expect_true(!is.null(attr(checked$exprs, "srcref")))
})
