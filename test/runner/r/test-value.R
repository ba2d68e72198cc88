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
case("a printed value says which caps shortened it: its JSON over the cap, max.print, the byte cap", {
  cut <- value_of(seq_len(500))
  expect_identical(cut$cuts, list("json", "valueBytes"))
  # A data frame whose JSON is over the cap, printed to R's max.print and within the bytes.
  frame <- value_of(data.frame(id = seq_len(5667)), bytes = 20000L)
  expect_identical(frame$kind, "printed")
  expect_true(grepl("omitted 4667 rows ]", frame$printed, fixed = TRUE))
  expect_identical(frame$truncated, TRUE)
  expect_identical(frame$cuts, list("json", "maxPrint"))
  # No faithful JSON at all (complex numbers): max.print alone.
  complex <- value_of(complex(real = seq_len(3000), imaginary = 1), bytes = 100000L)
  expect_identical(complex$cuts, list("maxPrint"))
  expect_identical(complex$truncated, TRUE)
  # Too large even to try as JSON (over 8 times the cap), judged by its shape.
  huge <- value_of(data.frame(x = seq_len(5000) + 0.5), bytes = 1000L)
  expect_identical(huge$cuts, list("json", "maxPrint", "valueBytes"))
  whole <- value_of(stats::lm(dist ~ speed, datasets::cars), bytes = 4000L)
  expect_identical(whole$truncated, FALSE)
  expect_true(is.null(whole$cuts))
})
case("truncate_bytes stays within its bytes, the dots included, below three too", {
  for (n in 0:8) expect_true(nchar(runner$truncate_bytes(strrep("\u00e9", 10), n), type = "bytes") <= n)
  expect_identical(runner$truncate_bytes("abcdef", 5L), "ab...")
  expect_identical(runner$truncate_bytes("abcdef", 2L), "ab")
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
