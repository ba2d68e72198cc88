# warm.R: the arguments of a warm runner and the lines it accepts on its pipe (the runner tier
# drives a real warm runner through Node: test/runner/warm.test.ts).
runner <- load_runner()

case("no --warm argument is a cold run", {
  expect_identical(runner$warm_args(character()), NULL)
})
case("--warm= names the packages to load, comma-separated, empty names dropped", {
  warm <- runner$warm_args(c("--warm=jsonlite,,dplyr", "--warm-allowed=base,dplyr"))
  expect_identical(warm$packages, c("jsonlite", "dplyr"))
  expect_identical(warm$allowed, c("base", "dplyr"))
  expect_true(warm$hardened)
})
case("a request must repeat the allowed packages and the containment the runner was made for", {
  warm <- runner$warm_args(c("--warm=", "--warm-allowed=base,dplyr"))
  expect_true(runner$warm_matches(warm, list(allowedPackages = list("base", "dplyr"))))
  expect_true(!runner$warm_matches(warm, list(allowedPackages = list("base"))))
  expect_true(!runner$warm_matches(warm, list(allowedPackages = list("base", "dplyr"), testEscaped = TRUE)))
})
case("--warm= alone loads nothing; --warm-escaped skips the hardening", {
  warm <- runner$warm_args(c("--warm=", "--warm-escaped"))
  expect_identical(warm$packages, character())
  expect_true(!warm$hardened)
})

# warm_wait() reads stdin: feed it a file as stdin through a child Rscript.
wait_with <- function(lines, workdir = "/w") {
  input <- tempfile()
  writeLines(lines, input)
  # The warm part alone: warm_wait() needs nothing else of the runner.
  code <- sprintf("r <- new.env(parent = baseenv()); sys.source('%s', r); cat(r$warm_wait('%s'))",
    file.path(runner_dir, "warm.R"), workdir
  )
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", "-e", shQuote(code)),
    stdin = input, stdout = TRUE, stderr = TRUE
  ))
  list(out = out, status = attr(out, "status"))
}
case("ping is answered with pong, then run hands over the nonce", {
  got <- wait_with(c("ping", "run abc123 /w"))
  expect_true("jube-r warm: pong" %in% got$out)
  expect_true(any(grepl("abc123$", got$out)))
})
case("a run naming another workdir stops the runner", {
  got <- wait_with("run abc123 /elsewhere")
  expect_identical(got$status, 1L)
})
case("any other line stops the runner", {
  got <- wait_with("hello")
  expect_identical(got$status, 1L)
})
