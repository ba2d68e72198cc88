# Package code that evaluates its own code in the script's frames (docs/script-rules.md): a call it
# builds there looks its functions up through the mask, so the mask's stubs refused what base R or
# a package did on the script's behalf. harden_runtime() (harden.R) rebinds these functions with
# the functions their code calls inlined as values (the script's frame never looks them up, and the
# script itself still meets the stubs when it names them):
# - base's within() methods evaluate `environment()` in a child of the data (the script's frame);
# - base's withAutoprint() runs its block through source(exprs =), stubbed below the mask since
#   source() of a file runs code; the block is the script's own, evaluated in a contained frame;
# - data.table's `[` rewrites mean(x) to .External(Cfastmean, x) evaluated in the script's frame, and
#   its within() method evaluates `environment()` as base's does;
# - utils' unzip(), stubbed below the mask since its default method runs the unzip program:
#   readr and vroom list a .zip input with it, so utils' binding becomes R's internal method only
#   (no program); the script's own unzip() is still the stub;
# - dplyr's *_at()/*_if() turn a `~` lambda into a function of the script's frame that calls
#   rlang::quo() and base::parent.frame().
# Model-fitting code that evaluates the script's code in its own frames (forecast, nlme): harden-models.R.

# Captured before harden_runtime() stubs source() in base and unzip() in utils.
real_source <- base::source
real_unzip <- utils::unzip
real_environment <- base::environment

# Rebinds the function `name` of the namespace `ns` to `method`, and in every methods table that
# registered it: an S3 method is registered in its generic's namespace (residuals.ARFIMA in stats').
rebind_method <- function(ns, name, method) {
  real <- get(name, envir = ns)
  rebind(ns, name, method)
  for (owner in loadedNamespaces()) {
    table <- get0(".__S3MethodsTable__.", envir = asNamespace(owner), inherits = FALSE)
    if (!is.null(table) && identical(get0(name, envir = table, inherits = FALSE), real)) rebind(table, name, method)
  }
}

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
  # within() of a data.table evaluates environment() in a child of the data, as base's does.
  within_method <- with_inlined(get("within.data.table", envir = ns), list(environment = real_environment))
  rebind_method(ns, "within.data.table", within_method)
}

harden_dplyr <- function(ns) {
  rebind(ns, "as_inlined_function", with_inlined(get("as_inlined_function", envir = ns)))
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
