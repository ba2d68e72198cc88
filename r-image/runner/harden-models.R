# Model-fitting package code that evaluates the script's code in its own frames (docs/script-rules.md);
# harden-packages.R patches each as its namespace loads:
# - forecast reads a model's series back (getResponse(), residuals() of an ARFIMA fit, an xreg)
#   by evaluating the call it was fitted on (`BoxCox(lynx, lambda)`) with eval.parent(): its own
#   frames, which reach globalenv(). Plain R finds the script's variables there; jube-r keeps them
#   in the script's environment, under the mask, so fitted(ar(BoxCox(lynx, lambda))) failed, and
#   the text (the script can set `fit$series`) ran with the real functions in reach. The call is
#   now evaluated in the innermost of the script's frames on the stack, checked first.
# - nlme's lmList() and nlsList() rebuild the script's model formula in their own frame (below).

# eval.parent() for package code that evaluates the script's code. The frame eval.parent() would
# use when it is the script's; else a variable of that package frame's own when the code is just
# its name (forecast fitting a model on its own local series); else the innermost of the script's
# frames on the stack (the script's environment, or a function of the script's that called in),
# where the code came from. Code never runs in a package's frame.
eval_in_script <- function(expr, n = 1) {
  what <- "code a package evaluates for the script"
  target <- parent.frame(n + 1)
  if (is.expression(expr) && length(expr) == 1L) expr <- expr[[1L]]
  if (!is_contained(target) && is.symbol(expr) && exists(as.character(expr), envir = target, inherits = FALSE)) {
    refuse_forbidden_code(expr, what, NULL, target)
    return(get(as.character(expr), envir = target, inherits = FALSE))
  }
  frames <- if (is_contained(target)) list(target) else rev(sys.frames())
  for (frame in frames) {
    if (is_contained(frame)) {
      refuse_forbidden_code(expr, what, NULL, frame)
      return(eval(expr, frame))
    }
  }
  refuse(paste(what, "needs a frame of the script's to run in, which is not there"))
}

forecast_script_evaluators <- c("getResponse.Arima", "getResponse.fracdiff", "residuals.ARFIMA", "getxreg")

harden_forecast <- function(ns) {
  for (name in forecast_script_evaluators) {
    rebind_method(ns, name, with_inlined(get(name, envir = ns), list(eval.parent = eval_in_script)))
  }
}

# nlme's lmList() and nlsList() drop a formula's grouping (`y ~ f(x, a) | g` to `y ~ f(x, a)`) by
# evaluating `~` in their own frame, so lm() and nls() look the model's functions up from nlme's
# namespace and globalenv(), where plain R keeps the script's and jube-r does not. The rebuilt formula
# keeps the script's environment when the original had it; so does the model function nlsList() reads.
nlme_formula_rebuilders <- c(lmList.formula = "object", nlsList.formula = "model")

keep_script_env <- function(rebuilt, original) {
  env <- attr(original, ".Environment", exact = TRUE)
  if (is.environment(env) && is_contained(env)) rebuilt <- structure(rebuilt, .Environment = env)
  rebuilt
}

eval_in_formula_env <- function(expr, formula) {
  env <- attr(formula, ".Environment", exact = TRUE)
  if (!is.environment(env) || !is_contained(env)) return(eval(expr, parent.frame()))
  refuse_forbidden_code(expr, "a model function nlme looks up for the script", NULL, env)
  eval(expr, env)
}

# `var <- eval(substitute(...))` becomes keep_script_env(eval(substitute(...)), var), and eval(var[[3]][[1]])
# eval_in_formula_env(var[[3]][[1]], var).
keep_formula_env <- function(code, var) {
  if (!is.call(code)) return(code)
  is_eval_of <- function(x, head) is.call(x) && identical(x[[1L]], as.name("eval")) && length(x) == 2L && head(x[[2L]])
  if (identical(code[[1L]], as.name("<-")) && identical(code[[2L]], as.name(var)) &&
        is_eval_of(code[[3L]], function(e) is.call(e) && identical(e[[1L]], as.name("substitute")))) {
    code[[3L]] <- as.call(list(keep_script_env, code[[3L]], as.name(var)))
    return(code)
  }
  if (is_eval_of(code, function(e) identical(e, bquote(.(as.name(var))[[3]][[1]])))) {
    return(as.call(list(eval_in_formula_env, code[[2L]], as.name(var))))
  }
  for (i in seq_along(code)) if (is.call(code[[i]])) code[[i]] <- keep_formula_env(code[[i]], var)
  code
}

harden_nlme <- function(ns) {
  for (name in names(nlme_formula_rebuilders)) {
    method <- get(name, envir = ns)
    body(method) <- keep_formula_env(body(method), nlme_formula_rebuilders[[name]])
    rebind_package_function("nlme", name, method)
  }
}
