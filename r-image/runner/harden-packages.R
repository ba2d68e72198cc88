# Package code that evaluates its own code in the script's frames (docs/script-rules.md): a call it
# builds there looks its functions up through the mask, so the mask's stubs refused what base R or
# a package did on the script's behalf. harden_runtime() (harden.R) rebinds these functions with
# the functions their code calls inlined as values (the script's frame never looks them up, and the
# script itself still meets the stubs when it names them):
# - base's within() methods evaluate `environment()` in a child of the data (the script's frame);
# - base's withAutoprint() runs its block through source(exprs =), stubbed below the mask since
#   source() of a file runs code; the block is the script's own, evaluated in a contained frame;
# - data.table's `[` rewrites mean(x) to .External(Cfastmean, x) evaluated in the script's frame;
# - utils' unzip(), stubbed below the mask since its default method runs the unzip program:
#   readr and vroom list a .zip input with it, so utils' binding becomes R's internal method only
#   (no program); the script's own unzip() is still the stub;
# - dplyr's *_at()/*_if() turn a `~` lambda into a function of the script's frame that calls
#   rlang::quo() and base::parent.frame().
# And one that evaluates the script's code in its own frames:
# - forecast reads a model's series back (getResponse(), residuals() of an ARFIMA fit, an xreg)
#   by evaluating the call it was fitted on (`BoxCox(lynx, lambda)`) with eval.parent(): its own
#   frames, which reach globalenv(). Plain R finds the script's variables there; jube-r keeps them
#   in the script's environment, under the mask, so fitted(ar(BoxCox(lynx, lambda))) failed, and
#   the text (the script can set `fit$series`) ran with the real functions in reach. The call is
#   now evaluated in the innermost of the script's frames on the stack, checked first.
# - nlme's lmList() and nlsList() rebuild the script's model formula in their own frame (below).

# Captured before harden_runtime() stubs source() in base and unzip() in utils.
real_source <- base::source
real_unzip <- utils::unzip
real_environment <- base::environment

# `code` with each `pkg::name` call replaced by the function it names and each call headed by a
# name in `values` headed by that value instead.
inline_values <- function(code, values = list()) {
  if (!is.call(code)) return(code)
  head <- code[[1L]]
  if (identical(head, as.name("::")) && length(code) == 3L) {
    return(getExportedValue(as.character(code[[2L]]), as.character(code[[3L]])))
  }
  if (is.symbol(head) && as.character(head) %in% names(values)) code[[1L]] <- values[[as.character(head)]]
  for (i in seq_along(code)) if (is.call(code[[i]])) code[[i]] <- inline_values(code[[i]], values)
  code
}

with_inlined <- function(fun, values = list()) {
  copy <- fun
  body(copy) <- inline_values(body(fun), values)
  copy
}

# Rebinds `name` in the namespace `pkg` (and package:<pkg>, and its S3 methods table) to `value`.
rebind_package_function <- function(pkg, name, value) {
  for (env in package_envs(pkg)) rebind(env, name, value)
  table <- get0(".__S3MethodsTable__.", envir = package_envs(pkg)[[1L]], inherits = FALSE)
  if (!is.null(table) && exists(name, envir = table, inherits = FALSE)) rebind(table, name, value)
}

# withAutoprint(local =) from the script: only one of its own environments (TRUE or FALSE would
# evaluate the block in withAutoprint's frame or globalenv(), outside the mask).
refuse_autoprint_local <- function(local, caller) {
  if (is_contained(caller) && !(is.environment(local) && is_contained(local))) {
    refuse("withAutoprint(local = ) must be one of the script's environments in jube-r")
  }
}

harden_base_code <- function() {
  for (name in c("within.data.frame", "within.list")) {
    method <- with_inlined(get(name, envir = baseenv()), list(environment = real_environment))
    rebind_package_function("base", name, method)
  }
  autoprint <- with_inlined(base::withAutoprint, list(source = real_source))
  check <- as.call(list(refuse_autoprint_local, quote(local), quote(parent.frame())))
  autoprint <- with_prologue(autoprint, list(check))
  rebind_package_function("base", "withAutoprint", autoprint)
}

harden_unzip <- function() {
  internal <- with_prologue(real_unzip, list(quote(unzip <- "internal")))
  for (env in package_envs("utils")) rebind(env, "unzip", internal)
}

# data.table's .optmean() builds call(".External", quote(Cfastmean), ...): built with both as values.
harden_data_table <- function(ns) {
  fastmean <- get("Cfastmean", envir = ns)
  external_call <- function(name, ...) {
    built <- as.call(c(list(as.name(name)), list(...)))
    if (identical(name, ".External") && identical(built[[2L]], quote(Cfastmean))) {
      built[[1L]] <- .External
      built[[2L]] <- fastmean
    }
    built
  }
  rebind(ns, ".optmean", with_inlined(get(".optmean", envir = ns), list(call = external_call)))
}

harden_dplyr <- function(ns) {
  rebind(ns, "as_inlined_function", with_inlined(get("as_inlined_function", envir = ns)))
}

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
    real <- get(name, envir = ns)
    method <- with_inlined(real, list(eval.parent = eval_in_script))
    rebind(ns, name, method)
    # An S3 method is registered in its generic's namespace (residuals.ARFIMA in stats').
    for (owner in loadedNamespaces()) {
      table <- get0(".__S3MethodsTable__.", envir = asNamespace(owner), inherits = FALSE)
      if (!is.null(table) && identical(get0(name, envir = table, inherits = FALSE), real)) rebind(table, name, method)
    }
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

# Each package's code is patched as its namespace loads (before packages importing it copy it).
package_code_patches <- list(
  data.table = harden_data_table, dplyr = harden_dplyr, forecast = harden_forecast, nlme = harden_nlme
)

harden_package_code <- function() {
  harden_base_code()
  harden_unzip()
  for (pkg in names(package_code_patches)) {
    patch <- package_code_patches[[pkg]]
    hook <- function(...) patch(asNamespace(pkg))
    environment(hook) <- list2env(list(patch = patch, pkg = pkg), parent = environment())
    setHook(packageEvent(pkg, "onLoad"), hook)
    if (pkg %in% loadedNamespaces()) hook()
  }
}
