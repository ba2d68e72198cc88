# harden-models.R: forecast and nlme evaluate the script's code (a fitted call, a model formula)
# from their own frames; after harden_runtime() they find the script's variables and functions,
# and what the script can set meets the same checks as its own code.
use_script_sandbox()
runner$harden_runtime(policy)

case("forecast reads a fitted series back in the script's frame (BoxCox's example)", {
  suppressMessages(library(forecast))
  in_script("lambda <- BoxCox.lambda(lynx)")
  in_script("fit <- ar(BoxCox(lynx, lambda))")
  expect_identical(length(in_script("fitted(fit)")), length(lynx))
  expect_identical(in_script("getResponse(fit)"), in_script("BoxCox(lynx, lambda)"))
})
case("...a model forecast's own code fits on its local series still finds it there", {
  own_fit <- function() {
    local_series <- lynx
    forecast::getResponse(stats::ar(local_series))
  }
  environment(own_fit) <- new.env(parent = asNamespace("forecast"))
  expect_identical(as.numeric(own_fit()), as.numeric(lynx))
})
case("...and the text, which the script can set, meets the same checks as its own code", {
  # In forecast's frame this read the process environment with base's real Sys.getenv().
  in_script("fit$series <- \"Sys.getenv('HOME')\"")
  expect_identical(in_script("getResponse(fit)"), NULL)
  expect_error(
    eval(as.call(list(runner$eval_in_script, quote(quote(Sys.getenv("HOME"))))), script_env),
    "'Sys.getenv' is not available in jube-r, not even inside code a package"
  )
})
case("...the S3 methods forecast registers in stats' table are the patched ones", {
  expect_identical(getS3method("residuals", "ARFIMA"), get("residuals.ARFIMA", envir = asNamespace("forecast")))
  for (name in runner$forecast_script_evaluators) {
    expect_true(!("eval.parent" %in% all.names(body(get(name, envir = asNamespace("forecast"))))))
  }
})
case("nlme's nlsList() and lmList() find the script's model functions (MASS's OME example)", {
  suppressMessages(library(nlme))
  in_script("fp <- deriv(~ 0.5 + 0.5 / (1 + exp(-(x - L75) / 2)), 'L75', function(x, L75) NULL)")
  in_script("d <- data.frame(g = rep(1:2, each = 8), x = rep(seq(20, 55, 5), 2))")
  in_script("d$y <- 0.5 + 0.5 / (1 + exp(-(d$x - 38 - d$g) / 2)) + rep(c(0.01, -0.01), 8)")
  fits <- in_script("nlsList(y ~ fp(x, L75) | g, data = d, start = list(L75 = 40))")
  expect_identical(round(unname(vapply(fits, function(f) coef(f)[["L75"]], 0))), c(39, 40))
  in_script("sq <- function(v) v^2")
  expect_identical(length(in_script("lmList(y ~ sq(x) | g, data = d)")), 2L)
})
case("...a formula of nlme's own (not the script's) keeps plain nlme's environment", {
  own <- stats::as.formula("y ~ x")
  environment(own) <- asNamespace("stats")
  rebuilt <- runner$keep_script_env(y ~ x, own)
  expect_identical(environment(rebuilt), environment())
  expect_identical(runner$eval_in_formula_env(quote(median), own), stats::median)
})
case("...and the model function's name is looked up where the script's would be: a forbidden one finds the stub", {
  found <- runner$eval_in_formula_env(quote(system), eval(str2lang("y ~ system(x)"), script_env))
  expect_error(found("id"), "'system' is not available")
})
