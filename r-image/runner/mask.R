# The runtime mask (docs/script-rules.md): the parent of the script's environment. It binds every
# forbidden name to a stub, `:::` (internal-functions.R) and `::` to checked versions, and gives
# the script safe replacements (the `safe_replacements` table) for the functions that would run a
# shell command or hand out an environment, since the mask only works while every environment the
# script holds chains through it.

refuse <- function(message) {
  stop(structure(class = c("jube_forbidden_error", "error", "condition"), list(message = message, call = NULL)))
}

forbidden_stub <- function(name) {
  force(name)
  function(...) refuse(sprintf("'%s' is not available in jube-r", name))
}

# A copy of `fun` (same environment, so parent.frame() and topenv() behave as in the original)
# whose body first calls `guard` on the argument named `arg`.
guarded_copy <- function(fun, guard, arg) {
  copy <- fun
  body(copy) <- call("{", as.call(list(guard, as.name(arg))), body(fun))
  copy
}

# data.table::fread treats a string without a newline that is not a file as a shell command
# (and runs cmd= as one); only files and literal text get through.
safe_fread <- function(input = "", file = NULL, text = NULL, cmd = NULL, ...) {
  refuse_fread <- function(what) {
    refuse(sprintf(
      "fread(%s) would run a shell command, which is not available in jube-r; pass file = or text =", what
    ))
  }
  if (!is.null(cmd)) refuse_fread("cmd = ...")
  if (!identical(input, "")) {
    if (is.character(input) && length(input) == 1L && grepl("\n", input, fixed = TRUE)) {
      text <- input
    } else if (is.character(input) && length(input) == 1L && file.exists(input) && !dir.exists(input)) {
      file <- input
    } else {
      refuse_fread("input = <not a file or text>")
    }
  }
  real_fread <- getExportedValue("data.table", "fread")
  real_fread(file = file, text = text, ...)
}

real_attr <- base::attr
real_attributes <- base::attributes
safe_attr <- function(x, which, exact = FALSE) {
  value <- real_attr(x, which, exact = exact)
  if (is.environment(value)) {
    refuse(sprintf("attribute '%s' holds an environment, which is not available in jube-r", which))
  }
  value
}
# purrr's attr_getter() builds its getter on base's attr(); this one on the runner's, so the getter
# (given to pluck(), map() or called) refuses an environment-valued attribute as attr() does.
safe_attr_getter <- function(attr) {
  force(attr)
  function(x) safe_attr(x, attr, exact = TRUE)
}
safe_attributes <- function(x) {
  value <- real_attributes(x)
  if (is.null(value)) return(value)
  value[!vapply(value, is.environment, NA)]
}
real_at <- base::`@`
# x@name takes its name unquoted, so the wrapper rebuilds the call around the real primitive.
safe_at <- function(object, name) {
  value <- eval(as.call(list(real_at, quote(object), substitute(name))))
  if (is.environment(value)) refuse("this slot holds an environment, which is not available in jube-r")
  value
}
real_slot <- methods::slot
safe_slot <- function(object, name) {
  value <- real_slot(object, name)
  if (is.environment(value)) refuse(sprintf("slot '%s' holds an environment, which is not available in jube-r", name))
  value
}
real_load_namespace <- base::loadNamespace
real_attach_namespace <- base::attachNamespace
# Loading stays possible (the static rules check the name); the namespace itself is not returned.
safe_load_namespace <- function(package, ...) {
  real_load_namespace(package, ...)
  invisible(NULL)
}
safe_attach_namespace <- function(ns, ...) {
  real_attach_namespace(ns, ...)
  invisible(NULL)
}
# utils::data(lib.loc =) runs the R files and loads the .rda files of any directory.
safe_data <- guarded_copy(utils::data, function(lib.loc) { # nolint: object_name_linter. data()'s own argument name.
  if (!is.null(lib.loc)) {
    refuse("data(lib.loc = ...) is not available in jube-r; data() reads the installed packages only")
  }
}, "lib.loc")
# methods::new("environment") (or any class extending it) is a fresh environment whose parent is
# globalenv(), outside the mask.
safe_new <- guarded_copy(methods::new, function(Class) { # nolint: object_name_linter. new()'s own argument name.
  def <- tryCatch(methods::getClass(Class), error = function(e) NULL)
  if (!is.null(def) && methods::extends(def, "environment")) {
    refuse("new() of an environment class is not available in jube-r")
  }
}, "Class")

