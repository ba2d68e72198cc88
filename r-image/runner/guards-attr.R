# Attributes holding environments (docs/script-rules.md): `attr(quosure, ".Environment") <- env`
# moved a quosure into a package frame, and dplyr::mutate(df, b = !!q) then ran it there. The
# mask's versions of the functions that set attributes refuse an environment-valued attribute
# that is not contained (the script's own environments stay settable: a formula's environment
# may be a new.env() the script made). The getters (attr(), attributes(), `@`, slot()) are in
# mask.R and harden.R. And `[[<-`/`[<-` keep a formula's environment: a quosure ggplot2 made in its
# namespace (`qq <- geom_bar()$stat$default_aes$x`) with the script's call put in (`qq[[2]] <- call`)
# ran that call there, past the mask, through dplyr::mutate(d, b = !!qq).

real_attr_assign <- base::`attr<-`
real_attributes_assign <- base::`attributes<-`
real_mostattributes_assign <- base::`mostattributes<-`
real_structure <- base::structure

refuse_uncontained_attributes <- function(values) {
  for (name in names(values)) refuse_uncontained(values[[name]], sprintf("attribute '%s'", name))
  invisible()
}

safe_attr_assign <- function(x, which, value) {
  refuse_uncontained(value, sprintf("attribute '%s'", which))
  real_attr_assign(x, which, value = value)
}
safe_attributes_assign <- function(x, value) {
  if (is.list(value)) refuse_uncontained_attributes(value)
  real_attributes_assign(x, value = value)
}
safe_mostattributes_assign <- function(x, value) {
  if (is.list(value)) refuse_uncontained_attributes(value)
  real_mostattributes_assign(x, value = value)
}
safe_structure <- function(.Data, ...) { # nolint: object_name_linter. structure()'s own argument name.
  refuse_uncontained_attributes(list(...))
  real_structure(.Data, ...)
}

# name -> its package and the mask's version (guards-calls.R binds them with the other guards).
attribute_guards <- list(
  `attr<-` = list(pkg = "base", fun = safe_attr_assign),
  `attributes<-` = list(pkg = "base", fun = safe_attributes_assign),
  `mostattributes<-` = list(pkg = "base", fun = safe_mostattributes_assign),
  structure = list(pkg = "base", fun = safe_structure)
)

# The methods of `[[<-` and `[<-` for formulas (and so quosures), registered in base below the mask:
# the script (its frame is the caller) may change only a formula whose environment is its own;
# package code changes its own formulas as before.
formula_replacement <- function(real) {
  function(x, ..., value) {
    env <- attr(x, ".Environment", exact = TRUE)
    if (is.environment(env) && !is_contained(env) && is_contained(parent.frame())) {
      refuse(paste(
        "changing a formula or quosure that package code made in its own environment is not available in jube-r;",
        "build your own with ~ or rlang::quo()"
      ))
    }
    cls <- oldClass(x)
    x <- real(unclass(x), ..., value = value)
    oldClass(x) <- cls
    x
  }
}

guard_formula_replacement <- function() {
  registerS3method("[[<-", "formula", formula_replacement(base::`[[<-`), envir = .BaseNamespaceEnv)
  registerS3method("[<-", "formula", formula_replacement(base::`[<-`), envir = .BaseNamespaceEnv)
}
