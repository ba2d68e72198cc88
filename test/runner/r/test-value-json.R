# value-json.R: the last value's JSON and its types, node by node (docs/api.md "Value encoding").
runner <- load_runner()
caps <- list(valueBytes = 200L)
notes <- character()
add_note <- function(note) notes[[length(notes) + 1L]] <<- note
value_of <- function(x, seconds = 2, bytes = caps$valueBytes) {
  runner$value_field(withVisible(x), list(valueBytes = bytes), seconds, add_note)
}
json_of <- function(x) as.character(value_of(x, bytes = 4000L)$json)
types_of <- function(x) as.character(value_of(x, bytes = 4000L)$types)

case("scalars, vectors, NULL and NA as JSON; the class is kept", {
  expect_identical(value_of(2)[c("kind", "class")], list(kind = "json", class = list("numeric")))
  expect_identical(json_of(2), "2")
  expect_identical(json_of(c(1.5, NA)), "[1.5,null]")
  expect_identical(json_of("a"), "\"a\"")
  expect_identical(json_of(NULL), "null")
  expect_identical(json_of(factor(c("x", "y"))), "[\"x\",\"y\"]")
  expect_identical(value_of(2)$types, NULL)
})
case("a factor keeps its levels, a Date and a POSIXct their class and zone, as ISO strings", {
  f <- factor(c("x", "y", "x"), levels = c("y", "x", "z"))
  expect_identical(types_of(f), "[{\"path\":\"\",\"class\":[\"factor\"],\"levels\":[\"y\",\"x\",\"z\"]}]")
  expect_identical(json_of(as.Date(c("2024-03-01", NA))), "[\"2024-03-01\",null]")
  expect_identical(types_of(as.Date("2024-03-01")), "[{\"path\":\"\",\"class\":[\"Date\"]}]")
  t <- as.POSIXct("2024-03-01 10:00:00", tz = "America/New_York")
  expect_identical(json_of(t), "\"2024-03-01T15:00:00Z\"")
  expect_identical(json_of(t + 0.25), "\"2024-03-01T15:00:00.250Z\"")
  expect_true(grepl("\"tzone\":\"America/New_York\"", types_of(t), fixed = TRUE))
})
case("a 1-d array keeps its names, a table its counts and dimnames", {
  expect_identical(json_of(tapply(c(1, 3, 10), c("a", "a", "b"), mean)), "{\"a\":2,\"b\":10}")
  expect_identical(json_of(table(c("p", "q", "p"))), "{\"p\":2,\"q\":1}")
  two <- table(cyl = c(4, 4, 6), gear = c(3, 4, 4))
  expect_identical(json_of(two), "{\"4\":{\"3\":1,\"4\":1},\"6\":{\"3\":0,\"4\":1}}")
  expect_identical(
    types_of(two),
    paste0(
      "[{\"path\":\"\",\"class\":[\"table\"],\"dims\":[{\"size\":2,\"name\":\"cyl\",\"labels\":[\"4\",\"6\"]},",
      "{\"size\":2,\"name\":\"gear\",\"labels\":[\"3\",\"4\"]}]}]"
    )
  )
})
case("inside a list, a named vector stays named and a table says where it is", {
  x <- list(fit = list(median = c(median = 23)), t = table(c("a", "b", "a")))
  expect_identical(json_of(x), "{\"fit\":{\"median\":{\"median\":23}},\"t\":{\"a\":2,\"b\":1}}")
  expect_true(grepl("\"path\":\"/t\",\"class\":[\"table\"]", types_of(x), fixed = TRUE))
  expect_true(grepl("\"path\":\"/a~1b\"", types_of(list(`a/b` = Sys.Date())), fixed = TRUE))
})
case("a data frame or tibble says its columns' classes", {
  df <- data.frame(n = 1:2, f = factor(c("u", "v")), d = as.Date(c("2024-01-02", NA)))
  expect_identical(json_of(df), "[{\"n\":1,\"f\":\"u\",\"d\":\"2024-01-02\"},{\"n\":2,\"f\":\"v\",\"d\":null}]")
  expect_identical(
    types_of(df),
    paste0(
      "[{\"path\":\"\",\"class\":[\"data.frame\"],\"columns\":[{\"name\":\"n\",\"class\":[\"integer\"]},",
      "{\"name\":\"f\",\"class\":[\"factor\"],\"levels\":[\"u\",\"v\"]},{\"name\":\"d\",\"class\":[\"Date\"]}]}]"
    )
  )
  tb <- structure(data.frame(a = 1), class = c("tbl_df", "tbl", "data.frame"))
  expect_true(grepl("\"class\":[\"tbl_df\",\"tbl\",\"data.frame\"]", types_of(tb), fixed = TRUE))
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
case("at its bounds: 32 levels and 1000 types entries are JSON, one more is printed", {
  nest <- function(k) {
    x <- 1
    for (i in seq_len(k)) x <- list(x)
    x
  }
  expect_identical(value_of(nest(32L), seconds = 30, bytes = 4000L)$kind, "json")
  expect_identical(value_of(nest(33L), seconds = 30, bytes = 4000L)$kind, "printed")
  dates <- function(n) lapply(seq_len(n), function(i) as.Date("2024-01-01"))
  # A generous time budget: this case is about the entry bound, not the encoder's deadline.
  expect_identical(value_of(dates(1000L), seconds = 30, bytes = 100000L)$kind, "json")
  expect_identical(value_of(dates(1001L), seconds = 30, bytes = 100000L)$kind, "printed")
})
