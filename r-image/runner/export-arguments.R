# The arguments of a named export whose arguments are checked (script-rules.json
# packages.namedExports `arguments`: withr's with_options, with_envvar, ..., rlang's local_options): on R's
# parse data as layers/validator/checks/export-arguments.ts judges them, and at run time, where the
# runner's `::` answers such a function with a copy that checks the values before its body runs.

file_suffix_pattern <- "^(?!.*[.][.])[A-Za-z0-9._-]{0,64}$"

allowed_formals <- function(spec) names(spec)[spec != "refused"]

# The formal an argument fills (by its name, a further argument of `...`, or the next open positional
# one) and its kind; NULL when it fills none.
export_formal <- function(arg, spec, open) {
  formals <- names(spec)
  if (is.null(arg$name)) {
    if (length(open) == 0L) return(NULL)
    return(list(formal = open[[1L]], kind = spec[[open[[1L]]]]))
  }
  if (arg$name %in% formals && arg$name != "...") return(list(formal = arg$name, kind = spec[[arg$name]]))
  # A name that is not a prefix of a formal: R would not match it partially, so it lands in `...`.
  if ("..." %in% formals && !any(startsWith(formals[formals != "..."], arg$name))) {
    return(list(formal = arg$name, kind = spec[["..."]]))
  }
  NULL
}

# Every problem of `pkg::name` at token i (the package), whose formals and kinds are `spec`.
check_export_arguments <- function(parsed, i, pkg, name, spec, policy, add) {
  fn <- paste0(pkg, "::", name)
  refuse_here <- function(why, arg = NULL) {
    at <- if (is.null(arg)) list(line = parsed$tokens$line1[[i]], col = parsed$tokens$col1[[i]]) else arg
    add("PACKAGE_NOT_ALLOWED", sprintf("'%s' is allowed in jube-r only with checked arguments: %s", fn, why),
      at$line, at$col, pkg)
  }
  # pkg::name(...) and pkg::"name"(...) are calls; the name token is the call's function either way.
  called <- i + 2L <= nrow(parsed$tokens) && (parsed$tokens$token[[i + 2L]] == "SYMBOL_FUNCTION_CALL" ||
    (parsed$tokens$token[[i + 2L]] == "STR_CONST" && parsed$next_token[[i + 2L]] == "'('"))
  site <- if (called) call_site(parsed, i + 2L)
  if (!called || piped_call(parsed$pd, site$call)) {
    refuse_here(sprintf("call it directly as %s(...), not as a value or through a pipe", fn))
    return(invisible())
  }
  dots_at <- match("...", names(spec))
  before <- if (is.na(dots_at)) names(spec) else names(spec)[seq_len(dots_at - 1L)]
  open <- before[!(before %in% unlist(lapply(site$args, function(a) a$name)))]
  allowed <- toString(allowed_formals(spec))
  for (arg in site$args) {
    if (is_dots(arg)) {
      refuse_here("its arguments must be written out, not passed through ...", arg)
      next
    }
    fills <- export_formal(arg, spec, open)
    if (is.null(arg$name) && !is.null(fills)) open <- open[-1L]
    if (is.null(fills) || fills$kind == "refused") {
      shown <- if (is.null(fills)) arg$name else fills$formal
      why <- if (is.null(shown)) "name every argument it is given" else sprintf("it may not be given %s", shown)
      refuse_here(sprintf("%s; it may be given only %s, written in full", why, allowed), arg)
      next
    }
    check_export_value(parsed, fills$formal, fills$kind, arg, policy, add, refuse_here)
  }
}

check_export_value <- function(parsed, formal, kind, arg, policy, add, refuse_here) {
  literal <- if (identical(arg$token, "STR_CONST")) string_value(arg$text)
  switch(kind,
    option = check_export_option(parsed, formal, arg, policy, add),
    options = ,
    settings = {
      entries <- literal_entries(parsed, arg)
      if (is.null(entries)) {
        example <- if (kind == "options") "list(digits = 3)" else "c(TZ = \"UTC\")"
        return(refuse_here(sprintf("%s must be written as %s, every setting by name", formal, example), arg))
      }
      for (entry in entries) {
        if (kind == "options") {
          check_export_option(parsed, entry$name, entry, policy, add)
        } else {
          check_export_setting(entry$name, entry, policy, refuse_here)
        }
      }
    },
    setting = check_export_setting(formal, arg, policy, refuse_here),
    zone = if (is.null(literal) || !grepl(policy$env_setting_pattern, literal, perl = TRUE)) {
      refuse_here(sprintf("%s must be a literal string naming a zone or locale (e.g. \"UTC\")", formal), arg)
    },
    name = if (is.null(literal) || make.names(literal) != literal) {
      refuse_here(sprintf("%s must be a literal string naming a variable (e.g. \"path\")", formal), arg)
    },
    fileSuffix = if (is.null(literal) || !grepl(file_suffix_pattern, literal, perl = TRUE)) {
      refuse_here(sprintf("%s must be a literal string of letters, digits, '.', '_' and '-' (e.g. \".csv\")", formal),
        arg)
    }
  )
  invisible()
}

# The named arguments of a list(...) or c(...) call given as `arg`, or NULL when it is not one.
literal_entries <- function(parsed, arg) {
  if (!identical(arg$token, "expr") || is.null(arg$id)) return(NULL)
  kids <- children_of(parsed$pd, arg$id)
  if (nrow(kids) < 3L || kids$token[[1L]] != "expr" || kids$token[[2L]] != "'('") return(NULL)
  head <- children_of(parsed$pd, kids$id[[1L]])
  if (nrow(head) != 1L || head$token[[1L]] != "SYMBOL_FUNCTION_CALL" || !(head$text[[1L]] %in% c("list", "c"))) {
    return(NULL)
  }
  entries <- call_arguments(parsed$pd, arg$id)
  if (any(vapply(entries, function(e) is.null(e$name) || is_dots(e), NA))) return(NULL)
  entries
}

check_export_option <- function(parsed, name, arg, policy, add) {
  allowed <- policy$restricted_options[[name]]
  if (!is.null(allowed)) {
    value <- if (is.null(arg$id)) NULL else literal_number(parsed$pd, arg)
    if (is.null(value) || !(value %in% allowed)) {
      add("OPTION_NOT_ALLOWED", sprintf("option '%s' may be set only to %s", name, toString(allowed)),
        arg$line, arg$col, name)
    }
  } else if (name %in% policy$denied_options) {
    add("OPTION_NOT_ALLOWED", sprintf("option '%s' may not be set", name), arg$line, arg$col, name)
  }
}

check_export_setting <- function(name, arg, policy, refuse_here) {
  if (!(name %in% policy$env_setting_names)) {
    names <- toString(policy$env_setting_names)
    return(refuse_here(sprintf("it may set only %s, each by name, not %s", names, name), arg))
  }
  literal <- if (identical(arg$token, "STR_CONST")) string_value(arg$text)
  if (is.null(literal) || !grepl(policy$env_setting_pattern, literal, perl = TRUE)) {
    refuse_here(sprintf("%s must be a literal string naming a zone or locale (e.g. \"UTC\")", name), arg)
  }
}
