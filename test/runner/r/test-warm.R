# warm.R: the arguments of a warm runner and the lines it accepts on its pipe (the runner tier
# drives a real warm runner through Node: test/runner/warm.test.ts).
runner <- load_runner()

case("no --warm argument is a cold run", {
  expect_identical(runner$warm_args(character()), NULL)
})
case("--warm= names the packages to load, comma-separated, empty names dropped", {
  expect_identical(runner$warm_args("--warm=jsonlite,,dplyr"), list(packages = c("jsonlite", "dplyr")))
})
case("--warm= alone loads nothing", {
  expect_identical(runner$warm_args("--warm="), list(packages = character()))
})
case("warm_prepare loads the namespaces without attaching them, then says it is ready", {
  check(!("splines" %in% loadedNamespaces()), "splines was loaded before the case")
  said <- utils::capture.output(runner$warm_prepare(list(packages = c("splines", "not.a.package"))), type = "message")
  expect_identical(said, "jube-r warm: ready")
  expect_true("splines" %in% loadedNamespaces())
  expect_true(!("package:splines" %in% search()))
})

# warm_wait() reads stdin: feed it a file as stdin through a child Rscript.
wait_with <- function(lines, workdir = "/w") {
  input <- tempfile()
  writeLines(lines, input)
  # The warm part alone: warm_wait() needs nothing else of the runner.
  code <- sprintf("r <- new.env(parent = baseenv()); sys.source('%s', r); cat(r$warm_wait('%s'))",
    file.path(runner_dir, "R", "warm.R"), workdir
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
  expect_identical(got$status, NULL)
})
case("end of input ends the runner quietly", {
  got <- wait_with(character())
  expect_identical(got$out, character())
  expect_identical(got$status, NULL)
})
case("a run naming another workdir stops the runner", {
  got <- wait_with("run abc123 /elsewhere")
  expect_identical(got$status, 1L)
  expect_true(any(grepl("names another workdir", got$out, fixed = TRUE)))
})
case("any other line stops the runner", {
  got <- wait_with("hello")
  expect_identical(got$status, 1L)
  expect_true(any(grepl("unexpected line on the warm pipe", got$out, fixed = TRUE)))
})
