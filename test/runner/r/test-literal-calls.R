# literal-calls.R: do.call()/match.fun() naming a function literally and local() with one block,
# each judged on its own (the shared table in test-relaxations.R runs them through check_script).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
verdict_of <- function(text, name) {
  parsed <- runner$parse_script(script_file(text))
  runner$relaxed_call_verdict(parsed, which(parsed$tokens$text == name)[[1L]], name, policy)
}

case("a literal, ordinary function name is allowed, as a symbol or a string, by position or by name", {
  allowed <- c("do.call(rbind, x)", "do.call('rbind', x)", "do.call(args = x, what = rbind)", "do.call(rbind, x, TRUE)")
  for (text in allowed) {
    expect_identical(verdict_of(text, "do.call"), TRUE)
  }
  expect_identical(verdict_of("match.fun('mean')", "match.fun"), TRUE)
  expect_identical(verdict_of("local({ 1 })", "local"), TRUE)
})
problems <- list(
  "do.call(f(), x)" = "must name its function literally",
  "do.call('<<-', x)" = "must name an ordinary function",
  "do.call('if', x)" = "must name an ordinary function",
  "do.call(eval, x)" = "`eval` is forbidden",
  "do.call(sapply, x)" = "call sapply\\(\\) directly",
  "do.call(rbind, x, envir = e)" = "takes only what, args, quote",
  "do.call(rbind, x, FALSE, e)" = "takes only what, args, quote",
  "do.call(...)" = "given its arguments explicitly",
  "x |> do.call(rbind)" = "a pipe would hand do.call\\(\\) its function",
  "base::do.call(rbind, x)" = "without pkg::"
)
for (text in names(problems)) {
  case(sprintf("do.call refuses %s", text), {
    verdict <- verdict_of(text, "do.call")
    expect_true(is.character(verdict) && grepl(problems[[text]], verdict))
  })
}
case("local refuses a second argument, a named envir and a pipe", {
  for (text in c("local(1, e)", "local(1, envir = e)", "e |> local()")) {
    expect_true(grepl("one block", verdict_of(text, "local")))
  }
})
case("a forbidden function that has no relaxation gets none", expect_identical(verdict_of("eval(1)", "eval"), NULL))
