# Table tests for the R runner's parts, run without Node (lintr lists allowed and refused snippets
# the same way). Usage: Rscript --vanilla harness.R test-<part>.R
# Each case prints one JSON line {"name", "ok", "message"?}; test/runner/runner-r.test.ts runs every
# test file and reports each case. The runner's parts are loaded exactly as runner.R loads them.

args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
repo_root <- normalizePath(file.path(here, "..", "..", ".."))
runner_dir <- file.path(repo_root, "r-image", "runner")

# The part files runner.R evaluates, in its order: its string constants naming a .R file.
runner_parts <- function() {
  pd <- utils::getParseData(parse(file.path(runner_dir, "runner.R"), keep.source = TRUE))
  strings <- pd$text[pd$token == "STR_CONST"]
  sub("^\"(.*)\"$", "\\1", strings[grepl("^\"[a-z-]+[.]R\"$", strings)])
}

# A fresh runner environment (parent package:base), as runner.R builds it, without calling main().
load_runner <- function() {
  runner <- new.env(parent = baseenv())
  runner$runner_dir <- runner_dir
  for (part in runner_parts()) {
    for (expr in parse(file.path(runner_dir, part), keep.source = FALSE, encoding = "UTF-8")) eval(expr, runner)
  }
  runner
}

rules <- jsonlite::fromJSON(file.path(repo_root, "layers", "rules", "script-rules.json"), simplifyVector = FALSE)
test_packages <- c(unlist(rules$packages$baseAllowed), "dplyr", "data.table", "jsonlite")

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

# The evaluation loop's shape (evaluate.R), down to the literal eval(expr, script_env) call: the
# error details the runner reads for a script that stops.
details_of <- function(text, packages = character(), runner = get("runner", envir = parent.frame())) {
  force(runner)
  exprs <- parse(text = text, keep.source = TRUE)
  script_env <- new.env(parent = globalenv())
  current <- 0L
  details <- NULL
  tryCatch(
    withCallingHandlers(
      for (i in seq_along(exprs)) {
        current <- i
        expr <- exprs[[i]]
        eval(expr, script_env)
      },
      error = function(e) details <<- runner$error_details(e, sys.calls(), exprs, current, caps, script_env, packages)
    ),
    error = function(e) NULL
  )
  details
}

# What the runtime tests start from, as the runner builds it for a script (without main()): the
# runner's parts, the policy for `packages`, the mask and the script's environment under it, bound
# in the test file's environment with in_script(), which evaluates one expression as the script would.
use_script_sandbox <- function(packages = test_packages, envir = parent.frame()) {
  runner <- load_runner()
  policy <- runner$compile_policy(rules, packages)
  mask <- runner$make_mask(policy)
  script_env <- new.env(parent = mask)
  in_script <- function(text) eval(str2lang(text), script_env)
  list2env(list(runner = runner, policy = policy, mask = mask, script_env = script_env, in_script = in_script), envir)
  invisible(NULL)
}

# "CODE:symbol" (or "CODE") for each error check_script reports on `text`, in the runner's order, with the
# `runner` and `policy` of the test file (`env`).
errors_of <- function(text, only = NULL, tree_sitter_symbols = list(), env = parent.frame()) {
  checked <- env$runner$check_script(script_file(text), env$policy, tree_sitter_symbols, only = only)
  vapply(checked$errors, function(e) if (is.null(e$symbol)) e$code else paste0(e$code, ":", e$symbol), "")
}

# A rule's table: every allowed text gets no error from `rule`, every refused one exactly its errors.
rule_table <- function(rule, allowed, refused, env = parent.frame()) {
  for (text in allowed) {
    case(sprintf("%s allows %s", rule, text), expect_identical(errors_of(text, rule, env = env), character()))
  }
  for (text in names(refused)) {
    case(sprintf("%s refuses %s", rule, text), expect_identical(errors_of(text, rule, env = env), refused[[text]]))
  }
}

# A script's text as the file the runner reads.
script_file <- function(text) {
  path <- tempfile(fileext = ".R")
  writeLines(text, path, useBytes = TRUE)
  path
}

# Not sys.source(): it turns keep.parse.data off while it runs, and the re-validation needs R's parse data.
test_env <- new.env(parent = globalenv())
for (expr in parse(file.path(here, args[[1L]]), keep.source = FALSE, encoding = "UTF-8")) eval(expr, test_env)
for (result in results) cat(jsonlite::toJSON(result, auto_unbox = TRUE), "\n", sep = "")
