# Table tests for the R runner's parts, run without Node. Usage: Rscript --vanilla harness.R test-<part>.R
# Each case prints one JSON line {"name", "ok", "message"?}; test/runner/runner-r.test.ts runs every
# test file and reports each case. The runner is loaded exactly as runner.R loads it: the files of
# r-image/runner/R in the DESCRIPTION's Collate order, evaluated into one environment whose parent
# is package:base, then load_seam(seam.json).
#
# Everything here lives in this local() and the test file's environment under it, never in
# globalenv(): the runner evaluates a script in globalenv(), as R's console does, so a script the
# tests run can bind any name without reaching the harness.
local({
  args <- commandArgs(trailingOnly = TRUE)
  here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
  repo_root <- normalizePath(file.path(here, "..", "..", ".."))
  runner_dir <- file.path(repo_root, "r-image", "runner")

  # The runner's tests run without a capsule (arm_capsule() then answers "preload=off");
  # test-capsule.R hands one over explicitly: the library the environment names, else the build's.
  capsule_library <- Sys.getenv("JUBE_R_CAPSULE_LIBRARY", file.path(repo_root, "build", "capsule", "jube_capsule.so"))
  Sys.unsetenv("JUBE_R_CAPSULE_LIBRARY")

  # The part files, in the order runner.R evaluates them: the DESCRIPTION's Collate field.
  runner_parts <- function() {
    collate <- read.dcf(file.path(runner_dir, "DESCRIPTION"), fields = "Collate")[1L, 1L]
    gsub("['\"]", "", strsplit(trimws(collate), "[[:space:]]+")[[1L]])
  }

  # A fresh runner environment (parent package:base) with its seam, as runner.R builds it, without
  # calling main().
  load_runner <- function() {
    runner <- new.env(parent = baseenv())
    for (part in runner_parts()) {
      for (expr in parse(file.path(runner_dir, "R", part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
    }
    runner$load_seam(file.path(runner_dir, "seam.json"))
    runner
  }

  results <- list()
  case <- function(name, expr) {
    failure <- tryCatch({
      force(expr)
      NULL
    }, error = function(e) conditionMessage(e))
    result <- list(name = name, ok = is.null(failure))
    if (!is.null(failure)) result$message <- failure
    results[[length(results) + 1L]] <<- result
  }

  check <- function(ok, message) if (!isTRUE(ok)) stop(message, call. = FALSE)
  expect_true <- function(x) check(x, sprintf("expected TRUE, got %s", deparse1(x)))
  expect_identical <- function(actual, expected) {
    check(identical(actual, expected), sprintf("expected %s, got %s", deparse1(expected), deparse1(actual)))
  }
  expect_error <- function(expr, pattern) {
    message <- tryCatch({
      force(expr)
      NULL
    }, error = function(e) conditionMessage(e))
    check(!is.null(message), sprintf("expected an error matching '%s', got none", pattern))
    check(grepl(pattern, message), sprintf("expected an error matching '%s', got '%s'", pattern, message))
  }

  # The caps the condition tests (conditions, error-cause, error-hints) read errors under.
  caps <- list(
    errorBytes = 200L, warnings = 2L, warningBytes = 1000L, messages = 3L, messageBytes = 1000L, callBytes = 40L,
    tracebackFrames = 3L
  )

  # globalenv() as a fresh Rscript starts it: each script a test runs there starts from nothing.
  clear_globalenv <- function() rm(list = ls(globalenv(), all.names = TRUE), envir = globalenv())

  # The evaluation loop's shape (evaluate.R), down to the literal withVisible(eval(exprs[[i]],
  # script_env)) call in globalenv() that conditions.R's top_level_call recognises: the error
  # details the runner reads for a script that stops.
  details_of <- function(text, packages = character(), runner = get("runner", envir = parent.frame())) {
    force(runner)
    clear_globalenv()
    exprs <- parse(text = text, keep.source = TRUE)
    script_env <- globalenv()
    current <- 0L
    details <- NULL
    tryCatch(
      withCallingHandlers(
        for (i in seq_along(exprs)) {
          current <- i
          withVisible(eval(exprs[[i]], script_env))
        },
        error = function(e) details <<- runner$error_details(e, sys.calls(), exprs, current, caps, script_env, packages)
      ),
      error = function(e) NULL
    )
    details
  }

  # A script's text as the file the runner reads.
  script_file <- function(text) {
    path <- tempfile(fileext = ".R")
    writeLines(text, path, useBytes = TRUE)
    path
  }

  # "CODE:symbol" (or "CODE") for each finding check_script reports on `text`, in the runner's
  # order, given tree-sitter's inventory (NULL: tree-sitter found a syntax error).
  errors_of <- function(text, tree_sitter_symbols = list(), runner = get("runner", envir = parent.frame())) {
    checked <- runner$check_script(script_file(text), tree_sitter_symbols)
    vapply(checked$errors, function(e) if (is.null(e$symbol)) e$code else paste0(e$code, ":", e$symbol), "")
  }

  # Not sys.source(): it turns keep.parse.data off while it runs, and check_script needs R's parse data.
  test_env <- new.env(parent = environment())
  for (expr in parse(file.path(here, args[[1L]]), keep.source = FALSE, encoding = "UTF-8")) eval(expr, test_env)
  for (result in results) cat(jsonlite::toJSON(result, auto_unbox = TRUE), "\n", sep = "")
})
invisible(NULL)
