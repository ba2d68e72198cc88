# contained-forms.R: the call forms of Sys.getenv(), setwd() and sink() judged on R's parse data,
# with the messages the TypeScript validator gives (the shared table in test-relaxations.R runs
# more scripts through check_script).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
verdict_of <- function(text, name) {
  parsed <- runner$parse_script(script_file(text))
  runner$relaxed_call_verdict(parsed, which(parsed$tokens$text == name)[[1L]], name, policy)
}

case("literal reads, a directory to move to and an output sink are allowed", {
  allowed <- list(
    Sys.getenv = c(
      "Sys.getenv()", "Sys.getenv('NOT_CRAN')", "Sys.getenv(c('TZ', 'HOME'), unset = NA)",
      "Sys.getenv('X', 'fallback', TRUE)", "Sys.getenv(x = 'HOME', unset = Inf)"
    ),
    setwd = c("setwd(tempdir())", "setwd(old)", "setwd(dir = 'sub')", "setwd('..')"),
    sink = c(
      "sink()", "sink('log.txt')", "sink(zz, type = 'output')", "sink(print(tempfile()))",
      "sink(file = 'a.txt', append = TRUE, split = TRUE)", "sink(NULL)"
    )
  )
  for (name in names(allowed)) for (text in allowed[[name]]) expect_identical(verdict_of(text, name), TRUE)
})
problems <- list(
  c("Sys.getenv", "Sys.getenv(k)", "its x must be written literally, e.g. Sys.getenv"),
  c("Sys.getenv", "Sys.getenv(c('A', k))", "its x must be written literally"),
  c("Sys.getenv", "Sys.getenv('A', unset = u)", "its unset must be written literally"),
  c("Sys.getenv", "Sys.getenv('A', envir = e)", "takes only x, unset, names"),
  c("Sys.getenv", "Sys.getenv('A', '', TRUE, 1)", "takes at most 3 arguments"),
  c("Sys.getenv", "'A' |> Sys.getenv()", "written out"),
  c("Sys.getenv", "base::Sys.getenv('A')", "without pkg::"),
  c("setwd", "setwd('/')", "use a relative path, setwd\\(\"sub\"\\) or setwd\\(tempdir\\(\\)\\)"),
  c("setwd", "setwd('~/x')", "relative path"),
  c("setwd", "setwd()", "give it the directory"),
  c("setwd", "setwd(a, b)", "takes at most 1 arguments"),
  c("sink", "sink('/tmp/x')", "use a relative path, sink\\(\"out/log.txt\"\\)"),
  c("sink", "sink(con, type = 'message')", "only the output stream"),
  c("sink", "sink(con, FALSE, 'message')", "only the output stream"),
  c("sink", "sink(type = t)", "only the output stream"),
  c("sink", "f <- function(...) sink(...)", "written out")
)
for (problem in problems) {
  case(sprintf("%s is refused: %s", problem[[2L]], problem[[3L]]), {
    verdict <- verdict_of(problem[[2L]], problem[[1L]])
    check(is.character(verdict) && grepl(problem[[3L]], verdict), sprintf("got %s", deparse1(verdict)))
  })
}
