# Hardening below the mask (defense in depth when an environment leaks anyway), and the one place
# the capsule is armed just before the script.
#
# R looks a function named by a string up in the caller's frame: match.fun() in lapply() called
# from ave() (stats) or outer() called from kronecker() (base) resolves the script's string in a
# package namespace, not in the mask. And formula("(...)") or lm("y ~ ...") parse a string and
# evaluate it in a package frame. So, just before the script runs, the runner rebinds (in the
# namespaces and attached package environments where they live):
# - match.fun (and rlang's as_function, as rlang loads): refuses a forbidden name given as a
#   string or symbol;
# - stats' formula.character (the method every string-to-formula conversion goes through):
#   refuses formula text naming a forbidden symbol or using a blocked operator;
# - grDevices' pdf: refuses a file name starting with "|", which R's PDF device opens as a pipe
#   to a shell command (ggsave(device = "pdf"), dev.print() and dev.copy2pdf() all come here);
# - base's dyn.load: loads shared objects from R's installed libraries only (e1071::tune(METHOD =
#   "dyn.load") reached it with a file the script wrote);
#   (sys.source stays: loadNamespace() runs every package's loader through it)
# - the functions that start processes, open sockets, change the time limit or run code from a
#   file (policy$deep_stubbed): stubs. R's own code never needs them during an analysis;
# - methods' slot() and new(), base's getElement(), stats' model.frame.default and numericDeriv,
#   rlang's as_function on a lambda: see harden-env.R;
# - base's within() and withAutoprint(), data.table's and dplyr's code run in the script's frames:
#   see harden-packages.R.
# What stays reachable from a leaked environment is .Internal() on a constructed call
# (docs/script-rules.md, residual risks); the OS layers bound that.

hardened_packages <- c("base", "utils", "stats", "methods", "grDevices", "graphics", "tools")

rebind <- function(env, name, value) {
  locked <- bindingIsLocked(name, env)
  if (locked) unlockBinding(name, env)
  assign(name, value, envir = env)
  if (locked) lockBinding(name, env)
}

# Every environment holding the package's bindings: the namespace and, if attached, package:<name>.
package_envs <- function(pkg) {
  if (!(pkg %in% loadedNamespaces())) return(list())
  envs <- list(if (pkg == "base") .BaseNamespaceEnv else asNamespace(pkg))
  attached <- paste0("package:", pkg)
  if (attached %in% search()) envs[[2L]] <- as.environment(attached)
  envs
}

# A function of the name match.fun() was given: NULL, or what it must return instead of looking
# the name up (refusing forbidden names, answering the mask's safe replacements).
name_guard <- function(policy) {
  function(FUN) { # nolint: object_name_linter. match.fun()'s own argument name.
    if ((is.character(FUN) && length(FUN) == 1L && !is.na(FUN)) || is.symbol(FUN)) {
      name <- as.character(FUN)
      if (name %in% policy$forbidden) forbidden_stub(name)()
      if (name %in% names(safe_replacements)) return(safe_replacements[[name]]$fun)
      return(guarded_by_name(name))
    }
    NULL
  }
}

# A copy of a function that resolves a name (`arg`) to a function, asking `guard` first.
guarded_lookup <- function(fun, arg, guard) {
  copy <- fun
  body(copy) <- call("{", call("<-", quote(.jube_safe), as.call(list(guard, as.name(arg)))),
    quote(if (!is.null(.jube_safe)) return(.jube_safe)), body(fun))
  copy
}

formula_guard <- function(policy) {
  function(x) {
    if (!is.character(x)) return(invisible())
    code <- tryCatch(str2expression(x), error = function(e) NULL)
    names <- unique(unlist(lapply(code, all.names)))
    bad <- names[names %in% c(policy$forbidden, policy$blocked_operators)]
    if (length(bad) > 0L) {
      refuse(sprintf("'%s' is not available in jube-r, not even inside a formula given as a string", bad[[1L]]))
    }
  }
}

check_device_file <- function(file) {
  if (is.character(file) && any(grepl("^[[:space:]]*[|]", file))) {
    refuse(paste(
      "a graphics file name starting with '|' pipes the output to a shell command,",
      "which is not available in jube-r"
    ))
  }
}

