# Environments outside the mask (docs/script-rules.md). Every route from a script to a shell
# needed an environment whose parent chain skips the mask, and something that evaluates a call in
# it. This part says which environments are the script's own ("contained": their parent chain
# reaches the mask, so every name looked up there meets the mask's stubs first), and keeps the
# others out of reach by name: every environment-valued binding on the search path (base's
# .AutoloadEnv and .userHooksEnv, scales' R6 generators, S4 method tables, ...) is shadowed in the
# mask by a binding that refuses to be read, at start and whenever a package is attached (a user
# hook on each allowed package's attach event, so a package that a package attaches is covered
# too); the rules' environment exports (readr's R6 callbacks, ggplot2's ggproto classes) are
# answered by environment-exports.R instead. The other parts refuse uncontained environments where a
# script hands one over (guards-calls.R, guards-attr.R) and keep package frames from being
# captured (guards-frames.R).

# The mask of this run, set by guard_mask(); the guards read it when they run.
guard_state <- new.env(parent = emptyenv())

# TRUE when `env` is the mask or descends from it (the script's environment, its functions'
# frames, what they create). A namespace, base, globalenv() or a package's frame is not.
is_contained <- function(env, mask = guard_state$mask) {
  while (!identical(env, emptyenv())) {
    if (identical(env, mask)) return(TRUE)
    env <- parent.env(env)
  }
  FALSE
}

# Stops the script when `value` is an environment (an S4 object extending one included) that is
# not contained. `what` names the argument or attribute in the message.
refuse_uncontained <- function(value, what) {
  if (is.environment(value) && !is_contained(value)) {
    refuse(sprintf(
      "%s: an environment outside the script's (a package's or R's own) is not available in jube-r", what
    ))
  }
  invisible()
}

# ---- environment-valued bindings ---------------------------------------------------------------

# In a lazy-load database an environment is stored as a reference (at most 64 bytes in every
# installed package); a value stored in more bytes than this cannot be one.
env_reference_max_bytes <- 128

# The lazy-load databases of the package at `path` (its R objects, its lazy data): the names they
# hold with the size of each stored value, and how to read one back.
lazy_databases <- function(path, pkg) {
  if (is.null(path)) return(list())
  bases <- c(file.path(path, "R", pkg), file.path(path, "data", "Rdata"))
  lapply(bases[file.exists(paste0(bases, ".rdx"))], function(base) {
    index <- readRDS(paste0(base, ".rdx"))
    keys <- index$variables
    list(
      keys = keys, names = names(keys), sizes = unlist(keys, use.names = FALSE)[c(FALSE, TRUE)],
      compressed = index$compressed, file = paste0(base, ".rdb")
    )
  })
}

# Whether the stored value `name` is an environment, read back without loading what it refers to
# (a hook stands in for every environment it references).
stored_value_is_environment <- function(name, db) {
  is.environment(lazyLoadDBfetch(db$keys[[name]], db$file, db$compressed, function(ref) emptyenv()))
}

# The names in `env` (an environment on the search path) bound to environments, in a few
# milliseconds for base's attached packages: a value is only loaded if it could be one (stored in
# few bytes, or not stored in the package's databases: a re-export, or made when it loaded).
environment_bindings <- function(env) {
  names <- ls(env, all.names = TRUE, sorted = FALSE)
  values <- .Internal(getVarsFromFrame(names, env, FALSE))
  hit <- vapply(values, is.environment, NA, USE.NAMES = FALSE)
  unknown <- !hit
  base <- identical(env, baseenv())
  path <- if (base) file.path(R.home("library"), "base") else attr(env, "path")
  for (db in lazy_databases(path, if (base) "base" else sub("^package:", "", environmentName(env)))) {
    at <- match(names, db$names)
    stored <- unknown & !is.na(at)
    small <- which(stored)[db$sizes[at[stored]] <= env_reference_max_bytes]
    hit[small] <- vapply(names[small], stored_value_is_environment, NA, db = db, USE.NAMES = FALSE)
    unknown <- unknown & !stored
  }
  promises <- which(unknown)[vapply(values[unknown], typeof, "") == "promise"]
  hit[promises] <- vapply(names[promises], function(name) is.environment(get(name, envir = env)), NA)
  names[hit]
}

