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
case("the context is bound as .context, read as jsonlite reads JSON for an R user", {
  json <- '{"n": 3, "tags": ["p", "q"], "rows": [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}], "opts": {"k": true}}'
  env <- new.env()
  runner$bind_inputs(env, list(variables = list(), dataframes = list(), contextJson = json), tempdir())
  expect_identical(env$.context$n, 3L)
  expect_identical(env$.context$tags, c("p", "q"))
  expect_identical(env$.context$rows, data.frame(x = c(1L, 2L), y = c("a", "b")))
  expect_identical(env$.context$opts, list(k = TRUE))
})
case("no context, no .context", {
  env <- new.env()
  runner$bind_inputs(env, list(variables = list(), dataframes = list()), tempdir())
  expect_identical(exists(".context", envir = env, inherits = FALSE), FALSE)
})