# quit() and q() would end the process before the runner writes the result: the script ends here
# instead, as its own error (the console and everything before it are returned).
script_quit <- function(save = "default", status = 0, runLast = TRUE) { # nolint: object_name_linter. quit()'s own.
  message <- paste(
    "quit() ends the script here: jube-r runs the R session for you and returns its output;",
    "end the script with its last expression instead, or stop(\"why\") to fail it"
  )
  stop(structure(class = c("jube_quit", "error", "condition"), list(message = message, call = NULL)))
}

# name -> the package it comes from and the runner's replacement: bound in the mask (when the
# package is allowed), answered by the checked `::` and by the hardened match.fun (harden.R).
safe_replacements <- list(
  fread = list(pkg = "data.table", fun = safe_fread),
  attr = list(pkg = "base", fun = safe_attr),
  attributes = list(pkg = "base", fun = safe_attributes),
  attr_getter = list(pkg = "purrr", fun = safe_attr_getter),
  `@` = list(pkg = "base", fun = safe_at),
  slot = list(pkg = "methods", fun = safe_slot),
  loadNamespace = list(pkg = "base", fun = safe_load_namespace),
  attachNamespace = list(pkg = "base", fun = safe_attach_namespace),
  data = list(pkg = "utils", fun = safe_data),
  new = list(pkg = "methods", fun = safe_new),
  quit = list(pkg = "base", fun = script_quit),
  q = list(pkg = "base", fun = script_quit)
)

# What `pkg::name` answers with the script's own version of a function, or NULL: base::local() is
# the script's local() and utils::example() its example(), as the validators treat them; withr's
# and rlang's checked exports are copies that check their arguments (export-arguments.R).
script_version <- function(pkg, name, policy) {
  if (pkg == "base" && name %in% policy$local_functions) return(safe_local)
  if (pkg == policy$example_package && name %in% policy$example_functions) return(safe_example(policy))
  if (pkg == "base" && name == "requireNamespace") return(safe_require_namespace(policy))
  if (paste0(pkg, "::", name) %in% policy$package_queries) return(package_query_function(name, policy))
  spec <- policy$checked_exports[[paste0(pkg, "::", name)]]
  if (!is.null(spec)) checked_export(pkg, name, spec, policy)
}

# `pkg::name` as the script sees it: allowed packages (or a listed export of a named-exports
# package, rlang::sym) only, no forbidden name, no environment.
checked_ns_get <- function(policy) {
  get_exported <- base::getExportedValue
  function(pkg, name) {
    pkg <- as.character(substitute(pkg))
    name <- as.character(substitute(name))
    exports <- policy$named_exports[[pkg]]
    if (!is.null(exports) && !(name %in% exports)) refuse(named_export_unavailable(pkg, name, policy))
    if (is.null(exports) && !(pkg %in% policy$allowed_packages)) {
      refuse(sprintf("package '%s' is not available in jube-r", pkg))
    }
    own <- script_version(pkg, name, policy)
    if (!is.null(own)) return(own)
    if (name %in% policy$forbidden) forbidden_stub(name)()
    safe <- safe_replacements[[name]]
    if (!is.null(safe) && identical(safe$pkg, pkg)) return(safe$fun)
    guarded <- guarded_export(pkg, name)
    if (!is.null(guarded)) return(guarded)
    value <- get_exported(pkg, name)
    kind <- environment_export_kind(pkg, name, policy)
    if (!is.null(kind)) return(environment_export(pkg, name, value, kind))
    # Exported S4 method tables (`.__T__show:methods`) are environments inside the package.
    if (is.environment(value)) {
      refuse(sprintf("'%s::%s' is an environment, which is not available in jube-r", pkg, name))
    }
    value
  }
}

make_mask <- function(policy) {
  mask <- new.env(parent = globalenv())
  for (name in policy$forbidden) assign(name, forbidden_stub(name), envir = mask)
  assign(":::", checked_ns_get_internal(policy), envir = mask)
  assign("::", checked_ns_get(policy), envir = mask)
  assign("<<-", make_safe_superassign(mask, policy$superassign_advice), envir = mask)
  assign("requireNamespace", safe_require_namespace(policy), envir = mask)
  for (name in names(safe_replacements)) {
    safe <- safe_replacements[[name]]
    if (safe$pkg %in% policy$allowed_packages) assign(name, safe$fun, envir = mask)
  }
  # The relaxed functions (safe-calls.R) replace their stubs: do.call, match.fun, local, options.
  relaxed <- relaxed_replacements(policy)
  for (name in names(relaxed)) assign(name, relaxed[[name]], envir = mask)
  guard_mask(mask, policy)
}
