# The runner package (r-image/runner): its parts are the DESCRIPTION's Collate list, small, each
# with its own test file, defining distinct names and nothing else; runner.R loads them and runs a
# script end to end. That the package installs (DESCRIPTION, NAMESPACE and Collate agree) is
# test/runner/runner-package.test.ts's.
parts <- runner_parts()
part_files <- list.files(file.path(runner_dir, "R"), pattern = "[.]R$")
part_exprs <- function(part) as.list(parse(file.path(runner_dir, "R", part), keep.source = FALSE, encoding = "UTF-8"))

case("the parts are exactly the DESCRIPTION's Collate list, each once", {
  expect_identical(sort(parts), sort(part_files))
  expect_identical(anyDuplicated(parts), 0L)
})
for (part in part_files) {
  case(sprintf("%s stays under 200 lines", part), {
    n <- length(readLines(file.path(runner_dir, "R", part)))
    check(n < 200L, sprintf("%s has %d lines; split it by job", part, n))
  })
}
# Every top-level expression of a part is `name <- value`: loading a part defines, and does nothing else.
defined_names <- function(part) {
  vapply(part_exprs(part), function(e) {
    ok <- is.call(e) && identical(e[[1L]], as.name("<-")) && is.symbol(e[[2L]])
    check(ok, sprintf("%s: a top-level expression that is not `name <- value`: %s", part, deparse1(e)))
    as.character(e[[2L]])
  }, "")
}
for (part in part_files) {
  case(sprintf("%s's top level only defines names", part), defined_names(part))
}
case("no two parts define the same top-level name (they share one environment)", {
  defined <- unlist(lapply(parts, defined_names))
  expect_identical(defined[duplicated(defined)], character())
})
case("loading the parts runs nothing but definitions: no output, nothing attached, nothing in globalenv()", {
  clear_globalenv()
  attached <- search()
  options_before <- options()
  said <- character()
  out <- utils::capture.output(runner <- withCallingHandlers(
    load_runner(),
    message = function(m) said <<- c(said, conditionMessage(m)),
    warning = function(w) said <<- c(said, conditionMessage(w))
  ))
  expect_identical(c(out, said), character())
  expect_identical(search(), attached)
  expect_identical(ls(globalenv(), all.names = TRUE), character())
  expect_identical(options()[names(options_before)], options_before)
  expect_identical(environmentName(parent.env(runner)), "base")
  defined <- unlist(lapply(parts, defined_names))
  expect_identical(sort(ls(runner, all.names = TRUE)), sort(defined))
  expect_true(is.function(runner$main) && is.function(runner$load_seam))
})
# main.R reads stdin and the workdir: runner.R drives it below, and the runner tier
# (test/runner/*.test.ts) through the execute handler.
for (part in setdiff(part_files, "main.R")) {
  case(sprintf("%s has its own test file", part), {
    expect_true(file.exists(file.path(here, paste0("test-", part))))
  })
}

# runner.R on a workdir as the execute handler writes it (seam.json names its files), the nonce on
# stdin: what the process printed, and the envelope it left.
run_runner <- function(script, tree_sitter_symbols, nonce) {
  workdir <- tempfile("workdir")
  dir.create(workdir)
  writeLines(script, file.path(workdir, "script.R"))
  input <- list(
    timeoutSeconds = 10, deadlineSeconds = 12, allowedPackages = list("base", "stats"),
    treeSitterSymbols = tree_sitter_symbols, variables = list(), dataframes = list(),
    caps = list(
      errorBytes = 1000, warnings = 5, warningBytes = 1000, messages = 5, messageBytes = 1000, valueBytes = 1000,
      callBytes = 100, tracebackFrames = 5
    ),
    plots = NULL
  )
  jsonlite::write_json(input, file.path(workdir, "input.json"), auto_unbox = TRUE, null = "null")
  stdin <- tempfile()
  writeLines(nonce, stdin)
  out <- system2(
    file.path(R.home("bin"), "Rscript"), c("--vanilla", file.path(runner_dir, "runner.R"), workdir),
    stdin = stdin, stdout = TRUE, stderr = TRUE
  )
  envelope <- jsonlite::fromJSON(file.path(workdir, "envelope.json"), simplifyVector = FALSE)
  list(out = out, status = attr(out, "status"), envelope = envelope)
}
case("runner.R runs a script end to end: Rscript --vanilla runner.R WORKDIR, the nonce on stdin", {
  script <- "x <- c(2, 4)\ncat('mean', mean(x), '\\n')\nx * 10"
  run <- run_runner(script, list("c(", "cat(", "mean(", "x", "x", "x"), "n0nce-42")
  expect_identical(run$status, NULL)
  # What the script printed, autoprinting as R's console does; nothing of the runner's own.
  expect_identical(run$out, c("mean 3 ", "[1] 20 40"))
  expect_identical(run$envelope[c("nonce", "status", "error", "capsule")], list(
    nonce = "n0nce-42", status = "ok", error = NULL, capsule = "preload=off"
  ))
  expect_identical(run$envelope$value$json, list(20L, 40L))
})
case("runner.R refuses a script whose direct capability call R reads, and runs none of it", {
  run <- run_runner("cat('ran')\nsystem('id')", list("cat(", "system("), "n0nce-43")
  expect_identical(run$out, character())
  expect_identical(run$envelope[c("nonce", "status")], list(nonce = "n0nce-43", status = "rejected"))
  expect_identical(
    vapply(run$envelope$validation, function(e) paste0(e$code, ":", e$symbol, "@", e$line), ""),
    "CAPABILITY_NOT_AVAILABLE:system@2"
  )
})