# R's libraries as they were before the script could write anything: the only places a shared
# object may be loaded from (library.dynam() loads every package's DLL through dyn.load()).
library_roots <- unique(normalizePath(c(.libPaths(), R.home()), mustWork = FALSE))
check_dll_path <- function(x) {
  path <- if (is.character(x) && length(x) == 1L && !is.na(x)) normalizePath(x, mustWork = FALSE) else ""
  if (!any(startsWith(path, paste0(library_roots, "/")))) {
    refuse("dyn.load() of a file outside R's installed libraries is not available in jube-r")
  }
}

harden_runtime <- function(policy) {
  for (pkg in hardened_packages) {
    for (env in package_envs(pkg)) {
      for (name in policy$deep_stubbed) {
        if (exists(name, envir = env, inherits = FALSE)) rebind(env, name, forbidden_stub(name))
      }
    }
  }
  guard <- name_guard(policy)
  for (env in package_envs("base")) rebind(env, "match.fun", guarded_lookup(base::match.fun, "FUN", guard))
  harden_environment_getters()
  guard_formula_replacement()
  harden_code_evaluators(policy)
  harden_package_code()
  # rlang::as_function("name") looks the name up from globalenv(), past the mask (tidyr's
  # values_transform = "dget" ran a file). rlang loads with dplyr, tidyr, purrr or ggplot2, after
  # this point: patch it as it loads, before those packages copy it into their imports.
  patch_rlang <- function(...) {
    ns <- asNamespace("rlang")
    rebind(ns, "as_function", guarded_lookup(get("as_function", envir = ns), "x", lambda_guard(guard)))
    harden_tidy_eval(ns)
  }
  setHook(packageEvent("rlang", "onLoad"), patch_rlang)
  if ("rlang" %in% loadedNamespaces()) patch_rlang()
  for (env in package_envs("base")) rebind(env, "dyn.load", guarded_copy(base::dyn.load, check_dll_path, "x"))
  pdf <- guarded_copy(get("pdf", envir = asNamespace("grDevices")), check_device_file, "file")
  for (env in package_envs("grDevices")) rebind(env, "pdf", pdf)
  rebind_stats_method("formula.character", formula_guard(policy), "x")
  harden_reformulate(policy)
}

# An S3 method of stats, rebound where dispatch finds it (the namespace and its methods table):
# a copy that calls `guard` on `arg` first, or `method` as given.
rebind_stats_method <- function(name, guard, arg, method = guarded_copy(get(name, envir = stats_ns), guard, arg)) {
  stats_ns <- asNamespace("stats")
  rebind(stats_ns, name, method)
  rebind(get(".__S3MethodsTable__.", envir = stats_ns), name, method)
}

# Captured before harden_runtime() limits dyn.load to R's libraries: the capsule lives beside the
# handler, not in R's library.
real_dyn_load <- base::dyn.load

# The last step before the script's first expression (evaluate.R): the inputs are bound, the time
# limit is set, nothing of the runner that needs more than file writes runs after it. It arms the
# capsule (r-image/capsule), which the handler preloaded into this process: one-way, from here on
# this process starts no program, opens no socket, signals no one, loads no foreign object and
# writes only in its workdir. Returns the capsule's report of the layers in force; without a
# capsule (JUBE_R_CAPSULE=off, benchmarks and tests only) "preload=off". A capsule that fails to
# arm stops the run: the script must not run less contained than the handler asked for.
arm_capsule <- function(deadline, library_path = Sys.getenv("JUBE_R_CAPSULE_LIBRARY")) {
  if (!nzchar(library_path)) return("preload=off")
  dll <- real_dyn_load(library_path)
  armed <- .C(
    "jube_capsule_arm",
    status = integer(1L), report = strrep(" ", 511L), deadline = as.double(deadline), PACKAGE = dll[["name"]]
  )
  report <- trimws(armed$report)
  if (!identical(armed$status, 1L)) {
    stop(structure(
      class = c("jube_capsule_error", "error", "condition"),
      list(message = sprintf("the capsule could not be armed (%s); the script was not run", report), call = NULL)
    ))
  }
  report
}
