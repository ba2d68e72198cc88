# seam.R: the runner reads the workdir's names and input.json's shape from seam.json, which
# layers/contract/runner.ts generates; seam-input-cases.json is the table the TypeScript schema
# is held to as well (test/unit/execute/runner-seam.test.ts), so both sides accept the same inputs.
runner <- load_runner()
table <- jsonlite::fromJSON(file.path(here, "seam-input-cases.json"), simplifyVector = FALSE)

for (c in table$cases) {
  case(sprintf("input.json: %s is %s", c$name, if (isTRUE(c$ok)) "accepted" else "refused"), {
    input <- table$valid
    for (key in names(c$change)) input[key] <- list(c$change[[key]])
    if (!is.null(c$remove)) input[[c$remove]] <- NULL
    # Through JSON and back, as the runner reads the handler's file.
    input <- jsonlite::fromJSON(jsonlite::toJSON(input, auto_unbox = TRUE, null = "null"), simplifyVector = FALSE)
    problems <- runner$input_problems(input)
    if (isTRUE(c$ok)) {
      expect_identical(problems, character())
    } else {
      check(length(problems) > 0L, "expected a problem, got none")
    }
  })
}

case("check_input stops on a bad input, naming the field", {
  expect_error(runner$check_input(list(timeoutSeconds = 1)), "missing field 'deadlineSeconds'")
  expect_identical(runner$check_input(table$valid), table$valid)
})

case("workdir files come from seam.json", {
  expect_identical(runner$workdir_file("/w", "envelope"), file.path("/w", "envelope.json"))
  expect_identical(runner$plot_directory("/w"), file.path("/w", ".jube/plots"))
  expect_error(runner$workdir_file("/w", "nope"), "names no workdir file")
})

case("a seam without a key stops where the key is read, never meaning \"none\"", {
  bare <- load_runner()
  rm("files", envir = bare$seam)
  expect_error(bare$workdir_file("/w", "envelope"), "names no workdir file 'envelope'")
})
