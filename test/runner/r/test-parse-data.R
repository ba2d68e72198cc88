# parse-data.R: how the re-validation reads R's parse data.
runner <- load_runner()

case("strip_quotes removes matching quotes and backquotes only", {
  texts <- c("`a b`", "'x'", "\"y\"", "z", "'q\"", "`")
  expect_identical(runner$strip_quotes(texts), c("a b", "x", "y", "z", "'q\"", "`"))
})
case("strip_quotes decodes a backquoted name's escapes as R does; unquote keeps them as written", {
  expect_identical(runner$strip_quotes(c("`\\x73ystem`", "`sys\\164em`", "`a\\`b`")), c("system", "system", "a`b"))
  expect_identical(runner$unquote("`\\x73ystem`"), "\\x73ystem")
})
case("parse_script reads strings and backquoted names R's parse data misreports back from the source", {
  long <- sprintf("\"%s\"", strrep("a", 1200))
  text <- paste0("x <- 1\n\tf(\"\\56libPaths\", `\\56Call`, ", long, ", '\\7')")
  tokens <- runner$parse_script(script_file(text))$tokens
  strings <- tokens$text[tokens$token %in% c("STR_CONST", "SYMBOL")]
  expect_identical(strings, c("x", "\"\\56libPaths\"", "`\\56Call`", long, "'\\7'"))
})
case("string_value decodes escapes and raw strings", {
  expect_identical(runner$string_value("\"sys\\x74em\""), "system")
  expect_identical(runner$string_value("r\"(a\\b)\""), "a\\b")
  expect_identical(runner$string_value("'\\u0073ystem'"), "system")
})
case("parse_script lists terminal tokens in document order with their neighbours", {
  parsed <- runner$parse_script(script_file("x <- f(1)"))
  expect_identical(parsed$tokens$token, c("SYMBOL", "LEFT_ASSIGN", "SYMBOL_FUNCTION_CALL", "'('", "NUM_CONST", "')'"))
  expect_identical(parsed$previous_token[[3L]], "LEFT_ASSIGN")
  expect_identical(parsed$next_token[[3L]], "'('")
})
case("parse_script returns R's parse error instead of throwing", {
  expect_true(inherits(runner$parse_script(script_file("x <- ("))$error, "error"))
})
case("call_site reads named, positional, literal and empty arguments", {
  parsed <- runner$parse_script(script_file("library(dplyr, quietly = TRUE, 'x', f(y), warn = )"))
  args <- runner$call_site(parsed, 1L)$args
  expect_identical(vapply(args, function(a) if (is.null(a$name)) "" else a$name, ""), c("", "quietly", "", "", "warn"))
  expect_identical(vapply(args, function(a) a$token, ""), c("SYMBOL", "NUM_CONST", "STR_CONST", "expr", "empty"))
  expect_identical(args[[1L]]$text, "dplyr")
})
