# runner.R and its parts: what is loaded, and that the parts stay small and do not collide.
parts <- runner_parts()
part_files <- setdiff(list.files(runner_dir, pattern = "[.]R$"), "runner.R")

case("runner.R loads every part in the directory", expect_identical(sort(parts), sort(part_files)))
for (part in part_files) {
  case(sprintf("%s stays under 200 lines", part), {
    n <- length(readLines(file.path(runner_dir, part)))
    check(n < 200L, sprintf("%s has %d lines; split it by job", part, n))
  })
}
case("no two parts define the same top-level name (they share one environment)", {
  defined <- unlist(lapply(parts, function(part) {
    exprs <- parse(file.path(runner_dir, part), keep.source = FALSE)
    assignments <- Filter(function(e) is.call(e) && identical(e[[1L]], as.name("<-")), as.list(exprs))
    vapply(assignments, function(e) as.character(e[[2L]]), "")
  }))
  expect_identical(defined[duplicated(defined)], character())
})
case("loading the parts runs nothing but definitions", {
  runner <- load_runner()
  expect_identical(environmentName(parent.env(runner)), "base")
  expect_true(is.function(runner$main))
})
# main.R reads stdin and the workdir: the runner tier (test/runner/*.test.ts) drives it through Node.
for (part in setdiff(part_files, "main.R")) {
  case(sprintf("%s has its own test file", part), {
    expect_true(file.exists(file.path(here, paste0("test-", part))))
  })
}
