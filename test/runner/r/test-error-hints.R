# error-hints.R: a close name for an object not found, the package that exports a function.
runner <- load_runner()

case("an object not found close to a column or a variable gets a hint", {
  expect_identical(
    details_of("df <- data.frame(alpha = 1)\ndf$alpha + alhpa")$hints, list("did you mean `alpha` (a column of `df`)?")
  )
  expect_identical(details_of("total <- 1\ntotl + 1")$hints, list("did you mean `total`?"))
  # No name close to it: no "did you mean".
  expect_true(!any(grepl("did you mean", unlist(details_of("x <- 1\nzzz_unrelated + 1")$hints), fixed = TRUE)))
})
case("a function not exported from one package names the installed package that exports it", {
  hints <- runner$error_hints(
    "'fromJSON' is not an exported object from 'namespace:utils'", NULL, emptyenv(), NULL, c("utils", "jsonlite")
  )
  expect_identical(hints, "`fromJSON` is in jsonlite: call jsonlite::fromJSON(), or library(jsonlite) first")
  missing <- details_of("toJSON(1)", packages = c("stats", "jsonlite"))
  # Capped at caps$callBytes (40 here).
  expect_true(startsWith(missing$hints[[1L]], "`toJSON` is in jsonlit"))
})
