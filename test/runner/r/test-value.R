# value.R: the last value as JSON where it maps onto JSON, else its printed form and class.
runner <- load_runner()
caps <- list(valueBytes = 200L)
notes <- character()
add_note <- function(note) notes[[length(notes) + 1L]] <<- note
value_of <- function(x, seconds = 2) runner$value_field(withVisible(x), caps, seconds, add_note)
json_of <- function(x) as.character(value_of(x)$json)

case("scalars, vectors, NULL and NA as JSON; the class is kept", {
  expect_identical(value_of(2)[c("kind", "class")], list(kind = "json", class = list("numeric")))
  expect_identical(json_of(2), "2")
  expect_identical(json_of(c(1.5, NA)), "[1.5,null]")
  expect_identical(json_of("a"), "\"a\"")
  expect_identical(json_of(NULL), "null")
  expect_identical(json_of(factor(c("x", "y"))), "[\"x\",\"y\"]")
})
case("named vectors and plain lists become objects", {
  expect_identical(json_of(c(a = 1, b = 2)), "{\"a\":1,\"b\":2}")
  expect_identical(json_of(list(n = 1L, tags = c("p", "q"))), "{\"n\":1,\"tags\":[\"p\",\"q\"]}")
})
case("data frames are records; a matrix with column names too, row names as _row", {
  expect_identical(json_of(data.frame(x = 1:2, y = c("a", "b"))), "[{\"x\":1,\"y\":\"a\"},{\"x\":2,\"y\":\"b\"}]")
  m <- matrix(c(1, 2), nrow = 1L, dimnames = list("slope", c("estimate", "se")))
  expect_identical(json_of(m), "[{\"estimate\":1,\"se\":2,\"_row\":\"slope\"}]")
  expect_identical(json_of(matrix(1:4, 2L)), "[[1,3],[2,4]]")
})
case("a model is not JSON: its printed form and class", {
  value <- value_of(stats::lm(dist ~ speed, datasets::cars))
  expect_identical(value$kind, "printed")
  expect_identical(value$class, list("lm"))
  expect_true(grepl("Coefficients", value$printed, fixed = TRUE))
  expect_identical(value$truncated, FALSE)
})
case("functions and environments are printed, not converted", {
  expect_identical(value_of(function(x) x)$kind, "printed")
  expect_identical(value_of(new.env())$kind, "printed")
})
case("a value over the cap falls back to its printed form, cut and marked", {
  value <- value_of(seq_len(500))
  expect_identical(value$kind, "printed")
  expect_identical(nchar(value$printed, type = "bytes"), 200L)
  expect_identical(value$truncated, TRUE)
})
case("a plot object is labelled, not drawn again", {
  before <- grDevices::dev.cur()
  value <- value_of(structure(list(), class = c("gg", "ggplot")))
  expect_identical(value$printed, "<gg object: printing it draws a plot>")
  expect_identical(grDevices::dev.cur(), before)
})
case("a print method that fails leaves no value and a note", {
  notes <- character()
  print.jube_broken <- function(x, ...) stop("cannot print")
  registerS3method("print", "jube_broken", print.jube_broken)
  expect_identical(value_of(structure(1, class = "jube_broken")), NULL)
  expect_identical(notes, "the last value could not be converted: cannot print")
})
case("no time left, no conversion", {
  notes <- character()
  expect_identical(value_of(1, seconds = 0), NULL)
  expect_true(grepl("time limit", notes[[1L]], fixed = TRUE))
})
case("no expression, no value", {
  expect_identical(runner$value_field(NULL, caps, 2, add_note), NULL)
})
