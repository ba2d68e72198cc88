# saved-options.R: options(op) restores `op` only when every binding of it is op <- options(...).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
problem_of <- function(text) runner$saved_options_problem(runner$parse_script(script_file(text)), "op", policy)

cases <- list(
  "op <- options(digits = 3)" = NULL,
  "op = base::options(digits = 3); op <- options()" = NULL,
  "options(scipen = 1) -> op" = NULL,
  "op <- list(a = 1)" = "`op` is also assigned something other than options(...)",
  "op <- options(); op[['digits']] <- 2" = "`op` is modified after it is saved",
  "op <- options(); names(op) <- 'x'" = "`op` is modified after it is saved",
  "op <- options(); g <- function(op) 1" = "`op` is also a function parameter",
  "for (op in 1) 1" = "`op` is also a loop variable",
  "x <- op" = "`op` is not assigned from options(...) in the script"
)
for (text in names(cases)) {
  case(sprintf("judges %s", text), expect_identical(problem_of(text), cases[[text]]))
}
case("inside_target follows an assignment's target down to the name", {
  parsed <- runner$parse_script(script_file("op$x[1] <- 2; y <- op"))
  ids <- parsed$tokens$parent[parsed$tokens$text == "op"]
  expect_identical(vapply(ids, function(id) runner$inside_target(parsed$pd, id), NA), c(TRUE, FALSE))
})