# What the mask answers for a listed environment export (environment-exports.R), made when first read.
export_binding <- function(pkg, name, env, kind) {
  force(pkg)
  force(name)
  force(env)
  force(kind)
  function(value) {
    if (!missing(value)) refuse(sprintf("'%s' (package:%s) cannot be rebound in jube-r", name, pkg))
    environment_export(pkg, name, get(name, envir = env, inherits = FALSE), kind)
  }
}

refusing_binding <- function(name, where) {
  force(name)
  force(where)
  function(value) {
    refuse(sprintf("'%s' (%s) is an environment, which is not available in jube-r", name, where))
  }
}

# Shadows, in the mask, every environment-valued binding of `env` the mask does not bind yet.
shade_environment_bindings <- function(mask, env) {
  where <- environmentName(env)
  pkg <- sub("^package:", "", where)
  for (name in environment_bindings(env)) {
    if (!exists(name, envir = mask, inherits = FALSE)) {
      kind <- environment_export_kind(pkg, name)
      binding <- if (is.null(kind)) refusing_binding(name, where) else export_binding(pkg, name, env, kind)
      makeActiveBinding(name, binding, mask)
      assign(name, where, envir = guard_state$shaded)
    }
  }
}

# A package was attached (package:<pkg> is now first on the search path after globalenv()): its
# names now win over what the mask shadowed or guarded for an earlier package, and its own
# environments and guarded functions join the mask.
guard_attached <- function(pkg) {
  pkg <- as.character(pkg)
  mask <- guard_state$mask
  env <- as.environment(paste0("package:", pkg))
  names <- ls(env, all.names = TRUE, sorted = FALSE)
  for (name in intersect(names, ls(guard_state$owner, all.names = TRUE))) {
    if (!identical(get(name, envir = guard_state$owner), pkg)) {
      rm(list = name, envir = mask)
      rm(list = name, envir = guard_state$owner)
    }
  }
  for (name in intersect(names, ls(guard_state$shaded, all.names = TRUE))) {
    rm(list = name, envir = mask)
    rm(list = name, envir = guard_state$shaded)
  }
  bind_package_guards(mask, pkg)
  shade_environment_bindings(mask, env)
}

# Called by make_mask() (mask.R): the mask of this run gets its guards. What is attached now is
# scanned once; what the script (or a package) attaches later is scanned by the attach hook.
guard_mask <- function(mask, policy) {
  guard_state$mask <- mask
  guard_state$policy <- policy
  # name -> the package whose guarded function, or environment, the mask binds under that name
  guard_state$owner <- new.env(parent = emptyenv())
  guard_state$shaded <- new.env(parent = emptyenv())
  guard_state$cache <- list()
  guard_state$exports <- list()
  guard_state$r6_objects <- list()
  guard_state$guarded_names <- guarded_names(policy)
  attached <- sub("^package:", "", grep("^package:", search(), value = TRUE))
  for (pkg in rev(attached)) bind_package_guards(mask, pkg)
  for (where in setdiff(search(), ".GlobalEnv")) shade_environment_bindings(mask, as.environment(where))
  # setHook(packageEvent(pkg, "attach"), on_attach) for each allowed package, in one step.
  on_attach <- list(function(pkgname, ...) guard_attached(pkgname))
  events <- paste("UserHook", setdiff(policy$allowed_packages, attached), "attach", sep = "::")
  events <- events[!vapply(events, exists, NA, envir = .userHooksEnv, inherits = FALSE)]
  list2env(stats::setNames(rep(list(on_attach), length(events)), events), envir = .userHooksEnv)
  mask
}
