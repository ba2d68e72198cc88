# envelope.R: the header, the fields in order, JSON null for NULL, and the atomic write.
runner <- load_runner()
read_back <- function(path) jsonlite::fromJSON(path, simplifyVector = FALSE)

case("cap_string keeps a short string and cuts a long one one character past the cap", {
  expect_identical(runner$cap_string("abc", 10L), "abc")
  expect_identical(runner$cap_string("abcdef", 3L), "abcd")
})
case("cap_string turns anything but one string into the empty string", {
  for (x in list(NULL, NA_character_, c("a", "b"), 1)) expect_identical(runner$cap_string(x, 10L), "")
})
case("write_envelope writes the header first, then the fields in order, NULL as null", {
  path <- tempfile(fileext = ".json")
  runner$write_envelope(path, runner$envelope_header("n0nce", "4.2.2"), list(status = "ok", error = NULL, n = 2L))
  expected <- '{"nonce":"n0nce","rVersion":"4.2.2","status":"ok","error":null,"n":2}'
  expect_identical(readLines(path), expected)
  expect_identical(file.exists(paste0(path, ".tmp")), FALSE)
})
case("a rejection is status rejected with the validation errors and nothing run", {
  fields <- runner$rejection_fields(list(list(code = "CAPABILITY_NOT_AVAILABLE")))
  expect_identical(names(fields), c("status", "error", "warnings", "timedOut", "validation"))
  path <- tempfile(fileext = ".json")
  runner$write_envelope(path, runner$envelope_header("n", "4"), fields)
  back <- read_back(path)
  expect_identical(back$status, "rejected")
  expect_identical(back$validation[[1L]]$code, "CAPABILITY_NOT_AVAILABLE")
  expect_identical(back$warnings, list())
})
