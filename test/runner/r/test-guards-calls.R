# guards-calls.R: what the script hands an evaluator, and the registry behind the mask, `::` and
# match.fun().
use_script_sandbox(c(test_packages, "purrr"))
outside <- function(formula) {
  environment(formula) <- asNamespace("stats")
  formula
}
assign("outside_env", asNamespace("stats"), envir = script_env)
assign("outside_formula", outside(y ~ x), envir = script_env)
assign("d", data.frame(x = 1:3, y = c(2, 4, 6)), envir = script_env)

case("with() and within() refuse an environment that is not the script's", {
  expect_error(in_script("with(outside_env, 1)"), "with\\(data = \\): an environment outside")
  expect_error(in_script("within(outside_env, x <- 1)"), "within\\(data = \\): an environment outside")
})
case("with() still takes a data frame and the script's own environments", {
  expect_identical(in_script("with(d, sum(x))"), 6L)
  in_script("e <- new.env()")
  in_script("e$v <- 2")
  expect_identical(in_script("with(e, v * 2)"), 4)
})
case("model.frame() refuses a formula whose environment is a package's, and such data", {
  expect_error(in_script("model.frame(outside_formula, d)"), "the formula's environment: an environment outside")
  expect_error(in_script("model.frame(y ~ x, data = outside_env)"), "model.frame\\(data = \\): an environment outside")
  expect_identical(nrow(in_script("model.frame(y ~ x, d)")), 3L)
})
case("model.frame() refuses a formula naming a forbidden symbol", {
  in_script("f <- y ~ x")
  in_script("f[[3]] <- quote(s('id'))")
  in_script("f[[3]][[1]] <- as.name(paste0('sys', 'tem'))")
  expect_error(in_script("model.frame(f, d)"), "'system' is not available in jube-r, not even inside a formula")
})
case("a column named like a forbidden function is data, in a formula and in tidy evaluation", {
  assign("visits", data.frame(url = c("/a", "/b", "/a"), seconds = c(3, 5, 7)), envir = script_env)
  expect_identical(nrow(in_script("model.frame(seconds ~ url, data = visits)")), 3L)
  expect_identical(runner$refuse_forbidden_code(quote(url == "/a"), "x", data.frame(url = 1), NULL), NULL)
  # Read through the script's environment, the name is the mask's stub: no function is reached.
  expect_identical(runner$refuse_forbidden_code(quote(url == "/a"), "x", NULL, script_env), NULL)
})
case("a forbidden name is still refused when it is called, or reaches a real function", {
  expect_error(runner$refuse_forbidden_code(quote(url("x")), "x", data.frame(url = 1), script_env), "'url' is not")
  expect_error(runner$refuse_forbidden_code(quote(f(url)), "x", NULL, baseenv()), "'url' is not")
  expect_error(runner$refuse_forbidden_code(quote(f(url)), "x", NULL, NULL), "'url' is not")
  expect_error(runner$refuse_forbidden_code(quote(a <<- 1), "x", data.frame(a = 1), script_env), "'<<-' is not")
})
case("the names code looks up: a field selected with $ or @ is not one", {
  expect_identical(unique(runner$code_names(quote(f(.data$source, x@slot, y)))), c("f", "$", ".data", "@", "x", "y"))
  expect_identical(runner$refuse_forbidden_code(quote(.data$source + 1), "x"), NULL)
  expect_error(runner$refuse_forbidden_code(quote(g(source(1))), "a test"), "'source' is not available in jube-r")
})
case("numericDeriv() refuses forbidden code and an outside rho, and still differentiates", {
  in_script("q <- quote(I(1))")
  in_script("q[[1]] <- as.name(paste0('.Inter', 'nal'))")
  expect_error(in_script("numericDeriv(q, character(0))"), "'.Internal' is not available in jube-r, not even inside")
  expect_error(in_script("numericDeriv(quote(a^2), 'a', rho = outside_env)"), "numericDeriv\\(rho = \\)")
  in_script("a <- 3")
  expect_identical(as.vector(round(attr(in_script("numericDeriv(quote(a^2), 'a')"), "gradient"))), 6)
})
case("purrr::exec(.env = ) refuses an outside environment and looks names up through the mask by default", {
  expect_error(in_script("purrr::exec('sum', 1, .env = outside_env)"), "exec\\(.env = \\): an environment outside")
  expect_error(in_script("purrr::exec(paste0('ev', 'al'), 1)"), "'eval' is not available in jube-r")
  expect_identical(in_script("purrr::exec('sum', 1, 2)"), 3)
})

case("`pkg::name` answers the guarded version, and passes other exports through", {
  expect_identical(in_script("base::with"), runner$guarded_export("base", "with"))
  expect_identical(in_script("stats::median"), stats::median)
})
case("match.fun()'s name guard answers what the mask binds for a guarded name", {
  expect_identical(runner$guarded_by_name("new.env"), get("new.env", envir = mask))
  expect_identical(runner$guarded_by_name("median"), NULL)
})
case("a guard is built when the script first looks its name up, not at start", {
  expect_identical(typeof(.Internal(getVarsFromFrame("nls", mask, FALSE))[[1L]]), "promise")
  expect_true(is.function(in_script("nls")))
})
case("a package attached later gets its guards (purrr's map, exec)", {
  suppressMessages(library(purrr))
  expect_identical(get("map", envir = runner$guard_state$owner), "purrr")
  expect_identical(in_script("map(1:2, function(i) i * 2)"), list(2, 4))
})
case("an export that needs no guard resolves to the real function", {
  expect_identical(runner$guarded_export("base", "median"), NULL)
  expect_identical(runner$guard_or_real("stats", "median"), stats::median)
})
