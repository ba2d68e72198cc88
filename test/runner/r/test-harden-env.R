# harden-env.R: the real slot(), new() and getElement(), and the code checks of model.frame.default,
# numericDeriv and rlang's as_function, after harden_runtime() (this process keeps them).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
mask <- runner$make_mask(policy)
script_env <- new.env(parent = mask)
in_script <- function(text) eval(str2lang(text), script_env)
runner$harden_runtime(policy)

case("new() of an environment class the script defined is refused, whoever calls it", {
  in_script("A <- setClass('A', contains = 'environment')")
  expect_error(in_script("A()"), "new\\(\\) of an environment class is not available")
  expect_error(methods::new("A"), "new\\(\\) of an environment class is not available")
})
case("the real new('environment') is refused to the script, not to package code", {
  assign("real_new", methods::new, envir = script_env)
  expect_error(in_script("real_new('environment')"), "new\\(\\) of an environment class is not available")
  expect_true(is.environment(methods::new("environment")))
})
methods::setClass("H", representation(e = "environment"), where = globalenv())
assign("h", methods::new("H", e = asNamespace("stats")), envir = script_env)
case("base's getElement() and the real slot() refuse an outside environment to the script", {
  expect_error(in_script("getElement(h, 'e')"), "this slot: an environment outside")
  assign("real_slot", methods::slot, envir = script_env)
  expect_error(in_script("real_slot(h, 'e')"), "this slot: an environment outside")
})
case("...and return it to package code, whose class machinery needs it", {
  expect_true(is.environment(getElement(get("h", envir = script_env), "e")))
  methods::setClass("JubeHardenEnv", contains = "environment", where = globalenv())
  expect_identical(methods::slot(methods::new("H", e = globalenv()), "e"), globalenv())
})
case("ordinary S4 classes still work from the script", {
  in_script("setClass('P', representation(x = 'numeric'))")
  in_script("p <- new('P', x = 3)")
  expect_identical(in_script("p@x + getElement(p, 'x') + methods::slot(p, 'x')"), 9)
})

with_system <- function(formula) {
  formula[[3]] <- quote(system("id"))
  formula
}
case("model.frame.default refuses a formula naming a forbidden symbol, wherever it came from", {
  d <- data.frame(x = 1, y = 1)
  refused <- "'system' is not available in jube-r, not even inside a formula"
  expect_error(stats::model.frame(with_system(y ~ x), d), refused)
  expect_error(stats::lm(with_system(y ~ x), d), refused)
  expect_identical(round(coef(stats::lm(mpg ~ wt, mtcars))[[2]], 2), -5.34)
})
case("numericDeriv refuses an expression naming a forbidden symbol", {
  expect_error(stats::numericDeriv(quote(system("id")), character(0)), "'system' is not available in jube-r")
})
case("rlang's as_function refuses a lambda naming a forbidden symbol", {
  if (!requireNamespace("rlang", quietly = TRUE)) return(invisible())
  expect_error(rlang::as_function(with_system(~x)), "'system' is not available in jube-r, not even inside a lambda")
  expect_identical(rlang::as_function(~ .x + 1)(1), 2)
})
