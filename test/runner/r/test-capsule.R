# capsule.R: arm_capsule(), the one-way switch thrown just before the script's first expression.
# Armed for real (preloaded, with the capability table in force) it is the runner tier's
# (test/runner/capsule/); here, what the runner does without one and with one it cannot arm.
runner <- load_runner()

case("no capsule library named: the report says preload=off and the script may run", {
  expect_identical(Sys.getenv("JUBE_R_CAPSULE_LIBRARY"), "")
  expect_identical(runner$arm_capsule(deadline = 10), "preload=off")
  expect_identical(runner$arm_capsule(deadline = 10, library_path = ""), "preload=off")
})

# The capsule `npm run setup` builds (or the one JUBE_R_CAPSULE_LIBRARY named), loaded late with
# dyn.load() rather than preloaded: it must refuse to arm, since it would interpose nothing. Its
# workdir is set, so the refusal is about the preload and nothing else.
check(file.exists(capsule_library), sprintf("no capsule at %s: run `npm run setup`", capsule_library))
Sys.setenv(JUBE_R_CAPSULE_WORKDIR = tempdir())

case("a capsule that was not preloaded is not armed: the error says why and that the script was not run", {
  refused <- tryCatch(runner$arm_capsule(deadline = 10, library_path = capsule_library), error = function(e) e)
  expect_true(inherits(refused, "jube_capsule_error"))
  expect_identical(refused$call, NULL)
  expect_true(grepl("^the capsule could not be armed \\(preload=unavailable\\(", conditionMessage(refused)))
  expect_true(grepl("the capsule was not preloaded: set LD_PRELOAD", conditionMessage(refused), fixed = TRUE))
  expect_true(endsWith(conditionMessage(refused), "; the script was not run"))
})
case("a run whose capsule cannot arm fails as the service's error, and none of the script runs", {
  Sys.setenv(JUBE_R_CAPSULE_LIBRARY = capsule_library)
  on.exit(Sys.unsetenv("JUBE_R_CAPSULE_LIBRARY"), add = TRUE)
  clear_globalenv()
  input <- list(
    timeoutSeconds = 5, deadlineSeconds = 8, caps = c(caps, valueBytes = 1000L), variables = list(),
    dataframes = list(), plots = NULL, allowedPackages = list()
  )
  exprs <- parse(text = "ran <- TRUE\ncat('the script ran')\n1", keep.source = TRUE)
  out <- utils::capture.output(fields <- runner$evaluate_script(exprs, input, tempdir()))
  expect_identical(
    fields[c("status", "timedOut", "errorType")], list(status = "error", timedOut = FALSE, errorType = "interpreter")
  )
  expect_true(grepl("the capsule could not be armed", fields$error, fixed = TRUE))
  expect_identical(fields$capsule, "not armed")
  expect_identical(fields$value, NULL)
  expect_identical(out, character())
  expect_identical(exists("ran", envir = globalenv()), FALSE)
})
