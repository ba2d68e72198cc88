# parse.R: check_script(), the two checks made on R's reading of the script before anything runs:
# R and tree-sitter read the same symbols and calls (a called one listed as "name("), and no
# capability function is called directly.
runner <- load_runner()

# The scripts and tree-sitter's lists for them: test/runner/runner-r.test.ts holds every list to
# what layers/parser/symbol-inventory.ts gives for its script, so these are tree-sitter's own.
table <- jsonlite::fromJSON(file.path(here, "parse-cases.json"), simplifyVector = FALSE)
symbols_of <- function(c) as.character(unlist(c$symbols))

# R's own inventory of a script, as check_script compares it.
inventory_of <- function(text) runner$symbol_inventory(runner$parse_script(script_file(text))$tokens)
# The seam's advice for a capability function, by name.
capability_message <- function(name) {
  Filter(function(f) identical(f$name, name), runner$seam$capabilityFunctions)[[1L]]$message
}

for (c in table$inventories) {
  case(sprintf("R reads %s as tree-sitter does: %s", deparse1(c$script), deparse1(symbols_of(c))), {
    expect_identical(inventory_of(c$script), sort(symbols_of(c), method = "radix"))
    expect_identical(errors_of(c$script, c$symbols), character())
    # In whatever order tree-sitter lists them.
    expect_identical(errors_of(c$script, rev(c$symbols)), character())
  })
}
case("a call tree-sitter did not read as a call is a disagreement", {
  expect_identical(errors_of("f(1)", list("f")), "PARSER_DISAGREEMENT")
  expect_identical(errors_of("f(1)", list()), "PARSER_DISAGREEMENT")
  expect_identical(errors_of("x$m()", list("m", "x")), "PARSER_DISAGREEMENT")
})
case("a symbol more or fewer, or a repeat missing, is a disagreement", {
  expect_identical(errors_of("x + y", list("x")), "PARSER_DISAGREEMENT")
  expect_identical(errors_of("x", list("x", "y")), "PARSER_DISAGREEMENT")
  expect_identical(errors_of("x + x", list("x")), "PARSER_DISAGREEMENT")
})
case("a disagreement is reported at the start with the runner's words", {
  found <- runner$check_script(script_file("x"), list("y"))$errors
  expect_identical(found, list(list(
    code = "PARSER_DISAGREEMENT", message = "R's parser and tree-sitter read different symbols or calls in this script",
    line = 1L, column = 1L
  )))
})
case("an empty script, or one of comments only, agrees with an empty list and has nothing to run", {
  for (text in c("", "# nothing\n")) {
    checked <- runner$check_script(script_file(text), list())
    expect_identical(checked$errors, list())
    expect_identical(length(checked$exprs), 0L)
  }
})
case("a script R parses while tree-sitter found a syntax error (no list) is a disagreement", {
  found <- runner$check_script(script_file("x <- 1"), NULL)$errors
  expect_identical(found[[1L]]$code, "PARSER_DISAGREEMENT")
  expect_identical(found[[1L]]$message, "R parsed the script but tree-sitter reported a syntax error")
})
case("a syntax error is SYNTAX_ERROR at R's line and column, with nothing to run", {
  checked <- runner$check_script(script_file("x <- 1\ny <- (2 +\nz <- 3))"), NULL)
  expect_identical(checked$exprs, NULL)
  expect_identical(length(checked$errors), 1L)
  err <- checked$errors[[1L]]
  expect_identical(err[c("code", "line", "column")], list(code = "SYNTAX_ERROR", line = 3L, column = 8L))
  expect_true(startsWith(err$message, "R could not parse the script: "))
  expect_true(grepl("unexpected", err$message, fixed = TRUE))
})
case("a syntax error R finds where tree-sitter listed symbols is also a disagreement", {
  expect_identical(errors_of("x <- ", list("x")), c("SYNTAX_ERROR", "PARSER_DISAGREEMENT"))
  expect_identical(errors_of("x <- ", NULL), "SYNTAX_ERROR")
})

# Direct calls of capability functions (seam.json's capabilityFunctions), each with tree-sitter's
# list for the script, so that only the capability check speaks.
for (c in table$capabilityCalls) {
  what <- if (is.null(c$refused)) "is not a direct capability call" else "is refused with its capability's advice"
  case(sprintf("%s %s", deparse1(c$script), what), {
    found <- runner$check_script(script_file(c$script), c$symbols)$errors
    if (is.null(c$refused)) {
      expect_identical(found, list())
    } else {
      expect_identical(length(found), 1L)
      expect_identical(found[[1L]][c("code", "symbol")], list(code = "CAPABILITY_NOT_AVAILABLE", symbol = c$refused))
      expect_identical(found[[1L]]$message, capability_message(c$refused))
    }
  })
}
case("a capability call is reported where its name is written", {
  found <- runner$check_script(script_file("x <- 1\n  base::system('id')"), list("base", "system(", "x"))$errors
  expect_identical(found[[1L]][c("line", "column")], list(line = 2L, column = 9L))
})
case("a disagreement and a capability call are both reported", {
  expect_identical(errors_of("system('id')", list()), c("PARSER_DISAGREEMENT", "CAPABILITY_NOT_AVAILABLE:system"))
})
case("a seam without capability functions stops the check rather than finding none", {
  bare <- load_runner()
  rm("capabilityFunctions", envir = bare$seam)
  expect_error(bare$check_script(script_file("system('id')"), list("system(")), "lists no capability functions")
})
