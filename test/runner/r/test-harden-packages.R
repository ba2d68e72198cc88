# harden-packages.R: base's within() and withAutoprint(), data.table's grouped mean() and dplyr's
# *_at() lambdas run their own code from the script's frame, after harden_runtime() (this process
# keeps it); the script naming the stubbed functions itself still meets the stubs.
use_script_sandbox()
runner$harden_runtime(policy)

case("inline_values() puts pkg::name and the listed heads in as values", {
  code <- runner$inline_values(quote(f(stats::median(x), g(1))), list(g = sum))
  expect_identical(code[[2L]][[1L]], stats::median)
  expect_identical(code[[3L]][[1L]], sum)
  expect_identical(code[[1L]], as.name("f"))
})
case("within() of a data frame runs from the script", {
  expect_identical(in_script("within(data.frame(a = 1:2), b <- a * 2)")$b, c(2, 4))
  expect_identical(in_script("within(list(a = 1), b <- a + 1)")$b, 2)
})
case("...while the script's own environment() is still the stub", {
  expect_error(in_script("within(data.frame(a = 1), e <- environment())"), "'environment' is not available")
})
case("withAutoprint() runs its block in the script's frame", {
  out <- utils::capture.output(in_script("withAutoprint({ y <- 2; y * 3 })"))
  expect_true(any(grepl("[1] 6", out, fixed = TRUE)))
  expect_identical(get("y", envir = script_env), 2)
})
case("withAutoprint(local = ) from the script takes only its own environments", {
  expect_error(in_script("withAutoprint({ 1 }, local = FALSE)"), "must be one of the script's environments")
  expect_error(in_script("withAutoprint({ 1 }, local = TRUE)"), "must be one of the script's environments")
})
case("data.table's grouped mean() runs in the script's frame", {
  in_script("dt <- data.table::data.table(g = c(1, 1, 2), x = c(1, 3, 5))")
  expect_identical(in_script("dt[, mean(x), by = g]")$V1, c(2, 5))
})
case("dplyr's mutate_at() with a lambda runs in the script's frame", {
  expect_identical(in_script("dplyr::mutate_at(data.frame(a = 1:2), dplyr::vars(a), ~ .x * 10)")$a, c(10, 20))
})
case("utils' unzip() for package code is R's internal method only; the script's unzip() is the stub", {
  package_unzip <- get("unzip", envir = asNamespace("utils"))
  expect_error(package_unzip("none.zip", list = TRUE, unzip = "/usr/bin/unzip"), "zip file 'none.zip' cannot be opened")
  expect_error(in_script("unzip('none.zip', list = TRUE)"), "'unzip' is not available")
})
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
