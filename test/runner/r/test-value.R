# value.R: the last value as JSON where it maps onto JSON, else its printed form and class.
runner <- load_runner()
caps <- list(valueBytes = 200L)
notes <- character()
add_note <- function(note) notes[[length(notes) + 1L]] <<- note
value_of <- function(x, seconds = 2, bytes = caps$valueBytes) {
  runner$value_field(withVisible(x), list(valueBytes = bytes), seconds, add_note)
}
json_of <- function(x) as.character(value_of(x, bytes = 4000L)$json)
types_of <- function(x) as.character(value_of(x, bytes = 4000L)$types)

case("names that cannot be JSON keys, list columns and nesting past the bound are printed", {
  expect_identical(value_of(c(a = 1, a = 2))$kind, "printed")
  expect_identical(value_of(list(a = 1, 2))$kind, "printed")
  df <- data.frame(id = 1:2)
  df$l <- list(1, 2)
  expect_identical(value_of(df)$kind, "printed")
  deep <- 1
  for (i in 1:40) deep <- list(deep)
  expect_identical(value_of(deep)$kind, "printed")
  expect_identical(value_of(1i)$kind, "printed")
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
  # The JSON alone (105 bytes) would fit; with its types (the levels again) it does not.
  expect_identical(value_of(factor(letters), bytes = 150L)$kind, "printed")
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
