# relaxations.R: the shared table (test/fixtures/relaxations/cases.json), decided by the
# re-validation exactly as the TypeScript validator decides it, then the helpers on their own.
runner <- load_runner()
# glmnet: the packages.internalFunctions cases need a package with listed internal functions.
policy <- runner$compile_policy(rules, c(test_packages, "glmnet"))
table_file <- file.path(repo_root, "test", "fixtures", "relaxations", "cases.json")
table <- jsonlite::fromJSON(table_file, simplifyVector = FALSE)
every_rule_but_agreement <- c(names(runner$token_rules), names(runner$call_rules))

errors_of <- function(text) {
  checked <- runner$check_script(script_file(text), policy, NULL, only = every_rule_but_agreement)
  sort(vapply(checked$errors, function(e) if (is.null(e$symbol)) e$code else paste0(e$code, ":", e$symbol), ""))
}

for (text in unlist(table$accepted)) {
  case(sprintf("accepts %s", deparse1(text)), expect_identical(errors_of(text), character()))
}
for (text in names(table$rejected)) {
  case(sprintf("rejects %s", deparse1(text)), expect_identical(errors_of(text), sort(unlist(table$rejected[[text]]))))
}

parsed_of <- function(text) runner$parse_script(script_file(text))
token_at <- function(parsed, text) which(parsed$tokens$text == text)[[1L]]

case("token_role reads bindings, parameters, argument names, calls and fields", {
  parsed <- parsed_of("x <- f(a = y); function(p) 1; for (i in 1) 1; z$w; 2 -> v")
  names <- c("x", "f", "a", "y", "p", "i", "w", "v")
  roles <- vapply(names, function(t) runner$token_role(parsed, token_at(parsed, t)), "")
  expected <- c("binding", "call", "argument-name", "reference", "parameter", "binding", "other", "binding")
  expect_identical(unname(roles), expected)
})
case("column_use tells operands from arguments and from neither", {
  parsed <- parsed_of("a == 1; -b; filter(d, c); f(e); filter(d, values_fn = g); with(d, h > 1)")
  uses <- lapply(c("a", "b", "c", "e", "g", "h"), function(t) runner$column_use(parsed, token_at(parsed, t), policy))
  expect_identical(uses, list("operand", "operand", "argument", NULL, NULL, NULL))
})
case("the column facts are computed once per script and set of receivers", {
  parsed <- parsed_of("count <- 1\ncount(d, x)")
  expect_identical(runner$column_use_withdrawn(parsed, "argument", policy, "count"), "the script defines `count`")
  expect_true(exists("withdrawn_argument:count", envir = parsed$memo, inherits = FALSE))
  expect_identical(runner$column_use_withdrawn(parsed, "operand", policy), NULL)
})
case("only the column functions receiving the name withdraw its use: the call, and a column set's verb", {
  parsed <- parsed_of("rank <- 1\nseparate(d, demo)\nselect(d, c(x, y))")
  expect_identical(runner$column_receivers(parsed, token_at(parsed, "demo"), policy), "separate")
  expect_identical(runner$column_receivers(parsed, token_at(parsed, "x"), policy), c("c", "select"))
  expect_identical(runner$column_use_withdrawn(parsed, "argument", policy, "separate"), NULL)
  expect_identical(runner$column_use_withdrawn(parsed, "argument", policy, "rank"), "the script defines `rank`")
})
case("callee_of names plain, backquoted, string and pkg:: calls, and nothing else", {
  parsed <- parsed_of("f(1); `g`(2); dplyr::h(3); (k)(4); 's\\x74ructure'(5); base::\"m\"(6)")
  calls <- parsed$pd$id[parsed$pd$token == "expr" & parsed$pd$parent == 0L]
  expect_identical(
    vapply(calls, function(id) runner$callee_of(parsed$pd, id), ""), c("f", "g", "h", "", "structure", "m")
  )
})
