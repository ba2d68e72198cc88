# Attributes holding environments (docs/script-rules.md): `attr(quosure, ".Environment") <- env`
# moved a quosure into a package frame, and dplyr::mutate(df, b = !!q) then ran it there. The
# mask's versions of the functions that set attributes refuse an environment-valued attribute
# that is not contained (the script's own environments stay settable: a formula's environment
# may be a new.env() the script made). The getters (attr(), attributes(), `@`, slot()) are in
# mask.R and harden.R.

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
