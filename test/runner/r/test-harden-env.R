# harden-env.R: the real slot(), new() and getElement(), and the code checks of model.frame.default,
# numericDeriv and rlang's as_function, after harden_runtime() (this process keeps them).
use_script_sandbox()
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

case("formula() evaluates no call but `~` (it did so in stats' own frame)", {
  in_script("q <- quote(I(1))")
  in_script("q[[1]] <- as.name(paste0('new', '.env'))")
  expect_error(in_script("formula(q)"), "formula\\(\\) of a call other than `~` is not available")
  expect_error(in_script("formula(list(formula = q))"), "formula\\(\\) of a call other than `~` is not available")
  expect_error(stats::formula(list(formula = with_system(y ~ x)[[3]])), "formula\\(\\) of a call other than `~`")
})
case("...and a formula it makes there gets the script's environment", {
  f <- in_script("formula(list(formula = quote(y ~ x)))")
  expect_true(runner$is_contained(attr(f, ".Environment")))
  expect_identical(in_script("deparse(formula(quote(y ~ x)))"), "y ~ x")
})
case("rlang's eval_tidy refuses code naming a forbidden symbol, not a column selected with $", {
  if (!requireNamespace("rlang", quietly = TRUE)) return(invisible())
  expect_error(rlang::eval_tidy(quote(system("id"))), "'system' is not available in jube-r, not even inside")
  expect_identical(rlang::eval_tidy(quote(.data$source), data.frame(source = 1)), 1)
})
