# inputs.R: variables become R values, dataframes are read from the staged CSV files.
runner <- load_runner()

case("JSON values become R vectors: numbers double, arrays vectors, [] logical(0)", {
  expect_identical(runner$as_r_value(1L), 1)
  expect_identical(runner$as_r_value(list(1L, 2L)), c(1, 2))
  expect_identical(runner$as_r_value(list("a", "b")), c("a", "b"))
  expect_identical(runner$as_r_value(list()), logical(0))
  expect_identical(runner$as_r_value(TRUE), TRUE)
})
case("bind_inputs binds variables and dataframes by name", {
  workdir <- tempfile()
  dir.create(file.path(workdir, "data"), recursive = TRUE)
  writeLines(c("a,b", "1,x", "2,y"), file.path(workdir, "data", "0.csv"))
  input <- list(
    variables = list(list(name = "n", value = 3L), list(name = "tags", value = list("p", "q"))),
    dataframes = list(list(name = "sales", file = "data/0.csv"))
  )
  env <- new.env()
  runner$bind_inputs(env, input, workdir)
  expect_identical(env$n, 3)
  expect_identical(env$tags, c("p", "q"))
  expect_identical(env$sales, data.frame(a = c(1L, 2L), b = c("x", "y")))
})
