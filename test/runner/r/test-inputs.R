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
bind_context <- function(json, encoding) {
  env <- new.env()
  input <- list(variables = list(), dataframes = list(), contextJson = json, contextEncoding = encoding)
  runner$bind_inputs(env, input, tempdir())
  env$.context
}
case("r-json: a Date, a factor, a whole double, a list of records and NA come back as they were sent", {
  sent <- list(
    day = as.Date("2024-03-01"), group = factor(c("b", "a"), levels = c("b", "a", "c")), whole = 3,
    rows = data.frame(x = c(1.5, 2), y = c("p", NA)), missing = NA,
    when = as.POSIXct(0, tz = "UTC", origin = "1970-01-01"),
    counts = table(c("u", "v", "u")), m = matrix(1:4, 2L, dimnames = list(c("r1", "r2"), NULL)), none = NULL,
    specials = c(NA, NaN, Inf, -Inf, 0.1)
  )
  got <- bind_context(as.character(jsonlite::serializeJSON(sent, digits = NA)), "r-json")
  expect_identical(got, sent)
})
case("json (the default): the same context loses those types, as documented", {
  got <- bind_context('{"day": "2024-03-01", "whole": 3, "missing": null, "rows": [{"x": 1}]}', "json")
  expect_identical(got, list(day = "2024-03-01", whole = 3L, missing = NULL, rows = data.frame(x = 1L)))
})
case("r-json: a closure, a call, a symbol, an environment or an unknown class is refused, never built", {
  refused <- function(x) {
    expect_error(bind_context(as.character(jsonlite::serializeJSON(x)), "r-json"), "CONTEXT_NOT_DATA")
  }
  refused(list(f = function(x) x))
  refused(list(q = quote(system("id"))))
  refused(list(s = as.name("x")))
  refused(list(e = globalenv()))
  refused(list(k = structure(1, class = "lm")))
  refused(list(a = structure(1, srcref = 1L)))
  expect_error(bind_context('{"type": "closure", "attributes": {}, "value": []}', "r-json"), "CONTEXT_NOT_DATA")
  expect_error(bind_context('{"type":"list","value":[{"type":"integer","value":[1.5]}]}', "r-json"), "CONTEXT_NOT_DATA")
  deep <- '{"type":"NULL"}'
  for (i in 1:70) deep <- sprintf('{"type":"list","value":[%s]}', deep)
  expect_error(bind_context(deep, "r-json"), "nests deeper")
})
