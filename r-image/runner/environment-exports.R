# Environment-valued exports a script may use as their package intends (docs/script-rules.md):
# the rules' packages.environmentExports lists them by package and name. Every other
# environment-valued binding stays shadowed by a refusing one (guards-env.R).
# - ggproto objects (ggplot2's Stat, CoordCartesian, ...) are answered as they are, once checked to
#   be what the rules say: an environment whose parent is emptyenv() and whose members hold no
#   environment but other such objects. Nothing is looked up through one (no parent chain), its
#   methods are closures like every package function, and every layer already hands them out
#   (geom_point()$geom is GeomPoint); what the script adds are its own functions.
# - R6 class generators (readr's DataFrameCallback, ...) are answered by a stand-in holding only
#   `new()` and `classname`: the generator's parent_env is its package's namespace, and set(),
#   lock() and get_inherit() rewrite or hand out the class. An object it makes is a stand-in too:
#   its public methods and fields, never .__enclos_env__ (whose parent is the namespace), and what
#   a method returns is answered the same way (a method returning self returns the stand-in).

# The rules' kind of `pkg::name` ("ggproto", "r6Generator"), or NULL when it is not listed.
environment_export_kind <- function(pkg, name, policy = guard_state$policy) {
  entry <- policy$environment_exports[[pkg]]
  if (is.null(entry) || !(name %in% entry$names)) return(NULL)
  entry$kind
}

# A ggproto object as the rules describe it, checked member by member (recursively through the
# ggproto objects it holds, `seen` stopping at each one once).
inert_ggproto <- function(x, seen = list()) {
  if (!is.environment(x) || !inherits(x, "ggproto") || !identical(parent.env(x), emptyenv())) return(FALSE)
  for (other in seen) if (identical(other, x)) return(TRUE)
  seen <- c(seen, x)
  for (name in ls(x, all.names = TRUE, sorted = FALSE)) {
    if (bindingIsActive(name, x)) return(FALSE)
    value <- .subset2(x, name)
    if (is.environment(value) && !inert_ggproto(value, seen)) return(FALSE)
  }
  TRUE
}

refuse_export <- function(pkg, name, why) {
  refuse(sprintf("'%s::%s' is an environment %s, which is not available in jube-r", pkg, name, why))
}

# What the script gets for the listed `pkg::name` whose real value is `real`.
environment_export <- function(pkg, name, real, kind) {
  key <- paste(pkg, name, sep = "::")
  known <- guard_state$exports[[key]]
  if (!is.null(known)) return(known)
  value <- switch(kind,
    ggproto = if (inert_ggproto(real)) real else refuse_export(pkg, name, "that is not a plain ggproto object"),
    r6Generator = r6_generator_stand_in(real, pkg, name)
  )
  guard_state$exports[[key]] <- value
  value
}

# ---- R6 stand-ins -------------------------------------------------------------------------------

is_r6_generator <- function(x) is.environment(x) && inherits(x, "R6ClassGenerator") && is.function(x$new)

r6_generator_stand_in <- function(generator, pkg, name) {
  if (!is_r6_generator(generator)) refuse_export(pkg, name, "that is not an R6 class generator")
  stand_in <- new.env(parent = emptyenv())
  stand_in$new <- r6_method(generator$new)
  stand_in$classname <- generator$classname
  class(stand_in) <- class(generator)
  lockEnvironment(stand_in, bindings = TRUE)
  stand_in
}

# A value coming out of an R6 object or generator on its way to the script: an R6 object becomes
# its stand-in (the same one each time); any other environment that is not the script's is refused.
r6_value <- function(value) {
  if (!is.environment(value)) return(value)
  if (inherits(value, "R6")) return(r6_object_stand_in(value))
  refuse_uncontained(value, "a value of an R6 object")
  value
}

r6_object_stand_in <- function(object) {
  for (pair in guard_state$r6_objects) {
    if (identical(pair$object, object) || identical(pair$stand_in, object)) return(pair$stand_in)
  }
  stand_in <- new.env(parent = emptyenv())
  for (name in setdiff(ls(object, all.names = TRUE, sorted = FALSE), c(".__enclos_env__", ".__active__"))) {
    if (!bindingIsActive(name, object) && is.function(.subset2(object, name))) {
      stand_in[[name]] <- r6_method(.subset2(object, name))
    } else {
      makeActiveBinding(name, r6_field(object, name), stand_in)
    }
  }
  class(stand_in) <- class(object)
  lockEnvironment(stand_in)
  guard_state$r6_objects[[length(guard_state$r6_objects) + 1L]] <- list(object = object, stand_in = stand_in)
  stand_in
}

r6_method <- function(method) {
  force(method)
  function(...) r6_value(method(...))
}

# A public field (or active binding) read and written through to the object.
r6_field <- function(object, name) {
  force(object)
  force(name)
  function(value) {
    if (missing(value)) return(r6_value(.subset2(object, name)))
    refuse_uncontained(value, sprintf("field '%s' of an R6 object", name))
    object[[name]] <- value
  }
}
